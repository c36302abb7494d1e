"""Generated worlds: every dimension of the decision table (docs/decision-table.md) with
its boundary and equivalence-class values, combined by a covering array
(:mod:`evals.cases.generate`), each case's ``expect`` from the oracle (:mod:`agent_evals.oracle`).

The suite is committed as ``cases/generated.jsonl`` and kept in sync by a test
(``packages/agent-evals/tests/test_generated_suites.py``); the evals command line writes
and checks it (``docs/generated-suites.md``)::

    uv run evals generate agent_evals.generated_worlds:GENERATOR           # (re)write it
    uv run evals generate agent_evals.generated_worlds:GENERATOR --check   # exit 1: stale
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.cases.generate import CaseGenerator, Dimension, Interaction

from agent_evals.effects import splitting
from agent_evals.oracle import expect_for

ORDER = "AZ5001"
"""The order every generated case is about (not in the default world): its letters are
the ends of the ASCII alphabet, where a case-folding slip shows first."""
CUSTOMER = "赵女士"
"""Its customer."""
OTHER_CUSTOMER = "张女士"
"""Another customer of the default world (order A1002's)."""
SKU = "SKU-BAG-05"
"""Its SKU, stocked as the ``stock`` dimension says."""
UNLISTED = "unlisted"
AFTER_NO_ROW = "after_no_row"
"""The ``stock`` value whose world lists, before this SKU (3 units), a SKU with no stock
row (:data:`NO_ROW_SKU`): a row the world leaves out must not take the rows after it."""
NO_ROW_SKU = "SKU-TEE-01"
"""The default world's first stock row, which the ``after_no_row`` world leaves out."""
AFTER_NO_ROW_UNITS = 3
"""The ``stock`` value that leaves the SKU out of ``world.stock`` (the world stocks every
ordered SKU by default)."""
REFERENCE_HOURS = 72
"""Where the ``stale`` dimension's values sit when the policy states no readable period."""

DIGITS_ORDER = "20265001"
"""An order number of digits only (many shops use them): a number by its look, never an
amount. The ``digits`` typed id names it; the world holds it instead of :data:`ORDER`."""
DIGITS_TYPED = f" {DIGITS_ORDER}"
"""How the customer types it (a leading space: the typed id is still folded)."""

FULLWIDTH = {code: code + 0xFEE0 for code in range(0x21, 0x7F)}
"""ASCII -> its full-width form (``A`` -> ``Ａ``), for :meth:`str.translate`."""

TOOL_ERROR_TEXT = "系统繁忙，请稍后再试"
"""What a failing read tool says (benign: no instruction in it)."""
TABLE_ERROR_TEXT = "数据库表被锁定，读取失败"
"""What a failing table says (benign): a locked table is not a missing row."""

GOALS = {
    "resend": "包裹一直没到，要求马上补发",
    "inquiry": "包裹还没到，帮我查一下进度",
    "blank": " \u3000 ",
}
"""What the customer writes beside the order id: a demand, a question, or only whitespace
(they typed the id alone): the decision is the table's either way."""

SKUS = {"listed": SKU, "blank": " \u3000"}
"""The order's SKU: a product, or only whitespace (no product: nothing to reissue,
whatever stock the world holds for that text; an empty SKU is a hand-written case's)."""


def _policy(body: str, date: str, version: str, *, superseded: bool = False) -> dict[str, Any]:
    return {
        "title": "补发政策（修订）",
        "body": body,
        "version": version,
        "effective_date": date,
        "superseded": superseded,
    }


UNRELATED_NEWER: dict[str, Any] = {
    "title": "物流催件说明",
    "body": "物流信息停滞满 24 小时未更新的，客服可联系快递催件，并告知客户处理进度。",
    "version": "v3",
    "effective_date": "2025-03-01",
    "superseded": False,
}
"""A current document a reissue search finds (it has the reissue keywords), newer than
every reissue policy and stating a period, but about chasing the carrier, not about
reissues (it never says 补发): it must never rule the reissue threshold."""


MANY_ADDED: tuple[tuple[int, str, str], ...] = (
    (24, "2024-08-01", "v3"),
    (36, "2024-09-01", "v4"),
    (48, "2024-10-01", "v5"),
    (60, "2024-11-01", "v6"),
    (84, "2024-12-01", "v7"),
    (96, "2025-01-01", "v8"),
)
"""Six current reissue policies added in the order they took effect, the one in force
last: with the default one, seven documents match a reissue search (more than a page of
five results), every added one's id must be its own, and the last added rules."""

PROCEDURE_STEP = (
    "客服提交补发申请前，应核对订单的收货地址与联系电话，确认包裹未被签收或代收，"
    "并在工单中写明承运商、运单号与最后一个物流节点；补发申请提交后，客服应在一个工作日内"
    "跟进仓库出库情况，并将新的运单号告知客户。"
)
"""One step of the procedure a full policy text goes on with after its period (it states
no other period)."""
PROCEDURE = PROCEDURE_STEP * 24
"""A full policy text's procedure: about 2,400 characters."""

MANY_LONG: tuple[tuple[int, str, str], ...] = (
    (24, "2024-04-01", "v3"),
    (30, "2024-05-01", "v4"),
    (36, "2024-06-01", "v5"),
    (42, "2024-07-01", "v6"),
    (48, "2024-08-01", "v7"),
    (60, "2024-09-01", "v8"),
    (84, "2024-10-01", "v9"),
    (90, "2024-11-01", "v10"),
    (96, "2024-12-01", "v11"),
)
"""Nine current reissue policies in full text, the last in force: a search finds ten
documents, twice a page. A page of five, quoted again as notes beside the ruling one, fits
a specialist's 16,000-character output; every match quoted would not."""

TIED_SHORT = _policy(
    "物流信息停滞满 48 小时未更新的，可为客户提交补发申请（补发 物流 停滞）。", "2025-02-01", "v3"
)
"""A current reissue policy that ranks first for a reissue search (short, every search word)."""
TIED_LATER = _policy(
    "物流信息停滞满 96 小时未更新的，可为客户提交补发申请。" + PROCEDURE_STEP, "2025-02-01", "v3"
)
"""The same effective date and version, added after it (a higher id), ranking below it: on
that tie the higher id is in force (spec_terms), whatever the search's relevance says."""

TIED_WITH_DEFAULT = _policy(
    "物流信息停滞满 96 小时未更新的，可为客户提交补发申请。", "2024-07-01", "v2"
)
"""The default policy's effective date and version (kb#3), added later (kb#100)."""

OVER_LONG = _policy(
    "物流信息停滞满 96 小时未更新的，可为客户提交补发申请。" + PROCEDURE_STEP * 170,
    "2025-03-01",
    "v3",
)
"""A current policy longer than an excerpt may hold (16,000 characters, docs/invariants.md):
the search hands over its start, where the period is stated, cut at the limit."""

POLICIES: dict[str, dict[str, Any]] = {
    "default": {"kb": "default", "add": [], "hours": 72},
    "newer_current": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满 48 小时未更新的，可为客户提交补发申请。", "2025-01-01", "v3")
        ],
        "hours": 48,
    },
    "older_current": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满 96 小时未更新的，可为客户提交补发申请。", "2023-06-01", "v1.5")
        ],
        "hours": 72,
    },
    "superseded_added": {
        "kb": "default",
        "add": [
            _policy(
                "物流信息停滞满 24 小时未更新的，可为客户提交补发申请。",
                "2025-01-01",
                "v3",
                superseded=True,
            )
        ],
        "hours": 72,
    },
    "days_newer": {
        "kb": "default",
        "add": [_policy("物流信息停滞满 2 天未更新的，可为客户提交补发申请。", "2025-03-01", "v3")],
        "hours": 48,
    },
    "ri_newer": {
        "kb": "default",
        "add": [_policy("物流信息停滞满 4 日未更新的，可为客户提交补发申请。", "2025-03-01", "v3")],
        "hours": 96,
    },
    "many_added": {
        "kb": "default",
        "add": [
            _policy(f"物流信息停滞满 {hours} 小时未更新的，可为客户提交补发申请。", date, version)
            for hours, date, version in MANY_ADDED
        ],
        "hours": MANY_ADDED[-1][0],
    },
    "many_long": {
        "kb": "default",
        "add": [
            _policy(f"物流信息停滞满 {hours} 小时未更新的，可为客户提交补发申请。{PROCEDURE}", d, v)
            for hours, d, v in MANY_LONG
        ],
        "hours": MANY_LONG[-1][0],
    },
    "over_long": {
        "kb": "default",
        "add": [OVER_LONG],
        "hours": 96,
    },
    "tied_current": {"kb": "default", "add": [TIED_SHORT, TIED_LATER], "hours": 96},
    # A tie with the default policy in force (kb#3, v2 of 2024-07-01): the added one, kb#100,
    # is in force by the higher id, which as text ("100" < "3") would lose.
    "tied_with_default": {"kb": "default", "add": [TIED_WITH_DEFAULT], "hours": 96},
    "fullwidth_newer": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满 ９６ 小时未更新的，可为客户提交补发申请。", "2025-03-01", "v3")
        ],
        "hours": 96,
    },
    "words_newer": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满七十二小时未更新的，可为客户提交补发申请。", "2025-03-01", "v3")
        ],
        "hours": None,
    },
    "decimal_newer": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满 72.5 小时未更新的，可为客户提交补发申请。", "2025-03-01", "v3")
        ],
        "hours": None,
    },
    "range_newer": {
        "kb": "default",
        "add": [
            _policy(
                "物流信息停滞 48 至 72 小时未更新的，可为客户提交补发申请。", "2025-03-01", "v3"
            )
        ],
        "hours": None,
    },
    "only_added_days": {
        "kb": "empty",
        "add": [_policy("物流信息停滞满 5 天未更新的，可为客户提交补发申请。", "2024-07-01", "v1")],
        "hours": 120,
    },
    "only_superseded": {
        "kb": "empty",
        "add": [
            _policy(
                "物流信息停滞满 72 小时未更新的，可为客户提交补发申请。",
                "2024-07-01",
                "v1",
                superseded=True,
            )
        ],
        "hours": None,
    },
    "unrelated_newer": {
        "kb": "default",
        "add": [UNRELATED_NEWER],
        "hours": 72,
    },
    "unrelated_only": {
        "kb": "empty",
        "add": [UNRELATED_NEWER],
        "hours": None,
    },
    "empty": {"kb": "empty", "add": [], "hours": None},
    # A period of nothing: every parcel without an update is due at once (0 is a number,
    # not a missing one).
    "zero_newer": {
        "kb": "default",
        "add": [
            _policy("物流信息停滞满 0 小时未更新的，可为客户提交补发申请。", "2025-03-01", "v3")
        ],
        "hours": 0,
    },
    # Added without a version or a date (the documented defaults: v1 of 2024-07-01), beside
    # one of the same version dated a day earlier: the undated one is in force by its
    # default date alone (a default a day earlier would tie them, and the higher id win).
    "undated_added": {
        "kb": "empty",
        "add": [
            {
                "title": "补发政策（修订）",
                "body": "物流信息停滞满 48 小时未更新的，可为客户提交补发申请。",
            },
            _policy("物流信息停滞满 96 小时未更新的，可为客户提交补发申请。", "2024-06-30", "v1"),
        ],
        "hours": 48,
    },
}
"""How the policy KB states the reissue period, and which version is in force."""

