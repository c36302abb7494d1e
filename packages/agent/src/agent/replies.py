"""Reply texts (Chinese) and the checks a draft must pass before it may be sent."""

from __future__ import annotations

import re

from agent.brain import Plan
from agent.hygiene import carries_instructions

REISSUE_PHRASE = "提交补发申请"
"""Said only when a reissue ticket is filed."""
WAIT_PHRASE = "还没到补发条件"

EVIDENCE_ID = re.compile(r"\b[a-z_]+#\d+\b")
"""What an evidence id looks like (``order#1``, ``kb#3``)."""

ASK_ORDER_ID = "您好，为了帮您查询包裹，请提供您的订单号（例如 A1001）。"


def reissue_reply(facts: dict[str, str]) -> str:
    """The reply when a reissue ticket is filed."""
    return (
        f"您好，已为您核实：包裹的物流信息已经 {facts.get('stale_hours', '?')} 小时没有更新，"
        f"达到了补发条件（停滞满 {facts.get('reissue_threshold_hours', '?')} 小时）。"
        f"我们已为您{REISSUE_PHRASE}，新包裹发出后会通知您，给您带来不便非常抱歉。"
    )


def wait_reply(facts: dict[str, str]) -> str:
    """The reply when the parcel is in transit and not yet stale long enough."""
    return (
        f"您好，已为您核实：包裹仍在运输中，物流信息 {facts.get('stale_hours', '?')} 小时前"
        f"有过更新，{WAIT_PHRASE}（物流停滞满 {facts.get('reissue_threshold_hours', '?')} "
        "小时才可补发）。我们会继续跟进，如之后仍没有进展，欢迎随时联系我们。"
    )


def draft_problems(draft: str, plan: Plan) -> list[str]:
    """Why ``draft`` must not be sent for ``plan`` (empty: it may be proposed)."""
    problems = []
    if EVIDENCE_ID.search(draft):
        problems.append("draft contains an evidence id")
    if plan != "reissue" and REISSUE_PHRASE in draft:
        problems.append(f"draft says {REISSUE_PHRASE!r} but no ticket is planned")
    if carries_instructions(draft):
        problems.append("draft carries instructions")
    return problems
