"""The agent stands alone: ``supportpilot-agent`` needs nothing of the evals.

``nox -s "tests(package='agent')"`` runs this in a venv synced with
``uv sync --package supportpilot-agent`` (the agent and its dependencies only) and sets
AGENT_ISOLATED=1: there the evals (and the adapter joining them to the agent) must not
even be installed, and the agent still answers a customer.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from agent.testing import Harness

HARNESS = ("evals", "agent_evals", "judge")

PROBE = """
import json, sys
import agent, agent.orchestrator, agent.rule_brains, agent.worker, agent.bus
print(json.dumps(sorted(m for m in __HARNESS__ if m in sys.modules)))
""".replace("__HARNESS__", repr(HARNESS))


def test_importing_the_agent_imports_no_evals() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []


@pytest.mark.skipif(
    os.environ.get("AGENT_ISOLATED") != "1",
    reason="only meaningful in the agent-only venv that nox builds (AGENT_ISOLATED=1)",
)
@pytest.mark.parametrize("module", HARNESS)
def test_the_agent_only_venv_holds_no_evals(module: str) -> None:
    assert importlib.util.find_spec(module) is None, f"{module} is installed next to agent"


@pytest.mark.parametrize(
    ("order_id", "decision"), [("A1001", "replied"), (None, "ask_user"), ("A1003", "escalate")]
)
def test_the_agent_answers_a_case_without_the_evals(order_id: str | None, decision: str) -> None:
    outcome = asyncio.run(Harness().handle(order_id))
    assert outcome.decision == decision
