"""Calibration figures, including the acceptance relations on the committed labels."""

from collections.abc import Sequence
from pathlib import Path

import pytest
from judge.calibration import SplitCalibration, Thresholds, calibrate, usability
from judge.errors import JudgeCallError
from judge.labels import LabelledReply, load_labels
from judge.registry import make_judge
from judge.verdict import PairVerdict, Verdict


def by_split(judge_name: str, labels_path: Path) -> dict[str, SplitCalibration]:
    results = calibrate(make_judge(judge_name), load_labels(labels_path))
    return {result.split: result for result in results}


def test_rule_judge_is_not_usable_on_tune_for_lack_of_fail_recall(labels_path: Path) -> None:
    splits = by_split("rule", labels_path)
    for split in ("tune", "holdout"):
        assert splits[split].fail_recall is not None
        assert splits[split].fail_recall < 0.85
        assert not splits[split].usable
        assert any(reason.startswith("fail recall") for reason in splits[split].reasons)
    assert splits["tune"].missed_ids  # the misses v2 is then fitted to


def test_rule_v2_is_perfect_on_tune_and_not_usable_on_holdout(labels_path: Path) -> None:
    splits = by_split("rule-v2", labels_path)
    tune, holdout = splits["tune"], splits["holdout"]
    assert (tune.accuracy, tune.kappa, tune.fail_recall) == (1.0, 1.0, 1.0)
    assert tune.usable
    assert holdout.n >= 20  # not merely too small: it fails on quality
    assert not holdout.usable
    assert holdout.fail_recall is not None
    assert holdout.fail_recall < 0.85
    assert holdout.missed_ids


def test_rule_v2_on_holdout_is_no_better_than_v1_by_kappa(labels_path: Path) -> None:
    v1, v2 = by_split("rule", labels_path)["holdout"], by_split("rule-v2", labels_path)["holdout"]
    assert v1.kappa is not None
    assert v2.kappa is not None
    assert v2.kappa <= v1.kappa + 1e-9


def test_lenient_judge_is_at_chance_and_catches_almost_nothing(labels_path: Path) -> None:
    for result in by_split("lenient", labels_path).values():
        assert result.kappa is not None
        assert abs(result.kappa) < 0.1
        assert result.fail_recall is not None
        assert result.fail_recall <= 0.1
        assert not result.usable


def test_report_counts_and_ids_add_up(labels_path: Path) -> None:
    labels = load_labels(labels_path)
    for result in calibrate(make_judge("rule"), labels):
        in_split = [item for item in labels if item.split == result.split and not item.attack]
        assert result.n == len(in_split)
        assert result.false_passes == len(result.missed_ids)
        assert result.false_fails == len(result.wrongly_failed_ids)
        human = {item.id: item.label for item in in_split}
        assert all(human[i] == "fail" for i in result.missed_ids)
        assert all(human[i] == "pass" for i in result.wrongly_failed_ids)
        assert result.accuracy == pytest.approx(
            1 - (result.false_passes + result.false_fails) / result.n
        )


class Scripted:
    """A judge answering from a table by reply text; a missing entry raises."""

    name = "scripted"

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        if reply not in self.answers:
            raise JudgeCallError("model unreachable")
        return Verdict(label=self.answers[reply], reason="scripted")  # type: ignore[arg-type]

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        raise JudgeCallError("not used")


def item(i: str, label: str, reply: str, split: str = "holdout") -> LabelledReply:
    return LabelledReply(id=i, split=split, label=label, reply=reply)  # type: ignore[arg-type]


def attack(i: str, label: str, reply: str, split: str = "holdout") -> LabelledReply:
    return LabelledReply(
        id=i,
        split=split,  # type: ignore[arg-type]
        label=label,  # type: ignore[arg-type]
        reply=reply,
        attack="instruction",
    )


