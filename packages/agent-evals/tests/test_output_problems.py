"""The ``output_problems`` check (agent_evals.checks): what was wrong with each unusable
output of a role, in order, from the bus log. It passes on every case that names it, and
fails on a SupportPilot whose garbling fault answers its two kinds of garbage the other way
round, answers the same garbage twice, or whose worker stops saying what was wrong."""

from __future__ import annotations

from typing import Any

import agent.faults
import agent.worker
import pytest
from agent_evals.checks import OUTPUT_PROBLEMS
from agent_evals.sut import SupportPilotSUT
from evals.checks import grade
from evals.model.case import Case

from .conftest import default_suites, load_cases

NAMING = [
    c for c in load_cases(default_suites()) if OUTPUT_PROBLEMS in (c.expect.model_extra or {})
]
"""Every gated case that names the problems of its unusable outputs."""
BY_ID = {c.id: c for c in NAMING}


def _verdict(case: Case) -> tuple[bool | None, str]:
    run = SupportPilotSUT().run(case, 0)
    found = [r for r in grade(case, run) if r.name == OUTPUT_PROBLEMS]
    assert len(found) <= 1
    return (found[0].passed, found[0].reason or "") if found else (None, "")


def test_the_suites_name_output_problems_for_each_garbling_fault() -> None:
    faults = {f for c in NAMING for f in c.faults.values()}
    assert {"garble", "garble_once"} <= faults
    assert len(NAMING) >= 10  # x08, x09, x15, the limits suite, the generated worlds


@pytest.mark.parametrize("case", NAMING, ids=[c.id for c in NAMING])
def test_every_case_naming_output_problems_passes(case: Case) -> None:
    assert _verdict(case) == (True, "")


def _swapped(monkeypatch: pytest.MonkeyPatch) -> None:
    garbled, overlong = agent.faults.GARBLED_OUTPUT, agent.faults.OVERLONG_OUTPUT
    monkeypatch.setattr(agent.faults, "GARBLED_OUTPUT", overlong)
    monkeypatch.setattr(agent.faults, "OVERLONG_OUTPUT", garbled)


def _prose_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent.faults, "OVERLONG_OUTPUT", agent.faults.GARBLED_OUTPUT)


def _no_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = agent.worker.WorkerResult.payload

    def without(self: agent.worker.WorkerResult, task_seq: int) -> dict[str, Any]:
        data = payload(self, task_seq)
        data.pop("problem", None)
        return data

    monkeypatch.setattr(agent.worker.WorkerResult, "payload", without)


@pytest.mark.parametrize(
    ("breakage", "case_id", "words"),
    [
        (_swapped, "x09", "policy_agent's unusable outputs were ['schema', 'unparsable']"),
        (
            _prose_twice,
            "x09",
            "were ['unparsable', 'unparsable'], expected ['unparsable', 'schema']",
        ),
        (_swapped, "x08", "logistics_agent's unusable outputs were ['schema'], expected"),
        (_no_codes, "x15", "order_agent's unusable outputs were [None, None]"),
    ],
)
def test_the_check_catches_a_fault_or_worker_that_changed(
    monkeypatch: pytest.MonkeyPatch, breakage: Any, case_id: str, words: str
) -> None:
    case = BY_ID[case_id]
    assert _verdict(case) == (True, "")
    breakage(monkeypatch)
    passed, reason = _verdict(case)
    assert passed is False
    assert words in reason


def test_not_applicable_without_the_expectation() -> None:
    case = BY_ID["x09"].model_copy(update={"expect": BY_ID["x09"].expect.model_copy()})
    extra = case.expect.model_extra or {}
    extra.pop(OUTPUT_PROBLEMS)
    assert _verdict(case)[0] is None
