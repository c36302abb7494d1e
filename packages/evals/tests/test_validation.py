"""The optional SUT hook ``check_case``: problems located at the case's line, never a crash."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from evals.cases.loader import load_cases_with_sources
from evals.cases.validation import CaseChecker, check_cases, require_runnable, screen_cases
from evals.errors import CaseFileError
from evals.model.case import Case
from evals.model.run import Run


def case(case_id: str, **world: object) -> Case:
    return Case.model_validate(
        {
            "id": case_id,
            "split": "dev",
            "input": {"goal": "g"},
            "world": world,
            "expect": {"outcome": "ask_user"},
        }
    )


class WorldKeysSUT:
    """Accepts only the world key ``orders``."""

    def run(self, case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="ask_user")

    def check_case(self, case: Case) -> list[str]:
        return [f"world.{k}: unknown key {k!r}" for k in case.world if k != "orders"]


class PlainSUT:
    def run(self, case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="ask_user")


class OddSUT:
    """A hook that says things in every wrong way."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def check_case(self, case: Case) -> object:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_problems_name_the_file_and_line_of_their_case(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    lines = [case("a"), case("b", stok=1, orders={}), case("c", kb="full")]
    body = ["# header"] + [json.dumps(c.model_dump(mode="json")) for c in lines]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    cases, sources = load_cases_with_sources([path])
    found = [p.render() for p in check_cases(WorldKeysSUT(), cases, sources)]
    assert found == [
        f"{path}:3: world.stok: unknown key 'stok'",
        f"{path}:4: world.kb: unknown key 'kb'",
    ]


def test_a_sut_without_the_hook_finds_nothing() -> None:
    assert not isinstance(PlainSUT(), CaseChecker)
    assert check_cases(PlainSUT(), [case("a", stok=1)]) == []


@pytest.mark.parametrize(
    ("answer", "rendered"),
    [
        ([], []),
        (["world.stok: unknown key 'stok'"], ["f.jsonl:7: world.stok: unknown key 'stok'"]),
        (["the world is too big"], ["f.jsonl:7: (case): the world is too big"]),
        (["a b: c"], ["f.jsonl:7: (case): a b: c"]),
        (["world.x: two\nlines"], ["f.jsonl:7: world.x: two lines"]),
    ],
)
def test_every_answer_of_the_hook_becomes_one_line_problems(
    answer: object, rendered: list[str]
) -> None:
    found = check_cases(OddSUT(answer), [case("a")], {"a": ("f.jsonl", 7)})
    assert [p.render() for p in found] == rendered


@pytest.mark.parametrize(
    ("answer", "crashed"),
    [
        (ValueError("bad\nthing"), "check_case raised ValueError: bad thing"),
        ("world.x: oops", "check_case returned 'world.x: oops'; expected a list of strings"),
        ([3], "check_case returned [3]; expected a list of strings"),
    ],
)
def test_a_hook_that_fails_is_the_suts_failure_not_a_problem_of_the_case(
    answer: object, crashed: str
) -> None:
    screening = screen_cases(OddSUT(answer), [case("a")], {"a": ("f.jsonl", 7)})
    assert screening.problems == []
    assert screening.crashed == {"a": crashed}
    assert require_runnable(OddSUT(answer), [case("a")]) == {"a": crashed}  # no exit 2


def test_a_case_without_a_source_is_named_by_its_id() -> None:
    [problem] = check_cases(WorldKeysSUT(), [case("x9", stok=1)])
    assert problem.render() == "<case x9>:0: world.stok: unknown key 'stok'"


def test_require_runnable_raises_every_problem_at_once() -> None:
    cases = [case("a", stok=1), case("b"), case("c", kb="x")]
    with pytest.raises(CaseFileError) as info:
        require_runnable(WorldKeysSUT(), cases, {"a": ("f", 1), "c": ("f", 3)})
    assert info.value.lines() == [
        "f:1: world.stok: unknown key 'stok'",
        "f:3: world.kb: unknown key 'kb'",
    ]
    require_runnable(WorldKeysSUT(), [case("b", orders={})])  # nothing wrong: no error


class StuckSUT:
    """A hook that hangs on case ``b`` (until released) and exits the process on ``x``."""

    release = threading.Event()

    def check_case(self, case: Case) -> list[str]:
        if case.id == "b":
            StuckSUT.release.wait(30)
        if case.id == "x":
            raise SystemExit(0)
        return []


def test_a_hook_that_hangs_or_exits_is_the_suts_failure_and_the_rest_is_not_asked() -> None:
    try:
        screening = screen_cases(
            StuckSUT(), [case("x"), case("a"), case("b"), case("c")], deadline_s=0.2
        )
    finally:
        StuckSUT.release.set()
    assert screening.problems == []
    assert screening.crashed == {
        "x": "check_case raised SystemExit: 0",
        "b": "check_case did not answer within 0.2s",
        "c": "not asked: check_case hung on case 'b'",
    }


@pytest.mark.parametrize(
    ("judged", "failed", "blamed"),
    [
        (set(), {}, ["f:1: world.stok: unknown key 'stok'", "f:3: world.kb: unknown key 'kb'"]),
        ({"b"}, {}, ["f:1: world.stok: unknown key 'stok'", "f:3: world.kb: unknown key 'kb'"]),
        ({"a"}, {"a": "world.stok: unknown key 'stok'"}, ["f:3: world.kb: unknown key 'kb'"]),
        (
            {"a", "c"},
            {"a": "world.stok: unknown key 'stok'", "c": "world.kb: unknown key 'kb'"},
            [],
        ),
    ],
)
def test_problems_of_cases_the_baseline_ran_unchanged_are_the_suts_failures(
    judged: set[str], failed: dict[str, str], blamed: list[str]
) -> None:
    cases = [case("a", stok=1), case("b", orders={}), case("c", kb="x")]
    sources = {"a": ("f", 1), "b": ("f", 2), "c": ("f", 3)}

    def judged_before(c: Case) -> bool:
        return c.id in judged

    prefix = "the SUT refuses this case, unchanged since the baseline ran it: "
    expected = {k: prefix + v for k, v in failed.items()}
    if blamed:
        with pytest.raises(CaseFileError) as info:
            require_runnable(WorldKeysSUT(), cases, sources, judged_before=judged_before)
        assert info.value.lines() == blamed
    else:
        got = require_runnable(WorldKeysSUT(), cases, sources, judged_before=judged_before)
        assert got == expected


def test_a_refused_case_with_several_problems_says_how_many_more() -> None:
    got = require_runnable(WorldKeysSUT(), [case("a", stok=1, kb=2)], judged_before=lambda c: True)
    assert got["a"].endswith("world.stok: unknown key 'stok' (+1 more)")
