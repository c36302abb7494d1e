"""Trace folders: meta.json and runs.jsonl, appended and flushed per run."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from evals.log.traces import RunMeta, TraceWriter, new_run_id, read_meta, read_traces
from evals.model.result import CheckResult
from evals.model.run import Run


def _run(case_id: str, trial: int = 0) -> Run:
    return Run(case_id=case_id, trial=trial, outcome="replied", reply="好的")


CHECKS = [CheckResult(name="outcome", kind="outcome", passed=True)]


def test_each_write_is_on_disk_before_the_writer_closes(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, RunMeta(run_id="abc", planned_runs=2))
    writer.write(_run("d01"), CHECKS, True)
    on_disk = list(read_traces(tmp_path / "abc"))  # read while still open
    assert [(r.case_id, r.trial, r.success) for r in on_disk] == [("d01", 0, True)]
    writer.write(_run("d01", 1), CHECKS, False)
    assert len(list(read_traces(tmp_path / "abc"))) == 2
    assert read_meta(tmp_path / "abc").complete is False
    final = writer.meta.model_copy(update={"complete": True, "finished_runs": 2})
    writer.close(final)
    assert read_meta(tmp_path / "abc").complete is True
    assert read_meta(tmp_path / "abc").finished_runs == 2
    with pytest.raises(ValueError, match="closed"):
        writer.write(_run("d02"), CHECKS, True)


def test_a_record_keeps_the_full_run_and_its_checks(tmp_path: Path) -> None:
    run = _run("t01").model_copy(update={"facts": {"stale_hours": "120"}, "detail": {"log": [1]}})
    with TraceWriter(tmp_path, RunMeta(run_id="x")) as writer:
        writer.write(run, CHECKS, True)
    (record,) = read_traces(tmp_path / "x")
    assert record.run == run
    assert record.checks == CHECKS


def test_run_ids_are_unique_and_safe_for_file_names() -> None:
    first, second = new_run_id("a/b c"), new_run_id("a/b c")
    assert first != second
    assert "/" not in first and " " not in first
    assert "a_b_c" in first


@pytest.mark.parametrize(
    ("interval_s", "seen"),
    [
        (0.0, [1, 2, 3]),  # rewritten after every run
        (3600.0, [0, 0, 0]),  # not due yet: still the meta it started with
    ],
)
def test_meta_counts_the_finished_runs_while_running(
    tmp_path: Path, interval_s: float, seen: list[int]
) -> None:
    # Bug found (issue 13): meta.json said 0 finished runs until the end, so a killed
    # evaluation's trace claimed none had finished.
    writer = TraceWriter(tmp_path, RunMeta(run_id="m", planned_runs=3), meta_interval_s=interval_s)
    counts = []
    for trial in range(3):
        writer.write(_run("d01", trial), CHECKS, True)
        counts.append(read_meta(tmp_path / "m").finished_runs)
    assert counts == seen
    writer.close(writer.meta.model_copy(update={"finished_runs": 3}))
    assert read_meta(tmp_path / "m").finished_runs == 3


def test_a_resumed_trace_counts_on_from_its_earlier_runs(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, RunMeta(run_id="r", finished_runs=5), meta_interval_s=0.0)
    writer.write(_run("d01"), CHECKS, True)
    assert writer.finished_runs == 6
    assert read_meta(tmp_path / "r").finished_runs == 6
    writer.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_disk_full_trace_write_names_the_file(tmp_path: Path) -> None:
    """Bug: out of space, the error said "No space left on device" and no file."""
    writer = TraceWriter(tmp_path, RunMeta(run_id="abc", planned_runs=1))
    assert writer._file is not None
    writer._file.close()
    writer._file = Path("/dev/full").open("ab", buffering=0)  # noqa: SIM115 (closed below)
    with pytest.raises(OSError) as caught:
        writer.write(_run("d01"), CHECKS, True)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(tmp_path / "abc" / "runs.jsonl")
    writer.close()
