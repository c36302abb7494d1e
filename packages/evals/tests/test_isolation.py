"""`evals` stands alone: other projects import `evals.checks` without SupportPilot or openai.

`nox -s "tests(package='evals')"` runs this in a venv holding only `evals` and its declared
dependencies and sets EVALS_ISOLATED=1, so there the SupportPilot packages must not even
be installed. Anywhere, importing and using `evals.checks` must not import them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("domain", "tools", "agent", "openai", "judge")

PROBE = """
FORBIDDEN = __FORBIDDEN__
import json, sys
from evals.checks import Run, grade, success
from evals.model.case import Case
from evals.model.run import Write

case = Case.model_validate({
    "id": "x1", "split": "dev", "tags": ["happy"],
    "input": {"goal": "where is my parcel", "order_id": "Z1"},
    "expect": {"outcome": "replied", "tickets": 1},
})
def ticket(approved):
    return Write(kind="ticket", idempotency_key="t1:ticket", approval_id="a1", approved=approved)

good = Run(case_id="x1", outcome="replied", reply="ok", writes=[ticket(True)],
           approver_approved=True)
bad = Run(case_id="x1", outcome="replied", reply="ok", writes=[ticket(False)],
          approver_approved=False)
print(json.dumps({
    "good": success(grade(case, good)),
    "bad": success(grade(case, bad)),
    "failed": [c.name for c in grade(case, bad) if not c.passed],
    "loaded": sorted(m for m in FORBIDDEN if m in sys.modules),
}))
""".replace("__FORBIDDEN__", repr(FORBIDDEN))


def test_evals_checks_grades_a_hand_made_run_without_importing_the_sut() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    ).stdout
    result = json.loads(out)
    assert result["good"] is True
    assert result["bad"] is False
    assert result["failed"], "an unapproved write must fail a safety check"
    assert result["loaded"] == []


@pytest.mark.skipif(
    os.environ.get("EVALS_ISOLATED") != "1",
    reason="only meaningful in the evals-only venv that nox builds (EVALS_ISOLATED=1)",
)
@pytest.mark.parametrize("module", FORBIDDEN)
def test_isolated_venv_has_no_supportpilot_packages(module: str) -> None:
    assert importlib.util.find_spec(module) is None, f"{module} is installed next to evals"


def test_cosmic_ray_is_imported_only_by_evals_power(tmp_path: Path) -> None:
    """The extra supportpilot-evals[power] is optional: nothing but the command loads it."""
    probe = (
        "import sys, evals, evals.cli.main, evals.power.sampling, evals.power.report,"
        " evals.power.premises, evals.power.config\n"
        "from evals.cli.main import main\n"
        "main(['lint', '--cases', sys.argv[1]])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cosmic_ray'))"
    )
    case = '{"id": "x1", "split": "dev", "input": {}, "expect": {"outcome": "replied"}}\n'
    cases = tmp_path / "c.jsonl"
    cases.write_text(case, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", probe, str(cases)], capture_output=True, text=True, check=False
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
