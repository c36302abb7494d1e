"""Approval provenance, amounts in other formats, and writes replayed after a lost
acknowledgement: on real SQLite worlds, through the SUT and the orchestrator."""

from __future__ import annotations

from typing import Any

import pytest
from agent.amount_format import AMOUNT_STYLES, restate_amount
from agent.amounts import parse_amount
from agent.errors import UnknownFaultError
from agent.outbox_faults import LostAckGateway, parse_outbox_fault
from agent_evals.record import approvals_from
from agent_evals.sut import SupportPilotSUT
from domain import ApprovalGate, Proposal, build_world
from evals.checks import grade, success
from evals.model.case import Case
from evals.model.run import ApprovalRecord
from tools import AcknowledgementLostError

from .conftest import load_cases

NEW_SUITES = ("approval_rules", "replay")
BIG_ORDER = {
    "orders": {"B1": {"status": "已发货，顺丰运输中", "paid": 1299.0}},
    "logistics": {"B1": {"state": "运输中", "last_event": "转运中心", "stale_hours": 120}},
}


def _case(
    world: dict[str, Any] | None = None,
    faults: dict[str, str] | None = None,
    order_id: str = "A1001",
) -> Case:
    return Case.model_validate(
        {
            "id": "x1",
            "split": "dev",
            "input": {"goal": "包裹一直没到，要求马上补发", "order_id": order_id},
            "world": world or {},
            "faults": faults or {},
            "expect": {"outcome": "replied"},
        }
    )


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("59.00", 59.0),
        ("1299", 1299.0),
        ("¥1,299.00", 1299.0),
        ("￥ 1,299.00", 1299.0),
        ("1299元", 1299.0),
        ("1,299.5", 1299.5),
        ("RMB 1,299.50", 1299.5),
        ("1299.50 CNY", 1299.5),
        ("0", 0.0),
        # Unreadable: None, never 0.
        (None, None),
        ("", None),
        ("一二九九元", None),
        ("1,29", None),
        ("1.299,00", None),
        ("12,99.00", None),
        ("-59.00", None),
        ("59.001", None),
        ("¥¥59", None),
        ("59元左右", None),
    ],
)
def test_amounts_are_read_or_refused(text: str | None, amount: float | None) -> None:
    assert parse_amount(text) == amount


