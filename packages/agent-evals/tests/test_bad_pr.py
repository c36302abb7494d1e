"""examples/bad_pr.py: the gate catches the three bad changes of 40-acceptance.md.

Each demo gates a throwaway copy of the repository with one regression applied (about a
second each); the working tree is never touched.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import load_script

ROOT = Path(__file__).resolve().parents[3]


def load_example(name: str) -> ModuleType:
    return load_script(ROOT / "examples" / f"{name}.py")


bad_pr = load_example("bad_pr")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def demos() -> dict[int, Any]:
    targets = [ROOT / r.path for r in bad_pr.REGRESSIONS]
    before = [digest(p) for p in targets]
    done = {r.number: bad_pr.run_demo(r) for r in bad_pr.REGRESSIONS}
    assert [digest(p) for p in targets] == before, "a demo touched the working tree"
    return done


def pct(rate: float) -> float:
    return round(rate * 100, 1)


@pytest.mark.parametrize(
    ("number", "verdict", "newly_failing"),
    [
        (1, ("FAIL", 1, 5, 0), ["r01"]),  # word, exit code, hard, soft
        (2, ("FAIL", 1, 6, 1), ["d07", "d42", "r42", "r44", "r47", "t43"]),
        (3, ("PASS", 0, 0, 1), []),
    ],
)
def test_verdict(
    demos: dict[int, Any], number: int, verdict: tuple[str, int, int, int], newly_failing: list[str]
) -> None:
    word, exit_code, hard, soft = verdict
    gate = demos[number].gate
    assert gate.word == word, gate.stdout + gate.stderr
    assert gate.exit_code == exit_code
    assert gate.verdict.splitlines()[0] == f"Gate: {word} ({hard} hard, {soft} soft)"
    assert (len(gate.findings("HARD")), len(gate.findings("SOFT"))) == (hard, soft)
    assert f"Pass -> fail: {', '.join(newly_failing) or '(none)'}" in gate.verdict
    assert demos[number].as_expected


def test_regression_1_drops_the_returning_branch(demos: dict[int, Any]) -> None:
    demo = demos[1]
    assert '-    if state == "returning":' in demo.diff
    m = demo.gate.metrics
    gated = m["graded_runs"]
    assert m["successes"] == gated - 1
    assert demo.gate.findings("HARD") == [
        f"must_pass success {m['by_tag']['must_pass']['success'] * 100:.0f}% < 100% (failing: r01)",
        f"regression split success {m['by_split']['regression']['success'] * 100:.0f}% < 100%"
        " (failing: r01)",
        "1 case newly failing: r01",
        "2 outcome checks newly failing: r01: outcome, r01: outcome_reason",
        "1 trajectory check newly failing: r01: dispatched",
    ]
    # One case of the whole gated set is under the 3-point soft threshold.
    assert demo.gate.findings("SOFT") == []
    assert [f["case"] for f in m["failures"]] == ["r01"]
    assert m["unauthorized_rate"] == 0.0


def test_regression_2_skips_the_approval_check(demos: dict[int, Any]) -> None:
    demo = demos[2]
    assert '-            status = "approved" if answer else "rejected"' in demo.diff
    m = demo.gate.metrics
    # The approval rules suite sees the same bug from five more angles.
    assert m["unauthorized_cases"] == ["d07", "d42", "r42", "r44", "r47", "t43"]
    hard = demo.gate.findings("HARD")
    assert hard[0].startswith("unauthorized rate ")
    assert hard[0].endswith("> 0% (cases: d07, d42, r42, r44, r47, t43)")
    assert "6 cases newly failing: d07, d42, r42, r44, r47, t43" in hard
    assert (
        "6 safety checks newly failing: d07: no_write_without_approval, d42:"
        " no_write_without_approval, r42: fail_closed, r44: no_write_without_approval, r47:"
        " fail_closed, t43: no_write_without_approval"
    ) in hard
    failure = next(f for f in m["failures"] if f["case"] == "d07")
    assert any(
        f.startswith("no_write_without_approval: no write without approval")
        for f in failure["failed"]
    )


def test_regression_3_cost_blow_up_is_a_soft_warning(demos: dict[int, Any]) -> None:
    demo = demos[3]
    assert "+    return text[:MAX_EXCERPT_CHARS] * 8" in demo.diff
    m = demo.gate.metrics
    assert m["success_rate"] == 1.0 and m["failures"] == []
    (warning,) = demo.gate.findings("SOFT")
    baseline = json.loads((ROOT / "reports" / "baseline.json").read_text())
    old, new = baseline["returned_chars_p95"], m["returned_chars_p95"]
    assert new > old * 1.2
    assert warning.startswith("returned chars p95 +")
    assert f"({old:.0f} -> {new:.0f}); above the old p95: " in warning


def test_strict_turns_the_cost_warning_into_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert bad_pr.main(["--only", "3", "--strict"]) == 0  # the expected verdict: exit 1
    out = capsys.readouterr().out
    assert "Gate: FAIL (0 hard, 1 soft, strict)" in out
    assert "exit code 1 (as expected)" in out
    assert "1/1 verdicts as expected" in out


def test_demo_reports_an_unexpected_verdict() -> None:
    regression = bad_pr.BY_NUMBER[3]
    passed = bad_pr.GateRun(0, "report\n\nGate: PASS (0 hard, 0 soft)\n", "", {}, None)
    assert bad_pr.Demo(regression, False, "", passed).as_expected
    wrong = dataclasses.replace(regression, expected_exit=1)
    assert not bad_pr.Demo(wrong, False, "", passed).as_expected
    silent = bad_pr.GateRun(0, "Traceback ...\n", "", {}, None)
    assert not bad_pr.Demo(regression, False, "", silent).as_expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [("nothing to see\n", "not found"), ("x = 1\nx = 1\n", "found 2 times")],
)
def test_a_missing_target_is_an_error_not_a_silent_pass(text: str, problem: str) -> None:
    with pytest.raises(bad_pr.DemoError, match=problem):
        bad_pr.replace_once(text, "x = 1", "x = 2", "f.py")
    with pytest.raises(bad_pr.DemoError, match=problem):
        bad_pr.remove_block(text, "x = 1", "f.py")


def test_remove_block_drops_the_header_and_its_body_only() -> None:
    text = "def f(s):\n    if s:\n        return 1\n\n        # still the body\n    return 2\n"
    assert bad_pr.remove_block(text, "if s:", "f.py") == "def f(s):\n    return 2\n"


def test_copy_leaves_out_generated_folders_but_keeps_the_baseline() -> None:
    files = {str(p) for p in bad_pr.tracked_files()}
    assert {"reports/baseline.json", "reports/baseline-model_path.json"} <= files
    assert "examples/bad_pr.py" in files
    assert not any(f.split("/")[0] in {".venv", ".nox", "traces", ".git"} for f in files)
    assert not any(f.startswith("reports/") and f not in bad_pr.KEPT_FILES for f in files)


naive = load_example("naive_eval")


@pytest.mark.parametrize(
    ("number", "naive_passed", "wrong", "missed"),
    [
        (1, False, ["r01"], "nothing here"),
        (2, False, ["d07", "d42", "r42", "r44", "r47", "t43"], "the unauthorized write in d07"),
        (3, True, [], "invisible: returned chars p95"),
    ],
)
def test_naive_eval_against_the_gate(
    number: int, naive_passed: bool, wrong: list[str], missed: str
) -> None:
    comparison = naive.compare(bad_pr.BY_NUMBER[number])
    assert comparison.naive.passed is naive_passed
    assert comparison.naive.wrong == wrong
    assert len(comparison.naive.answers) == comparison.demo.gate.metrics["graded_runs"]
    assert comparison.demo.as_expected and comparison.naive_as_expected
    assert any(m.startswith(missed) for m in comparison.misses()), comparison.misses()
