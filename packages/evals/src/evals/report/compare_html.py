"""The compare page, ``evals compare A B --html FILE``: two evaluations of the same cases
side by side, what changed first.

One self-contained file, as the report is (no network; a CSP that allows the page's own
stylesheet by its SHA-256 and no script at all). It holds the verdict (a hard rule
breached first, never called noise), the rates of both sides, the paired test, then every
flipped case, worse ones first: its check flips, its steps aligned one by one with the
rows that differ marked, and both runs' records side by side (trial 0 of each, read from
the sides' trace folders; a side given as a report JSON whose traces are gone shows
counts only). Every string from a case or a run is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

from evals.report.compare import DEFAULT_ALPHA, Comparison, Flip, rate_rows, verdict_line
from evals.report.html import _ENV, Section, _inline, load_runs, trace_sections

SHOWN_TRIAL = 0
"""The trial of each side the page shows for a flipped case."""


@dataclass(frozen=True)
class FlipView:
    """One flipped case as the page shows it."""

    anchor: str
    """The element id (a number, never the case id)."""
    case: str
    """The case id."""
    worse: bool
    """Whether B passes it less often than A."""
    counts: str
    """``passed/judged`` in A and in B."""
    checks: list[tuple[str, str, str]]
    """Its checks that flipped: (check, A, B)."""
    steps: list[tuple[bool, str, str]]
    """Its steps aligned by position: (differ, A's, B's)."""
    a_trace: list[Section] | None
    """A's run (``None``: not in A's traces)."""
    b_trace: list[Section] | None
    """B's run."""


def _step(step: Any) -> str:
    """A step in one line: its values but the sequence number, joined."""
    if not isinstance(step, Mapping):
        return str(step)
    return " · ".join(str(v) for k, v in step.items() if k != "seq" and v not in (None, ""))


def aligned_steps(
    a: Mapping[str, Any] | None, b: Mapping[str, Any] | None
) -> list[tuple[bool, str, str]]:
    """The two runs' steps side by side, by position, each row marked when they differ
    (a step one run has and the other has not differs)."""
    steps_a = (a or {}).get("steps") or []
    steps_b = (b or {}).get("steps") or []
    rows = []
    for left, right in zip_longest(steps_a, steps_b):
        shown_a = "" if left is None else _step(left)
        shown_b = "" if right is None else _step(right)
        rows.append((shown_a != shown_b, shown_a, shown_b))
    return rows


def _check_rows(case: str, flips: Iterable[Flip] | None) -> list[tuple[str, str, str]]:
    return [
        (f.check or "", f"{f.before[0]}/{f.before[1]}", f"{f.after[0]}/{f.after[1]}")
        for f in flips or ()
        if f.case == case
    ]


def flip_views(
    c: Comparison,
    a_runs: Mapping[tuple[str, int], Mapping[str, Any]],
    b_runs: Mapping[tuple[str, int], Mapping[str, Any]],
) -> list[FlipView]:
    """Every flipped case, worse ones first, each with its checks, steps and runs."""
    views = []
    for number, (flip, worse) in enumerate(
        [*((f, True) for f in c.worse), *((f, False) for f in c.better)], start=1
    ):
        a = a_runs.get((flip.case, SHOWN_TRIAL))
        b = b_runs.get((flip.case, SHOWN_TRIAL))
        views.append(
            FlipView(
                anchor=f"flip-{number}",
                case=flip.case,
                worse=worse,
                counts=f"{flip.before[0]}/{flip.before[1]} -> {flip.after[0]}/{flip.after[1]}",
                checks=_check_rows(flip.case, [*(c.checks_worse or []), *(c.checks_better or [])]),
                steps=aligned_steps(a, b),
                a_trace=None if a is None else trace_sections(a),
                b_trace=None if b is None else trace_sections(b),
            )
        )
    return views


def _runs_of(folder: Path | None, cases: Iterable[str]) -> dict[tuple[str, int], dict[str, Any]]:
    return load_runs(folder, {(case, SHOWN_TRIAL) for case in cases})


def render_compare_html(c: Comparison, alpha: float = DEFAULT_ALPHA) -> str:
    """The compare page (see the module docstring)."""
    flipped = [f.case for f in (*c.worse, *c.better)]
    views = flip_views(c, _runs_of(c.a.folder, flipped), _runs_of(c.b.folder, flipped))
    style, style_source = _inline("report.css")
    shared = len(
        {*c.a.metrics.case_passes, *c.a.metrics.case_success}
        & {*c.b.metrics.case_passes, *c.b.metrics.case_success}
    )
    return _ENV.get_template("compare.html.j2").render(
        csp=f"default-src 'none'; style-src {style_source}; script-src 'none'",
        style=style,
        c=c,
        title=f"Compare: {c.a.meta.label or c.a.name} -> {c.b.meta.label or c.b.name}",
        verdict=verdict_line(c, alpha),
        rates=rate_rows(c),
        shared=shared,
        flips=views,
        checks_compared=c.checks_worse is not None and c.checks_better is not None,
    )