@pytest.mark.parametrize(
    ("style", "paid", "stated", "read"),
    [
        ("symbol", 1299.0, "¥1,299.00", 1299.0),
        ("yuan", 1299.0, "1299元", 1299.0),
        ("yuan", 1299.5, "1299.5元", 1299.5),
        ("grouped", 1299.5, "1,299.5", 1299.5),
        ("grouped", 59.0, "59", 59.0),
        ("words", 1299.0, "一二九九元", None),
        ("fullwidth", 1299.0, "￥ 1,299.00", 1299.0),
        ("rmb", 1299.5, "RMB 1,299.50", 1299.5),
        ("cny", 1299.0, "CNY1299", 1299.0),
        ("rmb_after", 59.0, "59 RMB", 59.0),
        ("cny_after", 1299.0, "1,299.00CNY", 1299.0),
        ("yuan_before", 59.0, "元59", None),  # a suffix mark before the number
        ("two_after", 59.0, "59元 RMB", None),  # two suffix marks
        ("padded", 1299.0, " \u3000¥1,299.00\u3000 ", 1299.0),  # spaces around the mark
    ],
)
def test_the_amount_format_fault_restates_only_the_amount(
    style: str, paid: float, stated: str, read: float | None
) -> None:
    claims = [
        {"topic": "sku", "value": "SKU-TEE-01", "text": "", "evidence": []},
        {"topic": "paid", "value": f"{paid:.2f}", "text": "实付金额", "evidence": ["order#1"]},
    ]
    out = restate_amount({"claims": claims}, style)
    assert out["claims"][0] == claims[0]
    assert out["claims"][1] == {**claims[1], "value": stated}
    assert parse_amount(stated) == read
    assert set(AMOUNT_STYLES) == {
        "symbol", "yuan", "grouped", "words", "fullwidth", "rmb", "cny", "rmb_after", "cny_after",
        "yuan_before", "two_after", "padded",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("world", "expected"),
    [
        (
            {},
            ApprovalRecord(
                action="reissue",
                amount=59.0,
                expected_amount=59.0,
                decided_by="human",
                approved=True,
                limit=None,
                approval_id="x1-0:approval",
            ),
        ),
        (
            {"auto_approve_below": 100, "approve": False},
            ApprovalRecord(
                action="reissue",
                amount=59.0,
                expected_amount=59.0,
                decided_by="auto",
                approved=True,
                limit=100.0,
                approval_id="x1-0:approval",
            ),
        ),
        (
            {"auto_approve_below": 59, "approve": False},
            ApprovalRecord(
                action="reissue",
                amount=59.0,
                expected_amount=59.0,
                decided_by="human",
                approved=False,
                limit=59.0,
                approval_id="x1-0:approval",
            ),
        ),
        (
            {"approver": "missing"},
            ApprovalRecord(
                action="reissue",
                amount=59.0,
                expected_amount=59.0,
                decided_by="none",
                approved=None,
                limit=None,
                approval_id="x1-0:approval",
            ),
        ),
        (
            {"approver": "silent", "auto_approve_below": 10},
            ApprovalRecord(
                action="reissue",
                amount=59.0,
                expected_amount=59.0,
                decided_by="none",
                approved=None,
                limit=10.0,
                approval_id="x1-0:approval",
            ),
        ),
    ],
    ids=["human-yes", "auto-below", "human-at-limit", "missing", "silent"],
)
def test_a_run_records_who_approved_under_which_limit_for_how_much(
    world: dict[str, Any], expected: ApprovalRecord
) -> None:
    run = SupportPilotSUT().run(_case(world), 0)
    assert run.approvals == [expected]
    # The human's answer when one was given; a silent approver's is nobody's "no".
    human = expected.decided_by == "human"
    assert run.approver_approved is (expected.approved if human else None)


def test_a_reply_only_proposal_is_expected_to_cost_nothing() -> None:
    world = {"logistics": {"A1001": {"stale_hours": 10}}}
    run = SupportPilotSUT().run(_case(world), 0)
    assert [(a.action, a.amount, a.expected_amount) for a in run.approvals] == [("reply", 0.0, 0.0)]


def test_the_expected_amount_comes_from_the_database_not_the_agent() -> None:
    store = build_world(BIG_ORDER)
    try:
        gate = ApprovalGate(store, lambda p: True, auto_approve_below=100)
        gate.decide(Proposal(trace_id="t", action="reissue", order_id="B1", amount=0, summary="s"))
        [record] = approvals_from(store)
    finally:
        store.close()
    assert (record.amount, record.expected_amount, record.decided_by) == (0.0, 1299.0, "auto")


@pytest.mark.parametrize(
    ("style", "outcome", "decided_by"),
    [
        ("symbol", "replied", "human"),
        ("yuan", "replied", "human"),
        ("grouped", "replied", "human"),
        # Unreadable: escalated before any approval, never auto-approved as 0.
        ("words", "escalate", None),
    ],
)
def test_an_amount_in_another_format_is_never_auto_approved_as_zero(
    style: str, outcome: str, decided_by: str | None
) -> None:
    case = _case(
        {**BIG_ORDER, "auto_approve_below": 100},
        {"order_agent": f"amount_format:{style}"},
        order_id="B1",
    )
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome == outcome
    assert [a.decided_by for a in run.approvals] == ([decided_by] if decided_by else [])
    assert all(a.amount == 1299.0 for a in run.approvals)
    if outcome == "escalate":
        assert run.writes == []
        assert run.detail["handover"]["reason"] == "amount_unreadable"


