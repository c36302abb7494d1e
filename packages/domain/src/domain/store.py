"""The store: every read and write of a world database goes through here."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, get_args

import sqlite_utils

from domain.errors import (
    ApprovalRequiredError,
    OrderNotFoundError,
    OutOfStockError,
    ShipmentNotFoundError,
    StoreFailedError,
)
from domain.models import (
    Approval,
    ApprovalStatus,
    AuditEntry,
    DecidedBy,
    Order,
    PolicyDoc,
    SentReply,
    Shipment,
    Ticket,
)


def _fts_query(text: str) -> str:
    # Any of the words may match: quote each so FTS5 syntax in user text stays inert.
    words = [w.replace('"', "") for w in text.split()]
    return " OR ".join(f'"{w}"' for w in words if w)


_WRITE_TABLES: dict[str, str] = {"ticket": "tickets", "reply": "replies"}
"""The table each kind of outbox write lands in."""

BreakableTable = Literal["orders", "shipments", "policies", "stock"]
BREAKABLE_TABLES: tuple[str, ...] = get_args(BreakableTable)
"""The tables a world can make fail (``table_errors``): every read of one through the store
raises :class:`StoreFailedError` with the world's text (the tools' reads, not the harness's)."""

DeniedTable = Literal["orders", "shipments", "policies", "stock", "tickets", "replies"]
DENIED_TABLES: tuple[str, ...] = get_args(DeniedTable)
"""The tables a world can make the database itself refuse (``denied_tables``)."""
Denial = Literal["read", "write"]
"""What the database refuses on a denied table: reading it, or changing it."""
_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}


