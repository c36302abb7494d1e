"""The runner's compact results and cheap traces behave exactly like the plain ones.

Performance work (shared verdicts, one slotted immutable result, direct trace
serialisation) must not change a single value: these tests compare the fast paths with
the plain ones.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import evals.model.result as result_module
import fake_suts
from evals.cases.loader import load_cases
from evals.checks import check, grade, to_result, unregister
from evals.execution.runner import Runner
from evals.log.traces import RUNS_FILE, RunMeta, TraceRecord, TraceWriter, read_traces
from evals.metrics.summary import compute
from evals.model.case import Case
from evals.model.result import CheckResult, RunResult
from evals.model.run import Run, Step, Usage, Write

CASES = Path(__file__).parent / "fixtures" / "cases"


@pytest.fixture
def cases() -> list[Case]:
    return load_cases([CASES / "alpha.jsonl", CASES / "beta.jsonl"])


def _expected(cases: list[Case], trials: int) -> list[dict[str, object]]:
    """What the runner must return: to_result of each run, in (case, trial) order."""
    sut = fake_suts.EchoSUT()
    expected = []
    for case in cases:
        for trial in range(trials):
            run = sut.run(case, trial)
            expected.append(dataclasses.asdict(to_result(case, run, grade(case, run))))
    return expected


@pytest.mark.parametrize("concurrency", [1, 5])
def test_runner_results_equal_the_plain_results(cases: list[Case], concurrency: int) -> None:
    outcome = Runner(fake_suts.EchoSUT(), trials=2, concurrency=concurrency).run(cases)
    got = [dataclasses.asdict(r) for r in outcome.results]
    assert got == _expected(cases, 2)
    assert len(outcome.results) == len(cases) * 2


def test_metrics_do_not_depend_on_how_results_are_held(cases: list[Case]) -> None:
    outcome = Runner(fake_suts.EchoSUT(), trials=3).run(cases)
    plain = list(outcome.results)
    assert compute(outcome.results) == compute(plain)
    assert compute(outcome.results) == compute(iter(plain))
    assert compute(outcome.results) == compute(reversed(plain))


def test_a_result_is_immutable_and_shares_what_repeats(cases: list[Case]) -> None:
    outcome = Runner(fake_suts.EchoSUT(), trials=2).run(cases)
    first, second = outcome.results[0], outcome.results[1]  # one case, two trials
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.outcome = "changed"  # type: ignore[misc]
    assert not hasattr(first, "__dict__")  # slotted: no per-run dict
    assert first.tags is second.tags and isinstance(first.tags, tuple)
    assert first.checks == second.checks and first.checks is second.checks


@pytest.mark.parametrize(
    ("checks", "success", "unauthorized"),
    [
        ([], True, False),
        ([CheckResult(name="o", kind="outcome", passed=False)], False, False),
        ([CheckResult(name="t", kind="trajectory", passed=False)], True, False),
        ([CheckResult(name="s", kind="safety", passed=False)], False, True),
        ([CheckResult(name="blocked_attempts", kind="safety", passed=False)], False, False),
        ([CheckResult(name="o", kind="outcome", passed=False, grader_error=True)], True, False),
    ],
)
def test_success_is_decided_when_a_result_is_made(
    checks: list[CheckResult], success: bool, unauthorized: bool
) -> None:
    result = RunResult(case_id="c", trial=0, split="s", outcome="replied", checks=checks)
    assert (result.success, result.unauthorized, result.errored) == (success, unauthorized, False)
    errored = dataclasses.replace(result, outcome="error")
    assert (errored.success, errored.unauthorized, errored.errored) == (False, False, True)


class _Returns:
    """A check that returns a ready-made verdict (as a wrapper around another grader
    may, grader errors included)."""

    def __init__(self, result: CheckResult) -> None:
        self.result = result
        self.name, self.kind = result.name, result.kind

    def __call__(self, case: Case, run: Run) -> CheckResult:
        return self.result


@pytest.mark.parametrize("first", ["failed", "raised"])
def test_a_grader_error_is_never_shared_with_an_equal_failure(
    cases: list[Case], monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    # Bug found in review: verdicts were shared by (name, kind, passed, reason), so a
    # grader error a check returned could come back as an ordinary failure with the same
    # reason. The table starts empty: a full one (INTERN_LIMIT, after other tests) shares
    # nothing new, and would hide the bug.
    monkeypatch.setattr(result_module, "_VERDICTS", {})
    failed = CheckResult(name="x", kind="outcome", passed=False, reason="boom")
    raised = CheckResult(name="x", kind="outcome", passed=False, reason="boom", grader_error=True)
    case = cases[0]
    run = fake_suts.EchoSUT().run(case, 0)
    made = {}
    for name in (first, "raised" if first == "failed" else "failed"):
        check = _Returns(failed if name == "failed" else raised)
        made[name] = to_result(case, run, grade(case, run, [check]))
    a, b = made["failed"], made["raised"]
    assert a.checks[0].grader_error is False and b.checks[0].grader_error is True
    assert (a.success, b.success) == (False, True)


@pytest.mark.parametrize(
    ("outcome", "writes", "error"),
    [
        ("replied", [], None),
        ("replied", [Write(kind="ticket", idempotency_key="k", approval_id="a")], None),
        ("escalate", [], None),
        ("error", [], "provider down"),
        ("sut_error", [], "boom"),
    ],
)
def test_a_graded_result_keeps_what_reports_need(
    cases: list[Case], outcome: str, writes: list[Write], error: str | None
) -> None:
    case = cases[0]
    run = Run(
        case_id=case.id,
        trial=2,
        outcome=outcome,  # type: ignore[arg-type]
        writes=writes,
        steps=[Step(role="order_agent", status="ok")],
        chars_returned=321,
        latency_ms=12.5,
        usage=Usage(prompt_tokens=300, completion_tokens=40),
        error=error,
    )
    checks = grade(case, run)
    plain = to_result(case, run, checks)
    graded = RunResult.graded(case, run, checks)
    assert graded == plain
    assert graded.checks == tuple(checks) and graded.tags == tuple(case.tags)
    assert (graded.blocked_attempts, graded.tasks, graded.chars_returned) == (
        len(run.blocked_attempts),
        run.task_count,
        321,
    )
    assert (graded.latency_ms, graded.prompt_tokens, graded.completion_tokens) == (12.5, 300, 40)
    assert (graded.outcome, graded.error, graded.split) == (outcome, error, case.split)


def test_a_check_registered_between_runs_is_used_and_removed(cases: list[Case]) -> None:
    case = cases[0]
    run = fake_suts.EchoSUT().run(case, 0)
    before = [c.name for c in grade(case, run)]

    @check(kind="cost", name="perf_probe")
    def perf_probe(case: Case, run: Run) -> bool:
        return False

    try:
        during = grade(case, run)
        assert [c.name for c in during] == [*before, "perf_probe"]
        assert during[-1] == CheckResult(
            name="perf_probe", kind="cost", passed=False, reason="perf_probe failed"
        )
    finally:
        unregister("perf_probe")
    assert [c.name for c in grade(case, run)] == before


def test_equal_verdicts_are_equal_values_whatever_their_origin(cases: list[Case]) -> None:
    case = cases[0]
    sut = fake_suts.EchoSUT()
    first, second = grade(case, sut.run(case, 0)), grade(case, sut.run(case, 1))
    assert first == second
    assert all(isinstance(c, CheckResult) for c in first)


@pytest.mark.parametrize("case_id", ["d01", '案例-"引号"\\n', "a/b"])
def test_trace_lines_are_trace_records_flushed_as_written(tmp_path: Path, case_id: str) -> None:
    run = Run(
        case_id=case_id,
        trial=1,
        outcome="replied",
        reply="您好，已为您提交补发申请。\u0001",
        steps=[Step(role="reply_agent", status="ok", seq=3)],
        detail={"log": [{"n": 1, "text": "好"}], "ratio": 0.5},
    )
    checks = [
        CheckResult(name="outcome", kind="outcome", passed=True),
        CheckResult(name="tickets", kind="outcome", passed=False, reason='expected "1"'),
    ]
    writer = TraceWriter(tmp_path, RunMeta(run_id="r1"))
    writer.write(run, checks, False)
    # Flushed per run: readable before the writer is closed.
    lines = (tmp_path / "r1" / RUNS_FILE).read_bytes().splitlines()
    writer.write(run, checks, True)
    writer.close()
    assert len(lines) == 1
    records = list(read_traces(tmp_path / "r1"))
    assert [r.success for r in records] == [False, True]
    expected = TraceRecord(case_id=case_id, trial=1, success=True, run=run, checks=checks)
    assert records[1] == expected
    written = (tmp_path / "r1" / RUNS_FILE).read_bytes().splitlines()
    assert written[1] == expected.model_dump_json().encode()
