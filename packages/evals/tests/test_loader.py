"""The loader: every problem of every file, one line each, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, ClassVar

import evals.cli.main as cli
import pytest
from evals.cases.case_file import CaseSource, read_records
from evals.cases.lint import lint_files
from evals.cases.loader import (
    ANY_EXPECTATION,
    load_cases,
    load_cases_with_sources,
    load_file,
    parse_case,
)
from evals.checks import CheckOutput, Run, check, register, registered, unregister
from evals.checks.builtin import BUILT_IN
from evals.checks.registry import registered_expect_keys
from evals.errors import CaseFileError, CheckRegistrationError, EvalsError
from evals.model.case import Case, Expect
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from support_rules import SUPPORT_RULES

GOOD: dict[str, Any] = {
    "id": "c1",
    "split": "dev",
    "tags": ["happy"],
    "input": {"goal": "包裹一直没到", "order_id": "A1001"},
    "expect": {"outcome": "replied", "tickets": 1, "dispatched": ["order_agent"]},
}


def line(**changes: Any) -> str:
    """GOOD with top-level keys replaced (``None`` removes the key)."""
    data = {**GOOD, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not None}, ensure_ascii=False)


def expect_line(**changes: Any) -> str:
    expect = {**GOOD["expect"], **changes}
    return line(expect={k: v for k, v in expect.items() if v is not None})


def write(tmp_path: Path, name: str, *lines: str) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def problems_of(paths: list[Path]) -> list[str]:
    """The problems of loading ``paths`` as SupportPilot's cases (with its vocabulary,
    which its SUT declares: the CLI loads with it)."""
    with pytest.raises(CaseFileError) as info:
        load_cases(paths, rules=SUPPORT_RULES)
    return info.value.lines()


def test_reference_cases_load(suite_files: list[Path]) -> None:
    cases, _ = load_cases_with_sources(suite_files, expect_keys=ANY_EXPECTATION)
    assert len(cases) == 26
    assert len({c.id for c in cases}) == 26
    assert {c.split for c in cases} == {"dev", "test", "regression"}


def test_supportpilot_s_own_keys_load_only_with_its_checks(suite_files: list[Path]) -> None:
    """``conflicts`` and ``screened`` are read by SupportPilot's checks (its plug-in), not
    the core's: without them registered, the cases setting them are refused, each line
    naming its key."""
    core = set(Expect.model_fields) | {k for c in BUILT_IN for k in c.expect_keys}
    with pytest.raises(CaseFileError) as refused:  # not the registry: tests add to it
        load_cases_with_sources(suite_files, expect_keys=core)
    assert {p.field for p in refused.value.problems} == {"expect.conflicts", "expect.screened"}
    assert len(refused.value.problems) == 6


def test_good_file_loads_with_comments_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", "# a comment", "", line(), "   ", "  # indented comment")
    cases = load_file(path)
    assert [c.id for c in cases] == ["c1"]
    assert cases[0].expect.max_tasks is None  # the core sets no budget
    assert cases[0].expect.max_chars is None


BUDGET = {"max_tasks": 5, "max_chars": 4000}


@pytest.mark.parametrize(
    ("expect", "wanted"),
    [
        # What a case does not say, the project's defaults say.
        ({"outcome": "replied"}, {"max_tasks": 5, "max_chars": 4000}),
        # What it says, it keeps (a tighter or a looser budget alike).
        ({"outcome": "replied", "max_tasks": 0}, {"max_tasks": 0, "max_chars": 4000}),
        ({"outcome": "replied", "max_chars": 9000}, {"max_tasks": 5, "max_chars": 9000}),
        # A configuration case is never run: a budget means nothing to it.
        ({"described": ["x"]}, {"max_tasks": None, "max_chars": None}),
    ],
)
def test_a_project_s_default_expectations_fill_in_what_a_case_does_not_say(
    tmp_path: Path, expect: dict[str, object], wanted: dict[str, object]
) -> None:
    path = write(tmp_path, "ok.jsonl", line(expect=expect))
    (case,) = load_cases([path], expect_defaults=BUDGET)
    assert {key: getattr(case.expect, key) for key in wanted} == wanted
    (bare,) = load_cases([path])
    assert bare.expect.max_tasks == expect.get("max_tasks")


@pytest.mark.parametrize(
    ("defaults", "fragment"),
    [
        ({"max_tasks": -1}, "ok.jsonl:1: expect.max_tasks"),
        ({"max_taks": 5}, "ok.jsonl:1: expect.max_taks"),
    ],
)
def test_a_bad_default_expectation_is_a_problem_of_each_case_it_fills(
    tmp_path: Path, defaults: dict[str, object], fragment: str
) -> None:
    path = write(tmp_path, "ok.jsonl", line())
    with pytest.raises(CaseFileError) as info:
        load_cases([path], expect_defaults=defaults)
    assert fragment in info.value.render()


def test_a_utf8_bom_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + line().encode("utf-8") + b"\n")
    assert [c.id for c in load_file(path)] == ["c1"]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("{not json", "(json)", "bad JSON"),
        ('["a list"]', "(line)", "expected a JSON object"),
        (line(id=None), "id", "missing required field"),
        (line(input=None), "input", "missing required field"),
        (expect_line(outcome=None), "expect.outcome", "missing required field"),
        (line(input={"order_id": "A1"}), "input.goal", "missing required field"),
        (line(split="staging"), "split", "unknown split 'staging'"),
        (expect_line(outcome="refund"), "expect.outcome", "unknown outcome 'refund'"),
        (expect_line(tickets="1"), "expect.tickets", "expected integer or null, got string '1'"),
        (expect_line(tickets=-1), "expect.tickets", "must be >= 0, got -1"),
        (expect_line(tickets=True), "expect.tickets", "expected integer or null"),
        (line(tags="happy"), "tags", "expected array, got string"),
        (line(tags=["happy", 3]), "tags.1", "expected string, got integer 3"),
        (
            line(faults={"order_agent": "Explode"}),
            "faults.order_agent",
            "unknown fault kind 'Explode'",
        ),
        (line(faults={"order_agent": "flaky:"}), "faults.order_agent", "unknown fault kind"),
        (line(faults={"order_agent": "flaky 0.5"}), "faults.order_agent", "unknown fault kind"),
        (line(colour="red"), "colour", "unknown field 'colour'"),
        (line(id=""), "id", "must not be empty"),
        (line(input={"goal": "g", "order_id": 7}), "input.order_id", "expected string or null"),
        ('{"id": "c1", "id": "c2"}', "(json)", "duplicate key 'id'"),
    ],
)
def test_each_bad_line_is_named_by_file_line_and_field(
    tmp_path: Path, text: str, field: str, words: str
) -> None:
    path = write(tmp_path, "bad.jsonl", "# header", text)
    found = problems_of([path])
    prefix = f"{path}:2: {field}: "
    matching = [p for p in found if p.startswith(prefix)]
    assert matching, found
    assert any(words in p for p in matching), found


@pytest.mark.parametrize(
    "fault",
    ["crash", "timeout", "inject", "fabricate", "write_attempt", "flaky:0.3", "flaky:1", "flaky:0"],
)
def test_every_documented_fault_kind_loads(fault: str) -> None:
    case = parse_case(json.loads(line(faults={"logistics_agent": fault})))
    assert case.faults == {"logistics_agent": fault}


def test_every_problem_of_every_file_is_collected(tmp_path: Path) -> None:
    first = write(tmp_path, "a.jsonl", line(), line(id="c2", split="nope"), "{oops")
    second = write(tmp_path, "b.jsonl", line(id="c3"), expect_line(outcome="maybe"))
    found = problems_of([first, second])
    assert (
        f"{first}:2: split: unknown split 'nope'; expected one of 'dev', 'test', 'regression'"
        in found
    )
    assert any(p.startswith(f"{first}:3: (json): bad JSON") for p in found)
    # the second file's line 2 reuses id c1 from the first file and has a bad outcome
    assert any(p.startswith(f"{second}:2: expect.outcome: unknown outcome 'maybe'") for p in found)
    assert f"{second}:2: id: duplicate id 'c1' (first at {first}:1)" in found
    assert len(found) == 4


def test_one_line_can_have_several_problems(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", line(split="x", tags=[1], colour="red"))
    fields = [p.split(": ")[1] for p in problems_of([path])]
    assert fields == ["colour", "split", "tags.0"]


def test_duplicate_id_within_a_file(tmp_path: Path) -> None:
    path = write(tmp_path, "dup.jsonl", line(), line(title="again"))
    assert problems_of([path]) == [f"{path}:2: id: duplicate id 'c1' (first at {path}:1)"]


def test_empty_file_is_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.jsonl", "# only a comment", "")
    assert problems_of([path]) == [f"{path}:0: (file): no cases in file"]


def test_missing_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.jsonl"
    assert problems_of([path]) == [f"{path}:0: (file): file not found"]


def test_directory_is_a_problem(tmp_path: Path) -> None:
    assert problems_of([tmp_path]) == [f"{tmp_path}:0: (file): is a directory, not a case file"]


def test_bytes_that_are_not_utf8_name_their_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(line().encode("utf-8") + b"\n" + "café".encode("latin-1") + b"\n")
    assert problems_of([path]) == [f"{path}:2: (file): not UTF-8: byte 0xe9 at column 4"]


def test_a_file_with_problems_yields_no_cases_at_all(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", line())
    bad = write(tmp_path, "bad.jsonl", line(id="c9", split="x"))
    with pytest.raises(CaseFileError) as info:
        load_cases([good, bad], rules=SUPPORT_RULES)
    assert isinstance(info.value, EvalsError)
    assert len(info.value.problems) == 1
    assert info.value.problems[0].line == 1


def test_a_single_path_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, "one.jsonl", line())
    assert [c.id for c in load_cases(path)] == ["c1"]
    assert [c.id for c in load_cases(str(path))] == ["c1"]


def test_read_records_keeps_raw_data_of_invalid_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "raw.jsonl", line(split="x"), "# c", "{bad")
    records, problems = read_records([path])
    assert [(r.line, r.data["split"]) for r in records] == [(1, "x")]
    assert [(p.line, p.field) for p in problems] == [(3, "(json)")]


def test_error_message_lists_every_problem() -> None:
    with pytest.raises(CaseFileError) as info:
        parse_case({"id": "x"}, file="mem.jsonl", line=4)
    text = str(info.value)
    assert "mem.jsonl:4: split: missing required field" in text
    assert "mem.jsonl:4: expect: missing required field" in text
    assert "Traceback" not in text


def test_problems_are_unique_and_in_reading_order(tmp_path: Path) -> None:
    # Bug found by hand: a line missing both `input` and `expect` printed each twice, and a
    # bad-JSON line 2 was listed before line 1's problems.
    path = write(tmp_path, "bad.jsonl", '{"id": "x", "split": "prod"}', "not json")
    found = problems_of([path])
    assert len(found) == len(set(found))
    assert [int(p.split(":")[1]) for p in found] == sorted(int(p.split(":")[1]) for p in found)
    assert [p.split(": ")[1] for p in found] == ["expect", "input", "split", "(json)"]


# --- expect keys: a typo must not silently drop an expectation ------------------------


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        (
            {"tikets": 1},
            "expect.tikets: unknown expectation 'tikets'; no check reads it"
            " (did you mean 'tickets'?)",
        ),
        (
            {"dispatch": ["order_agent"]},
            "expect.dispatch: unknown expectation 'dispatch'; no check reads it"
            " (did you mean 'dispatched'?)",
        ),
        (
            {"reply_contain": ["补发"]},
            "expect.reply_contain: unknown expectation 'reply_contain'; no check reads it"
            " (did you mean 'reply_contains'?)",
        ),
        ({"zzz": True}, "expect.zzz: unknown expectation 'zzz'; no check reads it"),
    ],
)
def test_an_expect_key_no_check_reads_is_a_problem(
    tmp_path: Path, changes: dict[str, Any], problem: str
) -> None:
    path = write(tmp_path, "typo.jsonl", "# header", expect_line(**changes))
    assert problems_of([path]) == [f"{path}:2: {problem}"]


def test_an_unknown_expect_key_is_reported_with_the_lines_other_problems(tmp_path: Path) -> None:
    path = write(tmp_path, "typo.jsonl", expect_line(tikets=1, outcome="refund"))
    fields = [p.split(": ")[1] for p in problems_of([path])]
    assert fields == ["expect.outcome", "expect.tikets"]


def test_parse_case_refuses_an_unknown_expect_key() -> None:
    with pytest.raises(CaseFileError, match=r"mem:3: expect\.tikets: unknown expectation"):
        parse_case(json.loads(expect_line(tikets=1)), file="mem", line=3)


@pytest.fixture
def refund_check() -> Iterator[None]:
    """A project's own check reading ``expect.max_refunds``, registered for one test."""

    @check(kind="outcome", name="max_refunds", expect_keys=("max_refunds",))
    def max_refunds(case: Case, run: Run) -> CheckOutput:
        return None

    yield
    unregister("max_refunds")


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("max_refunds", None),
        (
            "max_refund",
            "expect.max_refund: unknown expectation 'max_refund'; no check reads it"
            " (did you mean 'max_refunds'?)",
        ),
        (
            "refund_limit",
            "expect.refund_limit: unknown expectation 'refund_limit'; no check reads it",
        ),
    ],
)
def test_a_registered_check_declares_the_expect_keys_it_reads(
    tmp_path: Path, refund_check: None, key: str, problem: str | None
) -> None:
    path = write(tmp_path, "custom.jsonl", expect_line(**{key: 2}))
    if problem is None:
        [case] = load_cases([path])
        assert case.expect.model_extra == {key: 2}
    else:
        assert problems_of([path]) == [f"{path}:1: {problem}"]


