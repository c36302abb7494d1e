"""Numbers from the SUT are untrusted: every one finite, counts and times at least 0."""

from __future__ import annotations

import pytest
from evals.model.run import ApprovalRecord, Run, Step, Usage, number_problem

GOOD = Run(case_id="c", outcome="replied")


def changed(**fields: object) -> Run:
    """``GOOD`` with ``fields`` set past validation, as a misbehaving SUT can."""
    return GOOD.model_copy(update=fields)


@pytest.mark.parametrize(
    ("run", "problem"),
    [
        (GOOD, None),
        (changed(latency_ms=0.0, tasks=0, chars_returned=0), None),  # 0 is a measure
        (changed(tasks=None), None),  # None: not recorded
        (changed(latency_ms=float("nan")), "latency_ms: not a finite number (nan)"),
        (changed(latency_ms=float("-inf")), "latency_ms: not a finite number (-inf)"),
        (changed(latency_ms=-0.5), "latency_ms: negative (-0.5)"),
        (changed(trial=-1), "trial: negative (-1)"),
        (changed(tasks=-1), "tasks: negative (-1)"),
        (changed(chars_returned=-3), "chars_returned: negative (-3)"),
        # A field the core does not know (a system's own, read back without its class):
        # any sign, never NaN (the system's own class says more: agent_evals' tests).
        (changed(seq_of_mine=-1), None),
        (changed(seq_of_mine=float("nan")), "seq_of_mine: not a finite number (nan)"),
        (changed(tasks=True), "tasks: not a number (bool)"),
        (
            changed(usage=Usage.model_construct(prompt_tokens=1, completion_tokens=-7)),
            "usage.completion_tokens: negative (-7)",
        ),
        (
            changed(steps=[Step(role="a", seq=1), Step.model_construct(role="b", seq=-1)]),
            "steps[1].seq: negative (-1)",
        ),
        (  # an amount may be negative (a refund), never NaN
            changed(approvals=[ApprovalRecord(action="refund", amount=-10.0, decided_by="auto")]),
            None,
        ),
        (
            changed(
                approvals=[
                    ApprovalRecord.model_construct(
                        action="reissue", amount=1.0, expected_amount=float("nan")
                    )
                ]
            ),
            "approvals[0].expected_amount: not a finite number (nan)",
        ),
    ],
)
def test_number_problem(run: Run, problem: str | None) -> None:
    found = number_problem(run)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)
