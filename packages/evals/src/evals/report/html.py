"""The HTML report: one self-contained file, ``reports/<label>.html``, for a browser.

The file needs nothing but itself (CSS and a little script inline; no network, no
fonts, no CDN), so it opens from disk or as a CI artifact. It holds the summary (headline,
success with its Wilson interval overall and per split and tag, errored runs, grader
errors), the gate's baseline diff when there was one, the failing runs, then every case
(failing cases first); each run opens its trace: every check with its verdict and reason,
then the fields of its :class:`~evals.model.run.Run` in the order the record declares them.

The trace is rendered generically, for any system under test: whatever the run holds is
shown, whatever is absent (``None``, empty) is skipped, and no field name is special but
for a small set of words that mark a row as refused or filtered (:data:`FLAGGED_FIELDS`,
:data:`FLAGGED_VALUES`). Rendering goes through jinja2 templates with autoescaping on:
every string from cases and runs is escaped, never trusted as markup; element ids are
numbers, never case ids.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape
from pydantic import BaseModel, ValidationError

from evals.gating.verdict import Verdict
from evals.log.traces import RUNS_FILE, RunMeta, TraceRecord, trace_lines
from evals.metrics.summary import Group, Metrics, wilson_interval
from evals.model.case import Case
from evals.model.result import CheckResult, RunResult
from evals.report.summary import (
    curve_rows,
    headline,
    idle_note,
    incomplete_note,
    summary_rows,
    system_lines,
    unstable_rows,
    unstopped_note,
)

VALUE_CHARS_MAX = 3000
"""A nested value (a message log in ``detail`` …) is shown up to this many characters of
its JSON; the rest is in the trace file, which the report names."""
TEXT_CHARS_MAX = 20_000
"""A text (a reply, an error) is shown up to this many characters; the rest is in the
trace file. With :data:`ROWS_MAX`, a run's part of the page has a bound whatever the SUT
returned (a run record itself may hold up to 16 MiB)."""
ROWS_MAX = 300
"""A list of a run (steps, writes, audit rows …) is shown up to this many entries."""

FLAGGED_FIELDS = ("blocked", "refused", "rejected", "screened", "dropped", "denied")
"""A list field whose name holds one of these words lists refused or filtered items:
every row is marked."""

FLAGGED_VALUES = frozenset(
    {"refused", "error", "sut_error", "timeout", "invalid_output", "rejected"}
)
"""A row holding one of these values (e.g. a step's status, a run's outcome) is marked."""

RUNS_SHOWN_PER_CASE = 5
"""A case's runs shown in full, failed and errored ones first; the page counts the others
(every run is in the trace file). Without a cap, 20,000 runs made a page of hundreds of
megabytes, and building it took gigabytes."""

PASSING_TRACES_SHOWN = 500
"""Passing runs whose trace the page holds, at most, in page order; the trace of every
failed or errored run shown is always there. A passing run past the budget shows its
checks and says where its trace is. Without a budget, a page of 20,000 one-trial cases
weighed 105 MiB and took 27 s to load in Chromium."""

HIDDEN_FIELDS = frozenset({"case_id", "trial"})
"""Run fields the run's heading shows already."""

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("evals.report", "templates"),
    autoescape=True,  # every string from a case or a run is text, never markup
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def value_text(value: object) -> str:
    """A check's expected or got value as the page shows it: a string as it is, anything
    else as indented JSON (characters as written, never escaped); cut at
    :data:`TEXT_CHARS_MAX` characters, saying so."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
    if len(text) <= TEXT_CHARS_MAX:
        return text
    rest = len(text) - TEXT_CHARS_MAX
    return f"{text[:TEXT_CHARS_MAX]}… ({rest:,} more characters: in the traces)"


_ENV.filters["value_text"] = value_text


@dataclass(frozen=True)
class Section:
    """One part of a run's trace: a field of the run, shown by its shape."""

    title: str
    """The field's name, words spaced."""
    shape: str
    """``table`` (a list of records), ``pairs`` (a mapping), ``items`` (a list of
    values) or ``text`` (one value)."""
    columns: list[str] = field(default_factory=list)
    """For ``table``: the column names."""
    rows: list[tuple[bool, list[str]]] = field(default_factory=list)
    """For ``table``: (marked, cells); for ``pairs``: (marked, [key, value])."""
    items: list[str] = field(default_factory=list)
    """For ``items``: the values; for ``text``: the one value."""
    flagged: bool = False
    """Whether any row is marked (refused, filtered, errored)."""


