"""The default world, overrides, parcel states and cheap fresh copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from domain import (
    DEFAULT_SKU,
    WORLD_KEYS,
    InvalidWorldError,
    OrderNotFoundError,
    OutOfStockError,
    ShipmentNotFoundError,
    build_world,
    parcel_state,
    parse_world,
)

CASES_DIR = Path(__file__).resolve().parents[3] / "cases"


REFERENCE_SUITES = ("read", "write", "approval", "injection")
"""The suite files holding the 26 reference cases (later suites add unknown states on
purpose)."""


def _seed_worlds() -> list[dict[str, object]]:
    worlds = []
    for path in [CASES_DIR / f"{suite}.jsonl" for suite in REFERENCE_SUITES]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                worlds.append(json.loads(line).get("world", {}))
    return worlds


@pytest.mark.parametrize(
    ("order_id", "expected"),
    [
        ("A1001", ("已发货，顺丰运输中", "运输中", 120, "in_transit", "in_transit")),
        ("A1002", ("已签收", "已签收", 0, "delivered", "delivered")),
        ("A1003", ("已签收", "派送失败，退回中", 20, "delivered", "returning")),
    ],
)
def test_default_orders_and_parcel_states(order_id: str, expected: tuple[object, ...]) -> None:
    status, ship_state, stale, order_state, ship_parcel = expected
    store = build_world()
    order = store.get_order(order_id)
    ship = store.get_shipment(order_id)
    assert (order.status, ship.state, ship.stale_hours) == (status, ship_state, stale)
    assert parcel_state(order.status) == order_state
    assert parcel_state(ship.state) == ship_parcel


def test_a1001_is_paid_59() -> None:
    assert build_world().get_order("A1001").paid == 59.0


@pytest.mark.parametrize(
    ("world", "order_id", "status", "paid"),
    [
        (
            {"orders": {"A2001": {"status": "已发货，圆通运输中", "paid": 59.0}}},
            "A2001",
            "已发货，圆通运输中",
            59.0,
        ),
        ({"orders": {"A2009": {"status": "已发货", "paid": 12.5}}}, "A2009", "已发货", 12.5),
        ({"orders": {"A1001": {"status": "已签收", "paid": 80.0}}}, "A1001", "已签收", 80.0),
    ],
)
def test_override_with_only_status_and_paid_gets_defaults(
    world: dict[str, object], order_id: str, status: str, paid: float
) -> None:
    store = build_world(world)
    order = store.get_order(order_id)
    assert (order.status, order.paid) == (status, paid)
    assert order.customer
    assert store.stock_level(order.sku) > 0


def test_new_override_order_gets_the_default_sku() -> None:
    store = build_world({"orders": {"A2006": {"status": "已发货，韵达运输中", "paid": 59.0}}})
    assert store.get_order("A2006").sku == DEFAULT_SKU


def test_override_merges_over_the_default_order() -> None:
    store = build_world({"orders": {"A1001": {"status": "已签收"}}})
    assert store.get_order("A1001").sku == "SKU-TEE-01"
    assert store.get_order("A1001").status == "已签收"


def test_order_without_logistics_override_has_no_shipment() -> None:
    store = build_world({"orders": {"A2006": {"status": "已发货，韵达运输中", "paid": 59.0}}})
    with pytest.raises(ShipmentNotFoundError):
        store.get_shipment("A2006")


def test_logistics_override_sets_shipment_fields() -> None:
    world = {
        "logistics": {"A2001": {"state": "运输中", "last_event": "转运中心", "stale_hours": 30}}
    }
    ship = build_world(world).get_shipment("A2001")
    assert (ship.state, ship.last_event, ship.stale_hours) == ("运输中", "转运中心", 30)


def test_unknown_order_raises() -> None:
    with pytest.raises(OrderNotFoundError, match="A9999"):
        build_world().get_order("A9999")


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("已发货，顺丰运输中", "in_transit"),
        ("已发货，圆通运输中", "in_transit"),
        ("已发货，中通运输中", "in_transit"),
        ("已发货，韵达运输中", "in_transit"),
        ("运输中", "in_transit"),
        ("已发货", "in_transit"),
        ("已签收", "delivered"),
        ("派送失败，退回中", "returning"),
        ("已退回，商家处理中", "returning"),
        ("签收后退回", "returning"),
        ("待付款", "unknown"),
    ],
)
def test_status_to_parcel_state(text: str, state: str) -> None:
    assert parcel_state(text) == state


def test_every_seed_status_maps_to_a_known_state() -> None:
    texts = set()
    for world in _seed_worlds():
        for order in world.get("orders", {}).values():  # type: ignore[attr-defined]
            texts.add(order["status"])
        for ship in world.get("logistics", {}).values():  # type: ignore[attr-defined]
            texts.add(ship["state"])
    assert len(texts) >= 5
    assert all(parcel_state(text) != "unknown" for text in texts), texts


def test_every_seed_world_builds() -> None:
    for world in _seed_worlds():
        assert build_world(world).get_order("A1001").id == "A1001"


@pytest.mark.parametrize(
    "world",
    [{"orders": {"A1": {"colour": "red"}}}, {"kb": "none"}, {"planet": "mars"}],
)
def test_bad_override_raises_invalid_world(world: dict[str, object]) -> None:
    with pytest.raises(InvalidWorldError):
        build_world(world)


def test_stock_override() -> None:
    assert build_world({"stock": {"SKU-TEE-01": 0}}).stock_level("SKU-TEE-01") == 0


def test_fresh_worlds_do_not_share_state() -> None:
    first = build_world()
    first.reserve_stock("SKU-TEE-01")
    assert build_world().stock_level("SKU-TEE-01") == first.stock_level("SKU-TEE-01") + 1


def test_world_in_a_directory_is_a_new_file(tmp_path: Path) -> None:
    one = build_world(db_dir=tmp_path)
    two = build_world(db_dir=tmp_path)
    assert one.path is not None and two.path is not None
    assert one.path != two.path
    assert one.path.parent == tmp_path and one.path.exists()
    assert two.get_order("A1003").status == "已签收"


@pytest.mark.parametrize("depth", [1, 3])
def test_a_world_folder_that_does_not_exist_yet_is_made(tmp_path: Path, depth: int) -> None:
    # SUPPORTPILOT_DB_DIR may name a folder none of whose parents exist yet (a fresh CI
    # workspace): the world is built there, not refused.
    folder = tmp_path.joinpath(*[f"level{i}" for i in range(depth)])
    store = build_world(db_dir=folder)
    assert store.path is not None and store.path.parent == folder and store.path.exists()
    assert build_world(db_dir=folder).path != store.path  # and the folder, once made, is reused


KNOWN = (
    "orders, logistics, kb, stock, approve, approver, auto_approve_below, policies, tool_errors,"
    " table_errors, denied_tables"
)


@pytest.mark.parametrize(
    ("world", "problems"),
    [
        ({"stok": {}}, [f"world.stok: unknown key 'stok' (known: {KNOWN})"]),
        ({"kb": "full"}, ["world.kb: expected 'default' or 'empty', got 'full'"]),
        (
            {"orders": {"A1": {"paid": "lots"}}},
            ["world.orders.A1.paid: expected a number, got 'lots'"],
        ),
        (
            {"orders": {"A1": {"colour": "red"}}},
            ["world.orders.A1.colour: unknown key 'colour' (known: customer, sku, status, paid)"],
        ),
        (
            {"logistics": {"A1": {"stale_hours": -3}}},
            ["world.logistics.A1.stale_hours: must be >= 0, got -3"],
        ),
        ({"stock": {"SKU-X": -1}}, ["world.stock.SKU-X: must be >= 0, got -1"]),
        ({"approve": "maybe"}, ["world.approve: expected true or false, got 'maybe'"]),
        (
            {"approver": "robot"},
            ["world.approver: expected 'human', 'missing', 'silent' or 'broken', got 'robot'"],
        ),
        ({"orders": {"A1": "x"}}, ["world.orders.A1: expected an object, got 'x'"]),
        (
            {"kb": "full", "planet": "mars"},
            [
                "world.kb: expected 'default' or 'empty', got 'full'",
                f"world.planet: unknown key 'planet' (known: {KNOWN})",
            ],
        ),
    ],
)
def test_a_bad_override_names_each_mistake_on_one_line(
    world: dict[str, object], problems: list[str]
) -> None:
    """Bug found by a newcomer: the error was pydantic's multi-line text with its URL."""
    with pytest.raises(InvalidWorldError) as info:
        parse_world(world)
    assert info.value.problems == problems
    assert str(info.value) == "invalid world override: " + "; ".join(problems)
    assert "pydantic.dev" not in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("world", "problem"),
    [
        ({"orders": {"A1": {"paid": float("inf")}}}, "orders.A1.paid: expected a finite number"),
        ({"orders": {"A1": {"paid": float("nan")}}}, "orders.A1.paid: expected a finite number"),
        ({"orders": {"A1": {"paid": "inf"}}}, "orders.A1.paid: expected a number, got 'inf'"),
        ({"orders": {"A1": {"paid": "nan"}}}, "orders.A1.paid: expected a number, got 'nan'"),
        ({"orders": {"A1": {"paid": "59"}}}, "orders.A1.paid: expected a number, got '59'"),
        ({"orders": {"A1": {"paid": True}}}, "orders.A1.paid: expected a number, got True"),
        ({"orders": {"A1": {"paid": -1}}}, "orders.A1.paid: must be >= 0, got -1"),
        ({"auto_approve_below": float("inf")}, "auto_approve_below: expected a finite number"),
        ({"auto_approve_below": -0.5}, "auto_approve_below: must be >= 0, got -0.5"),
        ({"approve": "yes"}, "approve: expected true or false, got 'yes'"),
        ({"approve": 1}, "approve: expected true or false, got 1"),
        ({"stock": {"SKU-X": True}}, "stock.SKU-X: expected an integer, got True"),
        ({"logistics": {"A1": {"stale_hours": "72"}}}, "stale_hours: expected an integer"),
        ({"policies": [{"title": "t", "body": "b", "superseded": "no"}]}, "expected true or"),
        ({"orders": {"A1": {"status": "x" * 100_000}}}, None),  # long text is fine
        ({"orders": {"A1": {"paid": "9" * 100_000}}}, "… (100002 characters)"),
    ],
)
def test_world_values_are_typed_strictly(world: dict[str, object], problem: str | None) -> None:
    """Bug: paid Infinity, "inf", true or -1 and approve "yes" were accepted, "nan" gave
    a raw SQL error; a huge value filled the whole error line."""
    if problem is None:
        assert parse_world(world).orders
        return
    with pytest.raises(InvalidWorldError) as info:
        parse_world(world)
    [line] = info.value.problems
    assert problem in line
    assert len(line) < 300


