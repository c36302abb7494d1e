"""Constraints the schema itself enforces: stock, idempotency, approvals."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from domain import (
    BREAKABLE_TABLES,
    ApprovalRequiredError,
    OutOfStockError,
    Store,
    StoreFailedError,
    build_world,
)


def _dump(store: Store) -> dict[str, list[tuple[object, ...]]]:
    tables = ["orders", "shipments", "stock", "approvals", "tickets", "replies", "audit"]
    return {t: list(store.db.execute(f"SELECT * FROM {t}").fetchall()) for t in tables}


def _approve(store: Store, status: str = "approved", approval_id: str = "t:approval") -> str:
    store.record_approval(
        approval_id=approval_id,
        trace_id="t",
        action="reissue",
        order_id="A1001",
        amount=59.0,
        summary="补发",
        status=status,  # type: ignore[arg-type]
        decided_by="approver",
    )
    return approval_id


def _ticket(store: Store, approval: str) -> bool:
    return store.create_ticket(
        trace_id="t",
        order_id="A1001",
        sku="SKU-TEE-01",
        approval_id=approval,
        idempotency_key="t:ticket",
        summary="补发",
    )[1]


def _reply(store: Store, approval: str) -> bool:
    return store.send_reply(
        trace_id="t", order_id="A1001", text="您好", approval_id=approval, idempotency_key="t:reply"
    )[1]


@pytest.mark.parametrize("qty", [0, 1])
def test_stock_cannot_go_negative(qty: int) -> None:
    store = build_world({"stock": {"SKU-TEE-01": qty}})
    for _ in range(qty):
        store.reserve_stock("SKU-TEE-01")
    before = _dump(store)
    with pytest.raises(OutOfStockError, match="SKU-TEE-01"):
        store.reserve_stock("SKU-TEE-01")
    assert _dump(store) == before


def test_unknown_sku_cannot_be_reserved() -> None:
    store = build_world()
    with pytest.raises(OutOfStockError):
        store.reserve_stock("SKU-NOPE")


def test_schema_check_refuses_negative_stock_directly() -> None:
    store = build_world()
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute("UPDATE stock SET qty = -1 WHERE sku = 'SKU-TEE-01'")


def test_reservation_consumes_one_unit() -> None:
    store = build_world()
    before = store.stock_level("SKU-TEE-01")
    assert store.reserve_stock("SKU-TEE-01") == before - 1


@pytest.mark.parametrize("kind", ["ticket", "reply"])
def test_repeated_idempotency_key_writes_nothing_new(kind: str) -> None:
    store = build_world()
    approval = _approve(store)
    results = []
    for _ in range(3):
        if kind == "ticket":
            results.append(_ticket(store, approval))
        else:
            results.append(_reply(store, approval))
    assert results == [True, False, False]
    assert len(store.tickets() if kind == "ticket" else store.replies()) == 1


def test_repeated_ticket_reserves_stock_once() -> None:
    store = build_world()
    approval = _approve(store)
    before = store.stock_level("SKU-TEE-01")
    for _ in range(3):
        _ticket(store, approval)
    assert store.stock_level("SKU-TEE-01") == before - 1


def test_unique_key_is_in_the_schema() -> None:
    store = build_world()
    approval = _approve(store)
    sql = (
        "INSERT INTO replies (trace_id, order_id, text, approval_id, idempotency_key)"
        " VALUES (?, ?, ?, ?, ?)"
    )
    store.db.execute(sql, ["t", "A1001", "a", approval, "k"])
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute(sql, ["t", "A1001", "b", approval, "k"])


@pytest.mark.parametrize("approval_status", [None, "rejected"])
@pytest.mark.parametrize("kind", ["ticket", "reply"])
def test_store_refuses_writes_without_an_approved_approval(
    kind: str, approval_status: str | None
) -> None:
    store = build_world()
    approval = "none" if approval_status is None else _approve(store, approval_status)
    before = _dump(store)
    with pytest.raises(ApprovalRequiredError, match=repr(approval)):
        if kind == "ticket":
            _ticket(store, approval)
        else:
            _reply(store, approval)
    assert _dump(store) == before


@pytest.mark.parametrize("table", ["tickets", "replies"])
def test_trigger_refuses_raw_insert_without_approval(table: str) -> None:
    store = build_world()
    columns = (
        "trace_id, order_id, sku, approval_id, idempotency_key, summary"
        if table == "tickets"
        else "trace_id, order_id, text, approval_id, idempotency_key"
    )
    values = ["t", "A1001", "x", "ghost", "k"] + (["s"] if table == "tickets" else [])
    marks = ", ".join("?" for _ in values)
    with pytest.raises(sqlite3.IntegrityError, match="approval required"):
        store.db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)


def test_ticket_out_of_stock_writes_nothing() -> None:
    store = build_world({"stock": {"SKU-TEE-01": 0}})
    approval = _approve(store)
    before = _dump(store)
    with pytest.raises(OutOfStockError):
        _ticket(store, approval)
    assert _dump(store) == before


class _LookedTooEarly(Store):
    """A writer whose one idempotency lookup ran before another writer's row committed
    (a second process): it misses that row, so its insert reaches the UNIQUE index."""

    missed = False

    def _existing(self, table: str, key: str) -> dict[str, object] | None:
        if not self.missed:
            self.missed = True
            return None
        return super()._existing(table, key)


@pytest.mark.parametrize("kind", ["ticket", "reply"])
def test_a_key_written_after_the_lookup_answers_with_the_first_write(kind: str) -> None:
    store = build_world()
    approval = _approve(store)
    write = _ticket if kind == "ticket" else _reply
    assert write(store, approval) is True
    before = _dump(store)
    late = _LookedTooEarly(store.db, tool_errors=store.tool_errors)
    assert write(late, approval) is False  # not "approval required": the key was written
    assert late.missed and _dump(store) == before  # one row, one unit of stock


@pytest.mark.parametrize("kind", ["ticket", "reply"])
def test_an_unapproved_write_that_misses_its_lookup_is_still_refused(kind: str) -> None:
    store = build_world()
    approval = _approve(store, status="rejected")
    write = _ticket if kind == "ticket" else _reply
    late = _LookedTooEarly(store.db, tool_errors=store.tool_errors)
    before = _dump(store)
    with pytest.raises(ApprovalRequiredError):
        write(late, approval)
    assert _dump(store) == before


READS_OF_TABLE = [
    ("orders", lambda s: s.get_order("A1001")),
    ("shipments", lambda s: s.get_shipment("A1001")),
    ("stock", lambda s: s.stock_level("SKU-TEE-01")),
    ("policies", lambda s: s.search_policies("补发")),
]


@pytest.mark.parametrize(("table", "use"), READS_OF_TABLE)
def test_a_broken_table_fails_with_the_worlds_text(table: str, use: Any) -> None:
    store = build_world({"table_errors": {table: "表被锁定"}})
    before = _dump(store)
    with pytest.raises(StoreFailedError) as raised:
        use(store)
    assert (raised.value.table, raised.value.detail) == (table, "表被锁定")
    assert "表被锁定" in str(raised.value) and repr(table) in str(raised.value)
    assert _dump(store) == before


@pytest.mark.parametrize(("table", "use"), READS_OF_TABLE)
def test_other_broken_tables_leave_a_read_alone(table: str, use: Any) -> None:
    others = {t: "表被锁定" for t in BREAKABLE_TABLES if t != table}
    assert use(build_world({"table_errors": others})) == use(build_world())


# --- denied tables: SQLite's own refusal, which the store does not translate ------------

USES = {
    "get_order": lambda s: s.get_order("A1001"),
    "get_shipment": lambda s: s.get_shipment("A1001"),
    "stock_level": lambda s: s.stock_level("SKU-TEE-01"),
    "search_policies": lambda s: s.search_policies("补发"),
    "reserve_stock": lambda s: s.reserve_stock("SKU-TEE-01"),
    "ticket": lambda s: _ticket(s, _approve(s)),
    "reply": lambda s: _reply(s, _approve(s)),
}
REFUSED_BY = [
    ("orders", "read", "get_order"),
    ("shipments", "read", "get_shipment"),
    ("stock", "read", "stock_level"),
    ("stock", "read", "reserve_stock"),  # it reads what is left
    ("policies", "read", "search_policies"),
    ("stock", "write", "reserve_stock"),
    ("stock", "write", "ticket"),  # the ticket reserves its unit
    ("tickets", "write", "ticket"),
    ("replies", "write", "reply"),
]


@pytest.mark.parametrize(("table", "denial", "use"), REFUSED_BY)
def test_a_denied_table_raises_sqlites_own_error_and_changes_nothing(
    table: str, denial: str, use: str
) -> None:
    store = build_world({"denied_tables": {table: denial}})
    before = _dump(store)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        USES[use](store)
    # Neither translated (a domain error) nor taken for a broken constraint.
    assert type(raised.value) is sqlite3.DatabaseError
    after = _dump(store)
    after["approvals"] = before["approvals"]  # the write's approval is the test's own
    assert after == before
    # The refusal lasts for the tools' statement only: the harness reads the table.
    assert store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= 0


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize(
    "denied",
    [
        {"orders": "write", "shipments": "write", "policies": "write"},
        {},
    ],
)
def test_denials_of_other_tables_or_actions_leave_a_call_alone(
    use: str, denied: dict[str, str]
) -> None:
    refused = {u for t, d, u in REFUSED_BY if denied.get(t) == d}
    assert not refused
    store = build_world()
    expected = USES[use](store)
    other = build_world()
    other.denied_tables = denied  # type: ignore[assignment]
    assert USES[use](other) == expected
