"""Shared helpers for the tool tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from domain import Store, build_world
from tools import TOOLS, ToolContext, ToolGateway, ToolResult

TABLES = ["orders", "shipments", "stock", "policies", "approvals", "tickets", "replies"]


def _dump(store: Store) -> dict[str, list[tuple[object, ...]]]:
    return {t: list(store.db.execute(f"SELECT * FROM {t}").fetchall()) for t in TABLES}


Dump = Callable[[Store], dict[str, list[tuple[object, ...]]]]


@pytest.fixture
def dump() -> Dump:
    """Every row of every table except the audit log."""
    return _dump


@pytest.fixture
def gateway() -> ToolGateway:
    return ToolGateway(build_world(), "tr-1")


@pytest.fixture
def handler_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Wrap every handler so the test sees which ones ran."""
    calls: list[str] = []
    for name, tool in list(TOOLS.items()):

        def spy(ctx: ToolContext, args: dict[str, Any], _tool: Any = tool) -> ToolResult:
            calls.append(_tool.name)
            return _tool.handler(ctx, args)  # type: ignore[no-any-return]

        monkeypatch.setitem(TOOLS, name, dataclasses.replace(tool, handler=spy))
    return calls
