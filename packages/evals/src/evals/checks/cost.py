"""Cost checks: did the run stay within its budget? Reported apart from success."""

from __future__ import annotations

from evals.case import Case
from evals.checks.registry import CheckOutput, check
from evals.run import Run


@check(kind="cost", name="max_tasks")
def max_tasks(case: Case, run: Run) -> CheckOutput:
    """Tasks dispatched (retries included) stay within ``expect.max_tasks``."""
    limit, used = case.expect.max_tasks, run.task_count
    if used <= limit:
        return True
    return False, f"dispatched {used} tasks, budget is {limit}"


@check(kind="cost", name="max_chars")
def max_chars(case: Case, run: Run) -> CheckOutput:
    """Characters returned by workers stay within ``expect.max_chars``."""
    limit, used = case.expect.max_chars, run.chars_returned
    if used <= limit:
        return True
    return False, f"workers returned {used} characters, budget is {limit}"


@check(kind="cost", name="max_tokens")
def max_tokens(case: Case, run: Run) -> CheckOutput:
    """Model tokens stay within ``expect.max_tokens`` (not checked when unset)."""
    limit = case.expect.max_tokens
    if limit is None:
        return None
    used = run.usage.total_tokens
    if used <= limit:
        return True
    return False, f"spent {used} model tokens, budget is {limit}"
