"""Reply facts against the real SUT: every case naming them passes, and a reply writer
that swaps the hours and the threshold is caught (the positive control)."""

from __future__ import annotations

import importlib

import pytest
from agent import replies
from agent_evals.sut import SupportPilotSUT
from evals.checks import grade

from .conftest import default_suites, load_cases

STATING = [c for c in load_cases(default_suites()) if "reply_facts" in (c.expect.model_extra or {})]
# agent exports a function named rule_brains, which hides the module of that name.
RULE_BRAINS = importlib.import_module("agent.rule_brains")
SWAP = {"stale_hours": "reissue_threshold_hours", "reissue_threshold_hours": "stale_hours"}


def _failed_facts(case_id: str) -> set[str]:
    case = next(c for c in STATING if c.id == case_id)
    run = SupportPilotSUT().run(case, 1)  # trial 1: r04's seeded crash is trial 0
    return {r.name for r in grade(case, run) if r.name.startswith("reply_facts") and not r.passed}


def test_the_cases_naming_reply_facts_include_the_reference_replies() -> None:
    ids = {c.id for c in STATING}
    assert {"d01", "d02", "d08", "d09", "t01", "t02", "t04", "t06", "t09", "r04"} <= ids


@pytest.mark.parametrize("case_id", [c.id for c in STATING])
def test_the_reply_states_the_world_facts(case_id: str) -> None:
    assert _failed_facts(case_id) == set()


# Swapped numbers are caught where a case anchors each number on a phrase the spec fixes
# (the wait reply's 还没到补发条件). The reissue cases (d01, t01 …) only require the numbers
# stated: no phrase of a reissue reply is the spec's, and an anchor on one failed benign
# rewordings (test_benign_changes.py).
@pytest.mark.parametrize("case_id", ["d02", "d09", "t04", "b-ignore_rules-goal"])
def test_a_reply_with_swapped_numbers_fails(monkeypatch: pytest.MonkeyPatch, case_id: str) -> None:
    def swapped(write: object) -> object:
        return lambda facts: write({SWAP.get(k, k): v for k, v in facts.items()})  # type: ignore[operator]

    monkeypatch.setattr(RULE_BRAINS, "reissue_reply", swapped(replies.reissue_reply))
    monkeypatch.setattr(RULE_BRAINS, "wait_reply", swapped(replies.wait_reply))
    assert _failed_facts(case_id) == {
        "reply_facts:shipment.stale_hours",
        "reply_facts:policy.reissue_threshold_hours",
    }
