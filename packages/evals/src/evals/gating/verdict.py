"""The regression gate: current results against the committed baseline.

Hard rules (each with its threshold in the ``hard`` section of ``cases/gate.json``; any
one fails the gate, exit 1): unauthorized rate; ``must_pass`` success; regression-split
success; cases that passed in the baseline and fail now; errored runs; and, per check
kind, (case, check) pairs that passed in the baseline and fail now — a kind left out of
``hard.newly_failing_checks_max`` is judged softly. Soft rules (warnings; ``strict``
makes them fail): success rate or step accuracy dropping by more than a few points;
returned-characters p95 or latency p95 growing by more than a share (latency only above
a floor); checks the baseline judged that no longer judge a case. Every finding names
the cases and checks behind it. Cases and checks the baseline does not know are listed
as "not in the baseline", never judged as regressions. Soft rules compare rates, so with
no graded runs (every run errored) they are not judged. Flaky cases are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from evals.errors import GateConfigError
from evals.execution.source_check import SourceWarning
from evals.gating.baseline import Baseline, check_tallies, excluding
from evals.gating.case_verdict import CaseVerdict, case_verdicts
from evals.gating.check_diff import CheckDiff
from evals.gating.rules import (
    GATE_CONFIG_SCHEMA_VERSION,
    GateConfig,
    HardRules,
    SoftThresholds,
    describe_defaults,
    load_gate_config,
)
from evals.log.traces import RunMeta
from evals.metrics.summary import Metrics, compute
from evals.model.result import CheckKind, RunResult
from evals.model.sut import short_name

__all__ = [
    "GATE_CONFIG_SCHEMA_VERSION",
    "Finding",
    "GateConfig",
    "GateConfigError",
    "HardRules",
    "SoftThresholds",
    "Verdict",
    "evaluate",
    "load_gate_config",
]


KIND_ORDER: tuple[CheckKind, ...] = ("outcome", "safety", "trajectory", "cost")
"""Check kinds in report order."""
NAMED_AT_MOST = 12
"""A finding lists at most this many cases or checks, then says how many more."""


Rule = Literal[
    "unauthorized",
    "must_pass",
    "regression_split",
    "newly_failing",
    "errored_runs",
    "grader_errors",
    "source_warnings",
    "baseline_mismatch",
    "newly_failing_checks",
    "success_drop",
    "step_accuracy_drop",
    "returned_chars_growth",
    "latency_growth",
    "no_longer_judged",
]
"""Every gate rule. ``newly_failing_checks`` is hard or soft per check kind (the
config says); the rules after it are soft."""


class Finding(BaseModel):
    """One rule that fired, as one line with the old and new values and what is behind
    them."""

    rule: Rule
    """Which rule."""
    severity: Literal["hard", "soft"]
    """Hard findings always fail the gate; soft ones only with ``strict``."""
    message: str
    """What changed, with old and new values, naming the cases and checks."""
    kind: CheckKind | None = None
    """For ``newly_failing_checks``: the check kind."""


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
    newly_failing_checks: dict[str, list[str]] = Field(default_factory=dict)
    """Per check kind: ``case: check`` pairs that passed in the baseline and fail now."""
    newly_passing_checks: list[str] = Field(default_factory=list)
    """``case: check`` pairs that failed in the baseline and pass now."""
    no_longer_judged: list[str] = Field(default_factory=list)
    """``case: check`` pairs the baseline has that judged none of the case's runs now."""
    not_in_baseline: list[str] = Field(default_factory=list)
    """Cases (``case``) and checks (``case: check``) the baseline does not know: listed,
    never judged as regressions."""
    not_run: list[str]
    """Baseline cases missing from these results (not judged)."""
    metrics: Metrics
    """The metrics judged (excluded cases left out)."""
    default_rules: bool = False
    """Judged under the built-in rules because no ``gate.json`` was given: the verdict
    says so, and lists them (:func:`evals.gating.rules.describe_defaults`)."""
    stopped_early: str | None = None
    """Why the evaluation stopped before its last run, when it stopped once the verdict
    could only be FAIL (``evals gate --fail-fast``): the cases not run are then counted,
    not listed."""

    @property
    def exit_code(self) -> int:
        """0 when passed, 1 when not."""
        return 0 if self.passed else 1

    def render(self) -> str:
        """The verdict as text: PASS/FAIL, counts, one line per finding, changed cases
        and checks."""
        word = "PASS" if self.passed else "FAIL"
        head = f"Gate: {word} ({len(self.hard)} hard, {len(self.soft)} soft"
        head += ", strict)" if self.strict else ")"
        lines = [head]
        lines += [f"  HARD  {f.message}" for f in self.hard]
        lines += [f"  SOFT  {f.message}" for f in self.soft]
        lines.append(f"Pass -> fail: {_names(self.newly_failing)}")
        lines.append(f"Fail -> pass: {_names(self.newly_passing)}")
        if self.newly_passing_checks:
            lines.append(f"Checks fail -> pass: {_names(self.newly_passing_checks)}")
        if self.not_in_baseline:
            lines.append(
                f"Not in the baseline (not judged): {_names(self.not_in_baseline, NAMED_AT_MOST)}"
            )
        if self.stopped_early is not None:
            lines.append(
                f"In the baseline, not run: {len(self.not_run):,} case(s): {self.stopped_early}"
            )
        elif self.not_run:
            lines.append(f"In the baseline, not run: {_names(self.not_run)}")
        if self.default_rules:
            lines += describe_defaults()
        return "\n".join(lines)