def test_a_declared_key_is_unknown_again_once_its_check_is_unregistered(tmp_path: Path) -> None:
    check(kind="cost", name="scratch", expect_keys=("budget_eur",))(lambda case, run: None)
    try:
        assert "budget_eur" in registered_expect_keys()
    finally:
        unregister("scratch")
    assert "budget_eur" not in registered_expect_keys()
    path = write(tmp_path, "custom.jsonl", expect_line(budget_eur=3))
    assert problems_of([path])[0].startswith(f"{path}:1: expect.budget_eur: unknown expectation")


class Refunds(BaseModel):
    """A project's typed expectation: how many refunds, and up to what amount."""

    model_config = ConfigDict(extra="forbid")

    count: int = Field(ge=0)
    up_to_eur: float | None = None


def _positive(value: int) -> int:
    if value < 0:
        raise ValueError("must be at least 0")
    return value


def _broken(value: object) -> object:
    raise TypeError("the project's validator is broken")


class Window:
    """A check defined as an object, its typed key given by its attribute."""

    name = "window"
    kind = "outcome"
    expect_keys: ClassVar[dict[str, Any]] = {"window_days": tuple[int, int]}

    def __call__(self, case: Case, run: Run) -> None:
        return None


@pytest.fixture
def typed_checks() -> Iterator[None]:
    """A project's checks whose expect keys have types, registered for one test."""
    check(kind="outcome", name="refunds", expect_keys={"refunds": Refunds, "note": None})(
        lambda case, run: None
    )
    check(kind="cost", name="max_refunds_typed", expect_keys={"max_refunds": int})(
        lambda case, run: None
    )
    check(
        kind="cost",
        name="validated",
        expect_keys={
            "spent": Annotated[int, AfterValidator(_positive)],
            "odd": Annotated[int, AfterValidator(_broken)],
        },
    )(lambda case, run: None)
    register(Window())  # type: ignore[arg-type]
    yield
    for name in ("refunds", "max_refunds_typed", "validated", "window"):
        unregister(name)


