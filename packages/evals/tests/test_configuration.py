"""Configuration cases: a SUT judged by how it is configured and what it refuses, never
by a run (a tiny SUT defined here, built again for every case's options)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from evals import evaluate
from evals.cases.configuration import configuration_env
from evals.cases.lint import lint, lint_paths
from evals.cases.vocabulary import CaseRules
from evals.checks import check, grade, unregister
from evals.cli.main import main
from evals.errors import CaseFileError
from evals.model.case import Case
from evals.model.run import Run
from pydantic import BaseModel

SPEC = f"{__name__}:TinySUT"


class Goal(BaseModel):
    """A run case's input, as a strict project wants it."""

    goal: str


BUILT: list[dict[str, str | None]] = []
"""Every TinySUT built, with its options and the variables it read."""
RAN: list[str] = []
"""Every case TinySUT.run was called for (none may be a configuration case)."""


class TinySUT:
    """Builds from ``mode`` (else ``TINY_MODE``, else plain) and ``limit``; refuses
    unknown world keys; describes its settings."""

    config_env = ("TINY_MODE", "TINY_KEY")

    def __init__(self, mode: str | None = None, limit: str = "1") -> None:
        chosen = mode or os.environ.get("TINY_MODE") or "plain"
        BUILT.append({"mode": mode, "limit": limit, "TINY_MODE": os.environ.get("TINY_MODE")})
        if chosen not in ("plain", "fancy"):
            raise ValueError(f"mode must be 'plain' or 'fancy',\n   got {chosen!r}")
        if int(limit) < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.mode = chosen
        self.limit = int(limit)
        self.key = "set" if os.environ.get("TINY_KEY") else "unset"

    def describe(self) -> list[str]:
        return [f"mode={self.mode}", f"limit={self.limit}", f"key={self.key}"]

    def check_case(self, case: Case) -> list[str]:
        return [f"world.{key}: unknown key {key!r}" for key in case.world if key != "stock"]

    def run(self, case: Case, trial: int) -> Run:
        RAN.append(case.id)
        return Run(case_id=case.id, trial=trial, outcome="done")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    BUILT.clear()
    RAN.clear()
    monkeypatch.delenv("TINY_MODE", raising=False)
    monkeypatch.delenv("TINY_KEY", raising=False)
    yield


def _case(n: int, expect: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"id": f"c{n}", "split": "dev", "input": {}, "expect": expect, **fields}


