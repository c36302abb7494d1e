"""What the orchestrator returns to its caller."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agent.aggregate import Aggregate

Decision = Literal["replied", "escalate", "ask_user", "awaiting_approval_rejected"]
"""How a conversation turn ended."""


class Budget(BaseModel):
    """What the turn cost, counted from the bus log (every field is given: a default
    count would report work that was never counted)."""

    tasks: int
    """Task messages sent to specialists."""
    chars_read: int
    """Characters of evidence the specialists read from tools."""
    chars_returned: int
    """Characters of the results the specialists returned."""


class Handover(BaseModel):
    """For an escalation: what a human agent needs to take over."""

    reason: str
    """Why the case was escalated (a short code)."""
    suggestion: str
    """What the human agent should do (Chinese)."""
    facts: dict[str, str] = Field(default_factory=dict)
    """The facts gathered and agreed so far."""


class Outcome(BaseModel):
    """The result of handling one customer message."""

    decision: Decision
    """What was decided."""
    trace_id: str
    """The run, for the logs."""
    reply: str | None = None
    """The reply sent through the outbox (``None``: nothing sent)."""
    draft: str | None = None
    """The reply drafted (or the question for the customer when asking for the order id)."""
    aggregate: Aggregate = Field(default_factory=Aggregate)
    """Agreed facts, conflicts, gaps."""
    budget: Budget
    """Tasks and characters spent."""
    handover: Handover | None = None
    """For escalations: the hand-over to a human."""
    statuses: dict[str, str] = Field(default_factory=dict)
    """Last status per specialist."""
    role_errors: dict[str, str] = Field(default_factory=dict)
    """First error per specialist."""
    approval_id: str | None = None
    """The approval asked for, if any."""
