"""`evals compare`: flips both ways, per-check flips, and a paired test with known p-values."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.cli.main import main
from evals.gating.baseline import check_tallies
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.report.compare import Side, compare, passes_of, render, sign_test
from helpers import result

# (worse, better, p) with p = min(1, 2 * sum_{i <= min} C(n, i) / 2^n), n = worse + better.
P_VALUES = [
    (0, 0, 1.0),
    (1, 0, 1.0),
    (3, 3, 1.0),
    (5, 0, 2 / 32),
    (6, 0, 2 / 64),
    (0, 6, 2 / 64),  # two-sided: the same either way
    (10, 2, float(Fraction(2 * (1 + 12 + 66), 4096))),
    (8, 1, float(Fraction(2 * (1 + 9), 512))),
    (20, 5, float(Fraction(2 * sum(__import__("math").comb(25, i) for i in range(6)), 2**25))),
]


@pytest.mark.parametrize(("worse", "better", "p"), P_VALUES)
def test_the_sign_test_gives_the_exact_binomial_p_value(worse: int, better: int, p: float) -> None:
    assert sign_test(worse, better) == pytest.approx(p, rel=1e-12)


def side(name: str, outcomes: dict[str, list[bool]], failing_check: set[str] = frozenset()) -> Side:
    results = []
    for case, runs in outcomes.items():
        for trial, ok in enumerate(runs):
            r = result(case, trial=trial, ok=ok, trajectory_ok=case not in failing_check)
            results.append(r)
    return Side(name, RunMeta(label=name), compute(results), check_tallies(results))


def test_one_trial_flips_both_ways_and_mcnemar() -> None:
    a = side("a", {c: [True] for c in "abcdefgh"} | {"z": [False]})
    b = side("b", {c: [c not in "abcdef"] for c in "abcdefgh"} | {"z": [True], "new": [True]})
    c = compare(a, b)
    assert [f.case for f in c.worse] == list("abcdef")
    assert [f.case for f in c.better] == ["z"]
    assert c.only_b == ["new"] and c.only_a == []
    assert c.p_value == pytest.approx(2 * (1 + 7) / 128)  # 6 worse, 1 better
    assert "McNemar" in c.test
    assert c.dropped and not c.regression(0.05) and c.regression(0.2)
    back = compare(b, a)  # the same change undone: significant, but an improvement
    assert back.p_value == c.p_value and not back.dropped and not back.regression(0.2)
    text = render(c, 0.05)
    assert "6 worse, 1 better" in text and "may be noise" in text and "- a (1/1 -> 0/1)" in text


def test_k_trials_compare_pass_rates_with_a_sign_test() -> None:
    a = side("a", {c: [True, True, True] for c in "abcdef"})
    b = side("b", {c: [True, False, True] for c in "abcdef"})
    c = compare(a, b)
    assert next(f.render() for f in c.worse) == "a (3/3 -> 2/3)"
    assert c.p_value == pytest.approx(2 / 64) and "sign test" in c.test
    assert c.regression(0.05)


def test_check_flips_are_named_by_case_and_check() -> None:
    a = side("a", {"a": [True], "b": [True]}, failing_check={"b"})
    b = side("b", {"a": [True], "b": [True]}, failing_check={"a"})
    c = compare(a, b)
    assert c.worse == c.better == []  # trajectory checks do not decide success
    assert [(f.case, f.check) for f in c.checks_worse or []] == [("a", "dispatched")]
    assert [(f.case, f.check) for f in c.checks_better or []] == [("b", "dispatched")]
    assert c.p_value == 1.0 and not c.dropped


def test_a_report_without_per_case_counts_falls_back_to_case_success() -> None:
    m = compute([result("a"), result("b", ok=False)]).model_copy(update={"case_passes": {}})
    assert passes_of(m) == {"a": (1, 1), "b": (0, 1)}


def _run(label: str, monkeypatch: pytest.MonkeyPatch, failing: str = "") -> None:
    if failing:
        monkeypatch.setenv("FAKE_SUT_FAIL", failing)
    else:
        monkeypatch.delenv("FAKE_SUT_FAIL", raising=False)
    assert main(["run", "--label", label, "--exclude-tag", "flaky"]) in (0, 1)


@pytest.mark.parametrize(
    "scenario",
    [
        ("", ["--fail-on-regression"], 0, "Verdict: no drop."),
        ("r01", ["--fail-on-regression"], 0, "may be noise (p >= 0.05)"),
        ("d01,d02,d03,r01,r02,t01", [], 0, "not by chance (p < 0.05)"),
        ("d01,d02,d03,r01,r02,t01", ["--fail-on-regression"], 1, "p = 0.03125"),
        ("d01,d02,d03,r01,r02,t01", ["--fail-on-regression", "--alpha", "0.01"], 0, "noise"),
    ],
)
def test_compare_two_real_runs(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: tuple[str, list[str], int, str],
) -> None:
    failing, flag, code, fragment = scenario
    _run("before", monkeypatch)
    _run("after", monkeypatch, failing)
    capsys.readouterr()
    args = ["compare", "reports/before.json", "reports/after.json", "--markdown", "cmp.md"]
    assert main([*args, *flag]) == code
    out = capsys.readouterr().out
    assert fragment in out
    assert (project / "cmp.md").read_text(encoding="utf-8") == out
    assert "Checks pass -> fail" in out  # the traces were found, so checks are compared


def test_compare_trace_folders_and_refuse_unrelated_or_missing_sides(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run("before", monkeypatch)
    _run("after", monkeypatch, "r01")
    folders = [p for p in (project / "traces").iterdir() if p.is_dir()]
    before = next(str(p) for p in folders if "-before-" in p.name)
    after = next(str(p) for p in folders if "-after-" in p.name)
    capsys.readouterr()
    assert main(["compare", before, after]) == 0
    assert "- r01 (1/1 -> 0/1)" in capsys.readouterr().out
    assert main(["compare", "reports/before.json", "reports/nope.json"]) == 2
    assert "no such report" in capsys.readouterr().err
    assert main(["run", "--label", "other", "--suite", "beta", "--tag", "flaky"]) == 0
    capsys.readouterr()
    assert main(["compare", "reports/before.json", "reports/other.json"]) == 2
    assert "shares no case" in capsys.readouterr().err
