"""The integrity a SupportPilot world database must enforce, written from the spec and
docs/invariants.md ("The schema the database enforces"), never read from
``domain.schema``: and how the run record describes the database a run was given.

The spec puts the constraints in the schema: a ticket's and a reply's idempotency key is
UNIQUE, stock never goes negative, the store itself refuses a write that cites no
approved approval; the architecture says STRICT tables and a full-text searchable policy
KB. Where the spec is silent (which column keys a table, which may be empty) a careful
support business wants every table keyed and every column filled but the ones that mean
"none" (:data:`NULLABLE`). :data:`SPEC_SCHEMA` is that table.

:func:`describe_database` reads what the database holds (``PRAGMA table_list``,
``table_info``, ``index_list``, ``index_info``) and tries, inside a savepoint it rolls
back, what it must refuse: a negative stock level, a ticket and a reply citing no
approved approval (each next to the same row that must be accepted, so a refusal for
another reason is not taken for the one wanted). The SUT adapter records it as
``run.detail["schema"]`` before the turn; the ``schema_as_specified`` invariant
(:mod:`agent_evals.invariants`) compares it with :data:`SPEC_SCHEMA`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

TEXT, INTEGER, REAL = "TEXT", "INTEGER", "REAL"

SCHEMA = "schema"
"""The ``run.detail`` key of the database's description (:func:`describe_database`)."""


@dataclass(frozen=True)
class TableSpec:
    """What one table must be: STRICT, keyed by ``key``, with ``columns`` (name -> SQL
    type; more are allowed), each NOT NULL but the key and ``nullable``, a UNIQUE index on
    each of ``unique``."""

    key: str
    columns: Mapping[str, str]
    nullable: frozenset[str] = field(default_factory=frozenset)
    unique: tuple[str, ...] = ()


SPEC_SCHEMA: dict[str, TableSpec] = {
    "orders": TableSpec(
        "id", {"id": TEXT, "customer": TEXT, "sku": TEXT, "status": TEXT, "paid": REAL}
    ),
    "shipments": TableSpec(
        "order_id",
        {
            "order_id": TEXT,
            "carrier": TEXT,
            "state": TEXT,
            "last_event": TEXT,
            "stale_hours": INTEGER,
        },
    ),
    "stock": TableSpec("sku", {"sku": TEXT, "qty": INTEGER}),
    "policies": TableSpec(
        "id",
        {
            "id": INTEGER,
            "title": TEXT,
            "body": TEXT,
            "keywords": TEXT,
            "version": TEXT,
            "effective_date": TEXT,
            "superseded": INTEGER,
        },
    ),
    "approvals": TableSpec(
        "id",
        {
            "id": TEXT,
            "trace_id": TEXT,
            "action": TEXT,
            "order_id": TEXT,
            "amount": REAL,
            "summary": TEXT,
            "status": TEXT,
            "decided_by": TEXT,
            "auto_approve_below": REAL,
        },
        nullable=frozenset({"auto_approve_below"}),
    ),
    "tickets": TableSpec(
        "id",
        {
            "id": INTEGER,
            "trace_id": TEXT,
            "order_id": TEXT,
            "sku": TEXT,
            "approval_id": TEXT,
            "idempotency_key": TEXT,
            "summary": TEXT,
        },
        unique=("idempotency_key",),
    ),
    "replies": TableSpec(
        "id",
        {
            "id": INTEGER,
            "trace_id": TEXT,
            "order_id": TEXT,
            "text": TEXT,
            "approval_id": TEXT,
            "idempotency_key": TEXT,
        },
        unique=("idempotency_key",),
    ),
    "audit": TableSpec(
        "id",
        {
            "id": INTEGER,
            "trace_id": TEXT,
            "role": TEXT,
            "tool": TEXT,
            "kind": TEXT,
            "allowed": INTEGER,
            "status": TEXT,
            "reason": TEXT,
            "args": TEXT,
            "chars_read": INTEGER,
        },
    ),
}
"""Table -> what it must be (docs/invariants.md, "The schema the database enforces")."""