@dataclass(frozen=True)
class RunView:
    """One graded run as the report shows it."""

    anchor: str
    """The element id (a number, never the case id)."""
    label: str
    """``case#trial``."""
    status: str
    """``pass``, ``fail`` or ``error``."""
    outcome: str
    """What the run ended with."""
    checks: list[CheckResult]
    """Every check's verdict, failed ones first."""
    trace: list[Section] | None
    """The run's fields; ``None`` when no trace was recorded or the page leaves it out."""
    error: str | None
    """The error that ended the run."""
    over_budget: bool = False
    """The run passed and the page holds no trace of it (:data:`PASSING_TRACES_SHOWN`)."""


@dataclass(frozen=True)
class CaseView:
    """One case with its runs."""

    case_id: str
    """The case id."""
    split: str
    """Its split."""
    tags: list[str]
    """Its tags."""
    status: str
    """``fail`` when any graded run failed, else ``error`` when any errored, else ``pass``."""
    runs: list[RunView]
    """The runs shown in full (at most :data:`RUNS_SHOWN_PER_CASE`), by trial."""
    anchor: str = ""
    """The element id (a number, never the case id)."""
    spec: list[Section] = field(default_factory=list)
    """What the case asks and expects: its ``input``, ``world``, ``faults`` and
    ``expect``, each shown by its shape (empty when the page was not given the case)."""
    run_count: int = 0
    """All its runs."""
    not_shown: str = ""
    """What the runs not shown did, when some are not."""


def _words(name: str) -> str:
    return name.replace("_", " ")


def _text(value: str) -> str:
    """A string, cut to :data:`TEXT_CHARS_MAX` characters."""
    if len(value) > TEXT_CHARS_MAX:
        return f"{value[:TEXT_CHARS_MAX]} … ({len(value)} characters; the rest in {RUNS_FILE})"
    return value


def _first(values: list[Any]) -> tuple[list[Any], str]:
    """The first :data:`ROWS_MAX` entries, and what says how many were left out."""
    if len(values) <= ROWS_MAX:
        return values, ""
    return values[:ROWS_MAX], f"… {len(values) - ROWS_MAX} more of {len(values)} in {RUNS_FILE}"


