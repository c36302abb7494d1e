"""Deterministic rule brains: no network, same answer every time."""

from __future__ import annotations

import re
import unicodedata

from domain import order_closure, parcel_state
from tools import ToolFailedError, ToolResult

from agent.brain import Brain, Task, ToolBox
from agent.contracts import Claim
from agent.replies import reissue_reply, wait_reply

POLICY_QUERY = "补发 物流 停滞"
REISSUE_WORDS = ("补发", "没到", "未到", "丢件")
"""Words by which the customer asks for a reissue (the ``request`` claim's value)."""


QUOTE_CHARS = 1000
"""The most characters of outside text (the customer's words, a status, a tool error) a
claim quotes; longer text is cut and marked, so a long message cannot break the claim
schema's 4,000-character explanation."""


def quoted(text: object) -> str:
    """``text`` as a claim quotes it: at most :data:`QUOTE_CHARS` characters, then ``…``."""
    words = str(text)
    return words if len(words) <= QUOTE_CHARS else words[:QUOTE_CHARS] + "…"


def _output(claims: list[Claim]) -> dict[str, object]:
    return {"claims": [claim.model_dump() for claim in claims]}


def _read(tools: ToolBox, tool: str, args: dict[str, object]) -> ToolResult | str:
    """The tool's result, or the error text when the tool failed (the specialist reports
    it as read: a refusal still ends the attempt)."""
    try:
        return tools.call(tool, args)
    except ToolFailedError as e:
        return e.detail


def _request(goal: str) -> Claim:
    """What the customer asks for, with their words quoted in the explanation: a reader
    model sees them too, so the instruction screen must see them."""
    wants = "resend" if any(word in goal for word in REISSUE_WORDS) else "inquiry"
    return Claim(topic="request", value=wants, text=f"客户原话：{quoted(goal)}")


class OrderBrain:
    """Looks the order up: parcel state from its status, SKU and amount paid."""

    async def think(self, task: Task, tools: ToolBox) -> object:
        """Claims about the order, or a gap when it does not exist."""
        result = _read(tools, "orders__get_order", {"order_id": task.order_id})
        request = [_request(task.goal)] if task.goal.strip() else []
        if isinstance(result, str):
            return _output(
                [*request, Claim(topic="order", value=None, text=f"订单系统报错：{quoted(result)}")]
            )
        if not result.data.get("found"):
            return _output([*request, Claim(topic="order", value=None, text="订单系统查无此订单")])
        order = result.data["order"]
        cite = [result.evidence[0].id]
        state = parcel_state(order["status"])
        closed = order_closure(order["status"])
        closure = (
            [Claim(topic="order_closed", value=closed, text="订单已关闭", evidence=cite)]
            if closed
            else []
        )
        return _output(
            [
                *request,
                *closure,
                Claim(topic="order", value=order["id"], text="订单存在", evidence=cite),
                Claim(
                    topic="parcel_state",
                    value=state,
                    text=f"订单状态「{quoted(order['status'])}」",
                    evidence=cite,
                ),
                Claim(topic="sku", value=order["sku"], text="订单商品", evidence=cite),
                Claim(topic="paid", value=f"{order['paid']:.2f}", text="实付金额", evidence=cite),
            ]
        )


class LogisticsBrain:
    """Tracks the parcel: state and hours without an update."""

    async def think(self, task: Task, tools: ToolBox) -> object:
        """Claims about the shipment, or a gap when there is no record."""
        result = _read(tools, "logistics__track", {"order_id": task.order_id})
        if isinstance(result, str):
            return _output(
                [Claim(topic="shipment", value=None, text=f"物流系统报错：{quoted(result)}")]
            )
        if not result.data.get("found"):
            return _output([Claim(topic="shipment", value=None, text="物流系统没有运单记录")])
        ship = result.data["shipment"]
        cite = [result.evidence[0].id]
        return _output(
            [
                Claim(
                    topic="parcel_state",
                    value=parcel_state(ship["state"]),
                    text=f"物流状态「{quoted(ship['state'])}」",
                    evidence=cite,
                ),
                Claim(
                    topic="stale_hours",
                    value=str(ship["stale_hours"]),
                    text="距最后一次物流更新的小时数",
                    evidence=cite,
                ),
                Claim(
                    topic="last_event",
                    value=ship["last_event"],
                    text="最后一个物流节点",
                    evidence=cite,
                ),
            ]
        )


