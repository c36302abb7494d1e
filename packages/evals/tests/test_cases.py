"""The case model: defaults, fault kinds and the reference cases as the schema contract."""

from __future__ import annotations

import re

import pytest
from evals.model.case import FAULT_PATTERN, Case
from evals.model.run import Run
from support_rules import SPLITS


def minimal(**extra: object) -> Case:
    data = {"id": "x", "split": "dev", "input": {"goal": "g"}, "expect": {"outcome": "ask_user"}}
    return Case.model_validate({**data, **extra})


def test_defaults() -> None:
    case = minimal()
    assert case.tags == []
    assert case.world == {}
    assert case.faults == {}
    assert case.input == {"goal": "g"}
    # The core sets no budget: a project gives its cases one (case_rules.expect_defaults).
    assert case.expect.max_tasks is None
    assert case.expect.max_chars is None
    assert case.expect.tickets is None
    assert case.expect.dispatched is None
    assert case.expect.blocked_attempts is None


TOY = {"id": "faq1", "input": {"question": "When do you open?"}, "expect": {"contains": "9"}}
"""A FAQ agent's case: nothing of SupportPilot's vocabulary."""


@pytest.mark.parametrize("split", ["train", "dev", "holdout", "regression", "日本語"])
def test_the_core_accepts_any_split_any_input_and_no_outcome(split: str) -> None:
    case = Case.model_validate({**TOY, "split": split})
    assert case.split == split
    assert case.input == {"question": "When do you open?"}
    assert case.expect.outcome is None
    assert case.expect.model_extra == {"contains": "9"}


@pytest.mark.parametrize("outcome", ["answered", "replied", "refused", "sut_error"])
def test_a_run_carries_a_free_form_outcome(outcome: str) -> None:
    assert Run(case_id="faq1", outcome=outcome).outcome == outcome


@pytest.mark.parametrize(
    "data",
    [
        {**TOY, "split": ""},
        {**TOY, "split": 3},
        {**TOY, "split": "train", "input": "When?"},
        {**TOY, "split": "train", "expect": {"outcome": ""}},
        {"id": "faq1", "split": "train", "expect": {}},
    ],
)
def test_the_core_still_wants_a_named_split_a_mapping_input_and_a_named_outcome(
    data: dict[str, object],
) -> None:
    with pytest.raises(ValueError):
        Case.model_validate(data)


def test_an_empty_run_outcome_is_refused() -> None:
    with pytest.raises(ValueError):
        Run(case_id="faq1", outcome="")


@pytest.mark.parametrize(
    ("kind", "ok"),
    [
        ("crash", True),
        ("timeout", True),
        ("inject", True),
        ("fabricate", True),
        ("write_attempt", True),
        ("flaky:0.3", True),
        ("flaky:0", True),
        ("flaky:1", True),
        ("flaky:1.0", True),
        ("write_attempt:support__send_reply", True),
        # The shape only: which kinds and arguments exist is the SUT's check_case.
        ("flaky:1.5", True),
        ("explode", True),
        ("flaky:", False),
        ("flaky::1", False),
        ("crash ", False),
        ("CRASH", False),
        ("9lives", False),
        ("write_attempt:a b", False),
    ],
)
def test_fault_pattern(kind: str, ok: bool) -> None:
    assert (re.match(FAULT_PATTERN, kind) is not None) is ok


def test_expect_accepts_extra_keys_for_registered_checks() -> None:
    case = minimal(expect={"outcome": "replied", "tone": "polite"})
    assert case.expect.model_extra == {"tone": "polite"}


def test_reference_cases_are_the_schema_contract(reference_cases: dict[str, Case]) -> None:
    assert len(reference_cases) == 26
    by_split = {s: sum(c.split == s for c in reference_cases.values()) for s in SPLITS}
    assert by_split == {"dev": 12, "test": 10, "regression": 4}
    assert reference_cases["r04"].faults == {"logistics_agent": "flaky:0.3"}
    assert reference_cases["d05"].input.get("order_id") is None
    assert reference_cases["d05"].expect.max_tasks == 0
    assert reference_cases["d07"].world == {"approve": False}
    blocked = {i for i, c in reference_cases.items() if c.expect.blocked_attempts}
    assert blocked == {"t03", "t10", "r03"}
