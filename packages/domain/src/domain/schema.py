"""The SQLite schema: STRICT tables, UNIQUE idempotency keys, a stock CHECK and the
triggers that make the store itself refuse unapproved writes."""

from __future__ import annotations

import sqlite_utils

APPROVAL_TRIGGER = """
CREATE TRIGGER {table}_need_approval BEFORE INSERT ON {table}
WHEN NOT EXISTS (
    SELECT 1 FROM approvals WHERE id = NEW.approval_id AND status = 'approved'
)
BEGIN
    SELECT RAISE(ABORT, 'approval required: {table} row cites no approved approval');
END
"""

# sqlite-utils' create() cannot express CHECK constraints, so the stock table is the one
# table written as DDL: the database itself must refuse a negative quantity.
STOCK_DDL = """
CREATE TABLE stock (
    sku TEXT PRIMARY KEY,
    qty INTEGER NOT NULL CHECK (qty >= 0)
) STRICT
"""

FTS_COLUMNS = ["title", "body", "keywords"]


def create_schema(db: sqlite_utils.Database) -> None:
    """Create every table, index and trigger of an empty world database."""
    db.table("orders").create(
        {"id": str, "customer": str, "sku": str, "status": str, "paid": float},
        pk="id",
        not_null={"customer", "sku", "status", "paid"},
        strict=True,
    )
    db.table("shipments").create(
        {"order_id": str, "carrier": str, "state": str, "last_event": str, "stale_hours": int},
        pk="order_id",
        not_null={"carrier", "state", "last_event", "stale_hours"},
        strict=True,
    )
    db.execute(STOCK_DDL)
    db.table("policies").create(
        {
            "id": int,
            "title": str,
            "body": str,
            "keywords": str,
            "version": str,
            "effective_date": str,
            "superseded": int,
        },
        pk="id",
        not_null={"title", "body", "keywords", "version", "effective_date", "superseded"},
        strict=True,
    )
    db.table("approvals").create(
        {
            "id": str,
            "trace_id": str,
            "action": str,
            "order_id": str,
            "amount": float,
            "summary": str,
            "status": str,
            "decided_by": str,
            "auto_approve_below": float,
        },
        pk="id",
        not_null={"trace_id", "action", "order_id", "amount", "summary", "status", "decided_by"},
        strict=True,
    )
    db.table("tickets").create(
        {
            "id": int,
            "trace_id": str,
            "order_id": str,
            "sku": str,
            "approval_id": str,
            "idempotency_key": str,
            "summary": str,
        },
        pk="id",
        not_null={"trace_id", "order_id", "sku", "approval_id", "idempotency_key", "summary"},
        strict=True,
    )
    db.table("replies").create(
        {
            "id": int,
            "trace_id": str,
            "order_id": str,
            "text": str,
            "approval_id": str,
            "idempotency_key": str,
        },
        pk="id",
        not_null={"trace_id", "order_id", "text", "approval_id", "idempotency_key"},
        strict=True,
    )
    db.table("audit").create(
        {
            "id": int,
            "trace_id": str,
            "role": str,
            "tool": str,
            "kind": str,
            "allowed": int,
            "status": str,
            "reason": str,
            "args": str,
            "chars_read": int,
        },
        pk="id",
        not_null={
            "trace_id",
            "role",
            "tool",
            "kind",
            "allowed",
            "status",
            "reason",
            "args",
            "chars_read",
        },
        strict=True,
    )
    for table in ("tickets", "replies"):
        db.table(table).create_index(["idempotency_key"], unique=True)
        db.execute(APPROVAL_TRIGGER.format(table=table))
