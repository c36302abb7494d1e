"""The runner: selection, concurrency-independent results, timeouts, SUT crashes, traces."""

from __future__ import annotations

import io
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import fake_suts
from evals.cases.loader import load_cases
from evals.errors import SutLoadError
from evals.execution.ray_executor import RayExecutor
from evals.execution.runner import Runner, select_cases
from evals.log.traces import RunMeta, TraceWriter, read_traces
from evals.metrics.summary import compute
from evals.model.case import Case

CASES = Path(__file__).parent / "fixtures" / "cases"


@pytest.fixture
def cases() -> list[Case]:
    return load_cases([CASES / "alpha.jsonl", CASES / "beta.jsonl"])


@pytest.mark.parametrize(
    ("split", "tags", "exclude", "expected"),
    [
        (None, (), (), ["d01", "d02", "d03", "t01", "t02", "t03", "r01", "r02", "r04"]),
        ("dev", (), (), ["d01", "d02", "d03"]),
        ("regression", (), ("flaky",), ["r01", "r02"]),
        (None, ("must_pass",), (), ["d01", "d03", "r01"]),
        (None, ("happy", "trap"), (), ["d01", "t01", "t03"]),  # any of the tags
        (None, ("regression",), ("flaky", "must_pass"), ["r02"]),
        (None, (), ("flaky",), ["d01", "d02", "d03", "t01", "t02", "t03", "r01", "r02"]),
        ("test", ("must_pass",), (), []),
    ],
)
def test_select_cases(
    cases: list[Case],
    split: str | None,
    tags: tuple[str, ...],
    exclude: tuple[str, ...],
    expected: list[str],
) -> None:
    selected = select_cases(cases, split=split, tags=tags, exclude_tags=exclude)
    assert [c.id for c in selected] == expected


def _without_latency(results: list) -> list[dict]:
    return [replace(r, latency_ms=0.0) for r in results]


@pytest.mark.parametrize("sut", [fake_suts.JitterSUT, fake_suts.AsyncSUT])
def test_results_do_not_depend_on_concurrency(cases: list[Case], sut: type) -> None:
    one = Runner(sut(), trials=3, concurrency=1).run(cases)
    eight = Runner(sut(), trials=3, concurrency=8).run(cases)
    assert [r.label for r in eight.results] == [
        f"{c.id}#{t}" for c in cases for t in range(3)
    ]  # case order, then trial: never completion order
    assert _without_latency(one.results) == _without_latency(eight.results)
    m1 = compute(one.results).model_dump(exclude={"latency_ms_p50", "latency_ms_p95"})
    m8 = compute(eight.results).model_dump(exclude={"latency_ms_p50", "latency_ms_p95"})
    assert m1 == m8
    assert one.complete and eight.complete


def test_async_sut_is_awaited_not_threaded(cases: list[Case]) -> None:
    sut = fake_suts.AsyncSUT()
    outcome = Runner(sut, trials=2, concurrency=4).run(cases)
    assert sut.async_calls == len(cases) * 2
    assert all(r.outcome != "sut_error" for r in outcome.results)


