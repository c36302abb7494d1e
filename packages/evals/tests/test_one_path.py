"""One path from Python and from the command line (issue 25, item 3), the way a new user
goes: a tiny SUT module of their own in a folder of their own (not this repository's, no
``pyproject.toml``, no ``gate.json``), the ``evals`` command run there and their own
scripts calling ``evals.evaluate``, ``evals.make_baseline`` and ``evals.gate``.

A baseline made by either route gates by the other (PASS), and a broken variant of the
SUT fails by both (the positive control); the SUT is named the same either way; old
baselines naming it by its bare class name still gate; without a ``gate.json`` the gate
applies the built-in rules and says so, and ``evals init`` writes them; ``--sut`` imports
modules of the working directory; ``progress`` takes ``True``/``False`` everywhere; a SUT
that cannot be loaded is one line, exit 2 (the pytest plugin: one usage error).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import evals
import fake_suts
from evals.cli.main import main
from evals.gating.rules import (
    DEFAULTS_HEADLINE,
    GateConfig,
    describe_defaults,
    load_gate_config,
    starter_gate_config,
)
from evals.gating.verdict import same_system
from evals.model.case import Case
from evals.model.run import Run
from evals.model.sut import FunctionSUT, sut_name
from helpers import subprocess_pythonpath

FIXTURE_CASES = Path(__file__).parent / "fixtures" / "cases" / "alpha.jsonl"

SUT_MODULE = '''\
"""A refund desk: the smallest system under test of a project that is not this one."""

from evals.checks import Case, Run


class RefundSUT:
    """Refunds every order{note}."""

    def run(self, case: Case, trial: int) -> Run:
        outcome = {outcome}
        return Run(case_id=case.id, trial=trial, outcome=outcome, reply="Refund sent.")


NOT_A_SUT = 42


class Ledger:
    """A class of the user's that is no SUT, with a constructor that wants arguments."""

    def __init__(self, orders, limit):
        self.orders, self.limit = orders, limit
