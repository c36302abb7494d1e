"""The outbox: approved, idempotent writes, every call audited."""

from __future__ import annotations

from typing import Any

import pytest
from domain import Store
from tools import ToolError, ToolFailedError, ToolGateway


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


@pytest.mark.parametrize(
    ("written", "key", "found"),
    [
        ([], "tr-1:ticket", False),
        ([], "tr-1:reply", False),
        (["support__create_ticket"], "tr-1:ticket", True),
        (["support__create_ticket"], "tr-1:reply", False),
        (["support__send_reply"], "tr-1:reply", True),
        (["support__send_reply"], "tr-1:ticket", False),
        (["support__create_ticket", "support__send_reply"], "tr-1:reply", True),
    ],
)
def test_find_write_says_whether_the_runs_key_was_written(
    dump: Any, gateway: ToolGateway, written: list[str], key: str, found: bool
) -> None:
    _approve(gateway.store)
    ids = {}
    for tool in written:
        result = gateway.call("orchestrator", tool, _ticket() if "ticket" in tool else _reply())
        ids[tool] = result.data.get("ticket_id") or result.data.get("reply_id")
    before = dump(gateway.store)
    data = gateway.call("orchestrator", "support__find_write", {"idempotency_key": key}).data
    assert data["found"] is found and data["kind"] == key.rsplit(":", 1)[1]
    tool = "support__create_ticket" if key.endswith(":ticket") else "support__send_reply"
    assert data["id"] == (ids[tool] if found else None)
    assert dump(gateway.store) == before  # a read: nothing written


@pytest.mark.parametrize("key", ["other-trace:ticket", "tr-1x:reply", "tr-1:approval"])
def test_find_write_refuses_another_runs_key(gateway: ToolGateway, key: str) -> None:
    with pytest.raises(ToolError) as info:
        gateway.call("orchestrator", "support__find_write", {"idempotency_key": key})
    assert info.value.status in ("error", "invalid_arguments")
