"""Argument schemas are checked before any handler runs."""

from __future__ import annotations

from typing import Any

import pytest
from tools import InvalidArgumentsError, ToolGateway


@pytest.mark.parametrize(
    "call",
    [
        ("order_agent", "orders__get_order", {}),
        ("order_agent", "orders__get_order", {"order_id": ""}),
        ("order_agent", "orders__get_order", {"order_id": 1001}),
        ("order_agent", "orders__get_order", {"order_id": "A1001", "drop": "table"}),
        ("logistics_agent", "logistics__track", {"id": "A1001"}),
        ("policy_agent", "kb__search", {"query": "补发", "include_superseded": "yes"}),
        ("policy_agent", "kb__search", {"query": "x" * 201}),
        ("order_agent", "stock__check", {"sku": None}),
        ("orchestrator", "support__create_ticket", {"order_id": "A1001"}),
        (
            "orchestrator",
            "support__send_reply",
            {"order_id": "A1", "text": "hi", "approval_id": "a", "idempotency_key": "tr-1:ticket"},
        ),
    ],
)
def test_schema_violation_is_rejected_before_the_handler(
    dump: Any,
    gateway: ToolGateway,
    handler_calls: list[str],
    call: tuple[str, str, dict[str, Any]],
) -> None:
    role, tool, args = call
    before = dump(gateway.store)
    with pytest.raises(InvalidArgumentsError, match=tool):
        gateway.call(role, tool, args)
    assert handler_calls == []
    assert dump(gateway.store) == before
    [entry] = gateway.store.audit()
    assert (entry.allowed, entry.status) == (True, "invalid_arguments")
