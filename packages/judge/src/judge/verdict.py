"""Verdicts: what a judge says about one reply, or about a pair of replies."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Label = Literal["pass", "fail"]
"""A human label: the reply meets the rubric or it does not."""

VerdictLabel = Literal["pass", "fail", "unsure"]
"""A judge's answer: a label, or an explicit ``unsure``."""

PairChoice = Literal["A", "B", "TIE"]
"""Which of two replies is better (or neither)."""


class Verdict(BaseModel):
    """A judge's verdict on one reply."""

    label: VerdictLabel
    """``pass``, ``fail`` or ``unsure``."""
    reason: str = Field(default="")
    """Why, in a sentence (for rule judges: the rules that fired)."""

    @property
    def passed(self) -> bool:
        """True when the verdict is ``pass``."""
        return self.label == "pass"


class PairVerdict(BaseModel):
    """A judge's choice between reply A and reply B."""

    choice: PairChoice
    """``A``, ``B`` or ``TIE``."""
    reason: str = Field(default="")
    """Why, in a sentence."""