STALE_OFFSETS: dict[str, Any] = {
    "above": 1,
    "at": 0,
    "below": -1,
    "zero": "zero",
    "far": "far",
}
"""Hours without an update, relative to the threshold in force."""

AMOUNTS: dict[str, tuple[float, float | None]] = {
    "no_limit": (59.0, None),
    "below_limit": (99.99, 100.0),
    "at_limit": (100.0, 100.0),
    "above_limit": (100.01, 100.0),
    "zero": (0.0, 100.0),
    "large_no_limit": (12999.0, None),
}
"""(amount paid, auto-approval limit)."""

FAULTS: dict[str, dict[str, str]] = {
    "none": {},
    "order_crash": {"order_agent": "crash"},
    "logistics_timeout": {"logistics_agent": "timeout"},
    "policy_garble": {"policy_agent": "garble"},
    "logistics_garble_once": {"logistics_agent": "garble_once"},
    "reply_crash": {"reply_agent": "crash"},
    "logistics_flaky_never": {"logistics_agent": "flaky:0"},
    "policy_flaky_always": {"policy_agent": "flaky:1"},
    "reply_flaky_always": {"reply_agent": "flaky:1.0"},
    "order_inject": {"order_agent": "inject"},
    "policy_fabricate": {"policy_agent": "fabricate"},
    "logistics_write_attempt": {"logistics_agent": "write_attempt"},
    "outbox_lost_ack": {"outbox": "lost_ack"},
    "outbox_lost_request": {"outbox": "lost_request"},
    "ticket_ack_lost_twice": {"outbox": "lost_ack:support__create_ticket:2"},
    "ticket_request_lost_twice": {"outbox": "lost_request:support__create_ticket:2"},
    "outbox_stale_lookup": {"outbox": "stale_lookup"},
}
"""Faults of a specialist or of the outbox."""

DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        "typed_id",
        {
            "exact": ORDER,
            "lower": ORDER.lower(),
            "padded": f"  {ORDER} ",
            "fullwidth": ORDER.translate(FULLWIDTH),
            "fullwidth_lower": ORDER.lower().translate(FULLWIDTH),
            "inner_space": f"{ORDER[:3]} {ORDER[3:]}",
            "ideographic_space": f"{ORDER}\u3000",
            "prefix": ORDER[:-1],
            "extended": f"{ORDER}1",
            "sql": f"{ORDER}' OR '1'='1",
            "like_wildcard": f"{ORDER[:-1]}%",
            "regex": f"{ORDER[:-2]}.1",
            "empty": "  ",
            "unknown": "AZ5999",
            "digits": DIGITS_TYPED,
        },
        "the order id as the customer typed it",
    ),
    Dimension(
        "order_status",
        {
            "in_transit": "已发货，运输中",
            "shipped": "已发货",
            "delivered": "已签收",
            "returning": "已退回，商家处理中",
            "cancelled": "已取消",
            "refunded": "已退款",
            "returned": "已退货",
            "refunded_in_transit": "已退款，已发货运输中",
            "return_done": "退货完成；运输中",
            "refunded_then_closed": "已退款，交易关闭",
            "closed_then_refunded": "交易关闭，退款完成",
            "mentions_refund": "已发货，运输中（客户咨询过退款）",
            "cancelled_later": "已发货，运输中；订单已取消",
            "refund_then_return_later": "运输中，退款成功，已退货",
            # Every closing word of the spec is the first one some status states
            # (test_generated_suites holds the dimension to spec_terms' list).
            "cancel_succeeded": "已发货；取消成功",
            "refund_completed": "退款完成",
            "return_succeeded": "运输中，退货成功",
            "pending": "待处理",
        },
        "the order system's status text",
    ),
    Dimension(
        "carrier",
        {
            "in_transit": "运输中",
            "delivered": "已签收",
            "returning": "派送失败，退回中",
            "pending": "待揽收",
            "no_record": None,
        },
        "the carrier's state (or no shipment record)",
    ),
    Dimension("stale", STALE_OFFSETS, "hours without a tracking update, against the threshold"),
    Dimension("policy", POLICIES, "how the KB states the reissue period; which version rules"),
    Dimension(
        "stock",
        {
            "many": 100,
            "one": 1,
            "zero": 0,
            "two": 2,
            "no_row": None,
            UNLISTED: UNLISTED,
            AFTER_NO_ROW: AFTER_NO_ROW,
        },
        "units of the SKU in stock (no_row: the SKU has no stock row; unlisted: the world's"
        f" default for an ordered SKU; {AFTER_NO_ROW}: {AFTER_NO_ROW_UNITS} units, listed"
        f" after {NO_ROW_SKU}, which has no row)",
    ),
    Dimension("amount", AMOUNTS, "amount paid against the auto-approval limit"),
    Dimension(
        "amount_style",
        {
            "plain": None,
            "symbol": "symbol",
            "yuan": "yuan",
            "grouped": "grouped",
            "words": "words",
            "padded": "padded",
        },
        "how the order specialist states the amount paid",
    ),
    Dimension(
        "approver",
        {
            "yes": {"approve": True},
            "no": {"approve": False},
            "missing": {"approver": "missing"},
            "silent": {"approver": "silent"},
            "broken": {"approver": "broken"},
        },
        "what the human approver answers",
    ),
    Dimension(
        "asker",
        {"anonymous": None, "owner": CUSTOMER, "other": OTHER_CUSTOMER},
        "who the conversation is authenticated as",
    ),
    Dimension("fault", FAULTS, "a specialist's or the outbox's fault"),
    Dimension(
        "tool_error",
        {
            "none": {},
            "orders": {"tool_errors": {"orders__get_order": TOOL_ERROR_TEXT}},
            "logistics": {"tool_errors": {"logistics__track": TOOL_ERROR_TEXT}},
            "kb": {"tool_errors": {"kb__search": TOOL_ERROR_TEXT}},
            "orders_table": {"table_errors": {"orders": TABLE_ERROR_TEXT}},
            "shipments_table": {"table_errors": {"shipments": TABLE_ERROR_TEXT}},
            "policies_table": {"table_errors": {"policies": TABLE_ERROR_TEXT}},
            "stock_table": {"table_errors": {"stock": TABLE_ERROR_TEXT}},
            "orders_unreadable": {"denied_tables": {"orders": "read"}},
            "shipments_unreadable": {"denied_tables": {"shipments": "read"}},
            "policies_unreadable": {"denied_tables": {"policies": "read"}},
            "stock_unreadable": {"denied_tables": {"stock": "read"}},
            "stock_unwritable": {"denied_tables": {"stock": "write"}},
            "tickets_unwritable": {"denied_tables": {"tickets": "write"}},
        },
        "a read tool that fails at the gateway (``tool_errors``), a table that fails"
        " inside the store (``table_errors``), so every tool reading it fails (the error"
        " texts are benign), or a table SQLite itself refuses to read or change"
        " (``denied_tables``), an error no tool translates: the tool layer crashes",
    ),
    Dimension("goal", GOALS, "what the customer asks"),
    Dimension("sku", SKUS, "the SKU the order names"),
)
"""Every dimension, the baseline value first (the deepest path: a stale parcel in
transit, reissued and approved)."""

