"""Deliberately broken judges: calibration must raise the alarm on both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from judge.rules import RuleJudge
from judge.verdict import PairVerdict, Verdict


class LenientJudge:
    """Passes anything non-empty: agreement no better than chance, almost no fail caught."""

    name: ClassVar[str] = "lenient"

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        """``pass`` for any non-blank reply."""
        if reply.strip():
            return Verdict(label="pass", reason="non-empty")
        return Verdict(label="fail", reason="empty reply")

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        """The non-empty reply if only one is; otherwise ``TIE``."""
        if bool(a.strip()) == bool(b.strip()):
            return PairVerdict(choice="TIE", reason="both equally acceptable")
        return PairVerdict(choice="A" if a.strip() else "B", reason="the other is empty")


class PositionBiasedJudge:
    """Always picks A pairwise, whatever A is; single replies go to the rule judge."""

    name: ClassVar[str] = "position-biased"

    def __init__(self) -> None:
        self._rules = RuleJudge()

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        """The rule judge's verdict (the bias under test is only in ``compare``)."""
        return self._rules.judge(reply, facts)

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        """Always ``A``."""
        return PairVerdict(choice="A", reason="the first reply")
