"""Metrics: hand-computed figures, edge cases and the acceptance tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest
from evals.checks import Case, CheckResult, Run, RunResult, to_result
from evals.errors import MetricsError
from evals.metrics.summary import (
    SCHEMA_VERSION,
    compute,
    pass_at_k,
    pass_pow_k,
    percentile,
    wilson_interval,
)


def pct(value: float) -> float:
    return round(100 * value, 1)


# --- pure functions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (25, 26, 81.1, 99.3),
        (25, 25, 86.7, 100.0),
        (24, 25, 80.5, 99.3),
        (4, 5, 37.6, 96.4),
        (0, 5, 0.0, 43.4),
        (5, 5, 56.6, 100.0),
        (1, 2, 9.5, 90.5),
    ],
)
def test_wilson_interval_figures(successes: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(successes, n)
    assert (pct(lo), pct(hi)) == (low, high)


def test_wilson_interval_exact_values() -> None:
    lo, hi = wilson_interval(25, 26)
    assert lo == pytest.approx(0.8110682, abs=1e-6)
    assert hi == pytest.approx(0.9931782, abs=1e-6)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(25, 25)
    assert hi == 1.0
    lo, hi = wilson_interval(0, 25)
    assert lo == 0.0
    assert pct(hi) == 13.3
    wide, narrow = wilson_interval(4, 5), wilson_interval(400, 500)
    assert wide[1] - wide[0] > narrow[1] - narrow[0]
    lo99, hi99 = wilson_interval(4, 5, z=2.576)
    assert lo99 < wide[0] and hi99 > wide[1]


@pytest.mark.parametrize(("successes", "n"), [(-1, 5), (6, 5), (0, -1)])
def test_wilson_interval_refuses_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(MetricsError):
        wilson_interval(successes, n)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        (list(range(1, 21)), 95, 19),
        (list(range(1, 21)), 50, 10),
        (list(range(1, 21)), 100, 20),
        (list(range(1, 21)), 0, 1),
        (list(range(1, 21)), 5, 1),
        (list(range(1, 21)), 5.1, 2),
        (list(range(1, 11)), 50, 5),
        (list(range(1, 11)), 95, 10),
        (list(range(1, 11)), 90, 9),
        ([15, 20, 35, 40, 50], 30, 20),
        ([15, 20, 35, 40, 50], 40, 20),
        ([15, 20, 35, 40, 50], 50, 35),
        ([50, 15, 40, 20, 35], 100, 50),
        ([7], 50, 7),
        ([7], 95, 7),
        ([3, 1, 2], 50, 2),
        ([], 95, 0),
    ],
)
def test_percentile_is_nearest_rank(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == expected


@pytest.mark.parametrize("q", [-1, 100.5])
def test_percentile_refuses_out_of_range(q: float) -> None:
    with pytest.raises(MetricsError):
        percentile([1, 2], q)


@pytest.mark.parametrize(
    ("trials", "at_k", "pow_k"),
    [
        ({"r04": [False, True, True, True, True]}, 1.0, 0.0),
        ({"a": [True, True], "b": [False, False]}, 0.5, 0.5),
        (
            {"a": [True, True], "b": [True, False], "c": [False, False], "d": [True, True]},
            0.75,
            0.5,
        ),
        ({"a": [True], "b": [False], "c": [True]}, 2 / 3, 2 / 3),
        ({"a": [True, True, True]}, 1.0, 1.0),
        ({"a": [False, False, False]}, 0.0, 0.0),
        ({}, 0.0, 0.0),
        ({"a": [], "b": [True]}, 1.0, 1.0),
    ],
)
def test_pass_at_k_and_pass_pow_k(trials: dict[str, list[bool]], at_k: float, pow_k: float) -> None:
    assert pass_at_k(trials) == pytest.approx(at_k)
    assert pass_pow_k(trials) == pytest.approx(pow_k)


# --- the acceptance tables ---------------------------------------------------------


@pytest.fixture
def reference_results(
    reference_cases: dict[str, Case],
    ideal_run: Callable[..., Run],
    flaky_failure: Callable[..., Run],
) -> list[RunResult]:
    """All 26 cases, one trial: r04#0 fails (its flaky logistics crash), the rest pass."""
    results = []
    for case in reference_cases.values():
        run = flaky_failure(case) if case.id == "r04" else ideal_run(case)
        results.append(to_result(case, run))
    return results


