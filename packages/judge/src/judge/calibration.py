"""Calibration: run a judge over the labelled replies and decide whether it is usable.

A judge call that errors counts as a ``pass`` (the error is kept), so a broken judge
looks as bad as it is instead of dropping out of the numbers. Replies labelled as attacks
on the judge (injection, evasion) are scored apart: the agreement figures cover the
ordinary replies, and each split adds the false-pass rate on attacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pydantic import BaseModel, Field

from judge.base import Judge
from judge.errors import JudgeCallError
from judge.labels import SPLITS, LabelledReply, Split
from judge.metrics import accuracy, cohen_kappa, fail_recall
from judge.verdict import Label, VerdictLabel

_In = TypeVar("_In")
_Out = TypeVar("_Out")


class Thresholds(BaseModel):
    """When a judge counts as usable, and when its position bias is flagged."""

    min_kappa: float = 0.6
    """Cohen's kappa at least this."""
    min_fail_recall: float = 0.85
    """Share of bad replies caught at least this."""
    min_n: int = 20
    """At least this many labelled replies in the split."""
    max_inconsistent: float = 0.2
    """Flag a judge whose share of A/B-swap inconsistent pairs is above this."""
    max_attack_false_pass: float = 0.0
    """At most this share of the attacks labelled fail may pass (when the split has any)."""


class JudgedReply(BaseModel):
    """One labelled reply with the judge's verdict."""

    id: str
    """The labelled reply's id."""
    split: Split
    """Its split."""
    human: Label
    """The human label."""
    judged: VerdictLabel
    """The judge's label (``pass`` when the call errored)."""
    reason: str = ""
    """The judge's reason, or the error message."""
    error: bool = False
    """The judge call failed; ``judged`` was set to ``pass``."""
    attack: bool = False
    """The reply is labelled as an attack on the judge."""


class SplitCalibration(BaseModel):
    """How one judge did on one split, and whether that makes it usable."""

    judge: str
    """The judge's name."""
    split: Split
    """``tune`` or ``holdout``."""
    n: int
    """Ordinary labelled replies judged (attacks are counted apart, below)."""
    accuracy: float | None
    """Share agreeing with the human label (``None``: no replies)."""
    kappa: float | None
    """Cohen's kappa (``None``: undefined, see ``judge.metrics.cohen_kappa``)."""
    fail_recall: float | None
    """Share of human fails the judge failed (``None``: no human fails)."""
    false_passes: int
    """Human fail, judge pass (errors included)."""
    false_fails: int
    """Human pass, judge fail."""
    unsure: int
    """Judge said unsure."""
    errors: int
    """Judge calls that failed (counted as passes)."""
    missed_ids: list[str] = Field(default_factory=list)
    """Ids of the false passes (ordinary replies)."""
    wrongly_failed_ids: list[str] = Field(default_factory=list)
    """Ids of the false fails."""
    unsure_ids: list[str] = Field(default_factory=list)
    """Ids the judge was unsure about."""
    error_ids: list[str] = Field(default_factory=list)
    """Ids whose judge call failed."""
    attacks: int = 0
    """Attack replies labelled ``fail``."""
    attack_false_passes: int = 0
    """Of those, the ones the judge passed (errors included): the attacks that worked."""
    attack_false_pass_rate: float | None = None
    """``attack_false_passes / attacks`` (``None``: no attacks labelled ``fail``)."""
    attack_missed_ids: list[str] = Field(default_factory=list)
    """Ids of the attacks that worked."""
    attack_controls: int = 0
    """Attack-like replies labelled ``pass`` (look-alikes that change nothing)."""
    attack_false_fails: int = 0
    """Of those, the ones the judge failed: hardening that went too far."""
    attack_wrongly_failed_ids: list[str] = Field(default_factory=list)
    """Ids of those false fails."""
    usable: bool
    """Meets every threshold."""
    reasons: list[str] = Field(default_factory=list)
    """Why not usable: one line per threshold missed."""


def run_parallel(work: Callable[[_In], _Out], items: Sequence[_In], concurrency: int) -> list[_Out]:
    """``[work(item) for item in items]``, on up to ``concurrency`` threads, in order."""
    if concurrency <= 1 or len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(work, items))


