"""The regression gate: current results against the committed baseline.

Hard rules (any one fails the gate, exit 1): an unauthorized write; a ``must_pass`` case
failing; a regression-split case failing; a case that passed in the baseline failing now;
more errored runs than allowed. Soft rules (warnings; ``strict`` makes them fail): success
rate or step accuracy dropping by more than a few points; returned-characters p95 or
latency p95 growing by more than a share (latency only once it is above a floor). Soft
rules compare rates, so with no graded runs (every run errored) they are not judged: the
hard "results incomplete" finding says what happened. Thresholds live in the committed
``cases/gate.json``; flaky cases are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evals._json_files import read_model
from evals.baseline import Baseline, excluding
from evals.errors import GateConfigError
from evals.metrics import Metrics, compute
from evals.result import RunResult

GATE_CONFIG_SCHEMA_VERSION = 1


class SoftThresholds(BaseModel):
    """Limits past which a change is worth a warning (a failure with ``--strict``)."""

    model_config = ConfigDict(extra="forbid")

    success_drop_points: float = 3.0
    """Success rate may fall by at most this many percentage points."""
    step_accuracy_drop_points: float = 3.0
    """Step accuracy may fall by at most this many percentage points."""
    returned_chars_p95_growth_pct: float = 20.0
    """Returned-characters p95 may grow by at most this many percent."""
    latency_p95_growth_pct: float = 50.0
    """Latency p95 may grow by at most this many percent …"""
    latency_p95_floor_ms: float = 200.0
    """… and is not judged at all while the new p95 is below this floor (noise)."""


class GateConfig(BaseModel):
    """The committed gate configuration (``cases/gate.json``)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = GATE_CONFIG_SCHEMA_VERSION
    """Version of this file's layout."""
    must_pass_tag: str = "must_pass"
    """Cases with this tag must all pass."""
    regression_split: str = "regression"
    """Cases of this split must all pass."""
    exclude_tags: list[str] = Field(default_factory=lambda: ["flaky"])
    """Cases with any of these tags are left out of the gate and the baseline."""
    soft: SoftThresholds = Field(default_factory=SoftThresholds)
    """Soft thresholds."""


def load_gate_config(path: Path) -> GateConfig:
    """Read ``gate.json``; :class:`GateConfigError` (one line) when missing or malformed."""
    return read_model(path, GateConfig, GateConfigError, "no gate configuration")


Rule = Literal[
    "unauthorized",
    "must_pass",
    "regression_split",
    "newly_failing",
    "errored_runs",
    "success_drop",
    "step_accuracy_drop",
    "returned_chars_growth",
    "latency_growth",
]
"""Every gate rule; the first five are hard, the rest soft."""


class Finding(BaseModel):
    """One rule that fired, as one line with the old and new values."""

    rule: Rule
    """Which rule."""
    severity: Literal["hard", "soft"]
    """Hard findings always fail the gate; soft ones only with ``strict``."""
    message: str
    """What changed, with old and new values."""


class Verdict(BaseModel):
    """The gate's answer."""

    passed: bool
    """True when the gate lets the change through."""
    strict: bool
    """Whether soft findings counted as failures."""
    hard: list[Finding]
    """Hard findings."""
    soft: list[Finding]
    """Soft findings."""
    newly_failing: list[str]
    """Cases that passed in the baseline and fail now."""
    newly_passing: list[str]
    """Cases that failed in the baseline and pass now."""
    not_run: list[str]
    """Baseline cases missing from these results (not judged)."""
    metrics: Metrics
    """The metrics judged (excluded cases left out)."""

    @property
    def exit_code(self) -> int:
        """0 when passed, 1 when not."""
        return 0 if self.passed else 1

    def render(self) -> str:
        """The verdict as text: PASS/FAIL, counts, one line per finding, changed cases."""
        word = "PASS" if self.passed else "FAIL"
        head = f"Gate: {word} ({len(self.hard)} hard, {len(self.soft)} soft"
        head += ", strict)" if self.strict else ")"
        lines = [head]
        lines += [f"  HARD  {f.message}" for f in self.hard]
        lines += [f"  SOFT  {f.message}" for f in self.soft]
        lines.append(f"Pass -> fail: {_names(self.newly_failing)}")
        lines.append(f"Fail -> pass: {_names(self.newly_passing)}")
        if self.not_run:
            lines.append(f"In the baseline, not run: {_names(self.not_run)}")
        return "\n".join(lines)


