"""pass@k and pass^k as curves, with the unbiased estimators.

With ``n`` trials of a case of which ``c`` passed, the chance that ``k`` trials drawn
without replacement hold

- at least one pass (pass@k): ``1 - C(n-c, k) / C(n, k)``;
- only passes (pass^k): ``C(c, k) / C(n, k)``.

Averaged over cases, for k = 1..n, they are the curves τ-bench reports: pass@k rises with
k (more chances), pass^k falls (reliability over repeated use). At k = n they are the
all-trials definitions of the seed (any trial passed; every trial passed); at k = 1 both
are the success rate. Cases with fewer trials than ``k`` (an interrupted evaluation) are
left out of that point.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb

from pydantic import BaseModel, ConfigDict


def pass_at(n: int, c: int, k: int) -> Fraction:
    """pass@k of one case with ``c`` of ``n`` trials passed (exact)."""
    _check(n, c, k)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_pow(n: int, c: int, k: int) -> Fraction:
    """pass^k of one case with ``c`` of ``n`` trials passed (exact)."""
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


class PassPoint(BaseModel):
    """One k of the curves, averaged over the cases with at least k trials."""

    model_config = ConfigDict(frozen=True)

    k: int
    """Trials drawn."""
    cases: int
    """Cases averaged (those with at least ``k`` graded trials)."""
    pass_at_k: float
    """Mean pass@k."""
    pass_pow_k: float
    """Mean pass^k."""


def passes(per_case: Mapping[str, list[bool]]) -> dict[str, tuple[int, int]]:
    """Per case: (trials passed, graded trials)."""
    return {case: (sum(v), len(v)) for case, v in sorted(per_case.items()) if v}


def curve(counts: Mapping[str, tuple[int, int]]) -> list[PassPoint]:
    """The averaged curves for k = 1 .. the most trials any case has."""
    points = []
    most = max((n for _, n in counts.values()), default=0)
    for k in range(1, most + 1):
        eligible = [(c, n) for c, n in counts.values() if n >= k]
        at = sum((pass_at(n, c, k) for c, n in eligible), Fraction(0))
        pow_ = sum((pass_pow(n, c, k) for c, n in eligible), Fraction(0))
        points.append(
            PassPoint(
                k=k,
                cases=len(eligible),
                pass_at_k=float(at / len(eligible)),
                pass_pow_k=float(pow_ / len(eligible)),
            )
        )
    return points
