"""Faults of the outbox: a case names them under the target ``outbox`` instead of a role.

| fault            | behaviour                                                          |
|------------------|--------------------------------------------------------------------|
| `lost_ack`       | the first call of every write tool commits, then its acknowledgement is lost |
| `lost_ack:<tool>`| the same for one write tool (`support__create_ticket`, `support__send_reply`) |

A lost acknowledgement is raised as :class:`tools.AcknowledgementLostError` after the
write committed (and was audited): the caller cannot tell whether it landed, so a correct
caller retries under the same idempotency key and the outbox must write it only once.
"""

from __future__ import annotations

from typing import Any

from domain import Store
from tools import TOOLS, AcknowledgementLostError, ToolGateway, ToolResult

from agent.errors import UnknownFaultError

OUTBOX = "outbox"
"""The fault target that is not a role."""
LOST_ACK = "lost_ack"
"""The one outbox fault kind."""
WRITE_TOOL_NAMES: tuple[str, ...] = tuple(
    name for name, tool in TOOLS.items() if tool.kind == "write"
)
"""The write tools a lost acknowledgement can hit."""


def parse_outbox_fault(fault: str) -> frozenset[str]:
    """The write tools whose first acknowledgement ``fault`` loses; raises
    :class:`UnknownFaultError` for anything but ``lost_ack`` or ``lost_ack:<write tool>``."""
    kind, sep, tool = fault.partition(":")
    if not sep and kind == LOST_ACK:
        return frozenset(WRITE_TOOL_NAMES)
    if kind != LOST_ACK or tool not in WRITE_TOOL_NAMES:
        known = ", ".join([LOST_ACK, *(f"{LOST_ACK}:{name}" for name in WRITE_TOOL_NAMES)])
        raise UnknownFaultError(fault, f"expected one of {known}")
    return frozenset({tool})


class LostAckGateway(ToolGateway):
    """A gateway that loses the acknowledgement of the first call of each named write
    tool: the call commits and is audited as it would be, then
    :class:`~tools.AcknowledgementLostError` is raised instead of its result."""

    def __init__(
        self, store: Store, trace_id: str, tools: frozenset[str], *, customer: str | None = None
    ) -> None:
        super().__init__(store, trace_id, customer=customer)
        self.pending = set(tools)
        """The write tools whose next acknowledgement is still to be lost."""
        self.lost: list[str] = []
        """The write tools whose acknowledgement was lost, in order."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role``; lose the acknowledgement once per named tool."""
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
    return LostAckGateway(store, trace_id, parse_outbox_fault(fault), customer=customer)
