"""pass@k and pass^k curves: the unbiased estimators against values computed by hand."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.metrics.passk import PassPoint, curve, pass_at, pass_pow, passes
from evals.metrics.summary import compute
from helpers import result

# (n, c, k, pass@k, pass^k), each worked out with the binomials written out.
HAND = [
    (5, 4, 1, Fraction(4, 5), Fraction(4, 5)),  # k = 1: both are c/n
    (5, 1, 2, 1 - Fraction(6, 10), Fraction(0, 10)),  # 1 - C(4,2)/C(5,2); C(1,2) = 0
    (5, 4, 2, Fraction(1), Fraction(6, 10)),  # C(1,2) = 0; C(4,2)/C(5,2)
    (10, 3, 3, 1 - Fraction(35, 120), Fraction(1, 120)),  # 1 - C(7,3)/C(10,3); C(3,3)/C(10,3)
    (10, 3, 2, 1 - Fraction(21, 45), Fraction(3, 45)),  # 1 - C(7,2)/C(10,2); C(3,2)/C(10,2)
    (5, 0, 3, Fraction(0), Fraction(0)),
    (5, 5, 5, Fraction(1), Fraction(1)),
    (5, 4, 5, Fraction(1), Fraction(0)),  # k = n: any trial passed / every trial passed
    (4, 2, 3, Fraction(1), Fraction(0)),  # C(2,3) = 0 both ways
]


@pytest.mark.parametrize(("n", "c", "k", "at", "pow_"), HAND)
def test_estimators_match_hand_computed_values(
    n: int, c: int, k: int, at: Fraction, pow_: Fraction
) -> None:
    assert pass_at(n, c, k) == at
    assert pass_pow(n, c, k) == pow_


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need 0 <= c <= n"):
        pass_at(n, c, k)
    with pytest.raises(ValueError, match="need 0 <= c <= n"):
        pass_pow(n, c, k)


def test_the_curve_averages_the_cases_with_enough_trials() -> None:
    # a: 1 of 2 passed; b: 3 of 3.
    points = curve({"a": (1, 2), "b": (3, 3)})
    assert points == [
        PassPoint(k=1, cases=2, pass_at_k=0.75, pass_pow_k=0.75),
        PassPoint(k=2, cases=2, pass_at_k=1.0, pass_pow_k=0.5),
        PassPoint(k=3, cases=1, pass_at_k=1.0, pass_pow_k=1.0),
    ]
    assert curve({}) == []


def test_metrics_carry_the_counts_and_the_curve_ending_at_the_all_trials_point() -> None:
    outcomes = {"a": [True, False, True], "b": [False, False, False], "c": [True, True, True]}
    results = [
        result(case, trial=t, ok=ok) for case, runs in outcomes.items() for t, ok in enumerate(runs)
    ]
    m = compute(results)
    assert m.case_passes == {"a": (2, 3), "b": (0, 3), "c": (3, 3)}
    assert passes(outcomes) == m.case_passes
    assert [p.k for p in m.pass_curve] == [1, 2, 3]
    assert m.pass_curve[0].pass_at_k == pytest.approx(5 / 9)  # the success rate
    assert m.pass_curve[1].pass_pow_k == pytest.approx((Fraction(1, 3) + 0 + 1) / 3)
    last = m.pass_curve[-1]
    assert (last.pass_at_k, last.pass_pow_k) == pytest.approx((m.pass_at_k, m.pass_pow_k))
