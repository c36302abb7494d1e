"""The approval gate: a proposal is approved by a human approver, by the auto-approval
limit, or not at all. It denies by default: no approver means rejected."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from domain.models import Approval, ApprovalStatus, DecidedBy
from domain.store import Store


class Proposal(BaseModel):
    """What the agent wants to write, as shown to the approver. Built by code, never read
    from text, so strict: an amount given as text is its builder's bug, not coerced."""

    model_config = ConfigDict(frozen=True, strict=True)

    trace_id: str
    """The run proposing it."""
    action: str
    """``reissue`` (ticket + reply) or ``reply`` (reply only)."""
    order_id: str
    """The order concerned."""
    amount: float
    """Money at stake, in yuan (the order's value for a reissue, 0 for a reply)."""
    summary: str
    """What will be written (ticket summary and reply draft)."""


Approver = Callable[[Proposal], bool | None]
"""A human approver: answers yes (True) or no (False) to a proposal, or ``None`` when no
answer came in time (the gate then fails closed: nobody decided)."""


class ApprovalGate:
    """Decides proposals and records every decision in the approvals table."""

    def __init__(
        self,
        store: Store,
        approver: Approver | None,
        auto_approve_below: float | None = None,
    ) -> None:
        self.store = store
        self.approver = approver
        self.auto_approve_below = auto_approve_below

    def decide(self, proposal: Proposal) -> Approval:
        """Approve or reject ``proposal`` and record the decision.

        Strictly below the auto-approval limit nobody is asked. Otherwise the human
        approver decides; with no approver, an approver that fails or one that never
        answers (``None``), the answer is no and nobody decided (``fail_closed``). The
        limit in force is recorded with the decision.
        """
        status: ApprovalStatus
        decided_by: DecidedBy
        limit = self.auto_approve_below
        if limit is not None and proposal.amount < limit:
            status, decided_by = "approved", "auto"
        elif self.approver is None:
            status, decided_by = "rejected", "fail_closed"
        else:
            try:
                reply = self.approver(proposal)
            # Deny by default: whatever goes wrong with the approver must read as "no".
            except Exception:
                reply = None
            # No answer is not a human "no": it is recorded as nobody deciding.
            decided_by = "fail_closed" if reply is None else "approver"
            answer = reply is True
            status = "approved" if answer else "rejected"
        return self.store.record_approval(
            approval_id=f"{proposal.trace_id}:approval",
            trace_id=proposal.trace_id,
            action=proposal.action,
            order_id=proposal.order_id,
            amount=proposal.amount,
            summary=proposal.summary,
            status=status,
            decided_by=decided_by,
            auto_approve_below=limit,
        )
