"""The judge protocol every judge implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from judge.verdict import PairVerdict, Verdict


class Judge(Protocol):
    """Judges one reply against the rubric, or compares two replies.

    ``facts`` are the verified facts the reply must agree with. Implementations raise
    ``JudgeCallError`` when they cannot answer; they never turn a failure into a pass.
    """

    @property
    def name(self) -> str:
        """The judge's registry name (``rule``, ``openai``, ...)."""
        ...

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        """Pass, fail or unsure for ``reply`` given ``facts``."""
        ...

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        """Which of ``a`` and ``b`` better meets the rubric (``TIE`` when neither)."""
        ...
