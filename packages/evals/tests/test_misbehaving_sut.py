"""The misbehaving-SUT table (issue 13): a SUT that exits, raises, hangs, eats memory or
returns a run that cannot be serialised costs that run (a ``sut_error`` saying why), never
the evaluation: each ends with a written report and the exit code of a finished run, in
both isolation modes where the misbehaviour can be survived.

In the default mode (``--isolation none``) the SUT shares the harness's process, so
``os._exit``, a segfault or an allocation that the OS answers with the OOM killer ends the
harness too: those rows run only with ``--isolation process``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import evals
import fake_suts
import pytest
from evals.cases import validation
from evals.cases.loader import load_cases
from evals.cli.main import main
from evals.execution.runner import Runner
from evals.log.traces import read_traces
from fake_suts import EchoSUT
from helpers import FIXTURES, make_project, subprocess_pythonpath

BOTH = ("none", "process")
PROCESS = ("process",)
TIMEOUT = "1"
MEMORY_LIMIT_MB = 1024
ALPHA = ["d01", "d02", "d03", "t01", "t02"]
"""The cases of the fixture suite ``alpha``; the SUT misbehaves on ``d02`` only."""

TABLE: list[tuple[str, tuple[str, ...], dict[str, str]]] = [
    ("raise", BOTH, dict.fromkeys(BOTH, "RuntimeError: boom in d02")),
    ("sys_exit0", BOTH, dict.fromkeys(BOTH, "SystemExit: 0 (raised by the system under test)")),
    ("sys_exit3", BOTH, dict.fromkeys(BOTH, "SystemExit: 3 (raised by the system under test)")),
    (
        "keyboard_interrupt",
        BOTH,
        dict.fromkeys(BOTH, "KeyboardInterrupt (raised by the system under test)"),
    ),
    ("os_exit3", PROCESS, {"process": "the worker process died (exit code 3)"}),
    ("segfault", PROCESS, {"process": "the worker process died (killed by SIGSEGV"}),
    (
        "block_loop",
        BOTH,
        {
            "none": "timed out after 1s: it blocked the event loop for",
            "process": "timed out after 1s (worker process killed)",
        },
    ),
    (
        "swallow_cancel",
        BOTH,
        {
            "none": "timed out after 1s; it ignored its cancellation",
            "process": "timed out after 1s (worker process killed)",
        },
    ),
    (
        "memory",
        PROCESS,
        {"process": f"MemoryError (the worker's memory limit is {MEMORY_LIMIT_MB} MiB)"},
    ),
    (
        "unserialisable",
        BOTH,
        dict.fromkeys(
            BOTH, "the run could not be serialised: Unable to serialize unknown type: <class"
        ),
    ),
    (
        "surrogate",
        BOTH,
        dict.fromkeys(BOTH, "the run could not be serialised: Error serializing to JSON"),
    ),
    (
        "hang_check_case",
        BOTH,
        dict.fromkeys(BOTH, "the SUT failed before the run: check_case did not answer within"),
    ),
    # Numbers from the SUT are untrusted input (a NaN latency made the latency rule skip).
    *(
        (how, BOTH, dict.fromkeys(BOTH, f"the SUT's run record is invalid: {error}"))
        for how, error in [
            ("nan_latency", "latency_ms: not a finite number (nan)"),
            ("inf_latency", "latency_ms: not a finite number (inf)"),
            ("negative_latency", "latency_ms: negative (-5.0)"),
            ("negative_tokens", "usage.prompt_tokens: negative (-100)"),
            ("negative_chars", "chars_returned: negative (-1)"),
            ("tokens_as_text", "usage.completion_tokens: not a number (str)"),
            ("huge_reply", "its record is 60.0 MiB, over the 16 MiB a run may hold"),
        ]
    ),
]
"""(how the SUT misbehaves on d02, the isolation modes that survive it, d02's error by mode)"""

ROWS = [
    pytest.param(how, mode, errors[mode], id=f"{how}-{mode}")
    for how, modes, errors in TABLE
    for mode in modes
]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and rlimits")
@pytest.mark.parametrize(("how", "mode", "error"), ROWS)
def test_a_misbehaving_sut_costs_its_run_never_the_evaluation(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    how: str,
    mode: str,
    error: str,
) -> None:
    project = make_project(tmp_path, "misbehaving_suts:MisbehavingSUT")
    monkeypatch.chdir(project)
    monkeypatch.setattr(validation, "CHECK_CASE_DEADLINE_S", 0.3)
    # One run at a time: after d02, the next case goes to the worker that replaced d02's.
    args = ["run", "--suite", "alpha", "--timeout", TIMEOUT, "--concurrency", "1"]
    args += ["--sut-option", f"how={how}", "--sut-option", "only=d02", "--isolation", mode]
    if mode == "process":
        args += ["--memory-limit", str(MEMORY_LIMIT_MB)]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads((project / "reports" / "alpha.json").read_text(encoding="utf-8"))
    assert report["meta"]["complete"] is True
    assert report["meta"]["isolation"] == mode
    # After a check_case hook hangs, the later cases are not asked: their runs fail too.
    failing = ALPHA[1:] if how == "hang_check_case" else ["d02"]
    assert report["case_success"] == {case: case not in failing for case in ALPHA}
    (folder,) = (project / "traces").iterdir()
    records = sorted(read_traces(folder), key=lambda r: ALPHA.index(r.case_id))
    errors = {r.case_id: r.run.error for r in records if r.run.outcome == "sut_error"}
    assert list(errors) == failing
    assert errors["d02"] is not None and error in errors["d02"], errors
    # Only a coroutine that ignored its cancellation is still running when it ends.
    unstopped = ["d02#0"] if (how, mode) == ("swallow_cancel", "none") else []
    assert report["meta"]["unstopped_runs"] == unstopped
    assert ("could not be stopped" in out) == bool(unstopped)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")
def test_a_dead_worker_is_replaced_and_the_evaluation_goes_on(tmp_path: Path) -> None:
    # A fresh interpreter, one worker: it dies on d02 in both trials, and every other
    # run still happens in the workers that replace it.
    project = make_project(tmp_path, "misbehaving_suts:MisbehavingSUT")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "evals", "run", "--suite", "alpha", "--trials", "2"),
            *("--concurrency", "1", "--isolation", "process", "--timeout", "5"),
            *("--sut-option", "how=os_exit3", "--sut-option", "only=d02"),
        ],
        cwd=project,
        # Added to PYTHONPATH, not replacing it: a mutated copy's evals must stay first.
        env={**os.environ, "PYTHONPATH": subprocess_pythonpath()},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (project / "reports" / "alpha.md").is_file()
    (folder,) = (project / "traces").iterdir()
    records = sorted(read_traces(folder), key=lambda r: (r.case_id, r.trial))
    failed = [(r.case_id, r.trial, r.run.error) for r in records if not r.success]
    died = "the worker process died (exit code 3)"
    assert failed == [("d02", 0, died), ("d02", 1, died)]
    assert len(records) == 2 * len(ALPHA)


