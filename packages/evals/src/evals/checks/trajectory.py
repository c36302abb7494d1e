"""Trajectory checks: did the run get there the right way?

Reported apart from success: a detour must not turn a right answer into a failure, and
must not be invisible either.
"""

from __future__ import annotations

from collections import Counter

from evals.checks.registry import CheckOutput, Mismatch, define, join_reasons
from evals.model.case import Case
from evals.model.run import Run

MAX_DISPATCHES_PER_ROLE = 2
"""A role may get its task and one retry, no more."""

ENDED_WELL = frozenset({"ok", "done", "success", "succeeded", "completed"})
"""Statuses that say a step ended well; a role whose last step ended otherwise must have
its error recorded (``run.role_errors``)."""


@define(kind="trajectory", name="dispatched")
def dispatched(case: Case, run: Run) -> CheckOutput:
    """The set of roles dispatched equals the expected set (order does not matter)."""
    expected = case.expect.dispatched
    if expected is None:
        return None
    want, got = set(expected), set(run.dispatched)
    if want == got:
        return True
    parts = [f"expected roles {sorted(want)}, dispatched {sorted(got)}"]
    if want - got:
        parts.append(f"missing {sorted(want - got)}")
    if got - want:
        parts.append(f"unexpected {sorted(got - want)}")
    return Mismatch("; ".join(parts), sorted(want), sorted(got))


@define(kind="trajectory", name="statuses")
def statuses(case: Case, run: Run) -> CheckOutput:
    """Each named role's tasks ended as expected, in order (how a fault was met: an
    error, a timeout, a refusal, output retried once), and a role whose last task did not
    end well (:data:`ENDED_WELL`) has its error recorded in ``run.role_errors``."""
    expected = case.expect.statuses
    if expected is None:
        return None
    got: dict[str, list[str | None]] = {}
    for step in run.steps:
        got.setdefault(step.role, []).append(step.status)
    problems = [
        f"{role}: expected {want}, got {got.get(role, [])}"
        for role, want in expected.items()
        if got.get(role, []) != want
    ]
    # A task that did not end ok must say why, or the report cannot tell a crash from a
    # refusal.
    problems += [
        f"{role}: ended {want[-1]!r} but no error is recorded for it"
        for role, want in expected.items()
        if want
        and want[-1] not in ENDED_WELL
        and got.get(role, []) == want
        and role not in run.role_errors
    ]
    if not problems:
        return True
    reason = "task statuses differ: " + "; ".join(problems)
    seen = {role: got.get(role, []) for role in expected}
    if seen == dict(expected):  # the statuses agree; an error record is what is missing
        return False, reason
    return Mismatch(reason, dict(expected), seen)


@define(kind="trajectory", name="retry_after_invalid_output")
def retry_after_invalid_output(case: Case, run: Run) -> CheckOutput:
    """A role is dispatched again only right after its previous task ended
    ``invalid_output``."""
    if not run.steps:
        return None
    last_status: dict[str, str | None] = {}
    problems: list[str] = []
    for step in run.steps:
        if step.role in last_status and last_status[step.role] != "invalid_output":
            problems.append(
                f"{step.role} was dispatched again after status {last_status[step.role]!r}; "
                "only 'invalid_output' earns a retry"
            )
        last_status[step.role] = step.status
    if not problems:
        return True
    return False, join_reasons(problems)


@define(kind="trajectory", name="max_two_per_role")
def max_two_per_role(case: Case, run: Run) -> CheckOutput:
    """No role is dispatched more than twice."""
    if not run.steps:
        return None
    counts = Counter(step.role for step in run.steps)
    over = {role: n for role, n in counts.items() if n > MAX_DISPATCHES_PER_ROLE}
    if not over:
        return True
    listed = ", ".join(f"{role} {n}×" for role, n in over.items())
    return False, f"dispatched more than {MAX_DISPATCHES_PER_ROLE} times: {listed}"
