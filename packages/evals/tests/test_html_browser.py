"""The HTML report in a real browser: the system's headless Chromium, driven through
Playwright's Python API, opens a report with failures from disk (file://), finds a
failing case, opens its trace, reads a check's reason, and shows hostile case ids and
replies as text without running any script.

Nothing is downloaded: the test uses the Chromium the OS packages installed (``apt-get
install chromium``; ``.ci/run`` does it) or the one ``EVALS_CHROMIUM`` names, and is
skipped, saying what to install, when there is none."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from html_reports import (
    FAILING_ID,
    HOSTILE_GOAL,
    HOSTILE_GOT,
    HOSTILE_ID,
    HOSTILE_KEY,
    HOSTILE_REASON,
    HOSTILE_REPLY,
    PASSING_ID,
    write_hostile_report,
)

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""Executables looked for on PATH, in order."""


def _chromium() -> str | None:
    named = os.environ.get("EVALS_CHROMIUM")
    if named:
        return named
    return next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)


sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright is not installed: `uv sync --group browser` (the dev group has it)",
)
CHROMIUM = _chromium()
MISSING = (
    "no Chromium executable found (looked for EVALS_CHROMIUM, then "
    + ", ".join(CHROMIUM_NAMES)
    + " on PATH): install it with `apt-get install -y chromium`"
)
if CHROMIUM is None and os.environ.get("EVALS_REQUIRE_BROWSER") == "1":
    # CI (.ci/run) installs Chromium: there a missing browser is a failure, not a skip.
    pytest.fail(MISSING, pytrace=False)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=MISSING)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module, closed at its end."""
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[tuple[Any, list[str]]]:
    """The hostile report opened from disk, with every dialog (``alert`` …) and every
    request that leaves the file recorded."""
    report = write_hostile_report(tmp_path)
    context = browser.new_context(java_script_enabled=True)
    seen: list[str] = []
    tab = context.new_page()
    tab.on("dialog", lambda dialog: (seen.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    tab.on("pageerror", lambda error: seen.append(f"page error: {error}"))

    def request(req: Any) -> None:
        if not req.url.startswith("file://"):
            seen.append(f"request: {req.url}")

    tab.on("request", request)
    tab.goto(report.as_uri())
    try:
        yield tab, seen
    finally:
        context.close()


def test_a_failing_case_opens_its_trace_and_shows_a_checks_reason(
    page: tuple[Any, list[str]],
) -> None:
    tab, seen = page
    # The failures section lists the failing run; its link opens the run in the cases.
    link = tab.locator("#failures a.jump", has_text=f"{FAILING_ID}#0")
    link.click()
    run = tab.locator(f"details.run:has(.run-label:text-is('{FAILING_ID}#0'))")
    assert run.get_attribute("open") is not None
    failed = run.locator("table.checks tr.bad")
    assert failed.locator("td").nth(0).inner_text() == "outcome"
    assert failed.locator("td").nth(2).inner_text() == "FAILED"
    reason = failed.locator("td").nth(3).inner_text()
    assert reason.splitlines()[0] == "expected outcome 'replied', got 'escalate'"
    # Beside the reason, what was expected and what the run gave.
    assert failed.locator("pre.expected").inner_text() == "replied"
    assert failed.locator("pre.got").inner_text() == HOSTILE_GOT
    # Its trace: the refused step and the blocked call are marked, the approval shown.
    steps = run.locator("ol.timeline li:has(h4:text-is('steps'))")
    assert steps.locator("tr.marked").count() == 1
    assert "logistics_agent" in steps.locator("tr.marked").inner_text()
    blocked = run.locator("ol.timeline li:has(h4:text-is('blocked attempts'))")
    assert "create_ticket" in blocked.locator("tr.marked").inner_text()
    assert "human" in run.locator("ol.timeline li:has(h4:text-is('approvals'))").inner_text()
    assert seen == []


def test_cases_list_failing_first_and_filter(page: tuple[Any, list[str]]) -> None:
    tab, seen = page
    ids = tab.locator("#cases details.case .case-id").all_inner_texts()
    assert ids[-1] == PASSING_ID and set(ids[:-1]) == {FAILING_ID, HOSTILE_ID}
    tab.check("#failing-only")
    assert not tab.locator("#cases details.case.pass").is_visible()
    tab.uncheck("#failing-only")
    tab.fill("#filter", FAILING_ID)
    visible = [c for c in tab.locator("#cases details.case").all() if c.is_visible()]
    assert len(visible) == 1
    assert seen == []


def test_hostile_ids_and_replies_are_text_and_run_no_script(
    page: tuple[Any, list[str]],
) -> None:
    tab, seen = page
    tab.click("#expand")  # every case and trace open: every hostile string rendered
    case = tab.locator("#cases details.case", has=tab.locator(".case-id", has_text="alert(1)"))
    assert case.locator(".case-id").inner_text() == HOSTILE_ID
    run = case.locator("details.run")
    reply_row = run.locator("table.kv tr:has(th:text-is('reply')) td")
    assert reply_row.inner_text() == HOSTILE_REPLY
    assert HOSTILE_REASON in run.locator("table.checks tr.bad").inner_text()
    assert HOSTILE_KEY in run.locator("ol.timeline li:has(h4:text-is('detail'))").inner_text()
    # No element came from a case or a run: the page's one script, no image, no svg.
    assert tab.locator("script").count() == 1
    assert tab.locator("img, svg, iframe, b").count() == 0
    assert tab.evaluate("document.title").startswith("Evals report")
    assert seen == []  # no alert, no page error, no request beyond the file


def test_a_newly_failing_check_links_to_its_case_which_shows_what_it_asked(
    page: tuple[Any, list[str]],
) -> None:
    tab, seen = page
    link = tab.locator("#baseline-diff a.jump", has_text=f"{FAILING_ID}: outcome")
    link.click()
    case = tab.locator(f"details.case:has(.case-id:text-is('{FAILING_ID}'))")
    assert case.get_attribute("open") is not None
    spec = case.locator("div.case-spec")
    assert spec.is_visible()
    assert HOSTILE_GOAL in spec.locator("li:has(h4:text-is('input'))").inner_text()
    assert "timeout" in spec.locator("li:has(h4:text-is('faults'))").inner_text()
    assert "state_kept" in spec.locator("li:has(h4:text-is('expect'))").inner_text()
    assert seen == []  # the goal's markup ran nothing: the CSP and the escaping hold


def test_a_compare_flip_leads_to_both_runs_side_by_side(browser: Any, project: Path) -> None:
    import subprocess

    from helpers import subprocess_pythonpath

    def evals(*args: str, fail: str = "") -> int:
        # In a process of its own: Playwright's sync API holds this thread's event loop.
        env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(), "FAKE_SUT_FAIL": fail}
        command = [sys.executable, "-m", "evals", *args]
        return subprocess.run(command, cwd=project, env=env, check=False).returncode

    assert evals("run", "--label", "before", "--exclude-tag", "flaky") == 0
    assert evals("run", "--label", "after", "--exclude-tag", "flaky", fail="d01") in (0, 1)
    assert evals("compare", "reports/before.json", "reports/after.json", "--html", "c.html") == 0
    context = browser.new_context(java_script_enabled=True)
    seen: list[str] = []
    tab = context.new_page()
    tab.on("console", lambda msg: seen.append(f"console: {msg.text}"))
    tab.on("request", lambda req: None if req.url.startswith("file://") else seen.append(req.url))
    try:
        tab.goto((project / "c.html").as_uri())
        tab.locator("#flips a", has_text="d01").click()
        assert tab.evaluate("location.hash") == "#flip-1"
        flip = tab.locator("section#flip-1")
        assert flip.locator(".badge").inner_text() == "WORSE"
        sides = flip.locator("div.side")
        assert sides.count() == 2
        assert "replied" in sides.nth(0).inner_text() and "escalate" in sides.nth(1).inner_text()
        assert sides.nth(0).is_visible() and sides.nth(1).is_visible()
        assert seen == []  # nothing loaded, nothing refused by the CSP
    finally:
        context.close()


def test_cases_and_runs_are_rendered_only_when_opened(page: tuple[Any, list[str]]) -> None:
    """A page of 20,000 runs must paint at once: a case's block and its runs wait in an
    inert template until the case is opened (by a click, a link, or "open all")."""
    tab, seen = page
    assert tab.locator("details.run").count() == 0  # nothing of any run in the page yet
    assert tab.locator("template.lazy").count() == 3  # one per case
    case = tab.locator(f"details.case:has(.case-id:text-is('{PASSING_ID}'))")
    # The page renders on the "toggle" event, which the browser fires after the click
    # returns: wait for what it renders (expect retries), never count at once (CI flake).
    expect = sync_api.expect
    case.locator("summary").click()
    run = case.locator("details.run")
    expect(run).to_have_count(1)
    expect(run.locator("table.checks")).to_have_count(0)  # the run: closed
    run.locator("summary").click()
    expect(run.locator("table.checks tr").nth(1)).to_be_attached()  # a header and a check
    tab.click("#expand")
    expect(tab.locator("template.lazy")).to_have_count(0)
    expect(tab.locator("details.run")).to_have_count(3)
    assert seen == []


def test_a_link_to_a_check_opens_its_case_and_run_on_a_fresh_page(
    browser: Any, tmp_path: Path
) -> None:
    """A check's deep link pasted into a review: the check sits in a run's template inside
    its case's template, both rendered and opened on load; its expected and got shown."""
    report = write_hostile_report(tmp_path)
    text = report.read_text(encoding="utf-8")
    anchor = re.search(r'<tr class="bad" id="(run-\d+-check-\d+)">', text)
    assert anchor is not None
    context = browser.new_context(java_script_enabled=True)
    try:
        tab = context.new_page()
        tab.goto(f"{report.as_uri()}#{anchor.group(1)}")
        row = tab.locator(f"#{anchor.group(1)}")
        assert row.is_visible()
        assert row.locator("pre.expected").inner_text() == "replied"
        assert row.locator("pre.got").inner_text() == HOSTILE_GOT  # as text, not markup
        assert tab.evaluate("document.querySelectorAll('b').length") == 0
    finally:
        context.close()
