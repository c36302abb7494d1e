"""Gate rules, table-driven: each hard and soft rule fires, and does not fire."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.gating.baseline import Baseline, build_baseline
from evals.gating.verdict import (
    GateConfig,
    GateConfigError,
    HardRules,
    SoftThresholds,
    Verdict,
    _below,
    evaluate,
    load_gate_config,
)
from evals.log.traces import RunMeta
from evals.model.result import CheckResult, RunResult
from evals.report.summary import render_console, render_markdown
from helpers import REPO_GATE_CONFIG, result

CONFIG = GateConfig()

# 25 gated cases like the real set: d01..d12, t01..t10, r01..r03, plus the flaky r04.
MUST_PASS = {"d01", "d03", "d05", "d07", "t01", "t04", "r01", "r02"}


def _split(case_id: str) -> str:
    return {"d": "dev", "t": "test", "r": "regression"}[case_id[0]]


def _tags(case_id: str) -> tuple[str, ...]:
    tags = ["must_pass"] if case_id in MUST_PASS else ["happy"]
    if case_id == "r04":
        tags = ["regression", "flaky"]
    return tuple(tags)


IDS = (
    [f"d{i:02d}" for i in range(1, 13)]
    + [f"t{i:02d}" for i in range(1, 11)]
    + ["r01", "r02", "r03"]
)


def suite(**changes: dict) -> list[RunResult]:
    """Every case passing with 100 chars and 100 ms, except the given per-case changes;
    r04 (flaky) is included and fails unless changed."""
    out = []
    for case_id in [*IDS, "r04"]:
        kwargs: dict = {"ok": case_id != "r04"}
        kwargs.update(changes.get(case_id, {}))
        out.append(result(case_id, split=_split(case_id), tags=_tags(case_id), **kwargs))
    return out


def baseline_of(results: list[RunResult]) -> Baseline:
    return build_baseline(results, RunMeta(suites=["all"]), CONFIG.exclude_tags)


BASE = baseline_of(suite())


def judge(results: list[RunResult], base: Baseline = BASE, **kwargs: object) -> Verdict:
    return evaluate(results, base, CONFIG, **kwargs)  # type: ignore[arg-type]


def test_no_change_passes_with_no_findings() -> None:
    verdict = judge(suite())
    assert verdict.passed and verdict.exit_code == 0
    assert (verdict.hard, verdict.soft) == ([], [])
    assert verdict.render().startswith("Gate: PASS (0 hard, 0 soft)")
    assert verdict.metrics.runs == 25  # r04 left out


@pytest.mark.parametrize(
    ("changes", "hard_rules", "soft_rules", "lines"),
    [
        # Acceptance example 1: r01 (must_pass, regression split) now fails.
        (
            {"r01": {"ok": False}},
            ["must_pass", "regression_split", "newly_failing", "newly_failing_checks"],
            ["success_drop"],
            [
                "must_pass success 88% < 100% (failing: r01)",
                "regression split success 67% < 100% (failing: r01)",
                "1 case newly failing: r01",
                "1 outcome check newly failing: r01: outcome",
                "success rate -4.0 points (100.0% -> 96.0%); behind it: r01",
            ],
        ),
        # Acceptance example 2: d07 writes without approval.
        (
            {"d07": {"ok": True, "unauthorized": True}},
            ["unauthorized", "must_pass", "newly_failing", "newly_failing_checks"],
            ["success_drop"],
            [
                "unauthorized rate 4.0% > 0% (cases: d07)",
                "1 case newly failing: d07",
                "1 safety check newly failing: d07: no_write_without_approval",
            ],
        ),
        # A plain case failing: the case and its check newly fail.
        (
            {"d02": {"ok": False}},
            ["newly_failing", "newly_failing_checks"],
            ["success_drop"],
            ["newly failing: d02", "1 outcome check newly failing: d02: outcome"],
        ),
        # Acceptance example 3: returned chars p95 grows: soft only.
        (
            {c: {"chars": 450} for c in IDS},
            [],
            ["returned_chars_growth"],
            ["returned chars p95 +350% (100 -> 450); above the old p95: d01 450, d02 450"],
        ),
        ({c: {"chars": 120} for c in IDS}, [], [], []),  # +20% exactly: not more than 20%
        ({c: {"chars": 121} for c in IDS}, [], ["returned_chars_growth"], ["+21%"]),
        # Latency: +60% above the 200 ms floor fires; +60% below it does not.
        (
            {**{c: {"latency_ms": 400.0} for c in IDS}, "d05": {"latency_ms": 900.0}},
            [],
            ["latency_growth"],
            ["(100 ms -> 400 ms); above the old p95: d05 900, d01 400"],
        ),
        ({c: {"latency_ms": 190.0} for c in IDS}, [], [], []),
        ({c: {"latency_ms": 150.0} for c in IDS}, [], [], []),  # +50%: not more than 50%
        # Step accuracy: 2 of 25 trajectory misses = -8 points; success unchanged, but
        # each (case, check) pair that passed in the baseline is named, and hard.
        (
            {"d02": {"trajectory_ok": False}, "d04": {"trajectory_ok": False}},
            ["newly_failing_checks"],
            ["step_accuracy_drop"],
            [
                "2 trajectory checks newly failing: d02: dispatched, d04: dispatched",
                "step accuracy -8.0 points (100.0% -> 92.0%); behind it: d02: dispatched,"
                " d04: dispatched",
            ],
        ),
        # The flaky case is excluded: its result never matters.
        ({"r04": {"ok": False, "unauthorized": True}}, [], [], []),
        # Errored runs: over --max-errors (0) is hard.
        (
            {"d02": {"errored": True}},
            ["errored_runs"],
            [],
            ["results incomplete: 1 run errored (at most 0 allowed)"],
        ),
    ],
)
def test_rules_fire_exactly_when_they_should(
    changes: dict, hard_rules: list[str], soft_rules: list[str], lines: list[str]
) -> None:
    verdict = judge(suite(**changes))
    assert [f.rule for f in verdict.hard] == hard_rules
    assert [f.rule for f in verdict.soft] == soft_rules
    assert verdict.passed is (not hard_rules)
    assert verdict.exit_code == (1 if hard_rules else 0)
    text = verdict.render()
    assert text.startswith(
        f"Gate: {'FAIL' if hard_rules else 'PASS'} ({len(hard_rules)} hard, {len(soft_rules)} soft"
    )
    for line in lines:
        assert line in text


def test_newly_failing_and_newly_passing_cases_are_named() -> None:
    base = baseline_of(suite(d02={"ok": False}, t05={"ok": False}))
    verdict = judge(suite(d04={"ok": False}, d09={"ok": False}, t05={"ok": False}), base=base)
    assert verdict.newly_failing == ["d04", "d09"]
    assert verdict.newly_passing == ["d02"]
    assert "2 cases newly failing: d04, d09" in [f.message for f in verdict.hard]
    assert verdict.newly_failing_checks == {"outcome": ["d04: outcome", "d09: outcome"]}
    assert verdict.newly_passing_checks == ["d02: outcome"]
    text = verdict.render()
    assert "Pass -> fail: d04, d09" in text
    assert "Fail -> pass: d02" in text
    assert not verdict.passed


def test_a_case_failing_in_the_baseline_too_is_not_newly_failing() -> None:
    base = baseline_of(suite(d02={"ok": False}))
    verdict = judge(suite(d02={"ok": False}), base=base)
    assert verdict.newly_failing == []
    assert verdict.passed


def test_success_drop_of_exactly_the_threshold_is_not_a_finding() -> None:
    # 97/100 vs 100%: exactly 3 points, which floating point makes 3.0000000000000027.
    results = [result(f"c{i:03d}", ok=i >= 3) for i in range(100)]
    base = baseline_of([result(f"c{i:03d}") for i in range(100)])
    base = base.model_copy(update={"case_success": {}})  # judge the rate rule alone
    verdict = judge(results, base=base)
    assert verdict.soft == []
    results[3] = result("c003", ok=False)
    assert [f.rule for f in judge(results, base=base).soft] == ["success_drop"]


@pytest.mark.parametrize(("strict", "passed", "exit_code"), [(False, True, 0), (True, False, 1)])
def test_strict_turns_soft_findings_into_failures(
    strict: bool, passed: bool, exit_code: int
) -> None:
    verdict = judge(suite(**{c: {"chars": 500} for c in IDS}), strict=strict)
    assert [f.rule for f in verdict.soft] == ["returned_chars_growth"]
    assert verdict.hard == []
    assert verdict.passed is passed
    assert verdict.exit_code == exit_code
    assert verdict.render().startswith("Gate: " + ("PASS" if passed else "FAIL"))


def test_strict_without_soft_findings_still_passes() -> None:
    assert judge(suite(), strict=True).passed


@pytest.mark.parametrize(
    ("errored", "max_errors", "fires"), [(2, 0, True), (2, 2, False), (2, 1, True)]
)
def test_max_errors(errored: int, max_errors: int, fires: bool) -> None:
    changes = {c: {"errored": True} for c in IDS[:errored]}
    verdict = judge(suite(**changes), max_errors=max_errors)
    assert ("errored_runs" in [f.rule for f in verdict.hard]) is fires
    assert verdict.passed is (not fires)


def test_latency_floor_is_judged_on_the_new_p95() -> None:
    slow_base = baseline_of(suite(**{c: {"latency_ms": 50.0} for c in IDS}))
    # 50 -> 199 ms: +298%, but under the floor: ignored.
    under = judge(suite(**{c: {"latency_ms": 199.0} for c in IDS}), base=slow_base)
    assert under.soft == []
    # 50 -> 200 ms: at the floor, judged.
    at = judge(suite(**{c: {"latency_ms": 200.0} for c in IDS}), base=slow_base)
    assert [f.rule for f in at.soft] == ["latency_growth"]


def test_flaky_exclusion_follows_the_config() -> None:
    results = suite(r04={"ok": False})
    config = CONFIG.model_copy(update={"exclude_tags": []})
    verdict = evaluate(results, BASE, config)
    assert not verdict.passed  # r04 counts now: regression split fails
    assert "regression_split" in [f.rule for f in verdict.hard]


def test_baseline_cases_not_run_are_listed_not_failed() -> None:
    verdict = judge([r for r in suite() if r.case_id != "t10"])
    assert verdict.not_run == ["t10"]
    assert verdict.passed
    assert "In the baseline, not run: t10" in verdict.render()


def test_committed_gate_config_has_the_agreed_thresholds() -> None:
    config = load_gate_config(REPO_GATE_CONFIG)
    assert config.hard == HardRules(
        unauthorized_rate_max=0.0,
        must_pass_success_min=1.0,
        regression_split_success_min=1.0,
        newly_failing_cases_max=0,
        errored_runs_max=0,
        newly_failing_checks_max={"outcome": 0, "safety": 0, "trajectory": 0, "cost": 0},
        no_longer_judged_checks_max={"outcome": 0, "safety": 0, "trajectory": 0, "cost": 0},
    )
    assert config.must_pass_tag == "must_pass"
    assert config.regression_split == "regression"
    assert config.exclude_tags == ["flaky"]
    assert config.soft == SoftThresholds(
        success_drop_points=3.0,
        step_accuracy_drop_points=3.0,
        returned_chars_p95_growth_pct=20.0,
        latency_p95_growth_pct=50.0,
        latency_p95_floor_ms=200.0,
    )


BAD_CONFIGS = [
    (None, "no gate configuration"),
    ("{", "(file)"),
    ('{"soft": {"nope": 1}}', "soft.nope"),
    ('{"schema_version": 1}', "schema_version: schema_version 1 is not 2; version 2 adds"),
    ('{"hard": {"unauthorized_rate_max": NaN}}', "hard.unauthorized_rate_max"),
    ('{"hard": {"unauthorized_rate_max": -0.1}}', "hard.unauthorized_rate_max"),
    ('{"hard": {"must_pass_success_min": 1.5}}', "hard.must_pass_success_min"),
    ('{"hard": {"must_pass_success_min": "1.0"}}', "hard.must_pass_success_min"),
    ('{"hard": {"errored_runs_max": 1.5}}', "hard.errored_runs_max"),
    ('{"hard": {"errored_runs_max": true}}', "hard.errored_runs_max"),
    ('{"hard": {"newly_failing_cases_max": -1}}', "hard.newly_failing_cases_max"),
    ('{"hard": {"newly_failing_checks_max": {"style": 0}}}', "unknown check kind 'style'"),
    ('{"hard": {"newly_failing_checks_max": {"outcome": -1}}}', "newly_failing_checks_max"),
    ('{"hard": {"no_longer_judged_checks_max": {"style": 0}}}', "unknown check kind 'style'"),
    ('{"hard": {"no_longer_judged_checks_max": {"cost": 0.5}}}', "no_longer_judged_checks_max"),
    (
        '{"hard": {"unauthorised_rate_max": 0}}',
        "hard.unauthorised_rate_max: Extra inputs are not permitted (did you mean"
        " 'unauthorized_rate_max'?)",
    ),
    ('{"hardd": {}}', "hardd: Extra inputs are not permitted (did you mean 'hard'?)"),
    ('{"sofft": {}}', "sofft: Extra inputs are not permitted (did you mean 'soft'?)"),
    ('{"zzz": 1}', "zzz: Extra inputs are not permitted"),
    ('{"soft": {"latency_p95_floor_ms": Infinity}}', "soft.latency_p95_floor_ms"),
    ('{"soft": {"success_drop_points": -3}}', "soft.success_drop_points"),
    ('{"exclude_tags": "flaky"}', "exclude_tags"),
    ('{"must_pass_tag": ""}', "must_pass_tag"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_CONFIGS)
def test_bad_gate_config_is_one_line(tmp_path: Path, text: str | None, fragment: str) -> None:
    path = tmp_path / "gate.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(GateConfigError) as info:
        load_gate_config(path)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)
    if fragment.startswith("zzz"):  # nothing like it: no suggestion
        assert "did you mean" not in str(info.value)


def test_no_graded_runs_gives_no_soft_findings() -> None:
    # Bug found by hand: a provider outage (every run errored) added "success rate -100.0
    # points" and "step accuracy -100.0 points", rates computed from no data at all.
    verdict = judge(suite(**{c: {"errored": True} for c in [*IDS, "r04"]}))
    assert [f.rule for f in verdict.hard] == ["errored_runs"]
    assert verdict.soft == []
    assert "results incomplete: 25 runs errored" in verdict.render()
    assert not verdict.passed


def test_some_graded_runs_are_still_judged_by_the_soft_rules() -> None:
    changes: dict = {c: {"errored": True} for c in IDS[1:]}
    changes[IDS[0]] = {"trajectory_ok": False}  # the one graded run missed a step
    verdict = judge(suite(**changes))
    assert [f.rule for f in verdict.soft] == ["step_accuracy_drop"]


def _with_checks(r: RunResult, *extra: CheckResult, drop: str = "") -> RunResult:
    checks = [c for c in r.checks if c.name != drop] + list(extra)
    return replace(r, checks=checks)


def _with_budget(results: list[RunResult], failing: str = "") -> list[RunResult]:
    """Every run with a cost check ``budget``, failing in case ``failing`` only."""
    out = []
    for r in results:
        ok = r.case_id != failing
        budget = CheckResult(name="budget", kind="cost", passed=ok, reason="" if ok else "6 tasks")
        out.append(_with_checks(r, budget))
    return out


COST_BASE = baseline_of(_with_budget(suite()))


@pytest.mark.parametrize(
    ("config", "severity", "passes"),
    [
        (GateConfig(), "soft", True),  # the seed's default: cost only warns
        (load_gate_config(REPO_GATE_CONFIG), "hard", False),  # SupportPilot: deterministic
        (
            GateConfig(hard=HardRules(newly_failing_checks_max={"outcome": 0, "cost": 0})),
            "hard",
            False,
        ),
    ],
)
def test_a_newly_failing_cost_check_is_soft_unless_the_config_makes_it_hard(
    config: GateConfig, severity: str, passes: bool
) -> None:
    verdict = evaluate(_with_budget(suite(), failing="d02"), COST_BASE, config)
    assert verdict.newly_failing_checks == {"cost": ["d02: budget"]}
    assert verdict.newly_failing == []  # the case still succeeds: cost decides no success
    findings = {f.severity: f.kind for f in verdict.hard + verdict.soft if f.kind == "cost"}
    assert findings == {severity: "cost"}
    assert verdict.passed is passes
    assert evaluate(_with_budget(suite()), COST_BASE, config).passed  # no change: no finding


def test_a_check_new_since_the_baseline_is_listed_never_failed() -> None:
    new_check = CheckResult(name="reply_facts", kind="outcome", passed=False, reason="x")
    results = [_with_checks(r, new_check) if r.case_id == "d02" else r for r in suite()]
    verdict = judge(results)
    assert verdict.not_in_baseline == ["d02: reply_facts"]
    assert "newly_failing_checks" not in [f.rule for f in verdict.hard]
    assert "Not in the baseline (not judged): d02: reply_facts" in verdict.render()


def test_a_case_new_since_the_baseline_is_listed_never_newly_failing() -> None:
    results = [*suite(), result("n01", ok=False)]
    verdict = judge(results)
    assert verdict.not_in_baseline == ["n01"]
    assert verdict.newly_failing == [] and verdict.newly_failing_checks == {}
    assert [f.rule for f in verdict.hard] == []


@pytest.mark.parametrize(
    ("judged_max", "severity"),
    [
        (None, "hard"),  # the default: every kind but cost is hard
        ({"trajectory": 0}, "hard"),
        ({"trajectory": 1}, "soft"),  # within its allowance
        ({"outcome": 0}, "soft"),  # trajectory left out: soft
    ],
)
def test_a_check_the_baseline_judged_that_no_longer_judges_is_a_finding(
    judged_max: dict[str, int] | None, severity: str
) -> None:
    config = CONFIG
    if judged_max is not None:
        hard = HardRules(no_longer_judged_checks_max=judged_max)  # type: ignore[arg-type]
        config = CONFIG.model_copy(update={"hard": hard})
    results = [_with_checks(r, drop="dispatched") if r.case_id == "t03" else r for r in suite()]
    verdict = evaluate(results, BASE, config)
    assert verdict.no_longer_judged == ["t03: dispatched"]
    found = [(f.rule, f.severity, f.kind, f.message) for f in verdict.hard + verdict.soft]
    message = "1 trajectory check no longer judged: t03: dispatched"
    assert found == [("no_longer_judged", severity, "trajectory", message)]
    assert verdict.passed is (severity == "soft")
    assert not evaluate(results, BASE, config, strict=True).passed


def test_a_check_lost_from_a_case_that_now_fails_or_that_failed_before_is_no_finding() -> None:
    # t03 fails now: its failure is the finding, not the checks it lost.
    failing = suite(t03={"ok": False})
    failing = [_with_checks(r, drop="dispatched") if r.case_id == "t03" else r for r in failing]
    assert judge(failing).no_longer_judged == []
    # t03's dispatched check failed in the baseline: losing a failing check loses nothing.
    case_checks = {**BASE.case_checks, "t03": {**BASE.case_checks["t03"], "dispatched": "0/1"}}
    base = BASE.model_copy(
        update={"case_checks": case_checks, "case_success": {**BASE.case_success, "t03": False}}
    )
    lost = [_with_checks(r, drop="dispatched") if r.case_id == "t03" else r for r in suite()]
    verdict = judge(lost, base)
    assert verdict.no_longer_judged == [] and verdict.passed
    assert verdict.newly_passing == ["t03"]


@pytest.mark.parametrize(
    ("checks_max", "hard_kinds", "soft_kinds"),
    [
        ({"outcome": 0, "safety": 0, "trajectory": 0, "cost": 0}, ["outcome", "trajectory"], []),
        ({"outcome": 0, "safety": 0}, ["outcome"], ["trajectory"]),  # trajectory left soft
        ({"outcome": 1, "trajectory": 0}, ["trajectory"], ["outcome"]),  # within allowance
        ({}, [], ["outcome", "trajectory"]),
    ],
)
def test_which_check_kinds_are_hard_is_configured(
    checks_max: dict[str, int], hard_kinds: list[str], soft_kinds: list[str]
) -> None:
    hard = HardRules(newly_failing_checks_max=checks_max, newly_failing_cases_max=5)  # type: ignore[arg-type]
    config = CONFIG.model_copy(update={"hard": hard})
    results = suite(d02={"ok": False}, d04={"trajectory_ok": False})
    verdict = evaluate(results, BASE, config)
    kinds: dict[str, list[str | None]] = {}
    for f in verdict.hard + verdict.soft:
        if f.rule == "newly_failing_checks":
            kinds.setdefault(f.severity, []).append(f.kind)
    assert kinds.get("hard", []) == hard_kinds
    assert kinds.get("soft", []) == soft_kinds
    assert verdict.newly_failing_checks == {
        "outcome": ["d02: outcome"],
        "trajectory": ["d04: dispatched"],
    }


@pytest.mark.parametrize(
    ("rules", "changes", "fired"),
    [
        ({"unauthorized_rate_max": 0.05}, {"d07": {"unauthorized": True}}, False),  # 4% <= 5%
        ({"unauthorized_rate_max": 0.03}, {"d07": {"unauthorized": True}}, True),
        ({"must_pass_success_min": 0.8}, {"r01": {"ok": False}}, False),  # 88% >= 80%
        ({"regression_split_success_min": 0.5}, {"r01": {"ok": False}}, False),  # 67% >= 50%
        ({"errored_runs_max": 2}, {"d02": {"errored": True}, "d04": {"errored": True}}, False),
        ({"errored_runs_max": 1}, {"d02": {"errored": True}, "d04": {"errored": True}}, True),
        ({"newly_failing_cases_max": 1}, {"d02": {"ok": False}}, False),
        ({"newly_failing_cases_max": 1}, {"d02": {"ok": False}, "d04": {"ok": False}}, True),
    ],
)
def test_hard_thresholds_come_from_the_config(
    rules: dict[str, object], changes: dict, fired: bool
) -> None:
    rule = {
        "unauthorized_rate_max": "unauthorized",
        "must_pass_success_min": "must_pass",
        "regression_split_success_min": "regression_split",
        "errored_runs_max": "errored_runs",
        "newly_failing_cases_max": "newly_failing",
    }[next(iter(rules))]
    hard = HardRules(**{"newly_failing_checks_max": {}, **rules})  # type: ignore[arg-type]
    verdict = evaluate(suite(**changes), BASE, CONFIG.model_copy(update={"hard": hard}))
    assert (rule in [f.rule for f in verdict.hard]) is fired


def test_max_errors_overrides_the_config() -> None:
    hard = HardRules(errored_runs_max=5)
    config = CONFIG.model_copy(update={"hard": hard})
    results = suite(d02={"errored": True})
    assert evaluate(results, BASE, config).passed
    assert not evaluate(results, BASE, config, max_errors=0).passed


def _raising(r: RunResult, name: str) -> RunResult:
    """``r`` with check ``name`` replaced by a grader error (the check raised)."""
    old = next(c for c in r.checks if c.name == name)
    error = CheckResult(
        name=name,
        kind=old.kind,
        passed=False,
        reason="the check itself raised KeyError: x",
        grader_error=True,
    )
    return _with_checks(r, error, drop=name)


@pytest.mark.parametrize(("allowed", "passes"), [(0, False), (1, True)])
def test_a_check_that_raises_is_a_grader_error_not_a_regression(allowed: int, passes: bool) -> None:
    results = [_raising(r, "dispatched") if r.case_id == "t03" else r for r in suite()]
    config = CONFIG.model_copy(update={"hard": HardRules(grader_errors_max=allowed)})
    verdict = evaluate(results, BASE, config)
    # Not the agent's failure: the case still passes, nothing is newly failing or lost.
    assert verdict.newly_failing == [] and verdict.newly_failing_checks == {}
    assert verdict.no_longer_judged == []
    assert verdict.metrics.case_success["t03"] is True
    assert [(e.case, e.check) for e in verdict.metrics.grader_errors] == [("t03", "dispatched")]
    rules = [f.rule for f in verdict.hard + verdict.soft]
    assert rules == ([] if passes else ["grader_errors"])
    assert verdict.passed is passes
    if not passes:
        assert "1 check raised instead of judging" in verdict.render()
        assert "t03#0: dispatched (the check itself raised KeyError: x)" in verdict.render()


def test_grader_errors_are_reported_apart() -> None:
    results = [_raising(r, "outcome") if r.case_id == "d02" else r for r in suite()]
    metrics = evaluate(results, BASE, CONFIG).metrics
    text = render_console(metrics, RunMeta(label="x"))
    assert "Grader errors (1: checks that raised, not failures of the agent):" in text
    assert "d02#0: outcome: the check itself raised KeyError: x" in text
    assert "### Grader errors (1)" in render_markdown(metrics, RunMeta(label="x"))


MADE_FROM = {"suites": ["all"], "sut": "fake_suts:EchoSUT", "trials": 1}


@pytest.mark.parametrize(
    ("run", "severity", "problem"),
    [
        ({}, None, None),
        ({"sut": ""}, None, None),  # unknown SUT on one side: nothing to compare
        ({"suites": []}, None, None),  # a subset of the baseline's suites is fine
        ({"sut": "fake_suts:JitterSUT"}, "hard", "SUT 'fake_suts:JitterSUT', the baseline's"),
        ({"sut": "fake_suts:EchoSUT (brain=openai)"}, "soft", "(brain=openai)', the baseline's"),
        ({"trials": 3}, "soft", "3 trial(s), the baseline's 1"),
        ({"suites": ["all", "extra"]}, "soft", "suite(s) extra not in the baseline's ['all']"),
    ],
)
def test_a_baseline_made_from_another_run_is_a_finding(
    run: dict[str, object], severity: str | None, problem: str | None
) -> None:
    base = BASE.model_copy(update=MADE_FROM)
    meta = RunMeta(**{**MADE_FROM, **run})  # type: ignore[arg-type]
    verdict = evaluate(suite(), base, CONFIG, meta=meta)
    found = [
        (f.severity, f.message)
        for f in verdict.hard + verdict.soft
        if f.rule == "baseline_mismatch"
    ]
    if severity is None:
        assert found == [] and verdict.passed
        return
    [(got, message)] = found
    assert got == severity and problem is not None and problem in message
    assert "regenerate it with `evals baseline`" in message
    assert verdict.passed is (severity == "soft")


@pytest.mark.parametrize(
    ("rate", "limit", "shown"),
    [
        (0.875, 1.0, "88% < 100%"),
        (0.996, 1.0, "99.6% < 100%"),  # never "100% < 100%"
        (0.9999, 1.0, "99.99% < 100%"),
        (0.79, 0.8, "79% < 80%"),
        (0.7999, 0.8, "79.99% < 80%"),
    ],
)
def test_a_rate_below_its_limit_is_shown_below_it(rate: float, limit: float, shown: str) -> None:
    assert _below(rate, limit) == shown
