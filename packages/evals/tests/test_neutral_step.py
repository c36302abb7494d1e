"""A step of the run record is any agent's (issue 25 item 1): a task, a tool call or a
message, with its name, arguments, result (bounded) and times, and a status in the
system's own words; SupportPilot's five statuses are its vocabulary, declared on its side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evals.cases.loader import load_cases
from evals.cases.vocabulary import CaseRules
from evals.checks import Case, Run, Step, grade
from evals.errors import CaseFileError
from evals.model.run import RESULT_CHARS_MAX, number_problem
from pydantic import ValidationError


def test_a_tool_call_is_a_step() -> None:
    step = Step(
        role="refund_agent",
        kind="tool_call",
        name="lookup_order",
        arguments={"order_id": "A1"},
        result='{"paid": 40.0}',
        status="done",  # the system's own word: no SupportPilot status needed
        started_ms=1.5,
        ended_ms=3.0,
    )
    run = Run(case_id="c", outcome="refunded", steps=[step])
    again = Run.model_validate_json(run.model_dump_json())
    assert again.steps[0] == step
    case = Case.model_validate(
        {"id": "c", "split": "s", "input": {}, "expect": {"statuses": {"refund_agent": ["done"]}}}
    )
    assert all(r.passed for r in grade(case, run) if r.name == "statuses")


@pytest.mark.parametrize(
    ("length", "kept"),
    [(RESULT_CHARS_MAX, RESULT_CHARS_MAX), (RESULT_CHARS_MAX + 1, RESULT_CHARS_MAX)],
)
def test_a_step_s_result_is_bounded_and_says_what_it_left_out(length: int, kept: int) -> None:
    step = Step(role="tool", result="x" * length)
    assert step.result is not None and step.result.startswith("x" * kept)
    assert ("1 more characters not kept" in step.result) is (length > kept)


@pytest.mark.parametrize("length", [RESULT_CHARS_MAX + 1, 5_000, 10**6])
def test_a_result_read_back_is_not_cut_again(length: int) -> None:
    """A step read back from a trace or a worker keeps the count of what was left out."""
    step = Step(role="tool", result="x" * length)
    again = Step.model_validate_json(step.model_dump_json())
    assert again.result == step.result
    assert f"({length - RESULT_CHARS_MAX} more characters not kept)" in (again.result or "")


def test_a_long_result_that_only_looks_cut_is_cut() -> None:
    looks = "x" * RESULT_CHARS_MAX + " … (many more characters not kept)"
    step = Step(role="tool", result=looks)
    assert step.result is not None and step.result.endswith("(34 more characters not kept)")


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"started_ms": -1.0}, "steps[0].started_ms: negative"),
        ({"ended_ms": float("nan")}, "steps[0].ended_ms: not a finite number"),
    ],
)
def test_a_step_s_times_are_held_to_the_number_rules(
    fields: dict[str, float], problem: str
) -> None:
    with pytest.raises(ValidationError):
        Step(role="tool", **fields)
    # Built around validation (model_construct), the guard still catches it.
    run = Run(case_id="c", outcome="x", steps=[Step.model_construct(role="tool", **fields)])
    found = number_problem(run)
    assert found is not None and found.startswith(problem)


RULES = CaseRules(step_statuses=("ok", "error"))


@pytest.mark.parametrize(
    ("statuses", "rules", "problem"),
    [
        ({"a": ["ok", "error"]}, RULES, None),
        ({"a": ["ok", "oops"]}, RULES, "x.jsonl:1: expect.statuses.a.1: unknown status 'oops'"),
        ({"a": ["oops"]}, CaseRules(), None),  # a project that declares none: any word
    ],
)
def test_a_project_declares_the_status_words_its_cases_may_use(
    tmp_path: Path, statuses: dict[str, list[str]], rules: CaseRules, problem: str | None
) -> None:
    path = tmp_path / "x.jsonl"
    case = {"id": "c1", "split": "s", "input": {}, "expect": {"statuses": statuses}}
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    if problem is None:
        assert load_cases([path], rules=rules)[0].expect.statuses == statuses
        return
    with pytest.raises(CaseFileError) as info:
        load_cases([path], rules=rules)
    assert problem in info.value.render()
