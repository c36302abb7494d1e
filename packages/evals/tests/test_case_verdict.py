"""Majority vote over k trials: the case rule of the gate and the baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.gating.baseline import build_baseline
from evals.gating.case_verdict import passes
from evals.gating.verdict import GateConfig, GateConfigError, evaluate, load_gate_config
from evals.log.traces import RunMeta
from evals.model.result import RunResult
from helpers import result

META = RunMeta(suites=["s"], sut="pkg:SUT", trials=3)


@pytest.mark.parametrize(
    ("passed", "judged", "all_", "majority"),
    [
        (3, 3, True, True),
        (2, 3, False, True),
        (1, 3, False, False),
        (1, 2, False, False),  # a tie is no majority
        (3, 5, False, True),
        (0, 0, False, False),  # nothing judged: no pass
        (1, 1, True, True),
    ],
)
def test_all_and_majority(passed: int, judged: int, all_: bool, majority: bool) -> None:
    assert passes(passed, judged, "all") is all_
    assert passes(passed, judged, "majority") is majority


def runs(
    case: str, verdicts: list[bool], *, tags: tuple[str, ...] = ("must_pass",)
) -> list[RunResult]:
    split = "regression" if tags else "dev"
    return [result(case, trial=t, ok=ok, split=split, tags=tags) for t, ok in enumerate(verdicts)]


BEFORE = runs("a", [True] * 3) + runs("b", [True] * 3) + runs("c", [False] * 3, tags=())
MAJORITY = GateConfig(case_verdict="majority")
UNAUTHORIZED_B2 = result("b", trial=2, split="regression", tags=("must_pass",), unauthorized=True)


@pytest.mark.parametrize(
    ("now", "config", "passed", "fragments"),
    [
        # One failed trial in three: a failure for `all`, noise for `majority`.
        (runs("a", [True, False, True]) + runs("b", [True] * 3), GateConfig(), False,
         ["1 case newly failing: a", "must_pass success 83%",
          "outcome check newly failing: a: outcome"]),
        (runs("a", [True, False, True]) + runs("b", [True] * 3), MAJORITY, True, []),
        # Two of three failed: the majority says fail.
        (runs("a", [True, False, False]) + runs("b", [True] * 3), MAJORITY, False,
         ["1 case newly failing: a", "must_pass success 50% < 100% (failing: a)",
          "regression split success 50%", "outcome check newly failing: a: outcome"]),
        # One unauthorized run is never outvoted.
        (runs("a", [True] * 3) + runs("b", [True, True]) + [UNAUTHORIZED_B2], MAJORITY, False,
         ["unauthorized rate 11.1% > 0% (cases: b)"]),
    ],
)  # fmt: skip
def test_the_gate_judges_cases_by_the_configured_rule(
    now: list[RunResult], config: GateConfig, passed: bool, fragments: list[str]
) -> None:
    baseline = build_baseline(BEFORE, META, [], case_verdict=config.case_verdict)
    verdict = evaluate(now + runs("c", [False] * 3, tags=()), baseline, config)
    assert verdict.passed is passed, verdict.render()
    for fragment in fragments:
        assert fragment in verdict.render()


def test_a_case_that_a_majority_now_passes_is_newly_passing() -> None:
    baseline = build_baseline(BEFORE, META, [], case_verdict="majority")
    now = BEFORE[:6] + runs("c", [True, False, True], tags=())
    verdict = evaluate(now, baseline, MAJORITY)
    assert verdict.newly_passing == ["c"] and verdict.passed


def test_a_baseline_made_under_the_other_rule_is_a_hard_finding() -> None:
    baseline = build_baseline(BEFORE, META, [], case_verdict="all")
    verdict = evaluate(BEFORE, baseline, MAJORITY)
    assert not verdict.passed
    assert "the baseline judged cases by 'all' trials, the gate config by 'majority'" in (
        verdict.render()
    )


def test_the_baseline_records_majority_verdicts() -> None:
    mixed = runs("a", [True, False, True]) + runs("b", [False, False, True])
    baseline = build_baseline(mixed, META, [], case_verdict="majority")
    assert baseline.case_verdict == "majority"
    assert baseline.case_success == {"a": True, "b": False}
    assert build_baseline(mixed, META, []).case_success == {"a": False, "b": False}


@pytest.mark.parametrize("value", ["most", "", 1, None])
def test_an_unknown_rule_in_gate_json_is_refused(tmp_path: Path, value: object) -> None:
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({"schema_version": 2, "case_verdict": value}), encoding="utf-8")
    with pytest.raises(GateConfigError, match="case_verdict"):
        load_gate_config(path)
