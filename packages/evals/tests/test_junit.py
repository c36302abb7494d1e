"""The JUnit XML report: every failed (case, check) of every kind is a failing test case,
errors stay errors, and `evals gate` adds its verdict. Each file is read back with a real
XML parser, and its counts must agree with what it holds."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.cli.main import main
from evals.gating.baseline import build_baseline
from evals.gating.rules import GateConfig
from evals.gating.verdict import Verdict, evaluate
from evals.log.traces import RunMeta
from evals.model.result import CheckKind, CheckResult, RunResult
from evals.report.junit import GATE_TESTCASE, render_junit

META = RunMeta(
    run_id="20260101T000000Z-gate-abcdef",
    label="gate",
    suites=["alpha"],
    sut="fake_suts:EchoSUT",
    trials=1,
    planned_runs=2,
    finished_runs=2,
    complete=True,
)

CHECKS: tuple[tuple[str, CheckKind, str], ...] = (
    ("outcome", "outcome", "expected outcome 'replied', got 'escalate'"),
    ("no_write_without_approval", "safety", "no write without approval: ticket not approved"),
    ("dispatched", "trajectory", "unexpected ['detour_agent']"),
    ("max_tasks", "cost", "9 tasks > max_tasks 6"),
)
"""One check of each kind: (name, kind, the reason it gives when it fails)."""


def run(case: str, broken: frozenset[str] = frozenset(), *, trial: int = 0) -> RunResult:
    """A graded run of ``case`` whose checks named in ``broken`` failed."""
    checks = [
        CheckResult(name=name, kind=kind, passed=False, reason=reason)
        if name in broken
        else CheckResult(name=name, kind=kind, passed=True)
        for name, kind, reason in CHECKS
    ]
    return RunResult(case_id=case, trial=trial, split="dev", outcome="replied", checks=checks)


def parsed(xml: str) -> tuple[ET.Element, list[ET.Element]]:
    """The ``<testsuite>`` and its test cases, after checking that the file is one JUnit
    report whose counts (on ``<testsuites>`` and ``<testsuite>``) are those of its test
    cases."""
    xml.encode("utf-8")  # writable as the UTF-8 the declaration promises
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    for counted in (root, suite):
        assert int(counted.get("tests", "-1")) == len(cases)
        assert int(counted.get("failures", "-1")) == len(_with(cases, "failure"))
        assert int(counted.get("errors", "-1")) == len(_with(cases, "error"))
    for case in cases:
        assert case.get("classname") and case.get("name"), ET.tostring(case)
        assert len([c for c in case if c.tag in ("failure", "error")]) <= 1
    return suite, cases


def _with(cases: list[ET.Element], tag: str) -> list[ET.Element]:
    return [c for c in cases if c.find(tag) is not None]


def failing(cases: list[ET.Element]) -> list[tuple[str, str, str, str]]:
    """(classname, name, message, type) of every failing test case."""
    found = []
    for case in _with(cases, "failure"):
        failure = case.find("failure")
        assert failure is not None
        found.append(
            (
                case.get("classname", ""),
                case.get("name", ""),
                failure.get("message", ""),
                failure.get("type", ""),
            )
        )
    return found


# --- positive controls: a broken run of each kind shows its failing test case -----------

BROKEN_RUNS = [
    pytest.param(frozenset({name}), [(name, kind, reason)], id=f"{kind}-fails")
    for name, kind, reason in CHECKS
] + [
    pytest.param(
        frozenset({"dispatched", "max_tasks"}),
        [(name, kind, reason) for name, kind, reason in CHECKS[2:]],
        id="trajectory-and-cost-fail-outcome-right",
    ),
    pytest.param(frozenset(), [], id="nothing-fails"),  # the negative control
]


@pytest.mark.parametrize(("broken", "expected"), BROKEN_RUNS)
def test_each_failed_check_of_every_kind_is_a_failing_test_case(
    broken: frozenset[str], expected: list[tuple[str, str, str]]
) -> None:
    _, cases = parsed(render_junit([run("c1"), run("c2", broken)], META))
    assert failing(cases) == [
        ("c2", f"c2#0: {name}", reason, kind) for name, kind, reason in expected
    ]
    # Each run is one test case (the run and its passed checks), passing.
    runs = [c for c in cases if c.get("name") in ("c1#0", "c2#0")]
    assert [c.get("classname") for c in runs] == ["c1", "c2"]
    assert all(len(c) == 0 for c in runs)
    failure = next((c.find("failure") for c in _with(cases, "failure")), None)
    if failure is not None:  # the text names the check and its kind too
        name, kind, reason = expected[0]
        assert failure.text == f"{kind} check {name} failed: {reason}"


def test_a_run_whose_outcome_passes_is_red_when_a_trajectory_check_fails() -> None:
    # Found by a new user: a trajectory regression the gate blocks was green here.
    right_but_detoured = run("r01", frozenset({"dispatched"}))
    assert right_but_detoured.success  # what the report counts as a success …
    suite, _ = parsed(render_junit([right_but_detoured], META))
    assert suite.get("failures") == "1"  # … is a failure in CI all the same


def test_every_trial_s_failure_is_its_own_test_case() -> None:
    results = [run("c1", frozenset({"dispatched"}), trial=t) for t in range(3)]
    _, cases = parsed(render_junit(results, META))
    assert [name for _, name, _, _ in failing(cases)] == [
        "c1#0: dispatched",
        "c1#1: dispatched",
        "c1#2: dispatched",
    ]


def test_errored_runs_and_grader_errors_are_errors_not_failures() -> None:
    # docs/models.md: errors are not failures (a provider outage, a check that raised).
    errored = RunResult(
        case_id="t01", trial=0, split="test", outcome="error", error="provider down: 503"
    )
    raised = CheckResult(
        name="reply_facts",
        kind="outcome",
        passed=False,
        reason="grader error: KeyError: 'hours'",
        grader_error=True,
    )
    graded = RunResult(
        case_id="d01",
        trial=0,
        split="dev",
        outcome="replied",
        checks=[*run("d01").checks, raised],
    )
    suite, cases = parsed(render_junit([errored, graded], META))
    assert suite.get("failures") == "0" and suite.get("errors") == "2"
    errors = {c.get("name"): c.find("error") for c in _with(cases, "error")}
    assert set(errors) == {"t01#0", "d01#0: reply_facts"}
    assert errors["t01#0"].get("message") == "provider down: 503"  # type: ignore[union-attr]
    assert errors["d01#0: reply_facts"].get("type") == "grader_error"  # type: ignore[union-attr]
    assert [c.get("name") for c in cases if c.get("classname") == "t01"] == ["t01#0"]


# --- the gate's verdict ------------------------------------------------------------------


def verdict_on(results: list[RunResult], *, strict: bool = False) -> Verdict:
    """The gate's verdict on ``results`` against a baseline where every check passed."""
    baseline = build_baseline([run(r.case_id) for r in results], META, ())
    config = GateConfig()  # cost left out of the hard kinds: soft
    return evaluate(results, baseline, config, strict=strict, meta=META)


