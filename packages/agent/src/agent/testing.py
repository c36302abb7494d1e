"""An orchestrator over a fresh default world, for tests of the agent and of what grades
it: :class:`Harness`, with any specialist's brain replaced, every write approved.

    harness = Harness({"logistics_agent": SlowBrain()}, timeout_s=0.05)
    outcome = await harness.handle("A1001")
    assert harness.tasks_to("logistics_agent") == 2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import ApprovalGate, build_world
from tools import ToolGateway

from agent.brain import Brain
from agent.bus import Bus
from agent.contracts import default_contracts
from agent.orchestrator import Orchestrator
from agent.outcome import Outcome
from agent.rule_brains import rule_brains
from agent.worker import Worker

TRACE_ID = "tr-test"
"""The trace id of every harness's gateway and bus."""
GOAL = "包裹一直没到，要求马上补发"
"""What the customer asks, unless told otherwise."""


class Harness:
    """An orchestrator over a fresh default world with some brains replaced."""

    def __init__(
        self, brains: Mapping[str, Brain] | None = None, timeout_s: float | None = None
    ) -> None:
        self.store = build_world()
        self.gateway = ToolGateway(self.store, TRACE_ID)
        all_brains = {**rule_brains(), **(brains or {})}
        extra: dict[str, Any] = {} if timeout_s is None else {"timeout_s": timeout_s}
        contracts = default_contracts(**extra)
        workers = {r: Worker(all_brains[r], contracts[r], self.gateway) for r in contracts}
        self.bus = Bus(TRACE_ID, workers)
        gate = ApprovalGate(self.store, lambda p: True)
        self.orchestrator = Orchestrator(workers, self.gateway, gate, self.bus)

    async def handle(self, order_id: str | None = "A1001", goal: str = GOAL) -> Outcome:
        """Handle one customer message about ``order_id``."""
        return await self.orchestrator.handle(order_id, goal)

    def tasks_to(self, role: str) -> int:
        """How many tasks the bus carried to ``role``."""
        return sum(1 for m in self.bus.log if m.kind == "task" and m.recipient == role)
