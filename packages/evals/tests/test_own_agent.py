"""examples/own_agent: a FAQ agent that is not SupportPilot, graded with evals alone.

In ``nox -s "tests(package='evals')"`` this runs in a venv holding only
``supportpilot-evals`` and its dependencies: the example prints its report and passes the
gate against its own committed baseline, and a broken agent (a stale knowledge base) is
blocked.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "own_agent"
MAX_USER_LINES = 25

BROKEN = """
import sys
sys.path.insert(0, sys.argv[1])
import faq_agent, grade
raise SystemExit(grade.main(faq_agent.FaqAgent(faq_agent.BROKEN_KB)))
"""

LOADED = """
import json, runpy, sys
sys.path.insert(0, sys.argv[1])
sys.argv = [sys.argv[1] + "/grade.py"]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
names = ("agent", "domain", "tools", "judge", "openai")
print(json.dumps(sorted(n for n in names if n in sys.modules)))
"""


def user_code_lines(source: str) -> list[str]:
    """The lines of ``source`` that hold code: no blank line, comment or docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docstrings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return [
        text
        for number, text in enumerate(source.splitlines(), start=1)
        if text.strip() and not text.strip().startswith("#") and number not in docstrings
    ]


@pytest.mark.parametrize(
    ("source", "count"),
    [
        (
            '"""Doc."""\n\nimport x\n# a comment\n\n'
            'def f():\n    """Doc\n    more."""\n    return 1\n',
            3,
        ),
        ("x = 1\ny = '''not a docstring\nbut a value'''\n", 3),
        ("", 0),
    ],
)
def test_the_line_counter(source: str, count: int) -> None:
    assert len(user_code_lines(source)) == count


def test_the_agent_is_graded_in_at_most_25_lines_of_user_code() -> None:
    lines = user_code_lines((EXAMPLE / "grade.py").read_text(encoding="utf-8"))
    assert len(lines) <= MAX_USER_LINES, "\n".join(lines)
    assert any("@check(" in line for line in lines)  # one custom check
    assert any("evals.gate(" in line for line in lines)


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_example_prints_its_report_and_passes_its_own_baseline() -> None:
    done = _python(str(EXAMPLE / "grade.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("Evals report: evaluate")
    assert "success                   5/5 = 100.0%" in out
    assert "unauthorized              n/a (no check)" in out
    assert "\nGate: PASS (0 hard" in out
    assert "Pass -> fail: (none)" in out


def test_a_broken_agent_is_blocked_by_the_example_s_gate() -> None:
    done = _python("-c", BROKEN, str(EXAMPLE))
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "hours-1#0: contains: no '9:00' in answer" in out
    assert "\nGate: FAIL" in out
    assert "HARD  2 cases newly failing: hours-1, hours-2" in out


def test_the_example_needs_nothing_of_supportpilot() -> None:
    done = _python("-c", LOADED, str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_committed_baseline_is_the_example_s_own() -> None:
    baseline = json.loads((EXAMPLE / "baseline.json").read_text(encoding="utf-8"))
    assert baseline["sut"] == "task"
    assert baseline["case_success"] == dict.fromkeys(
        ["hours-1", "hours-2", "off-topic-1", "refund-1", "shipping-1"], True
    )
    assert baseline["check_kinds"] == {
        "contains": "outcome",
        "dispatched": "trajectory",
        "outcome": "outcome",
    }


def test_evals_power_measures_the_example_s_own_suite(tmp_path: Path) -> None:
    """`evals power` on a project that is not SupportPilot: its own config
    (examples/own_agent/power.toml), its own gate (grade.py), every mutant judged."""
    pytest.importorskip(
        "cosmic_ray", reason="cosmic-ray is not installed (supportpilot-evals[power])"
    )
    config = EXAMPLE / "power.toml"
    done = _python(
        "-m",
        "evals",
        "power",
        "--config",
        str(config),
        "--all",
        "--ledger",
        str(tmp_path / "samples.json"),
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "power-own_agent.json").read_text(encoding="utf-8"))
    assert report["scope"]["paths"] == ["faq_agent.py"]
    assert report["tried"] == report["candidates"] > 0
    assert report["counts"]["killed"] == report["tried"]  # the example's gate kills them all
    assert {m["path"] for m in report["mutants"]} == {"faq_agent.py"}
