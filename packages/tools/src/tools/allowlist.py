"""Per-role allowlists: which tools each role may call. Anything else is refused."""

from __future__ import annotations

ALLOWLISTS: dict[str, frozenset[str]] = {
    "order_agent": frozenset({"orders__get_order", "stock__check"}),
    "logistics_agent": frozenset({"logistics__track"}),
    "policy_agent": frozenset({"kb__search"}),
    "reply_agent": frozenset(),
    # The orchestrator writes, but only through the outbox tools (which it may ask whether
    # a write landed), and checks stock.
    "orchestrator": frozenset(
        {"stock__check", "support__create_ticket", "support__send_reply", "support__find_write"}
    ),
}
"""Role -> the tools it may call. A role not listed may call nothing."""


def allowed_tools(role: str) -> frozenset[str]:
    """The tools ``role`` may call (empty for an unknown role)."""
    return ALLOWLISTS.get(role, frozenset())


def is_allowed(role: str, tool: str) -> bool:
    """Whether ``role`` may call ``tool``."""
    return tool in allowed_tools(role)
