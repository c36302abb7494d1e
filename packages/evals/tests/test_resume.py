"""Resume and rebuild from traces: `evals run --resume RUN_ID` runs exactly the missing
(case, trial) pairs and ends with the report an uninterrupted run gives; `evals report
traces/RUN_ID` rebuilds the report from a trace folder."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli.main import main  # noqa: E402
from evals.config import load_config  # noqa: E402
from evals.execution.resume import rebuild  # noqa: E402
from evals.log.traces import read_meta, read_traces  # noqa: E402
from evals.model import result as result_module  # noqa: E402
from helpers import make_project, subprocess_pythonpath  # noqa: E402

PLANNED = 36  # the 9 fixture cases x 4 trials
CASES = ("d01", "d02", "d03", "t01", "t02", "t03", "r01", "r02", "r04")
EVERY_PAIR = {(c, t) for c in CASES for t in range(4)}


def _evals(project: Path, *args: str, delay_s: float = 0.0) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(), "FAKE_SUT_DELAY_S": str(delay_s)}
    return subprocess.Popen(
        [sys.executable, "-m", "evals", *args],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _folder(project: Path, label: str) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = sorted((project / "traces").glob(f"*-{label}-*"))
        if found:
            (folder,) = found
            return folder
        time.sleep(0.02)
    pytest.fail(f"no trace folder of {label!r}")


def _lines(folder: Path) -> int:
    path = folder / "runs.jsonl"
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def _without_meta(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "meta" and "latency" not in k}


def _report(project: Path, label: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (project / "reports" / f"{label}.json").read_text(encoding="utf-8")
    )
    return data


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("signum", "code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
)
def test_resume_runs_exactly_the_missing_pairs_and_ends_as_an_uninterrupted_run(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    project = make_project(tmp_path / "proj", sut="fake_suts:SlowSUT")
    run = ("run", "--trials", "4", "--concurrency", "2")
    code_full, _, err = _finish(_evals(project, *run, "--label", "full"))
    assert code_full == 0, err

    proc = _evals(project, *run, "--label", "cut", delay_s=0.1)
    folder = _folder(project, "cut")
    deadline = time.monotonic() + 60
    while _lines(folder) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signum)
    stopped, _, err = _finish(proc)
    assert stopped == code, err
    before = (folder / "runs.jsonl").read_bytes()
    kept = before[: before.rfind(b"\n") + 1]  # a torn last line is no finished run
    finished_before = kept.count(b"\n")
    assert 5 <= finished_before < PLANNED

    resumed, out, err = _finish(_evals(project, "run", "--resume", folder.name))

    assert resumed == 0, err
    assert "Traceback" not in err
    after = (folder / "runs.jsonl").read_bytes()
    assert after.startswith(kept)  # no finished trial lost or rewritten
    pairs = [(r.case_id, r.trial) for r in read_traces(folder)]
    assert len(pairs) == PLANNED  # re-run: exactly the missing ones, each once
    assert set(pairs) == EVERY_PAIR
    meta = read_meta(folder)
    assert (meta.complete, meta.finished_runs, meta.stop_signal) == (True, PLANNED, None)
    assert _without_meta(_report(project, "cut")) == _without_meta(_report(project, "full"))
    assert _report(project, "cut")["meta"]["run_id"] == folder.name
    assert "INCOMPLETE" not in out


def _interrupted(project: Path, keep: int, *args: str) -> Path:
    """A finished ``evals run`` whose trace is then cut to its first ``keep`` runs and
    marked interrupted, as if Ctrl-C had stopped it there."""
    assert main(["run", "--trials", "2", "--label", "cut", *args]) == 0
    (folder,) = (project / "traces").glob("*-cut-*")
    lines = (folder / "runs.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "runs.jsonl").write_text("".join(lines[:keep]), encoding="utf-8")
    meta = read_meta(folder).model_copy(
        update={"complete": False, "finished_runs": keep, "stop_signal": "SIGINT"}
    )
    (folder / "meta.json").write_text(meta.model_dump_json(), encoding="utf-8")
    return folder


REFUSALS = [
    (["--trials", "3"], "--trials is 3 now, 2 in its meta.json"),
    (["--suite", "alpha"], "--suite is ['alpha'] now, ['alpha', 'beta'] in its meta.json"),
    (["--sut", "fake_suts:SlowSUT"], "--sut/--sut-option is 'fake_suts:SlowSUT' now"),
    (
        ["--sut", "fake_suts:make_options_sut", "--sut-option", "flavour=hot"],
        "--sut/--sut-option is 'fake_suts:make_options_sut (flavour=hot)' now",
    ),
    (["--split", "dev"], "--split is 'dev' now, None in its meta.json"),
    (["--label", "other"], "--label is 'other' now, 'cut' in its meta.json"),
    (["--tag", "happy"], "--tag is ['happy'] now, [] in its meta.json"),
]
"""(flags given with --resume, the one line that refuses them)"""


@pytest.mark.parametrize(("flags", "line"), REFUSALS)
def test_resume_refuses_what_differs_from_the_trace(
    project: Path, capsys: pytest.CaptureFixture[str], flags: list[str], line: str
) -> None:
    folder = _interrupted(project, 5)
    before = (folder / "runs.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["run", "--resume", folder.name, *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and line in err
    assert err.startswith(f"evals: error: --resume {folder.name!r}: ")
    assert (folder / "runs.jsonl").read_bytes() == before  # nothing run


@pytest.mark.parametrize("same", [["--trials", "2"], ["--suite", "alpha", "--suite", "beta"], []])
def test_resume_accepts_flags_that_say_what_the_trace_says(project: Path, same: list[str]) -> None:
    folder = _interrupted(project, 5)
    assert main(["run", "--resume", folder.name, *same]) == 0
    assert len(list(read_traces(folder))) == 18


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ("drop", "the case files changed: 8 cases x 2 trials now, 18 runs planned"),
        ("rename", "line 1: run 'd01'#0 is not among the 9 cases x 2 trials of meta.json"),
    ],
)
def test_resume_refuses_when_the_case_files_changed(
    project: Path, capsys: pytest.CaptureFixture[str], change: str, line: str
) -> None:
    folder = _interrupted(project, 5)
    suite = project / "cases" / ("beta.jsonl" if change == "drop" else "alpha.jsonl")
    text = suite.read_text("utf-8")
    if change == "drop":
        text = "".join(text.splitlines(True)[:-1])
    else:
        text = text.replace('"id": "d01"', '"id": "d09"')
    suite.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2
    err = capsys.readouterr().err
    assert line in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("setup", "line"),
    [
        ("missing", "not a trace folder (no meta.json)"),
        ("complete", "that evaluation is complete, nothing to resume"),
        ("gate", "that trace is of `evals gate`, not `evals run`"),
        ("bad_line", "line 2: not a trace record"),
        ("bad_meta", "meta.json: not a trace meta"),
    ],
)
def test_resume_refuses_a_trace_it_cannot_finish(
    project: Path, capsys: pytest.CaptureFixture[str], setup: str, line: str
) -> None:
    folder = _interrupted(project, 5)
    run_id = folder.name
    if setup == "missing":
        run_id = "no-such-run"
    elif setup == "complete":
        meta = read_meta(folder).model_copy(update={"complete": True})
        (folder / "meta.json").write_text(meta.model_dump_json(), encoding="utf-8")
    elif setup == "gate":
        meta = read_meta(folder).model_copy(update={"command": "gate"})
        (folder / "meta.json").write_text(meta.model_dump_json(), encoding="utf-8")
    elif setup == "bad_line":
        lines = (folder / "runs.jsonl").read_text("utf-8").splitlines(True)
        lines[1] = '{"case_id": "d01"}\n'
        (folder / "runs.jsonl").write_text("".join(lines), encoding="utf-8")
    elif setup == "bad_meta":
        (folder / "meta.json").write_text('{"trials": "many"}', encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", run_id]) == 2
    err = capsys.readouterr().err
    assert line in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_torn_last_line_is_cut_off_and_its_run_run_again(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A kill in the middle of a write leaves half a record: that run never finished.
    folder = _interrupted(project, 6)
    full = (folder / "runs.jsonl").read_text("utf-8").splitlines(True)
    torn = full[-1][: len(full[-1]) // 2]
    (folder / "runs.jsonl").write_text("".join(full[:-1]) + torn, encoding="utf-8")
    assert main(["report", str(folder)]) == 0
    assert "5 of 18 runs finished" in capsys.readouterr().out
    assert main(["run", "--resume", folder.name]) == 0
    pairs = [(r.case_id, r.trial) for r in read_traces(folder)]
    assert len(pairs) == len(set(pairs)) == 18


def test_report_from_traces_equals_the_report_of_the_run(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["run", "--trials", "2", "--label", "once"]) == 0
    printed = capsys.readouterr().out
    original = {p.name: p.read_text("utf-8") for p in (project / "reports").glob("once.*")}
    (folder,) = (project / "traces").glob("*-once-*")
    assert main(["report", str(folder), "--out", str(tmp_path / "again")]) == 0
    assert capsys.readouterr().out.strip() == printed.strip()
    rebuilt = {p.name: p.read_text("utf-8") for p in (tmp_path / "again").glob("once.*")}
    assert rebuilt == original
    assert len(rebuilt) == 4


def test_a_trace_read_back_shares_equal_verdicts_as_the_run_did(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verdicts parsed from a trace are new objects: read back, equal ones are shared again
    (one object per distinct verdict, one tuple per distinct list), as grading shares them.
    Unshared, a 20,000-run trace's report held ~600 MiB of verdicts."""
    monkeypatch.setattr(result_module, "_VERDICTS", {})  # other tests may have filled them
    monkeypatch.setattr(result_module, "_VERDICT_TUPLES", {})
    assert main(["run", "--trials", "4", "--label", "shared"]) in (0, 1)
    (folder,) = (project / "traces").glob("*-shared-*")
    results, _ = rebuild(folder, load_config())
    assert len(results) == PLANNED
    plain = [c for r in results for c in r.checks if c.expected is None and c.got is None]
    distinct = {(c.name, c.kind, c.passed, c.reason, c.grader_error) for c in plain}
    assert len(plain) > 4 * len(distinct)
    assert len({id(c) for c in plain}) == len(distinct)
    lists = [r.checks for r in results if all(c in plain for c in r.checks)]
    assert len({id(checks) for checks in lists}) == len({checks for checks in lists})


