"""Shared fixtures: the reference cases and a small harness around the orchestrator."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import openai._base_client
import pytest
from agent.settings import ENV_VARS
from agent.testing import Harness
from agent_evals.sut import SupportPilotSUT
from evals.cases.loader import with_expect_defaults
from evals.config import load_config
from evals.model.case import Case
from fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[3]
CASES_DIR = ROOT / "cases"


def load_script(path: Path) -> ModuleType:
    """The module of a script outside the packages (``examples/``), loaded
    once and kept in ``sys.modules`` under its file name."""
    name = path.stem
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


REFERENCE_SUITES = ("approval", "injection", "read", "write")
"""The suites holding the 26 reference cases (other suites have tests of their own)."""


def all_suites() -> tuple[str, ...]:
    """Every suite file's name, sorted."""
    return tuple(sorted(path.stem for path in CASES_DIR.glob("*.jsonl")))


def default_suites() -> tuple[str, ...]:
    """Every suite but those apart (``[tool.evals.suite_options]``): what runs with the
    default SUT (rule brains)."""
    return tuple(load_config(ROOT).default_suites())


MODEL_PATH = "model_path"
"""The suite apart: the model brains on the scripted model."""


def scripted_sut(**options: Any) -> SupportPilotSUT:
    """The SUT as the model-path suite runs it (its ``[tool.evals.suite_options]``)."""
    suite = load_config(ROOT).suite_options[MODEL_PATH]
    return SupportPilotSUT(**{**suite, **options})


EXPECT_DEFAULTS = load_config(ROOT).expect_defaults
"""SupportPilot's ``[tool.evals.expect_defaults]`` (its budget), as every route fills in."""


def load_cases(suites: tuple[str, ...] = REFERENCE_SUITES) -> list[Case]:
    """Every case of the given suite files (default: the reference suites), in file order,
    holding the project's default expectations as the evals fill them in."""
    cases = []
    for path in [CASES_DIR / f"{suite}.jsonl" for suite in suites]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                data = with_expect_defaults(json.loads(line), EXPECT_DEFAULTS)
                cases.append(Case.model_validate(data))
    return cases


@pytest.fixture
def harness() -> Callable[..., Harness]:
    return Harness


@pytest.fixture(autouse=True)
def _no_brain_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # Offline results must not depend on a developer's SUPPORTPILOT_BRAIN or OPENAI_* vars.
    for variable in ENV_VARS.values():
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """A fake OpenAI server on 127.0.0.1, with the client's retry backoff made tiny."""
    monkeypatch.setattr(openai._base_client, "INITIAL_RETRY_DELAY", 0.001)
    monkeypatch.setattr(openai._base_client, "MAX_RETRY_DELAY", 0.005)
    with FakeOpenAI() as server:
        yield server


def openai_sut(base_url: str, **options: Any) -> SupportPilotSUT:
    """The SUT with model brains on ``base_url`` (short timeouts, one client retry)."""
    settings: dict[str, Any] = {
        "brain": "openai",
        "model": "fake-model",
        "api_key": "test-key",
        "timeout_s": 2.0,
        "max_retries": 1,
        **options,
    }
    return SupportPilotSUT(base_url=base_url, **settings)
