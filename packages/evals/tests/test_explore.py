"""The search for disagreements (evals.cases.explore) on a toy agent: it finds what a broken
agent gets wrong, shrinks it to the baseline elsewhere, prints it as a case line, and
finds nothing on an agent that agrees with the oracle."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from evals.cases.explore import explore, main, signature_of
from evals.cases.generate import CaseGenerator, Dimension
from evals.model.case import Case
from evals.model.run import Run
from hypothesis import strategies as st

DIMENSIONS = (
    Dimension("size", {"small": 1, "medium": 5, "large": 50}),
    Dimension("colour", {"red": "red", "blue": "blue", "green": "green"}),
    Dimension("urgent", {"no": False, "yes": True}),
)


def build(values: Mapping[str, Any]) -> dict[str, Any]:
    return {"input": dict(values)}


def oracle(case: Mapping[str, Any]) -> dict[str, Any]:
    """Ship when the parcel is small enough or urgent."""
    given = case["input"]
    return {"outcome": "ship" if given["size"] <= 10 or given["urgent"] else "hold"}


GENERATOR = CaseGenerator(prefix="toy", dimensions=DIMENSIONS, build=build, oracle=oracle)


def agreeing(case: Case, trial: int) -> Run:
    given = case.input
    outcome = "ship" if given["size"] <= 10 or given["urgent"] else "hold"
    return Run(case_id=case.id, trial=trial, outcome=outcome)


def off_by_boundary(case: Case, trial: int) -> Run:
    """Wrong on the boundary: a size of exactly 10 is held."""
    given = case.input
    outcome = "ship" if given["size"] < 10 or given["urgent"] else "hold"
    return Run(case_id=case.id, trial=trial, outcome=outcome)


def ignores_urgency(case: Case, trial: int) -> Run:
    outcome = "ship" if case.input["size"] <= 10 else "hold"
    return Run(case_id=case.id, trial=trial, outcome=outcome)


class Sut:
    def __init__(self, function: Any) -> None:
        self.function = function

    def run(self, case: Case, trial: int) -> Run:
        return self.function(case, trial)  # type: ignore[no-any-return]


def test_an_agreeing_agent_has_no_disagreements() -> None:
    found = explore(GENERATOR, Sut(agreeing), seed=1, max_examples=200, max_rounds=3)
    assert found.findings == []
    assert found.examples >= 200 and found.stopped_by == "rounds"


def test_a_broken_agent_is_found_and_shrunk_to_the_baselines() -> None:
    found = explore(GENERATOR, Sut(ignores_urgency), seed=1, max_examples=300, max_rounds=2)
    assert len(found.findings) == 1
    finding = found.findings[0]
    # Only what the bug needs differs from the baselines: a large parcel, urgent.
    assert finding.labels == {"size": "large", "colour": "red", "urgent": "yes"}
    assert finding.signature == frozenset({"outcome"})
    line = json.loads(finding.case_line())
    assert line["expect"] == {"outcome": "ship"} and "urgent:yes" in line["tags"]


def test_values_beyond_the_labels_find_a_boundary_no_label_holds() -> None:
    """No label is 10; a strategy of sizes finds the boundary bug and names the value."""
    labelled_only = explore(GENERATOR, Sut(off_by_boundary), seed=2, max_examples=300, max_rounds=2)
    assert labelled_only.findings == []
    found = explore(
        GENERATOR,
        Sut(off_by_boundary),
        seed=2,
        max_examples=500,
        max_rounds=2,
        strategies={"size": st.integers(min_value=0, max_value=100)},
    )
    assert [f.labels["size"] for f in found.findings] == ["~10"]


def test_a_time_budget_of_zero_stops_at_once() -> None:
    found = explore(GENERATOR, Sut(ignores_urgency), seed=1, time_limit_s=0.0)
    assert found.stopped_by == "time" and found.findings == []


@pytest.mark.parametrize(
    ("failed", "signature"),
    [
        (("outcome: expected 'a', got 'b'",), {"outcome"}),
        (("fact:x: no", "fact: y", "tickets: 2"), {"fact", "tickets"}),
    ],
)
def test_a_class_is_the_failing_checks_names(failed: tuple[str, ...], signature: set[str]) -> None:
    assert signature_of(failed) == frozenset(signature)


@pytest.mark.parametrize(
    "argv",
    [
        ["nomodule_here:X", "--sut", "x:y"],
        ["evals.cases.generate:Dimension", "--sut", "x:y"],
        ["no-colon", "--sut", "x:y"],
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("evals explore: ") and "\n" not in err


def test_unknown_strategy_dimensions_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown dimension"):
        explore(GENERATOR, Sut(agreeing), strategies={"weight": st.integers()}, max_rounds=1)
