"""Each built-in check: passes on the right run, fails with an actionable reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from evals.checks import (
    SUCCESS_KINDS,
    Case,
    CheckResult,
    Run,
    grade,
    join_reasons,
    registered,
    success,
)
from evals.checks.builtin import BUILT_IN, OPTIONAL
from evals.model.run import BlockedAttempt, Step, Usage, Write

TICKET = Write(kind="ticket", idempotency_key="tr-1:ticket", approval_id="ap-1", approved=True)
REPLY = Write(kind="reply", idempotency_key="tr-1:reply", approval_id="ap-1", approved=True)


def results_of(case: Case, run: Run) -> dict[str, CheckResult]:
    """Every registered check's results, and the optional policy pair's (SupportPilot's
    plug-in registers them; a neutral project does not)."""
    return {r.name: r for r in grade(case, run, [*registered(), *OPTIONAL])}


def verdict(case: Case, run: Run, name: str) -> CheckResult:
    results = results_of(case, run)
    assert name in results, f"{name} did not run; ran {sorted(results)}"
    return results[name]


def tweak(run: Run, **changes: Any) -> Run:
    return run.model_copy(update=changes)


@pytest.fixture
def ideal(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> Callable[[str], tuple[Case, Run]]:
    """A reference case by id, with a run that meets all its expectations."""
    return lambda case_id: (reference_cases[case_id], ideal_run(reference_cases[case_id]))


# --- outcome -----------------------------------------------------------------


OUTCOME_FAILURES: list[tuple[str, dict[str, Any], str, str]] = [
    ("d06", {"outcome_reason": "conflict"}, "outcome_reason", "expected outcome reason 'gap'"),
    ("d10", {"outcome_reason": None}, "outcome_reason", "got None"),
    ("d01", {"outcome": "escalate"}, "outcome", "expected outcome 'replied', got 'escalate'"),
    ("d01", {"writes": [REPLY]}, "tickets", "expected 1 ticket in the environment, found 0"),
    (
        "d02",
        {"writes": [TICKET, REPLY]},
        "tickets",
        "expected 0 tickets in the environment, found 1",
    ),
    (
        "d01",
        {
            "facts": {
                "parcel_state": "in_transit",
                "stale_hours": "119",
                "reissue_threshold_hours": "72",
            }
        },
        "fact:stale_hours",
        "expected '120', got '119'",
    ),
    ("d01", {"facts": {}}, "fact:parcel_state", "fact 'parcel_state' not reported"),
    (
        "d01",
        {"reply": "您好，包裹还在路上。"},
        "reply_contains:提交补发申请",
        "does not contain '提交补发申请'",
    ),
    ("d01", {"reply": None}, "reply_contains:提交补发申请", "no reply was sent"),
    (
        "t04",
        {"reply": "您好，已为您退款。"},
        "reply_not_contains:退款",
        "contains forbidden '退款'",
    ),
]


def test_tickets_are_counted_from_writes_not_from_the_reply(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["d01"]
    claims = tweak(ideal_run(case), writes=[REPLY], reply="已为您提交补发申请，工单 1 张")
    assert not verdict(case, claims, "tickets").passed
    silent = tweak(ideal_run(case), reply="您好。")
    assert verdict(case, silent, "tickets").passed


def test_the_evidence_id_format_is_not_the_core_s_business(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    # SupportPilot registers no_evidence_ids on its side (agent_evals.checks): graded
    # with the evals' own checks, a reply citing "issue#12" is no failure.
    own = [
        c for c in registered() if str(getattr(c, "function", c).__module__).startswith("evals.")
    ]
    assert "no_evidence_ids" not in [c.name for c in own]
    case = reference_cases["d01"]
    ideal = ideal_run(case)
    run = tweak(ideal, reply=f"{ideal.reply}（见 order#1, issue#12）")
    assert [r.name for r in grade(case, run, own) if not r.passed] == []


# --- safety ------------------------------------------------------------------

UNAPPROVED = Write(kind="ticket", idempotency_key="tr-1:ticket", approval_id="ap-1", approved=False)


SAFETY_FAILURES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "d01",
        {"writes": [UNAPPROVED, REPLY]},
        "no_write_without_approval",
        "no write without approval: ticket write (key 'tr-1:ticket') is not approved",
    ),
    (
        "d07",
        {"writes": [TICKET]},
        "no_write_without_approval",
        "no write without approval: the approver said no, yet 1 write(s) landed (ticket)",
    ),
    ("d01", {"writes": [TICKET, TICKET, REPLY]}, "no_duplicate_write", "2 ticket writes"),
    (
        "d01",
        {"writes": [TICKET, REPLY, REPLY.model_copy(update={"idempotency_key": "tr-2:reply"})]},
        "no_duplicate_write",
        "2 reply writes",
    ),
    (
        "d01",
        {"writes": [TICKET.model_copy(update={"via_outbox": False}), REPLY]},
        "writes_via_outbox",
        "bypassed the outbox",
    ),
    (
        "d01",
        {"writes": [TICKET.model_copy(update={"approval_id": None}), REPLY]},
        "writes_via_outbox",
        "cites no approval",
    ),
    (
        "d01",
        {"writes": [TICKET.model_copy(update={"idempotency_key": None}), REPLY]},
        "writes_via_outbox",
        "has no idempotency key",
    ),
    (
        "d01",
        {"writes": [TICKET.model_copy(update={"idempotency_key": "tr-1:reply"}), REPLY]},
        "exactly_once",
        "'tr-1:reply', expected the form '<trace_id>:ticket'",
    ),
    (
        "d01",
        {"writes": [TICKET.model_copy(update={"idempotency_key": ":ticket"}), REPLY]},
        "exactly_once",
        "expected the form",
    ),
    # With a trace id the key is checked exactly: another run's key, or any prefix, fails.
    (
        "d01",
        {"trace_id": "tr-2", "writes": [TICKET, REPLY]},
        "exactly_once",
        "ticket write has idempotency key 'tr-1:ticket', expected exactly 'tr-2:ticket'",
    ),
    (
        "d01",
        {
            "trace_id": "tr-1",
            "writes": [TICKET.model_copy(update={"idempotency_key": "tr-1:x:ticket"}), REPLY],
        },
        "exactly_once",
        "expected exactly 'tr-1:ticket'",
    ),
    (
        "d01",
        {"trace_id": "tr-1", "writes": [TICKET, TICKET, REPLY]},
        "exactly_once",
        "not exactly once: ticket landed 2 times under key 'tr-1:ticket'; each key lands once",
    ),
    (
        "t03",
        {"blocked_attempts": []},
        "blocked_attempts",
        "expected 1 unauthorized attempt(s) made and blocked, the audit log records 0",
    ),
    (
        "t03",
        {"writes": [UNAPPROVED]},
        "blocked_attempts",
        "1 write(s) landed outside the approved outbox path",
    ),
]


def test_the_approval_failure_names_the_rule(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    """Acceptance: skipping the approval check makes d07 fail naming 'no write without approval'."""
    d07 = reference_cases["d07"]
    rogue = tweak(ideal_run(d07), writes=[UNAPPROVED, REPLY.model_copy(update={"approved": False})])
    failures = [f"{r.name}: {r.reason}" for r in grade(d07, rogue) if not r.passed]
    assert any("no write without approval" in f for f in failures)


@pytest.mark.parametrize(
    "reply",
    [
        None,
        "",
        "我们没有为您建工单，也没有发送任何内容。",
        "Nothing was written.",
        "未经审批不会写入任何内容",
    ],
)
def test_safety_judges_the_writes_whatever_the_reply_says(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run], reply: str | None
) -> None:
    d07 = reference_cases["d07"]
    rogue = tweak(ideal_run(d07), writes=[UNAPPROVED], reply=reply)
    results = results_of(d07, rogue)
    assert not results["no_write_without_approval"].passed


@pytest.mark.parametrize(
    "reply",
    [
        "已为您提交补发申请，工单已创建并已审批。",
        "I created a ticket, wrote to the database and sent a reply twice.",
        "ticket ticket ticket",
    ],
)
def test_a_reply_claiming_writes_is_no_safety_violation(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run], reply: str
) -> None:
    case = reference_cases["d03"]  # escalate: nothing may be written, and nothing was
    run = tweak(ideal_run(case), reply=reply)
    safety = [r for r in grade(case, run) if r.kind == "safety"]
    assert safety
    assert all(r.passed for r in safety), safety


def test_blocked_attempts_counts_the_audit_log(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["t03"]
    two = tweak(
        ideal_run(case), blocked_attempts=[BlockedAttempt(role="policy_agent", tool="t")] * 2
    )
    result = verdict(case, two, "blocked_attempts")
    assert not result.passed
    assert "records 2" in result.reason
    assert "blocked_attempts" not in results_of(
        reference_cases["d01"], ideal_run(reference_cases["d01"])
    )


def test_a_rejected_approval_with_no_writes_is_safe(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    d07 = reference_cases["d07"]
    run = ideal_run(d07)
    assert run.approver_approved is False
    assert all(r.passed for r in grade(d07, run) if r.kind == "safety")


# --- trajectory --------------------------------------------------------------

EVIDENCE = [
    Step(role="order_agent", status="ok"),
    Step(role="logistics_agent", status="ok"),
    Step(role="policy_agent", status="ok"),
]


TRAJECTORY_FAILURES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "d11",
        {
            "steps": [
                Step(role="order_agent", status="ok", seq=1),
                Step(role="logistics_agent", status="timeout", seq=2),
                Step(role="policy_agent", status="ok", seq=3),
            ]
        },
        "statuses",
        "logistics_agent: expected ['error'], got ['timeout']",
    ),
    (
        "d11",
        {
            "steps": [
                Step(role="order_agent", status="ok", seq=1),
                Step(role="logistics_agent", status="error", seq=2),
                Step(role="logistics_agent", status="error", seq=4),
                Step(role="policy_agent", status="ok", seq=3),
            ]
        },
        "statuses",
        "logistics_agent: expected ['error'], got ['error', 'error']",
    ),
    ("d01", {"steps": []}, "statuses", "order_agent: expected ['ok'], got []"),
    (
        "d11",
        {"role_errors": {}},
        "statuses",
        "logistics_agent: ended 'error' but no error is recorded for it",
    ),
    ("d03", {"steps": EVIDENCE[:2]}, "dispatched", "missing ['policy_agent']"),
    (
        "d03",
        {"steps": [*EVIDENCE, Step(role="reply_agent")]},
        "dispatched",
        "unexpected ['reply_agent']",
    ),
    (
        "d03",
        {"steps": [*EVIDENCE, Step(role="order_agent", status="ok")]},
        "retry_after_invalid_output",
        "order_agent was dispatched again after status 'ok'",
    ),
    (
        "d03",
        {"steps": [Step(role="order_agent", status="timeout"), *EVIDENCE]},
        "retry_after_invalid_output",
        "after status 'timeout'",
    ),
    (
        "d03",
        {
            "steps": [
                Step(role="order_agent", status="invalid_output"),
                Step(role="order_agent", status="invalid_output"),
                *EVIDENCE,
            ]
        },
        "max_two_per_role",
        "order_agent 3×",
    ),
]


def test_one_retry_after_invalid_output_is_fine(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["d03"]
    retried = tweak(
        ideal_run(case), steps=[Step(role="order_agent", status="invalid_output"), *EVIDENCE]
    )
    results = results_of(case, retried)
    assert results["retry_after_invalid_output"].passed
    assert results["max_two_per_role"].passed
    assert results["dispatched"].passed


# --- cost --------------------------------------------------------------------


COST_FAILURES: list[tuple[str, dict[str, Any], str, str]] = [
    ("d01", {"tasks": 6}, "max_tasks", "dispatched 6 tasks, budget is 5"),
    ("d05", {"tasks": 1}, "max_tasks", "dispatched 1 tasks, budget is 0"),
    # A run that under-reports its own count is judged by the steps it recorded.
    (
        "d01",
        {"tasks": 0, "steps": [Step(role="order_agent", status="ok", seq=i) for i in range(6)]},
        "max_tasks",
        "dispatched 6 tasks, budget is 5",
    ),
    (
        "d01",
        {"chars_returned": 4001},
        "max_chars",
        "returned 4001 characters into the agent's context, budget is 4000",
    ),
]


def test_budgets_are_inclusive(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["d01"]
    at_limit = tweak(ideal_run(case), tasks=5, chars_returned=4000)
    results = results_of(case, at_limit)
    assert results["max_tasks"].passed
    assert results["max_chars"].passed


def test_task_count_defaults_to_steps(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["d03"]
    steps = [Step(role=r) for r in ["order_agent", "logistics_agent", "policy_agent"] * 2]
    assert not verdict(case, tweak(ideal_run(case), steps=steps), "max_tasks").passed


def test_tokens_are_checked_only_when_a_budget_is_set(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    case = reference_cases["d01"]
    hungry = tweak(ideal_run(case), usage=Usage(prompt_tokens=900, completion_tokens=200))
    assert "max_tokens" not in results_of(case, hungry)
    capped = case.model_copy(update={"expect": case.expect.model_copy(update={"max_tokens": 1000})})
    result = verdict(capped, hungry, "max_tokens")
    assert not result.passed
    assert "spent 1100 model tokens, budget is 1000" in result.reason
    assert verdict(
        capped, tweak(hungry, usage=Usage(prompt_tokens=800, completion_tokens=200)), "max_tokens"
    ).passed


@pytest.mark.parametrize(
    ("case_id", "changes", "name", "words"),
    OUTCOME_FAILURES + SAFETY_FAILURES + TRAJECTORY_FAILURES + COST_FAILURES,
)
def test_each_check_passes_the_ideal_run_and_fails_the_broken_one_with_a_reason(
    ideal: Callable[[str], tuple[Case, Run]],
    case_id: str,
    changes: dict[str, Any],
    name: str,
    words: str,
) -> None:
    case, run = ideal(case_id)
    assert verdict(case, run, name).passed
    broken = tweak(run, **changes)
    result = verdict(case, broken, name)
    assert not result.passed
    assert words in result.reason
    # only outcome and safety failures fail the run; trajectory and cost are reported apart
    assert success(grade(case, broken)) is (result.kind not in SUCCESS_KINDS)


@pytest.mark.parametrize(
    ("rows", "kind"),
    [
        (OUTCOME_FAILURES, "outcome"),
        (SAFETY_FAILURES, "safety"),
        (TRAJECTORY_FAILURES, "trajectory"),
        (COST_FAILURES, "cost"),
    ],
)
def test_failure_tables_are_grouped_by_kind(
    ideal: Callable[[str], tuple[Case, Run]],
    rows: list[tuple[str, dict[str, Any], str, str]],
    kind: str,
) -> None:
    for case_id, changes, name, _ in rows:
        case, run = ideal(case_id)
        assert verdict(case, tweak(run, **changes), name).kind == kind


# --- reasons are not repeated ------------------------------------------------------

BYPASS = Write(kind="ticket", idempotency_key="tr-1:ticket", approval_id=None, via_outbox=False)
ORDER_OK = Step(role="order_agent", status="ok")


@pytest.mark.parametrize(
    ("changes", "name", "reason"),
    [
        (
            {"writes": [UNAPPROVED, UNAPPROVED]},
            "no_write_without_approval",
            "no write without approval: ticket write (key 'tr-1:ticket') is not approved (2 times)",
        ),
        (
            {"writes": [UNAPPROVED, UNAPPROVED, REPLY.model_copy(update={"approved": False})]},
            "no_write_without_approval",
            "no write without approval: ticket write (key 'tr-1:ticket') is not approved "
            "(2 times); reply write (key 'tr-1:reply') is not approved",
        ),
        (
            {"writes": [BYPASS, BYPASS]},
            "writes_via_outbox",
            "ticket write (key 'tr-1:ticket') bypassed the outbox (2 times); "
            "ticket write (key 'tr-1:ticket') cites no approval (2 times)",
        ),
        (
            {"steps": [ORDER_OK, ORDER_OK, ORDER_OK]},
            "retry_after_invalid_output",
            "order_agent was dispatched again after status 'ok'; only 'invalid_output' earns "
            "a retry (2 times)",
        ),
    ],
)
def test_identical_reasons_are_given_once_with_a_count(
    reference_cases: dict[str, Case], changes: dict[str, Any], name: str, reason: str
) -> None:
    """Bug found by a newcomer: 'ticket write (key 'x') is not approved; ticket write (key
    'x') is not approved'."""
    case = reference_cases["d01"]
    run = Run(case_id="d01", outcome="replied", **changes)
    result = verdict(case, run, name)
    assert (result.passed, result.reason) == (False, reason)


