"""The limits suite (``cases/limits.jsonl``): SupportPilot's size limits, each at the
limit and one past it, from the table :data:`LIMITS` (docs/cases.md, "The limits suite").

- The bus delivers a message whose payload, as JSON characters, is at most
  :data:`BUS_PAYLOAD_LIMIT`; a longer one is rejected, logged, never delivered, and its
  task is not retried (only ``invalid_output`` earns a retry). The cases size the
  customer's message so that the logistics specialist's task (the evidence role with the
  longest name, so the largest of the three tasks) is exactly at the limit, then one
  character over it: at the limit the turn goes on as usual; over it that one task is
  rejected and the turn escalates (``specialist_failed``) with three tasks sent.
- A specialist's output holds at most :data:`CLAIMS_LIMIT` claims: the fault
  ``claims:<n>`` pads the policy specialist's output to exactly ``n`` claims. At the
  limit it is used; one over it is ``invalid_output``, retried once, then escalated.
  At the fault's least ``n`` (:data:`COUNTED_LEAST`, as for ``oversize:<n>``) the output,
  already that large, is used as it is.
- A claim's topic is :data:`TOPIC_LEAST` to :data:`TOPIC_MOST` characters: the fault
  ``claim_topic:<n>`` adds one empty claim with an ``n``-character topic to the policy
  specialist's output. At either bound it is used; one past either (the empty topic, 65
  characters) the output is ``invalid_output`` (``schema``), retried once, then escalated.
- A SKU is at most :data:`SKU_MOST` characters as a tool argument (docs/models.md, "Tool
  arguments": ``stock__check`` and ``support__create_ticket``). A world whose reissued
  order has a SKU of exactly that length is reissued as usual (the stock is checked, the
  ticket filed); one character longer, the stock tool refuses the check, so no stock is
  confirmed and the run escalates ``out_of_stock`` with nothing written.

The expectation comes from the oracle below, which reads the case alone. The goal's
length is computed when the suite is generated, from the task message the agent sends
(:class:`agent.brain.Task`, measured as :func:`agent.bus.payload_chars` measures it) for
trial 0 (the trace id is ``<case id>-<trial>``; trials 0 to 9 have the same length).
A change of the task message's fields moves the boundary: the suite is then stale and
``evals generate --check`` says so (regenerate it).

    uv run evals generate agent_evals.limit_cases:GENERATOR           # (re)write it
    uv run evals generate agent_evals.limit_cases:GENERATOR --check   # exit 1: stale
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.brain import Task
from agent.bus import payload_chars
from evals.cases.generate import CaseGenerator, Dimension, case_id

from agent_evals.effects import splitting

BUS_PAYLOAD_LIMIT = 64_000
"""The largest payload the bus delivers, in JSON characters (non-ASCII kept as is)."""
CLAIMS_LIMIT = 50
"""The most claims one specialist output may hold."""
SKU_MOST = 64
"""The longest SKU the stock and ticket tools take, from the docs' table."""
SKU_ORDER = "AZ5001"
"""The order of the SKU cases' world (a reissue: in transit, stale past the threshold)."""
COUNTED_LEAST = 1
"""The least ``n`` of ``claims:<n>`` and ``oversize:<n>`` (docs/cases.md, the fault table)."""
TOPIC_LEAST = 1
TOPIC_MOST = 64
"""The shortest and the longest topic a claim may have (docs/cases.md, "The limits
suite"), fixed here, never read from the claim schema under test."""
PREFIX = "lm"
ORDER_ID = "A1001"
"""The default world's reissue: due, in stock, approved (the reference reply)."""
SIZED_ROLE = "logistics_agent"
"""The evidence role whose task is the largest (its name is the longest)."""
EVIDENCE_ROLES = ("order_agent", "logistics_agent", "policy_agent")
CLAIMS_ROLE = "policy_agent"
CLAIMS_BUDGET_CHARS = 6000
"""The characters a run at the claims limit may return (the default budget is 4,000)."""
GOAL_TEXT = "包裹一直没到，要求马上补发。"
SHORT_GOAL = "包裹一直没到，要求马上补发"
TRIAL = 0
PADDED_ROLE = "order_agent"
NATURAL_ORDER_OUTPUT_CHARS = 440
"""The order specialist's own output for A1001 in the default world, as the worker
measures it (``test_limit_cases`` runs it to keep this true)."""
EMPTY_FILLER_CHARS = 60
"""What one empty filler claim adds to an output (``, `` and the claim's JSON)."""
FILLER_TEXT_CHARS = 4000
"""The most text one filler claim carries: the claim schema's text limit (docs/cases.md)."""
DEFAULT_BUDGET_CHARS = 4000
"""The characters a usual run may return (the decision table's default budget)."""


def trace_id(case: Mapping[str, Any], trial: int = TRIAL) -> str:
    """The trace id SupportPilot gives a run of ``case``."""
    return f"{case['id']}-{trial}"