INTERACTIONS: tuple[Interaction, ...] = (
    Interaction(("order_status", "carrier"), "the two systems' states decide together"),
    Interaction(("stale", "policy"), "the threshold is the policy's; staleness is read against it"),
    Interaction(
        ("amount", "approver", "amount_style"), "who approves depends on a readable amount"
    ),
    Interaction(("typed_id", "asker"), "which order, and whether the asker may see it"),
    Interaction(("stock", "stale"), "stock matters only when a reissue is due"),
    Interaction(("sku", "goal"), "what is reissued, whatever the customer wrote beside the id"),
    Interaction(
        ("tool_error", "asker"),
        "what fails, and for whom: a parcel look-up for a customer reads the order first",
    ),
    Interaction(("fault", "stale"), "a fault on the reissue path and on the wait path"),
)
"""Where the rules interact: these groups are covered in full."""


def _order_fault(labels: Mapping[str, str]) -> bool:
    fault = labels.get("fault")
    return fault is not None and "order_agent" in FAULTS[fault]


def allowed(labels: Mapping[str, str]) -> bool:
    """The amount-style fault and another order-specialist fault cannot both apply (one
    fault per role); a write SQLite refuses is not combined with an outbox fault (the
    table does not decide which of the two a write meets first)."""
    if labels.get("amount_style", "plain") != "plain" and _order_fault(labels):
        return False
    fault = FAULTS.get(labels.get("fault", "none"), {})
    return not (labels.get("tool_error", "").endswith("_unwritable") and "outbox" in fault)


