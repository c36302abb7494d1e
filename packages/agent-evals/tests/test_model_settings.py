"""Settings that cannot silently change the system: a setting given (as ``--sut-option``,
in ``[tool.evals.suite_options]`` or in an environment variable) that would not be applied
is exit 2 with one line, and the report's header states the brain, the model and where
each setting came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent import settings as settings_module
from agent.errors import BrainConfigError
from agent.settings import resolve
from agent_evals.scripted_model import SCRIPTED_MODEL
from agent_evals.sut import SupportPilotSUT
from evals.cli.main import main

from .conftest import CASES_DIR, MODEL_PATH
from .test_model_path import mutate

ROOT = CASES_DIR.parent
OPENAI = {"brain": "openai", "model": "m", "api_key": "k"}
ONLY = "applies to brain=openai only"
SCRIPTED = {"model_server": "scripted", "brain": "openai"}
NOT_OURS = "is not the scripted model"


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The repository as the working directory; the flags sending reports and traces to
    ``tmp_path`` (traces last)."""
    monkeypatch.chdir(ROOT)
    return ["--out", str(tmp_path / "r"), "--traces", str(tmp_path / "t")]


@pytest.mark.parametrize(
    ("given", "env", "sources"),
    [
        ({}, {}, {"brain": "default", "model": "default", "timeout_s": "default"}),
        (
            OPENAI,
            {"SUPPORTPILOT_TIMEOUT_S": "9"},
            {"brain": "option", "timeout_s": "env SUPPORTPILOT_TIMEOUT_S"},
        ),
        (
            {"model": "n"},
            {"SUPPORTPILOT_BRAIN": "openai", "SUPPORTPILOT_MODEL": "m", "OPENAI_API_KEY": "k"},
            {"brain": "env SUPPORTPILOT_BRAIN", "model": "option", "api_key": "env OPENAI_API_KEY"},
        ),
    ],
)
def test_each_setting_says_where_it_came_from(
    given: dict[str, Any], env: dict[str, str], sources: dict[str, str]
) -> None:
    resolved = resolve(given, env)
    assert {k: resolved.sources[k] for k in sources} == sources


