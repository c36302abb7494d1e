"""Faults that take away a layer in front of the store, so a write reaches it that the
layer would have stopped: the store's own refusals (defence in depth) are then all that
stands between the run and a wrong write. A case names one under the target ``bypass``.

- ``approval``: the orchestrator is told every proposal was approved, whatever the
  approval gate decided and recorded: its writes cite an approval the database holds as
  rejected (or as decided by nobody), and the store must refuse them itself;
- ``stock``: the stock check answers from a stale copy: a SKU the database holds no unit
  of reads as one unit in stock, so the ticket reaches the store, which must refuse the
  reservation (stock never goes negative).

What a correct SupportPilot does under either: the write is refused, nothing is written
(no ticket, no reply, the stock unchanged), and the turn escalates ``write_failed``. The
faults live in the evaluation harness, not the agent: they stand for a broken outer layer
(an approval service whose answer is misread, a stock replica that lags), not for a
behaviour of the agent's own.
"""

from __future__ import annotations

from typing import Any

from agent.errors import UnknownFaultError
from domain import Approval, ApprovalGate, Proposal
from tools import ToolGateway, ToolResult

BYPASS = "bypass"
"""The fault target of these faults (``faults: {"bypass": "approval"}``)."""
APPROVAL = "approval"
"""The approval gate's answer is taken as yes."""
STOCK = "stock"
"""The stock check reads a stale copy: no unit reads as one."""
BYPASS_FAULTS = (APPROVAL, STOCK)
"""Every bypass fault, in the table's order."""


def parse_bypass_fault(fault: str) -> str:
    """The bypass fault named (:data:`BYPASS_FAULTS`); anything else raises
    :class:`UnknownFaultError`."""
    if fault not in BYPASS_FAULTS:
        raise UnknownFaultError(fault, f"expected one of {', '.join(BYPASS_FAULTS)}")
    return fault


class ApprovedAnywayGate(ApprovalGate):
    """An approval gate whose every decision is recorded as it was made, and reported to
    the caller as approved."""

    def decide(self, proposal: Proposal) -> Approval:
        """Decide and record as the real gate does; answer "approved" whatever it was."""
        recorded = super().decide(proposal)
        return recorded.model_copy(update={"status": "approved"})


class StaleStockGateway(ToolGateway):
    """Passes every call to ``inner``; a stock check of a SKU with no unit reads one."""

    def __init__(self, inner: ToolGateway) -> None:
        super().__init__(inner.store, inner.trace_id, customer=inner.context.customer)
        self.inner = inner
        self.stale: list[str] = []
        """The SKUs whose check read a unit the database does not hold."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """The call as ``inner`` answers it; a stock check reading 0 reads 1."""
        result = self.inner.call(role, name, args)
        if name != "stock__check" or result.data.get("qty") != 0:
            return result
        self.stale.append(str(result.data.get("sku")))
        return result.model_copy(update={"data": {**result.data, "qty": 1}})
