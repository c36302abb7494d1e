"""The orchestrator's decision once the evidence is back, in the spec's order."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from agent.aggregate import Aggregate
from agent.brain import Plan


class Escalation(BaseModel):
    """Hand the case to a human."""

    reason: str
    """Why (a short code: ``specialist_failed``, ``conflict``, ``returning`` …)."""
    suggestion: str
    """What the human agent should do (Chinese)."""


class Proceed(BaseModel):
    """Answer the customer: file a reissue, or tell them to wait."""

    plan: Plan
    """``reissue`` or ``wait``."""
    stale_hours: int
    """Hours without a tracking update."""
    threshold_hours: int
    """The current policy's reissue threshold."""


def _hours(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


def decide(agg: Aggregate, statuses: Mapping[str, str]) -> Escalation | Proceed:
    """Escalate or proceed, given the merged claims and each specialist's status."""
    failed = sorted(role for role, status in statuses.items() if status != "ok")
    if failed:
        return Escalation(
            reason="specialist_failed",
            suggestion=f"专员未正常完成（{', '.join(failed)}），请人工复核已收集的事实。",
        )
    closed = agg.agreed.get("order_closed")
    if closed:
        # A closed order is final, whatever the carrier's record says.
        return Escalation(
            reason="order_closed",
            suggestion=f"订单已关闭（{closed}），不能补发或改动，请人工核实客户诉求。",
        )
    if agg.conflicts:
        return Escalation(
            reason="conflict",
            suggestion=f"业务系统之间信息不一致（{', '.join(agg.conflicts)}），请人工核实。",
        )
    if agg.gaps:
        return Escalation(
            reason="gap",
            suggestion=f"缺少关键信息（{', '.join(agg.gaps)}），请人工核实，不要猜测。",
        )
    state = agg.agreed.get("parcel_state", "unknown")
    stale = _hours(agg.agreed.get("stale_hours"))
    threshold = _hours(agg.agreed.get("reissue_threshold_hours"))
    if stale is None or threshold is None:
        return Escalation(
            reason="unreadable", suggestion="物流时长或政策门槛无法识别，请人工处理。"
        )
    if state == "delivered":
        return Escalation(reason="delivered", suggestion="系统显示已签收，请人工核实签收凭证。")
    if state == "returning":
        return Escalation(reason="returning", suggestion="包裹正在退回，请人工联系快递和商家处理。")
    if state == "unknown":
        return Escalation(reason="unknown_state", suggestion="包裹状态无法识别，请人工查询。")
    plan: Plan = "reissue" if stale >= threshold else "wait"
    return Proceed(plan=plan, stale_hours=stale, threshold_hours=threshold)
