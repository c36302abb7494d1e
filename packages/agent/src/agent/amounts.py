"""Reading a money amount as a specialist states it (``59.00``, ``¥1,299.00``, ``1299元``).

An amount that cannot be read is ``None``, never 0: a 0 would sail under any
auto-approval limit.
"""

from __future__ import annotations

import re

CURRENCY_PREFIXES = ("¥", "￥", "RMB", "CNY")
"""Currency marks allowed before the number."""
CURRENCY_SUFFIXES = ("元", "RMB", "CNY")
"""Currency marks allowed after the number."""

NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?")
"""Digits with optional thousands separators (every group of three) and at most two
decimals: ``1299``, ``1,299.5``, ``1,299.00``. ``1,29`` or ``1.299,00`` do not match."""


def _strip_mark(text: str, marks: tuple[str, ...], *, prefix: bool) -> str:
    for mark in marks:
        if prefix and text.startswith(mark):
            return text[len(mark) :].strip()
        if not prefix and text.endswith(mark):
            return text[: -len(mark)].strip()
    return text


def parse_amount(text: str | None) -> float | None:
    """The amount ``text`` states in yuan, or ``None`` when it is missing or cannot be read
    unambiguously (a negative amount, words, a stray character, a misplaced separator).

    One currency mark is allowed before (``¥``, ``￥``, ``RMB``, ``CNY``) and one after
    (``元``, ``RMB``, ``CNY``) the number; spaces around them are ignored.
    """
    if text is None:
        return None
    body = _strip_mark(text.strip(), CURRENCY_PREFIXES, prefix=True)
    body = _strip_mark(body, CURRENCY_SUFFIXES, prefix=False)
    if not NUMBER.fullmatch(body):
        return None
    return float(body.replace(",", ""))