def test_a_well_behaved_sut_gives_the_same_results_in_both_modes() -> None:
    suites = [FIXTURES / "cases" / "alpha.jsonl", FIXTURES / "cases" / "beta.jsonl"]
    reports = {
        mode: evals.evaluate(suites, "fake_suts:EchoSUT", trials=2, isolation=mode)
        for mode in ("none", "process")
    }

    def per_run(report: evals.Report) -> list[tuple[str, bool, str, list[str]]]:
        return [
            (r.label, r.success, r.outcome, [f"{c.name}:{c.passed}" for c in r.checks])
            for r in report.results
        ]

    local, isolated = per_run(reports["none"]), per_run(reports["process"])
    assert local == isolated
    assert len(local) == 18 and not all(success for _, success, _, _ in local)
    assert reports["process"].meta.isolation == "process"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory-limit", "512"], "--memory-limit limits worker processes"),
        (["--isolation", "threads"], "invalid choice: 'threads'"),
        (["--isolation", "process", "--memory-limit", "0"], "must be at least 1"),
    ],
)
def test_bad_isolation_flags_are_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_process_isolation_needs_the_sut_by_import_path() -> None:
    case_file = FIXTURES / "cases" / "alpha.jsonl"
    with pytest.raises(ValueError, match="pass it as 'module:attr'"):
        evals.evaluate(case_file, EchoSUT(), isolation="process")
    with pytest.raises(ValueError, match="needs isolation='process'"):
        evals.evaluate(case_file, EchoSUT(), memory_limit_mb=100)


