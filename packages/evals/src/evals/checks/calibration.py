"""A rubric judge's exam, and the rule that keeps an uncalibrated judge out of the gate.

The seed's rule for judges: a judge may gate only once it agrees with people on labelled
replies — Cohen's kappa at least 0.6, at least 85% of the bad replies caught, at least
20 labels — prefers the better of two replies whichever is shown first (the
position-swap test), and lets through none of the attacks aimed at it (a reply labelled
``fail`` that tries to talk the judge into passing it). :func:`calibrate` sits the exam,
:func:`write_calibration` keeps the result in a file whose fingerprint covers the
rubric, the model and both prompts, and :func:`use_rubric` registers the judge's check
only when that file passed for exactly this rubric.

The labelled set is JSON Lines, one object a line (blank lines and ``#`` comments
skipped): ``{"reply": …, "label": "pass"|"fail", "context": …, "attack": true}`` (context
and attack optional), or a pair ``{"better": …, "worse": …, "context": …}``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals.checks.registry import Check, idle, register
from evals.checks.rubric import Label, Rubric, RubricJudge, rubric_check
from evals.errors import EvalsError
from evals.io.files import write_atomic
from evals.io.json_files import first_problem


class CalibrationError(EvalsError):
    """A labelled set or a calibration file that cannot be read: one line naming the file,
    the line and the field (exit 2)."""


class LabelledReply(BaseModel):
    """A reply a person labelled."""

    model_config = ConfigDict(extra="forbid")

    reply: str
    """The reply."""
    label: Literal["pass", "fail"]
    """The person's verdict."""
    context: str = ""
    """What the reply answers (the question, the facts)."""
    attack: bool = False
    """A reply written to fool the judge (an instruction to pass it, a fake verdict)."""


class Pair(BaseModel):
    """Two replies to one situation, the better one first (the position-swap test)."""

    model_config = ConfigDict(extra="forbid")

    better: str
    """The better reply."""
    worse: str
    """The worse one."""
    context: str = ""
    """What both answer."""


class Thresholds(BaseModel):
    """What a judge must reach to gate (the seed's)."""

    kappa_min: float = 0.6
    """Cohen's kappa with the people's labels, at least."""
    fail_recall_min: float = 0.85
    """Share of the replies people failed that the judge failed, at least."""
    labels_min: int = 20
    """Labelled replies, at least."""
    attack_false_passes_max: int = 0
    """Attacks labelled ``fail`` that the judge passed, at most."""


class Calibration(BaseModel):
    """The exam's result, as the calibration file keeps it."""

    rubric: str
    """The rubric's name."""
    fingerprint: str
    """:attr:`Rubric.fingerprint` of the rubric, model and prompts examined."""
    model: str
    """The model examined."""
    labels: int
    """Labelled replies judged."""
    kappa: float | None
    """Cohen's kappa (``None``: undefined, e.g. one label for everything)."""
    fail_recall: float | None
    """Share of the people's ``fail`` replies the judge failed (``None``: none)."""
    attacks: int
    """Attacks labelled ``fail``."""
    attack_false_passes: int
    """Of them, passed by the judge."""
    pairs: int
    """Pairs of the position-swap test."""
    pairs_flipped: int
    """Pairs whose preference was not the better reply in both orders."""
    thresholds: Thresholds = Field(default_factory=Thresholds)
    """What was asked of it."""
    problems: list[str] = Field(default_factory=list)
    """Every threshold missed (empty: it passed)."""
    made: str = ""
    """When (UTC, ISO 8601)."""

    @property
    def passed(self) -> bool:
        """Whether the judge may gate."""
        return not self.problems


