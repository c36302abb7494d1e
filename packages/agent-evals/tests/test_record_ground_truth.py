"""The ground truth a run carries is read from the database, not from the agent."""

from __future__ import annotations

from typing import Any

import pytest
from agent_evals.record import ground_truth
from domain import build_world


@pytest.mark.parametrize(
    ("world", "order_id", "expected"),
    [
        (
            {},
            "A1001",
            {
                "order.id": "A1001",
                "order.customer": "李先生",
                "order.sku": "SKU-TEE-01",
                "order.paid": "59.00",
                "stock.SKU-TEE-01": "20",
                "shipment.state": "运输中",
                "shipment.stale_hours": "120",
                "policy.reissue_threshold_hours": "72",
            },
        ),
        (
            {"orders": {"B1": {"paid": 1299.5}}, "stock": {"SKU-TEE-01": 3}},
            " B1 ",
            {
                "order.id": "B1",
                "order.customer": "顾客",
                "order.sku": "SKU-TEE-01",
                "order.paid": "1299.50",
                "stock.SKU-TEE-01": "3",
                "policy.reissue_threshold_hours": "72",
            },
        ),
        ({"kb": "empty"}, "A9999", {}),
        ({}, None, {"policy.reissue_threshold_hours": "72"}),
    ],
    ids=["default-order", "override-no-shipment", "unknown-order-empty-kb", "no-order-id"],
)
def test_ground_truth_comes_from_the_world(
    world: dict[str, Any], order_id: str | None, expected: dict[str, str]
) -> None:
    store = build_world(world)
    try:
        no_calls = {
            "calls.support__create_ticket": "0",
            "calls.support__send_reply": "0",
            "calls.support__find_write": "0",
        }
        assert ground_truth(store, order_id) == {**expected, **no_calls}
    finally:
        store.close()


def test_stock_is_read_after_the_run() -> None:
    store = build_world({})
    try:
        store.reserve_stock("SKU-TEE-01")
        assert ground_truth(store, "A1001")["stock.SKU-TEE-01"] == "19"
    finally:
        store.close()