def _write(path: Path, *cases: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


FANCY = ["mode=fancy", "limit=1", "key=unset"]
ODD = "mode must be 'plain' or 'fancy', got 'odd'"
LIMIT = "limit must be at least 1, got 0"
FANCY_ON = {"mode": "fancy"}
PLAIN_ON = {"mode": "plain"}


def _fields(expect: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"expect": expect, **fields}


VERDICTS = [
    # (case fields, success, outcome, the failed check's reason fragment)
    (_fields({"refused": [ODD]}, sut_options={"mode": "odd"}), True, "refused", None),
    (
        _fields(
            {"refused": ["world.x: unknown key 'x'", "world.stok: unknown key 'stok'"]},
            world={"stok": 1, "x": 2},
        ),
        True,
        "refused",
        None,
    ),
    (
        _fields({"refused": [ODD]}, sut_options={"mode": "fancy"}),
        False,
        "accepted",
        f"the SUT accepted the case; expected it to refuse it with {ODD!r}",
    ),
    (
        _fields({"refused": ["limit must be at least 1"]}, sut_options={"limit": "0"}),
        False,
        "refused",
        "expected but not given: 'limit must be at least 1'; and given but not expected:"
        f" {LIMIT!r}",
    ),
    (_fields({"refused": []}, sut_options={"mode": "fancy"}), True, "accepted", None),
    (_fields({"described": FANCY}, sut_options={"mode": "fancy"}), True, "accepted", None),
    (
        _fields({"described": FANCY}, sut_options={"mode": "fancy", "limit": "3"}),
        False,
        "accepted",
        "the description differs: line 2: expected 'limit=1', got 'limit=3'",
    ),
    (
        _fields({"described": ["mode=plain"]}),
        False,
        "accepted",
        "line 2 not expected: 'limit=1'; line 3 not expected: 'key=unset'",
    ),
    (
        _fields({"described": FANCY}, sut_options={"mode": "odd"}),
        False,
        "refused",
        f"the SUT refused the case ({ODD!r})",
    ),
]


@pytest.mark.parametrize(("fields", "ok", "outcome", "reason"), VERDICTS)
def test_a_configuration_case_is_judged_by_what_the_sut_says(
    tmp_path: Path, fields: dict[str, Any], ok: bool, outcome: str, reason: str | None
) -> None:
    cases = _write(tmp_path / "c.jsonl", {"id": "c1", "split": "dev", "input": {}, **fields})
    report = evaluate(cases, SPEC)
    (result,) = report.results
    assert (result.success, result.outcome) == (ok, outcome)
    assert [c.name for c in result.checks] == list(fields["expect"])  # no other check
    failed = [c.reason for c in result.failed_checks]
    assert (reason is None) == (not failed)
    if reason is not None:
        assert reason in failed[0]
    assert RAN == []  # never run


def test_the_run_records_the_refusal_and_the_description(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"refused": ["x"]}, sut_options={"mode": "odd"}),
        _case(2, {"described": FANCY}, sut_options={"mode": "fancy"}),
    )
    evaluate(cases, SPEC, traces=traces)
    lines = [
        json.loads(line)
        for path in traces.rglob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    runs = {r["run"]["case_id"]: r["run"] for r in lines if "run" in r}
    assert runs["c1"]["refusal"] == ["mode must be 'plain' or 'fancy', got 'odd'"]
    assert runs["c1"]["description"] is None
    assert (runs["c2"]["refusal"], runs["c2"]["description"]) == ([], FANCY)


def test_the_case_options_go_over_the_evaluation_options(tmp_path: Path) -> None:
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"described": ["mode=plain", "limit=2", "key=unset"]}, sut_options=PLAIN_ON),
        _case(2, {"described": ["mode=fancy", "limit=2", "key=unset"]}),
    )  # fmt: skip
    report = evaluate(cases, SPEC, sut_options={"mode": "fancy", "limit": "2"})
    assert [r.success for r in report.results] == [True, True]


def test_configuration_and_run_cases_mix(tmp_path: Path) -> None:
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"outcome": "done"}),
        _case(2, {"refused": ["world.q: unknown key 'q'"]}, world={"q": 1}),
    )
    report = evaluate(cases, SPEC)
    assert [r.success for r in report.results] == [True, True]
    assert RAN == ["c1"]


def test_an_exported_variable_does_not_leak_in_and_sut_env_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINY_MODE", "fancy")
    keyed = {"TINY_MODE": "fancy", "TINY_KEY": "k"}
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"described": ["mode=plain", "limit=1", "key=unset"]}),
        _case(2, {"described": ["mode=fancy", "limit=1", "key=set"]}, sut_env=keyed),
        _case(3, {"refused": [ODD]}, sut_env={"TINY_MODE": "odd"}),
    )
    report = evaluate(cases, SPEC)
    assert [r.success for r in report.results] == [True, True, True]
    assert os.environ["TINY_MODE"] == "fancy"  # restored
    assert "TINY_KEY" not in os.environ


@pytest.mark.parametrize("raises", [False, True])
def test_the_environment_is_restored_after_the_build(
    monkeypatch: pytest.MonkeyPatch, raises: bool
) -> None:
    monkeypatch.setenv("TINY_MODE", "mine")
    seen: dict[str, str | None] = {}
    with pytest.raises(RuntimeError) if raises else nullcontext():  # noqa: SIM117
        with configuration_env(("TINY_MODE", "TINY_KEY"), {"TINY_KEY": "k"}):
            seen = {name: os.environ.get(name) for name in ("TINY_MODE", "TINY_KEY")}
            if raises:
                raise RuntimeError("boom")
    assert seen == {"TINY_MODE": None, "TINY_KEY": "k"}
    assert os.environ.get("TINY_MODE") == "mine" and "TINY_KEY" not in os.environ


def test_cases_with_the_same_options_share_one_build(tmp_path: Path) -> None:
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"described": FANCY}, sut_options=FANCY_ON),
        _case(2, {"refused": ["world.a: unknown key 'a'"]}, world={"a": 1}, sut_options=FANCY_ON),
        _case(3, {"refused": [LIMIT]}, sut_options={"limit": "0"}),
        _case(4, {"refused": [LIMIT]}, sut_options={"limit": "0"}),
        _case(5, {"described": ["mode=plain", "limit=1", "key=unset"]}),
    )
    report = evaluate(cases, SPEC, trials=2)
    assert all(r.success for r in report.results) and len(report.results) == 10
    # The evaluation's own SUT, then one per distinct (options, environment).
    built = sorted((str(b["mode"]), str(b["limit"])) for b in BUILT[1:])
    assert built == [("None", "0"), ("None", "1"), ("fancy", "1")]


