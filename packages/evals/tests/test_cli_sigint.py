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


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_the_run_and_keeps_what_finished(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    env = {**os.environ, "PYTHONPATH": str(FIXTURES), "FAKE_SUT_DELAY_S": "0.25"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evals",
            "run",
            "--trials",
            "4",
            "--concurrency",
            "2",
            "--label",
            "cut",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    traces = project / "traces"
    deadline = time.monotonic() + 60
    while not (traces.is_dir() and any(traces.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.02)
    (folder,) = list(traces.iterdir())
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