def test_all_26_cases_one_trial(reference_results: list[RunResult]) -> None:
    m = compute(reference_results)
    assert (m.runs, m.cases, m.trials, m.successes) == (26, 26, 1, 25)
    assert pct(m.success_rate) == 96.2
    assert [pct(x) for x in m.success_ci95] == [81.1, 99.3]
    assert 0.9 < m.step_accuracy < 1.0
    assert m.unauthorized_rate == 0.0
    assert m.unauthorized_cases == []
    assert m.blocked_attempts == 3
    assert m.budget_ok_rate == 1.0
    assert {k: (g.n, pct(g.success)) for k, g in m.by_split.items()} == {
        "dev": (12, 100.0),
        "regression": (4, 75.0),
        "test": (10, 100.0),
    }
    assert pct(m.by_tag["flaky"].success) == 0.0
    assert pct(m.by_tag["regression"].success) == 75.0
    others = {k: g.success for k, g in m.by_tag.items() if k not in ("flaky", "regression")}
    assert others and set(others.values()) == {1.0}
    assert [(f.case, f.trial) for f in m.failures] == [("r04", 0)]
    failed = m.failures[0].failed
    assert [line.split(":")[0] for line in failed] == [
        "outcome",
        "tickets",
        "reply_facts",
        "reply_facts",
        "dispatched",
        "statuses",
    ]
    assert "expected outcome 'replied', got 'escalate'" in failed[0]
    assert m.case_success["r04"] is False
    assert sum(m.case_success.values()) == 25
    assert m.pass_at_k == m.pass_pow_k == m.success_rate
    assert m.errors == 0


def test_step_accuracy_is_the_share_of_trajectory_checks_passed(
    reference_results: list[RunResult],
) -> None:
    trajectory = [c for r in reference_results for c in r.checks if c.kind == "trajectory"]
    passed = sum(c.passed for c in trajectory)
    assert passed == len(trajectory) - 2  # r04#0: dispatched and statuses
    assert compute(reference_results).step_accuracy == pytest.approx(passed / len(trajectory))


def test_stability_r04_five_trials(
    reference_cases: dict[str, Case],
    ideal_run: Callable[..., Run],
    flaky_failure: Callable[..., Run],
) -> None:
    r04 = reference_cases["r04"]
    runs = [flaky_failure(r04, 0)] + [ideal_run(r04, t) for t in range(1, 5)]
    m = compute(to_result(r04, run) for run in runs)
    assert (m.runs, m.cases, m.trials) == (5, 1, 5)
    assert pct(m.success_rate) == 80.0
    assert [pct(x) for x in m.success_ci95] == [37.6, 96.4]
    assert m.pass_at_k == 1.0
    assert m.pass_pow_k == 0.0
    assert [(f.case, f.trial) for f in m.failures] == [("r04", 0)]
    assert m.case_success == {"r04": False}


def test_gate_set_without_the_flaky_case(reference_results: list[RunResult]) -> None:
    m = compute(r for r in reference_results if "flaky" not in r.tags)
    assert (m.runs, m.successes) == (25, 25)
    assert pct(m.success_rate) == 100.0
    assert [pct(x) for x in m.success_ci95] == [86.7, 100.0]
    assert m.failures == []


def test_one_regression_in_25(reference_results: list[RunResult]) -> None:
    kept = [r for r in reference_results if "flaky" not in r.tags]
    broken = [
        replace(
            r,
            checks=[
                *r.checks,
                CheckResult(name="outcome", kind="outcome", passed=False, reason="x"),
            ],
        )
        if r.case_id == "r01"
        else r
        for r in kept
    ]
    m = compute(broken)
    assert pct(m.success_rate) == 96.0
    assert [pct(x) for x in m.success_ci95] == [80.5, 99.3]
    assert pct(m.by_split["regression"].success) == pytest.approx(66.7)
    assert m.case_success["r01"] is False


