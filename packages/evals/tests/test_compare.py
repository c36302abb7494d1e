"""`evals compare`: flips both ways, per-check flips, and a paired test with known p-values."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.cli.main import main
from evals.gating.baseline import check_tallies
from evals.gating.rules import GateConfig, HardRules
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.model.result import CheckResult, RunResult
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


def _run(label: str, monkeypatch: pytest.MonkeyPatch, failing: str = "", **env: str) -> None:
    for name in ("FAIL", "UNAUTHORIZED", "DETOUR"):
        monkeypatch.delenv(f"FAKE_SUT_{name}", raising=False)
    if failing:
        monkeypatch.setenv("FAKE_SUT_FAIL", failing)
    for name, value in env.items():
        monkeypatch.setenv(f"FAKE_SUT_{name}", value)
    assert main(["run", "--label", label, "--exclude-tag", "flaky"]) in (0, 1)


SIX = "d01,d02,d03,r01,r02,t01"
"""Six cases failing: the fewest flips that are significant at 0.05 with one trial; three
of them must pass, two are the regression split."""
RELAXED = {"must_pass_success_min": 0.0, "regression_split_success_min": 0.0}
"""A gate config under which those six breach no hard rule: the paired test alone judges."""


@pytest.mark.parametrize(
    "scenario",
    [
        ("", {}, None, ["--fail-on-regression"], 0, "Verdict: no drop."),
        ("d02", {}, None, ["--fail-on-regression"], 0, "may be noise (p >= 0.05)"),
        (SIX, {}, RELAXED, [], 0, "not by chance (p < 0.05)"),
        (SIX, {}, RELAXED, ["--fail-on-regression"], 1, "p = 0.03125"),
        (SIX, {}, RELAXED, ["--fail-on-regression", "--alpha", "0.01"], 0, "noise"),
        # Positive controls: a hard rule breached is said so, never "may be noise".
        (
            "r01",
            {},
            None,
            ["--fail-on-regression"],
            1,
            "- hard rule breached: must_pass success 100.0% -> 66.7% (at least 100.0%"
            " required; failing: r01)",
        ),
        (
            "",
            {"UNAUTHORIZED": "t03"},
            None,
            ["--fail-on-regression"],
            1,
            "- hard rule breached: unauthorized 0.0% -> 12.5% (at most 0.0% allowed; cases: t03)",
        ),
        (
            "",
            {"DETOUR": "t01"},
            None,
            ["--fail-on-regression"],
            1,
            "- hard rule breached: 1 trajectory check newly failing: t01: dispatched (at most 0"
            " allowed)",
        ),
        (SIX, {}, None, ["--fail-on-regression", "--alpha", "0.01"], 1, "hard rule breached"),
    ],
)
def test_compare_two_real_runs(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: tuple[str, dict[str, str], dict[str, float] | None, list[str], int, str],
) -> None:
    failing, env, hard, flag, code, fragment = scenario
    _run("before", monkeypatch)
    _run("after", monkeypatch, failing, **env)
    capsys.readouterr()
    args = ["compare", "reports/before.json", "reports/after.json", "--markdown", "cmp.md"]
    if hard is not None:
        rules = json.loads((project / "cases" / "gate.json").read_text(encoding="utf-8"))
        rules["hard"].update(hard)
        (project / "relaxed.json").write_text(json.dumps(rules), encoding="utf-8")
        args += ["--gate-config", "relaxed.json"]
    assert main([*args, *flag]) == code
    out = capsys.readouterr().out
    assert fragment in out
    assert ("hard rule breached" in out) is ("breached" in fragment)
    if "breached" in out:
        assert "may be noise" not in out and "Verdict: B is worse: it breaches" in out
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


# --- hard rules of the gate: a breach is never noise ------------------------------------

SEVEN = "abcdefg"


def _side(name: str, results: list[RunResult]) -> Side:
    return Side(name, RunMeta(label=name), compute(results), check_tallies(results))


def _with_cost(r: RunResult, ok: bool) -> RunResult:
    cost = CheckResult(
        name="max_tasks", kind="cost", passed=ok, reason="" if ok else "9 tasks > max_tasks 6"
    )
    return replace(r, checks=(*r.checks, cost))


def _runs(
    *,
    unauthorized: str = "",
    failing: str = "",
    detour: str = "",
    over_budget: str = "",
    must_pass: str = "",
) -> list[RunResult]:
    """Seven cases, one run each, broken as named (a case id a letter of SEVEN)."""
    return [
        _with_cost(
            result(
                c,
                ok=c not in failing,
                unauthorized=c in unauthorized,
                trajectory_ok=c not in detour,
                tags=("must_pass",) if c in must_pass else (),
            ),
            c not in over_budget,
        )
        for c in SEVEN
    ]


COST_HARD = GateConfig(
    hard=HardRules(newly_failing_checks_max={"outcome": 0, "safety": 0, "trajectory": 0, "cost": 0})
)
TRAJECTORY_SOFT = GateConfig(hard=HardRules(newly_failing_checks_max={"outcome": 0, "safety": 0}))

BREACHES = [
    # (A, B, gate config, the breach line, or None: the paired test alone judges)
    pytest.param(
        {},
        {"unauthorized": "abc"},
        None,
        "unauthorized 0.0% -> 42.9% (at most 0.0% allowed; cases: a, b, c)",
        id="unauthorized-from-zero",
    ),
    pytest.param(
        {"unauthorized": "a"},
        {"unauthorized": "abc"},
        None,
        "unauthorized 14.3% -> 42.9% (at most 0.0% allowed; cases: a, b, c)",
        id="unauthorized-grows",
    ),
    pytest.param(
        {"unauthorized": "abc"}, {"unauthorized": "abc"}, None, None, id="unauthorized-as-before"
    ),
    pytest.param(
        {},
        {"unauthorized": "a"},
        GateConfig(hard=HardRules(unauthorized_rate_max=0.2)),
        None,
        id="unauthorized-within-its-limit",
    ),
    pytest.param(
        {"must_pass": "ab"},
        {"must_pass": "ab", "failing": "a"},
        None,
        "must_pass success 100.0% -> 50.0% (at least 100.0% required; failing: a)",
        id="must-pass",
    ),
    pytest.param(
        {},
        {"detour": "a"},
        None,
        "1 trajectory check newly failing: a: dispatched (at most 0 allowed)",
        id="trajectory",
    ),
    pytest.param({}, {"detour": "a"}, TRAJECTORY_SOFT, None, id="trajectory-soft-by-config"),
    pytest.param({}, {"over_budget": "ab"}, None, None, id="cost-soft-by-default"),
    pytest.param(
        {},
        {"over_budget": "ab"},
        COST_HARD,
        "2 cost checks newly failing: a: max_tasks, b: max_tasks (at most 0 allowed)",
        id="cost-hard-by-config",
    ),
    pytest.param({}, {"failing": "a"}, None, None, id="a-plain-case-flip"),
    pytest.param({"detour": "a"}, {}, None, None, id="an-improvement"),
    pytest.param({}, {}, None, None, id="no-change"),
]


@pytest.mark.parametrize(("before", "after", "rules", "breach"), BREACHES)
def test_a_hard_rule_breached_is_said_so_never_called_noise(
    before: dict[str, str], after: dict[str, str], rules: GateConfig | None, breach: str | None
) -> None:
    c = compare(_side("a", _runs(**before)), _side("b", _runs(**after)), rules)
    text = render(c, 0.05)
    assert c.breaches == ([] if breach is None else [breach])
    assert c.regression(0.05) is (breach is not None)  # --fail-on-regression exits 1
    if breach is not None:
        assert f"- hard rule breached: {breach}" in text
        assert "may be noise" not in text and "Verdict: B is worse: it breaches a hard rule" in text
    else:
        assert "hard rule breached" not in text


def test_the_issue_s_case_a_breach_the_paired_test_calls_noise() -> None:
    # Found by a new user: 0% -> 42.9% unauthorized read "the drop may be noise".
    c = compare(_side("a", _runs()), _side("b", _runs(unauthorized="abc")))
    assert c.dropped and c.p_value == 0.25  # 3 of 7 flipped: not significant …
    text = render(c, 0.05)
    assert "hard rule breached: unauthorized 0.0% -> 42.9%" in text  # … yet a breach
    assert "may be noise" not in text


def test_the_rates_of_safety_and_trajectory_stand_beside_latency_and_tokens() -> None:
    c = compare(_side("a", _runs()), _side("b", _runs(unauthorized="abc", detour="a")))
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:5]]
        for line in render(c).splitlines()
        if line.startswith("| ") and not line.startswith("|  ")  # not the header
    }
    assert rows["unauthorized rate"] == ["0.0%", "42.9%", "+42.9 points"]
    assert rows["step accuracy"] == ["100.0%", "85.7%", "-14.3 points"]
    assert list(rows)[:4] == ["success", "unauthorized rate", "step accuracy", "latency ms p50"]
    assert "tokens mean" in rows


def test_a_rate_no_check_stands_behind_is_not_available() -> None:
    bare = [replace(r, checks=tuple(c for c in r.checks if c.kind == "outcome")) for r in _runs()]
    rows = render(compare(_side("a", bare), _side("b", _runs()))).splitlines()
    (line,) = [x for x in rows if x.startswith("| step accuracy")]
    assert [cell.strip() for cell in line.split("|")[2:5]] == ["n/a (no check)", "100.0%", ""]


def test_the_compare_page_puts_flipped_cases_first_with_both_runs_side_by_side(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run("before", monkeypatch)
    _run("after", monkeypatch, "d01", DETOUR="t01")
    assert main(["compare", "reports/before.json", "reports/after.json", "--html", "c.html"]) == 0
    page = (project / "c.html").read_text(encoding="utf-8")
    assert "'unsafe" not in page.replace("&#39;", "'") and "script-src &#39;none&#39;" in page
    assert "Verdict: B is worse: it breaches" in page  # t01's detour: a hard rule, never noise
    flips = page[page.index('id="flips"') :]
    assert flips.index("d01") < flips.index('id="flip-1"')  # listed, then shown
    flip = page[page.index('id="flip-1"') : page.index("</section>", page.index('id="flip-1"'))]
    assert "WORSE" in flip and "d01" in flip and "1/1 -&gt; 0/1" in flip
    assert "<td>outcome</td><td>1/1</td><td>0/1</td>" in flip  # its check flip
    assert "A: run d01#0" in flip and "B: run d01#0" in flip
    assert "replied" in flip and "escalate" in flip  # both records, side by side


@pytest.mark.parametrize(
    ("a", "b", "rows"),
    [
        # The same steps: nothing marked.
        ([{"role": "x", "status": "ok"}], [{"role": "x", "status": "ok"}], [(False, "x · ok")]),
        # B refused where A went on, and stopped one step early.
        (
            [{"role": "x", "status": "ok", "seq": 1}, {"role": "y", "status": "ok", "seq": 2}],
            [{"role": "x", "status": "refused", "seq": 1}],
            [(True, "x · ok", "x · refused"), (True, "y · ok", "")],
        ),
        # One side has no record at all.
        (None, [{"role": "x"}], [(True, "", "x")]),
    ],
)
def test_steps_are_aligned_by_position_and_every_difference_marked(
    a: list[dict[str, object]] | None, b: list[dict[str, object]], rows: list[tuple[object, ...]]
) -> None:
    from evals.report.compare_html import aligned_steps

    got = aligned_steps(None if a is None else {"steps": a}, {"steps": b})
    assert [(d, left) if len(r) == 2 else (d, left, right) for (d, left, right), r in
            zip(got, rows, strict=True)] == rows  # fmt: skip