def test_a_sut_no_worker_can_build_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It builds in the harness (how=none) but not in a worker: an option only the
    # worker's copy refuses would do too; a memory limit too small to import it is one.
    monkeypatch.chdir(make_project(tmp_path, "misbehaving_suts:MisbehavingSUT"))
    code = main(["run", "--suite", "alpha", "--isolation", "process", "--memory-limit", "1"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "in a worker process" in err
    assert len(err.strip().splitlines()) == 1


def test_a_hung_thread_is_a_timeout_listed_as_not_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sync SUT's thread cannot be killed: its run is a timeout, and the results say it
    # was still running when the evaluation ended; a run that finished is not listed.
    monkeypatch.setenv("FAKE_SUT_HANG", "d02")
    cases = load_cases([FIXTURES / "cases" / "alpha.jsonl"])
    outcome = Runner(fake_suts.HangingSUT(), timeout_s=0.2, concurrency=2).run(cases)
    assert outcome.complete
    assert outcome.unstopped == ("d02#0",)
    errors = [(r.label, r.error) for r in outcome.results if r.outcome == "sut_error"]
    assert errors == [("d02#0", "timed out after 0.2s")]


@pytest.mark.parametrize("mode", BOTH)
@pytest.mark.parametrize("target", ["baseline", "gate_config", "cases"])
def test_a_sut_that_rewrites_an_input_of_the_gate_never_gets_a_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    *, target: str, mode: str,
) -> None:  # fmt: skip
    project = make_project(tmp_path, "misbehaving_suts:MisbehavingSUT")
    monkeypatch.chdir(project)
    assert main(["baseline", "--suite", "alpha"]) == 0
    path = project / {"baseline": "reports/baseline.json", "gate_config": "cases/gate.json",
                      "cases": "cases/alpha.jsonl"}[target]  # fmt: skip
    before = path.read_bytes()
    capsys.readouterr()
    args = ["gate", "--suite", "alpha", "--isolation", mode, "--sut-option", f"how=tamper_{target}"]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert f"{path.relative_to(project)}: changed during the run; put back" in err, err
    assert "Gate: not judged (an input of the gate changed during the run)" in out
    assert "Gate: PASS" not in out and "Gate: FAIL" not in out
    assert path.read_bytes() == before  # nothing lost: the next gate reads what this one did
    assert main(["gate", "--suite", "alpha"]) == 0  # and passes, unchanged


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_only_the_run_that_held_the_loop_is_timed_out_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24: d02 blocks the one event loop past the limit while the four other runs
    are in flight, each waiting 0.6 s of its 1 s; they finish, d02 alone is timed out.
    Without giving them back the time d02 took, all five fail."""
    project = make_project(tmp_path, "misbehaving_suts:MisbehavingSUT")
    monkeypatch.chdir(project)
    args = ["run", "--suite", "alpha", "--timeout", TIMEOUT, "--concurrency", "5"]
    args += ["--sut-option", "how=block_loop", "--sut-option", "only=d02"]
    args += ["--sut-option", "others_wait_s=0.6"]
    assert main(args) == 0, capsys.readouterr().out
    report = json.loads((project / "reports" / "alpha.json").read_text(encoding="utf-8"))
    assert report["case_success"] == {case: case != "d02" for case in ALPHA}
    (folder,) = (project / "traces").iterdir()
    errors = {r.case_id: r.run.error for r in read_traces(folder) if r.run.error}
    assert list(errors) == ["d02"]
    assert "it blocked the event loop for" in str(errors["d02"])
