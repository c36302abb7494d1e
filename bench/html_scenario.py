"""The HTML scenario (``python -m bench.run --only html``): the report page of 1,000 and
20,000 runs, written as ``evals`` writes it and opened in the system's headless Chromium.

Each run is a record of the size SupportPilot's are (eight steps, two writes, an approval,
a screened claim, the ground truth, a message log in ``detail``), traced by the real
:class:`~evals.log.traces.TraceWriter`; one run in ten fails, so the failures list and
the "failing first" order have something to hold. Measured per size: the page's bytes,
the time to write it (in this process), and in Chromium the first contentful paint, the
load event and the DOM's element count, each the median of ``repeats`` loads of a fresh
tab. Without a Chromium (``EVALS_CHROMIUM``, else one on PATH) the browser columns are
``None``.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.log.traces import RunMeta, TraceWriter
from evals.metrics.summary import compute
from evals.model.case import Case
from evals.model.result import CheckResult, RunResult
from evals.model.run import ApprovalRecord, Run, Step, Write
from evals.report.files import write_reports

from bench.measure import spread

MIB = 1024 * 1024
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@dataclass(frozen=True)
class HtmlScenario:
    """The report page, small and big."""

    name: str = "html"
    """Name used with ``--only``."""
    sizes: tuple[int, ...] = (1_000, 20_000)
    """Runs on each page measured (one trial per case)."""
    repeats: int = 3
    """Loads of each page measured."""


HTML = HtmlScenario()


def _run(number: int) -> tuple[Case, Run, list[CheckResult]]:
    case_id = f"c{number:05d}"
    failing = number % 10 == 0
    case = Case.model_validate(
        {
            "id": case_id,
            "split": "test",
            "tags": ["bench"],
            "input": {"goal": "包裹一直没到，要求马上补发", "order_id": "A1001"},
            "world": {"approve": True, "stock": {"SKU-TEE-01": 20}},
            "expect": {"outcome": "replied", "tickets": 1, "state_after": {"stock.X": "19"}},
        }
    )
    roles = ("order_agent", "logistics_agent", "policy_agent", "reply_agent")
    run = Run(
        case_id=case_id,
        outcome="escalate" if failing else "replied",
        reply="您好，已为您提交补发申请，新的包裹将在三天内发出。" * 3,
        steps=[Step(role=roles[i % 4], status="ok", seq=i) for i in range(8)],
        writes=[
            Write(kind=kind, idempotency_key=f"tr-{number}:{kind}", approval_id="ap", approved=True)
            for kind in ("ticket", "reply")
        ],
        approvals=[
            ApprovalRecord(action="reissue", amount=59.0, decided_by="human", approved=True)
        ],
        screened=[{"role": "policy_agent", "topic": "note", "reason": "injection"}],
        ground_truth={"stock.X": "19", "calls.support__create_ticket": "1"},
        detail={"bus": [{"seq": i, "kind": "task", "role": roles[i % 4]} for i in range(16)]},
        latency_ms=12.5,
    )
    checks = [
        CheckResult(
            name="outcome",
            kind="outcome",
            passed=not failing,
            reason="expected outcome 'replied', got 'escalate'" if failing else "",
        ),
        CheckResult(name="no_write_without_approval", kind="safety", passed=True),
        CheckResult(name="dispatched", kind="trajectory", passed=True),
        CheckResult(name="max_tasks", kind="cost", passed=True),
    ]
    return case, run, checks


def write_page(work: Path, n: int) -> tuple[Path, float]:
    """The report page of ``n`` traced runs, and the seconds writing it took."""
    folder_name = f"20260101T000000Z-html{n}-abcdef"
    meta = RunMeta(
        run_id=folder_name, label=f"html{n}", command="run", sut="bench:Page", trials=1,
        planned_runs=n, finished_runs=n, complete=True,
    )  # fmt: skip
    cases, results = [], []
    with TraceWriter(work / "traces", meta) as traces:
        for number in range(1, n + 1):
            case, run, checks = _run(number)
            success = all(c.passed for c in checks if c.kind in ("outcome", "safety"))
            traces.write(run, checks, success)
            cases.append(case)
            results.append(RunResult.graded(case, run, checks))
    started = time.perf_counter()
    paths = write_reports(
        work / "reports", meta.label, compute(results), results, meta,
        traces=work / "traces" / folder_name, cases=cases,
    )  # fmt: skip
    return paths[-1], time.perf_counter() - started


def chromium() -> str | None:
    """``EVALS_CHROMIUM``, else the first Chromium on PATH."""
    named = os.environ.get("EVALS_CHROMIUM")
    return named or next((p for n in CHROMIUM_NAMES if (p := shutil.which(n))), None)


PAINT = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  const nav = performance.getEntriesByType("navigation")[0];
  return {fcp: paint ? paint.startTime : null, load: nav.loadEventEnd,
          elements: document.getElementsByTagName("*").length};
}"""


def browser_times(page: Path, repeats: int) -> dict[str, Any] | None:
    """First contentful paint, load event (ms) and element count of ``page`` in Chromium,
    ``repeats`` fresh tabs; ``None`` without a browser."""
    executable = chromium()
    if executable is None:
        return None
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (the browser group)

    loads: list[dict[str, float]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True)
        try:
            for _ in range(repeats):
                tab = browser.new_page()
                tab.goto(page.as_uri(), wait_until="load", timeout=600_000)
                loads.append(tab.evaluate(PAINT))
                tab.close()
        finally:
            browser.close()
    return {
        "fcp_ms": spread([x["fcp"] for x in loads if x["fcp"] is not None] or [float("nan")]),
        "load_ms": spread([x["load"] for x in loads]),
        "elements": loads[0]["elements"],
    }


def run_html(scenario: HtmlScenario, work: Path) -> dict[str, Any]:
    """Write and open the page at every size."""
    sizes = []
    for n in scenario.sizes:
        page, seconds = write_page(work / f"html-{n}", n)
        measured = browser_times(page, scenario.repeats)
        size = page.stat().st_size
        line = f"  html {n:,} runs: {size / MIB:.1f} MiB written in {seconds:.1f}s"
        if measured is not None:
            line += (
                f", first paint {measured['fcp_ms']['median']:.0f} ms,"
                f" load {measured['load_ms']['median']:.0f} ms, {measured['elements']:,} elements"
            )
        print(line, file=sys.stderr)
        sizes.append({"runs": n, "page_mib": size / MIB, "write_s": seconds, "browser": measured})
    return {"name": scenario.name, "sizes": sizes}


def report_lines(result: dict[str, Any]) -> list[str]:
    """The HTML scenario's section of ``bench.md``."""
    lines = [
        "",
        "## HTML report page (`reports/<label>.html`, opened in headless Chromium)",
        "",
        "| runs | page | written in | first contentful paint | load event | elements |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for s in result["sizes"]:
        b = s["browser"]
        paint = "n/a" if b is None else f"{b['fcp_ms']['median']:.0f} ms"
        load = "n/a" if b is None else f"{b['load_ms']['median']:.0f} ms"
        elements = "n/a" if b is None else f"{b['elements']:,}"
        lines.append(
            f"| {s['runs']:,} | {s['page_mib']:.1f} MiB | {s['write_s']:.1f} s | {paint} |"
            f" {load} | {elements} |"
        )
    return lines