def test_configuration_cases_run_in_this_process_under_process_isolation(tmp_path: Path) -> None:
    # fake_suts:CheckingSUT declares a vocabulary requiring an outcome and an input goal:
    # a configuration case needs neither. Its workers would echo a run; only this process
    # asks check_case.
    cases = _write(
        tmp_path / "c.jsonl",
        {**GOOD_RUN, "id": "r1"},
        _case(2, {"refused": ["world.bad: unknown key 'bad'"]}, world={"bad": 1}),
        _case(3, {"refused": []}),
    )
    report = evaluate(cases, "fake_suts:CheckingSUT", isolation="process", concurrency=1)
    assert [(r.outcome, r.success) for r in report.results] == [
        ("ask_user", True),
        ("refused", True),
        ("accepted", True),
    ]


GOOD_RUN = {
    "split": "dev",
    "tags": ["happy"],
    "input": {"goal": "包裹没到", "order_id": "A1"},
    "expect": {"outcome": "ask_user", "dispatched": []},
}


ONLY = "only a configuration case"
AN_OBJECT = "the SUT was given as an object"
NOT_DECLARED = (
    "sut_env.HOME2: 'HOME2' is not a variable the SUT reads for its configuration"
    " (its config_env: TINY_MODE, TINY_KEY)"
)
MISUSE = [
    (_case(1, {"outcome": "done"}, sut_options=FANCY_ON), SPEC, f"c.jsonl:1: sut_options: {ONLY}"),
    (
        _case(1, {"outcome": "done"}, sut_env={"TINY_MODE": "x"}),
        SPEC,
        f"c.jsonl:1: sut_env: {ONLY}",
    ),
    (
        _case(1, {"refused": [], "described": []}),
        SPEC,
        "c.jsonl:1: expect.described: a configuration case sets exactly one",
    ),
    (_case(1, {"refused": []}, sut_env={"HOME2": "x"}), SPEC, f"c.jsonl:1: {NOT_DECLARED}"),
    (_case(1, {"refused": []}, sut_options=FANCY_ON), None, f"c.jsonl:1: sut_options: {AN_OBJECT}"),
    (
        _case(1, {"refused": []}, sut_env={"TINY_MODE": "x"}),
        None,
        f"c.jsonl:1: sut_env: {AN_OBJECT}",
    ),
]


@pytest.mark.parametrize(("case", "sut", "line"), MISUSE)
def test_misuse_is_a_problem_of_the_case_file(
    tmp_path: Path, case: dict[str, Any], sut: str | None, line: str
) -> None:
    cases = _write(tmp_path / "c.jsonl", case)
    with pytest.raises(CaseFileError) as caught:
        evaluate(cases, sut if sut is not None else TinySUT())
    (problem,) = caught.value.lines()
    assert line in problem and str(tmp_path) in problem
    assert BUILT[1:] == [] and RAN == []


