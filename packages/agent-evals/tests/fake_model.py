"""Scripted models for the fake OpenAI server: a competent one that reads the request's
tools and messages and answers like a careful model would, and helpers to build
misbehaving variants of it."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

from domain import parcel_state
from fake_openai import Reply, ResponseSpec, ToolCall, ToolCalls, Usage

CALL_USAGE = Usage(prompt_tokens=10, completion_tokens=5)
"""What every scripted completion reports, so token sums are exact."""

TOOL_OF_ROLE = {
    "order_agent": "orders__get_order",
    "logistics_agent": "logistics__track",
    "policy_agent": "kb__search",
}
ROLE_OF_PROMPT = {
    "order specialist": "order_agent",
    "logistics specialist": "logistics_agent",
    "policy specialist": "policy_agent",
    "reply writer": "reply_agent",
}

Model = Callable[[dict[str, Any]], ResponseSpec]


def role_of(request: dict[str, Any]) -> str:
    """The specialist a request comes from, read from its system prompt."""
    system = request["messages"][0]["content"]
    return next(role for phrase, role in ROLE_OF_PROMPT.items() if phrase in system)


def offered_tools(request: dict[str, Any]) -> set[str]:
    """The function names a request offers the model."""
    return {tool["function"]["name"] for tool in request.get("tools") or []}


def _tag(text: str, name: str) -> str:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
    return html.unescape(match.group(1)) if match else ""


def user_text(request: dict[str, Any]) -> str:
    """The first user message of a request."""
    return str(next(m["content"] for m in request["messages"] if m["role"] == "user"))


def answer(claims: list[dict[str, Any]]) -> Reply:
    """A final answer carrying ``claims`` as JSON."""
    return Reply(json.dumps({"claims": claims}, ensure_ascii=False), usage=CALL_USAGE)


def _claim(
    topic: str, value: str | None, evidence: list[str], text: str = "依据"
) -> dict[str, Any]:
    return {"topic": topic, "value": value, "text": text, "evidence": evidence}


def _evidence_claims(role: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    items = result.get("evidence", [])
    if role == "order_agent":
        if not items:
            return [_claim("order", None, [], "查无此订单")]
        item = items[0]
        status, paid, sku = re.search(
            r"状态「(.*?)」，实付 ([\d.]+) 元，商品 (\S+)", item["excerpt"]
        ).groups()  # type: ignore[union-attr]
        order_id = re.search(r"订单 (\S+)：", item["excerpt"]).group(1)  # type: ignore[union-attr]
        cite = [item["id"]]
        return [
            _claim("order", order_id, cite),
            _claim("parcel_state", parcel_state(status), cite),
            _claim("sku", sku, cite),
            _claim("paid", f"{float(paid):.2f}", cite),
        ]
    if role == "logistics_agent":
        if not items:
            return [_claim("shipment", None, [], "没有运单")]
        item = items[0]
        state, hours = re.search(r"）：(.+?)，最后节点.*已 (\d+) 小时", item["excerpt"]).groups()  # type: ignore[union-attr]
        return [
            _claim("parcel_state", parcel_state(state), [item["id"]]),
            _claim("stale_hours", hours, [item["id"]]),
        ]
    for item in items:
        hours = re.search(r"(\d+)\s*小时", item["excerpt"])
        if "补发" in item["excerpt"] and hours:
            return [_claim("reissue_threshold_hours", hours.group(1), [item["id"]])]
    return [_claim("reissue_threshold_hours", None, [], "没有补发政策")]


def _draft(request: dict[str, Any]) -> str:
    text = user_text(request)
    facts = json.loads(_tag(text, "facts") or "{}")
    stale, threshold = facts.get("stale_hours", "?"), facts.get("reissue_threshold_hours", "?")
    if _tag(text, "plan") == "reissue":
        return (
            f"您好，包裹的物流信息已经 {stale} 小时没有更新，达到补发条件（{threshold} 小时）。"
            "我们已为您提交补发申请，新包裹发出后会通知您。"
        )
    return f"您好，包裹仍在运输中，物流 {stale} 小时前有更新，还没到补发条件（{threshold} 小时）。"


def competent(request: dict[str, Any]) -> ResponseSpec:
    """A careful model: calls its one tool, then claims what the evidence says."""
    role = role_of(request)
    if role == "reply_agent":
        return answer([_claim("reply", _draft(request), [], "回复草稿")])
    results = [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]
    if results:
        return answer(_evidence_claims(role, results[-1]))
    text = user_text(request)
    args = (
        {"query": "补发 物流 停滞"}
        if role == "policy_agent"
        else {"order_id": _tag(text, "order_id")}
    )
    return ToolCalls(ToolCall(TOOL_OF_ROLE[role], args), usage=CALL_USAGE)


def except_for(role: str, other: Model, base: Model = competent) -> Model:
    """``base`` for every specialist but ``role``, which gets ``other``."""

    def model(request: dict[str, Any]) -> ResponseSpec:
        return other(request) if role_of(request) == role else base(request)

    return model


def when_order(order_id: str, other: Model, base: Model = competent) -> Model:
    """``base``, except for requests about ``order_id``, which get ``other``."""

    def model(request: dict[str, Any]) -> ResponseSpec:
        text = user_text(request)
        about = _tag(text, "order_id") or ""
        return other(request) if about == order_id else base(request)

    return model
