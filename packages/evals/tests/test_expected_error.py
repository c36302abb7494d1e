"""A case that injects a provider outage expects the run to end ``error``: such a run is
graded like any other (every check judges it), never set apart as errored, so an outage
reported as a success fails, and an unexpected outage stays an errored run."""

from __future__ import annotations

from typing import Any

import pytest
from evals.cases.lint import lint
from evals.cases.vocabulary import CaseRules
from evals.checks import grade
from evals.gating.baseline import build_baseline
from evals.gating.verdict import GateConfig, evaluate
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.model.case import Case
from evals.model.result import RunResult
from evals.model.run import Run, Write


def case(case_id: str, outcome: str, **expect: Any) -> Case:
    return Case.model_validate(
        {
            "id": case_id,
            "split": "dev",
            "tags": ["fault"],
            "input": {"goal": "包裹没到"},
            "expect": {"outcome": outcome, **expect},
        }
    )


def graded(the_case: Case, **run: Any) -> RunResult:
    record = Run(case_id=the_case.id, trial=0, **run)
    return RunResult.graded(the_case, record, grade(the_case, record))


OUTAGE = case("outage", "error", tickets=0)
"""A case that injects an outage: the right record is an errored run, nothing written."""
PLAIN = case("plain", "replied")


@pytest.mark.parametrize(
    ("the_case", "run", "errored", "success"),
    [
        (OUTAGE, {"outcome": "error", "error": "provider failed (server_error)"}, False, True),
        (OUTAGE, {"outcome": "replied", "reply": "好的"}, False, False),
        (OUTAGE, {"outcome": "escalate"}, False, False),
        (PLAIN, {"outcome": "error", "error": "provider down"}, True, False),
        (PLAIN, {"outcome": "replied", "reply": "好的"}, False, True),
    ],
    ids=["outage-errored", "outage-silent-success", "outage-as-agent-failure", "unexpected", "ok"],
)
def test_an_expected_outage_is_graded_an_unexpected_one_set_apart(
    the_case: Case, run: dict[str, Any], errored: bool, success: bool
) -> None:
    result = graded(the_case, **run)
    assert (result.errored, result.success) == (errored, success)
    assert result.expected_error is (the_case is OUTAGE)


def test_every_check_judges_an_expected_outage() -> None:
    # The tickets check reads the environment's writes, also on an errored run.
    written = Write(kind="ticket", idempotency_key="k:ticket", approval_id="a", approved=True)
    record = Run(case_id="outage", trial=0, outcome="error", error="x", writes=[written])
    checks = {c.name: c for c in grade(OUTAGE, record)}
    assert checks["outcome"].passed and not checks["tickets"].passed
    unexpected = grade(PLAIN, record.model_copy(update={"case_id": "plain"}))
    assert [c.name for c in unexpected] == ["provider_error"]


def test_an_expected_outage_counts_in_the_rates_and_the_gate() -> None:
    ok = graded(OUTAGE, outcome="error", error="provider failed")
    silent = graded(OUTAGE, outcome="replied", reply="好的")
    metrics = compute([ok])
    assert (metrics.errors, metrics.graded_runs, metrics.successes) == (0, 1, 1)
    baseline = build_baseline([ok], RunMeta(suites=["s"]), ())
    config = GateConfig()
    assert evaluate([ok], baseline, config).passed
    failing = evaluate([silent], baseline, config)
    assert not failing.passed and failing.newly_failing == ["outage"]
    unexpected = graded(PLAIN, outcome="error", error="provider down")
    assert compute([unexpected]).errors == 1


def test_every_vocabulary_accepts_the_expected_outage() -> None:
    rules = CaseRules(outcomes=("answered",))
    assert rules.accepts_outcome("error") and rules.accepts_outcome("answered")
    assert not rules.accepts_outcome("sut_error")
    data = OUTAGE.model_dump(mode="json")
    assert rules.problems(data) == []
    found = [f.rule for f in lint([data], rules=rules)]
    assert "unknown_outcome" not in found
    other = [f.rule for f in lint([{**data, "expect": {"outcome": "sut_error"}}], rules=rules)]
    assert "unknown_outcome" in other