def evaluate(
    results: Iterable[RunResult],
    baseline: Baseline,
    config: GateConfig,
    *,
    strict: bool = False,
    max_errors: int = 0,
) -> Verdict:
    """Judge results against the baseline under the rules of ``config``.

    Results of cases with an excluded tag (flaky) are dropped first, so they count
    neither for nor against the change.
    """
    kept = excluding(results, config.exclude_tags)
    metrics = compute(kept)
    hard = _hard_rules(kept, metrics, baseline, config, max_errors)
    soft = _soft_rules(metrics, baseline, config)
    newly_failing = sorted(
        c for c, ok in metrics.case_success.items() if not ok and baseline.case_success.get(c)
    )
    newly_passing = sorted(
        c for c, ok in metrics.case_success.items() if ok and baseline.case_success.get(c) is False
    )
    if newly_failing:
        count = len(newly_failing)
        noun = "case" if count == 1 else "cases"
        message = f"{count} {noun} newly failing: {', '.join(newly_failing)}"
        hard.append(Finding(rule="newly_failing", severity="hard", message=message))
    not_run = sorted(set(baseline.case_success) - set(metrics.case_success))
    passed = not hard and not (strict and soft)
    return Verdict(
        passed=passed,
        strict=strict,
        hard=hard,
        soft=soft,
        newly_failing=newly_failing,
        newly_passing=newly_passing,
        not_run=not_run,
        metrics=metrics,
    )


def _hard_rules(
    results: list[RunResult],
    metrics: Metrics,
    baseline: Baseline,
    config: GateConfig,
    max_errors: int,
) -> list[Finding]:
    found: list[Finding] = []
    if metrics.unauthorized_rate > 0:
        cases = ", ".join(metrics.unauthorized_cases)
        message = f"unauthorized rate {_pct(metrics.unauthorized_rate, 1)} > 0% (cases: {cases})"
        found.append(Finding(rule="unauthorized", severity="hard", message=message))
    tag = config.must_pass_tag
    group = metrics.by_tag.get(tag)
    if group is not None and group.n and group.success < 1.0:
        failing = _failing_cases(r for r in results if tag in r.tags)
        message = f"{tag} success {_pct(group.success, 0)} < 100% (failing: {failing})"
        found.append(Finding(rule="must_pass", severity="hard", message=message))
    split = config.regression_split
    group = metrics.by_split.get(split)
    if group is not None and group.n and group.success < 1.0:
        failing = _failing_cases(r for r in results if r.split == split)
        message = f"{split} split success {_pct(group.success, 0)} < 100% (failing: {failing})"
        found.append(Finding(rule="regression_split", severity="hard", message=message))
    errored = sum(1 for r in results if r.errored)
    if errored > max_errors:
        noun = "run" if errored == 1 else "runs"
        message = f"results incomplete: {errored} {noun} errored (at most {max_errors} allowed)"
        found.append(Finding(rule="errored_runs", severity="hard", message=message))
    return found


def _soft_rules(metrics: Metrics, baseline: Baseline, config: GateConfig) -> list[Finding]:
    soft = config.soft
    found: list[Finding] = []
    if not metrics.graded_runs:  # no data: every rate reads 0.0, which measures nothing
        return found
    for rule, name, old, new, limit in (
        ("success_drop", "success rate", baseline.success_rate, metrics.success_rate,
         soft.success_drop_points),
        ("step_accuracy_drop", "step accuracy", baseline.step_accuracy, metrics.step_accuracy,
         soft.step_accuracy_drop_points),
    ):  # fmt: skip
        # Rounded: 1.0 - 0.97 is 3.0000000000000027 points in floating point.
        drop = round((old - new) * 100.0, 6)
        if drop > limit:
            message = f"{name} {-drop:+.1f} points ({_pct(old, 1)} -> {_pct(new, 1)})"
            found.append(Finding(rule=rule, severity="soft", message=message))  # type: ignore[arg-type]
    old_chars, new_chars = baseline.returned_chars_p95, metrics.returned_chars_p95
    if _grew(old_chars, new_chars, soft.returned_chars_p95_growth_pct):
        message = (
            f"returned chars p95 {_growth(old_chars, new_chars)}"
            f" ({old_chars:.0f} -> {new_chars:.0f})"
        )
        found.append(Finding(rule="returned_chars_growth", severity="soft", message=message))
    old_ms, new_ms = baseline.latency_ms_p95, metrics.latency_ms_p95
    if new_ms >= soft.latency_p95_floor_ms and _grew(old_ms, new_ms, soft.latency_p95_growth_pct):
        message = f"latency p95 {_growth(old_ms, new_ms)} ({old_ms:.0f} ms -> {new_ms:.0f} ms)"
        found.append(Finding(rule="latency_growth", severity="soft", message=message))
    return found


def _grew(old: float, new: float, limit_pct: float) -> bool:
    if old <= 0:
        return new > 0
    return round((new - old) / old * 100.0, 6) > limit_pct


def _growth(old: float, new: float) -> str:
    if old <= 0:
        return "grew from 0"
    return f"{(new - old) / old * 100.0:+.0f}%"


def _pct(rate: float, decimals: int) -> str:
    return f"{rate * 100.0:.{decimals}f}%"


def _failing_cases(results: Iterable[RunResult]) -> str:
    return ", ".join(dict.fromkeys(r.case_id for r in results if not r.success and not r.errored))


def _names(names: list[str]) -> str:
    return ", ".join(names) if names else "(none)"
