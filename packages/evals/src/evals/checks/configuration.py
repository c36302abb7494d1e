"""The checks of configuration cases (:mod:`evals.cases.configuration`): did the SUT refuse
the case with exactly the expected lines, or describe itself exactly as expected?

They grade a configuration case's synthesized run, and nothing else grades it
(:func:`evals.checks.registry.grade`); on any other case they do not apply.
"""

from __future__ import annotations

from collections import Counter

from evals.checks.registry import CheckOutput, define
from evals.model.case import Case
from evals.model.run import ACCEPTED, REFUSED, Run


def _lines(lines: list[str]) -> str:
    return "; ".join(repr(line) for line in lines) or "(no lines)"


@define(kind="outcome", name="refused")
def refused(case: Case, run: Run) -> CheckOutput:
    """The SUT refused the case with exactly ``expect.refused``'s lines, in any order
    (an empty list: it must accept the case); not applicable when the case expects no
    refusal."""
    expected = case.expect.refused
    if expected is None:
        return None
    got = run.refusal
    if run.outcome == ACCEPTED or got == []:
        if not expected:
            return True
        return False, f"the SUT accepted the case; expected it to refuse it with {_lines(expected)}"
    if run.outcome != REFUSED or got is None:
        return False, f"no refusal recorded (outcome {run.outcome!r}); expected {_lines(expected)}"
    want, have = Counter(expected), Counter(got)
    if want == have:
        return True
    parts = []
    missing = list((want - have).elements())
    extra = list((have - want).elements())
    if missing:
        parts.append(f"expected but not given: {_lines(missing)}")
    if extra:
        parts.append(f"given but not expected: {_lines(extra)}")
    return False, "the SUT refused the case otherwise: " + "; and ".join(parts)


@define(kind="outcome", name="described")
def described(case: Case, run: Run) -> CheckOutput:
    """The SUT built for the case described itself with exactly ``expect.described``'s
    lines, in order; not applicable when the case expects no description."""
    expected = case.expect.described
    if expected is None:
        return None
    if run.outcome == REFUSED:
        return False, (
            f"the SUT refused the case ({_lines(run.refusal or [])});"
            f" expected it to describe itself as {_lines(expected)}"
        )
    got = run.description
    if got is None:
        return False, f"no description recorded (outcome {run.outcome!r})"
    if got == expected:
        return True
    differences = []
    for number in range(1, max(len(expected), len(got)) + 1):
        want = expected[number - 1] if number <= len(expected) else None
        have = got[number - 1] if number <= len(got) else None
        if want == have:
            continue
        if have is None:
            differences.append(f"line {number} missing: expected {want!r}")
        elif want is None:
            differences.append(f"line {number} not expected: {have!r}")
        else:
            differences.append(f"line {number}: expected {want!r}, got {have!r}")
    return False, "the description differs: " + "; ".join(differences)