def _cell(value: Any) -> str:
    """A value as one line of text: strings as they are (cut to :data:`TEXT_CHARS_MAX`),
    numbers as people read them (:func:`_decimal`), the rest as compact JSON."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float):
        return _decimal(value)
    text = _json(value)
    if len(text) > VALUE_CHARS_MAX:
        return f"{text[:VALUE_CHARS_MAX]} … ({len(text)} characters; the rest in {RUNS_FILE})"
    return text


def _decimal(value: float) -> str:
    """A float with at most three decimals (a latency of ``1.5631130008841865`` ms reads
    ``1.563``; ``59.0`` reads ``59``); one nearer 0 than 0.001 with three significant
    digits. The exact value stays in ``runs.jsonl``."""
    if not math.isfinite(value) or value == 0:
        return _json(value) if value else "0"
    if abs(value) < 0.001:
        return f"{value:.3g}"
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _block(value: Any) -> str:
    """A nested value as JSON, one line per item of a list (compact: a message log of
    a hundred entries stays readable without doubling the file), cut to
    :data:`VALUE_CHARS_MAX` characters."""
    if isinstance(value, list):
        text = "[\n" + ",\n".join(_json(v) for v in value) + "\n]"
    else:
        text = _json(value)
    if len(text) > VALUE_CHARS_MAX:
        return f"{text[:VALUE_CHARS_MAX]}\n… ({len(text)} characters; the rest in {RUNS_FILE})"
    return text


_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode
"""``json.dumps(value, ensure_ascii=False, default=str)`` without building an encoder per
value (``json.dumps`` makes one whenever an argument is not its default)."""


def _json(value: Any) -> str:
    return _ENCODE(value)


def _absent(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, list | dict) and not value)


def _marked(values: Iterable[Any]) -> bool:
    return any(isinstance(v, str) and v in FLAGGED_VALUES for v in values)


def trace_sections(run: Mapping[str, Any]) -> list[Section]:
    """The sections of a run's trace, from its JSON form, in field order: one-value
    fields together first (``run``), then each list or mapping field by its shape.
    Absent fields (``None``, empty) and counts of zero are skipped."""
    scalars: list[tuple[bool, list[str]]] = []
    sections: list[Section] = []
    for name, value in run.items():
        if name in HIDDEN_FIELDS or _absent(value):
            continue
        title = _words(name)
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            shown, more = _first(value)
            columns = list(dict.fromkeys(k for v in shown for k in v))
            whole = any(word in name for word in FLAGGED_FIELDS)
            rows = [
                (whole or _marked(v.values()), [_cell(v.get(c, "")) for c in columns])
                for v in shown
            ]
            if more:
                rows.append((False, [more, *[""] * (len(columns) - 1)]))
            flagged = any(marked for marked, _ in rows)
            sections.append(Section(title, "table", columns, rows, flagged=flagged))
        elif isinstance(value, list):
            shown, more = _first(value)
            items = [_cell(v) for v in shown] + ([more] if more else [])
            sections.append(Section(title, "items", items=items, flagged=_marked(value)))
        elif isinstance(value, dict):
            pairs = [
                (_marked([v]), [key, _block(v) if isinstance(v, dict | list) else _cell(v)])
                for key, v in value.items()
                if not _absent(v)
            ]
            flagged = "error" in name or any(marked for marked, _ in pairs)
            sections.append(Section(title, "pairs", rows=pairs, flagged=flagged))
        elif isinstance(value, str) and "\n" in value:
            sections.append(Section(title, "text", items=[_text(value)]))
        elif type(value) is int and value == 0:
            continue  # a count nothing added to (no rejected message, no character read)
        else:
            scalars.append((_marked([value]) or name == "error", [title, _cell(value)]))
    if scalars:
        head = Section("run", "pairs", rows=scalars, flagged=any(m for m, _ in scalars))
        sections.insert(0, head)
    return sections


CASE_FIELDS = ("input", "world", "faults", "expect")
"""What a case's block shows, beside its runs: what was asked, the world it starts from,
the faults injected and what a correct run does."""


def case_sections(case: Case) -> list[Section]:
    """The sections of a case's block (:data:`CASE_FIELDS`; unset expectations and
    empty fields left out), shaped as a run's are."""
    data = case.model_dump(mode="json", include=set(CASE_FIELDS), exclude_none=True)
    return [s for s in trace_sections({k: data.get(k) for k in CASE_FIELDS}) if s.title != "run"]


def _status(result: RunResult) -> str:
    if result.errored:
        return "error"
    return "pass" if result.success else "fail"


def _checks(result: RunResult) -> list[CheckResult]:
    """Failed checks first, then grader errors, then passed ones; each in its order."""
    return sorted(
        result.checks, key=lambda c: 0 if not c.passed and not c.grader_error else 1 + c.passed
    )


def shown_runs(found: Sequence[RunResult]) -> list[RunResult]:
    """The runs of one case the page shows in full: failed and errored ones first, then
    passing ones, each by trial, at most :data:`RUNS_SHOWN_PER_CASE`; by trial."""
    ranked = sorted(found, key=lambda r: (_status(r) == "pass", r.trial))
    return sorted(ranked[:RUNS_SHOWN_PER_CASE], key=lambda r: r.trial)


def _not_shown(found: Sequence[RunResult], shown: Sequence[RunResult]) -> str:
    rest = len(found) - len(shown)
    if not rest:
        return ""
    counts = {s: 0 for s in ("pass", "fail", "error")}
    for r in found:
        counts[_status(r)] += 1
    for r in shown:
        counts[_status(r)] -= 1
    words = {"pass": "passed", "fail": "failed", "error": "errored"}
    parts = ", ".join(f"{n} {words[s]}" for s, n in counts.items() if n)
    return f"{rest} more run{'s' if rest != 1 else ''} not shown: {parts}"


