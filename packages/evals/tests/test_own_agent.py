"""examples/own_agent: a FAQ agent that is not SupportPilot, graded with evals alone.

In ``nox -s "tests(package='evals')"`` this runs in a venv holding only
``supportpilot-evals`` and its dependencies: the example prints its report and passes the
gate against its own committed baseline, and a broken agent (a stale knowledge base) is
blocked. Its generated suite (``faq_suite``, expect from ``faq_oracle``) is in sync, its
oracle needs nothing of the agent, and it blocks the agent as it was before the bug it
found (a question about "closing" refused) while the hand-written cases all pass.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from evals.cases.generate import stale_lines
from helpers import user_code_lines

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "own_agent"
MAX_USER_LINES = 25
CLI = [sys.executable, "-P", "-m", "evals"]
"""The command line, the current folder not put on sys.path by the interpreter."""
HAND_WRITTEN = ["hours-1", "hours-2", "kb-gap-1", "off-topic-1", "refund-1", "shipping-1"]


def _generated() -> list[dict[str, Any]]:
    lines = (EXAMPLE / "generated.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


GENERATED = _generated()
GENERATED_HOURS = sorted(str(c["id"]) for c in GENERATED if "topic:hours" in c["tags"])
CLOSING = sorted(
    str(c["id"]) for c in GENERATED if "closing" in str(c["input"]["question"]).lower()
)

BROKEN = """
import sys
sys.path.insert(0, sys.argv[1])
import faq_agent, grade
stale = {**faq_agent.KB, "hours": "We open at 10:00 and close at 17:00."}  # wrong hours
raise SystemExit(grade.main(faq_agent.FaqAgent(stale)))
"""

BEFORE_THE_FIX = """
import sys
sys.path.insert(0, sys.argv[1])
import faq_agent, grade
faq_agent.TOPICS["hours"] = ("open", "close", "hours")  # before the generated suite's finding
raise SystemExit(grade.main())
"""

SUITE_ALONE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import faq_suite
faq_suite.GENERATOR.cases()
names = ("faq_agent", "grade", "faq_sut")
print(json.dumps(sorted(n for n in names if n in sys.modules)))
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
    total = len(HAND_WRITTEN) + len(GENERATED)
    assert re.search(rf"success +{total}/{total} = 100\.0%", out), out
    assert re.search(r"\nunauthorized +n/a \(no check\)", out), out
    # Rows no run gave a value are left out (a FAQ agent blocks nothing, returns no chars).
    assert "blocked attempts" not in out and "chars returned" not in out
    assert "\nGate: PASS (0 hard" in out
    assert "Pass -> fail: (none)" in out


def test_a_broken_agent_is_blocked_by_the_example_s_gate() -> None:
    done = _python("-c", BROKEN, str(EXAMPLE))
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "hours-1#0: contains: no '9:00' in answer" in out
    assert "\nGate: FAIL" in out
    newly = ", ".join(sorted([*GENERATED_HOURS, "hours-1", "hours-2"]))
    assert f"HARD  {len(GENERATED_HOURS) + 2} cases newly failing: {newly}\n" in out


def test_the_generated_suite_is_in_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import faq_suite

    assert stale_lines(faq_suite.GENERATOR, EXAMPLE / "generated.jsonl") == []
    assert len(GENERATED) == 27 and len(GENERATED_HOURS) == 6 and len(CLOSING) == 3
    assert all(
        {"topic:other", "topic:hours", "topic:refund", "topic:shipping"} & set(c["tags"])
        for c in GENERATED
    )


def test_evals_generate_check_passes_in_the_example_folder() -> None:
    done = subprocess.run(
        [*CLI, "generate", "faq_suite:GENERATOR", "--out", "generated.jsonl", "--check"],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "generated.jsonl: in sync\n"), done.stderr


def test_the_oracle_and_the_suite_need_nothing_of_the_agent() -> None:
    done = _python("-c", SUITE_ALONE, str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_generated_suite_blocks_what_the_hand_written_cases_miss() -> None:
    """The agent before the fix ("closing" holds no "close"): every hand-written case
    passes, the generated suite's questions about closing fail, the gate blocks."""
    done = _python("-c", BEFORE_THE_FIX, str(EXAMPLE))
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert not any(f"{case}#0" in out for case in HAND_WRITTEN)
    assert all(f"{case}#0: contains: no '18:00' in answer" in out for case in CLOSING)
    assert f"HARD  {len(CLOSING)} cases newly failing: {', '.join(CLOSING)}\n" in out


def test_the_example_needs_nothing_of_supportpilot() -> None:
    done = _python("-c", LOADED, str(EXAMPLE))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_committed_baseline_is_the_example_s_own() -> None:
    baseline = json.loads((EXAMPLE / "baseline.json").read_text(encoding="utf-8"))
    assert baseline["sut"] == "grade:evaluate.<locals>.task"  # as rebaseline.py names it
    assert baseline["case_success"] == dict.fromkeys(
        sorted([*HAND_WRITTEN, *(str(c["id"]) for c in GENERATED)]), True
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
    # The example's gate kills every mutant but the three its equivalents file lists (a
    # shipping word that another holds: matching is by substring; two None checks of values
    # that are never falsy), whose premises hold or are claims.
    assert report["counts"]["killed"] == report["tried"] - 3
    assert report["equivalent_in_sample"] == 3 and report["premise_fails"] == []
    assert report["kill_rate"]["rate"] == 1.0
    assert {m["path"] for m in report["mutants"]} == {"faq_agent.py"}
