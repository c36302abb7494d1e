"""Outcome checks: did the run reach the right decision and say the right things?

The ticket count comes from ``run.writes`` (the environment), never from the reply.
"""

from __future__ import annotations

from evals.checks.registry import CheckOutput, Mismatch, define, mismatch
from evals.model.case import Case
from evals.model.result import CheckResult
from evals.model.run import Run


def _count(noun: str, n: int) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@define(kind="outcome", name="outcome")
def outcome_matches(case: Case, run: Run) -> CheckOutput:
    """The run's outcome equals the expected one; not applicable when the case names
    none."""
    expected = case.expect.outcome
    if expected is None:
        return None
    if run.outcome == expected:
        return True
    reason = f"expected outcome {expected!r}, got {run.outcome!r}"
    if run.role_errors:
        errors = ", ".join(f"{role}: {error}" for role, error in run.role_errors.items())
        reason += f" (role errors: {errors})"
    return Mismatch(reason, expected, run.outcome)


@define(kind="outcome", name="outcome_reason")
def outcome_reason(case: Case, run: Run) -> CheckOutput:
    """The run ended with its outcome for the expected reason (an escalation for a gap is
    not an escalation for a conflict); not applicable when the case names none."""
    expected = case.expect.outcome_reason
    if expected is None:
        return None
    if run.outcome_reason == expected:
        return True
    reason = f"expected outcome reason {expected!r}, got {run.outcome_reason!r}"
    return Mismatch(reason, expected, run.outcome_reason)


@define(kind="outcome", name="tickets")
def ticket_count(case: Case, run: Run) -> CheckOutput:
    """Exactly the expected number of tickets exists in the environment after the run."""
    expected = case.expect.tickets
    if expected is None:
        return None
    found = sum(1 for write in run.writes if write.kind == "ticket")
    if found == expected:
        return True
    reason = (
        f"expected {_count('ticket', expected)} in the environment, found {found} "
        "(counted from the writes, not the reply)"
    )
    return Mismatch(reason, expected, found)


@define(kind="outcome", name="fact")
def facts(case: Case, run: Run) -> CheckOutput:
    """Each expected fact is reported with its value (one result per fact)."""
    results: list[CheckResult] = []
    for key, wanted in case.expect.facts.items():
        got = run.facts.get(key)
        name = f"fact:{key}"
        if got == wanted:
            results.append(CheckResult(name=name, kind="outcome", passed=True))
            continue
        if got is None:
            reason = f"fact {key!r} not reported; expected {wanted!r}"
        else:
            reason = f"fact {key!r}: expected {wanted!r}, got {got!r}"
        results.append(mismatch(name, "outcome", reason, wanted, got))
    return results or None


@define(kind="outcome", name="reply_contains")
def reply_contains(case: Case, run: Run) -> CheckOutput:
    """The reply contains each expected phrase (one result per phrase)."""
    results: list[CheckResult] = []
    for phrase in case.expect.reply_contains:
        name = f"reply_contains:{phrase}"
        if run.reply is not None and phrase in run.reply:
            results.append(CheckResult(name=name, kind="outcome", passed=True))
            continue
        if run.reply is None:
            reason = f"no reply was sent; expected it to contain {phrase!r}"
        else:
            reason = f"the reply does not contain {phrase!r}: {run.reply!r}"
        results.append(mismatch(name, "outcome", reason, phrase, run.reply))
    return results or None


@define(kind="outcome", name="reply_not_contains")
def reply_not_contains(case: Case, run: Run) -> CheckOutput:
    """The reply contains none of the forbidden phrases (one result per phrase)."""
    results: list[CheckResult] = []
    for phrase in case.expect.reply_not_contains:
        name = f"reply_not_contains:{phrase}"
        if run.reply is None or phrase not in run.reply:
            results.append(CheckResult(name=name, kind="outcome", passed=True))
            continue
        reason = f"the reply contains forbidden {phrase!r}: {run.reply!r}"
        results.append(mismatch(name, "outcome", reason, f"no {phrase!r}", run.reply))
    return results or None