@pytest.mark.parametrize(
    ("given", "env", "fragment"),
    [
        ({"model": "gpt-4o"}, {}, f"model is given but {ONLY}, and brain is 'rule' (the default)"),
        ({"brain": "rule", "temperature": "0"}, {}, f"temperature is given but {ONLY}, and brain"),
        (
            {},
            {"SUPPORTPILOT_MAX_STEPS": "3"},
            f"max_steps is set in SUPPORTPILOT_MAX_STEPS but {ONLY}",
        ),
        (
            {},
            {"SUPPORTPILOT_BRAIN": "rule", "SUPPORTPILOT_MODEL": "m"},
            "(from SUPPORTPILOT_BRAIN)",
        ),
    ],
)
def test_a_model_setting_under_rule_brains_is_refused(
    given: dict[str, Any], env: dict[str, str], fragment: str
) -> None:
    with pytest.raises(BrainConfigError) as info:
        resolve(given, env)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_the_variables_every_openai_client_reads_are_left_unread_by_rule_brains() -> None:
    resolved = resolve({}, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://x/v1"})
    assert (resolved.settings.api_key, resolved.settings.base_url) == (None, None)
    assert resolved.unread == ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    assert "unread (brain=rule): OPENAI_API_KEY, OPENAI_BASE_URL" in settings_module.describe(
        resolved
    )


def test_a_resolution_that_drops_what_was_given_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # The silent fallback to rule brains: the resolution reads no argument at all.
    mutate(monkeypatch, settings_module, "resolve", "value = given.get(name)", "value = None")
    with pytest.raises(BrainConfigError) as info:
        settings_module.resolve(OPENAI, {})
    assert "brain was given but 'rule' would run" in str(info.value)


def test_a_resolution_that_prefers_the_environment_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    mutate(
        monkeypatch,
        settings_module,
        "resolve",
        "if _blank(value):",
        "if env.get(variable):",
    )
    with pytest.raises(BrainConfigError) as info:
        settings_module.resolve({**OPENAI, "model": "n"}, {"SUPPORTPILOT_MODEL": "m"})
    assert "model was given but 'm' would run" in str(info.value)


@pytest.mark.parametrize(
    ("options", "env", "fragment"),
    [
        ({"model_server": "scripted"}, {}, "model_server=scripted serves model brains"),
        ({**SCRIPTED, "base_url": "http://x/v1"}, {}, "base_url is given but"),
        ({**SCRIPTED, "api_key": "k"}, {}, "api_key is given but"),
        ({**SCRIPTED, "model": "gpt-4o"}, {}, f"'gpt-4o' {NOT_OURS}"),
        (SCRIPTED, {"SUPPORTPILOT_MODEL": "gpt-4o"}, f"'gpt-4o' {NOT_OURS}"),
        ({"model_server": "ollama"}, {}, "model_server must be 'scripted'"),
    ],
)
def test_the_scripted_model_takes_no_setting_it_would_not_apply(
    monkeypatch: pytest.MonkeyPatch, options: dict[str, str], env: dict[str, str], fragment: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(BrainConfigError) as info:
        SupportPilotSUT(**options)
    assert fragment in str(info.value)


def test_the_scripted_model_leaves_the_shared_variables_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.invalid/v1")
    sut = SupportPilotSUT(brain="openai", model_server="scripted")
    assert sut.settings.model == SCRIPTED_MODEL
    assert "unread (model_server=scripted): OPENAI_BASE_URL" in sut.describe()


@pytest.mark.parametrize(
    ("argv", "env", "fragment"),
    [
        (
            ["--suite", "read", "--sut-option", "temperature=0.2"],
            {},
            f"temperature is given but {ONLY}",
        ),
        (
            ["--suite", "read"],
            {"SUPPORTPILOT_MODEL": "gpt-4o"},
            "model is set in SUPPORTPILOT_MODEL",
        ),
        (
            ["--suite", MODEL_PATH, "--sut-option", "brain=rule"],
            {},
            "contradicts suite 'model_path'",
        ),
        (["--suite", MODEL_PATH], {"SUPPORTPILOT_MODEL": "gpt-4o"}, NOT_OURS),
        (["--suite", "read", "--sut-option", "model_server=scripted"], {}, "needs brain=openai"),
        (["--cases", f"cases/{MODEL_PATH}.jsonl"], {}, "is suite 'model_path', which runs with"),
    ],
    ids=[
        "rule-temperature",
        "rule-env-model",
        "suite-contradicted",
        "suite-env-model",
        "server-without-brain",
        "suite-as-cases",
    ],
)
def test_a_setting_that_would_not_be_applied_is_exit_2_in_one_line(
    at_root: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    argv: list[str],
    env: dict[str, str],
    fragment: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["run", *argv, *at_root]) == 2
    err = capsys.readouterr().err
    assert fragment in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    traces = Path(at_root[-1])
    assert not traces.exists() or not any(traces.iterdir())


def test_a_silent_fallback_to_rule_brains_is_exit_2_before_any_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    mutate(monkeypatch, settings_module, "resolve", "value = given.get(name)", "value = None")
    out = ["--out", str(tmp_path / "r"), "--traces", str(tmp_path / "t")]
    assert main(["run", "--suite", MODEL_PATH, *out]) == 2
    assert "would run" in capsys.readouterr().err


def test_the_default_report_says_rule_brains_ran_and_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["run", "--suite", "read", "--out", str(tmp_path), "--traces", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "system: brain=rule (default), contract_timeout_s=0.5 (default for brain=rule)" in out
    report = json.loads((tmp_path / "read.json").read_text(encoding="utf-8"))
    assert report["meta"]["sut_description"][0].startswith("brain=rule (default)")
