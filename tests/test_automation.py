"""The repository's automation agrees with itself: CI workflow, nox sessions, Makefile, README."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def nox_sessions() -> dict[str, str]:
    """Every session nox knows (selected by default or not), by name, with its description."""
    nox = shutil.which("nox")
    assert nox is not None, "nox must be installed in the test venv (group 'automation')"
    # `nox -l --json` lists only the default selection, so read the plain listing.
    out = subprocess.run([nox, "-l"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    sessions: dict[str, str] = {}
    for line in out.splitlines():
        match = re.match(r"^[*-] (\S+)(?: \[[^]]*\])?(?: -> (.*))?$", line)
        if match:
            sessions[match.group(1)] = match.group(2) or ""
    assert sessions, out
    return sessions


def workflow_nox_calls() -> list[str]:
    workflow = yaml.safe_load((ROOT / ".github/workflows/evals.yml").read_text())
    calls: list[str] = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                calls += re.findall(r"\bnox\s+-s\s+([\w\"'()=,.-]+)", line)
    return calls


def test_workflow_calls_only_existing_sessions() -> None:
    sessions = nox_sessions()
    calls = workflow_nox_calls()
    # The spec's minimum for CI: the gate (the suites run through `nox -t suites`).
    assert "gate" in set(calls)
    for name in calls:
        assert name in sessions or any(s.startswith(f"{name}(") for s in sessions), name


def test_workflow_uploads_reports_and_writes_summary() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/evals.yml").read_text())
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"].rstrip("/") == "reports"
    assert any("GITHUB_STEP_SUMMARY" in str(s.get("run", "")) for s in steps)


def test_every_session_has_a_one_line_docstring() -> None:
    for name, description in nox_sessions().items():
        assert description.strip(), f"session {name} has no docstring"
        assert "\n" not in description.strip(), name


@pytest.mark.parametrize(
    "target", ["help", "evals", "test", "lint", "typecheck", "gate", "baseline"]
)
def test_makefile_has_target(target: str) -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"^{target}:.*## ", makefile, re.MULTILINE), target


def test_readme_quick_start_is_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = quick.split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make evals", "make test"]


def test_ci_runs_make_test_and_fails_fast() -> None:
    script = (ROOT / ".ci/run").read_text()
    assert "set -euo pipefail" in script
    assert re.search(r"^make test$", script, re.MULTILINE)
    assert "lock-check" in script


def test_ci_installs_chromium_when_missing_and_requires_the_browser_test() -> None:
    script = (ROOT / ".ci/run").read_text()
    assert re.search(r"^\s+.*apt-get install -y -qq chromium$", script, re.MULTILINE)
    assert "DEBIAN_FRONTEND=noninteractive" in script
    assert "if ! command -v chromium" in script  # only when missing
    assert "export EVALS_REQUIRE_BROWSER=1" in script
    assert script.index("EVALS_REQUIRE_BROWSER") < script.index("\nmake test")
    assert "playwright install" not in script


def test_workflow_pins_the_tool_versions_the_makefile_bootstraps() -> None:
    makefile = (ROOT / "Makefile").read_text()
    workflow = (ROOT / ".github/workflows/evals.yml").read_text()
    uv = re.search(r"^UV_VERSION := (\S+)$", makefile, re.MULTILINE)
    nox = re.search(r"^NOX_VERSION := (\S+)$", makefile, re.MULTILINE)
    assert uv and nox
    assert f'version: "{uv.group(1)}"' in workflow
    assert f'nox=={nox.group(1)}"' in workflow


def suite_sessions() -> set[str]:
    """The sessions ``nox -t suites`` selects."""
    nox = shutil.which("nox")
    assert nox is not None
    out = subprocess.run(
        [nox, "-t", "suites", "-l"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {m.group(1) for m in re.finditer(r"^\* (\S+)", out, re.MULTILINE)}


def test_workflow_runs_every_suite() -> None:
    workflow = (ROOT / ".github/workflows/evals.yml").read_text()
    assert re.search(r"^\s+run: nox -t suites$", workflow, re.MULTILINE)
    suites = {f"evals_{p.stem}" for p in (ROOT / "cases").glob("*.jsonl")}
    assert suites and suites == suite_sessions()  # one session per suite, no more


def test_a_nightly_job_runs_stability_and_uploads_its_reports() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/evals.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["schedule"] and triggers["schedule"][0]["cron"]
    job = workflow["jobs"]["stability"]
    assert "schedule" in job["if"]
    runs = [str(s.get("run", "")) for s in job["steps"]]
    assert any(re.match(r"nox -s stability\b", r) for r in runs)
    uploads = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload")]
    assert uploads and uploads[0]["with"]["path"].rstrip("/") == "reports"
    assert "schedule" in workflow["jobs"]["evals"]["if"]  # the PR job does not run nightly


@pytest.mark.parametrize("name", ["baseline.json", "baseline-model_path.json"])
def test_the_committed_baselines_hold_no_failing_check(name: str) -> None:
    """A check that already fails in the baseline cannot newly fail: the gate would never
    see a change break it. A trajectory or cost check may fail while its case passes (only
    outcome and safety decide success), so a case verdict alone does not show it: every
    (case, check) pair of each committed baseline must pass every trial."""
    import json

    baseline = json.loads((ROOT / "reports" / name).read_text(encoding="utf-8"))
    failing = sorted(
        f"{case}: {check} {tally}"
        for case, checks in baseline["case_checks"].items()
        for check, tally in checks.items()
        if tally.split("/")[0] != tally.split("/")[1]
    )
    assert failing == []
    assert all(baseline["case_success"].values())