def by_case(results: Iterable[RunResult]) -> dict[str, list[RunResult]]:
    """The results grouped by case, in their order."""
    grouped: dict[str, list[RunResult]] = {}
    for r in results:
        grouped.setdefault(r.case_id, []).append(r)
    return grouped


_CASE_ORDER = {"fail": 0, "error": 1, "pass": 2}


def _case_status(found: Sequence[RunResult]) -> str:
    statuses = {_status(r) for r in found}
    return next(s for s in ("fail", "error", "pass") if s in statuses)


def traced_pairs(results: Iterable[RunResult], budget: int | None = None) -> set[tuple[str, int]]:
    """The (case, trial) of every run whose trace the page holds: each run shown in full
    that failed or errored, and the first ``budget`` passing ones (default
    :data:`PASSING_TRACES_SHOWN`) in page order (failing cases first, then errored, then
    passing; by id)."""
    budget = PASSING_TRACES_SHOWN if budget is None else budget
    grouped = by_case(results)
    pairs: set[tuple[str, int]] = set()
    passing = 0
    for case_id in sorted(grouped, key=lambda c: (_CASE_ORDER[_case_status(grouped[c])], c)):
        for r in shown_runs(grouped[case_id]):
            if _status(r) == "pass":
                if passing >= budget:
                    continue
                passing += 1
            pairs.add((r.case_id, r.trial))
    return pairs


def case_views(
    results: Iterable[RunResult],
    runs: Mapping[tuple[str, int], Mapping[str, Any]],
    cases: Mapping[str, Case] | None = None,
    *,
    budget: int | None = None,
) -> list[CaseView]:
    """Every case with the runs it shows (and, from ``cases``, what it asks and expects):
    failing cases first, then errored, then passing; by id within each. A passing run
    past the ``budget`` of passing traces (:func:`traced_pairs`) is shown without its
    trace, saying so."""
    known = cases or {}
    results = list(results)
    traced = traced_pairs(results, budget)
    views: list[CaseView] = []
    anchor = 0
    for number, (case_id, found) in enumerate(by_case(results).items(), start=1):
        run_views = []
        shown = shown_runs(found)
        for r in shown:
            anchor += 1
            pair = (r.case_id, r.trial)
            run = runs.get(pair) if pair in traced else None
            trace = None if run is None else trace_sections(run)
            run_views.append(
                RunView(
                    f"run-{anchor}",
                    r.label,
                    _status(r),
                    r.outcome,
                    _checks(r),
                    trace,
                    r.error,
                    over_budget=pair not in traced,
                )
            )
        status = _case_status(found)
        first = found[0]
        views.append(
            CaseView(
                case_id,
                first.split,
                list(first.tags),
                status,
                run_views,
                anchor=f"case-{number}",
                spec=case_sections(known[case_id]) if case_id in known else [],
                run_count=len(found),
                not_shown=_not_shown(found, shown),
            )
        )
    return sorted(views, key=lambda v: (_CASE_ORDER[v.status], v.case_id))


def _group_rows(groups: Mapping[str, Group]) -> list[list[str]]:
    rows = []
    for name, g in groups.items():
        low, high = wilson_interval(round(g.success * g.n), g.n)
        ci = f"{low * 100:.1f}% - {high * 100:.1f}%"
        rows.append([name, str(g.n), f"{g.success * 100:.1f}%", ci])
    return rows


def _diff(verdict: Verdict, case_anchors: Mapping[str, str]) -> dict[str, Any]:
    """The gate's part of the page: its findings, and each list of cases or (case: check)
    pairs that has any, every name linked to its case on the page."""
    failing_checks = [pair for pairs in verdict.newly_failing_checks.values() for pair in pairs]
    lists = [
        ("Newly failing cases", verdict.newly_failing),
        ("Newly passing cases", verdict.newly_passing),
        ("Newly failing checks (case: check)", failing_checks),
        ("Newly passing checks (case: check)", verdict.newly_passing_checks),
        ("Not in the baseline", verdict.not_in_baseline),
        ("Baseline cases not run", verdict.not_run),
    ]
    return {
        "passed": verdict.passed,
        "findings": [(f.severity, f.rule, f.message) for f in (*verdict.hard, *verdict.soft)],
        "lists": [
            (heading, [(name, _case_anchor(name, case_anchors)) for name in names])
            for heading, names in lists
            if names
        ],
    }


