"""SIGINT and SIGTERM end a Ray evaluation as they end a local one (issue 24, item 5):
exit 130 or 143 within seconds, the partial report marked INCOMPLETE with the finished
runs traced, and no Ray process of the evaluation's own local cluster left behind.

On a real local Ray, started by the ``evals run --executor ray`` process itself (no
``RAY_ADDRESS``); skipped only when Ray is not importable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from evals.execution.ray_executor import UV_HOOK_VARIABLE
from evals.log.traces import read_meta, read_traces
from helpers import make_project, subprocess_pythonpath

pytest.importorskip("ray", reason="Ray is not installed (supportpilot-evals[ray])")

STOPS = [
    (signal.SIGINT, 130, "INCOMPLETE: interrupted,"),
    (signal.SIGTERM, 143, "INCOMPLETE: interrupted by SIGTERM,"),
]
"""(signal sent, exit code, what the partial report says): as for a local evaluation."""


def _ray_processes() -> set[int]:
    """The pids of the Ray daemons running now (a local cluster's raylet and GCS)."""
    done = subprocess.run(["ps", "-eo", "pid=,comm="], capture_output=True, text=True, check=True)
    found = set()
    for line in done.stdout.splitlines():
        pid, _, name = line.strip().partition(" ")
        if name.strip() in ("raylet", "gcs_server"):
            found.add(int(pid))
    return found


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "code", "note"), STOPS)
def test_a_stop_signal_ends_a_ray_evaluation_like_a_local_one(
    tmp_path: Path, signum: signal.Signals, code: int, note: str
) -> None:
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    before = _ray_processes()
    env = {
        **os.environ,
        "PYTHONPATH": subprocess_pythonpath(),
        "FAKE_SUT_DELAY_S": "0.5",
        UV_HOOK_VARIABLE: "0",
    }
    env.pop("RAY_ADDRESS", None)
    command = [sys.executable, "-m", "evals", "run", "--trials", "4", "--concurrency", "2"]
    command += ["--label", "cut", "--executor", "ray", "--max-provider-errors", "0"]
    proc = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120  # a local Ray takes seconds to start
        runs = None
        while time.monotonic() < deadline and proc.poll() is None:
            found = sorted((project / "traces").glob("*-cut-*/runs.jsonl"))
            if found and found[0].read_text(encoding="utf-8").count("\n") >= 3:
                runs = found[0]
                break
            time.sleep(0.1)
        assert runs is not None, f"no 3 finished runs: {proc.poll()}"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert note in out
    meta = read_meta(runs.parent)
    records = list(read_traces(runs.parent))
    assert meta.complete is False and meta.stop_signal == signum.name
    assert 3 <= len(records) < 36 and meta.finished_runs == len(records)
    assert err.splitlines()[-1] == f"finish it: evals run --resume {runs.parent.name}"
    # The cluster the evaluation started is gone with it.
    deadline = time.monotonic() + 30
    while _ray_processes() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ray_processes() - before == set()
