"""SupportPilot judged by configuration cases: its refusals and its report header,
through ``evals.evaluate``, whatever the developer's environment holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent.errors import BrainConfigError
from agent.settings import ENV_VARS
from agent_evals.sut import DB_DIR_ENV, SupportPilotSUT
from evals import evaluate
from evals.cases.loader import load_cases
from evals.gating.baseline import case_fingerprint, load_baseline

from .conftest import EXPECT_DEFAULTS

SPEC = "agent_evals.sut:SupportPilotSUT"
ROOT = Path(__file__).resolve().parents[3]

MAX_STEPS = "brain configuration: max_steps: Input should be greater than or equal to 1 (got '0')"
NO_MODEL = (
    "brain configuration: brain 'openai' needs a model: pass model=NAME or set SUPPORTPILOT_MODEL"
)
RULE = [
    "brain=rule (option), contract_timeout_s=0.5 (default for brain=rule)",
    "screen=on, model_server=-",
]


def _case(case_id: str, expect: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "split": "regression",
        "tags": ["settings"],
        "input": {},
        "expect": expect,
        **fields,
    }


CASES = [
    _case("max-steps-0", {"refused": [MAX_STEPS]}, sut_options={"max_steps": "0"}),
    _case("openai-no-model", {"refused": [NO_MODEL]}, sut_env={"SUPPORTPILOT_BRAIN": "openai"}),
    _case("rule-brain", {"described": RULE}, sut_options={"brain": "rule"}),
]  # fmt: skip


def _evaluate(tmp_path: Path, cases: list[dict[str, Any]]) -> list[tuple[str, bool, str]]:
    path = tmp_path / "settings.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    report = evaluate(path, SPEC)
    # Graded by its expectation alone: no invariant nor budget applies to it.
    assert all(
        [c.name for c in r.checks] == list(c["expect"])
        for r, c in zip(report.results, cases, strict=True)
    )
    return [
        (r.case_id, r.success, "; ".join(c.reason for c in r.failed_checks)) for r in report.results
    ]


def test_supportpilot_declares_every_variable_it_reads() -> None:
    assert set(SupportPilotSUT.config_env) == {*ENV_VARS.values(), DB_DIR_ENV}


def test_configuration_cases_pass_whatever_is_exported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A developer's settings (the evaluation's own SUT builds with them): they would
    # change the header, and the refusal of a brain without a model, if they leaked in.
    monkeypatch.setenv("SUPPORTPILOT_BRAIN", "openai")
    monkeypatch.setenv("SUPPORTPILOT_MODEL", "gpt-mine")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mine")
    with pytest.raises(BrainConfigError, match="model is set in SUPPORTPILOT_MODEL"):
        SupportPilotSUT(brain="rule")  # what the environment would do to rule-brain
    assert _evaluate(tmp_path, CASES) == [(c["id"], True, "") for c in CASES]


ALTERED = [
    (0, {"refused": [MAX_STEPS.replace("(got '0')", "(got 0)")]}, "expected but not given"),
    (0, {"refused": []}, "given but not expected"),
    (1, {"described": RULE}, "the SUT refused the case"),
    (2, {"described": [RULE[0]]}, "line 2 not expected: 'screen=on, model_server=-'"),
    (2, {"refused": [MAX_STEPS]}, "the SUT accepted the case"),
]


@pytest.mark.parametrize(("index", "expect", "reason"), ALTERED)
def test_altered_expectations_fail(
    tmp_path: Path, index: int, expect: dict[str, Any], reason: str
) -> None:
    altered = {**CASES[index], "expect": expect}
    ((case_id, success, why),) = _evaluate(tmp_path, [altered])
    assert (case_id, success) == (CASES[index]["id"], False)
    assert reason in why


def test_the_committed_baseline_fingerprints_still_match_the_unchanged_cases() -> None:
    # The configuration fields, unset, leave a case's fingerprint as it was before they
    # existed: the gate still knows which cases the baseline ran unchanged.
    baseline = load_baseline(ROOT / "reports" / "baseline.json")
    cases = [
        c
        for path in sorted((ROOT / "cases").glob("*.jsonl"))
        for c in load_cases([path], expect_defaults=EXPECT_DEFAULTS)
    ]
    same = [c.id for c in cases if baseline.case_fingerprints.get(c.id) == case_fingerprint(c)]
    assert len(same) == len(baseline.case_fingerprints) > 700
    configured = cases[0].model_copy(update={"sut_options": {"brain": "rule"}})
    assert case_fingerprint(configured) != case_fingerprint(cases[0])


KEYED = [
    _case(f"key-{n}", {"described": described}, sut_options=options, sut_env=env)
    for n, (options, env, described) in enumerate(
        [
            (
                {"brain": "openai", "model": "gpt-x", "api_key": "sk-very-secret"},
                {},
                [
                    "brain=openai (option), model=gpt-x (option), base_url=- (default)",
                    "api_key=*** (option), temperature=- (default), seed=- (default),"
                    " timeout_s=30.0 (default), max_retries=2 (default), max_steps=6 (default),"
                    " contract_timeout_s=120 (default for brain=openai)",
                    "screen=on, model_server=-",
                ],
            ),
            (
                {"brain": "openai", "model": "gpt-x"},
                {"OPENAI_API_KEY": "sk-very-secret"},
                [
                    "brain=openai (option), model=gpt-x (option), base_url=- (default)",
                    "api_key=*** (env OPENAI_API_KEY), temperature=- (default), seed=- (default),"
                    " timeout_s=30.0 (default), max_retries=2 (default), max_steps=6 (default),"
                    " contract_timeout_s=120 (default for brain=openai)",
                    "screen=on, model_server=-",
                ],
            ),
        ]
    )
]


@pytest.mark.parametrize("visible", [False, True], ids=["hidden", "visible_in_repr"])
def test_an_api_key_the_settings_repr_shows_fails_its_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, visible: bool
) -> None:
    """The positive control of the secret rule of configuration cases on SupportPilot: the
    key given as an option or in OPENAI_API_KEY never shows in what the SUT holds (its
    settings' repr hides it); with ``repr=True`` on the field (a log line or an error
    report's locals would print the key) both cases fail, naming the secret, not its
    value."""
    from agent.settings import BrainSettings

    if visible:
        monkeypatch.setattr(BrainSettings.model_fields["api_key"], "repr", True)
        assert "sk-very-secret" in repr(BrainSettings(api_key="sk-very-secret"))
    path = tmp_path / "keys.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in KEYED), encoding="utf-8")
    report = evaluate(path, SPEC)
    got = [(r.case_id, r.success, r.outcome, r.error or "") for r in report.results]
    if not visible:
        assert got == [("key-0", True, "accepted", ""), ("key-1", True, "accepted", "")]
        return
    assert [row[:3] for row in got] == [
        ("key-0", False, "sut_error"),
        ("key-1", False, "sut_error"),
    ]
    assert "shows the secret api_key in repr(sut.resolved)" in got[0][3]
    assert "shows the secret OPENAI_API_KEY in repr(sut.resolved)" in got[1][3]
    assert "sk-very-secret" not in report.render()
