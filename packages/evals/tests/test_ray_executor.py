"""The Ray executor (``--executor ray``) on a real local Ray (2 CPUs, one per module):
the same report as the local executor, a dead actor's run retried once on another actor
and recorded as an errored run when that dies too, and the timeout killing the actor.

Skipped only when Ray is not importable (the extra ``supportpilot-evals[ray]``; the
evals test session installs it)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evals.cli.main import main
from evals.execution.ray_executor import UV_HOOK_VARIABLE
from evals.log.traces import read_traces
from helpers import make_project

# Read when Ray is imported: under `uv run`, Ray would give each worker a fresh project
# environment (without the extra, so without Ray) unless told not to.
os.environ.setdefault(UV_HOOK_VARIABLE, "0")
ray = pytest.importorskip("ray", reason="Ray is not installed (supportpilot-evals[ray])")

STEERING = {
    # Steer the fake SUT in the actors too: they take the environment Ray starts with.
    "FAKE_SUT_FAIL": "t01#1,r02",
    "FAKE_SUT_ERROR": "d03#0",
}


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in STEERING}
    os.environ.update(STEERING)
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
    )
    try:
        yield
    finally:
        ray.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run(project: Path, *args: str) -> dict[str, Any]:
    code = main(["run", "--suite", "alpha", "--suite", "beta", *args])
    assert code == 0
    label = args[args.index("--label") + 1]
    report: dict[str, Any] = json.loads(
        (project / "reports" / f"{label}.json").read_text(encoding="utf-8")
    )
    return report


def test_the_ray_executor_gives_the_local_executors_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    common = ("--trials", "2", "--concurrency", "2")
    local = _run(project, *common, "--label", "local")
    on_ray = _run(project, *common, "--label", "ray", "--executor", "ray")
    assert on_ray["meta"]["executor"] == "ray"
    assert local["meta"]["executor"] == "local"
    # The steering took effect in both (a positive control): failures and an error.
    assert local["case_success"]["r02"] is False
    assert local["case_success"]["d01"] is True
    assert [(e["case"], e["trial"]) for e in local["error_runs"]] == [("d03", 0)]
    without_meta = {k: v for k, v in on_ray.items() if k != "meta"}
    assert without_meta == {k: v for k, v in local.items() if k != "meta"}
    # Per-run results too: the traces hold the same graded runs.
    folders = {p.name.split("-")[1]: p for p in (project / "traces").iterdir()}
    runs = {
        name: sorted((r.case_id, r.trial, r.run.outcome, r.success) for r in read_traces(f))
        for name, f in folders.items()
    }
    assert runs["ray"] == runs["local"]
    assert len(runs["ray"]) == 18


def test_a_dead_actors_run_is_retried_once_on_another_actor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path, "dying_suts:DyingSUT")
    monkeypatch.chdir(project)
    markers = tmp_path / "markers"
    markers.mkdir()
    args = ["--executor", "ray", "--concurrency", "2", "--label", "once", "--timeout", "60"]
    report = _run(project, *args, "--sut-option", "die=d02", "--sut-option", f"once_dir={markers}")
    # The first attempt died (its marker names its pid); the retry passed on another actor.
    died_pid = int((markers / "d02#0").read_text(encoding="utf-8"))
    assert report["case_success"]["d02"] is True
    (folder,) = (project / "traces").iterdir()
    (d02,) = [r for r in read_traces(folder) if r.case_id == "d02"]
    assert d02.run.outcome == "escalate"
    assert d02.run.detail["pid"] != died_pid


def test_an_actor_dying_twice_is_an_errored_run_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path, "dying_suts:DyingSUT")
    monkeypatch.chdir(project)
    args = ["--executor", "ray", "--concurrency", "2", "--label", "twice", "--timeout", "60"]
    report = _run(project, *args, "--sut-option", "die=d02")
    (folder,) = (project / "traces").iterdir()
    by_case = {r.case_id: r.run for r in read_traces(folder) if r.trial == 0}
    assert by_case["d02"].outcome == "error"
    error = by_case["d02"].error or ""
    assert "the Ray actor died on both attempts" in error
    assert error.count("ActorDiedError") == 2, error
    # Excluded from the rates like a provider error; every other run went on and passed.
    assert sorted(e["case"] for e in report["error_runs"]) == ["d02", "d03"]  # d03: provider
    assert report["errors"] == 2
    assert report["graded_runs"] == len(by_case) - 2
    assert "d02" not in report["case_success"]
    assert report["case_success"]["d01"] is True


def test_a_run_past_its_timeout_kills_its_actor_and_the_evaluation_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path, "misbehaving_suts:MisbehavingSUT")
    monkeypatch.chdir(project)
    args = ["--executor", "ray", "--concurrency", "1", "--label", "hang", "--timeout", "2"]
    report = _run(project, *args, "--sut-option", "how=block_loop", "--sut-option", "only=d02")
    (folder,) = (project / "traces").iterdir()
    errors = {r.case_id: r.run.error for r in read_traces(folder) if r.run.error}
    assert errors["d02"] == "timed out after 2s (Ray actor killed)"
    # The case after d02 ran on the actor that replaced the killed one.
    assert report["case_success"]["d01"] is True
    assert report["case_success"]["t01"] is True
    assert report["meta"]["complete"] is True