def _case_anchor(name: str, case_anchors: Mapping[str, str]) -> str:
    """The anchor of the case a diff entry names (``case`` or ``case: check``); ``""``
    when the page does not show it (a baseline case not run)."""
    if name in case_anchors:
        return case_anchors[name]
    return case_anchors.get(name.split(": ", 1)[0], "")


def _inline(name: str) -> tuple[str, str]:
    """A template of the page (its stylesheet, its script), and the CSP source that
    allows exactly that text inline: the page runs nothing else."""
    text = _ENV.loader.get_source(_ENV, name)[0]  # type: ignore[union-attr]
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return text, f"'sha256-{digest}'"


class _RunKey(BaseModel):
    """The (case, trial) of a trace record, read without building its run."""

    case_id: str
    trial: int


def load_runs(
    folder: Path | None, wanted: Collection[tuple[str, int]] | None = None
) -> dict[tuple[str, int], dict[str, Any]]:
    """The JSON form of the runs in a trace folder (only the ``wanted`` (case, trial)
    pairs, when given), by (case, trial); empty when there is no folder or no runs file
    yet. As when a report is rebuilt from traces, a torn last line (a kill mid-write) is
    no run, and the first record of a (case, trial) wins; a line that is no trace record
    is left out (the report shows that run untraced)."""
    if folder is None or not (folder / RUNS_FILE).is_file():
        return {}
    runs: dict[tuple[str, int], dict[str, Any]] = {}
    for line in trace_lines(folder):
        try:
            if wanted is not None:
                key = _RunKey.model_validate_json(line.text)
                if (key.case_id, key.trial) not in wanted:
                    continue
            record = TraceRecord.model_validate_json(line.text)
        except ValidationError:
            continue
        pair = (record.case_id, record.trial)
        if pair not in runs:
            runs[pair] = record.run.model_dump(mode="json")
    return runs


def html_parts(
    metrics: Metrics,
    meta: RunMeta,
    results: Sequence[RunResult],
    *,
    runs: Mapping[tuple[str, int], Mapping[str, Any]] | None = None,
    verdict: Verdict | None = None,
    not_gated: Collection[str] = (),
    trace_folder: str = "",
    specs: Iterable[Case] = (),
) -> Iterator[str]:
    """The HTML report (see the module docstring), in parts as the template makes them:
    written one by one, a long page is never one string in memory. ``runs``: the JSON
    form of each run by (case, trial), for the traces (a run without one says no trace
    was recorded); ``verdict``: the gate's, for the baseline diff; ``trace_folder``:
    named in the page; ``specs``: the cases, each shown beside its runs."""
    cases = case_views(results, runs or {}, {c.id: c for c in specs}, budget=PASSING_TRACES_SHOWN)
    anchors = {v.label: v.anchor for c in cases for v in c.runs}
    case_anchors = {c.case_id: c.anchor for c in cases}
    failures = [
        (anchors.get(f"{f.case}#{f.trial}") or case_anchors.get(f.case, ""),
         f"{f.case}#{f.trial}", f.failed,
         [t for t in f.tags if t in not_gated])
        for f in metrics.failures
    ]  # fmt: skip
    template = _ENV.get_template("report.html.j2")
    style, style_source = _inline("report.css")
    script, script_source = _inline("report.js")
    return template.generate(
        style=style,  # the package's own files (`safe` in the template), never a case's text
        script=script,
        csp=(
            f"default-src 'none'; style-src {style_source}; script-src {script_source};"
            " img-src data:"
        ),
        title=f"Evals report: {meta.label or meta.command or 'run'}",
        headline=headline(meta),
        system=system_lines(meta),
        incomplete=incomplete_note(meta),
        unstopped=unstopped_note(meta),
        idle=idle_note(meta),
        summary=summary_rows(metrics, complete=meta.complete),
        by_split=_group_rows(metrics.by_split),
        by_tag=_group_rows(metrics.by_tag),
        curve=curve_rows(metrics),
        unstable=unstable_rows(metrics),
        metrics=metrics,
        failures=failures,
        diff=_diff(verdict, case_anchors) if verdict is not None else None,
        cases=cases,
        trace_folder=trace_folder,
        budget=PASSING_TRACES_SHOWN,
        checks_block=ChecksBlocks(),
    )


