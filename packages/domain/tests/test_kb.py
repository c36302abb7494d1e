"""The policy knowledge base: full-text search, versions, the empty KB."""

from __future__ import annotations

import pytest
from domain import build_world


@pytest.mark.parametrize("query", ["补发", "物流 停滞", "补发 停滞 未到", "reissue"])
def test_search_returns_the_current_72h_policy_only(query: str) -> None:
    docs = build_world().search_policies(query)
    assert [d.id for d in docs] == [3]
    assert "72 小时" in docs[0].body
    assert not docs[0].superseded


def test_superseded_168h_version_is_never_current() -> None:
    docs = build_world().search_policies("补发", include_superseded=True)
    assert docs[0].superseded is False and "72 小时" in docs[0].body
    old = [d for d in docs if "168 小时" in d.body]
    assert len(old) == 1 and old[0].superseded is True


@pytest.mark.parametrize("query", ["补发", "退款", "补发 退款"])
def test_empty_kb_finds_nothing(query: str) -> None:
    assert build_world({"kb": "empty"}).search_policies(query) == []


@pytest.mark.parametrize("query", ["", "   ", '"'])
def test_blank_query_finds_nothing(query: str) -> None:
    assert build_world().search_policies(query) == []


def test_unrelated_query_finds_nothing() -> None:
    assert build_world().search_policies("发票") == []