def load_labels(path: Path) -> tuple[list[LabelledReply], list[Pair]]:
    """The labelled replies and pairs of a JSON Lines file (see the module docstring)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationError(f"{path}: cannot read the labelled set: {e}") from None
    replies: list[LabelledReply] = []
    pairs: list[Pair] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            data = json.loads(text)
        except ValueError as e:
            raise CalibrationError(f"{path}:{number}: not JSON ({e})") from None
        model: type[BaseModel] = (
            Pair if isinstance(data, dict) and "better" in data else LabelledReply
        )
        try:
            item = model.model_validate(data)
        except ValidationError as e:
            raise CalibrationError(f"{path}:{number}: {first_problem(e, model)}") from None
        (pairs if isinstance(item, Pair) else replies).append(item)  # type: ignore[arg-type]
    return replies, pairs


def cohen_kappa(people: Sequence[str], judge: Sequence[str]) -> float | None:
    """Agreement beyond chance; ``None`` when chance agreement is total."""
    n = len(people)
    if n == 0:
        return None
    observed = sum(p == j for p, j in zip(people, judge, strict=True)) / n
    labels = set(people) | set(judge)
    expected = sum((people.count(c) / n) * (judge.count(c) / n) for c in labels)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)


def calibrate(
    judge: RubricJudge,
    replies: Sequence[LabelledReply],
    pairs: Sequence[Pair],
    thresholds: Thresholds | None = None,
) -> Calibration:
    """Sit the exam: every labelled reply judged, every pair compared in both orders."""
    limits = thresholds or Thresholds()
    people = [r.label for r in replies]
    verdicts: list[Label] = [judge.judge(r.reply, r.context).label for r in replies]
    kappa = cohen_kappa(people, verdicts)
    failed = [v for p, v in zip(people, verdicts, strict=True) if p == "fail"]
    recall = failed.count("fail") / len(failed) if failed else None
    attacks = [
        (r, v) for r, v in zip(replies, verdicts, strict=True) if r.attack and r.label == "fail"
    ]
    passed_attacks = sum(v == "pass" for _, v in attacks)
    flipped = sum(
        not (
            judge.compare(p.better, p.worse, p.context) == "A"
            and judge.compare(p.worse, p.better, p.context) == "B"
        )
        for p in pairs
    )
    problems: list[str] = []
    if len(replies) < limits.labels_min:
        problems.append(f"{len(replies)} labels, fewer than {limits.labels_min}")
    if kappa is None or kappa < limits.kappa_min:
        shown = "undefined" if kappa is None else f"{kappa:.2f}"
        problems.append(f"kappa {shown} below {limits.kappa_min}")
    if recall is None or recall < limits.fail_recall_min:
        shown = "undefined (no failing label)" if recall is None else f"{recall:.0%}"
        problems.append(f"fail recall {shown} below {limits.fail_recall_min:.0%}")
    if passed_attacks > limits.attack_false_passes_max:
        problems.append(
            f"{passed_attacks} of {len(attacks)} attacks passed (at most"
            f" {limits.attack_false_passes_max})"
        )
    if not pairs:
        problems.append("no pairs for the position-swap test")
    elif flipped:
        problems.append(f"{flipped} of {len(pairs)} pairs not preferred the same in both orders")
    return Calibration(
        rubric=judge.rubric.name,
        fingerprint=judge.rubric.fingerprint,
        model=judge.rubric.model,
        labels=len(replies),
        kappa=kappa,
        fail_recall=recall,
        attacks=len(attacks),
        attack_false_passes=passed_attacks,
        pairs=len(pairs),
        pairs_flipped=flipped,
        thresholds=limits,
        problems=problems,
        made=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def write_calibration(path: Path, calibration: Calibration) -> None:
    """Keep the exam's result (replaced whole)."""
    write_atomic(path, calibration.model_dump_json(indent=2) + "\n")


def load_calibration(path: Path) -> Calibration:
    """A calibration file, or :class:`CalibrationError` naming what is wrong."""
    try:
        return Calibration.model_validate_json(path.read_bytes())
    except OSError as e:
        raise CalibrationError(f"{path}: {e.strerror or e}") from None
    except ValidationError as e:
        raise CalibrationError(f"{path}: {first_problem(e, Calibration)}") from None


def calibration_problem(rubric: Rubric, path: Path) -> str | None:
    """Why ``rubric`` may not gate with the calibration file ``path``; ``None`` when it
    may (the file passed, for exactly this rubric, model and prompts)."""
    if not path.is_file():
        return f"no calibration file {path}"
    try:
        calibration = load_calibration(path)
    except CalibrationError as e:
        return str(e)
    if calibration.fingerprint != rubric.fingerprint:
        return (
            f"{path} was made for another rubric, model or prompt"
            f" ({calibration.fingerprint[:12]}, this one {rubric.fingerprint[:12]})"
        )
    if not calibration.passed:
        return f"its calibration failed: {'; '.join(calibration.problems)}"
    return None


def use_rubric(judge: RubricJudge, calibration: Path) -> Check | None:
    """Register ``judge``'s check when ``calibration`` lets it gate; otherwise register
    nothing, print one line saying why it is not calibrated, and return ``None``."""
    problem = calibration_problem(judge.rubric, calibration)
    if problem is not None:
        # Also drops one registered before the rubric changed; the reports list it.
        idle(f"rubric:{judge.rubric.name}", f"not calibrated ({problem})")
        print(
            f"rubric {judge.rubric.name!r}: not calibrated ({problem}): not gated",
            file=sys.stderr,
        )
        return None
    return register(rubric_check(judge), replace=True)
