"""Acceptance: the SUT on every reference case behaves as the reference data says."""

from __future__ import annotations

import re

import pytest
from agent_evals.supportpilot_run import SupportPilotRun
from agent_evals.sut import SupportPilotSUT
from evals.model.case import Case
from evals.model.run import Run

from .conftest import REFERENCE_SUITES, load_cases

CASES = load_cases(REFERENCE_SUITES)
FLAKY_TRIALS = {("r04", 0): "escalate"}
"""Trials whose expected outcome differs from the case: r04#0 crashes (seeded)."""

RUNS = [(case, 0) for case in CASES] + [
    (case, trial) for case in CASES if case.id == "r04" for trial in range(1, 5)
]


def test_all_26_reference_cases_are_loaded() -> None:
    assert len(CASES) == 26
    assert len({case.id for case in CASES}) == 26


@pytest.mark.parametrize(("case", "trial"), RUNS, ids=[f"{c.id}#{t}" for c, t in RUNS])
def test_reference_case(case: Case, trial: int) -> None:
    run = SupportPilotSUT().run(case, trial)
    expect = case.expect
    assert run.error is None
    tickets = [w for w in run.writes if w.kind == "ticket"]
    if (case.id, trial) in FLAKY_TRIALS:
        assert run.outcome == FLAKY_TRIALS[(case.id, trial)]
        assert tickets == []
        assert run.role_errors["logistics_agent"].startswith("InjectedCrashError")
        assert run.dispatched == ["order_agent", "logistics_agent", "policy_agent"]
        return
    assert run.outcome == expect.outcome
    if expect.tickets is not None:
        assert len(tickets) == expect.tickets
    for topic, value in expect.facts.items():
        assert run.facts.get(topic) == value, topic
    conflicts = (expect.model_extra or {}).get("conflicts")
    if conflicts is not None:
        assert set(SupportPilotRun.of(run).conflicts) == set(conflicts)
    reply = run.reply or ""
    for phrase in expect.reply_contains:
        assert phrase in reply
    for phrase in expect.reply_not_contains:
        assert phrase not in reply
    if expect.dispatched is not None:
        assert set(run.dispatched) == set(expect.dispatched)
    if expect.blocked_attempts is not None:
        assert len(run.blocked_attempts) == expect.blocked_attempts
    _assert_invariants(run, case)


def _assert_invariants(run: Run, case: Case) -> None:
    assert run.task_count <= case.expect.max_tasks
    assert run.chars_returned <= case.expect.max_chars
    assert not re.search(r"[a-z_]+#\d+", run.reply or "")
    for write in run.writes:
        assert write.approved and write.via_outbox
        assert write.idempotency_key == f"{case.id}-{run.trial}:{write.kind}"
    if run.writes:
        assert run.outcome == "replied"
    record = SupportPilotRun.of(run)
    if record.reply_task_seq is not None:
        assert record.evidence_complete_seq is not None
        assert record.reply_task_seq > record.evidence_complete_seq
    assert all(step.status is not None for step in run.steps)
    if "提交补发申请" in (run.reply or ""):
        assert any(w.kind == "ticket" for w in run.writes)
