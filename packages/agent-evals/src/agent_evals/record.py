"""Turning a finished turn into an evals ``Run``: trajectory from the bus log, safety
facts from the database and the audit log, never from what the agent says."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from agent.brain import Brain, Task, ToolBox
from agent.bus import Message
from agent.contracts import EVIDENCE_ROLES, REPLY_ROLE
from agent.outcome import Outcome
from domain import Approval, OrderNotFoundError, ShipmentNotFoundError, Store
from domain.models import DecidedBy
from evals.model.run import (
    ApprovalDecider,
    ApprovalRecord,
    BlockedAttempt,
    Step,
    Write,
)
from tools import FIND_WRITE, TOOLS

from agent_evals.spec_terms import canonical_order_id, reissue_threshold_hours
from agent_evals.supportpilot_run import Screened, SupportPilotRun

OUTBOX_TOOLS = {"ticket": "support__create_ticket", "reply": "support__send_reply"}


DECIDERS: dict[DecidedBy, ApprovalDecider] = {
    "approver": "human",
    "auto": "auto",
    "fail_closed": "none",
}
"""The domain's ``decided_by`` -> the run record's."""


def truth(store: Store) -> Store:
    """The run's database as it is, whatever tables the case's world makes fail for the
    agent (``world.table_errors``): the record reads the facts, never the fault."""
    return Store(store.db, path=store.path)


def _expected_amount(store: Store, approval: Approval) -> float | None:
    """What the proposal puts at stake according to the database: the order's paid amount
    for a reissue, nothing for a reply; ``None`` when the database cannot say."""
    if approval.action == "reply":
        return 0.0
    if approval.action != "reissue":
        return None
    try:
        return truth(store).get_order(approval.order_id).paid
    except OrderNotFoundError:
        return None


def approvals_from(store: Store) -> list[ApprovalRecord]:
    """Every approval decision in the database, in order: who decided (``human``,
    ``auto``, ``none`` when the gate failed closed), the answer (``None`` when nobody
    answered), the amount the agent proposed, the amount the database says is at stake,
    and the auto-approval limit in force."""
    records: list[ApprovalRecord] = []
    for approval in store.approvals():
        decided_by = DECIDERS[approval.decided_by]
        approved: bool | None = approval.status == "approved"
        if decided_by == "none" and not approved:
            approved = None
        records.append(
            ApprovalRecord(
                action=approval.action,
                amount=approval.amount,
                expected_amount=_expected_amount(store, approval),
                decided_by=decided_by,
                approved=approved,
                limit=approval.auto_approve_below,
                approval_id=approval.id,
            )
        )
    return records


def _outbox_keys(store: Store) -> set[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for entry in store.audit():
        if entry.status == "ok" and entry.tool in OUTBOX_TOOLS.values():
            key = json.loads(entry.args).get("idempotency_key")
            keys.add((entry.tool, str(key)))
    return keys


def writes_from(store: Store) -> list[Write]:
    """Every ticket and sent reply in the database, with whether its approval is
    recorded as approved and whether an audited outbox call wrote it."""
    approved = {a.id for a in store.approvals() if a.status == "approved"}
    outbox = _outbox_keys(store)
    rows = [("ticket", t.idempotency_key, t.approval_id) for t in store.tickets()]
    rows += [("reply", r.idempotency_key, r.approval_id) for r in store.replies()]
    return [
        Write(
            kind=kind,
            idempotency_key=key,
            approval_id=approval_id,
            approved=approval_id in approved,
            via_outbox=(OUTBOX_TOOLS[kind], key) in outbox,
        )
        for kind, key, approval_id in rows
    ]


def steps_from(log: list[Message]) -> list[Step]:
    """One step per task message, with the status of the result answering it."""
    status_by_task = {
        m.payload.get("task_seq"): m.payload.get("status") for m in log if m.kind == "result"
    }
    return [
        Step(role=m.recipient, status=status_by_task.get(m.seq), seq=m.seq)
        for m in log
        if m.kind == "task"
    ]


def screened_from(log: list[Message]) -> list[Screened]:
    """Every claim hygiene dropped, from the result messages, in log order."""
    return [
        Screened(
            role=m.sender,
            topic=str(dropped.get("claim", {}).get("topic", "")),
            reason=str(dropped.get("reason", "")),
        )
        for m in log
        if m.kind == "result"
        for dropped in m.payload.get("dropped") or []
    ]


def evidence_complete_seq(log: list[Message]) -> int | None:
    """The log position of the last evidence result, once every evidence role answered."""
    results = [m for m in log if m.kind == "result" and m.sender in EVIDENCE_ROLES]
    if {m.sender for m in results} != set(EVIDENCE_ROLES):
        return None
    return max(m.seq for m in results)


def ground_truth(store: Store, order_id: str | None) -> dict[str, str]:
    """What the database says about the order a run was about, after the run: the facts a
    reply is checked against (never the agent's claims). Keys: ``order.id``,
    ``order.customer``, ``order.sku``, ``order.paid`` (two decimals), ``shipment.state``,
    ``shipment.stale_hours``, ``policy.reissue_threshold_hours`` (the current policy's
    threshold) and ``stock.<sku>`` for the order's SKU; a key is absent when the world has
    no such fact (no order, no shipment, no current policy). Also ``calls.<tool>`` for the outbox's
    tools (the write tools and ``support__find_write``): how many calls of each reached
    the gateway (the audit log), so a case can tell a retried write from a single one, and
    see a writer look its write up; and ``ticket.summary``, the last ticket's
    summary, when a ticket was filed."""
    facts: dict[str, str] = {}
    store = truth(store)
    tickets = store.tickets()
    if tickets:
        facts["ticket.summary"] = tickets[-1].summary
    audited = [entry.tool for entry in store.audit()]
    for name, tool in TOOLS.items():
        if tool.kind == "write" or name == FIND_WRITE.name:
            facts[f"calls.{name}"] = str(audited.count(name))
    order_id = canonical_order_id(order_id)
    if order_id:
        try:
            order = store.get_order(order_id)
        except OrderNotFoundError:
            pass
        else:
            facts["order.id"] = order.id
            facts["order.customer"] = order.customer
            facts["order.sku"] = order.sku
            facts["order.paid"] = f"{order.paid:.2f}"
            facts[f"stock.{order.sku}"] = str(store.stock_level(order.sku))
        try:
            ship = store.get_shipment(order_id)
        except ShipmentNotFoundError:
            pass
        else:
            facts["shipment.state"] = ship.state
            facts["shipment.stale_hours"] = str(ship.stale_hours)
    threshold = reissue_threshold_hours(store.db.query("SELECT * FROM policies"))
    if threshold is not None:
        facts["policy.reissue_threshold_hours"] = str(threshold)
    return facts


OUTCOME = "outcome"
"""The ``detail`` key of what the orchestrator's outcome says beyond the record's own
fields (:func:`build_run`): the approval it names (``approval_id``) and the reply it says
was sent (``reply``), for the ``outcome_agrees_with_store`` invariant."""

POLICY_TEXT_FIELDS = ("title", "body", "keywords", "version", "effective_date")
"""The fields of a policy document the environment records as the table holds them."""
ENVIRONMENT = "environment"
"""The ``detail`` key of what the database holds for the invariants
(:mod:`agent_evals.invariants`): see :func:`environment`."""


def stock_levels(store: Store) -> dict[str, int]:
    """Units in stock per SKU, as the database holds them now."""
    rows = store.db.query("SELECT sku, qty FROM stock ORDER BY sku")
    return {str(row["sku"]): int(row["qty"]) for row in rows}


def environment(store: Store, stock_before: Mapping[str, int] | None) -> dict[str, Any]:
    """What the database holds after the run, for the invariants: the stock before the
    run (``None`` when the caller did not take it) and after it, every order (customer,
    SKU, status), every ticket, sent reply and approval with the order it names. Read
    from the tables, never from the agent's outcome."""
    orders = store.db.query("SELECT id, customer, sku, status FROM orders ORDER BY id")
    return {
        "stock_before": None if stock_before is None else dict(stock_before),
        "stock_after": stock_levels(store),
        "orders": {
            str(row["id"]): {
                "customer": row["customer"],
                "sku": row["sku"],
                "status": row["status"],
            }
            for row in orders
        },
        "tickets": [
            {
                "order_id": t.order_id,
                "sku": t.sku,
                "trace_id": t.trace_id,
                "idempotency_key": t.idempotency_key,
            }
            for t in store.tickets()
        ],
        "replies": [
            {
                "order_id": r.order_id,
                "trace_id": r.trace_id,
                "idempotency_key": r.idempotency_key,
                "text": r.text,
            }
            for r in store.replies()
        ],
        "approvals": [
            {
                "id": a.id,
                "action": a.action,
                "order_id": a.order_id,
                "status": a.status,
                "summary": a.summary,
            }
            for a in store.approvals()
        ],
        "policies": {
            str(row["id"]): bool(row["superseded"])
            for row in store.db.query("SELECT id, superseded FROM policies ORDER BY id")
        },
        "policy_versions": {
            str(row["id"]): [str(row["version"]), str(row["effective_date"])]
            for row in store.db.query(
                "SELECT id, version, effective_date FROM policies ORDER BY id"
            )
        },
        "policy_documents": {
            str(row["id"]): {k: str(row[k]) for k in POLICY_TEXT_FIELDS}
            for row in store.db.query(
                f"SELECT id, {', '.join(POLICY_TEXT_FIELDS)} FROM policies ORDER BY id"
            )
        },
    }


def build_run(
    *,
    case_id: str,
    order_id: str | None = None,
    trial: int,
    outcome: Outcome,
    log: list[Message],
    store: Store,
    approver_answers: list[bool | None],
    latency_ms: float,
    detail: dict[str, Any],
    stock_before: Mapping[str, int] | None = None,
) -> SupportPilotRun:
    """The run record of one finished turn (``stock_before``: the stock levels the world
    held before the turn, see :func:`stock_levels`)."""
    audit = store.audit()
    replies = store.replies()
    reply_task = next((m.seq for m in log if m.kind == "task" and m.recipient == REPLY_ROLE), None)
    return SupportPilotRun(
        case_id=case_id,
        trial=trial,
        outcome=outcome.decision,
        outcome_reason=outcome.handover.reason if outcome.handover else None,
        reply=replies[-1].text if replies else None,
        draft=outcome.draft,
        writes=writes_from(store),
        facts=outcome.aggregate.agreed,
        conflicts=list(outcome.aggregate.conflicts),
        gaps=outcome.aggregate.gaps,
        steps=steps_from(log),
        role_errors=outcome.role_errors,
        blocked_attempts=[
            BlockedAttempt(role=e.role, tool=e.tool, reason=e.reason)
            for e in audit
            if not e.allowed
        ],
        rejected_messages=sum(1 for m in log if m.status == "rejected"),
        evidence_complete_seq=evidence_complete_seq(log),
        reply_task_seq=reply_task,
        tasks=outcome.budget.tasks,
        chars_read=outcome.budget.chars_read,
        chars_returned=outcome.budget.chars_returned,
        latency_ms=latency_ms,
        approver_approved=approver_answers[-1] if approver_answers else None,
        approvals=approvals_from(store),
        screened=screened_from(log),
        ground_truth=ground_truth(store, order_id),
        trace_id=outcome.trace_id,
        detail={
            **detail,
            "trace_id": outcome.trace_id,
            "handover": outcome.handover.model_dump() if outcome.handover else None,
            OUTCOME: {"approval_id": outcome.approval_id, "reply": outcome.reply},
            "statuses": outcome.statuses,
            "bus": [m.model_dump(mode="json") for m in log],
            "audit": [e.model_dump(mode="json") for e in audit],
            ENVIRONMENT: environment(store, stock_before),
        },
    )


FAULTED = "faulted"
"""The ``detail`` key of what each faulted role's brain answered (see :class:`Observed`):
role -> ``{"fault": <the case's fault text>, "answers": [...]}``."""


def _jsonable(value: object) -> object:
    """``value`` as JSON holds it (what a brain returns is a dict, a string, or foreign)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=repr))


class Observed:
    """A brain whose every answer is written down: wrapped around the brain *inside* a
    fault (``side="natural"``: what the role would have answered) and around the faulted
    brain (``side="given"``: what the worker received), so the ``faults_as_stated``
    invariant can tell whether the fault did exactly what the case's fault text says.
    Each entry: the attempt, the side, how the call ended (``answered``, ``raised``, or
    ``cancelled`` at the contract's deadline) and the output when it answered."""

    def __init__(self, inner: Brain, answers: list[dict[str, Any]], side: str) -> None:
        self.inner = inner
        self.answers = answers
        self.side = side

    async def think(self, task: Task, tools: ToolBox) -> object:
        """Defer to the wrapped brain; write down how it ended."""
        entry: dict[str, Any] = {"attempt": task.attempt, "side": self.side}
        try:
            raw = await self.inner.think(task, tools)
        except asyncio.CancelledError:
            self.answers.append({**entry, "ended": "cancelled"})
            raise
        except Exception as e:
            self.answers.append({**entry, "ended": "raised", "error": type(e).__name__})
            raise
        self.answers.append({**entry, "ended": "answered", "output": _jsonable(raw)})
        return raw
