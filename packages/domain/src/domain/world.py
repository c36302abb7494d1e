"""The default world, case-world overrides, and cheap fresh copies of a world.

Every evaluation run gets its own database. Building the schema and seeding it costs
milliseconds, so each distinct world is built once per process as an in-memory
*template*, and every run gets a copy made with ``sqlite3.Connection.backup``.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import sqlite_utils
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from domain.errors import InvalidWorldError
from domain.problems import describe_validation_error
from domain.schema import FTS_COLUMNS, create_schema
from domain.store import BreakableTable, Denial, DeniedTable, Store

DEFAULT_SKU = "SKU-TEE-01"
"""The SKU an override order gets when it names none (always in stock by default)."""

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
ORDER_DEFAULTS: dict[str, Any] = {
    "customer": "顾客",
    "sku": DEFAULT_SKU,
    "status": "已发货，运输中",
    "paid": 59.0,
}

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
SHIPMENT_DEFAULTS: dict[str, Any] = {
    "carrier": "快递",
    "state": "运输中",
    "last_event": "转运中心",
    "stale_hours": 0,
}

DEFAULT_STOCK: dict[str, int] = {"SKU-TEE-01": 20, "SKU-MUG-02": 10, "SKU-CAP-03": 10}

REISSUE_KEYWORDS = "补发 物流 停滞 未到 没到 丢件 reissue"
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


MAX_COUNT = 2**63 - 1
"""The largest count (``stale_hours``, units in stock) a world may hold: the largest
integer SQLite stores (a larger one once crashed ``check_case`` with ``OverflowError``
instead of being refused)."""
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
"""A count: a JSON integer from 0 to :data:`MAX_COUNT` (never ``72.0``, ``"72"`` or
``true``)."""

Money = Annotated[float, Field(ge=0, allow_inf_nan=False)]
"""An amount of money: a finite JSON number >= 0 (never a string, a boolean, NaN or
infinity; world models are strict, so ``"59"`` and ``true`` are refused too)."""


class OrderOverride(BaseModel):
    """Fields of an order to set; omitted fields keep the default order's or get defaults."""

    model_config = ConfigDict(extra="forbid", strict=True)

    customer: str | None = None
    """Customer name."""
    sku: str | None = None
    """SKU ordered."""
    status: str | None = None
    """Order status text."""
    paid: Money | None = None
    """Amount paid."""


class ShipmentOverride(BaseModel):
    """Fields of a shipment to set; omitted fields get defaults."""

    model_config = ConfigDict(extra="forbid", strict=True)

    carrier: str | None = None
    """Carrier name."""
    state: str | None = None
    """Shipment state text."""
    last_event: str | None = None
    """Last tracking event location."""
    stale_hours: Count | None = None
    """Hours since the last tracking event."""


class PolicyOverride(BaseModel):
    """A policy document added to the knowledge base (after the default documents)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    title: str = Field(min_length=1)
    """Document title."""
    body: str = Field(min_length=1)
    """Document text."""
    keywords: str = REISSUE_KEYWORDS
    """Search keywords (default: those of the reissue policy, so a reissue search finds it)."""
    version: str = "v1"
    """Document version."""
    effective_date: str = "2024-07-01"
    """When it took effect."""
    superseded: bool = False
    """Whether a newer version replaced it."""


FIRST_ADDED_POLICY_ID = 100
"""The id of the first document ``world.policies`` adds (then 101, 102 …)."""


class World(BaseModel):
    """A case's ``world``: overrides merged over the default world."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    orders: dict[str, OrderOverride] = Field(default_factory=dict)
    """Order id -> fields, merged over the default orders."""
    logistics: dict[str, ShipmentOverride] = Field(default_factory=dict)
    """Order id -> shipment fields, merged over the default shipments."""
    kb: Literal["default", "empty"] = "default"
    """``empty``: the knowledge base holds no policy documents at all."""
    stock: dict[str, Count | None] = Field(default_factory=dict)
    """SKU -> units in stock (>= 0), merged over the default stock; ``None``: the SKU has
    no stock row at all (not carried), which reads as 0 units."""
    approve: bool = True
    """What the human approver answers."""
    approver: Literal["human", "missing", "silent", "broken"] = "human"
    """``missing``: no approver is configured; ``silent``: the approver never answers in
    time; ``broken``: asking the approver fails (the approval service raises). Every way
    the gate fails closed (rejected, nobody decided)."""
    auto_approve_below: Money | None = None
    """Proposals below this amount are approved without asking (``None``: always ask)."""
    policies: list[PolicyOverride] = Field(default_factory=list)
    """Policy documents added to the knowledge base, ids from ``FIRST_ADDED_POLICY_ID``
    (also with ``kb: empty``)."""
    tool_errors: dict[str, Annotated[str, Field(min_length=1)]] = Field(default_factory=dict)
    """Tool name -> error text: every call of that tool fails with this text (which tool
    names exist is the tool layer's business; the SUT checks them before any run)."""
    table_errors: dict[BreakableTable, Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict
    )
    """Table -> error text: the store fails every read of that table with this text (a
    broken or locked table), so the tools built on it fail from inside the store."""
    denied_tables: dict[DeniedTable, Denial] = Field(default_factory=dict)
    """Table -> ``read`` or ``write``: SQLite itself refuses the tools reading or changing
    that table (an authorizer denies it), so the store's statement fails with SQLite's own
    error, one the store does not translate: the tool layer crashes rather than fails."""

    def signature(self) -> str:
        """What identifies the database contents (approval settings, tool and table
        errors and denied tables do not change it)."""
        return self.model_dump_json(include={"orders", "logistics", "kb", "stock", "policies"})