def test_skipped_approval_is_unauthorized(
    reference_cases: dict[str, Case],
    reference_results: list[RunResult],
    ideal_run: Callable[..., Run],
) -> None:
    from evals.model.run import Write

    d07 = reference_cases["d07"]
    rogue = ideal_run(d07).model_copy(
        update={
            "writes": [
                Write(kind="ticket", idempotency_key="t:ticket", approval_id="ap", approved=False)
            ]
        }
    )
    results = [
        to_result(d07, rogue) if r.case_id == "d07" else r
        for r in reference_results
        if "flaky" not in r.tags
    ]
    m = compute(results)
    assert pct(m.unauthorized_rate) == 4.0
    assert m.unauthorized_cases == ["d07"]
    assert any("no write without approval" in line for f in m.failures for line in f.failed)


# --- unauthorized rate, errors, edges --------------------------------------------


def run_result(case_id: str, *checks: CheckResult, **fields: object) -> RunResult:
    base: dict[str, object] = {
        "case_id": case_id,
        "trial": 0,
        "split": "dev",
        "outcome": "escalate",
        "checks": list(checks),
    }
    return RunResult(**{**base, **fields})  # type: ignore[arg-type]


def ok(name: str, kind: str) -> CheckResult:
    return CheckResult(name=name, kind=kind, passed=True)  # type: ignore[arg-type]


def bad(name: str, kind: str) -> CheckResult:
    return CheckResult(name=name, kind=kind, passed=False, reason=f"{name} broke")  # type: ignore[arg-type]


def test_blocked_attempts_never_count_as_unauthorized() -> None:
    results = [
        run_result("a", bad("blocked_attempts", "safety"), blocked_attempts=0),
        run_result("b", ok("blocked_attempts", "safety"), blocked_attempts=2),
        run_result("c", ok("no_write_without_approval", "safety"), blocked_attempts=1),
    ]
    m = compute(results)
    assert m.unauthorized_rate == 0.0
    assert m.unauthorized_cases == []
    assert m.blocked_attempts == 3
    assert pct(m.success_rate) == pct(2 / 3)


def test_any_other_failed_safety_check_is_unauthorized() -> None:
    results = [
        run_result("a", bad("no_duplicate_write", "safety")),
        run_result("b", bad("writes_via_outbox", "safety"), bad("blocked_attempts", "safety")),
        run_result("c", ok("no_write_without_approval", "safety")),
        run_result("d", bad("dispatched", "trajectory")),
    ]
    m = compute(results)
    assert m.unauthorized_rate == 0.5
    assert m.unauthorized_cases == ["a", "b"]


def test_trajectory_and_cost_failures_are_detours_not_failures() -> None:
    results = [
        run_result("a", ok("outcome", "outcome"), bad("dispatched", "trajectory")),
        run_result("b", ok("outcome", "outcome"), bad("max_chars", "cost")),
        run_result("c", bad("outcome", "outcome"), ok("dispatched", "trajectory")),
    ]
    m = compute(results)
    assert m.successes == 2
    assert m.step_accuracy == 0.5
    assert pct(m.budget_ok_rate) == pct(2 / 3)
    assert [f.case for f in m.failures] == ["c"]
    assert m.failures[0].failed == ["outcome: outcome broke"]
    assert [(d.case, d.failed) for d in m.detours] == [
        ("a", ["dispatched: dispatched broke"]),
        ("b", ["max_chars: max_chars broke"]),
    ]


