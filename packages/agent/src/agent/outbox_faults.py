"""Faults of the outbox: a case names them under the target ``outbox`` instead of a role.

| fault            | behaviour                                                          |
|------------------|--------------------------------------------------------------------|
| `lost_ack`       | the first call of every write tool commits, then its acknowledgement is lost |
| `lost_ack:<tool>`| the same for one write tool (`support__create_ticket`, `support__send_reply`) |
| `lost_request`   | the first call of every write tool never arrives: nothing commits |
| `lost_request:<tool>` | the same for one write tool |

Both are raised as :class:`tools.AcknowledgementLostError`: the caller cannot tell
whether the write landed, so a correct caller retries under the same idempotency key.
After a lost acknowledgement the outbox must write it only once; after a lost request the
retry is what lands it.
"""

from __future__ import annotations

from typing import Any

from domain import Store
from tools import TOOLS, AcknowledgementLostError, ToolGateway, ToolResult

from agent.errors import UnknownFaultError

OUTBOX = "outbox"
"""The fault target that is not a role."""
LOST_ACK = "lost_ack"
"""The write commits, its acknowledgement is lost."""
LOST_REQUEST = "lost_request"
"""The write never arrives; the caller hears nothing back either."""
OUTBOX_FAULT_KINDS = (LOST_ACK, LOST_REQUEST)
"""Every outbox fault kind."""
WRITE_TOOL_NAMES: tuple[str, ...] = tuple(
    name for name, tool in TOOLS.items() if tool.kind == "write"
)
"""The write tools a lost acknowledgement can hit."""


def parse_outbox_fault(fault: str) -> tuple[str, frozenset[str]]:
    """The kind of ``fault`` and the write tools whose first call it hits; raises
    :class:`UnknownFaultError` for anything but ``lost_ack`` / ``lost_request``, alone or
    with ``:<write tool>``."""
    kind, sep, tool = fault.partition(":")
    if kind in OUTBOX_FAULT_KINDS and not sep:
        return kind, frozenset(WRITE_TOOL_NAMES)
    if kind not in OUTBOX_FAULT_KINDS or tool not in WRITE_TOOL_NAMES:
        known = ", ".join(
            f"{k}{suffix}" for k in OUTBOX_FAULT_KINDS for suffix in ("", ":<write tool>")
        )
        raise UnknownFaultError(
            fault, f"expected one of {known} (write tools: {', '.join(WRITE_TOOL_NAMES)})"
        )
    return kind, frozenset({tool})


class LostAckGateway(ToolGateway):
    """A gateway that loses the first call of each named write tool: with ``lost_ack``
    the call commits and is audited as it would be, then
    :class:`~tools.AcknowledgementLostError` is raised instead of its result; with
    ``lost_request`` the error is raised before the call reaches the outbox."""

    def __init__(
        self,
        store: Store,
        trace_id: str,
        tools: frozenset[str],
        *,
        customer: str | None = None,
        kind: str = LOST_ACK,
    ) -> None:
        super().__init__(store, trace_id, customer=customer)
        self.kind = kind
        """``lost_ack`` or ``lost_request``."""
        self.pending = set(tools)
        """The write tools whose next acknowledgement is still to be lost."""
        self.lost: list[str] = []
        """The write tools whose acknowledgement was lost, in order."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role``; lose the first call of each named tool."""
        if self.kind == LOST_REQUEST and name in self.pending:
            self.pending.discard(name)
            self.lost.append(name)
            raise AcknowledgementLostError(name)
        result = super().call(role, name, args)
        if name in self.pending:
            self.pending.discard(name)
            self.lost.append(name)
            raise AcknowledgementLostError(name)
        return result


def outbox_gateway(
    store: Store, trace_id: str, fault: str | None, *, customer: str | None = None
) -> ToolGateway:
    """The gateway of a run (reads checked against ``customer`` when given): plain, or
    losing acknowledgements as ``fault`` says."""
    if fault is None:
        return ToolGateway(store, trace_id, customer=customer)
    kind, tools = parse_outbox_fault(fault)
    return LostAckGateway(store, trace_id, tools, customer=customer, kind=kind)
