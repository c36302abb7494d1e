"""What a brain sees (a task and a role-bound tool box) and the protocol it implements.

Rule brains (deterministic) live in ``agent.rule_brains``; LLM brains implement the same
protocol.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field
from tools import Evidence, ToolError, ToolGateway, ToolResult

from agent.contracts import Role

Plan = Literal["reissue", "wait"]
"""What the reply must say: a reissue was filed, or the parcel must be waited for."""


class Task(BaseModel):
    """A task sent to a specialist."""

    model_config = ConfigDict(frozen=True)

    trace_id: str
    """The run."""
    role: Role
    """The specialist it is for (validated to the :data:`~agent.contracts.Role` literal's
    own object, so a role equal to ``REPLY_ROLE`` is ``REPLY_ROLE``, however it was made)."""
    order_id: str
    """The order concerned."""
    goal: str = ""
    """The customer's message (evidence tasks only: the reply writer never sees it, so it
    cannot repeat the customer's demands)."""
    plan: Plan | None = None
    """For the reply writer: what to tell the customer."""
    facts: dict[str, str] = Field(default_factory=dict)
    """For the reply writer: the agreed facts."""
    attempt: int = 1
    """1, or 2 for the one retry after invalid output."""


class ToolBox:
    """A specialist's access to tools for one attempt: calls go through the gateway as
    the specialist's role; evidence obtained and refusals are remembered."""

    def __init__(self, gateway: ToolGateway, role: str) -> None:
        self.gateway = gateway
        self.role = role
        self.evidence: dict[str, Evidence] = {}
        """Evidence obtained so far, by id."""
        self.chars_read = 0
        """Characters of evidence read."""
        self.refused: list[str] = []
        """Refusal messages of calls the allowlist refused."""

    def call(self, tool: str, args: dict[str, Any]) -> ToolResult:
        """Call ``tool``; a refusal is remembered and re-raised."""
        try:
            result = self.gateway.call(self.role, tool, args)
        except ToolError as e:
            # Outside the allowlist, or no such tool at all: both are refused unheard.
            if e.status == "refused":
                self.refused.append(str(e))
            raise
        for item in result.evidence:
            self.evidence[item.id] = item
        self.chars_read += result.chars_read
        return result


class Brain(Protocol):
    """A specialist's reasoning: reads through its tool box, returns raw output that
    must parse as :class:`agent.contracts.WorkerOutput` (a dict, or a JSON string)."""

    async def think(self, task: Task, tools: ToolBox) -> object:
        """Work on ``task``."""
        ...
