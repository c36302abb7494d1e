"""The terms of SupportPilot's decision table (docs/decision-table.md), read independently
of the agent: what counts as the same order id, which order states are final, how a
policy states its reissue period, and which policy is in force.

The oracle (:mod:`agent_evals.oracle`) and the invariants (:mod:`agent_evals.invariants`)
read the world through these definitions. Nothing here imports ``agent``: the agent has
its own implementation of the same table, and a disagreement is a bug in one of them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

FINAL_ORDER_MARKERS: tuple[tuple[str, str], ...] = (
    ("cancelled", "已取消"),
    ("cancelled", "取消成功"),
    ("cancelled", "交易关闭"),
    ("refunded", "已退款"),
    ("refunded", "退款成功"),
    ("refunded", "退款完成"),
    ("returned", "已退货"),
    ("returned", "退货成功"),
    ("returned", "退货完成"),
)
"""Order state -> the words in an order's status text that put it there (a done deed:
``已…``, ``…成功``, ``…完成``, ``交易关闭``; a status merely mentioning a refund, as an
injected instruction might, closes nothing). An order in one of these states is closed:
nothing may be written for it, whatever the carrier says."""


def canonical_order_id(typed: str | None) -> str:
    """The order id a customer means by what they typed: Unicode NFKC (full-width letters
    and digits become ASCII), every whitespace character removed, ASCII letters upper-cased.
    Nothing else is changed: no prefix, pattern or near match ever names an order."""
    text = unicodedata.normalize("NFKC", typed or "")
    text = "".join(ch for ch in text if not ch.isspace())
    return "".join(ch.upper() if ch.isascii() else ch for ch in text)


def order_closure(status: str) -> str | None:
    """The final state an order's status text puts it in (``cancelled``, ``refunded``,
    ``returned``), or ``None`` while it is open."""
    found = [(status.find(word), state) for state, word in FINAL_ORDER_MARKERS if word in status]
    return min(found)[1] if found else None


PERIOD = re.compile(r"(\d+)\s*(小时|天|日)")
"""A reissue period as a policy states it: a whole number (ASCII or full-width digits,
read after NFKC) followed by hours (``小时``) or days (``天``, ``日``: 24 hours each)."""
HOURS_PER_UNIT = {"小时": 1, "天": 24, "日": 24}
NOT_ALONE = tuple("0123456789.-~～至到")
"""What may not stand right before the number (spaces aside): then it is the end of a
decimal (``72.5 小时``) or of a range (``48-72 小时``, ``48 至 72 小时``) — no period this
table reads; a careful business asks a human what such a policy means."""


def period_hours(body: str) -> int | None:
    """The first reissue period ``body`` states, in hours; ``None`` when it states none
    this table can read (numbers in words, no unit, a decimal, a range)."""
    text = unicodedata.normalize("NFKC", body)
    match = PERIOD.search(text)
    if match is None or text[: match.start()].rstrip().endswith(NOT_ALONE):
        return None
    return int(match.group(1)) * HOURS_PER_UNIT[match.group(2)]


def stated_period(body: str) -> int | None:
    """The number of the first reissue period ``body`` states, in its own unit (``3 天``
    -> 3); ``None`` when :func:`period_hours` reads none."""
    hours = period_hours(body)
    match = PERIOD.search(unicodedata.normalize("NFKC", body))
    return None if hours is None or match is None else int(match.group(1))


REISSUE_WORD = "补发"
"""A policy about reissues mentions this word in its body."""


def current_reissue_policy(policies: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The reissue policy in force: among the documents not superseded whose title or body
    mentions reissues, the one with the latest effective date (ISO dates compare as
    text); on a tie, the later version string, then the higher id. ``None`` when there is
    none. Whether its period can be read is another question: a policy in force that
    states its period in words leaves no threshold (a careful business asks a human
    rather than fall back on an older text)."""
    candidates = [
        doc
        for doc in policies
        if not doc.get("superseded")
        and REISSUE_WORD in f"{doc.get('title', '')}{doc.get('body', '')}"
    ]
    if not candidates:
        return None
    return max(
        candidates,
        key=lambda d: (str(d.get("effective_date", "")), str(d.get("version", "")), d["id"]),
    )


def reissue_threshold_hours(policies: Iterable[Mapping[str, Any]]) -> int | None:
    """The threshold of the policy in force, in hours (``None``: no policy in force, or
    one whose period cannot be read)."""
    doc = current_reissue_policy(policies)
    return None if doc is None else period_hours(str(doc["body"]))


EXCERPT_LIMIT = 16_000
"""The longest evidence excerpt any read tool hands over, in characters (docs/invariants.md,
docs/decision-table.md): a policy longer than that is cut, its start kept, where its
period is stated."""