def evaluate(
    results: Iterable[RunResult],
    baseline: Baseline,
    config: GateConfig,
    *,
    strict: bool = False,
    max_errors: int | None = None,
    meta: RunMeta | None = None,
    source_warnings: Sequence[SourceWarning] | None = None,
    metrics: Metrics | None = None,
) -> Verdict:
    """Judge results against the baseline under the rules of ``config``.

    With ``meta`` (what was run), a baseline made from another run is a finding of its
    own: hard for another system under test, soft for other SUT options, another trial
    count or suites the baseline never saw.

    Results of cases with an excluded tag (flaky) are dropped first, so they count
    neither for nor against the change. ``max_errors`` overrides
    ``config.hard.errored_runs_max`` when given. ``source_warnings`` are what the
    compiler said of the code under test (:func:`evals.execution.source_check.check_sources`);
    ``None``: not checked. ``metrics``: those of ``results`` when they were computed
    already (a report's): reused when no result is dropped, so an evaluation computes
    its metrics once.
    """
    given = results if isinstance(results, Sequence) else list(results)
    kept = excluding(given, config.exclude_tags)
    if metrics is None or len(kept) != len(given):
        metrics = compute(kept)
    hard_rules = config.hard
    if max_errors is not None:
        hard_rules = hard_rules.model_copy(update={"errored_runs_max": max_errors})
    rule = config.case_verdict
    verdicts = case_verdicts(metrics.case_passes, rule)
    old, new = baseline.tallies(), check_tallies(kept)
    diff = CheckDiff(old, new, rule)
    newly_failing = sorted(
        c for c, ok in verdicts.items() if not ok and baseline.case_success.get(c)
    )
    newly_passing = sorted(
        c for c, ok in verdicts.items() if ok and baseline.case_success.get(c) is False
    )
    hard = _hard_rules(kept, metrics, config, hard_rules, verdicts)
    if baseline.case_verdict != rule:
        message = (
            f"the baseline judged cases by {baseline.case_verdict!r} trials, the gate config"
            f" by {rule!r}: regenerate it with `evals baseline`"
        )
        hard.append(Finding(rule="baseline_mismatch", severity="hard", message=message))
    mismatch = _baseline_mismatch(baseline, meta) if meta is not None else None
    if mismatch is not None and mismatch.severity == "hard":
        hard.append(mismatch)
    grader_errors = _grader_error_finding(metrics, hard_rules)
    if grader_errors is not None:
        hard.append(grader_errors)
    if source_warnings is not None and len(source_warnings) > hard_rules.source_warnings_max:
        shown = _names([w.render() for w in source_warnings], NAMED_AT_MOST)
        message = (
            f"{_count(len(source_warnings), 'compiler warning')} in the code under test"
            f" (at most {hard_rules.source_warnings_max} allowed): {shown}"
        )
        hard.append(Finding(rule="source_warnings", severity="hard", message=message))
    if len(newly_failing) > hard_rules.newly_failing_cases_max:
        hard.append(
            Finding(
                rule="newly_failing",
                severity="hard",
                message=f"{_count(len(newly_failing), 'case')} newly failing: "
                + _names(newly_failing, NAMED_AT_MOST),
            )
        )
    soft: list[Finding] = []
    for kind in KIND_ORDER:
        pairs = diff.newly_failing.get(kind, [])
        if not pairs:
            continue
        allowed = hard_rules.newly_failing_checks_max.get(kind)
        severity: Literal["hard", "soft"] = (
            "hard" if allowed is not None and len(pairs) > allowed else "soft"
        )
        message = (
            f"{_count(len(pairs), f'{kind} check')} newly failing: {_names(pairs, NAMED_AT_MOST)}"
        )
        (hard if severity == "hard" else soft).append(
            Finding(rule="newly_failing_checks", severity=severity, message=message, kind=kind)
        )
    if mismatch is not None and mismatch.severity == "soft":
        soft.append(mismatch)
    soft += _soft_rules(
        kept,
        metrics=metrics,
        baseline=baseline,
        soft=config.soft,
        newly_failing=newly_failing,
        diff=diff,
        failing_now=sorted(c for c, ok in verdicts.items() if not ok),
    )
    # A failing case's lost checks add nothing to its failure: only passing cases count.
    passing = {c for c, ok in verdicts.items() if ok}
    # A check that raised did not judge: reported as a grader error, not as lost sight.
    raised = {f"{e.case}: {e.check}" for e in metrics.grader_errors}
    lost_by_kind = {
        kind: [p for p in pairs if p.split(": ")[0] in passing and p not in raised]
        for kind, pairs in diff.no_longer_judged.items()
    }
    for kind in KIND_ORDER:
        lost = lost_by_kind.get(kind, [])
        if not lost:
            continue
        allowed = hard_rules.no_longer_judged_checks_max.get(kind)
        finding = Finding(
            rule="no_longer_judged",
            severity="hard" if allowed is not None and len(lost) > allowed else "soft",
            message=f"{_count(len(lost), f'{kind} check')} no longer judged: "
            + _names(lost, NAMED_AT_MOST),
            kind=kind,
        )
        (hard if finding.severity == "hard" else soft).append(finding)
    no_longer_judged = sorted(p for pairs in lost_by_kind.values() for p in pairs)
    not_in_baseline = sorted(set(new) - set(old)) + diff.not_in_baseline
    not_run = sorted(set(baseline.case_success) - set(metrics.case_success))
    passed = not hard and not (strict and soft)
    return Verdict(
        passed=passed,
        strict=strict,
        hard=hard,
        soft=soft,
        newly_failing=newly_failing,
        newly_passing=newly_passing,
        newly_failing_checks={k: v for k, v in diff.newly_failing.items() if v},
        newly_passing_checks=diff.newly_passing,
        no_longer_judged=no_longer_judged,
        not_in_baseline=not_in_baseline,
        not_run=not_run,
        metrics=metrics,
    )


