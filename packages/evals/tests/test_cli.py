"""The command line, in-process: exit codes, reports, baseline, gate, broken case files."""

from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli.main import main  # noqa: E402
from evals.log.traces import read_meta, read_traces  # noqa: E402
from helpers import subprocess_pythonpath  # noqa: E402

GOOD = json.dumps(
    {
        "id": "x01",
        "split": "dev",
        "tags": ["happy"],
        "input": {"goal": "包裹没到", "order_id": "A1"},
        "expect": {"outcome": "ask_user", "dispatched": []},
    },
    ensure_ascii=False,
)


def _trace_folders(root: Path) -> list[Path]:
    return sorted(p for p in (root / "traces").iterdir() if p.is_dir())


def test_run_writes_reports_and_traces(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--concurrency", "3"]) == 0
    out = capsys.readouterr().out
    assert "suites: alpha, beta" in out and "SUT: fake_suts:EchoSUT" in out
    assert (
        "r04#0 (flaky: not gated; see evals stability): outcome: expected outcome 'replied',"
        " got 'escalate'"
    ) in out
    data = json.loads((project / "reports" / "alpha-beta.json").read_text(encoding="utf-8"))
    assert data["runs"] == 9 and data["successes"] == 8
    assert data["meta"]["complete"] is True
    junit = ET.parse(project / "reports" / "alpha-beta.junit.xml").getroot()
    failed = [c.get("name") for c in junit.iter("testcase") if c.find("failure") is not None]
    assert failed == ["r04#0: outcome", "r04#0: tickets"]  # 9 runs, 2 failed checks
    assert junit.get("tests") == "11" and junit.get("failures") == "2"
    assert (project / "reports" / "alpha-beta.md").is_file()
    (folder,) = _trace_folders(project)
    assert len(list(read_traces(folder))) == 9
    assert read_meta(folder).complete is True


@pytest.mark.parametrize(
    ("args", "runs"),
    [
        (["--suite", "alpha"], 5),
        (["--suite", "beta", "--split", "regression"], 3),
        (["--tag", "must_pass", "--trials", "2"], 6),
        (["--exclude-tag", "flaky", "--exclude-tag", "must_pass"], 5),
        (["--cases", "cases/alpha.jsonl", "--tag", "happy"], 2),
    ],
)
def test_run_selection(project: Path, args: list[str], runs: int) -> None:
    assert main(["run", "--label", "sel", *args]) == 0
    data = json.loads((project / "reports" / "sel.json").read_text(encoding="utf-8"))
    assert data["runs"] == runs


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["run", "--suite", "nope"], "unknown suite 'nope'"),
        (["run", "--sut", "fake_suts:NoRun"], "NoRun has no run(case, trial) method"),
        (["run", "--sut", "nowhere_xyz:SUT"], "cannot import 'nowhere_xyz'"),
        (["run", "--tag", "no-such-tag"], "no cases selected"),
        (["run", "--label", "baseline"], "would overwrite the baseline"),
        (["gate"], "no baseline; create it with `evals baseline`"),
        (["report", "reports/missing.json"], "no such report"),
        (["run", "--trials", "0"], "must be at least 1, got '0'"),
        # Found by a newcomer: -1 said "must not be negative", 0 "must be at least 1".
        (["run", "--trials", "-1"], "must be at least 1, got '-1'"),
        (["run", "--concurrency", "-2"], "must be at least 1, got '-2'"),
        (["run", "--timeout", "-1"], "must be positive"),
        # Bug found by hand: this said "no cases selected", though alpha has cases.
        (
            ["stability", "--suite", "alpha"],
            "no flaky-tagged cases among the selected cases (stability runs only cases tagged",
        ),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_without_traceback(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err


def test_no_sut_configured_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text("[tool.evals]\n", encoding="utf-8")
    assert main(["run"]) == 2
    assert "no SUT" in capsys.readouterr().err


BROKEN = {
    "bad_json": (GOOD + "\n" + '{"id": "x02", "split": ', 2, "bad JSON"),
    "missing_field": (GOOD.replace('"split": "dev", ', ""), 1, "split: missing required field"),
    "wrong_type": (GOOD.replace('"tags": ["happy"]', '"tags": "happy"'), 1, "tags: expected array"),
    "unknown_split": (GOOD.replace('"dev"', '"train"'), 1, "unknown split 'train'"),
    "unknown_outcome": (GOOD.replace('"ask_user"', '"shrug"'), 1, "unknown outcome 'shrug'"),
    "unknown_fault": (
        GOOD.replace('"expect"', '"faults": {"order_agent": "Explode"}, "expect"'),
        1,
        "unknown fault kind 'Explode'",
    ),
    "unknown_field": (
        GOOD.replace('"title"', '"titel"').replace("{", '{"colour": 1, ', 1),
        1,
        "colour",
    ),
    "duplicate_id": (GOOD + "\n" + GOOD, 2, "duplicate id 'x01'"),
    "empty_file": ("# only a comment\n\n", 0, "no cases in file"),
    "not_utf8": (None, 1, "not UTF-8"),
    "not_an_object": ("[1, 2, 3]", 1, "expected a JSON object"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_case_files_give_one_line_naming_file_and_line(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    text, line, fragment = BROKEN[kind]
    path = project / f"{kind}.jsonl"
    if text is None:
        path.write_bytes(GOOD.replace("包裹没到", "??").encode("utf-8").replace(b"??", b"\xff\xfe"))
    else:
        path.write_text(text + "\n", encoding="utf-8")
    assert main(["run", "--cases", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{path}:{line}: ")
    assert fragment in lines[0]
    assert "Traceback" not in captured.err
    assert not (project / "traces").exists()  # validated whole before any run


def test_broken_case_file_in_a_subprocess_has_no_traceback(project: Path) -> None:
    bad = project / "bad.jsonl"
    bad.write_text(GOOD.replace('"dev"', '"train"') + "\n", encoding="utf-8")
    env = {"PYTHONPATH": subprocess_pythonpath(), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "evals", "run", "--cases", str(bad)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"{bad}:1: split: unknown split 'train'; expected one of 'dev', 'test', 'regression'"
    )


def test_lint_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted((project / "cases").glob("*.jsonl"))
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    cases = sum(1 for line in lines if line.strip() and not line.startswith("#"))
    assert main(["lint"]) == 0
    ok = f"lint: {cases} case(s) in {len(files)} file(s): no problems found"
    assert capsys.readouterr().err.strip() == ok
    # A split the SUT's vocabulary does not know (SupportPilot's own rules, such as
    # ``contradiction``, are tested with SupportPilot in the agent package).
    staging = GOOD.replace('"dev"', '"staging"')
    (project / "cases" / "gamma.jsonl").write_text(staging + "\n", encoding="utf-8")
    assert main(["lint"]) == 1
    out, err = capsys.readouterr()
    assert "case 'x01': unknown_split: unknown split 'staging'" in out
    assert f"lint: {cases + 1} case(s) in {len(files) + 1} file(s): 1 finding(s)" in err


@pytest.mark.parametrize(
    ("fault_targets", "exit_code"),
    [("", 1), ('fault_targets = ["outbox"]\n', 0)],
)
def test_lint_knows_the_configured_fault_targets(
    project: Path, capsys: pytest.CaptureFixture[str], fault_targets: str, exit_code: int
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + fault_targets, encoding="utf-8")
    case = json.loads(GOOD)
    case["faults"] = {"outbox": "lost_ack"}
    line = json.dumps(case, ensure_ascii=False)
    (project / "cases" / "gamma.jsonl").write_text(line + "\n", encoding="utf-8")
    assert main(["lint"]) == exit_code
    out = capsys.readouterr().out
    assert ("fault on unknown role 'outbox'" in out) is (exit_code == 1)


def test_baseline_then_gate_without_change_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline"]) == 0
    baseline = json.loads((project / "reports" / "baseline.json").read_text(encoding="utf-8"))
    assert baseline["case_success"] == {
        c: True for c in ["d01", "d02", "d03", "r01", "r02", "t01", "t02", "t03"]
    }  # every gated case, r04 (flaky) left out
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert said.endswith("(8 cases, 8 runs, success 100.0%)")
    assert main(["gate"]) == 0
    out = capsys.readouterr().out
    assert "Gate: PASS (0 hard, 0 soft)" in out
    assert out.index("Evals report: gate") < out.index("Gate: PASS")  # report, then verdict
    summary = (project / "reports" / "gate.md").read_text(encoding="utf-8")
    assert "### Gate verdict" in summary and "Gate: PASS (0 hard, 0 soft)" in summary
    gate_trace = next(p for p in _trace_folders(project) if "-gate-" in p.name)
    assert "r04" not in {r.case_id for r in read_traces(gate_trace)}  # flaky not even run


GATE_SCENARIOS = [
    (
        {"FAKE_SUT_FAIL": "r01"},
        [],
        1,
        [
            "Gate: FAIL (4 hard, 1 soft)",
            "1 case newly failing: r01",
            "outcome checks newly failing: r01: outcome",
            "Pass -> fail: r01",
        ],
    ),
    (
        {"FAKE_SUT_UNAUTHORIZED": "d03"},
        [],
        1,
        ["unauthorized rate 12.5% > 0% (cases: d03)", "Pass -> fail: d03"],
    ),
    ({"FAKE_SUT_CHARS": "500"}, [], 0, ["Gate: PASS (0 hard, 1 soft)", "(100 -> 500)"]),
    ({"FAKE_SUT_CHARS": "500"}, ["--strict"], 1, ["Gate: FAIL (0 hard, 1 soft, strict)"]),
    # A SUT whose check_case hook raises failed on that case: a failure, not exit 2.
    (
        {"FAKE_SUT_HOOK_FAIL": "d02"},
        ["--sut", "fake_suts:HookFailingSUT"],
        1,
        ["1 case newly failing: d02", "check_case raised IndexError: list index out of range"],
    ),
    # A SUT that refuses a case the baseline ran unchanged broke its own validation:
    # the case fails and the gate names it (the case file did not move; no exit 2).
    (
        {"FAKE_SUT_REFUSE": "d02"},
        ["--sut", "fake_suts:RefusingSUT"],
        1,
        [
            "1 case newly failing: d02",
            "the SUT refuses this case, unchanged since the baseline ran it:"
            " faults.order_agent: unknown fault 'lost_ack'",
        ],
    ),
    ({"FAKE_SUT_ERROR": "t02"}, [], 1, ["results incomplete: 1 run errored"]),
    ({"FAKE_SUT_ERROR": "t02"}, ["--max-errors", "1"], 0, ["Gate: PASS"]),
    # Bug found by hand: a provider outage added soft findings "-100.0 points".
    (
        {"FAKE_SUT_ERROR": "d01,d02,d03,r01,r02,t01,t02,t03"},
        [],
        1,
        ["Gate: FAIL (1 hard, 0 soft)", "results incomplete: 8 runs errored", "0/0 = n/a"],
    ),
]
"""(environment steering the fake SUT, gate arguments, exit code, verdict fragments)"""


@pytest.mark.parametrize("scenario", GATE_SCENARIOS)
def test_gate_verdicts_and_exit_codes(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    scenario: tuple[dict[str, str], list[str], int, list[str]],
) -> None:
    env, args, code, fragments = scenario
    assert main(["baseline"]) == 0
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    assert main(["gate", *args]) == code
    out = capsys.readouterr().out
    for fragment in fragments:
        assert fragment in out


@pytest.mark.parametrize(
    ("change", "command"),
    [
        ("edit", "gate"),  # the case changed since the baseline: the case file is to blame
        ("new", "gate"),  # a case added since the baseline: nothing to compare with
        ("none", "run"),  # not a gate: `evals run` has no baseline
    ],
)
def test_a_refused_case_is_the_case_files_problem_unless_the_baseline_ran_it_unchanged(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    change: str,
    command: str,
) -> None:
    assert main(["baseline"]) == 0
    path = next(p for p in (project / "cases").glob("*.jsonl") if '"d02"' in p.read_text())
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"d02"' in line)
    case = json.loads(lines[at])
    if change == "edit":
        case["title"] = case.get("title", "") + " (edited)"
        lines[at] = json.dumps(case, ensure_ascii=False)
    elif change == "new":
        lines.append(json.dumps({**case, "id": "d99"}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("FAKE_SUT_REFUSE", "d99" if change == "new" else "d02")
    capsys.readouterr()
    assert main([command, "--sut", "fake_suts:RefusingSUT"]) == 2
    err = capsys.readouterr().err
    assert "faults.order_agent: unknown fault 'lost_ack'" in err and ".jsonl:" in err


def test_baseline_is_not_written_when_runs_errored(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_SUT_ERROR", "d01")
    assert main(["baseline"]) == 1
    assert not (project / "reports" / "baseline.json").exists()
    assert "1 run(s) errored" in capsys.readouterr().err


def test_stability_runs_flaky_cases_k_times(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stability"]) == 0
    out = capsys.readouterr().out
    assert "pass@5 / pass^5" in out
    assert "100.0% / 0.0%" in out
    assert "4/5 = 80.0%" in out
    # The pass^k curve of the one unstable case (4 of 5): C(4,k)/C(5,k) for k = 1..5.
    assert "80.0% 60.0% 40.0% 20.0% 0.0%" in out
    markdown = (project / "reports" / "stability.md").read_text(encoding="utf-8")
    assert "| pass^k" in markdown and "80.0% 60.0% 40.0% 20.0% 0.0%" in markdown
    assert "not gated" not in out  # measuring those cases is what stability is for
    data = json.loads((project / "reports" / "stability.json").read_text(encoding="utf-8"))
    assert data["cases"] == 1 and data["runs"] == 5


def test_report_re_renders_a_metrics_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--suite", "beta"]) == 0
    first = capsys.readouterr().out
    assert "r04#0 (flaky: not gated; see evals stability)" in first
    assert main(["report", "reports/beta.json"]) == 0
    assert capsys.readouterr().out.strip() == first.strip()


def test_judge_without_the_judge_package_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)
    assert main(["judge", "calibrate"]) == 2
    assert "install supportpilot-judge" in capsys.readouterr().err


def test_judge_delegates_its_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[str], str]] = []
    package = types.ModuleType("judge")
    package.__spec__ = importlib.machinery.ModuleSpec("judge", None, is_package=True)
    package.__path__ = []
    cli = types.ModuleType("judge.cli")
    cli.main = lambda args, prog: seen.append((list(args), prog)) or 7  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "judge", package)
    monkeypatch.setitem(sys.modules, "judge.cli", cli)
    assert main(["judge", "--judge", "rule", "--split", "tune"]) == 7
    # usage lines then read "evals judge", not "judge"
    assert seen == [(["--judge", "rule", "--split", "tune"], "evals judge")]


def test_python_dash_m_evals_works() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evals", "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    for command in ("lint", "run", "baseline", "gate", "stability", "report", "judge"):
        assert command in proc.stdout


def test_sut_options_reach_the_sut_and_name_it_in_reports(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--sut", "fake_suts:OptionsSUT", "--label", "opts"]
    args += ["--sut-option", "flavour=hot", "--sut-option", "api_key=s3cret"]
    args += ["--sut-option", "tokens=40"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "SUT: fake_suts:OptionsSUT (flavour=hot, api_key=***, tokens=40)" in out
    assert "s3cret" not in out
    assert "tokens mean / p95" in out and "40.0 / 40" in out
    (folder,) = _trace_folders(project)
    options = {r.run.detail["options"]["flavour"] for r in read_traces(folder)}
    assert options == {"hot"}
    data = json.loads((project / "reports" / "opts.json").read_text(encoding="utf-8"))
    assert "s3cret" not in json.dumps(data)


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        ("flavour", "expected KEY=VALUE"),
        ("colour=red", "unexpected keyword argument 'colour'"),
    ],
)
def test_bad_sut_options_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], option: str, fragment: str
) -> None:
    assert main(["run", "--sut", "fake_suts:make_options_sut", "--sut-option", option]) == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize("label", ["a/b", "../../etc/x", ".hidden", "a b", "", "x\\y"])
def test_a_label_that_is_not_a_plain_file_name_is_refused_before_any_run(
    project: Path, capsys: pytest.CaptureFixture[str], label: str
) -> None:
    # Bug found by hand: `--label a/b` gave a traceback after every run had finished.
    assert main(["run", "--label", label]) == 2
    err = capsys.readouterr().err
    assert "argument --label: must be a file name of letters, digits" in err
    assert "Traceback" not in err
    assert not (project / "traces").exists()


def _errors(capsys: pytest.CaptureFixture[str]) -> list[str]:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()


@pytest.mark.parametrize(
    ("option", "folder", "what"),
    [
        ("--out", "blocker/reports", "reports"),
        ("--traces", "blocker/traces", "traces"),
        ("--out", "blocker", "reports"),  # a file where the folder should be
        pytest.param(
            "--out",
            "/proc/forbidden",
            "reports",
            marks=pytest.mark.skipif(sys.platform != "linux", reason="Linux /proc"),
        ),
    ],
)
def test_a_folder_that_cannot_be_written_is_refused_before_any_run(
    project: Path, capsys: pytest.CaptureFixture[str], option: str, folder: str, what: str
) -> None:
    # Bug found by hand: `--out /proc/forbidden` gave a traceback, after every run.
    (project / "blocker").write_text("a file, not a folder\n", encoding="utf-8")
    assert main(["run", option, folder]) == 2
    (line,) = _errors(capsys)
    assert line.startswith(f"evals: error: cannot write to the {what} folder {folder!r}: ")
    assert not list(project.glob("traces/*/runs.jsonl"))  # nothing was run


def test_an_error_writing_the_reports_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "reports" / "w.json").mkdir(parents=True)  # a folder where the report goes
    assert main(["run", "--label", "w"]) == 2
    (line,) = _errors(capsys)
    assert line.startswith("evals: error: Is a directory: ")
    assert line.endswith(f"{str(project / 'reports' / 'w.json')!r}")


def test_a_baseline_given_to_report_is_named_as_such(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bug found by hand: this said "graded_runs: Field required".
    assert main(["baseline"]) == 0
    capsys.readouterr()
    assert main(["report", "reports/baseline.json"]) == 2
    assert _errors(capsys) == [
        "evals: error: reports/baseline.json: is a baseline, not a report;"
        " use `evals gate` to compare with it"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["--suite", "alpha", "--cases", "cases/alpha.jsonl"],
        ["--cases", "cases/alpha.jsonl", "--cases", "./cases/../cases/alpha.jsonl"],
        ["--suite", "alpha", "--suite", "alpha"],
    ],
)
def test_a_case_file_named_twice_is_loaded_once(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    # Bug found by hand: `--suite write --cases cases/write.jsonl` gave 5 "duplicate id"
    # errors, each pointing at the same file and line.
    main(["lint", *args])  # alpha alone has small splits: findings, but no duplicates
    assert "duplicate" not in capsys.readouterr().out
    assert main(["run", "--label", "twice", *args]) == 0
    out = capsys.readouterr().out
    data = json.loads((project / "reports" / "twice.json").read_text(encoding="utf-8"))
    assert data["runs"] == 5
    assert out.count("alpha") == 1  # the headline names the file or the suite once


def _mutated(change: dict[str, Any]) -> str:
    case = json.loads(GOOD)
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        target = case
        for part in parents:
            target = target[part]
        target[last] = value
    return json.dumps(case, ensure_ascii=False)


@pytest.mark.parametrize(
    ("change", "sut"),
    [
        ({"expect.tickets": "1"}, []),
        ({"title": 5}, []),
        ({"input.goal": ""}, []),
        ({"input.order_id": 7}, []),
        ({"expect.facts": {"a": 1}}, []),
        ({"expect.reply_contains": "x"}, []),
        ({"expect.max_tasks": -1}, []),
        ({"tags": "happy"}, []),
        ({"world": []}, []),
        ({"colour": "red"}, []),
        ({"expect.statuses": {"order_agent": ["bogus"]}}, []),
        ({"world": {"stok": 1}}, ["--sut", "fake_suts:CheckingSUT"]),
    ],
)
def test_lint_reports_what_run_refuses(
    project: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], sut: list[str]
) -> None:
    bad = project / "cases" / "gamma.jsonl"
    bad.write_text(GOOD.replace("x01", "x09") + "\n" + _mutated(change) + "\n", encoding="utf-8")
    assert main(["run", "--cases", str(bad), *sut]) == 2
    refused = capsys.readouterr().err.splitlines()
    assert refused and all(line.startswith(f"{bad}:2: ") for line in refused)
    assert main(["lint", *sut]) == 1
    found = capsys.readouterr().out.splitlines()
    assert any(line.startswith(f"{bad}:2: ") for line in found), found


@pytest.mark.parametrize("flag", [["--split", "dev"], ["--tag", "happy"], ["--exclude-tag", "x"]])
def test_lint_refuses_selection_flags_it_cannot_honour(
    project: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    assert main(["lint", *flag]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_run_stops_early_on_a_dead_provider_with_exit_3(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_SUT_ERROR", "d01,d02,d03,r01,r02,r04,t01,t02,t03")
    args = ["run", "--concurrency", "1", "--max-provider-errors", "2", "--label", "down"]
    assert main(args) == 3
    out = capsys.readouterr().out
    assert "INCOMPLETE: stopped after 2 provider errors in a row (last: provider down)" in out
    meta = json.loads((project / "reports" / "down.json").read_text(encoding="utf-8"))["meta"]
    assert meta["complete"] is False and meta["finished_runs"] == 2