def typed_line(**expect: Any) -> str:
    """A case whose ``expect`` holds exactly GOOD's and ``expect``, nulls included."""
    return line(expect={**GOOD["expect"], **expect})


@pytest.mark.parametrize(
    ("expect", "problem"),
    [
        ({"refunds": {"count": 1}, "max_refunds": 2, "note": ["any", 3]}, None),
        ({"refunds": None, "max_refunds": None}, None),  # null: not set, as checks read it
        ({"window_days": [1, 7], "spent": 0}, None),  # a JSON list is a tuple
        ({"max_refunds": "two"}, "expect.max_refunds: Input should be a valid integer, got 'two'"),
        # Strict, as built-in fields are: what the check would compare is what it reads.
        ({"max_refunds": "2"}, "expect.max_refunds: Input should be a valid integer, got '2'"),
        ({"max_refunds": 2.0}, "expect.max_refunds: Input should be a valid integer, got 2.0"),
        ({"max_refunds": True}, "expect.max_refunds: Input should be a valid integer, got True"),
        ({"refunds": {"count": -1}}, "expect.refunds.count: Input should be greater than"),
        ({"refunds": {"count": 1, "eur": 5}}, "expect.refunds.eur: Extra inputs are not"),
        ({"refunds": [1]}, "expect.refunds: Input should be an object, got [1]"),
        ({"window_days": [1]}, "expect.window_days.1: Field required"),
        ({"spent": -1}, "expect.spent: must be at least 0, got -1"),
        ({"odd": 1}, "expect.odd: cannot be validated: TypeError: the project's validator"),
    ],
)
def test_a_value_of_the_wrong_type_for_a_checks_typed_key_is_a_problem(
    tmp_path: Path, typed_checks: None, expect: dict[str, Any], problem: str | None
) -> None:
    path = write(tmp_path, "typed.jsonl", "# header", typed_line(**expect))
    if problem is None:
        [case] = load_cases([path])
        assert case.expect.model_extra == expect
        return
    [found] = problems_of([path])
    assert found.startswith(f"{path}:2: {problem}"), found


