"""SupportPilot's typed extension of the run record, and the checks that read it.

The evals core keeps only what any agent records; what only SupportPilot records
(conflicts, gaps, its message-log positions, its bus's rejections, characters read, the
draft, what its screen dropped) lives on :class:`SupportPilotRun`. These tests hold that
it survives every way a run travels (a trace, a worker, a report rebuilt without the
plug-in), that a wrong record is the run's failure, not the check's, and that the checks
moved out of the core judge as they did there.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from agent_evals import checks as supportpilot_checks
from agent_evals.supportpilot_run import Screened, SupportPilotRun
from agent_evals.sut import SupportPilotSUT
from evals.cases.loader import load_cases as load_cases_from
from evals.checks import grade, registered
from evals.checks.builtin import BUILT_IN
from evals.errors import CaseFileError
from evals.execution.isolation import RunSerialisationError, run_json
from evals.model.case import Case
from evals.model.run import RecordTypeError, Run, number_problem

from .conftest import load_cases

EXTENSION_FIELDS = (
    "draft",
    "conflicts",
    "gaps",
    "rejected_messages",
    "evidence_complete_seq",
    "reply_task_seq",
    "chars_read",
    "screened",
)


def _case(expect: dict[str, Any]) -> Case:
    return Case.model_validate(
        {
            "id": "c1",
            "split": "test",
            "input": {"goal": "包裹没到", "order_id": "A1"},
            "expect": {"outcome": "replied", **expect},
        }
    )


def _run(**fields: Any) -> SupportPilotRun:
    return SupportPilotRun(case_id="c1", outcome="replied", **fields)


def _verdicts(check: Any, case: Case, run: Run) -> list[tuple[bool, str]]:
    """What ``check`` says of ``run``, as the evals grade it (its output made results)."""
    return [(r.passed, r.reason) for r in grade(case, run, checks=[check])]


# --- the record -------------------------------------------------------------------


def test_the_core_record_has_none_of_supportpilot_s_fields() -> None:
    assert not set(EXTENSION_FIELDS) & set(Run.model_fields)
    assert set(EXTENSION_FIELDS) <= set(SupportPilotRun.model_fields)


def test_a_real_run_is_a_supportpilot_run_and_its_trace_line_keeps_every_field() -> None:
    """The seed's conflict case: the trace line holds SupportPilot's fields, filled."""
    (case,) = [c for c in load_cases() if c.id == "d03"]
    run = SupportPilotSUT().run(case, 0)
    assert isinstance(run, SupportPilotRun)
    line = json.loads(run_json(run))
    assert set(EXTENSION_FIELDS) <= set(line)
    assert line["conflicts"] == ["parcel_state"]
    assert line["evidence_complete_seq"] is not None
    assert line["chars_read"] > 0


@pytest.mark.parametrize(
    "fields",
    [
        {"conflicts": ["parcel_state"], "gaps": ["sku"], "draft": "您好"},
        {"screened": [Screened(role="logistics_agent", topic="note", reason="injection")]},
        {"evidence_complete_seq": 6, "reply_task_seq": 7, "chars_read": 120},
        {"rejected_messages": 2},
    ],
)
def test_read_back_without_the_class_the_fields_are_kept_and_typed_again(
    fields: dict[str, Any],
) -> None:
    """A trace line or a worker's run is read as a core Run: the extension's fields stay as
    extras, and ``SupportPilotRun.of`` gives back the very same record."""
    original = _run(**fields)
    read_back = Run.model_validate_json(run_json(original))
    assert type(read_back) is Run
    assert SupportPilotRun.of(read_back) == original
    assert SupportPilotRun.of(original) is original


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"conflicts": "parcel_state"}, "conflicts: Input should be a valid list"),
        ({"chars_read": -1}, "chars_read: Input should be greater than or equal to 0"),
        ({"screened": [{"topic": "x"}]}, "screened.0.role: Field required"),
    ],
)
def test_an_extension_that_is_not_supportpilot_s_fails_the_check_not_the_grader(
    extra: dict[str, Any], problem: str
) -> None:
    """A record whose SupportPilot fields are wrong (a worker's, read back) fails the
    checks that read them, as the SUT's fault: never a grader error, which the gate would
    set apart and not count."""
    run = Run(case_id="c1", outcome="replied", reply_task_seq=7, **extra)
    with pytest.raises(RecordTypeError, match="SupportPilotRun"):
        SupportPilotRun.of(run)
    case = _case({"conflicts": [], "screened": {"dropped": []}})
    checks = [c for c in registered() if c.name in ("conflicts", "screened")]
    results = grade(case, run, checks)
    assert len(results) == 2
    for result in results:
        assert not result.passed and not result.grader_error
        assert result.reason == f"the run's record is not a valid SupportPilotRun: {problem}"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"chars_read": -3}, "chars_read: negative"),
        ({"rejected_messages": math.nan}, "rejected_messages: not a finite number"),
        ({"evidence_complete_seq": math.inf}, "evidence_complete_seq: not a finite number"),
        # A string set past validation compares as text: "9" > "10" would pass the order.
        ({"reply_task_seq": "9"}, "reply_task_seq: not a number (str)"),
        ({"chars_read": True}, "chars_read: not a number (bool)"),
    ],
)
def test_the_extension_s_numbers_are_checked_like_the_core_s(
    fields: dict[str, Any], problem: str
) -> None:
    """A SUT that builds its record without validation (``model_construct``) cannot slip a
    negative count or a NaN past the harness in the extension's fields either."""
    run = SupportPilotRun.model_construct(case_id="c1", outcome="replied", **fields)
    found = number_problem(run)
    assert found is not None and problem in found
    with pytest.raises(RunSerialisationError, match="invalid"):
        run_json(run)


def test_numbers_among_the_extras_of_a_core_run_must_be_finite() -> None:
    run = Run.model_construct(case_id="c1", outcome="replied")
    object.__setattr__(run, "__pydantic_extra__", {"chars_read": math.nan})
    found = number_problem(run)
    assert found is not None and "chars_read: not a finite number" in found


# --- the checks moved out of the core ------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "reported", "passed", "reason"),
    [
        (["parcel_state"], ["parcel_state"], True, ""),
        (
            ["parcel_state"],
            ["parcel_state", "stale_hours"],
            False,
            "spurious conflict(s) ['stale_hours'] reported; expected exactly ['parcel_state']",
        ),
        (
            ["parcel_state"],
            [],
            False,
            "conflict(s) ['parcel_state'] not reported; expected exactly ['parcel_state']",
        ),
        (
            ["parcel_state"],
            ["sku"],
            False,
            "conflict(s) ['parcel_state'] not reported; spurious conflict(s) ['sku'] reported",
        ),
        ([], ["x"], False, "expected no conflicts, got ['x']"),
        ([], [], True, ""),
        ("parcel_state", [], False, "expect.conflicts: Input should be a valid list"),
    ],
)
def test_conflicts_must_be_exactly_the_expected_topics(
    expected: object, reported: list[str], passed: bool, reason: str
) -> None:
    # The seed's rule: a spurious conflict topic is as wrong as a missing one.
    case, run = _case({"conflicts": expected}), _run(conflicts=reported)
    [(got, why)] = _verdicts(supportpilot_checks.conflicts, case, run)
    assert got is passed and reason in why


