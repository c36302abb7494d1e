"""SupportPilot's default world as docs/cases.md ("The default world") states it, written
here apart from ``domain.world``: the oracle and the generated suites compute what a case
expects from these tables, so a default the system changes (an order's customer, a
shipment's hours, a policy's period, a stock level) is a disagreement the gate shows,
never a change both sides make together."""

from __future__ import annotations

from typing import Any

DEFAULT_SKU = "SKU-TEE-01"
"""The SKU an order added by a case gets when it names none."""

DEFAULT_ORDERS: dict[str, dict[str, Any]] = {
    "A1001": {
        "customer": "李先生",
        "sku": "SKU-TEE-01",
        "status": "已发货，顺丰运输中",
        "paid": 59.0,
    },
    "A1002": {"customer": "张女士", "sku": "SKU-MUG-02", "status": "已签收", "paid": 39.0},
    "A1003": {"customer": "王先生", "sku": "SKU-CAP-03", "status": "已签收", "paid": 49.0},
}
"""The orders every world holds unless a case overrides them."""
ORDER_DEFAULTS: dict[str, Any] = {
    "customer": "顾客",
    "sku": DEFAULT_SKU,
    "status": "已发货，运输中",
    "paid": 59.0,
}
"""The fields an order added by a case gets when it omits them."""

DEFAULT_SHIPMENTS: dict[str, dict[str, Any]] = {
    "A1001": {
        "carrier": "顺丰",
        "state": "运输中",
        "last_event": "杭州转运中心",
        "stale_hours": 120,
    },
    "A1002": {"carrier": "中通", "state": "已签收", "last_event": "小区快递柜", "stale_hours": 0},
    "A1003": {
        "carrier": "圆通",
        "state": "派送失败，退回中",
        "last_event": "上海转运中心",
        "stale_hours": 20,
    },
}
"""The shipments every world holds unless a case overrides them."""
SHIPMENT_DEFAULTS: dict[str, Any] = {
    "carrier": "快递",
    "state": "运输中",
    "last_event": "转运中心",
    "stale_hours": 0,
}
"""The fields a shipment added by a case gets when it omits them."""

DEFAULT_STOCK: dict[str, int] = {"SKU-TEE-01": 20, "SKU-MUG-02": 10, "SKU-CAP-03": 10}
"""Units in stock of the default SKUs."""

REISSUE_KEYWORDS = "补发 物流 停滞 未到 没到 丢件 reissue"
"""The keywords of the reissue policies (and of a policy a case adds without its own)."""
DEFAULT_POLICIES: list[dict[str, Any]] = [
    {
        "id": 1,
        "title": "退换货政策",
        "body": "签收后 7 天内可申请退换货，商品须保持完好。",
        "keywords": "退货 换货 退款 签收 return refund",
        "version": "v1",
        "effective_date": "2024-01-01",
        "superseded": 0,
    },
    {
        "id": 2,
        "title": "补发政策（旧版）",
        "body": "物流信息停滞满 168 小时未更新的，可为客户提交补发申请。",
        "keywords": REISSUE_KEYWORDS,
        "version": "v1",
        "effective_date": "2023-03-01",
        "superseded": 1,
    },
    {
        "id": 3,
        "title": "补发政策",
        "body": "物流信息停滞满 72 小时（含）未更新的，可为客户提交补发申请；"
        "已签收或退回中的包裹须转人工核实。",
        "keywords": REISSUE_KEYWORDS,
        "version": "v2",
        "effective_date": "2024-07-01",
        "superseded": 0,
    },
]
"""The knowledge base of the default world (``kb: default``)."""
