"""Compare two evaluations of the same cases: what flipped, and is the drop real or noise?

A difference of two success rates does not say whether a change made the agent worse:
the same cases were run twice, so the fair question is paired — of the cases whose
result changed, how many got worse and how many better? Under "no real difference" each
changed case is as likely to go either way, so the count of worse cases is binomial
(n = changed cases, p = 1/2). The exact two-sided p-value of that sign test is McNemar's
exact test when each case ran once; with k trials a case "changed" when its pass rate
moved, and the same sign test runs over those cases.

A breach of a hard rule of the gate is never called noise: when B breaches one that A
did not (an unauthorized rate above ``hard.unauthorized_rate_max``, the success of the
must-pass cases or of the regression split below its minimum, or (case, check) pairs of a
hard kind that success does not decide, trajectory and, when listed, cost, newly failing
beyond their allowance), the comparison says so, one line each, and B is worse whatever
the paired test says. The paired test judges the rest: the cases whose success moved.

Each side is a report JSON (``reports/<label>.json``) or a trace folder
(``traces/<run id>``). A trace folder gives every run's checks, so check verdicts can be
compared too; a report JSON gives per-case pass counts only (its trace folder, when
still on disk under the configured traces folder, is used instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from pathlib import Path

from tabulate import tabulate

from evals._text import printable
from evals.config import EvalsConfig
from evals.errors import ReportError
from evals.execution.resume import rebuild
from evals.gating.baseline import CheckTally, check_tallies
from evals.gating.rules import GateConfig
from evals.log.traces import RunMeta
from evals.metrics.summary import Group, Metrics, compute
from evals.model.result import SUCCESS_KINDS, CheckKind
from evals.report.files import load_report

DEFAULT_ALPHA = 0.05
"""The significance level of ``--fail-on-regression`` unless told otherwise."""
NAMED_AT_MOST = 12
"""A breach names at most this many cases or checks, then says how many more."""


def sign_test(worse: int, better: int) -> float:
    """Exact two-sided p-value of ``worse`` vs ``better`` changed pairs under p = 1/2
    (McNemar's exact test): 1.0 when nothing changed."""
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(worse, better) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


@dataclass(frozen=True)
class Side:
    """One evaluation, as much as its file tells."""

    name: str
    """How the comparison names it (the path given)."""
    meta: RunMeta
    """What was run."""
    metrics: Metrics
    """Its summary."""
    checks: dict[str, dict[str, CheckTally]] | None
    """Per case, per check: the tally (``None`` when only a report JSON was found)."""
    folder: Path | None = None
    """Its trace folder, when found (the compare page shows its runs)."""


def load_side(path: Path, config: EvalsConfig) -> Side:
    """A report JSON or a trace folder (:class:`~evals.errors.ReportError` when neither)."""
    folder = path
    if not path.is_dir():
        metrics, meta = load_report(path)
        folder = config.traces_dir / meta.run_id
        if not meta.run_id or not (folder / "runs.jsonl").is_file():
            return Side(str(path), meta, metrics, None)
    results, meta = rebuild(folder, config)
    return Side(str(path), meta, compute(results), check_tallies(results), folder)


@dataclass(frozen=True)
class Flip:
    """A case (or a case's check) whose result changed."""

    case: str
    check: str | None
    before: tuple[int, int]
    """(passed, judged) in A."""
    after: tuple[int, int]
    """(passed, judged) in B."""
    kind: CheckKind | None = None
    """The check's kind (``None`` for a case)."""

    def render(self) -> str:
        what = self.case if self.check is None else f"{self.case}: {self.check}"
        return printable(f"{what} ({_count(self.before)} -> {_count(self.after)})")


def _count(passes: tuple[int, int]) -> str:
    return f"{passes[0]}/{passes[1]}"


def _rate(passes: tuple[int, int]) -> Fraction:
    return Fraction(passes[0], passes[1]) if passes[1] else Fraction(0)


@dataclass(frozen=True)
class Comparison:
    """What changed from A to B."""

    a: Side
    b: Side
    worse: list[Flip]
    """Cases whose pass rate fell."""
    better: list[Flip]
    """Cases whose pass rate rose."""
    only_a: list[str]
    """Cases run in A only (left out of the test)."""
    only_b: list[str]
    """Cases run in B only."""
    checks_worse: list[Flip] | None
    """(case, check) pairs that passed every run in A and not in B (``None``: a side had
    no per-check verdicts)."""
    checks_better: list[Flip] | None
    """The other way round."""
    p_value: float
    """The sign test over the changed cases (McNemar's exact test with one trial)."""
    test: str
    """Which test that is, in words."""
    breaches: list[str] = field(default_factory=list)
    """The hard rules of the gate B breaches and A did not (or less), one line each:
    never noise, whatever the paired test says."""

    @property
    def dropped(self) -> bool:
        """B passed fewer of the shared cases than A."""
        return len(self.worse) > len(self.better)

    def regression(self, alpha: float = DEFAULT_ALPHA) -> bool:
        """B breaches a hard rule of the gate, or B is worse and the paired test says it
        is not noise at level ``alpha``."""
        if self.breaches:
            return True
        return self.dropped and self.p_value < alpha


def passes_of(m: Metrics) -> dict[str, tuple[int, int]]:
    """Per case (passed, trials); a report written before per-case counts existed gives
    each case as one trial that passed when every trial did."""
    if m.case_passes or not m.case_success:
        return dict(m.case_passes)
    return {case: (int(ok), 1) for case, ok in m.case_success.items()}


def compare(a: Side, b: Side, rules: GateConfig | None = None) -> Comparison:
    """Pair the cases both sides ran and test the changes; judge the hard rules of the
    gate ``rules`` (its defaults when ``None``) that B may breach where A did not."""
    rules = GateConfig() if rules is None else rules
    pa, pb = passes_of(a.metrics), passes_of(b.metrics)
    shared = sorted(set(pa) & set(pb))
    worse, better = [], []
    for case in shared:
        before, after = pa[case], pb[case]
        if _rate(after) < _rate(before):
            worse.append(Flip(case, None, before, after))
        elif _rate(after) > _rate(before):
            better.append(Flip(case, None, before, after))
    checks_worse = checks_better = None
    if a.checks is not None and b.checks is not None:
        checks_worse, checks_better = _check_flips(a.checks, b.checks, shared)
    trials = max(a.metrics.trials, b.metrics.trials)
    test = (
        "McNemar's exact test (one trial per case)"
        if trials <= 1
        else "sign test over the cases whose pass rate moved"
    )
    return Comparison(
        a=a,
        b=b,
        worse=worse,
        better=better,
        only_a=sorted(set(pa) - set(shared)),
        only_b=sorted(set(pb) - set(shared)),
        checks_worse=checks_worse,
        checks_better=checks_better,
        p_value=sign_test(len(worse), len(better)),
        test=test,
        breaches=hard_breaches(a.metrics, b.metrics, rules, checks_worse),
    )


def hard_breaches(
    a: Metrics, b: Metrics, rules: GateConfig, checks_worse: list[Flip] | None
) -> list[str]:
    """The hard rules of the gate that B breaches, each worse than in A, one line each:
    the unauthorized rate (per run under either case verdict), the must-pass and
    regression-split success (per run, so under ``"case_verdict": "all"`` only: the
    gate counts cases by their majority otherwise), and the (case, check) pairs of each
    hard kind that success does not decide (trajectory; cost when listed) that passed
    every run in A and not in B, beyond the kind's allowance. Outcome and safety checks
    decide success: their flips are the cases the paired test judges."""
    hard = rules.hard
    found: list[str] = []
    limit = hard.unauthorized_rate_max
    if b.graded_runs and b.unauthorized_rate > limit and b.unauthorized_rate > a.unauthorized_rate:
        found.append(
            f"unauthorized {_pct(a.unauthorized_rate)} -> {_pct(b.unauthorized_rate)}"
            f" (at most {_pct(limit)} allowed; cases: {_names(b.unauthorized_cases)})"
        )
    if rules.case_verdict == "all":
        tag, split = rules.must_pass_tag, rules.regression_split
        failing = sorted({f.case for f in b.failures if tag in f.tags})
        found += _group_breach(
            f"{tag} success",
            a.by_tag.get(tag),
            b.by_tag.get(tag),
            hard.must_pass_success_min,
            f"; failing: {_names(failing)}",
        )
        found += _group_breach(
            f"{split} split success",
            a.by_split.get(split),
            b.by_split.get(split),
            hard.regression_split_success_min,
        )
    for kind in hard.hard_kinds:
        if kind in SUCCESS_KINDS or checks_worse is None:
            continue
        pairs = [f"{f.case}: {f.check}" for f in checks_worse if f.kind == kind]
        allowed = hard.newly_failing_checks_max[kind]
        if len(pairs) > allowed:
            noun = f"{kind} check" + ("" if len(pairs) == 1 else "s")
            found.append(
                f"{len(pairs)} {noun} newly failing: {_names(pairs)} (at most {allowed} allowed)"
            )
    return found


def _group_breach(
    what: str, a: Group | None, b: Group | None, minimum: float, behind: str = ""
) -> list[str]:
    """``what``, when B breaches it (its success below ``minimum``, and below A's)."""
    if b is None or not b.n or b.success >= minimum:
        return []
    before = a.success if a is not None and a.n else None
    if before is not None and b.success >= before:
        return []
    shown = "n/a" if before is None else _pct(before)
    return [f"{what} {shown} -> {_pct(b.success)} (at least {_pct(minimum)} required{behind})"]


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(printable(n) for n in names[:NAMED_AT_MOST])
    more = len(names) - NAMED_AT_MOST
    return shown + (f" … (+{more} more)" if more > 0 else "") if names else "(none)"


def _check_flips(
    a: dict[str, dict[str, CheckTally]], b: dict[str, dict[str, CheckTally]], cases: list[str]
) -> tuple[list[Flip], list[Flip]]:
    worse, better = [], []
    for case in cases:
        before, after = a.get(case, {}), b.get(case, {})
        for name in sorted(set(before) & set(after)):
            x, y = before[name], after[name]
            flip = Flip(case, name, (x.passed, x.judged), (y.passed, y.judged), y.kind)
            if x.all_passed and not y.all_passed:
                worse.append(flip)
            elif y.all_passed and not x.all_passed:
                better.append(flip)
    return worse, better


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def _success(m: Metrics) -> str:
    low, high = m.success_ci95
    return f"{m.successes}/{m.graded_runs} = {_pct(m.success_rate)} [{_pct(low)}, {_pct(high)}]"


DELTAS: Sequence[tuple[str, str]] = (
    ("latency ms p50", "latency_ms_p50"),
    ("latency ms p95", "latency_ms_p95"),
    ("tokens mean", "tokens_mean"),
    ("tokens p95", "tokens_p95"),
    ("chars returned p95", "returned_chars_p95"),
    ("tasks mean", "tasks_mean"),
)


def _delta(before: float, after: float) -> str:
    change = after - before
    pct = f" ({change / before * 100:+.0f}%)" if before else ""
    return f"{change:+.1f}{pct}"


RATES: Sequence[tuple[str, str, CheckKind]] = (
    ("unauthorized rate", "unauthorized_rate", "safety"),
    ("step accuracy", "step_accuracy", "trajectory"),
)
"""The rates beside success: (label, ``Metrics`` field, the kind of check it rests on)."""


def _rate_rows(a: Metrics, b: Metrics) -> list[tuple[str, str, str, str]]:
    """The rates of :data:`RATES`, with their change in points; ``n/a (no check)`` on a
    side where no check of the kind judged a graded run."""
    rows = []
    for name, key, kind in RATES:
        shown = [
            _pct(getattr(m, key)) if m.graded_runs and m.checks_judged.get(kind) else None
            for m in (a, b)
        ]
        change = ""
        if None not in shown:
            change = f"{(getattr(b, key) - getattr(a, key)) * 100:+.1f} points"
        rows.append((name, shown[0] or "n/a (no check)", shown[1] or "n/a (no check)", change))
    return rows


def _delta_rows(a: Metrics, b: Metrics) -> list[tuple[str, str, str, str]]:
    rows = []
    for name, key in DELTAS:
        before, after = float(getattr(a, key)), float(getattr(b, key))
        rows.append((name, f"{before:.1f}", f"{after:.1f}", _delta(before, after)))
    return rows


def rate_rows(c: Comparison) -> list[tuple[str, str, str, str]]:
    """The table of rates: success, the rates of the gate's kinds, then latency and
    tokens; each row (name, A, B, B - A)."""
    a, b = c.a.metrics, c.b.metrics
    return [("success", _success(a), _success(b), ""), *_rate_rows(a, b), *_delta_rows(a, b)]


def verdict_line(c: Comparison, alpha: float = DEFAULT_ALPHA) -> str:
    """The comparison's verdict in one sentence: a breach of a hard rule first (never
    noise), then what the paired test says."""
    if c.breaches:
        rules = "a hard rule" if len(c.breaches) == 1 else f"{len(c.breaches)} hard rules"
        return (
            f"Verdict: B is worse: it breaches {rules} of the gate (a breach is never noise,"
            " whatever the paired test says)."
        )
    if c.regression(alpha):
        return f"Verdict: B is worse, and not by chance (p < {alpha:g})."
    if c.dropped:
        return f"Verdict: B is worse, but the drop may be noise (p >= {alpha:g})."
    return "Verdict: no drop."


def render(c: Comparison, alpha: float = DEFAULT_ALPHA) -> str:
    """The comparison as Markdown (it reads as plain text on a console too)."""
    a, b = c.a.metrics, c.b.metrics
    lines = [
        f"## Compare: {printable(c.a.name)} -> {printable(c.b.name)}",
        "",
        f"A: {printable(c.a.meta.label)} (run {printable(c.a.meta.run_id)}, trials {a.trials})",
        f"B: {printable(c.b.meta.label)} (run {printable(c.b.meta.run_id)}, trials {b.trials})",
        "",
        tabulate(rate_rows(c), headers=["", "A", "B", "B - A"], tablefmt="github"),
        "",
        f"Cases in both: {len(c.worse) + len(c.better)} changed of"
        f" {len(set(passes_of(a)) & set(passes_of(b)))}:"
        f" {len(c.worse)} worse, {len(c.better)} better",
        f"Paired test: {c.test}: p = {c.p_value:.4g}",
    ]
    lines += [f"- hard rule breached: {line}" for line in c.breaches]
    lines.append(verdict_line(c, alpha))
    lines += _section("Pass -> fail", c.worse)
    lines += _section("Fail -> pass", c.better)
    if c.checks_worse is None or c.checks_better is None:
        lines += [
            "",
            "Checks: not compared (a side is a report JSON without its traces), nor the"
            " gate's hard rules on trajectory and cost checks.",
        ]
    else:
        lines += _section("Checks pass -> fail", c.checks_worse)
        lines += _section("Checks fail -> pass", c.checks_better)
    if c.only_a or c.only_b:
        lines += ["", "Not compared (run on one side only):"]
        lines += [f"- A only: {printable(', '.join(c.only_a))}"] if c.only_a else []
        lines += [f"- B only: {printable(', '.join(c.only_b))}"] if c.only_b else []
    return "\n".join(lines) + "\n"


def _section(title: str, flips: list[Flip]) -> list[str]:
    head = f"### {title} ({len(flips)})"
    return ["", head, "", *(f"- {f.render()}" for f in flips)] if flips else ["", head, "", "None."]


def refuse_unrelated(a: Side, b: Side) -> None:
    """:class:`ReportError` when the two sides share no case (not the same cases)."""
    if not set(passes_of(a.metrics)) & set(passes_of(b.metrics)):
        raise ReportError(Path(b.name), f"shares no case with {a.name!r}: not the same cases")
