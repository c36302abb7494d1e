"""SupportPilot's run record: the evals' neutral :class:`~evals.model.run.Run` and what
only SupportPilot records (its typed extension).

The evals core holds what any agent has (outcome, reply, steps, effects, usage); these
fields are SupportPilot's orchestration: the sources that disagreed or could not answer,
the message-log positions of its evidence and reply tasks, its bus's rejections, the
characters its workers read, the draft behind the reply, and what its claim screen
dropped. Traces write them beside the core's fields, as before; a run read back without
this class keeps them as extras, and :meth:`SupportPilotRun.of` gives them their types
again. SupportPilot's own checks (:mod:`agent_evals.checks`) read them.
"""

from __future__ import annotations

from evals.model.run import Run
from pydantic import BaseModel, ConfigDict, Field


class Screened(BaseModel):
    """One item SupportPilot's claim screen filtered out of what a worker returned, e.g. a
    claim that carried an instruction (``expect.screened`` judges these)."""

    model_config = ConfigDict(frozen=True)

    role: str
    """Whose output it was in."""
    topic: str
    """What it was about."""
    reason: str = ""
    """Why it was filtered out (e.g. ``injection``)."""


class SupportPilotRun(Run):
    """A SupportPilot run: the core record plus what only SupportPilot records."""

    draft: str | None = None
    """The reply that was drafted, sent or not (an ``ask_user`` run's question)."""
    conflicts: list[str] = Field(default_factory=list)
    """Topics on which sources disagreed (``expect.conflicts`` judges them)."""
    gaps: list[str] = Field(default_factory=list)
    """Topics no source could answer."""
    rejected_messages: int = Field(default=0, ge=0)
    """Messages the bus rejected."""
    evidence_complete_seq: int | None = Field(default=None, ge=0)
    """Message-log position at which all evidence results were back."""
    reply_task_seq: int | None = Field(default=None, ge=0)
    """Message-log position of the task sent to the reply writer (``None``: none sent)."""
    chars_read: int = Field(default=0, ge=0)
    """Characters the workers read from tools."""
    screened: list[Screened] = Field(default_factory=list)
    """What the claim screen filtered out of what the workers returned, in order (a
    retried role may appear twice)."""

    @classmethod
    def of(cls, run: Run) -> SupportPilotRun:
        """``run`` as a SupportPilot run (see :meth:`evals.model.run.Run.as_type`)."""
        return run.as_type(cls)