def test_a_typed_key_is_checked_by_lint_and_not_where_cases_are_only_read(
    tmp_path: Path, typed_checks: None
) -> None:
    path = write(tmp_path, "typed.jsonl", typed_line(max_refunds="two"))
    findings = lint_files([path]).findings
    assert [(f.rule, f.line) for f in findings if f.rule == "invalid"] == [("invalid", 1)]
    assert "expect.max_refunds" in findings[0].message
    [case], _ = load_cases_with_sources([path], expect_keys=ANY_EXPECTATION)  # from a trace
    assert case.expect.model_extra == {"max_refunds": "two"}


def test_a_typed_key_left_out_of_the_known_keys_is_faulted_once(
    tmp_path: Path, typed_checks: None
) -> None:
    path = write(tmp_path, "typed.jsonl", typed_line(max_refunds="two"))
    with pytest.raises(CaseFileError) as info:
        load_cases_with_sources([path], expect_keys=set(Expect.model_fields))
    [found] = info.value.lines()
    assert "unknown expectation 'max_refunds'" in found


class Later(BaseModel):
    step: Undefined  # type: ignore[name-defined]  # noqa: F821


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ({"k": object()}, "check 'odd_check': expect key 'k' has type"),
        ({"k": 3}, "check 'odd_check': expect key 'k' has type 3, which pydantic"),
        ({"k": Later}, "expect key 'k' has type .*Later.*cannot validate"),
    ],
)
def test_a_type_pydantic_cannot_validate_is_refused_where_the_check_is_defined(
    keys: dict[str, Any], words: str
) -> None:
    def odd_check(case: Case, run: Run) -> None:
        return None

    with pytest.raises(CheckRegistrationError, match=words):
        check(kind="outcome", expect_keys=keys)(odd_check)
    assert "k" not in registered_expect_keys()


