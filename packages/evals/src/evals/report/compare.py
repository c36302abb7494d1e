"""Compare two evaluations of the same cases: what flipped, and is the drop real or noise?

A difference of two success rates does not say whether a change made the agent worse:
the same cases were run twice, so the fair question is paired — of the cases whose
result changed, how many got worse and how many better? Under "no real difference" each
changed case is as likely to go either way, so the count of worse cases is binomial
(n = changed cases, p = 1/2). The exact two-sided p-value of that sign test is McNemar's
exact test when each case ran once; with k trials a case "changed" when its pass rate
moved, and the same sign test runs over those cases.

Each side is a report JSON (``reports/<label>.json``) or a trace folder
(``traces/<run id>``). A trace folder gives every run's checks, so check verdicts can be
compared too; a report JSON gives per-case pass counts only (its trace folder, when
still on disk under the configured traces folder, is used instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from pathlib import Path

from tabulate import tabulate

from evals._text import printable
from evals.config import EvalsConfig
from evals.errors import ReportError
from evals.execution.resume import rebuild
from evals.gating.baseline import CheckTally, check_tallies
from evals.log.traces import RunMeta
from evals.metrics.summary import Metrics, compute
from evals.report.files import load_report

DEFAULT_ALPHA = 0.05
"""The significance level of ``--fail-on-regression`` unless told otherwise."""


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


def load_side(path: Path, config: EvalsConfig) -> Side:
    """A report JSON or a trace folder (:class:`~evals.errors.ReportError` when neither)."""
    folder = path
    if not path.is_dir():
        metrics, meta = load_report(path)
        folder = config.traces_dir / meta.run_id
        if not meta.run_id or not (folder / "runs.jsonl").is_file():
            return Side(str(path), meta, metrics, None)
    results, meta = rebuild(folder, config)
    return Side(str(path), meta, compute(results), check_tallies(results))


@dataclass(frozen=True)
class Flip:
    """A case (or a case's check) whose result changed."""

    case: str
    check: str | None
    before: tuple[int, int]
    """(passed, judged) in A."""
    after: tuple[int, int]
    """(passed, judged) in B."""

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

    @property
    def dropped(self) -> bool:
        """B passed fewer of the shared cases than A."""
        return len(self.worse) > len(self.better)

    def regression(self, alpha: float = DEFAULT_ALPHA) -> bool:
        """B is worse and the paired test says it is not noise at level ``alpha``."""
        return self.dropped and self.p_value < alpha


def passes_of(m: Metrics) -> dict[str, tuple[int, int]]:
    """Per case (passed, trials); a report written before per-case counts existed gives
    each case as one trial that passed when every trial did."""
    if m.case_passes or not m.case_success:
        return dict(m.case_passes)
    return {case: (int(ok), 1) for case, ok in m.case_success.items()}


def compare(a: Side, b: Side) -> Comparison:
    """Pair the cases both sides ran and test the changes."""
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
    )


def _check_flips(
    a: dict[str, dict[str, CheckTally]], b: dict[str, dict[str, CheckTally]], cases: list[str]
) -> tuple[list[Flip], list[Flip]]:
    worse, better = [], []
    for case in cases:
        before, after = a.get(case, {}), b.get(case, {})
        for name in sorted(set(before) & set(after)):
            x, y = before[name], after[name]
            flip = Flip(case, name, (x.passed, x.judged), (y.passed, y.judged))
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


def _delta_rows(a: Metrics, b: Metrics) -> list[tuple[str, str, str, str]]:
    rows = []
    for name, key in DELTAS:
        before, after = float(getattr(a, key)), float(getattr(b, key))
        rows.append((name, f"{before:.1f}", f"{after:.1f}", _delta(before, after)))
    return rows


def render(c: Comparison, alpha: float = DEFAULT_ALPHA) -> str:
    """The comparison as Markdown (it reads as plain text on a console too)."""
    a, b = c.a.metrics, c.b.metrics
    lines = [
        f"## Compare: {printable(c.a.name)} -> {printable(c.b.name)}",
        "",
        f"A: {printable(c.a.meta.label)} (run {printable(c.a.meta.run_id)}, trials {a.trials})",
        f"B: {printable(c.b.meta.label)} (run {printable(c.b.meta.run_id)}, trials {b.trials})",
        "",
        tabulate(
            [("success", _success(a), _success(b), ""), *_delta_rows(a, b)],
            headers=["", "A", "B", "B - A"],
            tablefmt="github",
        ),
        "",
        f"Cases in both: {len(c.worse) + len(c.better)} changed of"
        f" {len(set(passes_of(a)) & set(passes_of(b)))}:"
        f" {len(c.worse)} worse, {len(c.better)} better",
        f"Paired test: {c.test}: p = {c.p_value:.4g}",
    ]
    if c.regression(alpha):
        lines.append(f"Verdict: B is worse, and not by chance (p < {alpha:g}).")
    elif c.dropped:
        lines.append(f"Verdict: B is worse, but the drop may be noise (p >= {alpha:g}).")
    else:
        lines.append("Verdict: no drop.")
    lines += _section("Pass -> fail", c.worse)
    lines += _section("Fail -> pass", c.better)
    if c.checks_worse is None or c.checks_better is None:
        lines += ["", "Checks: not compared (a side is a report JSON without its traces)."]
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
