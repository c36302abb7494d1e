"""Values beyond the generated worlds' labels, for the search for disagreements
(``nox -s explore``): Hypothesis strategies per dimension of
:mod:`agent_evals.generated_worlds`. Imported only where Hypothesis is installed (the
evals ``explore`` extra)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from agent_evals.generated_worlds import ORDER

ID_CHARS = "A5001aＡ５０１ \u3000\t'%._-*"
"""Characters an order id is typed with: its own, their full-width forms, spaces of three
kinds, and characters that mean something to SQL, a regex or a glob."""
STATUS_PARTS = [
    "已发货",
    "运输中",
    "已签收",
    "退回",
    "已取消",
    "已退款",
    "已退货",
    "咨询过退款",
    "待处理",
    "，",
    "商家",
]
"""Fragments an order status or a carrier state is made of."""
PREFIXES = ["", "48-", "48 至 ", "0.", "1."]
"""What may stand before the number: nothing, a range's start, a decimal's start."""
UNITS = ["小时", "天", "日", " 小时", "个小时", "h", "天内"]
"""How a policy may write the unit of its period."""
DIGIT_FORMS: dict[str, Callable[[int], str]] = {
    "ascii": str,
    "fullwidth": lambda n: "".join(chr(ord(d) + 0xFEE0) for d in str(n)),
}


def _policy(
    *,
    hours_or_days: int,
    unit: str,
    digits: str,
    date: str,
    superseded: bool,
    kb: str,
    prefix: str = "",
) -> dict[str, Any]:
    number = DIGIT_FORMS[digits](hours_or_days)
    body = f"物流信息停滞满 {prefix}{number}{unit}未更新的，可为客户提交补发申请。"
    added = {
        "title": "补发政策（修订）",
        "body": body,
        "version": "v9",
        "effective_date": date,
        "superseded": superseded,
    }
    hours = hours_or_days * (24 if unit.strip().startswith(("天", "日")) else 1)
    return {"kb": kb, "add": [added], "hours": hours}


def strategies() -> dict[str, st.SearchStrategy[Any]]:
    """Dimension -> values to explore besides its labels."""
    status = st.lists(st.sampled_from(STATUS_PARTS), min_size=1, max_size=3).map("".join)
    return {
        "typed_id": st.one_of(
            st.text(alphabet=ID_CHARS, max_size=9),
            st.builds(
                lambda pre, post: f"{pre}{ORDER}{post}",
                st.text(alphabet=" \u3000", max_size=2),
                st.text(alphabet=" \u3000x%", max_size=2),
            ),
        ),
        "order_status": status,
        "carrier": st.one_of(st.none(), status),
        "stale": st.integers(min_value=-80, max_value=400),
        "stock": st.integers(min_value=0, max_value=3),
        "amount": st.tuples(
            st.integers(min_value=0, max_value=2_000_000).map(lambda cents: cents / 100),
            st.one_of(st.none(), st.integers(min_value=1, max_value=20_000).map(float)),
        ),
        "policy": st.builds(
            _policy,
            hours_or_days=st.integers(min_value=1, max_value=200),
            unit=st.sampled_from(UNITS),
            digits=st.sampled_from(sorted(DIGIT_FORMS)),
            date=st.sampled_from(["2023-01-01", "2024-07-01", "2025-06-01"]),
            superseded=st.booleans(),
            kb=st.sampled_from(["default", "empty"]),
            prefix=st.sampled_from(PREFIXES),
        ),
    }
