"""SupportPilot's judge as one rubric among others (:mod:`evals.checks.rubric`).

Any judge of this package — the rule judges, the OpenAI judge — stands behind the rubric
``support`` as an :class:`evals.checks.rubric.RubricJudge`, so it sits the evals' own
exam (``evals judge --calibrate``: at least 20 labels, kappa, fail recall, no attack
passed, the position-swap test), writes the same calibration file, and enters a gate only
through :func:`evals.checks.calibration.use_rubric`, like a rubric of any project.

The rubric's fingerprint covers what decides this judge's verdicts: the support rubric's
criteria, the judge (its name; the OpenAI judge's model) and both system prompts the OpenAI
judge sends. Editing any of them makes an earlier calibration another rubric's.

At run time the judge is shown the facts the SUT read from its environment
(``run.ground_truth``, never the agent's own claims) as its verified facts. For the exam,
``python -m judge.rubric`` writes the package's labelled set in the evals' format: one
split of the labels (default ``holdout``: the judges were tuned on ``tune``) and the pairs,
each reply's facts as its context.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.checks.rubric import Preference, Rubric, RubricJudge
from evals.checks.rubric import Verdict as RubricVerdict
from evals.model.case import Case
from evals.model.run import Run

from judge.base import Judge
from judge.errors import LabelFileError
from judge.labels import SPLITS, load_labels, load_pairs
from judge.prompts import PAIR_SYSTEM, RUBRIC, VERDICT_SYSTEM
from judge.rules import RuleJudge
from judge.rules_v2 import RuleJudgeV2

RUBRIC_NAME = "support"
"""The rubric's name; its check is ``rubric:support``."""

_CHOICES: dict[str, Preference] = {"A": "A", "B": "B", "TIE": "tie"}


def support_rubric(judge_name: str) -> Rubric:
    """The support rubric as judged by the judge named ``judge_name`` (``rule``,
    ``openai:<model>`` …)."""
    return Rubric(
        name=RUBRIC_NAME,
        criteria=RUBRIC,
        model=judge_name,
        template=VERDICT_SYSTEM,
        compare_template=PAIR_SYSTEM,
    )


def facts_of(context: str) -> list[str]:
    """The verified facts in a context: a JSON list of strings as :meth:`SupportJudge.context`
    and the exam set write it; any other text is one fact (none when empty)."""
    try:
        parsed = json.loads(context)
    except ValueError:
        parsed = None
    if isinstance(parsed, list) and all(isinstance(f, str) for f in parsed):
        return parsed
    return [context] if context.strip() else []


class SupportJudge(RubricJudge):
    """A judge of this package behind the rubric ``support``."""

    def __init__(self, judge: Judge) -> None:
        model = getattr(getattr(judge, "config", None), "model", None)
        name = f"{judge.name}:{model}" if model else judge.name
        super().__init__(support_rubric(name), ask=_not_asked)
        self.inner = judge
        """The judge that gives the verdicts."""

    def judge(self, reply: str, context: str = "") -> RubricVerdict:
        """The inner judge's verdict on ``reply``, the context's facts as verified facts."""
        verdict = self.inner.judge(reply, facts_of(context))
        return RubricVerdict(verdict.label, verdict.reason)

    def compare(self, a: str, b: str, context: str = "") -> Preference:
        """The inner judge's choice between ``a`` (shown first) and ``b``."""
        return _CHOICES[self.inner.compare(a, b, facts_of(context)).choice]

    def context(self, case: Case, run: Run) -> str:
        """The facts the SUT read from its environment after the run, as the verified
        facts (``key: value``, sorted), never what the agent says."""
        facts = [f"{key}: {value}" for key, value in sorted(run.ground_truth.items())]
        return json.dumps(facts, ensure_ascii=False)


def _not_asked(prompt: str) -> str:
    raise AssertionError("a SupportJudge asks its inner judge, never a bare model")


RULE = SupportJudge(RuleJudge())
"""The keyword judge as the support rubric (``evals judge --calibrate judge.rubric:RULE``)."""
RULE_V2 = SupportJudge(RuleJudgeV2())
"""The tuned keyword judge as the support rubric."""


def exam_lines(labels: Path, pairs: Path, split: str = "holdout") -> list[str]:
    """The labelled set in the evals' format (:func:`evals.checks.calibration.load_labels`):
    the replies of ``split``, each an attack when it attacks the judge and is labelled
    ``fail``, then every pair; the facts are each line's context."""
    lines = [
        json.dumps(
            {
                "reply": r.reply,
                "label": r.label,
                "context": json.dumps(r.facts, ensure_ascii=False),
                "attack": r.attack is not None and r.label == "fail",
            },
            ensure_ascii=False,
        )
        for r in load_labels(labels)
        if r.split == split
    ]
    lines += [
        json.dumps(
            {
                "better": p.better,
                "worse": p.worse,
                "context": json.dumps(p.facts, ensure_ascii=False),
            },
            ensure_ascii=False,
        )
        for p in load_pairs(pairs)
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m judge.rubric [--labels F] [--pairs F] [--split S] --out FILE``."""
    here = Path("cases/judge")
    parser = argparse.ArgumentParser(
        prog="python -m judge.rubric",
        description="Write the support judge's labelled set for `evals judge --calibrate`.",
    )
    parser.add_argument("--labels", type=Path, default=here / "labels.jsonl")
    parser.add_argument("--pairs", type=Path, default=here / "pairs.jsonl")
    parser.add_argument("--split", choices=SPLITS, default="holdout")
    parser.add_argument("--out", type=Path, required=True, help="the exam set, JSON Lines")
    options = parser.parse_args(argv)
    try:
        lines = exam_lines(options.labels, options.pairs, options.split)
    except LabelFileError as e:
        print(f"python -m judge.rubric: error: {e}", file=sys.stderr)
        return 2
    options.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {options.out}: {len(lines)} lines ({options.split} labels and every pair)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
