"""Cost checks: did the run stay within its budget? Reported apart from success."""

from __future__ import annotations

from evals.checks.registry import CheckOutput, Mismatch, define
from evals.model.case import Case
from evals.model.run import Run


def _within(used: int, limit: int | None, spent: str) -> CheckOutput:
    """Pass when ``used <= limit``; not applicable without a limit."""
    if limit is None:
        return None
    if used <= limit:
        return True
    return Mismatch(f"{spent.format(used=used)}, budget is {limit}", f"at most {limit}", used)


@define(kind="cost", name="max_tasks")
def max_tasks(case: Case, run: Run) -> CheckOutput:
    """Tasks dispatched (retries included) stay within ``expect.max_tasks`` (not checked
    when unset); never counted as fewer than the steps the run recorded (a system
    under-reporting its own count)."""
    used = max(run.task_count, len(run.steps))
    return _within(used, case.expect.max_tasks, "dispatched {used} tasks")


@define(kind="cost", name="max_chars")
def max_chars(case: Case, run: Run) -> CheckOutput:
    """Characters the tools or workers returned into the agent's context stay within
    ``expect.max_chars`` (not checked when unset)."""
    spent = "returned {used} characters into the agent's context"
    return _within(run.chars_returned, case.expect.max_chars, spent)


@define(kind="cost", name="max_tokens")
def max_tokens(case: Case, run: Run) -> CheckOutput:
    """Model tokens stay within ``expect.max_tokens`` (not checked when unset)."""
    return _within(run.usage.total_tokens, case.expect.max_tokens, "spent {used} model tokens")