@pytest.mark.parametrize(("case", "line"), [(m[0], m[2]) for m in MISUSE if m[1] is not None])
def test_misuse_exits_2_with_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any], line: str
) -> None:
    cases = _write(project / "c.jsonl", case)
    assert main(["run", "--cases", str(cases), "--sut", SPEC]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any(line in e for e in err) and "Traceback" not in "\n".join(err)


def test_the_sut_refusing_a_configuration_case_is_no_validation_problem(
    project: Path,
) -> None:
    cases = _write(
        project / "c.jsonl", _case(1, {"refused": ["world.z: unknown key 'z'"]}, world={"z": 1})
    )
    assert main(["run", "--cases", str(cases), "--sut", SPEC, "--label", "conf"]) == 0
    data = json.loads((project / "reports" / "conf.json").read_text(encoding="utf-8"))
    assert (data["runs"], data["successes"]) == (1, 1)


# --- the two checks, directly --------------------------------------------------------


def _configuration_case(expect: dict[str, Any]) -> Case:
    return Case.model_validate({"id": "k", "split": "dev", "input": {}, "expect": expect})


def _said(outcome: str, refusal: list[str], description: list[str] | None = None) -> Any:
    return {"outcome": outcome, "refusal": refusal, "description": description}


GRADED = [
    ({"refused": ["a", "b"]}, _said("refused", ["b", "a"]), True, ""),
    ({"refused": ["a", "a"]}, _said("refused", ["a"]), False, "expected but not given: 'a'"),
    ({"refused": ["a"]}, _said("refused", ["a", "c"]), False, "given but not expected: 'c'"),
    ({"refused": ["a"]}, _said("accepted", [], []), False, "the SUT accepted the case"),
    ({"refused": ["a"]}, {"outcome": "done"}, False, "no refusal recorded"),
    ({"described": ["x", "y"]}, _said("accepted", [], ["x", "y"]), True, ""),
    (
        {"described": ["x", "y"]},
        _said("accepted", [], ["y", "x"]),
        False,
        "line 1: expected 'x', got 'y'; line 2: expected 'y', got 'x'",
    ),
    (
        {"described": ["x", "y"]},
        _said("accepted", [], ["x"]),
        False,
        "line 2 missing: expected 'y'",
    ),
    ({"described": ["x"]}, _said("refused", ["no"]), False, "the SUT refused the case ('no')"),
]


@pytest.mark.parametrize(("expect", "run", "passed", "reason"), GRADED)
def test_the_checks_of_configuration_cases(
    expect: dict[str, Any], run: dict[str, Any], passed: bool, reason: str
) -> None:
    results = grade(_configuration_case(expect), Run(case_id="k", **run))
    (result,) = results
    assert result.name == next(iter(expect))
    assert result.passed is passed
    assert reason in result.reason


def test_no_other_check_applies_to_a_configuration_case() -> None:
    @check(kind="safety", name="always_fails_here")
    def always_fails(case: Case, run: Run) -> bool:
        return False

    try:
        configuration = grade(
            _configuration_case({"refused": []}),
            Run(case_id="k", outcome="accepted", refusal=[], description=[]),
            checks=[always_fails],
        )
        ordinary = grade(
            Case.model_validate({"id": "k", "split": "dev", "input": {}, "expect": {}}),
            Run(case_id="k", outcome="done"),
        )
    finally:
        unregister("always_fails_here")
    assert [(c.name, c.passed) for c in configuration] == [("refused", True)]
    names = {c.name for c in ordinary}
    assert "always_fails_here" in names  # the positive control: it applies elsewhere
    assert not {"refused", "described"} & names


# --- end to end, through the command line ----------------------------------------------


TINY_MODULE = """
import os
from evals.model.run import Run

class Sut:
    config_env = ("TINY_LEVEL",)

    def __init__(self, level=None):
        self.level = int(level or os.environ.get("TINY_LEVEL") or "1")
        if self.level > 3:
            raise ValueError(f"level {self.level} is above 3")

    def describe(self):
        return [f"level={self.level}"]

    def run(self, case, trial):
        raise SystemExit("a configuration case was run")
"""


def test_end_to_end_through_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "tiny_cfg_sut.py").write_text(textwrap.dedent(TINY_MODULE), encoding="utf-8")
    cases = _write(
        tmp_path / "cases.jsonl",
        _case(1, {"refused": ["level 4 is above 3"]}, sut_options={"level": "4"}),
        _case(2, {"described": ["level=2"]}, sut_env={"TINY_LEVEL": "2"}),
        _case(3, {"described": ["level=3"]}, sut_options={"level": "2"}),  # fails
        _case(4, {"described": ["level=1"]}),  # the exported TINY_LEVEL is not read
    )
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    path = os.pathsep.join([*kept, str(tmp_path)])  # a mutated copy's sources stay first
    env = {**os.environ, "PYTHONPATH": path, "TINY_LEVEL": "3"}
    done = subprocess.run(
        [sys.executable, "-m", "evals", "run", "--cases", str(cases), "--sut", "tiny_cfg_sut:Sut"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # `evals run` reports; the gate judges
    assert "c3#0" in done.stdout and "line 1: expected 'level=3', got 'level=2'" in done.stdout
    assert not {"c1#0", "c2#0", "c4#0"} & set(done.stdout.split())
    report = json.loads((tmp_path / "reports" / "run.json").read_text(encoding="utf-8"))
    assert (report["runs"], report["successes"]) == (4, 3)


# --- lint and a project's vocabulary ---------------------------------------------------

GOAL = {"goal": "?"}
MISSING = ["expect.outcome: missing required field", "input.goal: missing required field"]
STRICT = CaseRules(
    splits=("dev",),
    outcome_required=True,
    required_tags=("happy",),
    input_model=Goal,
)


LINTED = [
    # (cases, the findings (rule) expected)
    ([_case(1, {"refused": ["x"]})], []),
    ([_case(1, {"described": ["x"]}, sut_options=FANCY_ON)], []),
    ([_case(1, {"refused": ["x"], "outcome": "done"})], ["unchecked_expectation"]),
    ([_case(1, {"described": ["x"], "tickets": 0, "max_tasks": 5})], ["unchecked_expectation"]),
    ([_case(1, {"refused": [], "reply_contains": ["您好"]})], ["unchecked_expectation"]),
    ([_case(1, {})], ["missing_outcome", "missing_tag"]),  # the positive control
    ([_case(1, {"refused": []}), {**_case(2, {"outcome": "ok"}), "input": GOAL}], ["missing_tag"]),
]  # fmt: skip


@pytest.mark.parametrize(("cases", "rules"), LINTED)
def test_lint_of_configuration_cases(cases: list[dict[str, Any]], rules: list[str]) -> None:
    found = lint([{**c, "tags": ["t"]} for c in cases], rules=STRICT, min_split_size=1)
    assert [f.rule for f in found] == rules
    if "unchecked_expectation" in rules:
        assert "would never be checked" in found[0].message


@pytest.mark.parametrize(
    ("case", "problems"),
    [
        (_case(1, {"refused": []}), []),
        (_case(1, {"described": []}), []),
        (_case(1, {}), MISSING),
    ],
)  # fmt: skip
def test_the_vocabulary_asks_no_outcome_nor_input_of_a_configuration_case(
    case: dict[str, Any], problems: list[str]
) -> None:
    assert [f"{f}: {m}" for f, m in STRICT.problems(case)] == problems


# --- the reports ---------------------------------------------------------------------


def test_the_reports_show_what_the_sut_said(tmp_path: Path) -> None:
    cases = _write(
        tmp_path / "c.jsonl",
        _case(1, {"refused": ["nope"]}, sut_options={"mode": "odd"}),
        _case(2, {"described": FANCY}, sut_options={"mode": "fancy", "limit": "7"}),
    )
    report = evaluate(cases, SPEC, traces=tmp_path / "traces", label="conf")
    written = {p.suffix: p.read_text(encoding="utf-8") for p in report.write(tmp_path / "out")}
    html = written[".html"]
    # Each run's own lines, where a run's trace would be; no trajectory of a run.
    assert ODD.replace("'", "&#39;") in html and "limit=7" in html
    assert ">steps<" not in html
    for text in (written[".md"], written[".xml"], report.render()):
        assert "given but not expected: " in text and "got 'limit=7'" in text


def test_lint_reports_no_sut_check_for_what_a_configuration_case_expects(tmp_path: Path) -> None:
    world = {"q": 1}
    cases = _write(
        tmp_path / "c.jsonl",
        {**_case(1, {"refused": ["world.q: unknown key 'q'"]}, world=world), "tags": ["t"]},
        {**_case(2, {"outcome": "done"}, world=world), "tags": ["t"]},  # the positive control
    )
    found = lint_paths([cases], sut=TinySUT(), min_split_size=1)
    assert [(f.rule, f.case_id) for f in found] == [("sut_check", "c2")]


@pytest.mark.parametrize(
    ("fields", "outcome"),
    [
        (_fields({"described": FANCY}, sut_options={"mode": "fancy"}), "sut_error"),
        (_fields({"refused": []}, sut_env={"TINY_MODE": "fancy"}), "sut_error"),
        (_fields({"described": ["mode=plain", "limit=1", "key=unset"]}), "accepted"),
    ],
    ids=["options", "environment", "neither"],
)
def test_a_runner_without_a_recipe_never_answers_for_another_sut(
    fields: dict[str, Any], outcome: str
) -> None:
    from evals.cases.configuration import AS_OBJECT, Configurations

    case = Case.model_validate({"id": "c1", "split": "dev", "input": {}, **fields})
    run = Configurations(TinySUT()).run(case)
    assert run.outcome == outcome
    assert (run.error == AS_OBJECT) is (outcome == "sut_error")


@pytest.mark.parametrize(
    ("expected", "ok"),
    [("world.a  b: unknown key 'a  b'", True), ("world.a b: unknown key 'a b'", False)],
    ids=["as given", "spaces collapsed"],
)
def test_a_problem_line_keeps_the_spaces_of_the_value_it_quotes(
    tmp_path: Path, expected: str, ok: bool
) -> None:
    cases = _write(tmp_path / "c.jsonl", _case(1, {"refused": [expected]}, world={"a  b": 1}))
    (result,) = evaluate(cases, SPEC).results
    assert result.success is ok


def test_a_construction_refusal_keeps_the_spaces_inside_its_lines(tmp_path: Path) -> None:
    said = "mode must be 'plain' or 'fancy', got 'a  b'"  # two lines joined, 'a  b' kept
    cases = _write(
        tmp_path / "c.jsonl", _case(1, {"refused": [said]}, sut_options={"mode": "a  b"})
    )
    (result,) = evaluate(cases, SPEC).results
    assert result.success, result.failed_checks


# --- a secret the SUT was given never shows -------------------------------------------


class _Hidden:
    """Holds a secret and never shows it."""

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "_Hidden('***')"


class KeySUT:
    """Takes a secret ``api_key`` (else ``KEY_SUT_TOKEN``) and keeps it as ``how`` says:
    ``hidden`` (an object whose repr hides it), ``plain`` (an attribute), ``in_repr`` (its
    own repr), ``described`` (its description), ``nested`` (a dict attribute)."""

    config_env = ("KEY_SUT_TOKEN",)

    def __init__(self, api_key: str | None = None, how: str = "hidden") -> None:
        secret = api_key or os.environ.get("KEY_SUT_TOKEN") or ""
        self.how = how
        self.secret = _Hidden(secret) if how != "plain" else secret  # type: ignore[assignment]
        self.options = {"api_key": secret} if how == "nested" else {}

    def __repr__(self) -> str:
        shown = self.secret.value if self.how == "in_repr" else "***"  # type: ignore[union-attr]
        return f"KeySUT(api_key={shown!r})"

    def describe(self) -> list[str]:
        shown = self.secret.value if self.how == "described" else "***"  # type: ignore[union-attr]
        return [f"key={shown}"]

    def run(self, case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="done")


KEY_SPEC = f"{__name__}:KeySUT"
SECRET = "sk-very-secret"


@pytest.mark.parametrize(
    ("options", "env", "where"),
    [
        ({"how": "hidden", "api_key": SECRET}, {}, None),
        ({"how": "plain", "api_key": SECRET}, {}, "api_key in repr(sut.secret)"),
        ({"how": "in_repr", "api_key": SECRET}, {}, "api_key in repr(sut)"),
        ({"how": "described", "api_key": SECRET}, {}, "api_key in its description"),
        ({"how": "nested", "api_key": SECRET}, {}, "api_key in repr(sut.options)"),
        ({"how": "plain"}, {"KEY_SUT_TOKEN": SECRET}, "KEY_SUT_TOKEN in repr(sut.secret)"),
        ({"how": "hidden"}, {"KEY_SUT_TOKEN": SECRET}, None),
        # Too short to look for (it would be found by chance): not looked for.
        ({"how": "plain", "api_key": "abc"}, {}, None),
    ],
)
def test_a_sut_showing_a_secret_it_was_given_is_a_sut_error(
    tmp_path: Path, options: dict[str, str], env: dict[str, str], where: str | None
) -> None:
    """The positive control of :func:`evals.cases.configuration.shown_secret`: each place a
    secret can show makes the configuration case a ``sut_error`` naming the secret and the
    place, never its value; a SUT that hides it passes."""
    described = ["key=***"] if options.get("how") != "described" else [f"key={SECRET}"]
    case = _case(1, {"described": described}, sut_options=options, sut_env=env)
    report = evaluate(_write(tmp_path / "c.jsonl", case), KEY_SPEC)
    (result,) = report.results
    if where is None:
        assert (result.success, result.outcome) == (True, "accepted")
        return
    assert (result.success, result.outcome) == (False, "sut_error")
    assert f"the SUT shows the secret {where}" in (result.error or ""), result.error
    assert SECRET not in (result.error or "")
    assert SECRET not in report.render()