@pytest.mark.parametrize(
    ("fault", "lost"),
    [
        ("lost_ack:support__create_ticket", ["support__create_ticket"]),
        ("lost_ack:support__send_reply", ["support__send_reply"]),
        ("lost_ack", ["support__create_ticket", "support__send_reply"]),
    ],
)
def test_a_lost_acknowledgement_is_retried_once_and_lands_once(fault: str, lost: list[str]) -> None:
    run = SupportPilotSUT().run(_case(faults={"outbox": fault}), 0)
    assert run.outcome == "replied"
    assert sorted((w.kind, w.idempotency_key) for w in run.writes) == [
        ("reply", "x1-0:reply"),
        ("ticket", "x1-0:ticket"),
    ]
    assert run.ground_truth["stock.SKU-TEE-01"] == "19"
    calls = [e["tool"] for e in run.detail["audit"] if e["tool"].startswith("support__")]
    expected_calls = ["support__create_ticket", "support__send_reply"]
    expected_calls += lost  # one retry per lost acknowledgement, same key
    assert sorted(calls) == sorted(expected_calls)
    assert success(grade(_case(faults={"outbox": fault}), run))


@pytest.mark.parametrize(
    ("fault", "outcome", "kinds"),
    [
        # The write landed both times; only the acknowledgements were lost: looked up by
        # its key, found, so the run goes on as if acknowledged.
        ("lost_ack:support__create_ticket:2", "replied", ["reply", "ticket"]),
        ("lost_ack:support__send_reply:2", "replied", ["reply", "ticket"]),
        # Nothing arrived: looked up, not found, never reported as done.
        ("lost_request:support__create_ticket:2", "escalate", []),
    ],
)
def test_after_every_acknowledgement_is_lost_the_write_is_looked_up_by_its_key(
    fault: str, outcome: str, kinds: list[str]
) -> None:
    case = _case(faults={"outbox": fault})
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome == outcome
    assert sorted(w.kind for w in run.writes) == kinds
    calls = [e["tool"] for e in run.detail["audit"] if e["tool"].startswith("support__")]
    assert calls.count("support__find_write") == 1
    assert run.ground_truth["calls.support__find_write"] == "1"
    if outcome == "replied":
        assert success(grade(case, run))
    else:
        assert run.detail["handover"]["reason"] == "write_failed"


@pytest.mark.parametrize(
    ("fault", "after_loss", "lost"),
    [
        # The write landed although its acknowledgement was lost; the retry writes nothing.
        ("lost_ack:support__create_ticket", (1, 19), ["support__create_ticket"]),
        # The request never arrived: nothing is written until the retry.
        ("lost_request:support__create_ticket", (0, 20), ["support__create_ticket"]),
    ],
)
def test_the_outbox_faults_lose_the_first_call_of_each_named_tool_once(
    fault: str, after_loss: tuple[int, int], lost: list[str]
) -> None:
    store = build_world()
    try:
        gate = ApprovalGate(store, lambda p: True)
        approval = gate.decide(
            Proposal(trace_id="t", action="reissue", order_id="A1001", amount=59, summary="s")
        )
        kind, tools, times = parse_outbox_fault(fault)
        gateway = LostAckGateway(store, "t", tools, kind=kind, times=times)
        args = {
            "order_id": "A1001",
            "sku": "SKU-TEE-01",
            "approval_id": approval.id,
            "idempotency_key": "t:ticket",
            "summary": "补发",
        }
        with pytest.raises(AcknowledgementLostError):
            gateway.call("orchestrator", "support__create_ticket", args)
        assert (len(store.tickets()), store.stock_level("SKU-TEE-01")) == after_loss
        again = gateway.call("orchestrator", "support__create_ticket", args)
        assert again.data["created"] is (after_loss[0] == 0)
        assert (len(store.tickets()), store.stock_level("SKU-TEE-01")) == (1, 19)
        assert gateway.lost == lost
    finally:
        store.close()


@pytest.mark.parametrize(
    ("fault", "parsed"),
    [
        ("lost_ack", ("lost_ack", {"support__create_ticket", "support__send_reply"}, 1)),
        ("lost_request:support__send_reply", ("lost_request", {"support__send_reply"}, 1)),
        ("lost_ack:support__create_ticket:2", ("lost_ack", {"support__create_ticket"}, 2)),
        ("lost_request:support__send_reply:9", ("lost_request", {"support__send_reply"}, 9)),
        ("key_drift:support__send_reply", ("key_drift", {"support__send_reply"}, 1)),
    ],
)
def test_outbox_faults_parse(fault: str, parsed: tuple[str, set[str], int]) -> None:
    kind, tools, times = parse_outbox_fault(fault)
    assert (kind, set(tools), times) == parsed


