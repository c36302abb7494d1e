"""The code under test never holds the pen: a SUT that, when built, rewrites the gate's
verdict, forces exit status 0, or prints a verdict of its own, still fails `evals gate`
(the verdict is reached in a process that never built it: evals.cli.harness).

Positive control: the same SUT evaluated and judged in one process (the library path)
does rig its own verdict, so the attack is real."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli import harness  # noqa: E402
from evals.cli.main import main  # noqa: E402
from evals.errors import UsageError  # noqa: E402
from evals.log.traces import RunMeta  # noqa: E402
from helpers import make_project, subprocess_pythonpath  # noqa: E402

HOWS = ["verdict", "exit_zero", "both"]


def _project(tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(tmp_path, "rigging_suts:RiggingSUT")
    monkeypatch.chdir(project)
    monkeypatch.delenv("RIGGED", raising=False)
    args = ["baseline", "--suite", "alpha", "--sut-option", f"how={how}"]
    assert main(args) == 0  # a good SUT makes the baseline
    return project


LIBRARY_GATE = textwrap.dedent(
    """
    import sys
    import evals
    report = evals.evaluate(["cases/alpha.jsonl"], "rigging_suts:RiggingSUT",
                            sut_options={"how": sys.argv[1]})
    verdict = evals.gate(report, "reports/baseline.json", "cases/gate.json")
    print(verdict.render().splitlines()[0], report.metrics.success_rate)
    sys.exit(verdict.exit_code)
    """
)


@pytest.mark.parametrize("how", HOWS)
def test_the_attack_is_real_where_the_sut_is_built_in_the_judging_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    project = _project(tmp_path, how, monkeypatch)
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(), "RIGGED": "1"}
    done = subprocess.run(
        [sys.executable, "-c", LIBRARY_GATE, how],
        cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "0.0" in done.stdout  # every case failed ...
    assert done.returncode == 0, done.stdout + done.stderr  # ... and the process says 0
    if how != "exit_zero":
        assert "Gate: PASS" in done.stdout  # the verdict itself was rewritten


@pytest.mark.parametrize("how", HOWS)
def test_evals_gate_fails_a_sut_that_rigs_its_own_verdict(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
) -> None:
    _project(tmp_path, how, monkeypatch)
    capsys.readouterr()
    monkeypatch.setenv("RIGGED", "1")
    code = main(["gate", "--suite", "alpha", "--sut-option", f"how={how}"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    gate_lines = [line for line in out.splitlines() if line.startswith("Gate: ")]
    assert gate_lines and gate_lines[-1].startswith("Gate: FAIL"), out
    assert "Gate: PASS" not in out  # what the SUT printed never reaches stdout
    assert "success                   0/" in out


def test_evals_gate_still_passes_the_same_sut_unrigged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, "both", monkeypatch)
    assert main(["gate", "--suite", "alpha", "--sut-option", "how=both"]) == 0
    assert "Gate: PASS" in capsys.readouterr().out


def _meta(**changes: object) -> RunMeta:
    base = {"run_id": "r", "label": "gate", "command": "gate", "suites": ["alpha"],
            "case_files": [], "split": None, "tags": [], "exclude_tags": ["flaky"],
            "trials": 1}  # fmt: skip
    return RunMeta.model_validate({**base, **changes})


ASKED = harness.Asked(
    command="gate",
    label="gate", suites=["alpha"], case_files=[], split=None, tags=[],
    exclude_tags=["flaky"], trials=1,
)  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({}, None),
        ({"suites": ["beta"]}, "suites"),
        ({"label": "baseline"}, "label"),
        ({"exclude_tags": []}, "exclude_tags"),
        ({"tags": ["happy"]}, "tags"),
        ({"split": "dev"}, "split"),
        ({"trials": 3}, "trials"),
        ({"command": "run"}, "command"),
        ({"case_files": ["x.jsonl"]}, "case_files"),
    ],
)
def test_a_trace_must_record_the_evaluation_asked_for(
    changes: dict[str, object], field: str | None
) -> None:
    wrong = ASKED.differences(_meta(**changes))
    assert [w.split(":")[0] for w in wrong] == ([field] if field else [])


@pytest.mark.parametrize(
    ("name", "made", "before", "problem"),
    [
        ("20260101T000000Z-gate-abc123", True, set(), None),
        ("20260101T000000Z-gate-abc123", True, {"20260101T000000Z-gate-abc123"}, "existed"),
        ("../elsewhere", False, set(), "outside"),
        ("", False, set(), "outside"),
        ("missing", False, set(), "no folder"),
    ],
)
def test_only_a_trace_made_now_in_the_traces_folder_is_judged(
    tmp_path: Path, name: str, made: bool, before: set[str], problem: str | None
) -> None:
    if made:
        (tmp_path / name).mkdir()
    if problem is None:
        assert harness.the_new_trace(tmp_path, name, before) == tmp_path / name
    else:
        with pytest.raises(UsageError, match=problem):
            harness.the_new_trace(tmp_path, name, before)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"trace": "t1"}', harness.ChildSaid(trace="t1")),
        ('{"unbuildable": "no module x"}', harness.ChildSaid(unbuildable="no module x")),
        ('{"trace": "t1", "unbuildable": "x"}', None),
        ("{}", None),
        ('{"trace": 3}', None),
        ('{"trace": "t1", "verdict": "PASS"}', None),
        ("[]", None),
        ("not json", None),
    ],
)
def test_what_the_child_says_is_read_as_hostile_input(
    tmp_path: Path, text: str, said: harness.ChildSaid | None
) -> None:
    path = tmp_path / "result.json"
    path.write_text(text, encoding="utf-8")
    assert harness.read_result(path) == said