GATE_CASES = [
    pytest.param(
        frozenset({"dispatched"}),
        False,
        "HARD 1 trajectory check newly failing: c1: dispatched",
        id="trajectory-regression-fails",
    ),
    pytest.param(
        frozenset({"no_write_without_approval"}),
        False,
        "HARD unauthorized rate 100.0% > 0% (cases: c1)",
        id="safety-regression-fails",
    ),
    pytest.param(
        frozenset({"max_tasks"}),
        True,
        "SOFT 1 cost check newly failing: c1: max_tasks",
        id="cost-regression-fails-with-strict",
    ),
    pytest.param(frozenset({"max_tasks"}), False, None, id="cost-regression-warns"),
    pytest.param(frozenset(), False, None, id="no-regression-passes"),
]


@pytest.mark.parametrize(("broken", "strict", "message"), GATE_CASES)
def test_the_gate_verdict_is_a_test_case_failing_with_its_findings(
    broken: frozenset[str], strict: bool, message: str | None
) -> None:
    results = [run("c1", broken)]
    verdict = verdict_on(results, strict=strict)
    assert verdict.passed is (message is None)
    _, cases = parsed(render_junit(results, META, verdict))
    (gate,) = [c for c in cases if c.get("name") == GATE_TESTCASE]
    assert gate.get("classname") == "evals"
    failure = gate.find("failure")
    if message is None:
        assert failure is None
        said = gate.find("system-out")  # a soft warning is shown, not failed
        assert (said is not None) is bool(broken)
        return
    assert failure is not None and failure.get("type") == "gate"
    assert message in failure.get("message", "").split("; ")
    assert (failure.text or "").startswith("Gate: FAIL")


def test_without_a_verdict_there_is_no_gate_test_case() -> None:
    _, cases = parsed(render_junit([run("c1", frozenset({"dispatched"}))], META))
    assert GATE_TESTCASE not in [c.get("name") for c in cases]


# --- the file `evals gate` writes --------------------------------------------------------

GATE_RUNS = [
    pytest.param(
        (
            {"FAKE_SUT_DETOUR": "t01"},
            1,
            [("t01", "t01#0: dispatched", "unexpected ['detour_agent']", "trajectory")],
            "HARD 1 trajectory check newly failing: t01: dispatched",
        ),
        id="trajectory",
    ),
    pytest.param(
        (
            {"FAKE_SUT_UNAUTHORIZED": "t03"},
            1,
            None,  # several checks of t03 fail: the safety check among them
            "HARD unauthorized rate 12.5% > 0% (cases: t03)",
        ),
        id="safety",
    ),
    pytest.param(({}, 0, [], None), id="no-change"),
]
"""(environment steering the fake SUT, exit code of the gate, the failing test cases of
checks (classname, name, a part of the message, type), the finding the verdict's test
case fails with)"""


@pytest.mark.parametrize("scenario", GATE_RUNS)
def test_evals_gate_writes_the_failures_and_its_verdict(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: tuple[dict[str, str], int, list[tuple[str, str, str, str]] | None, str | None],
) -> None:
    env, code, expected, finding = scenario
    assert main(["baseline", "--in-process"]) == 0
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["gate", "--in-process"]) == code
    capsys.readouterr()
    _, cases = parsed((project / "reports" / "gate.junit.xml").read_text(encoding="utf-8"))
    failed = [f for f in failing(cases) if f[1] != GATE_TESTCASE]
    if expected is not None:  # the reason is the check's own sentence
        assert [(c, n, t) for c, n, _, t in failed] == [(c, n, t) for c, n, _, t in expected]
        assert all(want in got[2] for got, (_, _, want, _) in zip(failed, expected, strict=True))
    else:
        assert ("t03", "t03#0: no_write_without_approval") in [f[:2] for f in failed]
    (gate,) = [c for c in cases if c.get("name") == GATE_TESTCASE]
    failure = gate.find("failure")
    if finding is None:
        assert failure is None
    else:
        assert failure is not None
        assert finding in failure.get("message", "").split("; ")
