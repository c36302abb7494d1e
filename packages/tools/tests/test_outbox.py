"""The outbox: approved, idempotent writes, every call audited."""

from __future__ import annotations

from typing import Any

import pytest
from domain import Store
from tools import ToolFailedError, ToolGateway


def _approve(store: Store, status: str = "approved") -> None:
    store.record_approval(
        approval_id="tr-1:approval",
        trace_id="tr-1",
        action="reissue",
        order_id="A1001",
        amount=59.0,
        summary="补发",
        status=status,  # type: ignore[arg-type]
        decided_by="approver",
    )


def _ticket(key: str = "tr-1:ticket") -> dict[str, Any]:
    return {
        "order_id": "A1001",
        "sku": "SKU-TEE-01",
        "approval_id": "tr-1:approval",
        "idempotency_key": key,
        "summary": "补发",
    }


def _reply(key: str = "tr-1:reply") -> dict[str, Any]:
    return {
        "order_id": "A1001",
        "text": "您好",
        "approval_id": "tr-1:approval",
        "idempotency_key": key,
    }


@pytest.mark.parametrize(
    ("tool", "args", "table"),
    [
        ("support__create_ticket", _ticket(), "tickets"),
        ("support__send_reply", _reply(), "replies"),
    ],
)
def test_replayed_write_yields_one_row(
    gateway: ToolGateway, tool: str, args: dict[str, Any], table: str
) -> None:
    _approve(gateway.store)
    created = [gateway.call("orchestrator", tool, args).data["created"] for _ in range(5)]
    assert created == [True, False, False, False, False]
    assert gateway.store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 1
    audit = gateway.store.audit()
    assert len(audit) == 5 and all(e.status == "ok" for e in audit)


def test_replayed_ticket_reserves_one_unit(gateway: ToolGateway) -> None:
    _approve(gateway.store)
    before = gateway.store.stock_level("SKU-TEE-01")
    for _ in range(5):
        gateway.call("orchestrator", "support__create_ticket", _ticket())
    assert gateway.store.stock_level("SKU-TEE-01") == before - 1


@pytest.mark.parametrize("approval", [None, "rejected"])
@pytest.mark.parametrize(
    ("tool", "args"),
    [("support__create_ticket", _ticket()), ("support__send_reply", _reply())],
)
def test_write_without_approved_approval_fails_and_is_audited(
    dump: Any, gateway: ToolGateway, tool: str, args: dict[str, Any], approval: str | None
) -> None:
    if approval is not None:
        _approve(gateway.store, approval)
    before = dump(gateway.store)
    with pytest.raises(ToolFailedError, match="approval"):
        gateway.call("orchestrator", tool, args)
    assert dump(gateway.store) == before
    [entry] = gateway.store.audit()
    assert (entry.allowed, entry.status, entry.tool) == (True, "error", tool)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("support__create_ticket", _ticket("other-trace:ticket")),
        ("support__send_reply", _reply("other-trace:reply")),
    ],
)
def test_write_under_another_runs_key_fails(
    dump: Any, gateway: ToolGateway, tool: str, args: dict[str, Any]
) -> None:
    _approve(gateway.store)
    before = dump(gateway.store)
    with pytest.raises(ToolFailedError, match="idempotency key"):
        gateway.call("orchestrator", tool, args)
    assert dump(gateway.store) == before


def test_ticket_out_of_stock_fails_cleanly() -> None:
    from domain import build_world

    gateway = ToolGateway(build_world({"stock": {"SKU-TEE-01": 0}}), "tr-1")
    _approve(gateway.store)
    with pytest.raises(ToolFailedError, match="out of stock"):
        gateway.call("orchestrator", "support__create_ticket", _ticket())
    assert gateway.store.tickets() == []
