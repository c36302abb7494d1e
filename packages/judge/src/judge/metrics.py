"""Agreement metrics between human labels and a judge's verdicts.

Each function takes the human labels and the judge's labels, position by position.
Judge labels may include ``unsure``: it never agrees with a human label, and it is
neither a caught fail nor a pass (it shows up in accuracy and kappa as disagreement).

Undefined values are ``None``, never a made-up number: accuracy and kappa with no
items, fail recall with no human fails, and kappa when both sides used one and the same
label for every item (chance agreement is then total, so kappa is 0/0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def _check(human: Sequence[str], judged: Sequence[str]) -> None:
    if len(human) != len(judged):
        raise ValueError(f"{len(human)} human labels but {len(judged)} judge labels")


def accuracy(human: Sequence[str], judged: Sequence[str]) -> float | None:
    """Share of items where the judge agrees with the human; ``None`` for no items."""
    _check(human, judged)
    if not human:
        return None
    return sum(h == j for h, j in zip(human, judged, strict=True)) / len(human)


def cohen_kappa(human: Sequence[str], judged: Sequence[str]) -> float | None:
    """Cohen's kappa: agreement corrected for the agreement expected by chance.

    ``(p_o - p_e) / (1 - p_e)`` where ``p_o`` is the observed agreement and ``p_e`` the
    sum over labels of the product of both sides' label rates. 1 is perfect, 0 is
    chance level (a judge that always says ``pass`` scores 0), negative is worse than
    chance. ``None`` when there are no items or ``p_e == 1`` (both always the same label).
    """
    _check(human, judged)
    n = len(human)
    if n == 0:
        return None
    observed = sum(h == j for h, j in zip(human, judged, strict=True)) / n
    human_rates, judge_rates = Counter(human), Counter(judged)
    expected = sum(human_rates[label] * judge_rates[label] for label in human_rates) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fail_recall(human: Sequence[str], judged: Sequence[str]) -> float | None:
    """Share of human ``fail`` items the judge also failed; ``None`` when there are none."""
    _check(human, judged)
    verdicts_on_fails = [j for h, j in zip(human, judged, strict=True) if h == "fail"]
    if not verdicts_on_fails:
        return None
    return verdicts_on_fails.count("fail") / len(verdicts_on_fails)
