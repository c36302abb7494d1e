"""Ctrl-C (SIGINT) or SIGTERM during a run: exit 130 or 143, partial report marked
INCOMPLETE, finished traces kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.log.traces import read_meta, read_traces  # noqa: E402
from helpers import make_project, subprocess_pythonpath  # noqa: E402


def _wait_for_lines(path: Path, count: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text(encoding="utf-8").count("\n") >= count:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before {count} runs finished: {proc.communicate()}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail(f"no {count} finished runs in {path} within 60 s")


def _start(
    project: Path,
    concurrency: int,
    env: dict[str, str] | None = None,
    command: str = "run",
) -> subprocess.Popen[str]:
    """``evals <command> --trials 4`` of the fixture cases, each run taking 0.25 s."""
    env = {
        **os.environ,
        "PYTHONPATH": subprocess_pythonpath(),
        "FAKE_SUT_DELAY_S": "0.25",
        **(env or {}),
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evals",
            command,
            "--trials",
            "4",
            "--concurrency",
            str(concurrency),
            "--label",
            "cut",
            # These tests stop evaluations with signals, some of them while every run
            # errors: the runner's own stop on a dead provider must not come first.
            "--max-provider-errors",
            "0",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _trace_folder(project: Path) -> Path:
    """The trace folder of the evaluation labelled ``cut``, once it holds its meta (the
    folder is made a moment before its ``meta.json``: reading in between failed once)."""
    traces = project / "traces"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = sorted(traces.glob("*-cut-*")) if traces.is_dir() else []
        if found and all((folder / "meta.json").is_file() for folder in found):
            (folder,) = found
            return folder
        time.sleep(0.02)
    pytest.fail(f"no trace folder of 'cut' in {traces} within 60 s")


def _evals_at_once(project: Path, *args: str) -> None:
    """``evals ARGS`` with runs that take no time; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "evals", *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": subprocess_pythonpath(), "FAKE_SUT_DELAY_S": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