def test_a_key_two_checks_read_cannot_have_two_types(typed_checks: None) -> None:
    with pytest.raises(CheckRegistrationError, match="check 'max_refunds_typed' reads it as"):
        check(kind="cost", name="other", expect_keys={"max_refunds": str})(lambda c, r: None)
    assert "other" not in [c.name for c in registered()]
    check(kind="cost", name="same", expect_keys={"max_refunds": int})(lambda c, r: None)
    unregister("same")  # the same type twice is one declaration


def test_builtin_expect_keys_are_the_model_fields() -> None:
    assert registered_expect_keys() >= set(Expect.model_fields)
    assert "tikets" not in registered_expect_keys()


def test_the_run_command_exits_2_on_an_unknown_expect_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, "typo.jsonl", expect_line(tikets=1))
    # The CLI loads the SUT before the cases (a project's checks may register on import).
    assert cli.main(["run", "--cases", str(path), "--sut", "fake_suts:EchoSUT"]) == 2
    err = capsys.readouterr().err
    assert "expect.tikets: unknown expectation 'tikets'" in err
    assert "Traceback" not in err


def test_sources_name_the_file_and_line_of_every_case(tmp_path: Path) -> None:
    first = write(tmp_path, "a.jsonl", "# header", line(), "", line(id="c2"))
    second = write(tmp_path, "b.jsonl", line(id="c3"))
    cases, sources = load_cases_with_sources([first, second])
    assert [c.id for c in cases] == ["c1", "c2", "c3"]
    assert sources == {
        "c1": CaseSource(str(first), 2),
        "c2": CaseSource(str(first), 4),
        "c3": CaseSource(str(second), 1),
    }


def test_load_cases_with_sources_raises_like_load_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", line(split="x"))
    with pytest.raises(CaseFileError, match="unknown split 'x'"):
        load_cases_with_sources([path], rules=SUPPORT_RULES)


@pytest.mark.parametrize(
    "text",
    [
        line(split="train"),
        expect_line(outcome=None),
        line(input={"question": "When do you open?"}),
        line(input={"goal": "g", "order_id": 7}),
        expect_line(outcome="answered"),
    ],
)
def test_the_neutral_loader_accepts_what_only_a_vocabulary_refuses(
    tmp_path: Path, text: str
) -> None:
    path = write(tmp_path, "any.jsonl", text)
    assert [c.id for c in load_cases([path])] == ["c1"]
    with pytest.raises(CaseFileError):
        load_cases([path], rules=SUPPORT_RULES)


def test_the_run_command_asks_the_sut_to_check_every_case_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import fake_suts

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(fake_suts.CheckingSUT, "runs", 0)
    path = write(tmp_path, "worlds.jsonl", line(world={"ok": 1}), line(id="c2", world={"stok": 0}))
    assert cli.main(["run", "--cases", str(path), "--sut", "fake_suts:CheckingSUT"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{path}:2: world.stok: unknown key 'stok'"]
    assert fake_suts.CheckingSUT.runs == 0
