"""Parcel state from the free-text status of an order or a shipment."""

from __future__ import annotations

from typing import Literal

ParcelState = Literal["returning", "delivered", "in_transit", "unknown"]
"""Where the parcel is, as the decision logic sees it."""


def parcel_state(status: str) -> ParcelState:
    """Normalize a Chinese status text: 退回 → returning; else 签收 → delivered;
    else 运输/发货 → in_transit; anything else → unknown.

    The order matters: "派送失败，退回中" mentions neither 签收 nor 运输 but a returning
    parcel that was once shipped must never read as in transit.
    """
    if "退回" in status:
        return "returning"
    if "签收" in status:
        return "delivered"
    if "运输" in status or "发货" in status:
        return "in_transit"
    return "unknown"


OrderClosure = Literal["cancelled", "refunded", "returned"]
"""A final state of an order: nothing more may be done for it."""

CLOSED_STATUS_WORDS: dict[OrderClosure, tuple[str, ...]] = {
    "cancelled": ("已取消", "取消成功", "交易关闭"),
    "refunded": ("已退款", "退款成功", "退款完成"),
    "returned": ("已退货", "退货成功", "退货完成"),
}
"""The words of an order status that close the order. Each states a done deed: a status
that only mentions a refund ("客户咨询过退款") leaves the order open."""


def order_closure(status: str) -> OrderClosure | None:
    """The final state an order status puts the order in (the one stated first, when it
    states several), or ``None`` while it is open."""
    first: tuple[int, OrderClosure] | None = None
    for state, words in CLOSED_STATUS_WORDS.items():
        for word in words:
            at = status.find(word)
            if at >= 0 and (first is None or at < first[0]):
                first = (at, state)
    return None if first is None else first[1]
