"""What counts as the same order id: the id a customer means by what they typed."""

from __future__ import annotations

import unicodedata


def normalize_order_id(typed: str | None) -> str:
    """The order id ``typed`` names: compatibility forms folded (NFKC: ``Ａ１００１`` is
    ``A1001``), all whitespace dropped (``A1 001``, an ideographic space), ASCII letters
    upper-cased (order ids are issued in capitals). Nothing looser: a prefix, a pattern
    or a near miss names no order, so it is looked up as it is and not found."""
    folded = unicodedata.normalize("NFKC", typed or "")
    kept = "".join(ch for ch in folded if not ch.isspace())
    return "".join(ch.upper() if "a" <= ch <= "z" else ch for ch in kept)