@pytest.mark.parametrize("sut", [fake_suts.HangingSUT, fake_suts.AsyncHangingSUT])
def test_a_hanging_run_is_cut_by_the_timeout(
    cases: list[Case], sut: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SUT_HANG", "d02")
    outcome = Runner(sut(), concurrency=4, timeout_s=0.2).run(cases[:3])
    by_case = {r.case_id: r for r in outcome.results}
    assert len(outcome.results) == 3
    if sut is fake_suts.HangingSUT:
        assert by_case["d01"].success and by_case["d03"].success
    hung = by_case["d02"]
    assert hung.outcome == "sut_error"
    assert hung.error == "timed out after 0.2s"
    assert not hung.success
    assert outcome.complete


def test_sut_exceptions_become_sut_error_runs(
    cases: list[Case], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SUT_RAISE", "d02,t01#1")
    outcome = Runner(fake_suts.RaisingSUT(), trials=2, concurrency=3).run(cases)
    crashed = [r.label for r in outcome.results if r.outcome == "sut_error"]
    assert crashed == ["d02#0", "d02#1", "t01#1"]
    d02 = next(r for r in outcome.results if r.case_id == "d02")
    assert d02.error == "RuntimeError: boom in d02"
    assert [c.name for c in d02.failed_checks] == ["sut_error"]
    assert "boom in d02" in d02.failed_checks[0].reason
    assert len(outcome.results) == len(cases) * 2


@pytest.mark.parametrize("sut", [fake_suts.ExitingSUT, fake_suts.AsyncExitingSUT])
@pytest.mark.parametrize(
    ("how", "error"),
    [
        ("exit0", "SystemExit: 0"),
        ("exit3", "SystemExit: 3"),
        ("interrupt", "KeyboardInterrupt"),
    ],
)
def test_a_sut_that_tries_to_end_the_process_is_a_sut_error_not_the_end(
    cases: list[Case], monkeypatch: pytest.MonkeyPatch, sut: type, how: str, error: str
) -> None:
    # sys.exit(0) in a SUT must never end an evaluation green without a verdict.
    monkeypatch.setenv("FAKE_SUT_EXIT", "d02")
    monkeypatch.setenv("FAKE_SUT_EXIT_HOW", how)
    outcome = Runner(sut(), concurrency=2).run(cases)
    assert outcome.complete and len(outcome.results) == len(cases)
    crashed = [(r.label, r.error) for r in outcome.results if r.outcome == "sut_error"]
    assert crashed == [("d02#0", f"{error} (raised by the system under test)")]


def test_a_case_the_suts_hook_failed_on_is_a_sut_error_without_a_call(
    cases: list[Case],
) -> None:
    fake_suts.CheckingSUT.runs = 0
    crashed = {"d02": "check_case raised IndexError: list index out of range"}
    outcome = Runner(fake_suts.CheckingSUT(), trials=2, crashed=crashed).run(cases)
    failed = [(r.label, r.error) for r in outcome.results if r.outcome == "sut_error"]
    why = "the SUT failed before the run: check_case raised IndexError: list index out of range"
    assert failed == [("d02#0", why), ("d02#1", why)]
    assert fake_suts.CheckingSUT.runs == 2 * (len(cases) - 1)


@pytest.mark.parametrize(
    ("down", "limit", "expected"),
    [
        ("every", 3, (3, True)),  # a dead endpoint: three errors in a row, then no more runs
        ("every", None, (9, False)),  # no limit: every run is tried
        ("d01,d03,t02", 2, (9, False)),  # errors, but never two in a row
    ],
)
def test_a_dead_provider_stops_the_scheduling_after_n_errors_in_a_row(
    cases: list[Case],
    monkeypatch: pytest.MonkeyPatch,
    down: str,
    limit: int | None,
    expected: tuple[int, bool],
) -> None:
    runs, stopped = expected
    names = ",".join(c.id for c in cases) if down == "every" else down
    monkeypatch.setenv("FAKE_SUT_ERROR", names)
    runner = Runner(fake_suts.EchoSUT(), concurrency=1, max_provider_errors_in_a_row=limit)
    outcome = runner.run(cases)
    assert len(outcome.results) == runs
    assert (outcome.stop_reason is not None) is stopped
    assert outcome.complete is not stopped
    if stopped:
        assert outcome.stop_reason == (
            f"stopped after {limit} provider errors in a row (last: provider down);"
            " the provider looks down"
        )


def test_a_sut_returning_something_else_is_a_sut_error(cases: list[Case]) -> None:
    outcome = Runner(fake_suts.NotARunSUT()).run(cases[:1])
    assert outcome.results[0].outcome == "sut_error"
    assert outcome.results[0].error == "SUT returned dict, not a Run"


def test_every_finished_run_is_traced(cases: list[Case], tmp_path: Path) -> None:
    meta = RunMeta(run_id="r1", sut="fake_suts:EchoSUT", trials=2)
    with TraceWriter(tmp_path, meta) as traces:
        outcome = Runner(fake_suts.JitterSUT(), trials=2, concurrency=5, traces=traces).run(cases)
    records = list(read_traces(tmp_path / "r1"))
    assert sorted(f"{r.case_id}#{r.trial}" for r in records) == sorted(
        r.label for r in outcome.results
    )
    by_label = {f"{r.case_id}#{r.trial}": r for r in records}
    for result in outcome.results:
        record = by_label[result.label]
        assert record.success == result.success
        assert tuple(record.checks) == result.checks
        assert record.run.case_id == result.case_id
    flaky = by_label["r04#0"]
    assert flaky.success is False
    assert flaky.run.outcome == "escalate"  # the full run record, not just the verdict


def test_latency_is_measured_when_the_sut_leaves_it_empty(
    cases: list[Case], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SUT_LATENCY_MS", "0")
    monkeypatch.setenv("FAKE_SUT_DELAY_S", "0.01")
    outcome = Runner(fake_suts.SlowSUT()).run(cases[:1])
    assert outcome.results[0].latency_ms > 0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [({"trials": 0}, "trials"), ({"concurrency": 0}, "concurrency"), ({"timeout_s": 0}, "timeout")],
)
def test_runner_rejects_impossible_settings(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Runner(fake_suts.EchoSUT(), **kwargs)


class _Terminal(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_progress_is_one_updating_line_only_on_a_terminal(cases: list[Case], tty: bool) -> None:
    stream = _Terminal(tty)
    Runner(fake_suts.EchoSUT(), trials=2, progress=stream).run(cases)
    text = stream.getvalue()
    if not tty:
        assert text == ""
        return
    assert text.startswith("\r") and text.endswith("\n")
    assert text.count("\n") == 1  # one line, rewritten in place
    assert text.rstrip("\n").split("\r")[-1] == "18/18 runs, 17 passed, 1 failed"


def test_runs_are_scheduled_trial_major(cases: list[Case]) -> None:
    # Bug found by hand: case-major scheduling (d01 x 200, then d02 …) made an interrupted
    # `--trials 200` run cover 2 of 26 cases. Results stay in (case, trial) order.
    sut = fake_suts.RecordingSUT()
    outcome = Runner(sut, trials=3, concurrency=1).run(cases)
    assert sut.calls == [f"{c.id}#{t}" for t in range(3) for c in cases]
    assert [r.label for r in outcome.results] == [f"{c.id}#{t}" for c in cases for t in range(3)]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_an_interrupted_run_has_covered_every_case(cases: list[Case]) -> None:
    sut = fake_suts.RecordingSUT(interrupt_after=len(cases))
    outcome = Runner(sut, trials=3, concurrency=1).run(cases)
    assert outcome.interrupted and not outcome.complete
    assert len(outcome.results) < len(cases) * 3
    assert {r.case_id for r in outcome.results} == {c.id for c in cases}
    labels = [r.label for r in outcome.results]
    order = [f"{c.id}#{t}" for c in cases for t in range(3)]
    assert labels == [label for label in order if label in labels]  # (case, trial) order


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    ("hold", "interrupt_after", "held"),
    [
        (True, 2, True),
        (False, 2, False),
        (True, 0, False),  # not interrupted: nothing to hold
    ],
)
def test_a_stop_signal_leaves_both_held_until_released(
    cases: list[Case], signum: signal.Signals, hold: bool, interrupt_after: int, held: bool
) -> None:
    stops = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in stops}
    runner = Runner(
        fake_suts.RecordingSUT(interrupt_after=interrupt_after, signum=signum),
        concurrency=1,
        hold_sigint=hold,
    )
    try:
        outcome = runner.run(cases)
        assert outcome.interrupted is (interrupt_after > 0)
        assert outcome.stop_signal == (signum if interrupt_after else None)
        for s in stops:
            assert (signal.getsignal(s) == signal.SIG_IGN) is held
        runner.release_sigint()
        assert {s: signal.getsignal(s) for s in stops} == before
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@pytest.mark.parametrize("done", [[], ["d01#0"], ["d01#0", "d02#1", "r04#2"]])
def test_runs_finished_earlier_are_not_run_again_and_keep_their_place(
    cases: list[Case], done: list[str]
) -> None:
    first = Runner(fake_suts.EchoSUT(), trials=3, handle_sigint=False).run(cases)
    by_label = {r.label: r for r in first.results}
    earlier = {(by_label[d].case_id, by_label[d].trial): by_label[d] for d in done}
    sut = fake_suts.RecordingSUT()
    outcome = Runner(sut, trials=3, handle_sigint=False).run(cases, earlier)
    every = [f"{c.id}#{t}" for t in range(3) for c in cases]
    assert sut.calls == [label for label in every if label not in done]
    assert outcome.complete
    assert [r.label for r in outcome.results] == [f"{c.id}#{t}" for c in cases for t in range(3)]
    assert compute(outcome.results) == compute(first.results)


class _Stalled:
    """A backend whose start fails half way (the cluster went away, Ctrl-C while workers
    start): what it started must be stopped all the same."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.closed = 0

    async def start(self) -> None:
        raise self.error

    def close(self) -> None:
        self.closed += 1


class _StalledCluster(RayExecutor):
    """A Ray executor whose pool is :class:`_Stalled` (no Ray needed)."""

    backend: Any = None

    def pool(self, cases: Any, size: int) -> Any:
        return self.backend


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("the cluster went away"),
        SutLoadError("m:SUT", "cannot build"),
        KeyboardInterrupt(),
    ],
)
def test_a_backend_that_fails_to_start_is_closed(cases: list[Case], error: BaseException) -> None:
    backend = _Stalled(error)
    cluster = _StalledCluster(sut="m:SUT")
    object.__setattr__(cluster, "backend", backend)
    runner = Runner(object(), isolation=cluster, handle_sigint=False)  # type: ignore[arg-type]
    with pytest.raises(type(error)):
        runner.run(cases)
    assert backend.closed >= 1