@pytest.mark.parametrize("paid", [0, 59, 12.5, 1299.0])
def test_finite_non_negative_money_is_accepted(paid: float) -> None:
    assert parse_world({"orders": {"A1": {"paid": paid}}}).orders["A1"].paid == paid


def test_world_keys_are_the_documented_ones() -> None:
    assert ", ".join(WORLD_KEYS) == KNOWN
    doc = (Path(__file__).resolve().parents[3] / "docs" / "cases.md").read_text("utf-8")
    for key in WORLD_KEYS:
        assert f"| `{key}` |" in doc, key


def test_a_negative_stock_is_refused_before_the_database() -> None:
    with pytest.raises(InvalidWorldError) as info:
        build_world({"stock": {"SKU-TEE-01": -1}})
    assert info.value.problems == ["world.stock.SKU-TEE-01: must be >= 0, got -1"]


@pytest.mark.parametrize(
    ("world", "ids"),
    [
        ({}, [3]),
        ({"policies": [{"title": "售后说明", "body": "补发商品以原订单为准。"}]}, [3, 100]),
        ({"kb": "empty", "policies": [{"title": "售后说明", "body": "补发以原订单为准。"}]}, [100]),
        (
            {"policies": [{"title": "旧说明", "body": "补发旧规", "superseded": True}]},
            [3],
        ),
    ],
)
def test_world_policies_are_added_to_the_knowledge_base(
    world: dict[str, object], ids: list[int]
) -> None:
    found = build_world(world).search_policies("补发 物流 停滞")
    assert sorted(doc.id for doc in found) == ids


@pytest.mark.parametrize(
    ("stock", "level"),
    [
        ({}, 20),  # an ordered SKU the case does not list: in stock by default
        ({"SKU-NEW-09": 0}, 0),
        ({"SKU-NEW-09": 3}, 3),
        ({"SKU-NEW-09": None}, 0),  # no stock row at all: reads 0
    ],
)
def test_an_ordered_sku_is_stocked_unless_the_case_says_otherwise(
    stock: dict[str, int | None], level: int
) -> None:
    store = build_world({"orders": {"A9001": {"sku": "SKU-NEW-09"}}, "stock": stock})
    assert store.stock_level("SKU-NEW-09") == level
    rows = list(store.db.query("SELECT qty FROM stock WHERE sku = 'SKU-NEW-09'"))
    assert len(rows) == (0 if stock.get("SKU-NEW-09", 1) is None else 1)


def test_a_sku_without_a_stock_row_cannot_be_reserved() -> None:
    store = build_world({"orders": {"A9001": {"sku": "SKU-NEW-09"}}, "stock": {"SKU-NEW-09": None}})
    with pytest.raises(OutOfStockError):
        store.reserve_stock("SKU-NEW-09")
    assert store.stock_level("SKU-NEW-09") == 0