class PolicyBrain:
    """Finds the reissue policy in force — of the current documents about reissues, the
    one that took effect last — and reads its period in hours (days count 24 each);
    quotes the other documents the search found as ``policy_notes``."""

    async def think(self, task: Task, tools: ToolBox) -> object:
        """The reissue threshold, or a gap when no policy in force states one readably."""
        result = _read(tools, "kb__search", {"query": POLICY_QUERY})
        if isinstance(result, str):
            text = f"知识库报错：{result}"
            return _output([Claim(topic="reissue_threshold_hours", value=None, text=text)])
        documents = {f"kb#{doc['id']}": doc for doc in result.data.get("documents", [])}
        about_reissue = [
            item
            for item in result.evidence
            if "补发" in item.excerpt and not documents.get(item.id, {}).get("superseded")
        ]
        claims: list[Claim] = []
        others = list(result.evidence)
        if about_reissue:
            # Every item the search returns is one of its documents (kb#<document id>).
            ruling = max(about_reissue, key=lambda item: _in_force_key(documents[item.id]))
            others.remove(ruling)
            hours = period_hours(str(documents.get(ruling.id, {}).get("body", ruling.excerpt)))
            claims.append(
                Claim(
                    topic="reissue_threshold_hours",
                    value=None if hours is None else str(hours),
                    text=f"现行补发政策 {ruling.version}"
                    + ("" if hours is not None else "：期限无法识别"),
                    evidence=[] if hours is None else [ruling.id],
                )
            )
        else:
            claims.append(
                Claim(topic="reissue_threshold_hours", value=None, text="知识库中没有补发政策")
            )
        if others:
            notes = "；".join(item.excerpt for item in others)
            cited = [item.id for item in others]
            claims.append(
                Claim(topic="policy_notes", value=notes, text="其他相关文档", evidence=cited)
            )
        return _output(claims)


def _in_force_key(doc: dict[str, object]) -> tuple[str, str, int]:
    """Orders reissue policies by when they took effect (then version, then id)."""
    return (str(doc.get("effective_date", "")), str(doc.get("version", "")), int(str(doc["id"])))


PERIOD = re.compile(r"(\d+)\s*(小时|天|日)")
"""A period as a policy states it: a whole number (full-width digits too, after NFKC),
then hours or days."""
UNIT_HOURS = {"小时": 1, "天": 24, "日": 24}
DECIMAL_OR_RANGE = re.compile(r"[\d.\-~～至到]\s*$")
"""Text ending so just before a period's number: the number ends a decimal (``72.5``)
or a range (``48-72``, ``48 至 72``), and the period is not read for sure."""


def period_hours(text: str) -> int | None:
    """The first period ``text`` states, in hours; ``None`` when none can be read for
    sure (a number in words, no unit, a decimal, a range)."""
    folded = unicodedata.normalize("NFKC", text)
    match = PERIOD.search(folded)
    if match is None or DECIMAL_OR_RANGE.search(folded[: match.start()]):
        return None
    return int(match.group(1)) * UNIT_HOURS[match.group(2)]


class ReplyBrain:
    """Drafts the customer reply from the plan and the agreed facts (no tools)."""

    async def think(self, task: Task, tools: ToolBox) -> object:
        """One claim, topic ``reply``, whose value is the draft."""
        draft = reissue_reply(task.facts) if task.plan == "reissue" else wait_reply(task.facts)
        return _output([Claim(topic="reply", value=draft, text="回复草稿")])


def rule_brains() -> dict[str, Brain]:
    """A fresh rule brain per specialist."""
    return {
        "order_agent": OrderBrain(),
        "logistics_agent": LogisticsBrain(),
        "policy_agent": PolicyBrain(),
        "reply_agent": ReplyBrain(),
    }
