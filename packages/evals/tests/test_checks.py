"""Grading as a whole: the registry, success, error runs and the reference cases."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import evals.checks as checks_api
import pytest
from evals.checks import (
    CHECK_KINDS,
    Case,
    Check,
    CheckResult,
    Run,
    RunResult,
    check,
    grade,
    register,
    registered,
    registered_expect_keys,
    success,
    to_result,
    unregister,
)
from evals.errors import CheckRegistrationError, RunMismatchError
from evals.model.run import BlockedAttempt, Step, Usage, Write
from helpers import run_doc_shell


def failed_names(results: list[CheckResult]) -> set[str]:
    return {r.name for r in results if not r.passed}


def test_public_api_is_curated() -> None:
    for name in [
        "grade",
        "success",
        "Check",
        "CheckResult",
        "Run",
        "Case",
        "register",
        "check",
        "to_result",
        "registered",
        "registered_expect_keys",
    ]:
        assert name in checks_api.__all__
        assert getattr(checks_api, name).__doc__


def _defined_in_evals(check_obj: Check) -> bool:
    """Defined and registered by the evals themselves: the optional policy pair is
    defined there but registered only by a project (SupportPilot's plug-in may be
    imported in the same process)."""
    from evals.checks.builtin import OPTIONAL

    defined = getattr(check_obj, "function", None) or type(check_obj)
    in_evals = str(getattr(defined, "__module__", "")).startswith("evals.")
    return in_evals and check_obj not in OPTIONAL


def test_builtin_checks_are_registered_by_kind() -> None:
    # Only the evals' own: a SUT imported in the same process (SupportPilot's
    # agent_evals.checks) may register checks of its own.
    names = {
        kind: [c.name for c in registered(kind) if _defined_in_evals(c)]
        for kind in ("outcome", "safety", "trajectory", "cost")
    }
    assert names == {
        "outcome": [
            "outcome",
            "outcome_reason",
            "tickets",
            "fact",
            "reply_contains",
            "reply_not_contains",
            "state_after",
            "approval",
            "reply_facts",
            "refused",
            "described",
        ],
        "safety": [
            "no_write_without_approval",
            "no_duplicate_write",
            "writes_via_outbox",
            "exactly_once",
            "state_kept",
            "blocked_attempts",
            "auto_approval_below_limit",
            "approval_amount",
            "fail_closed",
            "attack",
        ],
        "trajectory": [
            "dispatched",
            "statuses",
        ],
        "cost": ["max_tasks", "max_chars", "max_tokens"],
    }
    kinds = [c.kind for c in registered()]
    assert kinds == sorted(kinds, key=["outcome", "safety", "trajectory", "cost"].index)
    assert all(isinstance(c, Check) for c in registered())


def test_every_reference_case_passes_every_check_on_an_ideal_run(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    for case in reference_cases.values():
        results = grade(case, ideal_run(case))
        assert failed_names(results) == set(), (case.id, [r for r in results if not r.passed])
        assert success(results)


def test_ideal_runs_are_judged_by_the_checks_their_case_asks_for(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run]
) -> None:
    names = {r.name for r in grade(reference_cases["d01"], ideal_run(reference_cases["d01"]))}
    assert {
        "outcome",
        "tickets",
        "fact:parcel_state",
        "fact:stale_hours",
        "reply_contains:提交补发申请",
        "dispatched",
    } <= names
    assert "blocked_attempts" not in names
    assert "no_dispatch_when_asking" not in names
    ask = {r.name for r in grade(reference_cases["d05"], ideal_run(reference_cases["d05"]))}
    assert "outcome" in ask
    assert "tickets" not in ask
    assert "blocked_attempts" in {
        r.name for r in grade(reference_cases["t03"], ideal_run(reference_cases["t03"]))
    }


def test_flaky_failure_fails_outcome_tickets_and_dispatched(
    reference_cases: dict[str, Case], flaky_failure: Callable[..., Run]
) -> None:
    results = grade(reference_cases["r04"], flaky_failure(reference_cases["r04"]))
    # r04 states hours and threshold in its reply; the crashed run sent none.
    assert failed_names(results) == {
        "outcome",
        "tickets",
        "dispatched",
        "statuses",
        "reply_facts:shipment.stale_hours",
        "reply_facts:policy.reissue_threshold_hours",
    }
    reasons = {r.name: r.reason for r in results}
    assert "expected outcome 'replied', got 'escalate'" in reasons["outcome"]
    assert "logistics_agent" in reasons["outcome"]
    assert "expected 1 ticket in the environment, found 0" in reasons["tickets"]
    assert "missing ['reply_agent']" in reasons["dispatched"]
    assert not success(results)


@pytest.mark.parametrize(
    ("kind", "counts"),
    [("outcome", True), ("safety", True), ("trajectory", False), ("cost", False)],
)
def test_success_counts_only_outcome_and_safety(kind: str, counts: bool) -> None:
    results = [
        CheckResult(name="a", kind="outcome", passed=True),
        CheckResult(name="b", kind="safety", passed=True),
        CheckResult(name="x", kind=kind, passed=False, reason="broken"),  # type: ignore[arg-type]
    ]
    assert success(results) is (not counts)
    run_result = RunResult(case_id="c", trial=0, split="dev", outcome="replied", checks=results)
    assert run_result.success is (not counts)


def test_success_of_a_clean_run() -> None:
    assert success([CheckResult(name="a", kind="outcome", passed=True)])
    assert success([])


def test_sut_error_yields_one_failed_outcome_check_naming_the_error(
    reference_cases: dict[str, Case],
) -> None:
    run = Run(case_id="d01", outcome="sut_error", error="KeyError('orders')")
    results = grade(reference_cases["d01"], run)
    assert len(results) == 1
    assert (results[0].name, results[0].kind, results[0].passed) == ("sut_error", "outcome", False)
    assert "KeyError('orders')" in results[0].reason
    result = to_result(reference_cases["d01"], run)
    assert not result.success
    assert not result.errored


def test_provider_error_yields_one_failed_check_and_is_excluded(
    reference_cases: dict[str, Case],
) -> None:
    run = Run(case_id="d01", outcome="error", error="APIConnectionError")
    results = grade(reference_cases["d01"], run)
    assert [(r.name, r.passed) for r in results] == [("provider_error", False)]
    assert "APIConnectionError" in results[0].reason
    result = to_result(reference_cases["d01"], run, results)
    assert result.errored
    assert not result.success
    assert not result.unauthorized


def test_an_errored_run_never_succeeds_even_without_failed_checks() -> None:
    errored = RunResult(case_id="c", trial=0, split="dev", outcome="error", checks=[])
    assert errored.errored
    assert not errored.success
    assert not errored.unauthorized


def test_grading_another_cases_run_is_refused(reference_cases: dict[str, Case]) -> None:
    with pytest.raises(RunMismatchError, match="'d02'"):
        grade(reference_cases["d01"], Run(case_id="d02", outcome="replied"))


@pytest.fixture
def scratch_check() -> Iterator[list[str]]:
    """Names registered by a test, removed afterwards so the registry stays built-in."""
    names: list[str] = []
    yield names
    for name in names:
        unregister(name)


def test_a_project_registers_its_own_check(
    reference_cases: dict[str, Case], ideal_run: Callable[..., Run], scratch_check: list[str]
) -> None:
    @check(kind="outcome")
    def greets_customer(case: Case, run: Run) -> tuple[bool, str]:
        """The reply starts with a greeting."""
        return (run.reply or "").startswith("您好"), "the reply does not greet the customer"

    scratch_check.append("greets_customer")
    case = reference_cases["d01"]
    run = ideal_run(case)
    assert "greets_customer" in [c.name for c in registered("outcome")]
    assert "greets_customer" not in failed_names(grade(case, run))
    rude = run.model_copy(update={"reply": (run.reply or "").removeprefix("您好，")})
    results = grade(case, rude)
    assert failed_names(results) == {"greets_customer"}
    assert not success(results)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (None, []),
        (True, [("mine", True, "")]),
        (False, [("mine", False, "mine failed")]),
        ((False, "too slow"), [("mine", False, "too slow")]),
        (CheckResult(name="mine:a", kind="cost", passed=True), [("mine:a", True, "")]),
        (
            [CheckResult(name="mine:a", kind="cost", passed=False, reason="r")],
            [("mine:a", False, "r")],
        ),
    ],
)
def test_check_outputs_are_normalized(
    reference_cases: dict[str, Case],
    scratch_check: list[str],
    output: object,
    expected: list[tuple[str, bool, str]],
) -> None:
    made = check(kind="cost", name="mine")(lambda case, run: output)  # type: ignore[arg-type,return-value]
    scratch_check.append("mine")
    case = reference_cases["d05"]
    results = grade(case, Run(case_id="d05", outcome="ask_user"), [made])
    assert [(r.name, r.passed, r.reason) for r in results] == expected


def test_a_check_that_raises_fails_instead_of_stopping(
    reference_cases: dict[str, Case], scratch_check: list[str]
) -> None:
    def explode(case: Case, run: Run) -> bool:
        raise ZeroDivisionError("division by zero")

    made = check(kind="safety", name="explodes")(explode)
    scratch_check.append("explodes")
    results = grade(reference_cases["d05"], Run(case_id="d05", outcome="ask_user"), [made])
    assert [(r.name, r.kind, r.grader_error) for r in results] == [("explodes", "safety", True)]
    assert "ZeroDivisionError" in results[0].reason


def test_a_grader_error_is_no_failure_of_the_run() -> None:
    raised = CheckResult(name="explodes", kind="safety", passed=False, grader_error=True)
    fine = CheckResult(name="outcome", kind="outcome", passed=True)
    graded = RunResult(
        case_id="d05", trial=0, split="dev", outcome="ask_user", checks=[fine, raised]
    )
    assert graded.success and not graded.unauthorized
    assert graded.failed_checks == [] and graded.grader_errors == [raised]


def test_registering_the_same_definition_again_is_harmless(
    reference_cases: dict[str, Case], scratch_check: list[str]
) -> None:
    # A notebook cell or a test module run twice defines the same check twice.
    scratch_check.append("twice")
    for verdict in (True, False):

        def twice(case: Case, run: Run, verdict: bool = verdict) -> bool:
            return verdict

        made = check(kind="outcome", name="twice")(twice)
    assert [c for c in registered() if c.name == "twice"] == [made]
    results = grade(reference_cases["d05"], Run(case_id="d05", outcome="ask_user"), [made])
    assert [(r.name, r.passed) for r in results] == [("twice", False)]  # the last one


def test_registration_refuses_duplicates_and_bad_kinds(scratch_check: list[str]) -> None:
    with pytest.raises(
        CheckRegistrationError, match=r"'outcome' is already registered \(from evals.checks"
    ):
        check(kind="outcome", name="outcome")(lambda case, run: True)
    with pytest.raises(CheckRegistrationError, match="kind 'style'"):
        check(kind="style", name="styled")(lambda case, run: True)  # type: ignore[arg-type]
    assert "styled" not in [c.name for c in registered()]


def test_register_accepts_any_object_with_name_kind_and_call(
    reference_cases: dict[str, Case], scratch_check: list[str]
) -> None:
    class MaxLatency:
        name = "max_latency"
        kind = "cost"

        def __call__(self, case: Case, run: Run) -> tuple[bool, str]:
            return run.latency_ms <= 1000, f"took {run.latency_ms} ms"

    register(MaxLatency())  # type: ignore[arg-type]
    scratch_check.append("max_latency")
    slow = Run(case_id="d05", outcome="ask_user", latency_ms=5000)
    results = grade(reference_cases["d05"], slow)
    assert ("max_latency", False, "took 5000.0 ms") in [
        (r.name, r.passed, r.reason) for r in results
    ]
    assert success(results)  # a cost check never decides success


def test_to_result_carries_what_metrics_need(reference_cases: dict[str, Case]) -> None:
    case = reference_cases["t03"]
    run = Run(
        case_id="t03",
        trial=2,
        outcome="escalate",
        outcome_reason="specialist_failed",
        steps=[Step(role="order_agent"), Step(role="logistics_agent"), Step(role="policy_agent")],
        blocked_attempts=[BlockedAttempt(role="policy_agent", tool="support__create_ticket")],
        chars_returned=321,
        latency_ms=12.5,
        usage=Usage(prompt_tokens=100, completion_tokens=20),
    )
    result = to_result(case, run)
    assert (result.case_id, result.trial, result.split, result.tags) == (
        "t03",
        2,
        "test",
        tuple(case.tags),
    )
    assert (result.blocked_attempts, result.tasks, result.chars_returned) == (1, 3, 321)
    assert (result.latency_ms, result.prompt_tokens, result.completion_tokens) == (12.5, 100, 20)
    assert result.success
    assert result.label == "t03#2"
    assert result.checks == tuple(grade(case, run))


def test_unauthorized_excludes_only_blocked_attempts() -> None:
    def result_with(name: str) -> RunResult:
        failed = CheckResult(name=name, kind="safety", passed=False, reason="r")
        return RunResult(case_id="c", trial=0, split="dev", outcome="escalate", checks=[failed])

    assert not result_with("blocked_attempts").unauthorized
    assert result_with("no_write_without_approval").unauthorized
    assert result_with("writes_via_outbox").unauthorized
    assert not result_with("blocked_attempts").success  # still a failure, just not a violation


def test_writes_default_to_the_outbox_path() -> None:
    write = Write(kind="ticket")
    assert write.via_outbox
    assert not write.approved


def test_every_snippet_of_the_guide_in_docs_checks_md_runs(tmp_path: Path) -> None:
    """The guide "Evaluate your own agent": every python block runs (one namespace, as
    the guide continues itself), every sh block runs from a copy of the repository's
    examples (a block that rewrites a baseline must not touch the repository) and exits
    0, with this venv's python."""
    root = Path(__file__).resolve().parents[3]
    ignore = shutil.ignore_patterns("__pycache__", "traces", "reports", "*.sqlite")
    shutil.copytree(root / "examples", tmp_path / "examples", ignore=ignore)
    doc = (root / "docs" / "checks.md").read_text("utf-8")
    blocks = [part.split("```", 1)[0] for part in doc.split("```python\n")[1:]]
    shells = [part.split("```", 1)[0] for part in doc.split("```sh\n")[1:]]
    fences = doc.count("\n```") // 2
    assert len(blocks) >= 4 and len(shells) >= 1
    assert len(blocks) + len(shells) == fences, "a snippet of another language is untested"
    namespace: dict[str, object] = {}
    try:
        for code in blocks:
            exec(compile(code, "docs/checks.md", "exec"), namespace)
        assert "greets_customer" in [c.name for c in registered("outcome")]
    finally:
        unregister("greets_customer")
        unregister("answer_contains")
        unregister("refunds")
    for script in shells:
        run_doc_shell(script, tmp_path)
    committed = (root / "examples" / "refund_agent" / "baseline.json").read_bytes()
    assert (tmp_path / "examples" / "refund_agent" / "baseline.json").read_bytes() != committed


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ("max_refunds", "is a string"),
        (("max_refunds", 3), "expected a collection of non-empty strings"),
        (("",), "expected a collection of non-empty strings"),
    ],
)
def test_declared_expect_keys_must_be_strings(
    scratch_check: list[str], keys: object, words: str
) -> None:
    with pytest.raises(CheckRegistrationError, match=words):
        check(kind="outcome", name="refunds", expect_keys=keys)(lambda case, run: True)  # type: ignore[arg-type]
    assert "refunds" not in [c.name for c in registered()]


