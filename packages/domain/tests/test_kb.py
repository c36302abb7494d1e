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


def _reissue(hours: int, date: str, version: str) -> dict[str, str]:
    return {
        "title": "补发政策（修订）",
        "body": f"物流信息停滞满 {hours} 小时未更新的，可为客户提交补发申请。",
        "effective_date": date,
        "version": version,
    }


@pytest.mark.parametrize(
    "dates",
    [
        # Added in the order they took effect: the newest is added last.
        ["2024-08-01", "2024-09-01", "2024-10-01", "2024-11-01", "2024-12-01", "2025-01-01"],
        # And in the reverse order.
        ["2025-01-01", "2024-12-01", "2024-11-01", "2024-10-01", "2024-09-01", "2024-08-01"],
    ],
)
def test_a_search_matching_more_than_a_page_still_holds_the_policy_in_force(
    dates: list[str],
) -> None:
    added = [_reissue(24 + 12 * n, d, f"v{3 + n}") for n, d in enumerate(dates)]
    docs = build_world({"policies": added}).search_policies("补发 物流 停滞")
    assert len(docs) == 5  # seven documents match; a page holds five
    assert docs[0].effective_date == "2025-01-01"
    assert [d.effective_date for d in docs] == sorted(
        (d.effective_date for d in docs), reverse=True
    )


def test_every_added_policy_gets_its_own_id_in_order() -> None:
    added = [_reissue(24 + n, f"2024-0{n + 1}-01", "v3") for n in range(8)]
    docs = build_world({"kb": "empty", "policies": added}).search_policies("补发", limit=20)
    assert sorted(d.id for d in docs) == list(range(100, 108))
    assert {d.id: d.body for d in docs}[104] == added[4]["body"]
