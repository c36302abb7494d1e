"""``--executor`` and ``--ray-address`` refused before any run when they cannot work (one
line, exit 2), Ray installed or not."""

from __future__ import annotations

import sys
from pathlib import Path

import evals
import pytest
from evals.cli.main import main
from evals.execution.ray_executor import RayUnavailableError
from helpers import make_project

NO_RAY = "--executor ray needs Ray, which is not installed: install the extra"

USAGE_ERRORS = [
    (["--ray-address", "auto"], "--ray-address names a Ray cluster: it needs --executor ray"),
    (["--executor", "ray", "--memory-limit", "100"], "--memory-limit do not apply"),
    (["--executor", "ray", "--isolation", "process"], "--isolation process and --memory-limit"),
    (["--executor", "cluster"], "argument --executor: invalid choice: 'cluster'"),
]


@pytest.mark.parametrize(("flags", "message"), USAGE_ERRORS)
def test_executor_flags_that_cannot_work_are_refused_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", *flags]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert not (tmp_path / "traces").exists() or not any((tmp_path / "traces").iterdir())


def test_the_local_executor_named_runs_as_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", "--executor", "local", "--label", "x"]) == 0
    assert '"executor": "local"' in (tmp_path / "reports" / "x.json").read_text("utf-8")


def test_without_ray_the_ray_executor_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_project(tmp_path))
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError, as if absent
    assert main(["run", "--suite", "alpha", "--executor", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"evals: error: {NO_RAY} supportpilot-evals[ray]"]
    with pytest.raises(RayUnavailableError, match="supportpilot-evals"):
        evals.evaluate(tmp_path / "cases" / "alpha.jsonl", "fake_suts:EchoSUT", executor="ray")


def _with_executor(root: Path, executor: str) -> None:
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text + f'executor = "{executor}"\n', encoding="utf-8")


@pytest.mark.parametrize(
    "scenario",
    [
        # Read from [tool.evals]: Ray with process isolation is refused before any run.
        ("ray", ["--isolation", "process"], 2, "--isolation process and --memory-limit"),
        # The flag wins over the file.
        ("ray", ["--executor", "local", "--isolation", "process"], 0, ""),
        ("spark", [], 2, "executor: Input should be 'local' or 'ray'"),
    ],
)
def test_tool_evals_executor_is_the_default_executor(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: tuple[str, list[str], int, str],
) -> None:
    executor, flags, code, message = scenario
    root = make_project(tmp_path)
    _with_executor(root, executor)
    monkeypatch.chdir(root)
    assert main(["run", "--suite", "alpha", "--label", "x", *flags]) == code
    assert message in capsys.readouterr().err