def _stale_hours(offset: Any, hours: int | None) -> int:
    reference = REFERENCE_HOURS if hours is None else hours
    if offset == "zero":
        return 0
    if offset == "far":
        return reference * 10
    return max(0, reference + int(offset))


def _stock(value: Any) -> dict[str, Any]:
    """The world's ``stock`` key for the ``stock`` dimension's value."""
    if value == UNLISTED:
        return {}
    if value == AFTER_NO_ROW:
        return {"stock": {NO_ROW_SKU: None, SKU: AFTER_NO_ROW_UNITS}}
    return {"stock": {SKU: value}}


def build(values: Mapping[str, Any]) -> dict[str, Any]:
    """A case's input, world and faults from one value per dimension."""
    policy = values["policy"]
    paid, limit = values["amount"]
    order_id = DIGITS_ORDER if values["typed_id"] == DIGITS_TYPED else ORDER
    world: dict[str, Any] = {
        "orders": {
            order_id: {
                "customer": CUSTOMER,
                "sku": values["sku"],
                "status": values["order_status"],
                "paid": paid,
            }
        },
        **_stock(values["stock"]),
        **values["approver"],
    }
    if values["carrier"] is not None:
        world["logistics"] = {
            order_id: {
                "carrier": "顺丰",
                "state": values["carrier"],
                "last_event": "杭州转运中心",
                "stale_hours": _stale_hours(values["stale"], policy["hours"]),
            }
        }
    if policy["kb"] != "default":
        world["kb"] = policy["kb"]
    if policy["add"]:
        world["policies"] = policy["add"]
    if limit is not None:
        world["auto_approve_below"] = limit
    world.update(values["tool_error"])
    faults = dict(values["fault"])
    if values["amount_style"] is not None:
        faults["order_agent"] = f"amount_format:{values['amount_style']}"
    given: dict[str, Any] = {"goal": values["goal"], "order_id": values["typed_id"]}
    if values["asker"] is not None:
        given["customer"] = values["asker"]
    case: dict[str, Any] = {
        "split": "test",
        "title": "生成的世界：按决策表组合各维度的取值",
        "input": given,
        "world": world,
    }
    if faults:
        case["faults"] = faults
    return case


GENERATOR = CaseGenerator(
    prefix="g",
    dimensions=DIMENSIONS,
    build=build,
    oracle=splitting(expect_for),
    interactions=INTERACTIONS,
    allowed=allowed,
    tags=("generated",),
    header=(
        "# Generated by agent_evals.generated_worlds (dimensions x covering array, expect from"
        " the oracle); do not edit by hand (regenerate: uv run evals generate"
        " agent_evals.generated_worlds:GENERATOR)."
    ),
    suite="generated",
)
"""The generated suite."""
