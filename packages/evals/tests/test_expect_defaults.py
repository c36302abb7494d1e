"""A project's default expectations (``[tool.evals.expect_defaults]``, issue 25 item 2):
the core judges no budget a case did not set, and a project's defaults are filled into
every case whichever route loads it: ``evals run``, ``evals.evaluate`` on a case file,
and a resumed evaluation. The positive control: the fake SUT returns 100 characters, a
default budget of 50 fails every case's ``max_chars``, and with no default nothing does.
"""

from __future__ import annotations

import json
from pathlib import Path

import evals
import fake_suts
import pytest
from evals.cli.main import main
from evals.config import load_config
from evals.log.traces import read_meta, read_traces

BUDGET_LINE = "returned 100 characters into the agent's context, budget is 50"


def with_defaults(project: Path, table: str) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(f"{text}\n[tool.evals.expect_defaults]\n{table}\n", encoding="utf-8")


def failing(report: evals.Report) -> set[str]:
    return {c.name for r in report.results for c in r.checks if not c.passed}


@pytest.mark.parametrize(("table", "fails"), [("max_chars = 50", True), ("", False)])
def test_evaluate_on_a_case_file_fills_the_project_s_defaults(
    project: Path, table: str, fails: bool
) -> None:
    if table:
        with_defaults(project, table)
    report = evals.evaluate(project / "cases" / "alpha.jsonl", fake_suts.EchoSUT())
    assert ("max_chars" in failing(report)) is fails
    assert all(
        (c.expect.max_chars == 50) is fails for c in report.cases if c.expect.described is None
    )


@pytest.mark.parametrize(("table", "fails"), [("max_chars = 50", True), ("", False)])
def test_evals_run_fills_the_project_s_defaults(
    project: Path, capsys: pytest.CaptureFixture[str], table: str, fails: bool
) -> None:
    if table:
        with_defaults(project, table)
    main(["run", "--suite", "alpha", "--label", "budgeted"])
    out = capsys.readouterr().out
    assert (BUDGET_LINE in out) is fails
    saved = json.loads((project / "reports" / "budgeted.json").read_text(encoding="utf-8"))
    assert ("max_chars" in json.dumps(saved)) is fails


def test_a_bad_default_names_the_project_file_s_table_or_each_case_it_fills(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_defaults(project, 'max_chars = "many"')
    assert load_config(project).expect_defaults == {"max_chars": "many"}
    assert main(["run", "--suite", "alpha"]) == 2
    err = capsys.readouterr().err
    assert "alpha.jsonl:1: expect.max_chars" in err


def test_a_resumed_evaluation_grades_its_new_runs_with_the_same_defaults(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_defaults(project, "max_chars = 50")
    assert main(["run", "--suite", "alpha", "--label", "cut"]) == 0
    (folder,) = (project / "traces").glob("*-cut-*")
    lines = (folder / "runs.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "runs.jsonl").write_text("".join(lines[:2]), encoding="utf-8")
    meta = read_meta(folder).model_copy(
        update={"complete": False, "finished_runs": 2, "stop_signal": "SIGINT"}
    )
    (folder / "meta.json").write_text(meta.model_dump_json(), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 0
    runs = list(read_traces(folder))
    assert len(runs) == len(lines) > 2
    budgeted = [r for r in runs if any(c.name == "max_chars" for c in r.checks)]
    assert len(budgeted) == len(runs)  # the resumed runs too
    assert all(not c.passed for r in budgeted for c in r.checks if c.name == "max_chars")
