"""Rule judge v2: v1 "improved" by reading the tune split's misses and false fails.

Every pattern added here was copied from a reply in the tune split that v1 got wrong,
which is exactly how overfitting happens: v2 is perfect on tune, and on holdout the same
kinds of failures, worded differently, slip through again (and "已签收" now fails a
reply for which it is the truth). It exists to show that a perfect tune score proves
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from judge.normalise import normalise
from judge.rules import FAMILIES, RuleHit, RuleJudge

TUNE_FITTED: Mapping[str, tuple[str, ...]] = {
    "promise": ("原路退回",),  # tune-26
    "contradiction": ("已签收",),  # tune-27
    "deflection": ("问快递公司",),  # tune-28
    "invented": ("明天上午",),  # tune-29
    "off_topic": ("会员日",),  # tune-30
}
"""Phrases lifted from the tune misses, by family."""

SAFETY_WARNINGS: tuple[str, ...] = ("不会向您索要", "请勿向任何人透露")
"""Warning phrases that excuse a ``sensitive`` hit (from tune-03 and tune-06)."""


def _merge(*tables: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, tuple[str, ...]] = {}
    for table in tables:
        for family, phrases in table.items():
            merged[family] = merged.get(family, ()) + phrases
    return merged


class RuleJudgeV2(RuleJudge):
    """v1 plus the tune-fitted phrases, minus ``sensitive`` hits in a safety warning."""

    name: ClassVar[str] = "rule-v2"
    families: ClassVar[Mapping[str, tuple[str, ...]]] = _merge(FAMILIES, TUNE_FITTED)

    def hits(self, reply: str) -> list[RuleHit]:
        """v1's hits over the extended families; a safety warning clears ``sensitive``."""
        found = super().hits(reply)
        text = normalise(reply)
        if any(normalise(warning) in text for warning in SAFETY_WARNINGS):
            found = [hit for hit in found if hit.family != "sensitive"]
        return found
