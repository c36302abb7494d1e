"""A worker runs one specialist's brain under its contract and reports a status."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError
from tools import (
    Evidence,
    NotCustomersOrderError,
    ToolGateway,
    ToolRefusedError,
    UnknownToolError,
)

from agent.brain import Brain, Task, ToolBox
from agent.bus import payload_chars
from agent.contracts import Claim, Contract, WorkerOutput, WorkerStatus
from agent.errors import ProviderError, UnusableOutputError
from agent.hygiene import DroppedClaim, screen

OutputProblem = Literal["unusable", "unparsable", "schema", "oversized", "no_usable_claims"]
"""Why an output was ``invalid_output``: the brain found nothing usable (``unusable``, a
model brain after its repair round), it is not JSON (``unparsable``), it is JSON outside
the claim schema (``schema``), it is over the contract's size (``oversized``), or hygiene
dropped every claim (``no_usable_claims``)."""


class WorkerResult(BaseModel):
    """What a worker hands back to the orchestrator."""

    role: str
    """The specialist."""
    status: WorkerStatus
    """``ok``, ``error``, ``timeout``, ``refused`` or ``invalid_output``."""
    claims: list[Claim] = Field(default_factory=list)
    """Claims kept after hygiene (only when ``ok``)."""
    evidence: list[Evidence] = Field(default_factory=list)
    """The evidence items the kept claims cite."""
    dropped: list[DroppedClaim] = Field(default_factory=list)
    """Claims removed by hygiene."""
    error: str | None = None
    """What went wrong, when not ``ok``."""
    problem: OutputProblem | None = None
    """For ``invalid_output``: what was wrong with the output, as a code (``None``
    otherwise, and then left out of the result message)."""
    chars_read: int = 0
    """Characters of evidence the brain read."""

    def payload(self, task_seq: int) -> dict[str, Any]:
        """The result message payload (what the orchestrator receives)."""
        left_out = {"chars_read"} if self.problem is not None else {"chars_read", "problem"}
        data = self.model_dump(mode="json", exclude=left_out)
        data["task_seq"] = task_seq
        return data


class Worker:
    """One specialist: a brain, its contract, and the gateway it calls tools through."""

    def __init__(
        self,
        brain: Brain,
        contract: Contract,
        gateway: ToolGateway,
        *,
        screen_instructions: bool = True,
    ) -> None:
        self.brain = brain
        self.contract = contract
        self.gateway = gateway
        self.screen_instructions = screen_instructions
        """Whether claims carrying instructions are dropped (``False``: ``screen=off``)."""

    @property
    def role(self) -> str:
        """The specialist's role."""
        return self.contract.role

    async def perform(self, task: Task) -> WorkerResult:
        """Run the brain once under the contract (never longer than its timeout).

        Raises :class:`~agent.errors.ProviderError` when the model provider failed: that
        is not a worker status but the end of the run.
        """
        box = ToolBox(self.gateway, self.role)

        def failed(
            status: WorkerStatus, error: str, problem: OutputProblem | None = None
        ) -> WorkerResult:
            return WorkerResult(
                role=self.role,
                status=status,
                error=error,
                problem=problem,
                chars_read=box.chars_read,
            )

        try:
            raw = await asyncio.wait_for(self.brain.think(task, box), self.contract.timeout_s)
        except TimeoutError:
            return failed("timeout", f"no answer within {self.contract.timeout_s}s")
        except (ToolRefusedError, UnknownToolError, NotCustomersOrderError) as e:
            return failed("refused", str(e))
        except UnusableOutputError as e:
            return failed("invalid_output", str(e), "unusable")
        except ProviderError:
            # Not the brain's fault: the run is aborted and recorded as `error` upstream.
            raise
        # A brain is foreign code: whatever it raises is its crash, reported as `error`.
        except Exception as e:
            return failed("error", f"{type(e).__name__}: {e}")
        if box.refused:
            return failed("refused", box.refused[0])
        try:
            parsed = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as e:
            return failed(
                "invalid_output", f"output does not match the claim schema: {e}", "unparsable"
            )
        try:
            output = WorkerOutput.model_validate(parsed)
        except (ValidationError, ValueError) as e:
            return failed(
                "invalid_output", f"output does not match the claim schema: {e}", "schema"
            )
        size = payload_chars(output.model_dump(mode="json"))
        if size > self.contract.max_output_chars:
            return failed(
                "invalid_output",
                f"output of {size} characters exceeds {self.contract.max_output_chars}",
                "oversized",
            )
        kept, dropped = screen(
            output.claims, box.evidence.keys(), instructions=self.screen_instructions
        )
        if not kept:
            result = failed("invalid_output", "no usable claims", "no_usable_claims")
            return result.model_copy(update={"dropped": dropped})
        cited = dict.fromkeys(eid for claim in kept for eid in claim.evidence)
        return WorkerResult(
            role=self.role,
            status="ok",
            claims=kept,
            evidence=[box.evidence[eid] for eid in cited],
            dropped=dropped,
            chars_read=box.chars_read,
        )
