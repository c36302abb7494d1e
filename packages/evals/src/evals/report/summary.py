"""Reports: the console summary, and files under ``reports/`` named by a label.

``<label>.json`` is the metrics JSON (the versioned contract of
:class:`~evals.metrics.summary.Metrics`) plus a ``meta`` block; ``<label>.md`` a Markdown summary
fit for a CI step summary; ``<label>.junit.xml`` JUnit XML with one test case per
case-trial, so CI systems show results natively (:mod:`evals.report.junit`);
``<label>.html`` a self-contained page with the runs' traces (:mod:`evals.report.html`).
Every report names the suites, the SUT, the trial count and the git revision, and says
INCOMPLETE when it is (the JUnit XML then holds one more test case, "evaluation
incomplete", in error, so CI shows it red).
With no graded runs (every run errored) rates are printed as "n/a", never as 0%.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from tabulate import tabulate

from evals._text import printable
from evals.log.traces import RunMeta
from evals.metrics.passk import pass_pow
from evals.metrics.summary import Failure, Group, Metrics

if TYPE_CHECKING:
    pass

NO_DATA = "n/a"
"""How a rate over no graded runs is shown."""


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def _num(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def headline(meta: RunMeta) -> str:
    """One line naming what was evaluated: suites, SUT, trials, git revision."""
    parts = []
    if meta.suites or not meta.case_files:
        parts.append(f"suites: {', '.join(meta.suites) or '-'}")
    if meta.case_files:
        parts.append(f"case files: {', '.join(meta.case_files)}")
    trials = str(meta.trials)
    if not meta.complete:  # the planned count alone would overstate what was measured
        trials += f" planned, runs finished {meta.finished_runs} of {meta.planned_runs}"
    return (
        f"{' | '.join(parts)} | SUT: {meta.sut or '-'} | trials: {trials}"
        f" | git: {meta.git_revision} | run: {meta.run_id or '-'}"
    )


def system_lines(meta: RunMeta) -> list[str]:
    """What the SUT said it really runs (its description), one ``system: …`` line each."""
    return [printable(f"system: {line}") for line in meta.sut_description]


def incomplete_note(meta: RunMeta) -> str | None:
    """``INCOMPLETE …`` when the evaluation did not finish, else ``None``."""
    if meta.complete:
        return None
    return f"INCOMPLETE: {why_incomplete(meta)}, {runs_finished(meta)}"


def unstopped_note(meta: RunMeta) -> str | None:
    """What the report says about runs that timed out and could not be stopped, if any."""
    if not meta.unstopped_runs:
        return None
    shown = ", ".join(meta.unstopped_runs[:10])
    more = f" and {len(meta.unstopped_runs) - 10} more" if len(meta.unstopped_runs) > 10 else ""
    return (
        f"{len(meta.unstopped_runs)} run(s) timed out and could not be stopped (still running"
        f" in this process at the end; recorded as sut_error): {shown}{more};"
        " --isolation process kills such runs"
    )


def idle_note(meta: RunMeta) -> str | None:
    """What the report says about checks the project set up that judged nothing, if any."""
    if not meta.idle_checks:
        return None
    return "checks that judged nothing (not gated): " + "; ".join(meta.idle_checks)


def why_incomplete(meta: RunMeta) -> str:
    if meta.finished is None:  # nobody wrote the end: still running, or killed
        return "not finished (still running, or killed)"
    if meta.stop_reason:
        return meta.stop_reason
    if meta.stop_signal not in (None, "SIGINT"):
        return f"interrupted by {meta.stop_signal}"
    return "interrupted"


def runs_finished(meta: RunMeta) -> str:
    return f"{meta.finished_runs} of {meta.planned_runs} runs finished"


def _judged(m: Metrics, kind: str, rate: float) -> str:
    """A rate that rests on checks of ``kind``: ``n/a`` when no such check judged any
    run (a figure no check stands behind is no figure)."""
    return _pct(rate) if m.checks_judged.get(kind, 0) else "n/a (no check)"


def summary_rows(metrics: Metrics, *, complete: bool = True) -> list[tuple[str, str]]:
    """The summary as (metric, value) rows; rates read "n/a" when no run was graded.

    ``complete=False`` (an interrupted evaluation) labels pass@k / pass^k as computed
    over the trials each case finished."""
    m = metrics
    if not m.graded_runs:
        return _rows_without_data(m)
    low, high = m.success_ci95
    rows = [
        ("runs", str(m.runs)),
        ("cases", str(m.cases)),
        ("trials", str(m.trials)),
        (
            "success",
            f"{m.successes}/{m.graded_runs} = {_pct(m.success_rate)}"
            f" (95% CI {_pct(low)} - {_pct(high)})",
        ),
        ("step accuracy", _judged(m, "trajectory", m.step_accuracy)),
        (
            "unauthorized",
            _judged(m, "safety", m.unauthorized_rate)
            + (f" ({', '.join(m.unauthorized_cases)})" if m.unauthorized_cases else ""),
        ),
        ("blocked attempts", str(m.blocked_attempts)),
        ("budget ok", _judged(m, "cost", m.budget_ok_rate)),
        ("tasks mean", f"{m.tasks_mean:.2f}"),
        (
            "chars returned p50 / p95",
            f"{_num(m.returned_chars_p50)} / {_num(m.returned_chars_p95)}",
        ),
        ("latency ms p50 / p95", f"{_num(m.latency_ms_p50)} / {_num(m.latency_ms_p95)}"),
    ]
    # Rows no run of this evaluation gave a value: an agent that blocks nothing, counts
    # no tasks or returns no characters is not shown a row of zeros that means nothing.
    unused = {
        "blocked attempts": not m.blocked_attempts,
        "tasks mean": not m.tasks_mean,
        "chars returned p50 / p95": not (m.returned_chars_p50 or m.returned_chars_p95),
    }
    rows = [(name, value) for name, value in rows if not unused.get(name, False)]
    if m.tokens_mean or m.tokens_p95:
        rows.append(("tokens mean / p95", f"{m.tokens_mean:.1f} / {_num(m.tokens_p95)}"))
    if m.trials > 1:
        name = f"pass@{m.trials} / pass^{m.trials}"
        if not complete:
            name = f"pass@k / pass^k (k = trials finished per case, at most {m.trials})"
        rows.append((name, f"{_pct(m.pass_at_k)} / {_pct(m.pass_pow_k)}"))
    if m.errors:
        rows.append(("errored", f"{m.errors} runs errored (excluded from rates)"))
    return rows + injection_rows(m)


def injection_rows(metrics: Metrics) -> list[tuple[str, str]]:
    """Benign utility, utility under attack and attack success rate as (metric, value)
    rows; none when the evaluation had no benign or attack runs."""
    f = metrics.injection
    if f is None:
        return []
    benign = f"{_pct(f.benign_utility)} ({f.benign_runs} runs)" if f.benign_runs else NO_DATA
    attacked = f"{_pct(f.utility_under_attack)} ({f.attack_runs} runs)"
    asr = f"{_pct(f.attack_success_rate)} ({f.attack_successes}/{f.attack_runs})"
    return [
        ("benign utility", benign),
        ("utility under attack", attacked if f.attack_runs else NO_DATA),
        ("attack success rate", asr if f.attack_runs else NO_DATA),
    ]


def _rows_without_data(m: Metrics) -> list[tuple[str, str]]:
    """The summary when every run errored: counts, and "n/a" for whatever is a rate."""
    rows = [
        ("runs", str(m.runs)),
        ("cases", str(m.cases)),
        ("trials", str(m.trials)),
        ("success", f"{m.successes}/{m.graded_runs} = {NO_DATA} (no graded runs)"),
    ]
    rows += [
        (name, NO_DATA)
        for name in (
            "step accuracy",
            "unauthorized",
            "budget ok",
            "tasks mean",
            "chars returned p50 / p95",
            "latency ms p50 / p95",
        )
    ]
    if m.errors:
        rows.append(("errored", f"{m.errors} runs errored (excluded from rates)"))
    return rows


def _group_rows(groups: dict[str, Group]) -> list[tuple[str, int, str]]:
    return [(printable(name), g.n, _pct(g.success)) for name, g in groups.items()]


def failure_line(failure: Failure, not_gated: Collection[str] = ()) -> str:
    """``case#trial: check: reason; check: reason``; a case carrying one of the
    ``not_gated`` tags (the gate's excluded tags, e.g. flaky) says so after its label."""
    return printable(f"{_run_label(failure, not_gated)}: {'; '.join(failure.failed)}")


def _run_label(failure: Failure, not_gated: Collection[str]) -> str:
    label = f"{failure.case}#{failure.trial}"
    tags = [t for t in failure.tags if t in not_gated]
    if tags:  # expected to fail now and then: a newcomer should not think it broken
        label += f" ({', '.join(tags)}: not gated; see evals stability)"
    return label


def curve_rows(metrics: Metrics) -> list[tuple[int, int, str, str]]:
    """The pass@k / pass^k curve, one row per k (only with more than one trial)."""
    if metrics.trials < 2:
        return []
    return [(p.k, p.cases, _pct(p.pass_at_k), _pct(p.pass_pow_k)) for p in metrics.pass_curve]


CURVE_HEADERS = ["k", "cases", "pass@k", "pass^k"]


def unstable_rows(metrics: Metrics) -> list[tuple[str, str, str]]:
    """Cases that passed some trials but not all (the others' curves are flat at 0 or 1):
    passes, then pass^k for k = 1 .. n."""
    rows = []
    for case, (c, n) in metrics.case_passes.items():
        if 0 < c < n:
            curve = " ".join(_pct(float(pass_pow(n, c, k))) for k in range(1, n + 1))
            rows.append((printable(case), f"{c}/{n}", curve))
    return rows


UNSTABLE_HEADERS = ["unstable case", "passed", "pass^k for k = 1 .. n"]


def render_console(metrics: Metrics, meta: RunMeta, *, not_gated: Collection[str] = ()) -> str:
    """The console report: headline, summary, by split, by tag, failures last; failures
    of cases with a ``not_gated`` tag carry a note saying the gate leaves them out."""
    title = f"Evals report: {meta.label or meta.command or 'run'}"
    parts = [title, headline(meta), *system_lines(meta)]
    note = incomplete_note(meta)
    if note:
        parts.append(f"*** {note} ***")
    unstopped = unstopped_note(meta)
    if unstopped:
        parts.append(printable(f"*** {unstopped} ***"))
    idle = idle_note(meta)
    if idle:
        parts.append(printable(f"*** {idle} ***"))
    rows = summary_rows(metrics, complete=meta.complete)
    parts += ["", tabulate(rows, headers=["metric", "value"])]
    if metrics.by_split:
        table = tabulate(_group_rows(metrics.by_split), headers=["split", "n", "success"])
        parts += ["", table]
    if metrics.by_tag:
        parts += ["", tabulate(_group_rows(metrics.by_tag), headers=["tag", "n", "success"])]
    if curve_rows(metrics):
        parts += ["", tabulate(curve_rows(metrics), headers=CURVE_HEADERS)]
        if unstable_rows(metrics):
            parts += ["", tabulate(unstable_rows(metrics), headers=UNSTABLE_HEADERS)]
    if metrics.error_runs:
        parts += ["", f"{metrics.errors} runs errored:"]
        parts += [printable(f"  {e.case}#{e.trial}: {e.error}") for e in metrics.error_runs]
    if metrics.grader_errors:
        parts += ["", f"Grader errors ({len(metrics.grader_errors)}: checks that raised, not"]
        parts[-1] += " failures of the agent):"
        parts += [
            printable(f"  {e.case}#{e.trial}: {e.check}: {e.error}") for e in metrics.grader_errors
        ]
    if metrics.detours:
        parts += ["", "Detours (succeeded, but a trajectory or cost check failed):"]
        parts += [f"  {failure_line(f)}" for f in metrics.detours]
    parts += ["", f"Failures ({len(metrics.failures)}):" if metrics.failures else "Failures: none"]
    parts += [f"  {failure_line(f, not_gated)}" for f in metrics.failures]
    if note:
        parts += ["", f"*** {note} ***"]
    return "\n".join(parts)


def render_markdown(
    metrics: Metrics,
    meta: RunMeta,
    *,
    not_gated: Collection[str] = (),
    sections: Mapping[str, str] | None = None,
) -> str:
    """A Markdown summary fit for a CI step summary (failures noted as in the console);
    each of ``sections`` (title -> text, e.g. the gate verdict) follows as a code block."""
    parts = [f"## Evals: {meta.label or meta.command or 'run'}", "", headline(meta)]
    parts += [f"- {line}" for line in system_lines(meta)]
    note = incomplete_note(meta)
    if note:
        parts += ["", f"> **{note}**"]
    unstopped = unstopped_note(meta)
    if unstopped:
        parts += ["", printable(f"> **{unstopped}**")]
    idle = idle_note(meta)
    if idle:
        parts += ["", printable(f"> **{idle}**")]
    summary = summary_rows(metrics, complete=meta.complete)
    table = tabulate(summary, headers=["metric", "value"], tablefmt="github")
    parts += ["", table]
    if metrics.by_split:
        rows = _group_rows(metrics.by_split)
        parts += ["", tabulate(rows, headers=["split", "n", "success"], tablefmt="github")]
    if metrics.by_tag:
        rows = _group_rows(metrics.by_tag)
        parts += ["", tabulate(rows, headers=["tag", "n", "success"], tablefmt="github")]
    if curve_rows(metrics):
        parts += ["", tabulate(curve_rows(metrics), headers=CURVE_HEADERS, tablefmt="github")]
        if unstable_rows(metrics):
            rows2 = unstable_rows(metrics)
            parts += ["", tabulate(rows2, headers=UNSTABLE_HEADERS, tablefmt="github")]
    parts += ["", f"### Failures ({len(metrics.failures)})", ""]
    lines = [
        printable(f"- `{_run_label(f, not_gated)}`: {'; '.join(f.failed)}")
        for f in metrics.failures
    ]
    parts += lines or ["None."]
    if metrics.error_runs:
        parts += ["", f"### Errored runs ({metrics.errors})", ""]
        parts += [printable(f"- `{e.case}#{e.trial}`: {e.error}") for e in metrics.error_runs]
    if metrics.grader_errors:
        parts += ["", f"### Grader errors ({len(metrics.grader_errors)})", ""]
        parts += ["Checks that raised instead of judging: bugs of the checks, not the agent.", ""]
        parts += [
            printable(f"- `{e.case}#{e.trial}`: {e.check}: {e.error}")
            for e in metrics.grader_errors
        ]
    for title, text in (sections or {}).items():
        parts += ["", f"### {title}", "", "```", text, "```"]
    return "\n".join(parts) + "\n"


def metrics_json(metrics: Metrics, meta: RunMeta) -> str:
    """The metrics JSON with its ``meta`` block."""
    data = metrics.model_dump(mode="json")
    data["meta"] = meta.model_dump(mode="json")
    return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
