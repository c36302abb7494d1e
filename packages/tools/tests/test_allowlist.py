"""Per-role allowlists: refused calls never reach a handler and are audited."""

from __future__ import annotations

from typing import Any

import pytest
from tools import ALLOWLISTS, TOOLS, ToolGateway, ToolRefusedError, UnknownToolError

VALID_ARGS: dict[str, dict[str, Any]] = {
    "orders__get_order": {"order_id": "A1001"},
    "logistics__track": {"order_id": "A1001"},
    "kb__search": {"query": "补发"},
    "stock__check": {"sku": "SKU-TEE-01"},
    "support__create_ticket": {
        "order_id": "A1001",
        "sku": "SKU-TEE-01",
        "approval_id": "tr-1:approval",
        "idempotency_key": "tr-1:ticket",
        "summary": "补发",
    },
    "support__send_reply": {
        "order_id": "A1001",
        "text": "您好",
        "approval_id": "tr-1:approval",
        "idempotency_key": "tr-1:reply",
    },
    "support__find_write": {"idempotency_key": "tr-1:ticket"},
}

ROLES = [*ALLOWLISTS, "stranger"]
MATRIX = [(role, tool) for role in ROLES for tool in TOOLS if tool not in ALLOWLISTS.get(role, ())]


def test_the_spec_allowlists() -> None:
    assert ALLOWLISTS["order_agent"] >= {"orders__get_order"}
    assert ALLOWLISTS["logistics_agent"] == {"logistics__track"}
    assert ALLOWLISTS["policy_agent"] == {"kb__search"}
    assert ALLOWLISTS["reply_agent"] == set()
    assert all(not name.startswith("support__") for name in ALLOWLISTS["order_agent"])


def test_matrix_covers_every_specialist() -> None:
    assert len(MATRIX) >= 4 * 4
    assert {role for role, _ in MATRIX} == set(ROLES)


@pytest.mark.parametrize(("role", "tool"), MATRIX)
def test_call_outside_allowlist_is_refused_and_audited(
    dump: Any, gateway: ToolGateway, handler_calls: list[str], role: str, tool: str
) -> None:
    before = dump(gateway.store)
    with pytest.raises(ToolRefusedError, match="unauthorized") as info:
        gateway.call(role, tool, VALID_ARGS[tool])
    assert info.value.status == "refused"
    assert handler_calls == []
    assert dump(gateway.store) == before
    [entry] = gateway.store.audit()
    assert (entry.role, entry.tool, entry.allowed, entry.status) == (role, tool, False, "refused")
    assert "unauthorized" in entry.reason


@pytest.mark.parametrize(
    ("role", "tool"),
    [
        (role, tool)
        for role, tools in ALLOWLISTS.items()
        for tool in tools
        if TOOLS[tool].kind == "read"  # writes: see test_outbox
    ],
)
def test_call_inside_allowlist_reaches_the_handler(
    gateway: ToolGateway, handler_calls: list[str], role: str, tool: str
) -> None:
    gateway.call(role, tool, VALID_ARGS[tool])
    assert handler_calls == [tool]
    [entry] = gateway.store.audit()
    assert (entry.allowed, entry.status) == (True, "ok")


def test_unknown_tool_is_refused_and_audited(gateway: ToolGateway) -> None:
    with pytest.raises(UnknownToolError, match="refused"):
        gateway.call("order_agent", "orders__delete_order", {})
    [entry] = gateway.store.audit()
    assert (entry.allowed, entry.kind) == (False, "unknown")
