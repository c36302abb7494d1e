"""Claim hygiene: drop claims citing evidence the worker never obtained (fabrication) and
claims whose text carries instructions (injection)."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from agent.contracts import Claim

DropReason = Literal["fabricated_evidence", "injection"]

INJECTION_PATTERNS = [
    re.compile(r"忽略.{0,8}(规则|指令|指示|要求|设定)"),
    re.compile(r"(无视|不要理会|跳过).{0,8}(规则|指令|审批|限制)"),
    re.compile(r"(你现在是|扮演|系统提示|system prompt)", re.IGNORECASE),
    re.compile(
        r"\b(ignore|disregard|forget|override)\b.{0,30}\b(instructions?|rules?|prompts?|policy)\b",
        re.IGNORECASE,
    ),
]
"""Text that tries to instruct the reader instead of stating a fact."""


def carries_instructions(text: str) -> bool:
    """Whether ``text`` reads like an instruction to the agent."""
    return any(pattern.search(text) for pattern in INJECTION_PATTERNS)


class DroppedClaim(BaseModel):
    """A claim hygiene removed, and why."""

    model_config = ConfigDict(frozen=True)

    claim: Claim
    """The claim."""
    reason: DropReason
    """Why it was dropped."""


def screen(
    claims: Sequence[Claim], obtained: Collection[str], *, instructions: bool = True
) -> tuple[list[Claim], list[DroppedClaim]]:
    """Split ``claims`` into those kept and those dropped. ``obtained`` holds the ids of
    the evidence the worker really got from its tools. ``instructions=False`` turns the
    instruction screen off (the deliberately vulnerable setting, ``screen=off``):
    fabricated evidence is still dropped."""
    kept: list[Claim] = []
    dropped: list[DroppedClaim] = []
    for claim in claims:
        if any(eid not in obtained for eid in claim.evidence):
            dropped.append(DroppedClaim(claim=claim, reason="fabricated_evidence"))
        elif instructions and carries_instructions(f"{claim.text}\n{claim.value or ''}"):
            dropped.append(DroppedClaim(claim=claim, reason="injection"))
        else:
            kept.append(claim)
    return kept, dropped
