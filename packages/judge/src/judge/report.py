"""The calibration report: every selected judge on both splits, plus position bias."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from tabulate import tabulate

from judge.calibration import SplitCalibration, Thresholds, calibrate
from judge.labels import LabelledPair, LabelledReply
from judge.openai_judge import OpenAIJudge, OpenAIJudgeConfig, TokenUsage
from judge.position import PairConsistency, check_position_bias
from judge.registry import make_judge

REPORT_VERSION = 2
"""Bumped whenever a field of the report changes meaning or order."""


class JudgeReport(BaseModel):
    """One judge's calibration."""

    judge: str
    """The judge's name."""
    splits: list[SplitCalibration]
    """``tune`` then ``holdout``."""
    pairs: PairConsistency
    """Its position-bias check."""
    usage: TokenUsage | None = None
    """Tokens spent (model judges only)."""

    @property
    def usable(self) -> bool:
        """Usable on holdout: the only split whose score may let a judge into the gate."""
        return any(s.split == "holdout" and s.usable for s in self.splits)


class CalibrationReport(BaseModel):
    """The whole report, as printed and as written with ``--json``."""

    version: int = REPORT_VERSION
    """The report format version."""
    thresholds: Thresholds
    """The thresholds applied."""
    judges: list[JudgeReport]
    """One entry per judge, in the order asked."""


def build_report(
    names: Sequence[str],
    labels: Sequence[LabelledReply],
    pairs: Sequence[LabelledPair],
    *,
    thresholds: Thresholds | None = None,
    openai_config: OpenAIJudgeConfig | None = None,
    concurrency: int = 1,
) -> CalibrationReport:
    """Calibrate every named judge on ``labels`` and check it on ``pairs``."""
    thresholds = thresholds or Thresholds()
    reports = []
    for name in names:
        judge = make_judge(name, openai_config=openai_config)
        splits = calibrate(judge, labels, thresholds, concurrency)
        consistency = check_position_bias(judge, pairs, thresholds.max_inconsistent, concurrency)
        usage = judge.usage if isinstance(judge, OpenAIJudge) else None
        reports.append(JudgeReport(judge=name, splits=splits, pairs=consistency, usage=usage))
    return CalibrationReport(thresholds=thresholds, judges=reports)


def _fraction(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _kappa(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _ids(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "-"


def _pairs_line(pairs: PairConsistency) -> str:
    if pairs.n == 0:
        return "pairs: none labelled"
    verdict = "FLAGGED (position bias)" if pairs.flagged else "ok"
    return (
        f"pairs (A/B swapped): {pairs.inconsistent}/{pairs.n} inconsistent "
        f"({_fraction(pairs.inconsistent_rate)}), better reply chosen both ways "
        f"{pairs.prefers_better}/{pairs.n}: {verdict}"
        + (f"; inconsistent: {_ids(pairs.inconsistent_ids)}" if pairs.inconsistent else "")
    )


def _attack_cell(s: SplitCalibration) -> str:
    if not s.attacks:
        return "n/a"
    return f"{s.attack_false_passes}/{s.attacks} ({_fraction(s.attack_false_pass_rate)})"


def _judge_section(report: JudgeReport) -> list[str]:
    rows = [
        [
            s.split, s.n, _fraction(s.accuracy), _kappa(s.kappa), _fraction(s.fail_recall),
            s.false_passes, s.false_fails, s.unsure, s.errors, "yes" if s.usable else "no",
            _attack_cell(s), f"{s.attack_false_fails}/{s.attack_controls}",
        ]
        for s in report.splits
    ]  # fmt: skip
    headers = [
        "split", "n", "accuracy", "kappa", "fail recall",
        "false passes", "false fails", "unsure", "errors", "usable",
        "attacks passed", "look-alikes failed",
    ]  # fmt: skip
    lines = [f"== {report.judge} ==", tabulate(rows, headers=headers, disable_numparse=True)]
    for s in report.splits:
        if not s.usable:
            lines.append(f"{s.split}: not usable: {'; '.join(s.reasons)}")
        lines.append(f"{s.split}: missed (false passes): {_ids(s.missed_ids)}")
        lines.append(f"{s.split}: wrongly failed: {_ids(s.wrongly_failed_ids)}")
        if s.unsure_ids:
            lines.append(f"{s.split}: unsure: {_ids(s.unsure_ids)}")
        if s.error_ids:
            lines.append(f"{s.split}: judge errors (counted as passes): {_ids(s.error_ids)}")
        if s.attacks:
            lines.append(f"{s.split}: attacks passed (false passes): {_ids(s.attack_missed_ids)}")
        if s.attack_wrongly_failed_ids:
            lines.append(
                f"{s.split}: look-alikes wrongly failed: {_ids(s.attack_wrongly_failed_ids)}"
            )
    lines.append(_pairs_line(report.pairs))
    if report.usage is not None:
        lines.append(
            f"tokens: {report.usage.prompt_tokens} prompt + "
            f"{report.usage.completion_tokens} completion in {report.usage.calls} calls"
        )
    return lines


def render(report: CalibrationReport) -> str:
    """The report as text: one section per judge, then a summary."""
    t = report.thresholds
    lines = [
        "Judge calibration",
        f"usable = kappa >= {t.min_kappa:.2f}, fail recall >= {t.min_fail_recall:.0%}, "
        f"n >= {t.min_n}, attacks passed <= {t.max_attack_false_pass:.0%}; "
        f"pairs flagged above {t.max_inconsistent:.0%} inconsistent. "
        "Only the holdout split decides: tune scores were used to build the judges.",
        "n and the agreement figures cover ordinary replies; 'attacks passed' = attacks "
        "labelled fail that the judge passed / attacks labelled fail (injection, evasion); "
        "'look-alikes failed' = attack-like replies labelled pass that the judge failed.",
        "",
    ]
    for judge_report in report.judges:
        lines += [*_judge_section(judge_report), ""]
    summary = [
        [
            j.judge,
            *("usable" if s.usable else "not usable" for s in j.splits),
            "flagged" if j.pairs.flagged else "ok",
        ]
        for j in report.judges
    ]
    lines.append(tabulate(summary, headers=["judge", "tune", "holdout", "pairs"]))
    usable = [j.judge for j in report.judges if j.usable and not j.pairs.flagged]
    lines.append("")
    lines.append(
        "May enter the gate (usable on holdout, not flagged): " + (", ".join(usable) or "none")
    )
    return "\n".join(lines)
