"""SupportPilot's judge as one rubric among others: the evals' exam, file and gate rule."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from evals.checks import registered, unregister
from evals.checks.calibration import (
    LabelledReply as ExamReply,
)
from evals.checks.calibration import (
    calibrate,
    calibration_problem,
    load_labels,
    use_rubric,
    write_calibration,
)
from evals.checks.rubric import rubric_check
from evals.model.case import Case
from evals.model.run import Run
from judge import calibration as own_exam
from judge.labels import load_labels as load_support_labels
from judge.rubric import RULE, RULE_V2, SupportJudge, exam_lines, facts_of, main
from judge.rules import RuleJudge
from judge.verdict import PairVerdict, Verdict


def _exam(tmp_path: Path, labels: Path, pairs: Path) -> Path:
    path = tmp_path / "support.exam.jsonl"
    assert main(["--labels", str(labels), "--pairs", str(pairs), "--out", str(path)]) == 0
    return path


def test_the_exam_set_is_one_split_and_every_pair_in_the_evals_format(
    tmp_path: Path, labels_path: Path, pairs_path: Path
) -> None:
    replies, pairs = load_labels(_exam(tmp_path, labels_path, pairs_path))
    holdout = [r for r in load_support_labels(labels_path) if r.split == "holdout"]
    assert [r.reply for r in replies] == [r.reply for r in holdout]
    assert [json.loads(r.context) for r in replies] == [r.facts for r in holdout]
    assert [r.attack for r in replies] == [
        r.attack is not None and r.label == "fail" for r in holdout
    ]
    assert len(pairs) == 8 and all(json.loads(p.context) for p in pairs)
    tune = exam_lines(labels_path, pairs_path, "tune")
    assert len(tune) - 8 == sum(r.split == "tune" for r in load_support_labels(labels_path))


def test_the_evals_exam_agrees_with_the_judges_own_report_on_the_same_replies(
    labels_path: Path,
) -> None:
    # Ordinary holdout replies (the judge's report scores attacks apart).
    ordinary = [
        r for r in load_support_labels(labels_path) if r.split == "holdout" and r.attack is None
    ]
    [_, holdout] = own_exam.calibrate(RuleJudge(), ordinary)
    exam = [
        ExamReply(reply=r.reply, label=r.label, context=json.dumps(r.facts, ensure_ascii=False))
        for r in ordinary
    ]
    theirs = calibrate(RULE, exam, [])
    assert holdout.n == theirs.labels == len(ordinary)
    assert holdout.kappa == pytest.approx(theirs.kappa)
    assert holdout.fail_recall == pytest.approx(theirs.fail_recall)


@pytest.fixture
def no_rubric_check() -> Iterator[None]:
    yield
    unregister("rubric:support")


def test_the_keyword_judges_sit_the_exam_and_may_not_gate(
    tmp_path: Path, labels_path: Path, pairs_path: Path, no_rubric_check: None
) -> None:
    replies, pairs = load_labels(_exam(tmp_path, labels_path, pairs_path))
    result = calibrate(RULE, replies, pairs)
    assert (result.labels, result.attacks, result.pairs) == (34, 12, 8)
    assert result.problems == ["fail recall 77% below 85%"]
    path = tmp_path / "support.calibration.json"
    write_calibration(path, result)
    assert use_rubric(RULE, path) is None  # failed: registers nothing, so never gated
    assert "rubric:support" not in [c.name for c in registered()]
    # A file is one judge's: the tuned judge is another rubric (its name is in the hash).
    problem = calibration_problem(RULE_V2.rubric, path)
    assert problem is not None and "another rubric, model or prompt" in problem


class Recording:
    """A judge of this package's protocol that records what it is shown."""

    name = "recording"

    def __init__(self) -> None:
        self.facts: list[Sequence[str]] = []

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        self.facts.append(facts)
        return Verdict(label="fail" if "退款" in reply else "pass", reason="no promise")

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        return PairVerdict(choice="TIE" if a == b else "A")


def test_at_run_time_the_judge_is_shown_the_environments_facts_not_the_agents() -> None:
    inner = Recording()
    check = rubric_check(SupportJudge(inner))
    case = Case(id="c1", split="test", input={"goal": "包裹没到"}, expect={"outcome": "replied"})
    run = Run(
        case_id="c1",
        outcome="replied",
        reply="已为您退款",
        facts={"parcel_state": "delivered"},  # what the agent says
        ground_truth={"order.paid": "88.00", "order.id": "SP1"},  # what the database holds
    )
    assert check(case, run) == (False, "fail: no promise")
    assert inner.facts == [["order.id: SP1", "order.paid: 88.00"]]
    assert check(case, run.model_copy(update={"reply": "您好"})) is True
    assert check(case, run.model_copy(update={"reply": None})) is None


@pytest.mark.parametrize(
    ("context", "facts"),
    [
        ('["a", "b"]', ["a", "b"]),
        ("", []),
        ("订单已发货", ["订单已发货"]),
        ('{"a": 1}', ['{"a": 1}']),
        ("[1, 2]", ["[1, 2]"]),
    ],
)
def test_a_context_is_read_as_the_facts_it_holds(context: str, facts: list[str]) -> None:
    assert facts_of(context) == facts


def test_a_judge_of_this_package_is_named_in_its_rubric_with_its_model() -> None:
    assert (RULE.rubric.name, RULE.rubric.model) == ("support", "rule")
    assert RULE.rubric.fingerprint != RULE_V2.rubric.fingerprint
    recording = SupportJudge(Recording())
    assert recording.compare("x", "x") == "tie" and recording.compare("x", "y") == "A"
