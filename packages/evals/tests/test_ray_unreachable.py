"""An unreachable Ray cluster is exit 2 with one line within seconds, never a hang
(``ray.init`` alone retries for minutes and ignores SIGINT and SIGTERM meanwhile)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from evals.execution.ray_executor import _unreachable
from helpers import make_project, subprocess_pythonpath

pytest.importorskip("ray", reason="Ray is not installed (supportpilot-evals[ray])")


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize("how", ["flag", "environment", "client"])
def test_an_unreachable_address_is_one_line_and_exit_2_within_seconds(
    tmp_path: Path, how: str
) -> None:
    project = make_project(tmp_path / "proj")
    address = f"127.0.0.1:{_closed_port()}"
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath()}
    argv = [sys.executable, "-m", "evals", "run", "--suite", "alpha", "--executor", "ray"]
    if how == "flag":
        argv += ["--ray-address", address]
    elif how == "client":
        address = f"ray://{address}"
        argv += ["--ray-address", address]
    else:
        env["RAY_ADDRESS"] = address
    started = time.monotonic()
    done = subprocess.run(
        argv, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"cannot reach Ray at {address!r}: nothing answers there" in done.stderr
    assert time.monotonic() - started < 60  # the probe gives up after 3 s


def test_an_address_something_listens_on_is_reachable() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert _unreachable(f"127.0.0.1:{port}") is None
        assert _unreachable(f"ray://127.0.0.1:{port}") is None
    assert _unreachable("auto") is None  # no port: Ray looks for the cluster itself
    assert _unreachable("127.0.0.1:http") == "'http' is not a port number"


def test_an_unreachable_address_leaves_the_last_report_under_its_label(tmp_path: Path) -> None:
    # Bug found (issue 24, `reliability.py hostile`): the address was probed only when the
    # runs began, after the report under the label had been replaced by an empty one, so
    # a refused command (exit 2) lost the last good report.
    project = make_project(tmp_path / "proj")
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath()}
    argv = [sys.executable, "-m", "evals", "run", "--suite", "alpha"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*argv, *extra], cwd=project, env=env, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip

    assert run().returncode == 0
    reports = {p.name: p.read_bytes() for p in (project / "reports").iterdir()}
    done = run("--executor", "ray", "--ray-address", f"127.0.0.1:{_closed_port()}")
    assert done.returncode == 2, done.stderr
    assert "cannot reach Ray at" in done.stderr and done.stderr.count("\n") == 1
    assert {p.name: p.read_bytes() for p in (project / "reports").iterdir()} == reports
