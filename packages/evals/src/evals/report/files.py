"""The report files under ``reports/``, named by a label: JSON (the metrics contract),
Markdown, JUnit XML and HTML written together, and a JSON report read back."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from evals.errors import ReportError
from evals.gating.baseline import Baseline
from evals.io.files import write_atomic
from evals.io.json_files import first_problem, read_json_text
from evals.log.traces import RunMeta
from evals.metrics.summary import Metrics, compute
from evals.model.case import Case
from evals.model.result import RunResult
from evals.report.html import html_parts, load_runs, traced_pairs
from evals.report.junit import render_junit
from evals.report.summary import headline, incomplete_note, metrics_json, render_markdown

if TYPE_CHECKING:
    from evals.gating.verdict import Verdict


def report_paths(out_dir: Path, label: str) -> list[Path]:
    """The files :func:`write_reports` writes: JSON, Markdown, JUnit XML, HTML."""
    return [
        out_dir / f"{label}.json",
        out_dir / f"{label}.md",
        out_dir / f"{label}.junit.xml",
        out_dir / f"{label}.html",
    ]


def write_reports(
    out_dir: Path,
    label: str,
    metrics: Metrics,
    results: Sequence[RunResult],
    meta: RunMeta,
    *,
    not_gated: Collection[str] = (),
    sections: Mapping[str, str] | None = None,
    traces: Path | None = None,
    verdict: Verdict | None = None,
    cases: Sequence[Case] = (),
) -> list[Path]:
    """Write ``<label>.json``, ``<label>.md`` (with ``sections``, e.g. the gate verdict),
    ``<label>.junit.xml`` (with a ``gate verdict`` test case when ``verdict`` is given)
    and ``<label>.html`` (each run's trace read from the trace folder ``traces`` when
    given; the baseline diff of ``verdict`` when given; each of ``cases`` beside its
    runs) under ``out_dir``.

    Each file is replaced whole, in one step, through a temporary file of its own
    (:func:`evals.io.files.write_atomic`), so concurrent evaluations under one label never
    mix their texts; an ``OSError`` (no space, a folder in the way …) is raised as it
    is, leaving no temporary file behind."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path, junit_path, html_path = report_paths(out_dir, label)
    html = html_parts(
        metrics,
        meta,
        results,
        runs=load_runs(traces, traced_pairs(results)),
        verdict=verdict,
        not_gated=not_gated,
        trace_folder=traces.name if traces else "",
        specs=cases,
    )
    texts = {
        json_path: metrics_json(metrics, meta),
        md_path: render_markdown(metrics, meta, not_gated=not_gated, sections=sections),
        junit_path: render_junit(results, meta, verdict),
        html_path: html,
    }
    for path, text in texts.items():
        write_atomic(path, text)
    return list(texts)


PLACEHOLDER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<title>{title}</title></head>
<body><h1>{title}</h1><p>{note}</p><p>{headline}</p></body></html>
"""
"""The page that stands in while an evaluation runs: no style, no script, no template."""


def write_placeholder(out_dir: Path, meta: RunMeta) -> list[Path]:
    """Write the four report files of ``meta``'s label as an evaluation that has not
    finished (``INCOMPLETE``, no run yet), so the last report under that label never
    looks current while this one runs, nor after it is killed. Cheap: no run is graded,
    and the page is a few lines of text, not the report's template."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path, junit_path, html_path = report_paths(out_dir, meta.label)
    nothing = compute([])
    page = PLACEHOLDER_HTML.format(
        title=html.escape(f"Evals: {meta.label}"),
        note=html.escape(incomplete_note(meta) or "INCOMPLETE"),
        headline=html.escape(headline(meta)),
    )
    texts = {
        json_path: metrics_json(nothing, meta),
        md_path: render_markdown(nothing, meta),
        junit_path: render_junit([], meta),
        html_path: page,
    }
    for path, text in texts.items():
        write_atomic(path, text)
    return list(texts)


def load_report(path: Path) -> tuple[Metrics, RunMeta]:
    """Read a metrics JSON report back (for ``evals report PATH``)."""
    _, data = read_json_text(path, ReportError, "no such report")
    if not isinstance(data, dict):
        raise ReportError(path, "not a metrics JSON report (expected an object)")
    if "meta" not in data and _is_baseline(data):
        raise ReportError(path, "is a baseline, not a report; use `evals gate` to compare with it")
    try:
        meta = RunMeta.model_validate(data.pop("meta", {}))
        metrics = Metrics.model_validate(data)
    except ValidationError as e:
        raise ReportError(path, f"not a metrics JSON report: {first_problem(e)}") from e
    return metrics, meta


def _is_baseline(data: dict[str, object]) -> bool:
    try:
        Baseline.model_validate(data)
    except ValidationError:
        return False
    return True
