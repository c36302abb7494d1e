"""The ``amount_format:<style>`` fault: the order specialist states the amount paid in
another format (``¥1,299.00``, ``1299元``, ``1,299.5``, in words, or under each other
currency mark), so the orchestrator's reading of amounts is put to the test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

AMOUNT_FORMAT = "amount_format"
"""The fault's kind; its argument names one of :data:`AMOUNT_STYLES`."""
PAID_TOPIC = "paid"
"""The claim whose value is restated."""

_DIGITS = "零一二三四五六七八九"


def _plain(amount: float) -> str:
    """``1299`` for 1299.0, ``1299.5`` for 1299.5: no trailing zeros."""
    return f"{amount:.2f}".rstrip("0").rstrip(".")


def _grouped(amount: float) -> str:
    whole, _, cents = _plain(amount).partition(".")
    return f"{int(whole):,}" + (f".{cents}" if cents else "")


def _words(amount: float) -> str:
    """The whole yuan digit by digit in Chinese numerals (``一二九九元``): not a number the
    orchestrator may read."""
    return "".join(_DIGITS[int(d)] for d in str(int(amount))) + "元"


AMOUNT_STYLES: dict[str, Callable[[float], str]] = {
    "symbol": lambda amount: f"¥{amount:,.2f}",
    "yuan": lambda amount: f"{_plain(amount)}元",
    "grouped": _grouped,
    "words": _words,
    "fullwidth": lambda amount: f"￥ {amount:,.2f}",
    "rmb": lambda amount: f"RMB {amount:,.2f}",
    "cny": lambda amount: f"CNY{_plain(amount)}",
    "rmb_after": lambda amount: f"{_plain(amount)} RMB",
    "cny_after": lambda amount: f"{amount:,.2f}CNY",
    "yuan_before": lambda amount: f"元{_plain(amount)}",
    "two_after": lambda amount: f"{_plain(amount)}元 RMB",
    "padded": lambda amount: f" \u3000¥{amount:,.2f}\u3000 ",
}
"""Style -> how the amount is written: ``symbol`` ``¥1,299.00``, ``yuan`` ``1299元``,
``grouped`` ``1,299.5``, ``words`` ``一二九九元`` (unreadable on purpose), and one style for
each other currency mark the orchestrator reads (:mod:`agent.amounts`): ``fullwidth``
``￥ 1,299.00``, ``rmb`` ``RMB 1,299.00``, ``cny`` ``CNY1299``, ``rmb_after`` ``1299 RMB``,
``cny_after`` ``1,299.00CNY``; and ``yuan_before`` ``元1299``, a mark only ever written
after the number written before it (unreadable on purpose: a mark on the wrong side);
``two_after`` ``59元 RMB``, two marks where one is allowed (unreadable on purpose);
``padded`` ``¥1,299.00`` with a space and an ideographic space on either side of it
(readable: spaces around the mark are ignored)."""


def is_amount_style(style: str) -> bool:
    """Whether ``style`` is one of :data:`AMOUNT_STYLES`."""
    return style in AMOUNT_STYLES


def restate_amount(output: dict[str, Any], style: str) -> dict[str, Any]:
    """``output`` (a well-formed specialist output) with the ``paid`` claim's value written
    in ``style``; other claims, and a value that is not a number, are left as they are."""
    return {**output, "claims": [_restated_claim(claim, style) for claim in output["claims"]]}


def _restated_claim(claim: object, style: str) -> object:
    if not isinstance(claim, dict) or claim.get("topic") != PAID_TOPIC:
        return claim
    try:
        amount = float(claim.get("value"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return claim
    return {**claim, "value": AMOUNT_STYLES[style](amount)}