def render_sections(shown: Iterable[Section], kind: str = "timeline") -> Markup:
    """A run's trace or a case's fields as HTML: an ``<ol class="{kind}">`` of its
    sections, each shown by its shape; every value escaped. The report page and the
    compare page call it from their templates (``sections(...)``). Written here rather
    than as a template macro: a page of 1,000 cases renders it 1,500 times, and a
    macro call with its loops cost about three times as much."""
    out = [f'<ol class="{escape(kind)}">\n']
    for s in shown:
        out.append('<li class="flagged">' if s.flagged else "<li>")
        out.append(f"<h4>{escape(s.title)}</h4>\n")
        if s.shape == "table":
            heads = "".join(f"<th>{escape(c)}</th>" for c in s.columns)
            out.append(f'<table class="records"><thead><tr><th>#</th>{heads}</tr></thead><tbody>\n')
            for number, (marked, cells) in enumerate(s.rows, start=1):
                flag = ' <span class="flag">✕</span>' if marked else ""
                tds = "".join(f"<td>{escape(cell)}</td>" for cell in cells)
                row = '<tr class="marked">' if marked else "<tr>"
                out.append(f"{row}<td>{number}{flag}</td>{tds}</tr>\n")
            out.append("</tbody></table>\n")
        elif s.shape == "pairs":
            out.append('<table class="kv">')
            for marked, cells in s.rows:
                value = escape(cells[1])
                shown_value = f"<pre>{value}</pre>" if "\n" in cells[1] else value
                row = '<tr class="marked">' if marked else "<tr>"
                out.append(f"{row}<th>{escape(cells[0])}</th><td>{shown_value}</td></tr>\n")
            out.append("</table>\n")
        elif s.shape == "items":
            items = "".join(f"<li>{escape(item)}</li>" for item in s.items)
            out.append(f'<ul class="items">{items}</ul>\n')
        else:
            out.append(f"<pre>{escape(s.items[0])}</pre>\n")
        out.append("</li>\n")
    out.append("</ol>\n")
    return Markup("".join(out))


_ENV.globals["sections"] = render_sections


class ChecksBlocks:
    """The checks part of each run's block (``checks.j2``), rendered once per distinct
    list of verdicts of a run that passed every check: such a block names no element of
    its own (only a failed check's row carries an id), so every run with the same shared
    verdicts (:class:`~evals.model.result.RunResult` shares equal ones) shows the same
    text. Thousands of passing runs then cost one rendering, not one each."""

    def __init__(self) -> None:
        self._macro = _ENV.get_template("checks.j2").module.checks  # type: ignore[attr-defined]
        # By (over budget, the verdicts' identities); each entry keeps its verdicts
        # alive, so that no identity is reused while the page is written.
        self._seen: dict[tuple[bool, tuple[int, ...]], tuple[list[CheckResult], Markup]] = {}

    def __call__(self, run: RunView) -> Markup:
        """The block of ``run``, as ``checks.j2`` renders it."""
        if run.error or any(not c.passed or c.grader_error for c in run.checks):
            return Markup(self._macro(run))
        key = (run.over_budget, tuple(map(id, run.checks)))
        seen = self._seen.get(key)
        if seen is None:
            seen = self._seen[key] = (run.checks, Markup(self._macro(run)))
        return seen[1]


def render_html(
    metrics: Metrics,
    meta: RunMeta,
    results: Sequence[RunResult],
    *,
    runs: Mapping[tuple[str, int], Mapping[str, Any]] | None = None,
    verdict: Verdict | None = None,
    not_gated: Collection[str] = (),
    trace_folder: str = "",
    specs: Iterable[Case] = (),
) -> str:
    """The HTML report as one string (see :func:`html_parts`)."""
    return "".join(
        html_parts(
            metrics,
            meta,
            results,
            runs=runs,
            verdict=verdict,
            not_gated=not_gated,
            trace_folder=trace_folder,
            specs=specs,
        )
    )
