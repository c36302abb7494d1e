"""Position bias: ask every (better, worse) pair twice, with A and B swapped.

A consistent judge makes the same choice of reply both times (A then B, B then A, or
TIE twice). A judge whose share of inconsistent pairs is above the threshold is flagged.
A pair whose judge call failed counts as inconsistent: consistency was not shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from judge.base import Judge
from judge.calibration import run_parallel
from judge.errors import JudgeCallError
from judge.labels import LabelledPair
from judge.verdict import PairChoice

_SWAPPED: dict[PairChoice, PairChoice] = {"A": "B", "B": "A", "TIE": "TIE"}


class PairCheck(BaseModel):
    """One pair asked both ways."""

    id: str
    """The pair's id."""
    original: PairChoice | None
    """The choice with A = better, B = worse (``None``: the call failed)."""
    swapped: PairChoice | None
    """The choice with A = worse, B = better (``None``: the call failed)."""
    error: str | None = None
    """The first error message, if a call failed."""

    @property
    def consistent(self) -> bool:
        """The same reply (or TIE) was chosen both times."""
        if self.original is None or self.swapped is None:
            return False
        return self.swapped == _SWAPPED[self.original]

    @property
    def prefers_better(self) -> bool:
        """The better reply was chosen both times."""
        return self.original == "A" and self.swapped == "B"


class PairConsistency(BaseModel):
    """Position-bias figures of one judge."""

    judge: str
    """The judge's name."""
    n: int
    """Pairs asked (each twice)."""
    inconsistent: int
    """Pairs with different choices once A and B were swapped."""
    inconsistent_rate: float | None
    """``inconsistent / n`` (``None``: no pairs)."""
    prefers_better: int
    """Pairs where the better reply won both times."""
    flagged: bool
    """``inconsistent_rate`` is above the threshold."""
    max_inconsistent: float
    """The threshold used."""
    inconsistent_ids: list[str] = Field(default_factory=list)
    """Ids of the inconsistent pairs."""
    error_ids: list[str] = Field(default_factory=list)
    """Ids of pairs whose judge call failed."""


def check_pair(judge: Judge, pair: LabelledPair) -> PairCheck:
    """Ask ``judge`` about ``pair`` in both orders."""
    try:
        original = judge.compare(pair.better, pair.worse, pair.facts).choice
        swapped = judge.compare(pair.worse, pair.better, pair.facts).choice
    except JudgeCallError as e:
        return PairCheck(id=pair.id, original=None, swapped=None, error=str(e))
    return PairCheck(id=pair.id, original=original, swapped=swapped)


def check_position_bias(
    judge: Judge,
    pairs: Sequence[LabelledPair],
    max_inconsistent: float = 0.2,
    concurrency: int = 1,
) -> PairConsistency:
    """Ask every pair both ways and flag the judge above ``max_inconsistent``."""
    checks = run_parallel(lambda pair: check_pair(judge, pair), pairs, concurrency)
    bad = [check.id for check in checks if not check.consistent]
    rate = len(bad) / len(checks) if checks else None
    return PairConsistency(
        judge=judge.name,
        n=len(checks),
        inconsistent=len(bad),
        inconsistent_rate=rate,
        prefers_better=sum(check.prefers_better for check in checks),
        flagged=rate is not None and rate > max_inconsistent,
        max_inconsistent=max_inconsistent,
        inconsistent_ids=bad,
        error_ids=[check.id for check in checks if check.error is not None],
    )
