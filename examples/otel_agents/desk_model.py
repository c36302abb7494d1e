"""The model both desks talk to: a stand-in for a real one, on the fake OpenAI server.

It answers as a competent model would, from what it is sent: asked about an order
(``A1``) with the ``lookup_order`` tool offered, it calls the tool with that id; given the
tool's result, it tells the customer; offered no tool, or asked about no order, it says
what it cannot do. Point a desk's ``base_url`` at a real provider and nothing else changes.
"""

from __future__ import annotations

import re
from typing import Any

from fake_openai import FakeOpenAI, Reply, ToolCall, ToolCalls

ORDER_ID = re.compile(r"\b[A-Z]\d+\b")
TOOL = "lookup_order"


def _text(content: Any) -> str:
    """A message's text, whether sent as a string or as parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def answer(request: dict[str, Any]) -> Reply | ToolCalls:
    """The model's next message for one chat request."""
    messages = request.get("messages", [])
    offered = {t.get("function", {}).get("name") for t in request.get("tools", [])}
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return Reply(f"您的订单状态：{_text(last.get('content'))}")
    asked = ORDER_ID.findall(_text(last.get("content")))
    if not asked:
        return Reply("请告诉我您的订单号。")
    if TOOL not in offered:
        return Reply("抱歉，我无法查询订单。")
    return ToolCalls(ToolCall(TOOL, {"order_id": asked[0]}))


def serve() -> FakeOpenAI:
    """The model's server on 127.0.0.1, started (stop it, or use it in a ``with``)."""
    return FakeOpenAI(handler=answer).start()
