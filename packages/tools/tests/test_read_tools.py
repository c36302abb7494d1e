"""Read tools: evidence items, characters read, not-found answers, long excerpts."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest
import tools.catalog
from domain import build_world
from tools import TOOLS, NotCustomersOrderError, ToolFailedError, ToolGateway, openai_schemas
from tools.allowlist import ALLOWLISTS


@pytest.mark.parametrize(
    ("role", "tool", "args", "expected"),
    [
        ("order_agent", "orders__get_order", {"order_id": "A1001"}, (["order#1"], "已发货")),
        ("logistics_agent", "logistics__track", {"order_id": "A1003"}, (["ship#1"], "退回中")),
        ("policy_agent", "kb__search", {"query": "补发"}, (["kb#3"], "72 小时")),
        ("order_agent", "stock__check", {"sku": "SKU-TEE-01"}, (["stock#1"], "20 件")),
    ],
)
def test_read_tools_return_evidence(
    gateway: ToolGateway,
    role: str,
    tool: str,
    args: dict[str, str],
    expected: tuple[list[str], str],
) -> None:
    ids, needle = expected
    result = gateway.call(role, tool, args)
    assert [e.id for e in result.evidence] == ids
    assert needle in result.evidence[0].excerpt
    assert result.chars_read == len(result.evidence[0].excerpt) > 0
    assert gateway.store.audit()[0].chars_read == result.chars_read


def test_evidence_ids_count_up_per_run(gateway: ToolGateway) -> None:
    first = gateway.call("order_agent", "orders__get_order", {"order_id": "A1001"})
    second = gateway.call("order_agent", "orders__get_order", {"order_id": "A1002"})
    assert [first.evidence[0].id, second.evidence[0].id] == ["order#1", "order#2"]


def test_kb_search_never_returns_the_superseded_policy_by_default(gateway: ToolGateway) -> None:
    result = gateway.call("policy_agent", "kb__search", {"query": "补发 停滞"})
    assert all("168" not in e.excerpt for e in result.evidence)
    everything = gateway.call(
        "policy_agent", "kb__search", {"query": "补发", "include_superseded": True}
    )
    assert [e.id for e in everything.evidence] == ["kb#3", "kb#2"]
    assert "已废止" in everything.evidence[1].version


@pytest.mark.parametrize(
    ("world", "tool", "role", "args"),
    [
        ({}, "orders__get_order", "order_agent", {"order_id": "A9999"}),
        ({}, "logistics__track", "logistics_agent", {"order_id": "A9999"}),
        ({"kb": "empty"}, "kb__search", "policy_agent", {"query": "补发"}),
    ],
)
def test_nothing_found_is_an_answer_without_evidence(
    world: dict[str, str], tool: str, role: str, args: dict[str, str]
) -> None:
    result = ToolGateway(build_world(world), "tr-1").call(role, tool, args)
    assert result.evidence == []
    assert result.data.get("found", False) is False
    assert result.data.get("documents", []) == []


def test_eight_times_longer_excerpts_break_nothing(
    gateway: ToolGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    normal = gateway.call("policy_agent", "kb__search", {"query": "补发"}).evidence[0].excerpt
    monkeypatch.setattr(tools.catalog, "build_excerpt", lambda text: text * 8)
    long = gateway.call("policy_agent", "kb__search", {"query": "补发"}).evidence[0]
    assert long.excerpt == normal * 8


@pytest.mark.parametrize("role", [*ALLOWLISTS, "stranger"])
def test_openai_schemas_follow_the_allowlist(role: str) -> None:
    schemas = openai_schemas(role)
    names = [s["function"]["name"] for s in schemas]
    assert names == sorted(ALLOWLISTS.get(role, ()))
    for schema in schemas:
        assert schema["type"] == "function"
        assert schema["function"]["parameters"] == TOOLS[schema["function"]["name"]].parameters


@pytest.mark.parametrize(
    ("customer", "tool", "role", "order_id", "answer"),
    [
        (None, "orders__get_order", "order_agent", "A1001", "found"),
        (None, "logistics__track", "logistics_agent", "A1001", "found"),
        ("李先生", "orders__get_order", "order_agent", "A1001", "found"),
        ("李先生", "logistics__track", "logistics_agent", "A1001", "found"),
        ("张女士", "orders__get_order", "order_agent", "A1001", "refused"),
        ("张女士", "logistics__track", "logistics_agent", "A1001", "refused"),
        ("张女士", "orders__get_order", "order_agent", "A9999", "not found"),
        ("张女士", "logistics__track", "logistics_agent", "A9999", "not found"),
    ],
)
def test_an_authenticated_customer_reads_only_their_own_orders(
    customer: str | None, tool: str, role: str, order_id: str, answer: str
) -> None:
    gateway = ToolGateway(build_world(), "tr-1", customer=customer)
    if answer == "refused":
        with pytest.raises(
            NotCustomersOrderError, match=f"does not belong to customer '{customer}'"
        ):
            gateway.call(role, tool, {"order_id": order_id})
    else:
        result = gateway.call(role, tool, {"order_id": order_id})
        assert result.data["found"] is (answer == "found")
        assert bool(result.evidence) is (answer == "found")
    [entry] = gateway.store.audit()
    assert (entry.allowed, entry.status) == (
        (False, "refused") if answer == "refused" else (True, "ok")
    )


@pytest.mark.parametrize(
    ("role", "tool", "args"),
    [
        ("order_agent", "orders__get_order", {"order_id": "A1001"}),
        ("logistics_agent", "logistics__track", {"order_id": "A1001"}),
        ("policy_agent", "kb__search", {"query": "补发"}),
        ("order_agent", "stock__check", {"sku": "SKU-TEE-01"}),
    ],
)
def test_a_world_tool_error_fails_that_tool_only_with_its_text(
    role: str, tool: str, args: dict[str, str]
) -> None:
    from tools import ToolFailedError

    store = build_world({"tool_errors": {tool: "接口超时，请稍后再试"}})
    gateway = ToolGateway(store, "tr-err")
    with pytest.raises(ToolFailedError, match="接口超时，请稍后再试") as info:
        gateway.call(role, tool, args)
    assert info.value.detail == "接口超时，请稍后再试"
    assert (store.audit()[-1].tool, store.audit()[-1].status) == (tool, "error")
    other = "kb__search" if tool != "kb__search" else "orders__get_order"
    other_role = "policy_agent" if other == "kb__search" else "order_agent"
    other_args = {"query": "补发"} if other == "kb__search" else {"order_id": "A1001"}
    assert gateway.call(other_role, other, other_args).evidence


@pytest.mark.parametrize(
    ("table", "tool", "args", "customer"),
    [
        ("orders", "orders__get_order", {"order_id": "A1001"}, None),
        ("orders", "orders__get_order", {"order_id": "NOPE"}, None),
        ("orders", "logistics__track", {"order_id": "A1001"}, "王先生"),
        ("orders", "logistics__track", {"order_id": "NOPE"}, "王先生"),
        ("shipments", "logistics__track", {"order_id": "A1001"}, None),
        ("shipments", "logistics__track", {"order_id": "NOPE"}, None),
        ("policies", "kb__search", {"query": "补发"}, None),
        ("stock", "stock__check", {"sku": "SKU-TEE-01"}, None),
    ],
)
def test_a_broken_table_fails_the_tool_never_reads_as_not_found(
    table: str, tool: str, args: dict[str, str], customer: str | None
) -> None:
    store = build_world({"table_errors": {table: "表被锁定"}})
    gateway = ToolGateway(store, "t", customer=customer)
    role = next(r for r, allowed in ALLOWLISTS.items() if tool in allowed)
    with pytest.raises(ToolFailedError, match="表被锁定"):
        gateway.call(role, tool, args)
    assert [(a.status, "表被锁定" in a.reason) for a in store.audit()] == [("error", True)]


@pytest.mark.parametrize(
    ("table", "tool", "args", "customer"),
    [
        ("orders", "orders__get_order", {"order_id": "A1001"}, None),
        ("orders", "logistics__track", {"order_id": "A1001"}, "王先生"),
        ("shipments", "logistics__track", {"order_id": "A1001"}, None),
        ("policies", "kb__search", {"query": "补发"}, None),
        ("stock", "stock__check", {"sku": "SKU-TEE-01"}, None),
    ],
)
def test_a_table_sqlite_refuses_crashes_the_tool_and_is_audited_as_a_crash(
    table: str, tool: str, args: dict[str, str], customer: str | None
) -> None:
    store = build_world({"denied_tables": {table: "read"}})
    gateway = ToolGateway(store, "t", customer=customer)
    role = next(r for r, allowed in ALLOWLISTS.items() if tool in allowed)
    with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
        gateway.call(role, tool, args)
    [row] = store.audit()
    assert (row.status, row.allowed) == ("crashed", True)
    assert row.reason.startswith(f"tool {tool!r} crashed: DatabaseError: ")


def test_a_handlers_bug_is_raised_as_it_is_and_audited(monkeypatch: pytest.MonkeyPatch) -> None:
    store = build_world()
    tool = TOOLS["stock__check"]

    def buggy(ctx: object, args: object) -> object:
        return {}["qty"]

    monkeypatch.setitem(TOOLS, "stock__check", dataclasses.replace(tool, handler=buggy))
    with pytest.raises(KeyError):
        ToolGateway(store, "t").call("orchestrator", "stock__check", {"sku": "SKU-TEE-01"})
    [row] = store.audit()
    assert (row.status, row.reason) == ("crashed", "tool 'stock__check' crashed: KeyError: 'qty'")