NULLABLE = {t: sorted(s.nullable) for t, s in SPEC_SCHEMA.items() if s.nullable}
"""The columns that may be empty: ``approvals.auto_approve_below`` (no limit in force)."""

FTS_TABLE = "policies_fts"
"""The full-text index of the policy KB."""
FTS_COLUMNS = ("title", "body", "keywords")
"""What the full-text index searches."""

REFUSALS = ("negative_stock", "unapproved_ticket", "unapproved_reply")
"""What the database itself must refuse (each probed next to the row it must accept)."""


# --- what the database holds ----------------------------------------------------------


def _rows(conn: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    return list(conn.execute(sql).fetchall())


def _unique_indexes(conn: sqlite3.Connection, table: str) -> list[list[str]]:
    """The column lists of ``table``'s UNIQUE indexes but its primary key's."""
    found: list[list[str]] = []
    for _seq, name, unique, origin, *_ in _rows(conn, f"PRAGMA index_list([{table}])"):
        if unique and origin != "pk":
            found.append([str(r[2]) for r in _rows(conn, f"PRAGMA index_info([{name}])")])
    return found


@contextmanager
def _rolled_back(conn: sqlite3.Connection) -> Iterator[None]:
    """Everything done inside is undone (a savepoint rolled back)."""
    conn.execute("SAVEPOINT schema_probe")
    try:
        yield
    finally:
        conn.execute("ROLLBACK TO schema_probe")
        conn.execute("RELEASE schema_probe")


def _accepts(conn: sqlite3.Connection, sql: str, params: list[Any]) -> bool | None:
    """Whether the database takes the statement (``None``: it cannot run at all, e.g. a
    table or column missing), undone either way."""
    with _rolled_back(conn):
        try:
            conn.execute(sql, params)
        except sqlite3.IntegrityError:
            return False
        except sqlite3.Error:
            return None
    return True


APPROVAL = (
    "INSERT INTO approvals (id, trace_id, action, order_id, amount, summary, status,"
    " decided_by) VALUES ('probe:approval', 'probe', 'reply', 'PROBE', 0.0, 'probe',"
    " 'approved', 'approver')"
)
WRITES = {
    "ticket": "INSERT INTO tickets (trace_id, order_id, sku, approval_id, idempotency_key,"
    " summary) VALUES ('probe', 'PROBE', 'PROBE-SKU', ?, 'probe:ticket', 'probe')",
    "reply": "INSERT INTO replies (trace_id, order_id, text, approval_id, idempotency_key)"
    " VALUES ('probe', 'PROBE', 'probe', ?, 'probe:reply')",
}
STOCK = "INSERT INTO stock (sku, qty) VALUES ('PROBE-SKU', ?)"


def _refusal(accept: bool | None, refuse: bool | None) -> str:
    """How the database answered a pair of probes: ``refused`` (it took the good row and
    refused the bad one), ``accepted`` (it took both), or ``unknown`` (it refused the
    good row too, or could not run them)."""
    if accept and refuse is False:
        return "refused"
    if accept and refuse:
        return "accepted"
    return "unknown"


def _probe_writes(conn: sqlite3.Connection) -> dict[str, str]:
    results: dict[str, str] = {}
    with _rolled_back(conn):
        approved = _accepts(conn, APPROVAL, [])
        if approved:
            conn.execute(APPROVAL)
        for kind, sql in WRITES.items():
            good = _accepts(conn, sql, ["probe:approval"]) if approved else None
            results[f"unapproved_{kind}"] = _refusal(good, _accepts(conn, sql, ["no-approval"]))
    return results


def describe_database(conn: sqlite3.Connection) -> dict[str, Any]:
    """What a world database holds and enforces: per table whether it is STRICT, its
    columns (name -> [type, not null, primary key position]) and the columns of its
    UNIQUE indexes; the full-text index's columns; and how it answered the probes of
    :data:`REFUSALS` (``refused``, ``accepted``, ``unknown``). Nothing is changed."""
    tables: dict[str, Any] = {}
    for _schema, name, kind, _ncol, _wr, strict in _rows(conn, "PRAGMA main.table_list"):
        if kind != "table" or str(name).startswith(("sqlite_", f"{FTS_TABLE}_")):
            continue
        columns = {
            str(c[1]): [str(c[2]).upper(), bool(c[3]), int(c[5])]
            for c in _rows(conn, f"PRAGMA table_info([{name}])")
        }
        tables[str(name)] = {
            "strict": bool(strict),
            "columns": columns,
            "unique": _unique_indexes(conn, str(name)),
        }
    virtual = {str(r[1]) for r in _rows(conn, "PRAGMA main.table_list") if r[2] == "virtual"}
    fts = (
        [str(c[1]) for c in _rows(conn, f"PRAGMA table_info([{FTS_TABLE}])")]
        if FTS_TABLE in virtual
        else None
    )
    refusals = {
        "negative_stock": _refusal(_accepts(conn, STOCK, [0]), _accepts(conn, STOCK, [-1])),
        **_probe_writes(conn),
    }
    return {"tables": tables, "fts": fts, "refusals": refusals}


# --- what differs from the spec ---------------------------------------------------------


def _table_problems(name: str, spec: TableSpec, held: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if not held.get("strict"):
        problems.append(f"{name}: not STRICT (a value of the wrong type would be stored)")
    columns: Mapping[str, list[Any]] = held.get("columns") or {}
    # The spec names the columns a table has at least: one more is no breach.
    missing = [c for c in spec.columns if c not in columns]
    if missing:
        problems.append(f"{name}: no column {', '.join(missing)}")
    keys = [c for c, (_t, _nn, pk) in columns.items() if pk]
    if keys != [spec.key]:
        shown = ", ".join(keys) or "none"
        problems.append(f"{name}: primary key is {shown}, not {spec.key}")
    for column, wanted in spec.columns.items():
        if column not in columns:
            continue
        sql_type, not_null, _pk = columns[column]
        if sql_type != wanted:
            problems.append(f"{name}.{column}: type {sql_type or 'none'}, not {wanted}")
        must = column != spec.key and column not in spec.nullable
        if must and not not_null:
            problems.append(f"{name}.{column}: not NOT NULL (a row could leave it empty)")
        if not must and not_null and column != spec.key:
            problems.append(f"{name}.{column}: NOT NULL, but the spec lets it be empty")
    unique = [list(cols) for cols in held.get("unique") or []]
    for column in spec.unique:
        if [column] not in unique:
            problems.append(f"{name}.{column}: no UNIQUE index (two rows could share one)")
    return problems


def schema_problems(described: Mapping[str, Any]) -> list[str]:
    """Every way the described database (:func:`describe_database`) falls short of
    :data:`SPEC_SCHEMA`: one line each, in the spec's table order."""
    tables: Mapping[str, Any] = described.get("tables") or {}
    problems: list[str] = []
    for name, spec in SPEC_SCHEMA.items():
        if name not in tables:
            problems.append(f"{name}: no such table")
            continue
        problems += _table_problems(name, spec, tables[name])
    fts = described.get("fts")
    if fts is None:
        problems.append(f"{FTS_TABLE}: no full-text index of the policy KB")
    elif list(fts) != list(FTS_COLUMNS):
        problems.append(
            f"{FTS_TABLE}: searches {', '.join(fts) or 'nothing'}, not {', '.join(FTS_COLUMNS)}"
        )
    refusals: Mapping[str, str] = described.get("refusals") or {}
    for probe in REFUSALS:
        answer = refusals.get(probe, "unknown")
        if answer != "refused":
            problems.append(f"the database does not refuse {probe.replace('_', ' ')} ({answer})")
    return problems