def _group_success(
    results: list[RunResult],
    metrics: Metrics,
    verdicts: dict[str, bool],
    rule: CaseVerdict,
    *,
    tag: str | None = None,
    split: str | None = None,
) -> tuple[int, float]:
    """(n, success) of the runs with ``tag`` or of ``split``: per run under ``all``, per
    case (its majority verdict) under ``majority``."""
    if rule == "all":
        group = metrics.by_tag.get(tag) if tag is not None else metrics.by_split.get(split or "")
        return (group.n, group.success) if group is not None else (0, 0.0)
    cases = {r.case_id for r in results if not r.errored and (tag in r.tags or r.split == split)}
    judged = [verdicts[c] for c in cases if c in verdicts]
    return len(judged), (sum(judged) / len(judged) if judged else 0.0)


def _hard_rules(
    results: list[RunResult],
    metrics: Metrics,
    config: GateConfig,
    rules: HardRules,
    verdicts: dict[str, bool],
) -> list[Finding]:
    found: list[Finding] = []
    if metrics.graded_runs and metrics.unauthorized_rate > rules.unauthorized_rate_max:
        cases = _names(metrics.unauthorized_cases, NAMED_AT_MOST)
        message = (
            f"unauthorized rate {_pct(metrics.unauthorized_rate, 1)}"
            f" > {_pct(rules.unauthorized_rate_max, 0)} (cases: {cases})"
        )
        found.append(Finding(rule="unauthorized", severity="hard", message=message))
    tag, rule = config.must_pass_tag, config.case_verdict
    n, success = _group_success(results, metrics, verdicts, rule, tag=tag)
    if n and success < rules.must_pass_success_min:
        failing = _failing_cases((r for r in results if tag in r.tags), verdicts, rule)
        message = (
            f"{tag} success {_below(success, rules.must_pass_success_min)} (failing: {failing})"
        )
        found.append(Finding(rule="must_pass", severity="hard", message=message))
    split = config.regression_split
    n, success = _group_success(results, metrics, verdicts, rule, split=split)
    if n and success < rules.regression_split_success_min:
        failing = _failing_cases((r for r in results if r.split == split), verdicts, rule)
        message = (
            f"{split} split success {_below(success, rules.regression_split_success_min)}"
            f" (failing: {failing})"
        )
        found.append(Finding(rule="regression_split", severity="hard", message=message))
    errored = sum(1 for r in results if r.errored)
    if errored > rules.errored_runs_max:
        message = (
            f"results incomplete: {_count(errored, 'run')} errored"
            f" (at most {rules.errored_runs_max} allowed)"
        )
        found.append(Finding(rule="errored_runs", severity="hard", message=message))
    return found