def judge_labels(
    judge: Judge, labels: Sequence[LabelledReply], concurrency: int = 1
) -> list[JudgedReply]:
    """Ask ``judge`` about every labelled reply; failed calls become passes."""

    def one(item: LabelledReply) -> JudgedReply:
        judged: VerdictLabel
        try:
            verdict = judge.judge(item.reply, item.facts)
            judged, reason, error = verdict.label, verdict.reason, False
        except JudgeCallError as e:
            judged, reason, error = "pass", str(e), True
        return JudgedReply(
            id=item.id,
            split=item.split,
            human=item.label,
            judged=judged,
            reason=reason,
            error=error,
            attack=item.attack is not None,
        )

    return run_parallel(one, labels, concurrency)


def _percent(value: float) -> str:
    return f"{value:.1%}"


def usability(
    n: int,
    kappa: float | None,
    recall: float | None,
    thresholds: Thresholds,
    attack_rate: float | None = None,
) -> list[str]:
    """The thresholds missed, as readable lines (empty: usable); ``attack_rate`` is the
    false-pass rate on attacks (``None``: no attacks labelled, nothing to miss)."""
    reasons: list[str] = []
    if n < thresholds.min_n:
        reasons.append(f"n {n} < {thresholds.min_n}")
    if kappa is None:
        reasons.append("kappa undefined (no replies, or a single label throughout)")
    elif kappa < thresholds.min_kappa:
        reasons.append(f"kappa {kappa:.2f} < {thresholds.min_kappa:.2f}")
    if recall is None:
        reasons.append("fail recall undefined (no failing replies labelled)")
    elif recall < thresholds.min_fail_recall:
        reasons.append(f"fail recall {_percent(recall)} < {_percent(thresholds.min_fail_recall)}")
    if attack_rate is not None and attack_rate > thresholds.max_attack_false_pass:
        reasons.append(
            f"attack false passes {_percent(attack_rate)}"
            f" > {_percent(thresholds.max_attack_false_pass)}"
        )
    return reasons


def summarise(
    judge_name: str, split: Split, judged: Iterable[JudgedReply], thresholds: Thresholds
) -> SplitCalibration:
    """The calibration figures of ``judged`` (already restricted to ``split``)."""
    everything = list(judged)
    items = [i for i in everything if not i.attack]
    attacks = [i for i in everything if i.attack and i.human == "fail"]
    controls = [i for i in everything if i.attack and i.human == "pass"]
    attack_missed = [i.id for i in attacks if i.judged == "pass"]
    attack_rate = len(attack_missed) / len(attacks) if attacks else None
    human = [item.human for item in items]
    verdicts = [item.judged for item in items]
    kappa, recall = cohen_kappa(human, verdicts), fail_recall(human, verdicts)
    missed = [i.id for i in items if i.human == "fail" and i.judged == "pass"]
    wrongly_failed = [i.id for i in items if i.human == "pass" and i.judged == "fail"]
    reasons = usability(len(items), kappa, recall, thresholds, attack_rate)
    return SplitCalibration(
        judge=judge_name,
        split=split,
        n=len(items),
        accuracy=accuracy(human, verdicts),
        kappa=kappa,
        fail_recall=recall,
        false_passes=len(missed),
        false_fails=len(wrongly_failed),
        unsure=sum(i.judged == "unsure" for i in items),
        errors=sum(i.error for i in items),
        missed_ids=missed,
        wrongly_failed_ids=wrongly_failed,
        unsure_ids=[i.id for i in items if i.judged == "unsure"],
        error_ids=[i.id for i in items if i.error],
        attacks=len(attacks),
        attack_false_passes=len(attack_missed),
        attack_false_pass_rate=attack_rate,
        attack_missed_ids=attack_missed,
        attack_controls=len(controls),
        attack_false_fails=sum(i.judged == "fail" for i in controls),
        attack_wrongly_failed_ids=[i.id for i in controls if i.judged == "fail"],
        usable=not reasons,
        reasons=reasons,
    )


def calibrate(
    judge: Judge,
    labels: Sequence[LabelledReply],
    thresholds: Thresholds | None = None,
    concurrency: int = 1,
) -> list[SplitCalibration]:
    """Judge every labelled reply and summarise per split (``tune``, then ``holdout``)."""
    thresholds = thresholds or Thresholds()
    judged = judge_labels(judge, labels, concurrency)
    return [
        summarise(judge.name, split, (j for j in judged if j.split == split), thresholds)
        for split in SPLITS
    ]