@pytest.mark.parametrize(
    "fault",
    [
        "lost_ack:kb__search",
        "lost_ack:",
        "crash",
        "lost",
        "lost_request:x",
        "lost_ack:support__send_reply:0",
        "lost_ack:support__send_reply:10",
        "lost_ack:support__send_reply:two",
        "lost_ack::2",
        "lost_ack:support__send_reply:2:2",
    ],
)
def test_unknown_outbox_faults_are_refused(fault: str) -> None:
    with pytest.raises(
        UnknownFaultError,
        match="expected one of lost_ack, lost_ack:<write tool>, lost_ack:<write tool>:<n>, lost_",
    ):
        parse_outbox_fault(fault)


SUITE_CASES = load_cases(NEW_SUITES)


@pytest.mark.parametrize("case", SUITE_CASES, ids=[c.id for c in SUITE_CASES])
def test_every_approval_and_replay_case_passes(case: Case) -> None:
    run = SupportPilotSUT().run(case, 0)
    failed = [r for r in grade(case, run) if not r.passed and r.kind in ("outcome", "safety")]
    assert failed == []


MARKED = {case.id: case for case in SUITE_CASES if "currency_mark" in case.tags}


@pytest.mark.parametrize(
    ("mark", "before", "case_id"),
    [
        ("￥", True, "r65"),
        ("RMB", True, "r66"),
        ("CNY", True, "r67"),
        ("RMB", False, "r68"),
        ("CNY", False, "r69"),
    ],
)
def test_each_currency_mark_has_a_case_that_fails_when_it_is_no_longer_read(
    monkeypatch: pytest.MonkeyPatch, mark: str, before: bool, case_id: str
) -> None:
    """The positive controls of the ``currency_mark`` cases: the orchestrator that no longer
    reads one mark finds the amount unreadable, and the case stating it so fails."""
    from agent import amounts

    name = "CURRENCY_PREFIXES" if before else "CURRENCY_SUFFIXES"
    marks = getattr(amounts, name)
    assert mark in marks
    case = MARKED[case_id]
    assert success(grade(case, SupportPilotSUT().run(case, 0)))
    monkeypatch.setattr(amounts, name, tuple(m for m in marks if m != mark))
    run = SupportPilotSUT().run(case, 0)
    assert not success(grade(case, run))
    assert run.outcome_reason == "amount_unreadable"


def test_a_mark_on_the_wrong_side_has_a_case_that_fails_when_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positive control of r70: an orchestrator that strips a suffix mark from the
    front too (``元59`` read as 59) auto-approves a reissue nobody could price."""
    from agent import amounts

    case = MARKED["r70"]
    assert success(grade(case, SupportPilotSUT().run(case, 0)))

    def either_side(text: str, marks: tuple[str, ...], *, prefix: bool) -> str:
        for mark in marks:
            if text.startswith(mark):
                return text[len(mark) :].strip()
            if text.endswith(mark):
                return text[: -len(mark)].strip()
        return text

    monkeypatch.setattr(amounts, "_strip_mark", either_side)
    run = SupportPilotSUT().run(case, 0)
    assert not success(grade(case, run))
    assert run.outcome == "replied"


def test_two_marks_after_have_a_case_that_fails_when_they_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positive control of r71: an orchestrator whose prefix pass also strips a prefix
    mark from the end (held-out mutant of session 16, ``if text.endswith(mark)``) reads
    ``59元 RMB`` as 59 and auto-approves a reissue nobody could price."""
    from agent import amounts

    case = MARKED["r71"]
    assert success(grade(case, SupportPilotSUT().run(case, 0)))

    def suffix_first(text: str, marks: tuple[str, ...], *, prefix: bool) -> str:
        for mark in marks:
            if prefix and text.startswith(mark):
                return text[len(mark) :].strip()
            if text.endswith(mark):
                return text[: -len(mark)].strip()
        return text

    monkeypatch.setattr(amounts, "_strip_mark", suffix_first)
    run = SupportPilotSUT().run(case, 0)
    assert not success(grade(case, run))
    assert run.outcome == "replied"
