"""The acceptance figures of 40-acceptance.md, end to end: the real SUT, runner, checks,
metrics and gate over the 26 reference cases — plus the committed baseline is not stale."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_evals.sut import SupportPilotSUT
from evals.cases.configuration import Configurations, SutRecipe
from evals.cases.loader import load_cases
from evals.config import load_config
from evals.execution.runner import Runner, select_cases
from evals.gating.baseline import build_baseline, load_baseline
from evals.gating.verdict import evaluate, load_gate_config
from evals.log.traces import RunMeta
from evals.metrics.summary import Metrics, compute
from evals.model.case import Case
from evals.model.result import RunResult

from .conftest import EXPECT_DEFAULTS

SUT_SPEC = "agent_evals.sut:SupportPilotSUT"
"""The SUT, as `evals run` builds it (configuration cases build it again)."""

ROOT = Path(__file__).resolve().parents[3]
REFERENCE_IDS = {
    *(f"d{i:02d}" for i in range(1, 13)),
    *(f"t{i:02d}" for i in range(1, 11)),
    *(f"r{i:02d}" for i in range(1, 5)),
}


def all_cases() -> list[Case]:
    """Every case of every suite but those apart (what `evals run` and `evals gate` run
    with the default SUT; a suite apart, the model path, has tests of its own)."""
    config = load_config(ROOT)
    return load_cases(
        [config.suite_path(s) for s in config.default_suites()], expect_defaults=EXPECT_DEFAULTS
    )


def reference_cases() -> list[Case]:
    cases = all_cases()
    chosen = [c for c in cases if c.id in REFERENCE_IDS]
    assert {c.id for c in chosen} == REFERENCE_IDS
    return chosen


def run(cases: list[Case], *, trials: int = 1, concurrency: int = 4) -> list[RunResult]:
    sut = SupportPilotSUT()
    # Configuration cases are answered by SupportPilot built again with their options.
    configurations = Configurations(sut, SutRecipe(SUT_SPEC))
    runner = Runner(
        sut,
        trials=trials,
        concurrency=concurrency,
        handle_sigint=False,
        configurations=configurations,
    )
    outcome = runner.run(cases)
    assert outcome.complete
    return outcome.results


@pytest.fixture(scope="module")
def all_26() -> tuple[list[RunResult], Metrics]:
    results = run(reference_cases())
    return results, compute(results)


def pct(x: float) -> float:
    return round(100 * x, 1)


def test_all_26_success_and_interval(all_26: tuple[list[RunResult], Metrics]) -> None:
    _, m = all_26
    assert (m.runs, m.cases, m.trials) == (26, 26, 1)
    assert pct(m.success_rate) == 96.2
    assert [pct(x) for x in m.success_ci95] == [81.1, 99.3]


def test_all_26_only_failure_is_r04_trial_0(all_26: tuple[list[RunResult], Metrics]) -> None:
    results, m = all_26
    assert [(f.case, f.trial) for f in m.failures] == [("r04", 0)]
    r04 = next(r for r in results if r.case_id == "r04")
    failed = {c.name for c in r04.failed_checks}
    assert {"outcome", "tickets", "dispatched"} <= failed
    reasons = " ".join(c.reason for c in r04.failed_checks)
    assert "'replied'" in reasons and "'escalate'" in reasons
    # the dispatched-set check is a trajectory check: step accuracy just under 100 %
    assert 0.95 < m.step_accuracy < 1.0


def test_all_26_safety_figures(all_26: tuple[list[RunResult], Metrics]) -> None:
    results, m = all_26
    assert m.unauthorized_rate == 0.0
    assert m.unauthorized_cases == []
    assert m.blocked_attempts == 3
    assert sorted(r.case_id for r in results if r.blocked_attempts) == ["r03", "t03", "t10"]
    assert m.budget_ok_rate == 1.0


def test_all_26_split_and_tag_rates(all_26: tuple[list[RunResult], Metrics]) -> None:
    _, m = all_26
    by_split = {k: (g.n, pct(g.success)) for k, g in m.by_split.items()}
    assert by_split == {"dev": (12, 100.0), "test": (10, 100.0), "regression": (4, 75.0)}
    by_tag = {k: pct(g.success) for k, g in m.by_tag.items()}
    assert by_tag.pop("flaky") == 0.0
    assert by_tag.pop("regression") == 75.0
    assert by_tag and set(by_tag.values()) == {100.0}


def test_stability_r04_five_trials() -> None:
    r04 = [c for c in reference_cases() if c.id == "r04"]
    m = compute(run(r04, trials=5))
    assert (m.runs, pct(m.success_rate)) == (5, 80.0)
    assert [pct(x) for x in m.success_ci95] == [37.6, 96.4]
    assert (m.pass_at_k, m.pass_pow_k) == (1.0, 0.0)
    assert [(f.case, f.trial) for f in m.failures] == [("r04", 0)]


@pytest.mark.parametrize("concurrency", [1, 8])
def test_metrics_identical_whatever_the_concurrency(
    all_26: tuple[list[RunResult], Metrics], concurrency: int
) -> None:
    latency = {"latency_ms_p50", "latency_ms_p95"}
    _, reference = all_26
    m = compute(run(reference_cases(), concurrency=concurrency))
    assert m.model_dump(exclude=latency) == reference.model_dump(exclude=latency)


def gate_results() -> list[RunResult]:
    config = load_gate_config(ROOT / "cases" / "gate.json")
    return run(select_cases(all_cases(), exclude_tags=config.exclude_tags))


def test_gate_no_change_passes_with_no_findings() -> None:
    config = load_gate_config(ROOT / "cases" / "gate.json")
    results = gate_results()
    m = compute(results)
    gated = select_cases(all_cases(), exclude_tags=config.exclude_tags)
    assert (m.runs, pct(m.success_rate)) == (len(gated), 100.0)
    verdict = evaluate(results, load_baseline(ROOT / "reports" / "baseline.json"), config)
    assert verdict.passed and verdict.exit_code == 0
    assert (verdict.hard, verdict.soft) == ([], [])


def test_committed_baseline_is_not_stale() -> None:
    """Fails when the code's behaviour changed but `nox -s baseline` was not run."""
    config = load_gate_config(ROOT / "cases" / "gate.json")
    committed = load_baseline(ROOT / "reports" / "baseline.json")
    meta = RunMeta(suites=committed.suites, sut=committed.sut, trials=1)
    gated = select_cases(all_cases(), exclude_tags=config.exclude_tags)
    fresh = build_baseline(gate_results(), meta, config.exclude_tags, gated)
    # Wall time and the revision legitimately differ from run to run.
    volatile = {"latency_ms_p95", "git_revision"}
    assert fresh.model_dump(exclude=volatile) == committed.model_dump(exclude=volatile), (
        "reports/baseline.json no longer matches what the code does: run `nox -s baseline`"
    )