@pytest.mark.parametrize(
    ("expect", "problem"),
    [
        ({"conflicts": "parcel_state"}, "expect.conflicts: Input should be a valid array"),
        ({"conflicts": [3]}, "expect.conflicts.0: Input should be a valid string"),
        ({"screened": {"dropped": 3}}, "expect.screened.dropped: Input should be a valid array"),
        ({"screened": {"dropped": [], "why": {}}}, "expect.screened.why: Extra inputs"),
    ],
)
def test_a_malformed_expectation_of_the_plug_in_s_checks_fails_to_load(
    tmp_path: Path, expect: dict[str, Any], problem: str
) -> None:
    # The keys' types are declared with the checks: the case file is refused, file, line
    # and field named, before any run (not a failed check in every run).
    good = next(c for c in load_cases() if c.expect.model_extra)
    data = good.model_dump(mode="json", exclude_defaults=True)
    data["expect"].update(expect)
    path = tmp_path / "bad.jsonl"
    path.write_text("# one case\n" + json.dumps(data, ensure_ascii=False) + "\n", "utf-8")
    with pytest.raises(CaseFileError) as info:
        load_cases_from([path], rules=SupportPilotSUT.case_rules)
    [line] = info.value.lines()
    assert line.startswith(f"{path}:2: {problem}"), line


