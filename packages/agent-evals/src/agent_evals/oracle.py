"""The oracle: SupportPilot's decision table (docs/decision-table.md) computed from a case
alone — its world, its input and its faults — as the case's ``expect``.

It is the second implementation of the table; the agent is the first. It reads the
default world as data (:mod:`domain.world`'s tables) and the table's terms through
:mod:`agent_evals.spec_terms`, and imports nothing of ``agent`` (a test enforces it), so
a disagreement between a run and the oracle is a bug in one of the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_evals.default_world import (
    DEFAULT_ORDERS,
    DEFAULT_POLICIES,
    DEFAULT_SHIPMENTS,
    DEFAULT_STOCK,
    ORDER_DEFAULTS,
    SHIPMENT_DEFAULTS,
)
from agent_evals.spec_terms import (
    EXCERPT_LIMIT,
    canonical_order_id,
    order_closure,
    reissue_threshold_hours,
)

FIRST_ADDED_POLICY_ID = 100
"""The id of the first policy document a case's ``world.policies`` adds, then 101, 102 …
(docs/cases.md). Written here from the docs, not read from ``domain.world``: the ids are
a promise to whoever reads a trace (evidence ``kb#<id>``), and a world that numbers them
otherwise must disagree with the oracle."""

EVIDENCE = ("order_agent", "logistics_agent", "policy_agent")
"""The evidence specialists, dispatched for every message that names an order."""
REPLY = "reply_agent"
TOOL_CRASHED = "tool_crashed"
"""The hand-over reason of a turn whose own tool call (the stock check, a write) crashed the
tool layer: SQLite refused a table (``denied_tables``), an error no tool translates."""
REISSUE_PHRASE = "提交补发申请"
"""Said exactly when a reissue ticket is filed (the spec)."""
REPLY_FACTS = ["shipment.stale_hours", "policy.reissue_threshold_hours"]
"""What every reply must state: the hours without an update and the threshold in force."""
OWNED_TOOLS_ROLES = ("order_agent", "logistics_agent")
"""The roles whose tools check who owns the order."""


def parcel_state(status: str) -> str:
    """The table's parcel state of a status text (the spec's order: 退回, 签收, 运输/发货)."""
    if "退回" in status:
        return "returning"
    if "签收" in status:
        return "delivered"
    if "运输" in status or "发货" in status:
        return "in_transit"
    return "unknown"


@dataclass
class WorldView:
    """The world a case describes: the default world with its overrides merged."""

    orders: dict[str, dict[str, Any]]
    shipments: dict[str, dict[str, Any]]
    stock: dict[str, int]
    policies: list[dict[str, Any]]
    approve: bool = True
    approver: str = "human"
    limit: float | None = None
    tool_errors: dict[str, str] = field(default_factory=dict)
    table_errors: dict[str, str] = field(default_factory=dict)
    denied_tables: dict[str, str] = field(default_factory=dict)

    def _owner(self, order_id: str) -> str | None:
        order = self.orders.get(order_id)
        return None if order is None else str(order["customer"])

    def tool_fails(self, tool: str, customer: str | None = None, order_id: str = "") -> bool:
        """Whether a call of read ``tool`` about ``order_id``, for ``customer`` (``None``:
        not authenticated), fails (:func:`failure_text`)."""
        owner = self._owner(order_id)
        return failure_text(self.tool_errors, self.table_errors, tool, customer, owner) is not None

    def tool_crashes(self, tool: str, customer: str | None = None, order_id: str = "") -> bool:
        """Whether a call of read ``tool`` about ``order_id``, for ``customer``, crashes the
        tool layer (:func:`crashed_table`)."""
        owner = self._owner(order_id)
        found = crashed_table(
            self.tool_errors,
            self.table_errors,
            self.denied_tables,
            tool,
            customer=customer,
            owner=owner,
        )
        return found is not None

    def write_crashes(self, reissue: bool) -> str | None:
        """The first write of the run that SQLite refuses (``denied_tables`` ``write``): the
        ticket (refused on its table, or on the stock it reserves) or the reply; ``None``
        when every write may land."""
        denied = {t for t, d in self.denied_tables.items() if d == "write"}
        if reissue and denied & {"tickets", "stock"}:
            return TICKET_TOOL
        return REPLY_TOOL if "replies" in denied else None


TABLES_READ: dict[str, str] = {
    "orders__get_order": "orders",
    "logistics__track": "shipments",
    "kb__search": "policies",
    "stock__check": "stock",
}
"""The table each read tool reads, by the spec."""


def failure_text(
    tool_errors: Mapping[str, object],
    table_errors: Mapping[str, object],
    tool: str,
    customer: str | None = None,
    owner: str | None = None,
) -> str | None:
    """The text a call of read ``tool`` fails with, or ``None`` when it does not fail:
    the world names the tool (``tool_errors``: the gateway fails it before anything
    else, with the world's text), or a table the call reads (``table_errors``: the store
    fails it with ``table '<table>' failed: <the world's text>``, docs/cases.md). A parcel
    look-up for an authenticated ``customer`` reads the order first, and reads the
    shipment only when the order is there (``owner``: its customer, ``None`` when there is
    no such order) and is theirs: a missing order answers "not found", another's is
    refused."""
    named = tool_errors.get(tool)
    if isinstance(named, str):
        return named
    read = [TABLES_READ.get(tool, "")]
    if tool == "logistics__track" and customer is not None:
        read.insert(0, "orders")
        if not isinstance(table_errors.get("orders"), str) and owner != customer:
            return None  # not found, or refused, before the shipment is read
    for table in read:
        broken = table_errors.get(table)
        if isinstance(broken, str):
            return f"table {table!r} failed: {broken}"
    return None


def _tables_read(tool: str, customer: str | None, owner: str | None) -> list[str] | None:
    """The tables a call of read ``tool`` reads, in order, when none fails: a parcel
    look-up for an authenticated ``customer`` reads the order first and the shipment only
    of their own order. ``None`` for a call refused or answered "not found" after reading
    the order (it reads nothing more)."""
    read = [TABLES_READ.get(tool, "")]
    if tool == "logistics__track" and customer is not None:
        read.insert(0, "orders")
        if owner != customer:
            return read[:1]
    return read


def crashed_table(
    tool_errors: Mapping[str, object],
    table_errors: Mapping[str, object],
    denied_tables: Mapping[str, object],
    tool: str,
    *,
    customer: str | None = None,
    owner: str | None = None,
) -> str | None:
    """The table whose refusal by SQLite (``denied_tables``: ``read``) crashes a call of
    read ``tool``, or ``None``: the gateway fails a tool the world names before its
    handler runs (``tool_errors``), and the store fails a table the world breaks
    (``table_errors``) before it asks SQLite, so either comes first where it applies; the
    tables are read in :func:`_tables_read`'s order."""
    if isinstance(tool_errors.get(tool), str):
        return None
    for table in _tables_read(tool, customer, owner) or []:
        if isinstance(table_errors.get(table), str):
            return None
        if denied_tables.get(table) == "read":
            return table
    return None


def world_view(world: Mapping[str, Any]) -> WorldView:
    """Merge a case's ``world`` over the default world, as the spec defines it."""

    def merged(
        default: Mapping[str, Mapping[str, Any]],
        overrides: Mapping[str, Any],
        base: Mapping[str, Any],
    ) -> dict[str, dict[str, Any]]:
        rows = {key: dict(value) for key, value in default.items()}
        for key, fields in overrides.items():
            start = rows.get(key, base)
            rows[key] = {**start, **{k: v for k, v in fields.items() if v is not None}}
        return rows

    orders = merged(DEFAULT_ORDERS, world.get("orders", {}), ORDER_DEFAULTS)
    shipments = merged(DEFAULT_SHIPMENTS, world.get("logistics", {}), SHIPMENT_DEFAULTS)
    stock: dict[str, int | None] = {**DEFAULT_STOCK, **world.get("stock", {})}
    for order in orders.values():
        stock.setdefault(order["sku"], DEFAULT_STOCK[ORDER_DEFAULTS["sku"]])
    # ``None``: the SKU has no stock row, which reads as 0 units.
    counted = {sku: 0 if qty is None else qty for sku, qty in stock.items()}
    policies = (
        [dict(p) for p in DEFAULT_POLICIES] if world.get("kb", "default") == "default" else []
    )
    for number, added in enumerate(world.get("policies", [])):
        policies.append(
            {
                "id": FIRST_ADDED_POLICY_ID + number,
                "version": "v1",
                "effective_date": "2024-07-01",
                "superseded": False,
                **added,
            }
        )
    return WorldView(
        orders=orders,
        shipments=shipments,
        stock=counted,
        policies=policies,
        approve=bool(world.get("approve", True)),
        approver=str(world.get("approver", "human")),
        limit=world.get("auto_approve_below"),
        tool_errors=dict(world.get("tool_errors", {})),
        table_errors=dict(world.get("table_errors", {})),
        denied_tables=dict(world.get("denied_tables", {})),
    )


ROLE_TOOLS = {
    "order_agent": "orders__get_order",
    "logistics_agent": "logistics__track",
    "policy_agent": "kb__search",
}
"""The read tool each evidence specialist works with: when it fails (``world.tool_errors``)
the specialist reports what it could not learn as unknown. (An error text that carries
instructions is the injection suites' business: such a claim is screened out, and the
oracle does not model the screen.)"""

ROLE_FAULTS = {
    "crash": ["error"],
    "timeout": ["timeout"],
    "garble": ["invalid_output", "invalid_output"],
    "write_attempt": ["refused"],
}
"""A role fault that ends the role's work -> the statuses of its attempts."""


def _effective_fault(fault: str) -> str:
    """The kind a role's fault acts as: ``flaky:p`` at the edges of its probability is
    certain (``flaky:1`` crashes every run, as ``crash``; ``flaky:0`` never does, as no
    fault); anything else is its kind. A ``p`` strictly between is chance, which the table
    does not decide (``nox -s stability`` measures it)."""
    kind, _, argument = fault.partition(":")
    if kind != "flaky":
        return kind
    p = float(argument)
    if p >= 1.0:
        return "crash"
    if p <= 0.0:
        return ""
    raise ValueError(f"flaky:{argument} is chance, not a decision of the table")


@dataclass
class Evidence:
    """What the evidence specialists' claims add up to, per the table."""

    statuses: dict[str, list[str]] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    unanswered: list[str] = field(default_factory=list)
    blocked: int = 0

    def claim(self, role: str, topic: str, value: str | None) -> None:
        if value is None:
            self.unanswered.append(topic)
        else:
            self.values.setdefault(topic, {})[role] = value

    @property
    def failed(self) -> list[str]:
        return sorted(role for role, seen in self.statuses.items() if seen[-1] != "ok")

    def agreed(self) -> dict[str, str]:
        return {
            t: next(iter(set(v.values())))
            for t, v in self.values.items()
            if len(set(v.values())) == 1
        }

    def conflicts(self) -> list[str]:
        return [t for t, v in self.values.items() if len(set(v.values())) > 1]

    def gaps(self) -> list[str]:
        required = ("parcel_state", "stale_hours", "reissue_threshold_hours")
        missing = [t for t in required if t not in self.values]
        return list(dict.fromkeys(t for t in [*self.unanswered, *missing] if t not in self.values))


AMOUNT_STYLES = {
    "symbol": lambda paid: f"¥{paid:,.2f}",
    "yuan": lambda paid: f"{paid:.2f}".rstrip("0").rstrip(".") + "元",
    "grouped": lambda paid: f"{paid:,.2f}".rstrip("0").rstrip("."),
    "words": None,
    "yuan_before": None,
    "two_after": None,
    "padded": lambda paid: f" \u3000¥{paid:,.2f}\u3000 ",
}
"""How the ``amount_format:<style>`` fault restates the amount paid; ``None``: in words,
or with a currency mark on the side it is never written (``元59``) or two marks after it
(``59元 RMB``), which no one may read as a number."""


def _gather(case: Mapping[str, Any], view: WorldView, order_id: str) -> tuple[Evidence, bool]:
    """Each evidence specialist's statuses and claims; also whether the amount paid is
    stated readably."""
    faults: Mapping[str, str] = case.get("faults", {})
    asker = case["input"].get("customer")
    asker = asker.strip() if isinstance(asker, str) else None
    order = view.orders.get(order_id)
    ship = view.shipments.get(order_id)
    ev = Evidence()
    readable_amount = True
    for role in EVIDENCE:
        kind = _effective_fault(faults.get(role, ""))
        if kind in ROLE_FAULTS:
            ev.statuses[role] = list(ROLE_FAULTS[kind])
            ev.blocked += kind == "write_attempt"
            continue
        prefix = ["invalid_output"] if kind == "garble_once" else []
        if view.tool_crashes(ROLE_TOOLS[role], asker or None, order_id):
            # SQLite refused a table the tool reads: the tool layer crashed, the role ends.
            ev.statuses[role] = [*prefix, "error"]
            continue
        if view.tool_fails(ROLE_TOOLS[role], asker or None, order_id):
            ev.statuses[role] = [*prefix, "ok"]
            topic = {"order_agent": "order", "logistics_agent": "shipment"}
            ev.claim(role, topic.get(role, "reissue_threshold_hours"), None)
            continue
        if role in OWNED_TOOLS_ROLES and asker and order is not None and order["customer"] != asker:
            ev.statuses[role] = [*prefix, "refused"]
            ev.blocked += 1
            continue
        ev.statuses[role] = [*prefix, "ok"]
        if role == "order_agent":
            if order is None:
                ev.claim(role, "order", None)
                continue
            ev.claim(role, "order", order_id)
            ev.claim(role, "parcel_state", parcel_state(order["status"]))
            ev.claim(role, "sku", order["sku"])
            closed = order_closure(order["status"])
            if closed:
                ev.claim(role, "order_closed", closed)
            style = faults.get(role, "").partition(":")[2] if kind == "amount_format" else ""
            readable_amount = AMOUNT_STYLES.get(style, str) is not None
        elif role == "logistics_agent":
            if ship is None or (asker and order is None):
                ev.claim(role, "shipment", None)
                continue
            ev.claim(role, "parcel_state", parcel_state(ship["state"]))
            ev.claim(role, "stale_hours", str(ship["stale_hours"]))
        else:
            threshold = reissue_threshold_hours(view.policies)
            ev.claim(role, "reissue_threshold_hours", None if threshold is None else str(threshold))
    return ev, readable_amount


def _escalate(reason: str, ev: Evidence, stock: dict[str, str], **more: Any) -> dict[str, Any]:
    expect: dict[str, Any] = {"outcome": "escalate", "outcome_reason": reason, "tickets": 0}
    expect.update(more)
    expect.setdefault("dispatched", list(EVIDENCE))
    expect["statuses"] = {role: ev.statuses[role] for role in EVIDENCE} | more.get("statuses", {})
    if stock:
        expect["state_after"] = stock
    if ev.blocked:
        expect["blocked_attempts"] = ev.blocked
    return expect


TOPIC_FACTS = ("order", "parcel_state", "stale_hours", "reissue_threshold_hours", "order_closed")
"""The agreed facts every expectation names when the evidence agreed on them (the order
found, as its id stands in the database, whatever else a fault restates; a closed order
names the final state its status stated first)."""


SEARCH_PAGE = 5
"""Policy documents one KB search returns at most (the spec's page)."""
DEFAULT_MAX_CHARS = 4000
"""A customer run's budget of characters returned (the cases' default)."""
FULL_PAGE_MAX_CHARS = 2 * DEFAULT_MAX_CHARS
"""The budget of a run whose KB holds a full search page of added policies: the policy
specialist hands over the page and quotes its other documents again as notes, so such a
run returns about 2,600 characters where a default world returns about 1,500; twice the
default keeps the same head-room (a cost blow-up still shows in the gate's p95)."""


def max_chars_for(world: Mapping[str, Any]) -> int:
    """The run's budget of characters returned: the default; for a world whose added
    policies fill a search page, twice it or the default plus the page quoted twice (the
    :data:`SEARCH_PAGE` longest added documents, title and body), whichever is more; for
    fewer added policies whose excerpts (``《title》body``, cut at :data:`EXCERPT_LIMIT`)
    hold more than the default, the default plus those excerpts once."""
    added = world.get("policies", [])
    if len(added) < SEARCH_PAGE:
        excerpts = sum(
            min(len(p.get("title", "")) + len(p.get("body", "")) + 2, EXCERPT_LIMIT) for p in added
        )
        return DEFAULT_MAX_CHARS + excerpts if excerpts > DEFAULT_MAX_CHARS else DEFAULT_MAX_CHARS
    sizes = sorted((len(p.get("title", "")) + len(p.get("body", "")) for p in added), reverse=True)
    return max(FULL_PAGE_MAX_CHARS, DEFAULT_MAX_CHARS + 2 * sum(sizes[:SEARCH_PAGE]))


OUTPUT_FAULTS = {"garble": ["unparsable", "schema"], "garble_once": ["unparsable"]}
"""A role fault that makes a specialist's output unusable -> what is wrong with each
unusable output, in order (docs/cases.md: ``garble`` answers prose, then JSON whose claim
text is over the schema's limit; ``garble_once`` prose on its first attempt only)."""


def expect_for(case: Mapping[str, Any]) -> dict[str, Any]:
    """The ``expect`` of ``case`` by the decision table (docs/decision-table.md), with
    the problems of the unusable outputs a garbling fault makes (:data:`OUTPUT_FAULTS`)
    when the specialists are dispatched, and the run's character budget where it is not
    the default."""
    expect = _decided(case)
    faults: Mapping[str, str] = case.get("faults", {})
    problems = {
        role: OUTPUT_FAULTS[faults[role]]
        for role in EVIDENCE
        if faults.get(role) in OUTPUT_FAULTS and role in expect.get("dispatched", [])
    }
    if problems:
        expect["output_problems"] = problems
    budget = max_chars_for(case.get("world", {}))
    if budget != DEFAULT_MAX_CHARS:
        expect["max_chars"] = budget
    return expect


def _decided(case: Mapping[str, Any]) -> dict[str, Any]:
    """What the decision table says the run must do."""
    view = world_view(case.get("world", {}))
    order_id = canonical_order_id(case["input"].get("order_id"))
    if not order_id:
        return {"outcome": "ask_user", "tickets": 0, "dispatched": []}
    order = view.orders.get(order_id)
    sku = order["sku"] if order else None
    before = {f"stock.{sku}": str(view.stock[sku])} if order is not None and sku else {}
    # An order without a SKU (or with one of only whitespace) has nothing to reissue: as
    # if out of stock.
    ev, readable_amount = _gather(case, view, order_id)
    if ev.failed:
        return _escalate("specialist_failed", ev, before)
    agreed = ev.agreed()
    facts = {t: agreed[t] for t in TOPIC_FACTS if t in agreed}
    if "order_closed" in agreed:
        return _escalate("order_closed", ev, before, facts=facts)
    if ev.conflicts():
        return _escalate("conflict", ev, before, facts=facts, conflicts=ev.conflicts())
    if ev.gaps():
        return _escalate("gap", ev, before, facts=facts, gaps=ev.gaps())
    state = agreed["parcel_state"]
    if state in ("delivered", "returning"):
        return _escalate(state, ev, before, facts=facts)
    if state == "unknown":
        return _escalate("unknown_state", ev, before, facts=facts)
    assert order is not None and sku is not None  # the order specialist answered
    reissue = int(agreed["stale_hours"]) >= int(agreed["reissue_threshold_hours"])
    # A stock check that fails confirms no stock: the reissue waits for a human.
    no_stock = not sku.strip() or view.stock[sku] <= 0 or view.tool_fails("stock__check")
    if reissue and sku.strip() and view.tool_crashes("stock__check"):
        # The orchestrator's own stock check crashed the tool layer: nothing concluded.
        return _escalate(TOOL_CRASHED, ev, before, facts=facts)
    if reissue and no_stock:
        return _escalate("out_of_stock", ev, before, facts=facts)
    if reissue and not readable_amount:
        return _escalate("amount_unreadable", ev, before, facts=facts)
    return _answer(
        case, view, ev, before, facts, reissue=reissue, paid=float(order["paid"]), sku=sku
    )


def _approval(view: WorldView, amount: float) -> dict[str, Any]:
    """Who decides a proposal of ``amount`` and what they answer."""
    if view.limit is not None and amount < view.limit:
        return {"decided_by": "auto", "approved": True}
    if view.approver in ("missing", "silent", "broken"):
        return {"decided_by": "none", "approved": None}
    return {"decided_by": "human", "approved": view.approve}


def _writes_land(faults: Mapping[str, str], reissue: bool) -> bool:
    """Whether the writes land under the outbox fault: only a ticket request lost on
    every attempt keeps the ticket (and so the reply) from landing."""
    fault = faults.get("outbox", "")
    kind, _, rest = fault.partition(":")
    tool, _, times = rest.partition(":")
    never = kind == "lost_request" and tool == "support__create_ticket" and times not in ("", "1")
    return not (reissue and never)


TICKET_TOOL = "support__create_ticket"
REPLY_TOOL = "support__send_reply"
FIND_WRITE_TOOL = "support__find_write"
WRITE_ATTEMPTS = 2
"""Calls of one write a run makes at most (the spec): the call and, only after its
acknowledgement was lost, one more under the same key; after a last attempt that was
lost too the writer looks its key up once (``support__find_write``)."""
LOSING_FAULTS = ("lost_ack", "lost_request", "stale_lookup")
"""The outbox faults that lose calls: each loses the first ``n`` calls (default 1;
``stale_lookup`` always one) of the write tools it names (all of them when it names none)."""


LOST_CALLS = "outbox.lost_calls"
"""The ground-truth key of the calls a losing outbox fault lost, by its own account (one
per lost acknowledgement or request)."""


def write_calls(fault: str, reissue: bool) -> dict[str, str]:
    """The audited calls of each outbox tool (``calls.<tool>``) of a run whose writes are
    attempted under outbox ``fault`` ('' for none): the ticket (when one is filed), then
    the reply. A lost acknowledgement is audited (the write ran), a lost request is not
    (it never arrived); a write whose every attempt was lost is looked up once, and a
    ticket that never landed is the end of the writes. Under a losing fault, also the
    calls it lost (:data:`LOST_CALLS`, ``min(n, tries)`` per write tool it names and the
    run calls). ``{}`` for another fault kind
    (``key_drift`` refuses every key: not a count this computes)."""
    kind, _, rest = fault.partition(":")
    if kind not in ("", *LOSING_FAULTS):
        return {}
    named, _, times = rest.partition(":")
    lost = int(times) if times and kind != "stale_lookup" else 1
    calls = {TICKET_TOOL: 0, REPLY_TOOL: 0, FIND_WRITE_TOOL: 0}
    losses = 0
    for tool in (TICKET_TOOL, REPLY_TOOL) if reissue else (REPLY_TOOL,):
        n = lost if kind and named in ("", tool) else 0
        tries = min(n + 1, WRITE_ATTEMPTS)
        losses += min(n, tries)
        calls[tool] = tries - min(n, tries) if kind == "lost_request" else tries
        if n >= WRITE_ATTEMPTS:
            calls[FIND_WRITE_TOOL] += 1
            if kind == "lost_request":
                break  # it never landed: nothing is written after it
    counts = {f"calls.{tool}": str(count) for tool, count in calls.items()}
    # The fault's own account of what it lost: a fault that lost nothing tested nothing.
    return {**counts, LOST_CALLS: str(losses)} if kind else counts


def _answer(
    case: Mapping[str, Any],
    view: WorldView,
    ev: Evidence,
    before: dict[str, str],
    facts: dict[str, str],
    *,
    reissue: bool,
    paid: float,
    sku: str,
) -> dict[str, Any]:
    faults: Mapping[str, str] = case.get("faults", {})
    dispatched = [*EVIDENCE, REPLY]
    if _effective_fault(faults.get(REPLY, "")) in ROLE_FAULTS:
        status = ROLE_FAULTS[_effective_fault(faults[REPLY])]
        return _escalate(
            "specialist_failed",
            ev,
            before,
            facts=facts,
            dispatched=dispatched,
            statuses={REPLY: status},
        )
    action = "reissue" if reissue else "reply"
    approval = {"action": action, **_approval(view, paid if reissue else 0.0)}
    statuses = {role: ev.statuses[role] for role in EVIDENCE} | {REPLY: ["ok"]}
    base: dict[str, Any] = {"dispatched": dispatched, "statuses": statuses, "facts": facts}
    if ev.blocked:
        base["blocked_attempts"] = ev.blocked
    if approval["approved"] is not True:
        return {
            "outcome": "awaiting_approval_rejected",
            "tickets": 0,
            **base,
            "approval": approval,
            "state_after": before,
        }
    crashed = view.write_crashes(reissue)
    if crashed is not None:
        if faults.get("outbox"):
            raise ValueError("a write SQLite refuses under an outbox fault is not in the table")
        # The refused write ends the turn; a ticket filed before a refused reply stays.
        filed = reissue and crashed == REPLY_TOOL
        calls = {
            f"calls.{TICKET_TOOL}": str(int(reissue)),
            f"calls.{REPLY_TOOL}": str(int(crashed == REPLY_TOOL)),
            f"calls.{FIND_WRITE_TOOL}": "0",
        }
        return {
            "outcome": "escalate",
            "outcome_reason": TOOL_CRASHED,
            "tickets": int(filed),
            **base,
            "approval": approval,
            "state_after": {f"stock.{sku}": str(view.stock[sku] - int(filed)), **calls},
        }
    calls = write_calls(faults.get("outbox", ""), reissue)
    if not _writes_land(faults, reissue):
        return {
            "outcome": "escalate",
            "outcome_reason": "write_failed",
            "tickets": 0,
            **base,
            "approval": approval,
            "state_after": {**before, **calls},
        }
    after = {f"stock.{sku}": str(view.stock[sku] - (1 if reissue else 0)), **calls}
    if faults.get("outbox", "").partition(":")[0] == "stale_lookup":
        # One stale retry per write tool the fault names: the ticket (when one is filed)
        # and the reply; each missed a key the database held.
        tool = faults["outbox"].partition(":")[2]
        hit = [t for t in ("support__create_ticket", "support__send_reply") if tool in ("", t)]
        landed = [t for t in hit if reissue or t == "support__send_reply"]
        after["outbox.hidden_writes"] = str(len(landed))
    phrase = (
        {"reply_contains": [REISSUE_PHRASE]}
        if reissue
        else {"reply_not_contains": [REISSUE_PHRASE]}
    )
    return {
        "outcome": "replied",
        "tickets": 1 if reissue else 0,
        **base,
        "approval": approval,
        "state_after": after,
        **phrase,
        "reply_facts": list(REPLY_FACTS),
    }
