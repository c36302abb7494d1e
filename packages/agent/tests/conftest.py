"""Shared fixtures: a small harness around the orchestrator (the agent alone, no evals)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from agent import Brain, Bus, Orchestrator, Outcome, Worker, default_contracts, rule_brains
from agent.settings import ENV_VARS
from domain import ApprovalGate, build_world
from tools import ToolGateway


class Harness:
    """An orchestrator over a fresh default world with some brains replaced."""

    def __init__(
        self, brains: Mapping[str, Brain] | None = None, timeout_s: float | None = None
    ) -> None:
        self.store = build_world()
        self.gateway = ToolGateway(self.store, "tr-test")
        all_brains = {**rule_brains(), **(brains or {})}
        extra: dict[str, Any] = {} if timeout_s is None else {"timeout_s": timeout_s}
        contracts = default_contracts(**extra)
        workers = {r: Worker(all_brains[r], contracts[r], self.gateway) for r in contracts}
        self.bus = Bus("tr-test", workers)
        gate = ApprovalGate(self.store, lambda p: True)
        self.orchestrator = Orchestrator(workers, self.gateway, gate, self.bus)

    async def handle(self, order_id: str | None = "A1001") -> Outcome:
        return await self.orchestrator.handle(order_id, "包裹一直没到，要求马上补发")

    def tasks_to(self, role: str) -> int:
        return sum(1 for m in self.bus.log if m.kind == "task" and m.recipient == role)


@pytest.fixture
def harness() -> Callable[..., Harness]:
    return Harness


@pytest.fixture(autouse=True)
def _no_brain_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Offline results must not depend on a developer's SUPPORTPILOT_BRAIN or OPENAI_* vars.
    for variable in ENV_VARS.values():
        monkeypatch.delenv(variable, raising=False)
