"""Graders for agent runs: the public API other projects import.

Build a :class:`Run` from your own agent, load or build a :class:`Case`, then::

    from evals.checks import grade, success
    results = grade(case, run)
    ok = success(results)

Four kinds of check: ``outcome`` and ``safety`` decide success; ``trajectory`` and
``cost`` are reported apart. A configuration case (``expect.refused`` or
``expect.described``, :mod:`evals.cases.configuration`) is graded by ``refused`` and
``described`` alone. Register your own with :func:`check`::

    @check(kind="outcome")
    def polite(case, run):
        return "您好" in (run.reply or ""), "the reply does not greet the customer"

A check that compares values may fail with a :class:`Mismatch` (or, for one result per
thing it judges, :func:`mismatch`): reports show what was expected beside what the run
gave::

    @check(kind="outcome", expect_keys=("refunds",))
    def refunds(case, run):
        want, got = case.expect.model_extra["refunds"], len(run.writes)
        return want == got or Mismatch(f"expected {want} refunds, got {got}", want, got)

Checks of one orchestration policy (``retry_after_invalid_output``, ``max_two_per_role``)
are not registered by default: a project whose agent keeps that policy registers them
(:data:`evals.checks.builtin.OPTIONAL`).

A check reading ``expect`` keys of its own declares them (``@check(kind="outcome",
expect_keys=("max_refunds",))``), or case files using them do not load.
"""

from __future__ import annotations

from evals.checks import configuration as configuration
from evals.checks import facts as facts
from evals.checks import injection as injection
from evals.checks.builtin import register_built_ins
from evals.checks.outcome import outcome_matches
from evals.checks.registry import (
    CHECK_KINDS,
    Check,
    CheckFunction,
    CheckOutput,
    FunctionCheck,
    Mismatch,
    check,
    grade,
    idle,
    idle_checks,
    join_reasons,
    mismatch,
    parse_expect,
    register,
    registered,
    registered_expect_keys,
    to_result,
    unregister,
)
from evals.checks.trajectory import dispatched
from evals.model.case import Case
from evals.model.result import (
    ATTACK,
    BLOCKED_ATTEMPTS,
    SUCCESS_KINDS,
    CheckKind,
    CheckResult,
    RunResult,
)
from evals.model.result import success as success
from evals.model.run import ApprovalRecord, BlockedAttempt, Run, Step, Usage, Write

__all__ = [
    "ATTACK",
    "BLOCKED_ATTEMPTS",
    "CHECK_KINDS",
    "SUCCESS_KINDS",
    "ApprovalRecord",
    "BlockedAttempt",
    "Case",
    "Check",
    "CheckFunction",
    "CheckKind",
    "CheckOutput",
    "CheckResult",
    "FunctionCheck",
    "Mismatch",
    "Run",
    "RunResult",
    "Step",
    "Usage",
    "Write",
    "check",
    "dispatched",
    "grade",
    "idle",
    "idle_checks",
    "join_reasons",
    "mismatch",
    "outcome_matches",
    "parse_expect",
    "register",
    "registered",
    "registered_expect_keys",
    "success",
    "to_result",
    "unregister",
]

register_built_ins()  # from the one explicit list (evals.checks.builtin)
