"""Specialist contracts and the claim schema every specialist's output must follow."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from tools import allowed_tools

Role = Literal["order_agent", "logistics_agent", "policy_agent", "reply_agent"]
"""The specialists."""

EVIDENCE_ROLES: tuple[Role, ...] = ("order_agent", "logistics_agent", "policy_agent")
"""The specialists that gather evidence, dispatched together."""
REPLY_ROLE: Role = "reply_agent"
"""The specialist that drafts the reply."""
ROLES: tuple[Role, ...] = (*EVIDENCE_ROLES, REPLY_ROLE)

WorkerStatus = Literal["ok", "error", "timeout", "refused", "invalid_output"]
"""How an attempt ended: ``error`` the brain crashed, ``refused`` it called a tool outside
its allowlist, ``invalid_output`` nothing usable came back (the only status retried)."""

DEFAULT_TIMEOUT_S = 0.5
"""Rule brains answer in well under a millisecond; half a second is plenty."""
DEFAULT_MAX_OUTPUT_CHARS = 16000


class Claim(BaseModel):
    """One statement a specialist makes, with the evidence it rests on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str = Field(min_length=1, max_length=64)
    """What it is about (``parcel_state``, ``stale_hours``, ``reissue_threshold_hours`` …)."""
    value: str | None
    """The value as a string; ``None``: the specialist could not answer (a gap)."""
    text: str = Field(default="", max_length=4000)
    """A short explanation (Chinese)."""
    evidence: list[str] = Field(default_factory=list)
    """Ids of the evidence items it cites (``order#1`` …)."""


class WorkerOutput(BaseModel):
    """The output schema of every specialist: a list of claims."""

    model_config = ConfigDict(extra="forbid")

    claims: list[Claim] = Field(max_length=50)
    """What the specialist claims."""


class Contract(BaseModel):
    """What a specialist may do and must deliver."""

    model_config = ConfigDict(frozen=True)

    role: Role
    """The specialist."""
    allowed_tools: frozenset[str]
    """Tools it may call (the gateway's allowlist for the role)."""
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0)
    """Wall-time limit of one attempt."""
    max_output_chars: int = Field(default=DEFAULT_MAX_OUTPUT_CHARS, gt=0)
    """Largest output accepted, as serialized JSON characters."""

    def with_timeout(self, timeout_s: float) -> Contract:
        """The same contract with another timeout."""
        return self.model_copy(update={"timeout_s": timeout_s})


def default_contracts(**overrides: Any) -> dict[str, Contract]:
    """One contract per specialist; ``overrides`` (e.g. ``timeout_s``) apply to all."""
    return {
        role: Contract(role=role, allowed_tools=allowed_tools(role), **overrides) for role in ROLES
    }