def test_conflicts_are_not_judged_when_the_case_names_none() -> None:
    assert supportpilot_checks.conflicts(_case({}), _run(conflicts=["x"])) is None


def _screened(*topics: str) -> list[Screened]:
    return [Screened(role="r", topic=t, reason="injection") for t in topics]


@pytest.mark.parametrize(
    ("spec", "run", "passed", "reason"),
    [
        (
            {"dropped": ["request"], "kept": ["a"]},
            _run(screened=_screened("request"), facts={"a": "1"}),
            True,
            "",
        ),
        ({"dropped": ["request"]}, _run(screened=_screened("request", "request")), True, ""),
        ({"dropped": ["request"]}, _run(), False, "not dropped: ['request']"),
        ({"dropped": []}, _run(screened=_screened("x")), False, "dropped unexpectedly: ['x']"),
        ({"dropped": [], "kept": ["a"]}, _run(), False, "genuine fact(s) ['a'] no longer reported"),
        ({"dropped": 3}, _run(), False, "expect.screened.dropped"),
        # `because`: the right defence must have fired, not another one by chance.
        (
            {"dropped": ["request"], "because": {"request": "injection"}},
            _run(screened=_screened("request")),
            True,
            "",
        ),
        (
            {"dropped": ["request"], "because": {"request": "injection"}},
            _run(screened=[Screened(role="r", topic="request", reason="uncited")]),
            False,
            "'request' dropped as uncited, not as 'injection'",
        ),
        ({"dropped": [], "because": {"x": 1}}, _run(), False, "expect.screened.because"),
    ],
)
def test_screened(spec: dict[str, Any], run: Run, passed: bool, reason: str) -> None:
    [(got, why)] = _verdicts(supportpilot_checks.screened, _case({"screened": spec}), run)
    assert got is passed and reason in why


@pytest.mark.parametrize(
    ("fields", "passed", "reason"),
    [
        ({"reply_task_seq": 7, "evidence_complete_seq": 6}, True, ""),
        ({"reply_task_seq": 6, "evidence_complete_seq": 6}, False, "sent at seq 6, before"),
        ({"reply_task_seq": 4, "evidence_complete_seq": 6}, False, "(seq 6)"),
        ({"reply_task_seq": 4}, False, "evidence never all came back"),
    ],
)
def test_the_reply_task_is_sent_only_after_all_evidence(
    fields: dict[str, Any], passed: bool, reason: str
) -> None:
    check = supportpilot_checks.reply_after_evidence
    [(got, why)] = _verdicts(check, _case({}), _run(**fields))
    assert got is passed and reason in why


def test_reply_order_is_not_applicable_without_a_reply_task() -> None:
    output = supportpilot_checks.reply_after_evidence(_case({}), _run(evidence_complete_seq=6))
    assert output is None


def test_the_moved_checks_are_the_plug_in_s_not_the_core_s() -> None:
    core = {c.name for c in BUILT_IN}
    mine = {c.name: c for c in registered()}
    for name in ("conflicts", "screened", "reply_after_evidence"):
        assert name not in core
        assert mine[name] is getattr(supportpilot_checks, name)
    assert list(mine["conflicts"].expect_keys) == ["conflicts"]  # type: ignore[attr-defined]
    assert list(mine["screened"].expect_keys) == ["screened"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("expected", "reported", "want", "got"),
    [
        (["eta"], ["amount", "stock"], ["eta"], ["amount", "stock"]),
        ([], ["eta"], [], ["eta"]),
    ],
)
def test_a_conflicts_failure_shows_expected_beside_got(
    expected: list[str], reported: list[str], want: list[str], got: list[str]
) -> None:
    """The page shows what the case asked for beside what the run reported."""
    case = _case({"conflicts": expected})
    (result,) = grade(case, _run(conflicts=reported), [supportpilot_checks.conflicts])
    assert not result.passed
    assert (result.expected, result.got) == (want, got)