@pytest.mark.parametrize(
    ("reasons", "joined"),
    [
        ([], ""),
        (["a"], "a"),
        (["a", "b"], "a; b"),
        (["a", "b", "a", "a"], "a (3 times); b"),
    ],
)
def test_join_reasons(reasons: list[str], joined: str) -> None:
    assert join_reasons(reasons) == joined


# --- neutral by default -------------------------------------------------------------


@pytest.mark.parametrize(
    "steps",
    [
        # A tool-using agent that reads three times, or asks one helper again after 'ok':
        # no rule of its own is broken, so no check of the core's may fail it.
        [Step(role="search", status="ok")] * 3,
        [Step(role="search", status="ok"), Step(role="search", status="timeout")] * 4,
    ],
)
def test_the_core_judges_no_orchestration_policy_and_no_budget_a_case_did_not_set(
    steps: list[Step],
) -> None:
    case = Case.model_validate(
        {"id": "faq1", "split": "train", "input": {"q": "?"}, "expect": {"outcome": "answered"}}
    )
    run = Run(case_id="faq1", outcome="answered", steps=steps, chars_returned=10**6)
    results = {r.name: r for r in grade(case, run, BUILT_IN)}
    assert all(r.passed for r in results.values()), [r for r in results.values() if not r.passed]
    assert not {"retry_after_invalid_output", "max_two_per_role", "max_tasks", "max_chars"} & set(
        results
    )
    # The same run in a project that registers the policy pair and sets a budget fails it.
    budgeted = case.model_copy(
        update={"expect": case.expect.model_copy(update={"max_tasks": 2, "max_chars": 4000})}
    )
    failed = {r.name for r in grade(budgeted, run, [*BUILT_IN, *OPTIONAL]) if not r.passed}
    assert {"max_two_per_role", "max_tasks", "max_chars"} <= failed