def test_report_from_an_interrupted_trace_says_incomplete(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _interrupted(project, 5)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "INCOMPLETE: interrupted, 5 of 18 runs finished" in out
    assert _report(project, "cut")["runs"] == 5


def _meta_with(folder: Path, **fields: object) -> None:
    """Rewrite ``meta.json`` with ``fields`` set as raw JSON (as a hostile copy would)."""
    data = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    data.update(fields)
    (folder / "meta.json").write_text(json.dumps(data), encoding="utf-8")


def _inputs(project: Path) -> dict[str, bytes]:
    """Every file the gate reads, with its bytes (none may change)."""
    files = [*(project / "cases").iterdir(), *(project / "reports").glob("baseline*.json")]
    return {str(p.relative_to(project)): p.read_bytes() for p in files if p.is_file()}


@pytest.mark.parametrize(
    ("craft", "commands", "line"),
    [
        (  # a copy of a trace folder keeps its run id: a resume would append to the other
            "copy",
            ["report", "run"],
            "run_id: '{run_id}' is not this folder's name 'copy'",
        ),
        ("label:baseline", ["report", "run"], "label 'baseline' would overwrite the baseline"),
        ("label:../cases/gate", ["report", "run"], "a label must be a file name"),
        ("label:../../x", ["report", "run"], "a label must be a file name"),
        ("label:sub/../../x", ["report", "run"], "a label must be a file name"),
        ("run_id:../../elsewhere", ["report", "run"], "a run id must be a file name"),
    ],
)
def test_a_crafted_trace_folder_is_refused_before_anything_is_written(
    project: Path, capsys: pytest.CaptureFixture[str], craft: str, commands: list[str], line: str
) -> None:
    assert main(["baseline", "--suite", "alpha"]) == 0
    folder = _interrupted(project, 5)
    run_id = folder.name
    if craft == "copy":
        shutil.copytree(folder, folder.parent / "copy")
        folder = folder.parent / "copy"
    else:
        key, value = craft.split(":", 1)
        _meta_with(folder, **{key: value})
    before = _inputs(project)
    reports = sorted(p.name for p in (project / "reports").iterdir())
    traces = sorted(p.name for p in (project / "traces").iterdir())
    for command in commands:
        argv = ["report", str(folder)] if command == "report" else ["run", "--resume", folder.name]
        capsys.readouterr()
        assert main(argv) == 2, command
        err = capsys.readouterr().err
        assert line.format(run_id=run_id) in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert _inputs(project) == before
    assert sorted(p.name for p in (project / "reports").iterdir()) == reports
    assert sorted(p.name for p in (project / "traces").iterdir()) == traces
    assert not (project.parent / "x.json").exists() and not (project.parent / "elsewhere").exists()


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["run", "--resume", ""], "--resume: must be the name of a folder"),
        (["run", "--resume", "../traces"], "--resume: must be the name of a folder"),
        (
            ["run", "--out", "cases", "--label", "gate"],
            "label 'gate' would overwrite the gate config",
        ),
        (["run", "--out", "cases", "--label", "alpha"], "into the cases folder"),
        (["run", "--label", "baseline"], "label 'baseline' would overwrite the baseline"),
    ],
)
def test_flags_that_would_lose_an_input_are_refused(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    assert main(["baseline", "--suite", "alpha"]) == 0
    before = _inputs(project)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert line in err.strip().splitlines()[-1], err  # argparse's usage lines before it
    assert "Traceback" not in err
    assert _inputs(project) == before


def test_a_second_resume_of_a_run_being_resumed_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _interrupted(project, 2)
    first = _evals(project, "run", "--resume", folder.name, "--concurrency", "1", delay_s=0.2)
    deadline = time.monotonic() + 60
    while _lines(folder) <= 2:  # the first resume holds the run once it appends
        assert first.poll() is None, _finish(first)
        assert time.monotonic() < deadline, "the first resume never ran"
        time.sleep(0.02)
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2
    err = capsys.readouterr().err
    assert "another evaluation is resuming that run now" in err and err.count("\n") == 1
    code, _, err = _finish(first)
    assert code == 0, err
    pairs = [(r.case_id, r.trial) for r in read_traces(folder)]
    assert len(pairs) == len(set(pairs)) == 18  # 9 cases x 2 trials, none twice
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2  # complete now, and unlocked
    assert "that evaluation is complete" in capsys.readouterr().err


def test_a_trace_is_reported_without_the_plug_in_that_graded_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A project's own check reads an expectation of its own; `evals report <trace>` runs
    # in a process that never imported that check (SupportPilot's live in its plug-in,
    # which imports the agent): the report says what the runs were graded, not "unknown
    # expectation".
    from evals.checks import check, unregister

    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    line = {"id": "g1", "split": "dev", "input": {"goal": "包裹一直没到", "order_id": "A-g1"},
            "expect": {"outcome": "replied", "greeting": "您好"}}  # fmt: skip
    (project / "greet.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n")

    @check(kind="outcome", expect_keys=("greeting",))
    def greeting(case: Any, run: Any) -> tuple[bool, str]:
        return False, "no greeting"

    try:
        assert main(["run", "--cases", "greet.jsonl", "--label", "greet"]) == 0
    finally:
        unregister("greeting")
    folder = _folder(project, "greet")
    capsys.readouterr()
    assert main(["report", str(folder), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "g1#0" in out and "no greeting" in out  # the failure as it was graded


def test_a_resume_builds_the_sut_its_meta_records(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's promise: the recorded SUT and options are used, no --sut needed."""
    sut = ["--sut", "fake_suts:make_options_sut", "--sut-option", "flavour=hot"]
    folder = _interrupted(project, 5, *sut)
    meta = read_meta(folder)
    assert (meta.sut_spec, meta.sut_options) == ("fake_suts:make_options_sut", {"flavour": "hot"})
    assert main(["run", "--resume", folder.name]) == 0, capsys.readouterr().err
    assert len(list(read_traces(folder))) == 18
    assert _report(project, "cut")["meta"]["sut"] == "fake_suts:make_options_sut (flavour=hot)"


def test_a_resume_asks_again_for_a_secret_its_meta_does_not_keep(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _interrupted(project, 5, "--sut", "fake_suts:make_options_sut")
    meta = read_meta(folder).model_copy(update={"sut_options": {"api_key": None}})
    (folder / "meta.json").write_text(meta.model_dump_json(), encoding="utf-8")
    before = (folder / "runs.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "the secret option 'api_key'" in err
    assert (folder / "runs.jsonl").read_bytes() == before


@pytest.mark.parametrize("spec", ["os:system; rm", "../x:y", "a:b:c", " mod:attr"])
def test_a_crafted_sut_spec_in_a_meta_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    folder = _interrupted(project, 5)
    data = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    data["sut_spec"] = spec
    (folder / "meta.json").write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "sut_spec" in err and "Traceback" not in err