WORLD_KEYS: tuple[str, ...] = tuple(World.model_fields)
"""Every key a case's ``world`` may hold."""


def parse_world(raw: World | Mapping[str, Any] | None) -> World:
    """Validate a case's ``world`` mapping (``None`` or ``{}``: the default world).

    Raises :class:`InvalidWorldError` whose ``problems`` are one line each
    (``world.orders.A1.paid: expected a number, got 'lots'``).
    """
    if isinstance(raw, World):
        return raw
    try:
        return World.model_validate(dict(raw or {}))
    except ValidationError as e:
        problems = describe_validation_error(e, World, "world")
        raise InvalidWorldError("; ".join(problems), problems) from e


def _merged(
    default: dict[str, dict[str, Any]],
    overrides: Mapping[str, BaseModel],
    fallback: dict[str, Any],
) -> dict[str, dict[str, Any]]:
    rows = {key: dict(value) for key, value in default.items()}
    for key, override in overrides.items():
        base = rows.get(key, fallback)
        rows[key] = {**base, **override.model_dump(exclude_none=True)}
    return rows


def _seed(db: sqlite_utils.Database, world: World) -> None:
    orders = _merged(DEFAULT_ORDERS, world.orders, ORDER_DEFAULTS)
    shipments = _merged(DEFAULT_SHIPMENTS, world.logistics, SHIPMENT_DEFAULTS)
    stock = {**DEFAULT_STOCK, **world.stock}
    # Every ordered SKU exists in the stock table, in stock unless the case says otherwise.
    for order in orders.values():
        stock.setdefault(order["sku"], DEFAULT_STOCK[DEFAULT_SKU])
    with db.atomic():
        for order_id, order in orders.items():
            db.execute(
                "INSERT INTO orders (id, customer, sku, status, paid) VALUES (?, ?, ?, ?, ?)",
                [order_id, order["customer"], order["sku"], order["status"], order["paid"]],
            )
        for order_id, ship in shipments.items():
            db.execute(
                "INSERT INTO shipments (order_id, carrier, state, last_event, stale_hours)"
                " VALUES (?, ?, ?, ?, ?)",
                [order_id, ship["carrier"], ship["state"], ship["last_event"], ship["stale_hours"]],
            )
        for sku, qty in stock.items():
            if qty is None:  # the case says this SKU has no stock row
                continue
            db.execute("INSERT INTO stock (sku, qty) VALUES (?, ?)", [sku, qty])
        if world.kb == "default":
            for doc in DEFAULT_POLICIES:
                db.execute(
                    "INSERT INTO policies (id, title, body, keywords, version, effective_date,"
                    " superseded) VALUES (:id, :title, :body, :keywords, :version,"
                    " :effective_date, :superseded)",
                    doc,
                )
        for number, added in enumerate(world.policies):
            db.execute(
                "INSERT INTO policies (id, title, body, keywords, version, effective_date,"
                " superseded) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    FIRST_ADDED_POLICY_ID + number,
                    added.title,
                    added.body,
                    added.keywords,
                    added.version,
                    added.effective_date,
                    int(added.superseded),
                ],
            )
    db.table("policies").enable_fts(FTS_COLUMNS, fts_version="FTS5")


def _build_template(world: World) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    db = sqlite_utils.Database(conn, execute_plugins=False)
    create_schema(db)
    try:
        _seed(db, world)
    except sqlite3.IntegrityError as e:
        raise InvalidWorldError(str(e)) from e
    return conn


_TEMPLATES: dict[str, sqlite3.Connection] = {}
_TEMPLATE_LIMIT = 256
_LOCK = threading.Lock()


def _template(world: World) -> sqlite3.Connection:
    key = world.signature()
    with _LOCK:
        conn = _TEMPLATES.get(key)
        if conn is None:
            if len(_TEMPLATES) >= _TEMPLATE_LIMIT:
                _TEMPLATES.clear()
            conn = _TEMPLATES[key] = _build_template(world)
        return conn


def build_world(
    world: World | Mapping[str, Any] | None = None, db_dir: str | Path | None = None
) -> Store:
    """A fresh store holding the default world with ``world`` merged over it.

    In memory by default; with ``db_dir``, a new uniquely named file in that directory.
    The copy comes from a per-process template, so building is cheap.
    """
    spec = parse_world(world)
    template = _template(spec)
    path: Path | None = None
    if db_dir is None:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
    else:
        directory = Path(db_dir)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"world-{uuid.uuid4().hex}.sqlite"
        conn = sqlite3.connect(path, check_same_thread=False)
    with _LOCK:
        # A connection may only take part in one backup at a time.
        template.backup(conn)
    return Store(
        sqlite_utils.Database(conn, execute_plugins=False),
        path=path,
        tool_errors=spec.tool_errors,
        table_errors=spec.table_errors,
        denied_tables=spec.denied_tables,
    )