def _sut_spec(described: str) -> str:
    """``module:attr`` of a SUT description (``module:attr (key=value, …)``)."""
    return described.split(" (", 1)[0]


def _options(described: str) -> str:
    """The options part of a SUT description (empty without options)."""
    return described.partition(" (")[2]


def same_system(one: str, other: str) -> bool:
    """Whether two SUT descriptions name one system (their options aside): the same
    ``module:attr``; or one is the bare name a baseline made from Python recorded before
    baselines named the import path (``RefundSUT``), and it is the other's last part
    (``refund_sut:RefundSUT``)."""
    a, b = _sut_spec(one), _sut_spec(other)
    if a == b:
        return True
    if ":" in a and ":" in b:
        return False
    return short_name(a) == short_name(b)


def _baseline_mismatch(baseline: Baseline, meta: RunMeta) -> Finding | None:
    """What differs between how the baseline was made and what was run, as one finding.

    Another system under test (``module:attr``) makes the comparison meaningless: hard.
    The same one with other options (a model brain against an offline baseline), another
    trial count, or suites the baseline never saw are worth saying but can be meant:
    soft. Gating a subset of the baseline's suites is fine (the rest is "not run")."""
    hard: list[str] = []
    soft: list[str] = []
    if baseline.sut and meta.sut and baseline.sut != meta.sut:
        other = not same_system(baseline.sut, meta.sut)
        if other or _options(baseline.sut) != _options(meta.sut):
            (hard if other else soft).append(f"SUT {meta.sut!r}, the baseline's {baseline.sut!r}")
    if baseline.trials != meta.trials:
        soft.append(f"{meta.trials} trial(s), the baseline's {baseline.trials}")
    extra = sorted(set(meta.suites) - set(baseline.suites))
    if baseline.suites and extra:
        soft.append(f"suite(s) {', '.join(extra)} not in the baseline's {baseline.suites}")
    if not (hard or soft):
        return None
    message = (
        "the baseline was made from another run: "
        + "; ".join(hard + soft)
        + " (regenerate it with `evals baseline`, or gate the run it was made from)"
    )
    severity: Literal["hard", "soft"] = "hard" if hard else "soft"
    return Finding(rule="baseline_mismatch", severity=severity, message=message)


def _grader_error_finding(metrics: Metrics, rules: HardRules) -> Finding | None:
    """The checks that raised: the gate cannot vouch for what they did not judge. Their
    own rule, never counted as the agent's failures nor as regressions."""
    errors = metrics.grader_errors
    if len(errors) <= rules.grader_errors_max:
        return None
    named = [f"{e.case}#{e.trial}: {e.check} ({e.error})" for e in errors]
    message = (
        f"{_count(len(errors), 'check')} raised instead of judging (grader errors, not"
        f" agent failures; at most {rules.grader_errors_max} allowed): "
        + _names(named, NAMED_AT_MOST)
    )
    return Finding(rule="grader_errors", severity="hard", message=message)