'''
GOOD = {"note": "", "outcome": '"refunded"'}
BROKEN = {"note": " but r2's", "outcome": '"refunded" if case.id != "r2" else "lost"'}

CASES = "".join(
    json.dumps(
        {
            "id": i,
            "split": "test",
            "tags": ["refund"],
            "input": {"order": i},
            "expect": {"outcome": "refunded"},
        }
    )
    + "\n"
    for i in ("r1", "r2")
)

MAKE_BASELINE = """\
import evals
from evals.gating.baseline import write_baseline
from refund_sut import RefundSUT

report = evals.evaluate("cases.jsonl", RefundSUT(), progress=False)
write_baseline("reports/baseline.json", evals.make_baseline(report))
"""

GATE = """\
import evals
from refund_sut import RefundSUT

report = evals.evaluate("cases.jsonl", RefundSUT(), progress=True)
verdict = evals.gate(report, "reports/baseline.json")
print(verdict.render())
raise SystemExit(verdict.exit_code)
"""

INSTALLED = Path(sys.executable).with_name("evals")
EVALS = [str(INSTALLED)] if INSTALLED.is_file() else [sys.executable, "-P", "-m", "evals"]
"""The installed ``evals`` command (``-P``: as that command, the working directory is not
on ``sys.path`` unless the CLI puts it there)."""
SPEC = "refund_sut:RefundSUT"


@dataclass
class Folder:
    """A user's folder: ``refund_sut.py``, ``cases.jsonl``, scripts; the working directory."""

    path: Path

    def write_sut(self, *, broken: bool = False) -> None:
        text = SUT_MODULE.format(**(BROKEN if broken else GOOD))
        (self.path / "refund_sut.py").write_text(text, encoding="utf-8")

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """A command in this folder, as the user types it (``evals …`` or ``python x.py``)."""
        env = {
            **os.environ,
            "PYTHONPATH": subprocess_pythonpath(),  # never this folder
            "PYTHONDONTWRITEBYTECODE": "1",  # a rewritten module is read again
        }
        return subprocess.run(
            list(argv),
            cwd=self.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def evals(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(*EVALS, *args)

    def python(self, script: str) -> subprocess.CompletedProcess[str]:
        (self.path / "script.py").write_text(script, encoding="utf-8")
        return self.run(sys.executable, "script.py")

    def make_baseline(self, route: str) -> None:
        if route == "python":
            done = self.python(MAKE_BASELINE)
        else:
            done = self.evals("baseline", "--sut", SPEC, "--cases", "cases.jsonl")
        assert done.returncode == 0, done.stderr

    def gate(self, route: str) -> subprocess.CompletedProcess[str]:
        if route == "python":
            return self.python(GATE)
        return self.evals("gate", "--sut", SPEC, "--cases", "cases.jsonl")

    def baseline(self) -> dict[str, object]:
        data: dict[str, object] = json.loads(
            (self.path / "reports" / "baseline.json").read_text(encoding="utf-8")
        )
        return data


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Folder]:
    """The user's folder as the working directory; this process's import state (which
    in-process ``main`` calls change) is put back afterwards."""
    folder = Folder(tmp_path / "refunds")
    folder.path.mkdir()
    folder.write_sut()
    (folder.path / "cases.jsonl").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(folder.path)
    here = {"", ".", str(folder.path)}
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in here])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    yield folder
    sys.modules.pop("refund_sut", None)


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- a baseline made by one route gates by the other ------------------------------------


@pytest.mark.parametrize(
    ("made_by", "gated_by", "broken", "passed"),
    [
        ("python", "cli", False, True),
        ("cli", "python", False, True),
        ("python", "python", False, True),
        ("cli", "cli", False, True),
        ("python", "cli", True, False),  # the positive controls: a broken SUT fails
        ("cli", "python", True, False),
    ],
)
def test_a_baseline_made_by_either_route_gates_by_the_other(
    user: Folder, made_by: str, gated_by: str, broken: bool, passed: bool
) -> None:
    user.make_baseline(made_by)
    assert user.baseline()["sut"] == SPEC  # the same name, whichever route made it
    if broken:
        user.write_sut(broken=True)
    done = user.gate(gated_by)
    assert done.returncode == (0 if passed else 1), done.stdout + done.stderr
    if passed:
        assert "Gate: PASS (0 hard, 0 soft)" in done.stdout
    else:
        assert "Gate: FAIL (" in done.stdout
        assert "Pass -> fail: r2" in done.stdout
        assert "another run" not in done.stdout  # a regression, not another SUT
    # No gate.json anywhere: the built-in rules, and the verdict says so.
    assert DEFAULTS_HEADLINE in done.stdout
    assert "  hard: unauthorized_rate_max=0.0, must_pass_success_min=1.0" in done.stdout


@pytest.mark.parametrize(
    ("recorded", "passed", "words"),
    [
        ("RefundSUT", True, None),  # how a baseline made from Python named it before
        ("refund_sut:RefundSUT", True, None),
        ("OtherSUT", False, "regenerate it with `evals baseline`"),
        ("other_module:RefundSUT", False, "SUT 'refund_sut:RefundSUT', the baseline's"),
    ],
)
def test_an_old_baseline_naming_the_bare_class_still_gates(
    user: Folder, recorded: str, passed: bool, words: str | None
) -> None:
    user.make_baseline("python")
    path = user.path / "reports" / "baseline.json"
    path.write_text(json.dumps({**user.baseline(), "sut": recorded}), encoding="utf-8")
    done = user.gate("cli")
    assert done.returncode == (0 if passed else 1), done.stdout + done.stderr
    if passed:
        assert "Gate: PASS (0 hard, 0 soft)" in done.stdout
    else:
        assert "Gate: FAIL (1 hard, 0 soft)" in done.stdout
        assert words is not None and words in done.stdout


@pytest.mark.parametrize(
    ("baseline", "now", "same"),
    [
        ("refund_sut:RefundSUT", "refund_sut:RefundSUT", True),
        ("RefundSUT", "refund_sut:RefundSUT", True),
        ("refund_sut:RefundSUT", "RefundSUT", True),
        ("task", "grade:evaluate.<locals>.task", True),  # examples/own_agent's baseline
        ("RefundSUT", "refund_sut:RefundSUT (mood=x)", True),  # options aside
        ("OtherSUT", "refund_sut:RefundSUT", False),
        ("other_module:RefundSUT", "refund_sut:RefundSUT", False),
        ("refund_sut:make", "refund_sut:RefundSUT", False),
    ],
)
def test_same_system(baseline: str, now: str, same: bool) -> None:
    assert same_system(baseline, now) is same


# --- the SUT's name, from Python as on the command line -----------------------------------


class Desk:
    """A SUT class."""

    class Inner:
        """A nested one."""

        def run(self, case: Case, trial: int) -> Run:
            return Run(case_id=case.id, trial=trial, outcome="replied")

    def run(self, case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="replied")


def answer(case: Case, trial: int) -> Run:
    """A plain function as SUT."""
    return Run(case_id=case.id, trial=trial, outcome="replied")


async def async_answer(case: Case, trial: int) -> Run:
    """A coroutine function as SUT."""
    return answer(case, trial)


@pytest.mark.parametrize(
    ("target", "name"),
    [
        (Desk(), f"{__name__}:Desk"),
        (Desk.Inner(), f"{__name__}:Desk.Inner"),
        (answer, f"{__name__}:answer"),
        (async_answer, f"{__name__}:async_answer"),
        (FunctionSUT(answer), f"{__name__}:answer"),
        (Desk().run, f"{__name__}:Desk.run"),
        (fake_suts.EchoSUT(), "fake_suts:EchoSUT"),
    ],
)
def test_a_sut_is_named_by_its_import_path(target: object, name: str) -> None:
    assert sut_name(target) == name


SCRIPT = """\
import evals
from evals.checks import Case, Run


class Desk:
    def run(self, case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="refunded")


if __name__ == "__main__":
    print(evals.evaluate("cases.jsonl", Desk(), progress=False).meta.sut)
"""


@pytest.mark.parametrize(
    "how",
    [
        ["desk.py"],  # python desk.py
        ["-m", "desk"],  # python -m desk
    ],
)
def test_a_sut_of_the_script_run_is_named_as_that_module(user: Folder, how: list[str]) -> None:
    (user.path / "desk.py").write_text(SCRIPT, encoding="utf-8")
    done = user.run(sys.executable, *how)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "desk:Desk"  # as `--sut desk:Desk` names it here


def test_a_module_attr_string_is_named_with_its_options_as_the_cli_names_it() -> None:
    report = evals.evaluate(
        FIXTURE_CASES, "fake_suts:OptionsSUT", sut_options={"mood": "x"}, progress=False
    )
    assert report.meta.sut == "fake_suts:OptionsSUT (mood=x)"


# --- the working directory on sys.path for --sut -----------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--sut", SPEC, "--cases", "cases.jsonl"],
        ["run", "--sut", SPEC, "--cases", "cases.jsonl", "--isolation", "process"],
        ["lint", "--sut", SPEC, "--cases", "cases.jsonl", "--min-split-size", "0"],
        ["stability", "--sut", SPEC, "--cases", "cases.jsonl", "--tag", "refund"],
    ],
)
def test_sut_imports_a_module_of_the_working_directory(user: Folder, argv: list[str]) -> None:
    done = user.evals(*argv)
    assert done.returncode == 0, done.stderr


def test_main_in_this_process_imports_it_too(user: Folder) -> None:
    assert main(["run", "--sut", SPEC, "--cases", "cases.jsonl", "--label", "mine"]) == 0
    assert json.loads((user.path / "reports" / "mine.json").read_text())["success_rate"] == 1.0


# --- the gate's rules without a gate.json; evals init --------------------------------------


@pytest.mark.parametrize(
    ("setup", "code", "written", "snippet"),
    [
        ("nothing", 0, "cases/gate.json", True),
        ("pyproject", 0, "suites/gate.json", False),  # [tool.evals] cases_dir = "suites"
        ("flag", 0, "rules/gate.json", True),  # --gate-config rules/gate.json
        ("exists", 2, "cases/gate.json", False),
        ("link", 2, "cases/gate.json", False),  # a dangling link is not overwritten either
    ],
)
def test_init_writes_the_built_in_rules_and_never_overwrites(
    user: Folder,
    capsys: pytest.CaptureFixture[str],
    *,
    setup: str,
    code: int,
    written: str,
    snippet: bool,
) -> None:
    path = user.path / written
    argv = ["init"]
    if setup == "pyproject":
        (user.path / "pyproject.toml").write_text('[tool.evals]\ncases_dir = "suites"\n')
    elif setup == "flag":
        argv += ["--gate-config", "rules/gate.json"]
    elif setup == "exists":
        path.parent.mkdir()
        path.write_text("{}", encoding="utf-8")
    elif setup == "link":
        path.parent.mkdir()
        path.symlink_to(user.path / "nowhere.json")
    assert main(argv) == code
    out, err = capsys.readouterr()
    if code == 2:
        assert _one_error_line(err) == (
            f"evals: error: {written!r} exists already: not overwritten (edit it instead)"
        )
        assert not (user.path / "nowhere.json").exists()
        assert setup == "link" or path.read_text(encoding="utf-8") == "{}"
        return
    assert load_gate_config(path) == GateConfig()  # the built-in rules, every one
    assert out.startswith(f"wrote {written}: the gate's built-in rules")
    assert ("[tool.evals]\nsut = " in out) is snippet


LENIENT = {"newly_failing_cases_max": 1, "newly_failing_checks_max": {"outcome": 1}}
"""Rules of a ``gate.json`` that let one newly failing case (and its outcome check) pass."""


@pytest.mark.parametrize("route", ["cli", "python"])
@pytest.mark.parametrize(
    ("gate_json", "broken", "code", "defaults"),
    [
        ("none", False, 0, True),  # the built-in rules, and the verdict says so
        ("none", True, 1, True),
        ("init", True, 1, False),  # the same rules, from the file `evals init` wrote
        ("lenient", True, 0, False),  # a file that says otherwise is what applies
        ("missing flag", False, 2, False),  # --gate-config naming nothing: one line, exit 2
    ],
)
def test_the_gate_applies_gate_json_else_the_built_in_rules(
    user: Folder, gate_json: str, broken: bool, code: int, *, defaults: bool, route: str
) -> None:
    """From the CLI and from ``evals.gate`` alike (a newcomer's gate.json was ignored by
    ``evals.gate``, whose verdict said "no gate.json")."""
    if route == "python" and gate_json == "missing flag":
        pytest.skip("--gate-config is the CLI's; evals.gate takes the file itself")
    user.make_baseline("cli")
    if gate_json in ("init", "lenient"):
        assert user.evals("init").returncode == 0
    if gate_json == "lenient":
        path = user.path / "cases" / "gate.json"
        rules = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**rules, "hard": {**rules["hard"], **LENIENT}}))
    if broken:
        user.write_sut(broken=True)
    if route == "python":
        done = user.gate("python")
        assert done.returncode == code, done.stdout + done.stderr
        assert (DEFAULTS_HEADLINE in done.stdout) is defaults
        return
    argv = ["gate", "--sut", SPEC, "--cases", "cases.jsonl"]
    if gate_json == "missing flag":
        argv += ["--gate-config", "nowhere.json"]
    done = user.evals(*argv)
    assert done.returncode == code, done.stdout + done.stderr
    assert (DEFAULTS_HEADLINE in done.stdout) is defaults
    assert ("note: no 'cases/gate.json'" in done.stderr) is defaults
    if code == 2:
        assert "nowhere.json" in _one_error_line(done.stderr)


# --- progress=True/False in every Python entry point ---------------------------------------


class Terminal(io.StringIO):
    """A stream that says it is a terminal: the progress line is drawn on it."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("progress", "drawn"),
    [
        (False, False),
        (None, False),
        (True, True),  # standard error, here a terminal
        ("terminal", True),
        ("file", False),  # not a terminal: no line
    ],
)
def test_progress_true_or_false_works_in_evaluate_execute_make_baseline_and_gate(
    monkeypatch: pytest.MonkeyPatch, progress: object, drawn: bool
) -> None:
    stderr = Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    given = {"terminal": stderr, "file": io.StringIO()}.get(str(progress), progress)
    report = evals.evaluate(FIXTURE_CASES, fake_suts.EchoSUT(), progress=given)  # type: ignore[arg-type]
    again = evals.execute(evals.plan(FIXTURE_CASES, fake_suts.EchoSUT()), progress=given)  # type: ignore[arg-type]
    baseline = evals.make_baseline(report)
    assert evals.gate(again, baseline).passed
    assert ("runs," in stderr.getvalue()) is drawn


def test_progress_of_another_type_is_one_line() -> None:
    with pytest.raises(TypeError, match=r"^progress must be a stream, True or False, not int$"):
        evals.evaluate(FIXTURE_CASES, fake_suts.EchoSUT(), progress=1)  # type: ignore[arg-type]


# --- a SUT that cannot be loaded: one line, exit 2 ------------------------------------------


BAD_SUTS = [
    ("nosuch_module:RefundSUT", "cannot import 'nosuch_module'"),
    ("refund_sut:Nope", "'refund_sut' has no attribute 'Nope'"),
    ("refund_sut:NOT_A_SUT", "int has no run(case, trial) method"),
    # Named before it is built (a newcomer got the constructor's missing arguments).
    ("refund_sut:Ledger", "Ledger has no run(case, trial) method"),
]


@pytest.mark.parametrize("command", ["run", "gate", "baseline", "lint", "stability"])
@pytest.mark.parametrize(("spec", "why"), BAD_SUTS)
def test_a_sut_that_cannot_be_loaded_is_one_line_exit_2(
    user: Folder, command: str, spec: str, why: str
) -> None:
    if command == "gate":
        user.make_baseline("python")
    done = user.evals(command, "--sut", spec, "--cases", "cases.jsonl")
    assert done.returncode == 2, done.stdout + done.stderr
    line = _one_error_line(done.stderr)
    assert line.startswith(f"evals: error: cannot load SUT {spec!r}: ") and why in line


@pytest.mark.parametrize(("spec", "why"), BAD_SUTS)
def test_a_wrong_evals_sut_is_one_pytest_usage_error(user: Folder, spec: str, why: str) -> None:
    done = user.run(
        sys.executable, "-m", "pytest", "cases.jsonl", "--evals-sut", spec, "-p", "no:cacheprovider"
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "INTERNALERROR" not in done.stdout + done.stderr
    line = _one_error_line(done.stderr)
    assert line.startswith(f"ERROR: --evals-sut: cannot load SUT {spec!r}: ") and why in line


def test_a_wrong_tool_evals_sut_under_evals_is_one_pytest_usage_error(user: Folder) -> None:
    (user.path / "pyproject.toml").write_text('[tool.evals]\nsut = "refund_sut:Nope"\n')
    done = user.run(
        sys.executable, "-m", "pytest", "cases.jsonl", "--evals", "-p", "no:cacheprovider"
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    line = _one_error_line(done.stderr)
    assert line == (
        "ERROR: [tool.evals] sut: cannot load SUT 'refund_sut:Nope':"
        " 'refund_sut' has no attribute 'Nope'"
    )


# --- the docs say what the code does ------------------------------------------------------

GATE_MD = Path(__file__).resolve().parents[3] / "docs" / "gate.md"


def test_docs_gate_md_shows_the_verdict_lines_of_the_built_in_rules() -> None:
    doc = GATE_MD.read_text(encoding="utf-8")
    assert "\n".join(describe_defaults()) in doc


def test_docs_gate_md_explains_the_very_file_evals_init_writes() -> None:
    doc = GATE_MD.read_text(encoding="utf-8")
    shown = doc.split("what each key means:\n\n```\n", 1)[1]
    shown = shown.split("```", 1)[0]
    # Each line less its explanation (after three spaces or more) is the file's line.
    assert re.sub(r"(?<=\S) {3,}\S.*$", "", shown, flags=re.MULTILINE) == starter_gate_config()


PYTEST = Path(sys.executable).with_name("pytest")


@pytest.mark.skipif(not PYTEST.is_file(), reason="needs the installed pytest command")
@pytest.mark.parametrize("broken", [False, True], ids=["good", "broken"])
def test_plain_pytest_imports_the_sut_from_the_folder_it_was_started_in(
    user: Folder, broken: bool
) -> None:
    """Bug found by a newcomer: `pytest cases.jsonl --evals-sut refund_sut:RefundSUT`, as
    the docs write it, could not import refund_sut.py (only `python -m pytest` could)."""
    user.write_sut(broken=broken)
    done = user.run(str(PYTEST), "cases.jsonl", "--evals-sut", SPEC, "-p", "no:cacheprovider", "-q")
    assert "cannot import" not in done.stdout + done.stderr
    wanted = pytest.ExitCode.TESTS_FAILED if broken else pytest.ExitCode.OK
    assert done.returncode == wanted, done.stdout + done.stderr


@pytest.mark.parametrize("route", ["python", "cli"])
def test_both_routes_leave_flaky_cases_out_of_the_baseline(user: Folder, route: str) -> None:
    """Bug found by a newcomer: evals.make_baseline kept a flaky-tagged case that
    `evals baseline` left out, so the CLI gate listed it "in the baseline, not run"."""
    flaky = {"id": "f1", "split": "test", "tags": ["flaky"], "input": {"order": "f1"}}
    flaky["expect"] = {"outcome": "refunded"}
    with (user.path / "cases.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(flaky) + "\n")
    user.make_baseline(route)
    held = json.dumps(user.baseline())
    assert '"r1"' in held and '"f1"' not in held