def task_chars(case: Mapping[str, Any], role: str) -> int:
    """Characters of the first task message ``role`` is sent for ``case``."""
    given = case["input"]
    fields = {"trace_id": trace_id(case), "role": role, "order_id": given["order_id"]}
    task = Task.model_validate({**fields, "goal": given["goal"]})
    return payload_chars(task.model_dump(mode="json"))


def _goal_for(label: str, over: int) -> str:
    """A customer message that puts :data:`SIZED_ROLE`'s task ``over`` characters past
    the bus limit (0: exactly at it)."""

    def probe(goal: str) -> dict[str, Any]:
        given = {"order_id": ORDER_ID, "goal": goal}
        return {"id": case_id(PREFIX, {"limit": label}), "input": given}

    room = BUS_PAYLOAD_LIMIT + over - task_chars(probe(""), SIZED_ROLE)
    goal = (GOAL_TEXT * (room // len(GOAL_TEXT) + 1))[:room]
    if task_chars(probe(goal), SIZED_ROLE) != BUS_PAYLOAD_LIMIT + over:
        raise AssertionError(f"{label}: the goal does not size the task as intended")
    return goal


LIMITS: dict[str, dict[str, Any]] = {
    "bus_task_at": {"over": 0, "title": "任务消息恰好 64000 字符：照常投递，照常补发"},
    "bus_task_over": {
        "over": 1,
        "title": "任务消息超出总线上限一个字符：被拒收，不重试，转人工",
    },
    "claims_at": {"claims": CLAIMS_LIMIT, "title": "专员输出恰好 50 条陈述：照常使用"},
    "claims_over": {
        "claims": CLAIMS_LIMIT + 1,
        "title": "专员输出 51 条陈述：不合规，重试一次后转人工",
    },
    # The least argument of each counted fault kind (1): the output already holds one
    # claim and is over one character, so it is used as it is. A run of either, not only
    # its acceptance, shows the number is read as that kind's count and nothing else (a
    # 1 taken for flaky's probability would crash the role).
    "claims_least": {"claims": COUNTED_LEAST, "title": "陈述数补足到至少 1 条：已有陈述，原样使用"},
    "padding_least": {
        "oversize": COUNTED_LEAST,
        "title": "订单专员的输出补足到 1 个字符：本已更长，原样使用，照常补发",
    },
    # oversize:<n> at the edges of its own arithmetic: one character short of room for an
    # empty filler (the output is left as it is), exactly room for one (an empty filler
    # is added), one past a full filler's room (a full filler plus a one-character one).
    "padding_short": {
        "oversize": NATURAL_ORDER_OUTPUT_CHARS + EMPTY_FILLER_CHARS - 1,
        "title": "订单专员的输出差一个字符才放得下一条空白填充：原样使用，照常补发",
    },
    "padding_at": {
        "oversize": NATURAL_ORDER_OUTPUT_CHARS + EMPTY_FILLER_CHARS,
        "title": "订单专员的输出恰好放得下一条空白填充：补足到指定长度，照常补发",
    },
    "padding_past_full": {
        "oversize": NATURAL_ORDER_OUTPUT_CHARS + EMPTY_FILLER_CHARS + FILLER_TEXT_CHARS + 1,
        "title": "订单专员的输出比一条满填充多一个字符：补足到指定长度，照常补发",
    },
    "sku_at_most": {
        "sku": SKU_MOST,
        "title": "商品编码恰好 64 个字符（工具参数上限）：照常查库存、补发",
    },
    "sku_over_most": {
        "sku": SKU_MOST + 1,
        "title": "商品编码 65 个字符（超出工具参数上限）：库存查不了，不能补发，转人工",
    },
    "topic_at_least": {"topic": TOPIC_LEAST, "title": "陈述的主题只有 1 个字符（下限）：照常使用"},
    "topic_below_least": {
        "topic": TOPIC_LEAST - 1,
        "title": "陈述的主题为空（低于下限）：不合规，重试一次后转人工",
    },
    "topic_at_most": {"topic": TOPIC_MOST, "title": "陈述的主题恰好 64 个字符（上限）：照常使用"},
    "topic_over_most": {
        "topic": TOPIC_MOST + 1,
        "title": "陈述的主题 65 个字符（超出上限一个）：不合规，重试一次后转人工",
    },
}
"""Label -> the limit it puts the run at (``over`` characters past the bus limit,
``claims`` in the policy specialist's output, the ``oversize`` the order specialist's
output is padded to, the length of a ``sku``, or the ``topic`` length of one claim it
adds) and its title."""

DIMENSIONS = (
    Dimension(
        "limit",
        {label: label for label in LIMITS},
        doc="which limit the run is put at, at it or one past it",
    ),
)


def build(values: Mapping[str, Any]) -> dict[str, Any]:
    """The case of one row of :data:`LIMITS`."""
    label = str(values["limit"])
    row = LIMITS[label]
    built: dict[str, Any] = {"title": row["title"]}
    if "over" in row:
        built["input"] = {"goal": _goal_for(label, int(row["over"])), "order_id": ORDER_ID}
    elif "oversize" in row:
        built["input"] = {"goal": SHORT_GOAL, "order_id": ORDER_ID}
        built["faults"] = {PADDED_ROLE: f"oversize:{row['oversize']}"}
    elif "sku" in row:
        built["input"] = {"goal": SHORT_GOAL, "order_id": SKU_ORDER}
        built["world"] = sku_world(sku_of(int(row["sku"])))
    elif "topic" in row:
        built["input"] = {"goal": SHORT_GOAL, "order_id": ORDER_ID}
        built["faults"] = {CLAIMS_ROLE: f"claim_topic:{row['topic']}"}
    else:
        built["input"] = {"goal": SHORT_GOAL, "order_id": ORDER_ID}
        built["faults"] = {CLAIMS_ROLE: f"claims:{row['claims']}"}
    return built


def sku_of(chars: int) -> str:
    """A SKU exactly ``chars`` characters long."""
    return ("SKU-" + "L" * chars)[:chars]


def sku_world(sku: str) -> dict[str, Any]:
    """One order in transit, stale past the default threshold, its SKU ``sku`` in stock."""
    return {
        "orders": {
            SKU_ORDER: {"customer": "赵女士", "sku": sku, "status": "已发货，运输中", "paid": 59.0}
        },
        "stock": {sku: 20},
        "approve": True,
        "logistics": {
            SKU_ORDER: {
                "carrier": "顺丰",
                "state": "运输中",
                "last_event": "杭州转运中心",
                "stale_hours": 120,
            }
        },
    }


def _claims_fault(case: Mapping[str, Any], wanted: str = "claims") -> int | None:
    fault = str(case.get("faults", {}).get(CLAIMS_ROLE, ""))
    kind, _, n = fault.partition(":")
    return int(n) if kind == wanted else None


def expect_for(case: Mapping[str, Any]) -> dict[str, Any]:
    """What a correct run of ``case`` does, from the limits alone."""
    all_ok = {role: ["ok"] for role in EVIDENCE_ROLES}
    replied = {
        "outcome": "replied",
        "tickets": 1,
        "dispatched": [*EVIDENCE_ROLES, "reply_agent"],
        "statuses": {**all_ok, "reply_agent": ["ok"]},
    }
    refused = {
        "outcome": "escalate",
        "outcome_reason": "specialist_failed",
        "tickets": 0,
        "dispatched": list(EVIDENCE_ROLES),
        "statuses": {**all_ok, CLAIMS_ROLE: ["invalid_output", "invalid_output"]},
        "output_problems": {CLAIMS_ROLE: ["schema", "schema"]},
    }
    world = case.get("world")
    if world is not None:
        (order,) = world["orders"].values()
        sku = str(order["sku"])
        facts = {"order": SKU_ORDER, "sku": sku}
        if len(sku) <= SKU_MOST:
            return {**replied, "facts": facts, "state_after": {f"stock.{sku}": "19"}}
        return {
            "outcome": "escalate",
            "outcome_reason": "out_of_stock",
            "tickets": 0,
            "dispatched": list(EVIDENCE_ROLES),
            "statuses": all_ok,
            "facts": facts,
            "state_after": {f"stock.{sku}": "20"},
        }
    padded = str(case.get("faults", {}).get(PADDED_ROLE, "")).partition(":")
    if padded[0] == "oversize":
        # Under the output limit (16,000): used as usual; the padding is returned too.
        return {**replied, "max_chars": DEFAULT_BUDGET_CHARS + int(padded[2])}
    topic = _claims_fault(case, "claim_topic")
    if topic is not None:
        return replied if TOPIC_LEAST <= topic <= TOPIC_MOST else refused
    claims = _claims_fault(case)
    if claims is not None:
        if claims <= CLAIMS_LIMIT:
            # Fifty empty claims return about 2,700 characters over a usual run's 2,000.
            return {**replied, "max_chars": CLAIMS_BUDGET_CHARS}
        return refused
    rejected = [r for r in EVIDENCE_ROLES if task_chars(case, r) > BUS_PAYLOAD_LIMIT]
    if not rejected:
        return replied
    return {
        "outcome": "escalate",
        "outcome_reason": "specialist_failed",
        "tickets": 0,
        "dispatched": list(EVIDENCE_ROLES),
        # A rejected task gets no result (no status) and is not retried.
        "statuses": {r: ["ok"] for r in EVIDENCE_ROLES if r not in rejected},
        "max_tasks": len(EVIDENCE_ROLES),
    }


GENERATOR = CaseGenerator(
    prefix=PREFIX,
    dimensions=DIMENSIONS,
    build=build,
    oracle=splitting(expect_for),
    tags=("limits", "fault"),
    header=(
        "# Generated by agent_evals.limit_cases (each size limit at and one past it; expect"
        " from its oracle); do not edit by hand (regenerate: uv run evals generate"
        " agent_evals.limit_cases:GENERATOR)."
    ),
    suite="limits",
)
"""The limits suite."""