class Store:
    """A world database (sqlite-utils) with typed reads and transactional writes."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        path: Path | None = None,
        tool_errors: Mapping[str, str] | None = None,
        table_errors: Mapping[BreakableTable, str] | None = None,
        denied_tables: Mapping[DeniedTable, Denial] | None = None,
    ) -> None:
        self.db = db
        """The sqlite-utils database."""
        self.path = path
        """The database file, or ``None`` when in memory."""
        self.tool_errors: dict[str, str] = dict(tool_errors or {})
        """The read tools the world makes fail, each with its error text (``tool_errors``
        of the world spec the database was built from)."""
        self.table_errors: dict[BreakableTable, str] = dict(table_errors or {})
        """The tables the world makes fail, each with its error text (``table_errors``):
        the store's reads and writes of them raise :class:`StoreFailedError`."""
        self.denied_tables: dict[DeniedTable, Denial] = dict(denied_tables or {})
        """The tables SQLite itself refuses to the tools (``denied_tables``): while a
        tool's read or write runs, an authorizer denies reading or changing each, so the
        statement fails with SQLite's own ``sqlite3.DatabaseError``, which the store does
        not translate (it knows no such failure). The harness's reads are not refused."""
        self._depth = 0

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def _reach(self, table: BreakableTable) -> None:
        """Raise :class:`StoreFailedError` when the world makes ``table`` fail."""
        detail = self.table_errors.get(table)
        if detail is not None:
            raise StoreFailedError(table, detail)

    def _authorize(self, action: int, table: str | None, *_: object) -> int:
        denial = self.denied_tables.get(table) if table else None  # type: ignore[call-overload]
        refused = (denial == "read" and action == sqlite3.SQLITE_READ) or (
            denial == "write" and action in _WRITES
        )
        return sqlite3.SQLITE_DENY if refused else sqlite3.SQLITE_OK

    @contextmanager
    def _as_tools(self) -> Iterator[None]:
        """Run the block as the tools' access to the database: the tables the world denies
        are refused by SQLite for its duration (nested blocks share one authorizer)."""
        if not self.denied_tables:
            yield
            return
        if self._depth == 0:
            self.db.conn.set_authorizer(self._authorize)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self.db.conn.set_authorizer(None)

    def _one(self, sql: str, params: list[Any]) -> dict[str, Any] | None:
        rows = list(self.db.query(sql, params))
        return rows[0] if rows else None

    # Reads ------------------------------------------------------------------------

    def get_order(self, order_id: str) -> Order:
        """The order, or :class:`OrderNotFoundError`."""
        self._reach("orders")
        with self._as_tools():
            row = self._one("SELECT * FROM orders WHERE id = ?", [order_id])
        if row is None:
            raise OrderNotFoundError(order_id)
        return Order.model_validate(row)

    def get_shipment(self, order_id: str) -> Shipment:
        """The order's shipment, or :class:`ShipmentNotFoundError`."""
        self._reach("shipments")
        with self._as_tools():
            row = self._one("SELECT * FROM shipments WHERE order_id = ?", [order_id])
        if row is None:
            raise ShipmentNotFoundError(order_id)
        return Shipment.model_validate(row)

    def stock_level(self, sku: str) -> int:
        """Units of ``sku`` in stock (0 for an unknown SKU)."""
        self._reach("stock")
        with self._as_tools():
            row = self._one("SELECT qty FROM stock WHERE sku = ?", [sku])
        return 0 if row is None else int(row["qty"])

    def search_policies(
        self, query: str, include_superseded: bool = False, limit: int = 5
    ) -> list[PolicyDoc]:
        """Full-text search of the policy KB, at most ``limit`` documents: current versions
        first, the latest to take effect first (then the later version, then the best
        match), so a search that matches more than a page still holds the policy in force;
        superseded versions only when asked for (and then after the current ones). An empty
        KB or query returns nothing."""
        self._reach("policies")
        fts = _fts_query(query)
        if not fts:
            return []
        where = None if include_superseded else "superseded = 0"
        # Current versions first, newest first, then by FTS5 relevance.
        with self._as_tools():
            rows = list(
                self.db.table("policies").search(
                    fts,
                    where=where,
                    limit=limit,
                    order_by="superseded, effective_date DESC, version DESC, rank",
                )
            )
        return [PolicyDoc.model_validate(row) for row in rows]

    def get_approval(self, approval_id: str) -> Approval | None:
        """The approval row, or ``None``."""
        row = self._one("SELECT * FROM approvals WHERE id = ?", [approval_id])
        return None if row is None else Approval.model_validate(row)

    def approvals(self) -> list[Approval]:
        """Every approval row, in insertion order."""
        return [Approval.model_validate(r) for r in self.db.query("SELECT * FROM approvals")]

    def tickets(self) -> list[Ticket]:
        """Every ticket row, in insertion order."""
        return [Ticket.model_validate(r) for r in self.db.query("SELECT * FROM tickets")]

    def replies(self) -> list[SentReply]:
        """Every sent reply, in insertion order."""
        return [SentReply.model_validate(r) for r in self.db.query("SELECT * FROM replies")]

    def written(self, kind: Literal["ticket", "reply"], idempotency_key: str) -> int | None:
        """The id of the ticket or reply written under ``idempotency_key``, if one was:
        how a writer whose acknowledgements were lost learns whether its write landed."""
        row = self._existing(_WRITE_TABLES[kind], idempotency_key)
        return None if row is None else int(row["id"])

    def audit(self) -> list[AuditEntry]:
        """Every audited tool call, in call order."""
        rows = self.db.query("SELECT * FROM audit ORDER BY id")
        return [AuditEntry.model_validate(r) for r in rows]

    # Writes -----------------------------------------------------------------------

    def reserve_stock(self, sku: str, qty: int = 1) -> int:
        """Take ``qty`` units of ``sku``; return what is left. :class:`OutOfStockError` (and
        nothing changed) when there are not enough: the schema's CHECK decides."""
        try:
            with self._as_tools(), self.db.atomic():
                cursor = self.db.execute("UPDATE stock SET qty = qty - ? WHERE sku = ?", [qty, sku])
                if cursor.rowcount == 0:
                    raise OutOfStockError(sku, 0)
        except sqlite3.IntegrityError as e:
            raise OutOfStockError(sku, self.stock_level(sku)) from e
        return self.stock_level(sku)

    def record_approval(
        self,
        *,
        approval_id: str,
        trace_id: str,
        action: str,
        order_id: str,
        amount: float,
        summary: str,
        status: ApprovalStatus,
        decided_by: DecidedBy,
        auto_approve_below: float | None = None,
    ) -> Approval:
        """Store an approval decision, with the auto-approval limit in force (``None``:
        none)."""
        approval = Approval(
            id=approval_id,
            trace_id=trace_id,
            action=action,
            order_id=order_id,
            amount=amount,
            summary=summary,
            status=status,
            decided_by=decided_by,
            auto_approve_below=auto_approve_below,
        )
        with self.db.atomic():
            self.db.execute(
                "INSERT INTO approvals (id, trace_id, action, order_id, amount, summary, status,"
                " decided_by, auto_approve_below) VALUES (:id, :trace_id, :action, :order_id,"
                " :amount, :summary, :status, :decided_by, :auto_approve_below)",
                approval.model_dump(),
            )
        return approval

    def _existing(self, table: str, key: str) -> dict[str, Any] | None:
        return self._one(f"SELECT * FROM {table} WHERE idempotency_key = ?", [key])

    def create_ticket(
        self,
        *,
        trace_id: str,
        order_id: str,
        sku: str,
        approval_id: str,
        idempotency_key: str,
        summary: str,
    ) -> tuple[Ticket, bool]:
        """Write a reissue ticket and reserve its unit, atomically. Returns the ticket and
        whether it is new: a repeated idempotency key writes nothing and returns the
        first ticket, also when the key was written after this call looked it up (the
        UNIQUE index refuses the second row). :class:`ApprovalRequiredError` /
        :class:`OutOfStockError` leave the database unchanged."""
        try:
            with self._as_tools(), self.db.atomic():
                row = self._existing("tickets", idempotency_key)
                if row is not None:
                    return Ticket.model_validate(row), False
                self.db.execute(
                    "INSERT INTO tickets (trace_id, order_id, sku, approval_id, idempotency_key,"
                    " summary) VALUES (?, ?, ?, ?, ?, ?)",
                    [trace_id, order_id, sku, approval_id, idempotency_key, summary],
                )
                self.reserve_stock(sku)
        except sqlite3.IntegrityError as e:
            row = self._existing("tickets", idempotency_key)
            if row is not None:  # another writer wrote the key after this one looked
                return Ticket.model_validate(row), False
            raise ApprovalRequiredError("ticket", approval_id) from e
        created = self._existing("tickets", idempotency_key)
        assert created is not None  # just inserted in the committed transaction
        return Ticket.model_validate(created), True

    def send_reply(
        self, *, trace_id: str, order_id: str, text: str, approval_id: str, idempotency_key: str
    ) -> tuple[SentReply, bool]:
        """Record a reply as sent. Returns it and whether it is new (a repeated
        idempotency key writes nothing, also when written after this call looked it up).
        :class:`ApprovalRequiredError` when the cited approval is missing or not approved."""
        try:
            with self._as_tools(), self.db.atomic():
                row = self._existing("replies", idempotency_key)
                if row is not None:
                    return SentReply.model_validate(row), False
                self.db.execute(
                    "INSERT INTO replies (trace_id, order_id, text, approval_id,"
                    " idempotency_key) VALUES (?, ?, ?, ?, ?)",
                    [trace_id, order_id, text, approval_id, idempotency_key],
                )
        except sqlite3.IntegrityError as e:
            row = self._existing("replies", idempotency_key)
            if row is not None:  # another writer wrote the key after this one looked
                return SentReply.model_validate(row), False
            raise ApprovalRequiredError("reply", approval_id) from e
        created = self._existing("replies", idempotency_key)
        assert created is not None  # just inserted in the committed transaction
        return SentReply.model_validate(created), True

    def record_audit(self, entry: AuditEntry) -> None:
        """Append one tool call to the audit log."""
        with self.db.atomic():
            self.db.execute(
                "INSERT INTO audit (trace_id, role, tool, kind, allowed, status, reason, args,"
                " chars_read) VALUES (:trace_id, :role, :tool, :kind, :allowed, :status,"
                " :reason, :args, :chars_read)",
                entry.model_dump(exclude={"id"}),
            )
