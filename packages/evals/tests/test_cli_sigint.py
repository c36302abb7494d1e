"""Ctrl-C during a run: exit 130, partial report marked INCOMPLETE, finished traces kept."""

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

from evals.traces import read_meta, read_traces  # noqa: E402
from helpers import make_project  # noqa: E402


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
    project: Path, concurrency: int, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``evals run --trials 4`` of the 9 fixture cases, each run taking 0.25 s."""
    env = {**os.environ, "PYTHONPATH": str(FIXTURES), "FAKE_SUT_DELAY_S": "0.25", **(env or {})}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evals",
            "run",
            "--trials",
            "4",
            "--concurrency",
            str(concurrency),
            "--label",
            "cut",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _trace_folder(project: Path) -> Path:
    traces = project / "traces"
    deadline = time.monotonic() + 60
    while not (traces.is_dir() and any(traces.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.02)
    (folder,) = list(traces.iterdir())
    return folder


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_the_run_and_keeps_what_finished(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    proc = _start(project, concurrency=2)
    folder = _trace_folder(project)
    _wait_for_lines(folder / "runs.jsonl", 3, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)

    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "INCOMPLETE: interrupted" in out
    records = list(read_traces(folder))
    meta = read_meta(folder)
    assert meta.complete is False
    assert 3 <= len(records) < 36
    assert meta.finished_runs == len(records)
    assert meta.planned_runs == 36
    report = json.loads((project / "reports" / "cut.json").read_text(encoding="utf-8"))
    assert report["runs"] == len(records)  # every finished trial is in the report and traced
    assert report["meta"]["complete"] is False
    assert f"{len(records)} of 36 runs finished" in out


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_second_sigint_does_not_lose_the_partial_report(tmp_path: Path) -> None:
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
    while not junit_path.is_file() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)  # the reports are written; the console report is not out
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
