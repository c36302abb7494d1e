"""One plan path (issue 23, item 2): how the cases run is one frozen record,
:class:`evals.RunOptions`, that the meta keeps as it is; the library and the command line
refuse the same option combinations from one rule table, each in its own words; and the
command line plans through :func:`evals.plan`, so both routes record the same meta."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import evals
import evals.errors as evals_errors
import pytest
from evals.cli.main import main
from evals.log.traces import RunMeta
from evals.model.options import LIBRARY_NAMES, RunOptions, Selection, conflict
from helpers import make_project
from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import fake_suts

CASES = Path(__file__).parent / "fixtures" / "cases" / "alpha.jsonl"
BETA = CASES.with_name("beta.jsonl")  # with a flaky case

FLAT = {
    "trials": 3,
    "concurrency": 2,
    "timeout_s": 5.0,
    "isolation": "process",
    "memory_limit_mb": 256,
    "executor": "local",
}


def test_the_meta_keeps_the_options_record_as_it_is_and_writes_it_flat() -> None:
    options = RunOptions(**FLAT)  # type: ignore[arg-type]
    meta = RunMeta(run_id="r", label="x", options=options)
    assert meta.options is options
    assert (meta.trials, meta.concurrency, meta.memory_limit_mb) == (3, 2, 256)
    written = json.loads(meta.model_dump_json())
    assert "options" not in written
    assert {key: written[key] for key in FLAT} == FLAT  # the keys reports always had
    assert RunMeta.model_validate(written) == meta  # and read back into the record


def test_a_meta_written_before_the_record_loads_into_it() -> None:
    old = {"run_id": "r", "label": "x", "trials": 2, "isolation": "none", "executor": "local"}
    meta = RunMeta.model_validate(old)
    assert meta.options == RunOptions(trials=2)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("trials", 0),
        ("concurrency", -1),
        ("timeout_s", float("nan")),
        ("timeout_s", 0),
        ("isolation", "thread"),
        ("executor", "spark"),
        ("memory_limit_mb", 0),
    ],
)
def test_a_meta_with_options_that_cannot_be_is_refused(field: str, value: object) -> None:
    with pytest.raises(ValidationError, match=field):
        RunMeta.model_validate({"run_id": "r", field: value})


def test_the_record_is_frozen() -> None:
    options = RunOptions()
    with pytest.raises(ValidationError):
        options.trials = 2  # type: ignore[misc]


# (options, ray address, what the library says, the flags that say the same)
CONFLICTS = [
    (
        {"executor": "ray", "isolation": "process"},
        None,
        "executor='ray' runs the SUT in Ray actors",
        ["--executor", "ray", "--isolation", "process"],
    ),
    (
        {"executor": "ray", "memory_limit_mb": 100},
        None,
        "isolation='process' and memory_limit_mb do not apply",
        ["--executor", "ray", "--memory-limit", "100"],
    ),
    (
        {},
        "auto",
        "ray_address names a Ray cluster: it needs executor='ray'",
        ["--ray-address", "auto"],
    ),
    (
        {"memory_limit_mb": 100},
        None,
        "memory_limit_mb limits worker processes: it needs isolation='process'",
        ["--memory-limit", "100"],
    ),
]


@pytest.mark.parametrize("scenario", CONFLICTS)
def test_the_library_and_the_command_line_refuse_the_same_combinations(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: tuple[dict[str, object], str | None, str, list[str]],
) -> None:
    given, address, said, flags = scenario
    options = RunOptions.model_validate(given)
    problem = conflict(options, address, LIBRARY_NAMES)
    assert problem is not None and said in problem
    with pytest.raises(ValueError, match=said.replace("(", r"\(")):
        evals.evaluate(CASES, "fake_suts:EchoSUT", ray_address=address, **given)  # type: ignore[arg-type]
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evals: error: --"), err


@pytest.mark.parametrize(
    "given", [{}, {"isolation": "process"}, {"isolation": "process", "memory_limit_mb": 512}]
)
def test_options_that_go_together_raise_nothing(given: dict[str, object]) -> None:
    assert conflict(RunOptions.model_validate(given), None, LIBRARY_NAMES) is None


@pytest.mark.parametrize(
    ("given", "said"),
    [({"trials": 0}, "trials: Input should be greater than or equal to 1"),
     ({"timeout": -1.0}, "timeout_s: Input should be greater than 0"),
     ({"isolation": "thread"}, "isolation: Input should be 'none' or 'process'")],
)  # fmt: skip
def test_a_wrong_option_is_one_line_from_the_library(given: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError) as raised:
        evals.evaluate(CASES, fake_suts.EchoSUT(), **given)  # type: ignore[arg-type]
    assert str(raised.value) == said


def test_both_routes_record_the_same_meta(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    argv = ["run", "--suite", "alpha", "--trials", "2", "--concurrency", "3", "--label", "cli"]
    argv += ["--timeout", "7", "--sut", "fake_suts:OptionsSUT", "--sut-option", "api_key=s3cret"]
    assert main(argv) == 0
    capsys.readouterr()
    from_cli = json.loads((project / "reports" / "cli.json").read_text("utf-8"))["meta"]
    options = evals.RunOptions(trials=2, concurrency=3, timeout_s=7.0)
    sut = from_cli["sut_spec"]
    planned = evals.plan(
        project / "cases" / "alpha.jsonl",
        sut,
        options,
        label="py",
        sut_options={"api_key": "s3cret"},
    )
    from_python = json.loads(planned.meta.model_dump_json())
    same = ("trials", "concurrency", "timeout_s", "isolation", "executor", "sut", "sut_spec")
    assert {k: from_python[k] for k in same} == {k: from_cli[k] for k in same}
    # A secret option's value is kept by neither route.
    assert from_python["sut_options"] == from_cli["sut_options"] == {"api_key": None}
    assert from_python["planned_runs"] == from_cli["planned_runs"]
    assert from_python["git_revision"] == from_cli["git_revision"]


def test_an_evaluation_computes_its_metrics_once_and_the_gate_drops_what_it_excludes() -> None:
    sut = fake_suts.EchoSUT()  # fails every flaky case's first trial
    every = evals.evaluate(BETA, sut)
    flaky = {r.case_id for r in every.results if "flaky" in r.tags}
    assert flaky and not all(r.success for r in every.results)
    baseline = evals.make_baseline(every)
    verdict = evals.gate(every, baseline)
    # The flaky runs count neither way: the gate's figures are of the other runs only.
    assert verdict.metrics.runs == len(every.results) - len(flaky)
    assert verdict.passed and not verdict.soft, verdict.render()
    steady = evals.execute(evals.plan(BETA, sut, selection=Selection(exclude_tags=("flaky",))))
    assert evals.gate(steady, baseline).metrics is steady.metrics  # nothing dropped: reused


# Found by review: planning loaded each file apart, so an id in two files ran twice.
def test_an_id_in_two_files_is_refused_by_both_routes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path)
    alpha, beta = project / "cases" / "alpha.jsonl", project / "cases" / "beta.jsonl"
    first = alpha.read_text("utf-8").splitlines()[0]
    beta.write_text(beta.read_text("utf-8") + first + "\n", encoding="utf-8")
    with pytest.raises(evals_errors.CaseFileError, match="duplicate id"):
        evals.evaluate([alpha, beta], fake_suts.EchoSUT())
    monkeypatch.chdir(project)
    assert main(["run", "--suite", "alpha", "--suite", "beta"]) == 2
    err = capsys.readouterr().err
    assert "duplicate id" in err and "beta.jsonl" in err
    assert not (project / "traces").exists() or not any((project / "traces").iterdir())


def test_every_files_problems_are_listed_together(tmp_path: Path) -> None:
    files = []
    for name in ("one.jsonl", "two.jsonl"):
        path = tmp_path / name
        path.write_text(f'{{"id": "{name}", "split": "dev", "input": {{}}}}\nnot json\n', "utf-8")
        files.append(path)
    with pytest.raises(evals_errors.CaseFileError) as raised:
        evals.evaluate(files, fake_suts.EchoSUT())
    named = {problem.file for problem in raised.value.problems}
    assert named == {str(files[0]), str(files[1])}


@pytest.mark.parametrize("options", [5, [1], "trials"])
def test_a_meta_whose_options_are_no_mapping_is_refused_not_a_traceback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: object,
) -> None:
    with pytest.raises(ValidationError, match="options: not a mapping"):
        RunMeta.model_validate({"run_id": "r", "trials": 1, "options": options})
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", "--label", "x"]) == 0
    (folder,) = (tmp_path / "traces").iterdir()
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    (folder / "meta.json").write_text(json.dumps({**meta, "options": options}), "utf-8")
    capsys.readouterr()
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "options: not a mapping" in err[0], err


def test_a_value_no_evaluation_can_run_with_is_named_by_its_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_project(tmp_path))
    assert main(["run", "--suite", "alpha", "--timeout", "inf"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["evals: error: --timeout: Input should be a finite number"], err


def test_a_sut_whose_module_name_a_meta_cannot_keep_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by review: the library began recording sut_spec, which a meta validates as
    # module:attr; a module file named my-agent.py imports, but is no such name.
    (tmp_path / "my-agent.py").write_text("from fake_suts import EchoSUT as SUT\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    report = evals.evaluate(CASES, "my-agent:SUT")
    assert report.meta.sut_spec == "" and report.meta.sut == "my-agent:SUT"
    assert report.meta.finished_runs == 5
