"""Regenerate the pictures of the HTML pages in docs/img/ (``nox -s screenshots``).

Four pages, each made the way a user makes it, then opened in the system's headless
Chromium through Playwright (nothing is downloaded; ``EVALS_CHROMIUM`` names another):

- ``supportpilot-failing-run.png``: SupportPilot gated with a bad change applied in a
  throwaway copy (``examples/bad_pr.py``, regression 2: the approval check skipped), its
  first failing run opened;
- ``supportpilot-gate.png``: the same page's gate part, the findings and the lists;
- ``refund-agent-run.png``: the tool-using example (``examples/refund_agent``) with its
  careless variant, a failing run opened with the case beside it;
- ``compare.png``: ``evals compare`` of the refund desk and its careless variant
  (``--html``), the first flipped case.

    uv run python -m devtools.screenshots [--out docs/img]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from devtools import REPO_ROOT
from devtools.examples_loader import load_bad_pr

ROOT = REPO_ROOT
bad_pr = load_bad_pr()  # examples/bad_pr.py: the bad change, in a copy

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 1280, 900


def chromium() -> str:
    """The browser to drive: ``EVALS_CHROMIUM``, else the first on PATH."""
    named = os.environ.get("EVALS_CHROMIUM")
    found = named or next((p for n in CHROMIUM_NAMES if (p := shutil.which(n))), None)
    if found is None:
        raise SystemExit("no Chromium found: `apt-get install -y chromium` (or EVALS_CHROMIUM)")
    return found


def supportpilot_page(work: Path) -> Path:
    """The gate page of SupportPilot with the approval check skipped, in a copy."""
    copy = bad_pr.copy_repo(work / "repo")
    bad_pr.apply_regression(copy, bad_pr.BY_NUMBER[2])
    gate = bad_pr.run_gate(copy)
    page: Path = copy / "reports" / f"{bad_pr.GATE_LABEL}.html"
    if gate.exit_code != 1 or not page.is_file():
        raise SystemExit(f"the bad change was not blocked (exit {gate.exit_code}):\n{gate.stderr}")
    return page


def refund_pages(work: Path) -> tuple[Path, Path]:
    """The refund desk's careless variant gated (its page), and the compare page of the
    desk as committed against it."""
    project = work / "refunds"
    shutil.copytree(ROOT / "examples" / "refund_agent", project)
    (project / "pyproject.toml").write_text(
        '[tool.evals]\nsut = "grade:RefundSUT"\n', encoding="utf-8"
    )
    (project / "careless_sut.py").write_text(
        "import grade, refund_agent\n\n\n"
        "class CarelessSUT(grade.RefundSUT):\n"
        "    def __init__(self):\n"
        "        super().__init__(refund_agent.careless)\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(project), *sys.path])}

    def evals(*args: str) -> int:
        command = [sys.executable, "-m", "evals", *args, "--cases", "cases.jsonl"]
        return subprocess.run(command, cwd=project, env=env, check=False).returncode

    evals("baseline")
    evals("run", "--label", "desk")
    evals("gate", "--label", "careless", "--sut", "careless_sut:CarelessSUT")
    compare = [sys.executable, "-m", "evals", "compare", "reports/desk.json"]
    compare += ["reports/careless.json", "--html", "compare.html"]
    subprocess.run(compare, cwd=project, env=env, check=False, stdout=subprocess.DEVNULL)
    return project / "reports" / "careless.html", project / "compare.html"


def shoot(browser: object, page: Path, out: Path, *, click: str | None, full: bool) -> None:
    """Open ``page``, follow the first link ``click`` selects, and save a picture."""
    tab = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})  # type: ignore[attr-defined]
    tab.goto(page.as_uri())
    if click is not None:
        tab.locator(click).first.click()
    tab.screenshot(path=str(out), full_page=full)
    tab.close()
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp:
        work = Path(tmp)
        gate_page = supportpilot_page(work)
        refund_page, compare_page = refund_pages(work)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium(), headless=True)
            try:
                shots = [
                    (gate_page, "supportpilot-failing-run.png", "#failures a.jump", False),
                    (gate_page, "supportpilot-gate.png", None, False),
                    (refund_page, "refund-agent-run.png", "#failures a.jump", False),
                    (compare_page, "compare.png", "#flips a", False),
                ]
                for page, name, click, full in shots:
                    shoot(browser, page, args.out / name, click=click, full=full)
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