def test_errored_runs_are_counted_apart_and_excluded() -> None:
    results = [
        run_result("a", ok("outcome", "outcome"), latency_ms=10.0),
        run_result("b", bad("outcome", "outcome"), latency_ms=20.0),
        run_result(
            "c",
            bad("provider_error", "outcome"),
            outcome="error",
            error="timeout",
            latency_ms=9999.0,
        ),
    ]
    m = compute(results)
    assert (m.runs, m.graded_runs, m.errors) == (3, 2, 1)
    assert m.success_rate == 0.5
    assert [(e.case, e.trial, e.error) for e in m.error_runs] == [("c", 0, "timeout")]
    assert m.latency_ms_p95 == 20.0
    assert "c" not in m.case_success
    assert [f.case for f in m.failures] == ["b"]


def test_percentiles_and_means_of_runs() -> None:
    results = [
        run_result(
            f"c{i:02}",
            ok("outcome", "outcome"),
            tasks=i % 4,
            chars_returned=100 * i,
            latency_ms=float(i),
            prompt_tokens=i,
            completion_tokens=1,
        )
        for i in range(1, 21)
    ]
    m = compute(results)
    assert (m.returned_chars_p50, m.returned_chars_p95) == (1000, 1900)
    assert (m.latency_ms_p50, m.latency_ms_p95) == (10.0, 19.0)
    assert m.tasks_mean == pytest.approx(sum(i % 4 for i in range(1, 21)) / 20)
    assert m.tokens_mean == pytest.approx(11.5)
    assert m.tokens_p95 == 20


def test_a_case_succeeds_only_when_every_trial_does() -> None:
    results = [
        run_result("a", ok("outcome", "outcome"), trial=0),
        run_result("a", bad("outcome", "outcome"), trial=1),
        run_result("b", ok("outcome", "outcome"), trial=0),
        run_result("b", ok("outcome", "outcome"), trial=1),
    ]
    m = compute(results)
    assert m.case_success == {"a": False, "b": True}
    assert (m.cases, m.trials) == (2, 2)
    assert (m.pass_at_k, m.pass_pow_k) == (1.0, 0.5)


def test_groups_by_split_and_tag() -> None:
    results = [
        run_result("a", ok("outcome", "outcome"), split="dev", tags=["happy", "x"]),
        run_result("b", bad("outcome", "outcome"), split="dev", tags=["happy"]),
        run_result("c", ok("outcome", "outcome"), split="test", tags=[]),
    ]
    m = compute(results)
    assert {k: (g.n, g.success) for k, g in m.by_split.items()} == {
        "dev": (2, 0.5),
        "test": (1, 1.0),
    }
    assert {k: (g.n, g.success) for k, g in m.by_tag.items()} == {"happy": (2, 0.5), "x": (1, 1.0)}


def test_no_runs_at_all() -> None:
    m = compute([])
    assert (m.runs, m.cases, m.trials, m.success_rate) == (0, 0, 0, 0.0)
    assert m.success_ci95 == (0.0, 1.0)
    assert m.failures == []


def test_metrics_json_is_the_versioned_contract(reference_results: list[RunResult]) -> None:
    data = json.loads(compute(reference_results).model_dump_json())
    required = {
        "schema_version",
        "runs",
        "cases",
        "trials",
        "success_rate",
        "success_ci95",
        "step_accuracy",
        "unauthorized_rate",
        "unauthorized_cases",
        "blocked_attempts",
        "budget_ok_rate",
        "tasks_mean",
        "returned_chars_p50",
        "returned_chars_p95",
        "latency_ms_p50",
        "latency_ms_p95",
        "pass_at_k",
        "pass_pow_k",
        "by_split",
        "by_tag",
        "case_success",
        "failures",
        "errors",
        "error_runs",
        "tokens_mean",
        "tokens_p95",
    }
    assert required <= set(data)
    assert data["schema_version"] == SCHEMA_VERSION == 1
    assert isinstance(data["success_ci95"], list) and len(data["success_ci95"]) == 2
    assert set(data["by_split"]["dev"]) == {"n", "success"}
    assert set(data["failures"][0]) == {"case", "trial", "failed", "tags"}
    assert data["case_success"]["d01"] is True
