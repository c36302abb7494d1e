"""The report that stands in while an evaluation runs (issue 23, item 2: a cheap stub):
all four files under the label say INCOMPLETE, the JSON reads back as a report of no run,
and the page is a few lines of escaped text with no script, style or template."""

from __future__ import annotations

from pathlib import Path

from evals.log.traces import RunMeta
from evals.report.files import load_report, report_paths, write_placeholder


def test_the_placeholder_says_the_evaluation_has_not_finished(tmp_path: Path) -> None:
    meta = RunMeta(
        run_id="20260101T000000Z-gate-abcdef",
        label="gate",
        suites=["<b>odd</b>"],
        sut="agent:SUT",
        planned_runs=12,
    )
    written = write_placeholder(tmp_path, meta)
    assert written == report_paths(tmp_path, "gate")
    metrics, read = load_report(tmp_path / "gate.json")
    assert metrics.runs == 0 and read.complete is False and read.run_id == meta.run_id
    note = "INCOMPLETE: not finished (still running, or killed), 0 of 12 runs finished"
    assert note in (tmp_path / "gate.md").read_text("utf-8")
    assert "evaluation incomplete" in (tmp_path / "gate.junit.xml").read_text("utf-8")
    page = (tmp_path / "gate.html").read_text("utf-8")
    assert note in page and "&lt;b&gt;odd&lt;/b&gt;" in page and "<b>" not in page
    assert "<script" not in page and "<style" not in page
    assert len(page) < 1000