STOPS = [
    (signal.SIGINT, 130, "INCOMPLETE: interrupted,"),
    (signal.SIGTERM, 143, "INCOMPLETE: interrupted by SIGTERM,"),
]
"""(signal sent, exit code, what the partial report says)"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "code", "note"), STOPS)
def test_a_stop_signal_ends_the_run_and_keeps_what_finished(
    tmp_path: Path, signum: signal.Signals, code: int, note: str
) -> None:
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    proc = _start(project, concurrency=2)
    folder = _trace_folder(project)
    _wait_for_lines(folder / "runs.jsonl", 3, proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert note in out
    records = list(read_traces(folder))
    meta = read_meta(folder)
    assert meta.complete is False
    assert meta.stop_signal == signum.name
    assert 3 <= len(records) < 36
    assert meta.finished_runs == len(records)
    assert meta.planned_runs == 36
    report = json.loads((project / "reports" / "cut.json").read_text(encoding="utf-8"))
    assert report["runs"] == len(records)  # every finished trial is in the report and traced
    assert report["meta"]["complete"] is False
    assert f"{len(records)} of 36 runs finished" in out
    # How to finish it: the newcomer's interrupted run never said.
    assert err.splitlines()[-1] == f"finish it: evals run --resume {folder.name}"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("gate", "Gate: not judged (INCOMPLETE: interrupted by SIGTERM, "),
        ("baseline", "baseline not written: the run was interrupted"),
    ],
)
def test_sigterm_stops_the_gate_and_the_baseline_like_ctrl_c(
    tmp_path: Path, command: str, says: str
) -> None:
    # Bug found (issue 13): SIGTERM killed the evaluation at once, leaving no report.
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    baseline = project / "reports" / "baseline.json"
    if command == "gate":
        _evals_at_once(project, "baseline")
    before = baseline.read_text(encoding="utf-8") if baseline.exists() else None
    proc = _start(project, concurrency=2, command=command)
    folder = _trace_folder(project)
    _wait_for_lines(folder / "runs.jsonl", 3, proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert says in out + err
    assert "INCOMPLETE: interrupted by SIGTERM" in out
    report = json.loads((project / "reports" / "cut.json").read_text(encoding="utf-8"))
    assert report["runs"] == read_meta(folder).finished_runs == len(list(read_traces(folder)))
    assert (baseline.read_text(encoding="utf-8") if baseline.exists() else None) == before


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_second_stop_signal_does_not_lose_the_partial_report(
    tmp_path: Path, second: signal.Signals
) -> None:
    # Bug found by hand: a second Ctrl-C while the partial report was being written
    # printed only "evals: interrupted" and wrote no report.
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    # Every run errors with a 10 KB message, so the console report (over 100 KB) fills
    # the stdout pipe, which is not read yet: the process stays in the middle of printing
    # the partial report until communicate() below, whenever the second SIGINT arrives.
    every_case = "d01,d02,d03,t01,t02,t03,r01,r02,r04"
    env = {"FAKE_SUT_ERROR": every_case, "FAKE_SUT_ERROR_TEXT": "provider down " * 700}
    proc = _start(project, concurrency=3, env=env)
    folder = _trace_folder(project)
    _wait_for_lines(folder / "runs.jsonl", 10, proc)
    proc.send_signal(signal.SIGINT)
    junit_path = project / "reports" / "cut.junit.xml"
    deadline = time.monotonic() + 60
    # The partial report, not the "not finished" one written when the evaluation began.
    while proc.poll() is None and time.monotonic() < deadline:
        if junit_path.is_file() and "interrupted: " in junit_path.read_text(encoding="utf-8"):
            break
        time.sleep(0.002)
    proc.send_signal(second)  # the reports are written; the console report is not out
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "evals: interrupted" not in err
    finished = read_meta(folder).finished_runs
    assert f"trials: 4 planned, runs finished {finished} of 36" in out
    assert "0/0 = n/a (no graded runs)" in out  # every run errored: no rates
    assert out.rstrip().endswith(f"INCOMPLETE: interrupted, {finished} of 36 runs finished ***")
    report = json.loads((project / "reports" / "cut.json").read_text(encoding="utf-8"))
    assert report["runs"] == finished
    # Trial-major scheduling: 10 finished runs cover all 9 cases, not 3 of them.
    assert report["cases"] == 9
    junit = junit_path.read_text(encoding="utf-8")
    assert f'message="interrupted: {finished} of 36 runs finished"' in junit


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_killed_evaluation_leaves_a_current_meta_and_no_stale_report(tmp_path: Path) -> None:
    # Bug found (issue 13): after SIGKILL, meta.json said 0 finished runs and the report
    # of an earlier evaluation under the same label still said complete: true.
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    _evals_at_once(project, "run", "--label", "cut")
    report_path = project / "reports" / "cut.json"
    assert json.loads(report_path.read_text(encoding="utf-8"))["meta"]["complete"] is True
    old_folder = _trace_folder(project)
    old_folder.rename(old_folder.with_name("earlier"))  # one "-cut-" folder: the new one
    proc = _start(project, concurrency=2)
    folder = _trace_folder(project)
    deadline = time.monotonic() + 60
    while read_meta(folder).finished_runs < 1 and time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        time.sleep(0.05)
    proc.kill()
    proc.communicate(timeout=60)

    meta = read_meta(folder)
    assert 1 <= meta.finished_runs <= len(list(read_traces(folder))) < 36
    assert meta.finished is None and meta.complete is False
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["meta"]["run_id"] == folder.name  # not the earlier evaluation's
    assert report["meta"]["complete"] is False
    markdown = (project / "reports" / "cut.md").read_text(encoding="utf-8")
    assert "INCOMPLETE: not finished (still running, or killed)" in markdown


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_command_line_gives_the_stop_signals_back_once_the_report_is_written(
    project: Path, signum: signal.Signals, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-process, as a notebook or a test calling main() would: after a stop the signals
    # are ignored while the partial report is written, then get their handlers back.
    from evals.cli.main import main

    stops = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in stops}
    monkeypatch.setenv("FAKE_SUT_INTERRUPT_AFTER", "2")
    monkeypatch.setenv("FAKE_SUT_SIGNAL", str(int(signum)))
    try:
        code = main(["run", "--sut", "fake_suts:EnvInterruptingSUT", "--concurrency", "1"])
        assert code == 128 + signum
        assert {s: signal.getsignal(s) for s in stops} == before
        meta = read_meta(next(p for p in (project / "traces").iterdir() if p.is_dir()))
        assert meta.stop_signal == signum.name and not meta.complete
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