def test_an_object_check_declares_expect_keys_by_attribute(scratch_check: list[str]) -> None:
    class Tone:
        name = "tone"
        kind = "outcome"
        expect_keys = ("tone",)

        def __call__(self, case: Case, run: Run) -> None:
            return None

    assert "tone" not in registered_expect_keys()
    register(Tone())  # type: ignore[arg-type]
    scratch_check.append("tone")
    assert "tone" in registered_expect_keys()
    Tone.expect_keys = "tone"  # type: ignore[assignment]
    with pytest.raises(CheckRegistrationError, match="expect_keys 'tone'"):
        register(Tone(), replace=True)  # type: ignore[arg-type]


def test_every_built_in_check_is_in_the_one_list_and_registered_in_its_order() -> None:
    from evals.checks import builtin
    from evals.checks.registry import FunctionCheck

    defined = {
        value
        for module in (sys.modules[name] for name in list(sys.modules))
        if getattr(module, "__name__", "").startswith("evals.checks.")
        for value in vars(module).values()
        if isinstance(value, FunctionCheck)
    }
    # None made with define() and left out; the optional policy pair is never registered
    # by the core (a project registers it: SupportPilot's plug-in does).
    assert defined == set(builtin.BUILT_IN) | set(builtin.OPTIONAL)
    # Importing the public API registers none of the pair (asked of a fresh process: a
    # project imported in this one may have registered them).
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "from evals.checks import registered\n"
            "print(sorted(c.name for c in registered('trajectory')))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert fresh.stdout.strip() == str(["dispatched", "statuses"])
    ours = [c for c in registered() if c in builtin.BUILT_IN]
    by_kind = sorted(builtin.BUILT_IN, key=lambda c: CHECK_KINDS.index(c.kind))
    assert ours == by_kind
