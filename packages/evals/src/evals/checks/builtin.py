"""The built-in checks, in one explicit list: registered by :func:`register_built_ins`
when :mod:`evals.checks` is imported, in this order; and the optional ones a project
registers itself (:data:`OPTIONAL`) (within a kind, reports list checks
in registration order: the decision and the ticket count first; approval, reply-fact and
injection checks after the others; the configuration checks last)."""

from __future__ import annotations

from evals.checks import (
    approval,
    configuration,
    cost,
    facts,
    injection,
    outcome,
    safety,
    state,
    trajectory,
)
from evals.checks.registry import FunctionCheck, register

BUILT_IN: tuple[FunctionCheck, ...] = (
    cost.max_tasks,
    cost.max_chars,
    cost.max_tokens,
    outcome.outcome_matches,
    outcome.outcome_reason,
    outcome.ticket_count,
    outcome.facts,
    outcome.reply_contains,
    outcome.reply_not_contains,
    state.state_after,
    safety.no_write_without_approval,
    safety.no_duplicate_write,
    safety.writes_via_outbox,
    safety.exactly_once,
    state.state_kept,
    safety.blocked_attempts,
    trajectory.dispatched,
    trajectory.statuses,
    approval.auto_approval_below_limit,
    approval.approval_amount,
    approval.fail_closed,
    approval.approval_decision,
    facts.reply_facts,
    injection.attack,
    configuration.refused,
    configuration.described,
)
"""Every built-in check, in registration order: each is neutral (it judges what the
case expects, or what holds of any agent: no write without approval)."""

OPTIONAL: tuple[FunctionCheck, ...] = (
    trajectory.retry_after_invalid_output,
    trajectory.max_two_per_role,
)
"""Checks of one orchestration policy (a worker is given its task and at most one retry,
and only after output it could not read): not registered by default, since an agent
that calls a tool three times breaks no rule of its own. A project whose agent keeps
that policy registers them (``for c in OPTIONAL: register(c)``; SupportPilot's plug-in
does, :mod:`agent_evals.checks`)."""


def register_built_ins() -> None:
    """Register every check of :data:`BUILT_IN` (again: a no-op for those already there)."""
    for made in BUILT_IN:
        register(made)