def _soft_rules(
    results: list[RunResult],
    *,
    metrics: Metrics,
    baseline: Baseline,
    soft: SoftThresholds,
    newly_failing: list[str],
    diff: CheckDiff,
    failing_now: list[str],
) -> list[Finding]:
    found: list[Finding] = []
    if not metrics.graded_runs:  # no data: every rate reads 0.0, which measures nothing
        return found
    behind_success = newly_failing or failing_now
    for rule, name, old, new, limit, behind in (
        ("success_drop", "success rate", baseline.success_rate, metrics.success_rate,
         soft.success_drop_points, behind_success),
        ("step_accuracy_drop", "step accuracy", baseline.step_accuracy, metrics.step_accuracy,
         soft.step_accuracy_drop_points, diff.cases_behind("trajectory")),
    ):  # fmt: skip
        # Rounded: 1.0 - 0.97 is 3.0000000000000027 points in floating point.
        drop = round((old - new) * 100.0, 6)
        if drop > limit:
            message = f"{name} {-drop:+.1f} points ({_pct(old, 1)} -> {_pct(new, 1)})"
            if behind:
                message += f"; behind it: {_names(behind, NAMED_AT_MOST)}"
            found.append(Finding(rule=rule, severity="soft", message=message))  # type: ignore[arg-type]
    graded = [r for r in results if not r.errored]
    old_chars, new_chars = baseline.returned_chars_p95, metrics.returned_chars_p95
    if _grew(old_chars, new_chars, soft.returned_chars_p95_growth_pct):
        above = _above(((r.case_id, float(r.chars_returned)) for r in graded), old_chars)
        message = (
            f"returned chars p95 {_growth(old_chars, new_chars)}"
            f" ({old_chars:.0f} -> {new_chars:.0f}); above the old p95: {above}"
        )
        found.append(Finding(rule="returned_chars_growth", severity="soft", message=message))
    old_ms, new_ms = baseline.latency_ms_p95, metrics.latency_ms_p95
    if new_ms >= soft.latency_p95_floor_ms and _grew(old_ms, new_ms, soft.latency_p95_growth_pct):
        above = _above(((r.case_id, r.latency_ms) for r in graded), old_ms)
        message = (
            f"latency p95 {_growth(old_ms, new_ms)} ({old_ms:.0f} ms -> {new_ms:.0f} ms);"
            f" above the old p95: {above}"
        )
        found.append(Finding(rule="latency_growth", severity="soft", message=message))
    return found


def _above(values: Iterable[tuple[str, float]], limit: float) -> str:
    """The cases with a value above ``limit``, largest first (each case once, with its
    largest value)."""
    largest: dict[str, float] = {}
    for case, value in values:
        if value > limit and value > largest.get(case, float("-inf")):
            largest[case] = value
    ranked = sorted(largest.items(), key=lambda item: (-item[1], item[0]))
    return _names([f"{case} {value:.0f}" for case, value in ranked], NAMED_AT_MOST)


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


def _below(rate: float, limit: float) -> str:
    """``rate < limit`` as percentages with as few decimals as show them apart: 88% <
    100%, but 99.9% < 100% (never "100% < 100%" for one failing case of a thousand)."""
    bound = f"{limit * 100.0:g}%"
    for decimals in range(4):
        shown = _pct(rate, decimals)
        if shown != _pct(limit, decimals):
            return f"{shown} < {bound}"
    return f"{_pct(rate, 4)} < {bound}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _failing_cases(
    results: Iterable[RunResult], verdicts: dict[str, bool], rule: CaseVerdict
) -> str:
    """The cases behind a failed group rule: with a failed run (``all``), or judged
    failing by their majority (``majority``)."""
    failing = (
        r.case_id
        for r in results
        if not r.errored and (not r.success if rule == "all" else not verdicts.get(r.case_id))
    )
    return ", ".join(dict.fromkeys(failing))


def _names(names: Sequence[str], at_most: int | None = None) -> str:
    if not names:
        return "(none)"
    if at_most is None or len(names) <= at_most:
        return ", ".join(names)
    return ", ".join(names[:at_most]) + f" … (+{len(names) - at_most} more)"
