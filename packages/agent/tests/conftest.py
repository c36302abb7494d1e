"""Shared fixtures: a small harness around the orchestrator (the agent alone, no evals)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from agent.settings import ENV_VARS
from agent.testing import Harness


@pytest.fixture
def harness() -> Callable[..., Harness]:
    return Harness


@pytest.fixture(autouse=True)
def _no_brain_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Offline results must not depend on a developer's SUPPORTPILOT_BRAIN or OPENAI_* vars.
    for variable in ENV_VARS.values():
        monkeypatch.delenv(variable, raising=False)
