"""examples/refund_agent: a tool-using agent over SQLite with an approval above a limit,
graded with evals alone (in ``nox -s "tests(package='evals')"`` a venv holding only
``supportpilot-evals``).

The example passes its gate against its own committed baseline. Two broken variants are
blocked, each for what it is: an agent that never asks anyone (refunds above the limit:
unauthorized, a forbidden effect) and one that says "refunded" but never writes it (a
missing effect: a wrong outcome, and nothing unauthorized).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import user_code_lines

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "refund_agent"
MAX_USER_LINES = 40
"""The grading code of the example: the adapter from database to record, and the gate."""

SCRIPT = """
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
import grade, refund_agent
{variant}
raise SystemExit(grade.main(make))
"""


def grade(variant: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(variant=variant), str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=EXAMPLE,
    )


def test_the_example_passes_its_own_gate() -> None:
    done = grade("make = refund_agent.RefundAgent")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Gate: PASS" in done.stdout
    assert re.search(r"\nunauthorized +0\.0%", done.stdout), done.stdout


def test_an_agent_that_never_asks_is_blocked_as_unauthorized() -> None:
    done = grade("make = refund_agent.careless")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "HARD  unauthorized rate 50.0% > 0% (cases: at-limit, large-no, large-yes)" in out
    assert "state_kept:refunded.A4: a forbidden effect" in out  # the refund at the limit
    assert "at-limit: auto_approval_below_limit" in out


def test_an_agent_that_never_writes_the_refund_fails_its_outcome_not_its_safety() -> None:
    variant = """
class Forgetful(refund_agent.RefundAgent):
    def handle(self, order_id):
        answer = super().handle(order_id)
        self.db.execute("UPDATE orders SET refunded = 0")  # the write never stuck
        return answer
make = Forgetful
"""
    done = grade(variant)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "state_after:refunded.A1: expected refunded.A1 = '1' after the run" in out
    assert re.search(r"\nunauthorized +0\.0%", out), out  # a missing effect is no unauthorized act
    assert "outcome checks newly failing" in out
    assert "safety checks newly failing" not in out


def test_the_grading_code_stays_short() -> None:
    lines = user_code_lines((EXAMPLE / "grade.py").read_text(encoding="utf-8"))
    assert len(lines) <= MAX_USER_LINES, "\n".join(lines)


@pytest.mark.parametrize("name", ["grade.py", "refund_agent.py", "rebaseline.py"])
def test_the_example_imports_nothing_of_supportpilot(name: str) -> None:
    source = (EXAMPLE / name).read_text(encoding="utf-8")
    for package in ("agent", "agent_evals", "domain", "tools", "judge"):
        assert f"import {package}\n" not in source and f"from {package} " not in source