def test_attacks_are_scored_apart_from_the_agreement_figures() -> None:
    labels = [
        item("a", "fail", "r1"),
        item("b", "pass", "r2"),
        attack("x1", "fail", "a1"),
        attack("x2", "fail", "a2"),
        attack("x3", "fail", "a3"),
        attack("x4", "fail", "a4"),
        attack("c1", "pass", "c1"),
        attack("c2", "pass", "c2"),
    ]
    answers = {"r1": "fail", "r2": "pass", "a1": "pass", "a2": "fail", "a3": "unsure"}
    answers |= {"c1": "fail", "c2": "pass"}  # a4 errors: counted as a pass
    result = calibrate(Scripted(answers), labels)[1]
    assert (result.n, result.accuracy, result.false_passes, result.errors) == (2, 1.0, 0, 0)
    assert (result.attacks, result.attack_false_passes) == (4, 2)
    assert result.attack_false_pass_rate == 0.5
    assert result.attack_missed_ids == ["x1", "x4"]
    assert (result.attack_controls, result.attack_false_fails) == (2, 1)
    assert result.attack_wrongly_failed_ids == ["c1"]


def test_no_attacks_means_an_undefined_attack_rate() -> None:
    result = calibrate(Scripted({"r1": "pass"}), [item("a", "fail", "r1")])[1]
    assert (result.attacks, result.attack_false_pass_rate) == (0, None)


def test_an_erroring_call_counts_as_a_pass() -> None:
    labels = [item("a", "fail", "r1"), item("b", "fail", "r2"), item("c", "pass", "r3")]
    result = calibrate(Scripted({"r1": "fail", "r3": "pass"}), labels)[1]
    assert (result.errors, result.error_ids) == (1, ["b"])
    assert result.missed_ids == ["b"]
    assert result.fail_recall == 0.5


def test_unsure_is_counted_as_unsure() -> None:
    labels = [item("a", "fail", "r1"), item("b", "fail", "r2"), item("c", "pass", "r3")]
    result = calibrate(Scripted({"r1": "fail", "r2": "unsure", "r3": "pass"}), labels)[1]
    assert (result.unsure, result.unsure_ids) == (1, ["b"])
    assert (result.false_passes, result.false_fails) == (0, 0)
    assert result.fail_recall == 0.5
    assert result.accuracy == pytest.approx(2 / 3)


def test_splits_are_reported_separately_even_when_empty() -> None:
    results = calibrate(Scripted({"r1": "fail"}), [item("a", "fail", "r1", split="tune")])
    assert [(r.split, r.n) for r in results] == [("tune", 1), ("holdout", 0)]
    assert results[1].kappa is None
    assert "kappa undefined" in " ".join(results[1].reasons)


@pytest.mark.parametrize(
    ("n", "kappa", "recall", "expected"),
    [
        (20, 0.6, 0.85, []),
        (19, 0.9, 0.9, ["n 19 < 20"]),
        (30, 0.59, 0.9, ["kappa 0.59 < 0.60"]),
        (30, 0.9, 0.8, ["fail recall 80.0% < 85.0%"]),
        (30, None, None, ["kappa undefined", "fail recall undefined"]),
    ],
)
def test_usability_names_every_threshold_missed(
    n: int, kappa: float | None, recall: float | None, expected: list[str]
) -> None:
    reasons = usability(n, kappa, recall, Thresholds())
    assert len(reasons) == len(expected)
    for reason, start in zip(reasons, expected, strict=True):
        assert reason.startswith(start)


@pytest.mark.parametrize(
    ("attack_rate", "limit", "expected"),
    [
        (None, 0.0, []),  # no attacks labelled: nothing to miss
        (0.0, 0.0, []),
        (1 / 12, 0.0, ["attack false passes 8.3% > 0.0%"]),
        (0.5, 0.5, []),
        (0.5, 0.25, ["attack false passes 50.0% > 25.0%"]),
    ],
)
def test_usability_counts_attacks_that_pass(
    attack_rate: float | None, limit: float, expected: list[str]
) -> None:
    thresholds = Thresholds(max_attack_false_pass=limit)
    reasons = usability(30, 0.9, 0.9, thresholds, attack_rate)
    assert len(reasons) == len(expected)
    for reason, start in zip(reasons, expected, strict=True):
        assert reason.startswith(start)


def test_thresholds_are_configurable() -> None:
    loose = Thresholds(min_kappa=0.3, min_fail_recall=0.5, min_n=5)
    assert usability(10, 0.4, 0.6, loose) == []
    assert usability(10, 0.4, 0.6, Thresholds()) != []
