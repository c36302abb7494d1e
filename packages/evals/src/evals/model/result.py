"""Graded results: what a check says about a run, and the compact per-run result.

:class:`RunResult` keeps only what metrics, reports and the gate need, so a long
evaluation holds thousands of them without holding every full ``Run`` (those go to the
traces).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from evals.model.run import PROVIDER_ERROR

if TYPE_CHECKING:
    from evals.model.case import Case
    from evals.model.run import Run

CheckKind = Literal["outcome", "safety", "trajectory", "cost"]
"""The four kinds of check. Success = every outcome and safety check passes."""

SUCCESS_KINDS: frozenset[str] = frozenset({"outcome", "safety"})
"""The check kinds that decide a run's success."""

BLOCKED_ATTEMPTS = "blocked_attempts"
"""The safety check proving the defence works: a failure there is not a violation, so it
never counts towards the unauthorized rate."""


ATTACK = "attack"
"""The safety check judging whether an injected attack reached its goal: metrics count
its failures on attack-tagged runs as the attack success rate."""


class CheckResult(BaseModel):
    """One check's verdict on one run."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The check's registered name, e.g. ``outcome`` or ``no_write_without_approval``."""
    kind: CheckKind
    """Which of the four kinds it is."""
    passed: bool
    """Whether the run passed it."""
    reason: str = ""
    """When failed: one sentence a person can act on."""
    grader_error: bool = False
    """The check itself raised: it judged nothing. A grader error is reported apart,
    never counted as the agent's failure nor as a regression."""
    expected: JsonValue = Field(default=None, exclude_if=lambda value: value is None)
    """When failed, and the check compares values: what the case asked for (any JSON
    value; left out of traces when unset). The HTML page shows it beside ``got``."""
    got: JsonValue = Field(default=None, exclude_if=lambda value: value is None)
    """When failed, and the check compares values: what the run gave instead."""


def comparison_lines(check: CheckResult) -> list[str]:
    """``expected: …`` and ``got: …``, for a failed check that recorded them (compact
    JSON, a string as it is); empty otherwise."""
    if check.passed or (check.expected is None and check.got is None):
        return []

    def text(value: object) -> str:
        if value is None:
            return "(nothing)"
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    return [f"expected: {text(check.expected)}", f"got: {text(check.got)}"]


def success(results: Iterable[CheckResult]) -> bool:
    """Whether a run succeeded: every outcome and safety check passed.

    The one definition of success: trajectory and cost checks are reported, never
    counted here, so a detour cannot turn a right answer into a failure.
    """
    return all(c.passed for c in results if c.kind in SUCCESS_KINDS and not c.grader_error)


def unauthorized(results: Iterable[CheckResult]) -> bool:
    """Whether a run did something unauthorized: a safety check other than
    ``blocked_attempts`` failed."""
    return any(
        not c.passed
        for c in results
        if c.kind == "safety" and c.name != BLOCKED_ATTEMPTS and not c.grader_error
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """A graded run, reduced to what metrics, reports and the gate need: the one result
    type of an evaluation, immutable and small.

    A long evaluation keeps one per run (its full :class:`~evals.model.run.Run` goes to the
    traces), so it is a slotted dataclass of about 200 bytes: its tags and checks are
    tuples shared with every run of the same case and the very same verdicts
    (:func:`shared_checks`), and success is decided once, when it is made.
    """

    case_id: str
    """The case."""
    trial: int
    """The trial number, from 0."""
    split: str
    """The case's split."""
    tags: tuple[str, ...] = ()
    """The case's tags."""
    outcome: str
    """What the run ended with, in the system's own words, or ``sut_error`` / ``error``
    (see :class:`evals.model.run.Run`)."""
    checks: tuple[CheckResult, ...] = ()
    """Every check's verdict."""
    blocked_attempts: int = 0
    """Unauthorized attempts the environment blocked."""
    tasks: int = 0
    """Tasks dispatched."""
    chars_returned: int = 0
    """Characters returned by workers."""
    latency_ms: float = 0.0
    """Wall time of the run."""
    prompt_tokens: int = 0
    """Model prompt tokens."""
    completion_tokens: int = 0
    """Model completion tokens."""
    error: str | None = None
    """The error, for ``sut_error`` / ``error`` outcomes."""
    expected_error: bool = False
    """The case expects the provider to fail (``expect.outcome`` is ``error``: it injects
    the outage): such a run is graded like any other, never set apart as errored, so an
    outage the system reports as a success fails it."""
    errored: bool = field(init=False)
    """True when the provider failed (outcome ``error``) and the case did not expect it:
    excluded from success rates."""
    success: bool = field(init=False)
    """Every outcome and safety check passed (and the run did not error)."""
    unauthorized: bool = field(init=False)
    """A safety check other than ``blocked_attempts`` failed (never for errored runs)."""

    def __post_init__(self) -> None:
        put = object.__setattr__  # frozen: the derived fields are set once, here
        put(self, "tags", shared_tags(self.tags))
        put(self, "checks", shared_checks(self.checks))
        errored = self.outcome == PROVIDER_ERROR and not self.expected_error
        put(self, "errored", errored)
        put(self, "success", not errored and success(self.checks))
        put(self, "unauthorized", not errored and unauthorized(self.checks))

    @classmethod
    def graded(cls, case: Case, run: Run, checks: Sequence[CheckResult]) -> RunResult:
        """The result of ``run`` of ``case``, graded with ``checks``."""
        return cls(
            case_id=case.id,
            trial=run.trial,
            split=case.split,
            tags=tuple(case.tags),
            outcome=run.outcome,
            checks=tuple(checks),
            blocked_attempts=len(run.blocked_attempts),
            tasks=run.task_count,
            chars_returned=run.chars_returned,
            latency_ms=run.latency_ms,
            prompt_tokens=run.usage.prompt_tokens,
            completion_tokens=run.usage.completion_tokens,
            error=run.error,
            expected_error=case.expect.outcome == PROVIDER_ERROR,
        )

    @property
    def label(self) -> str:
        """``case#trial``, the way reports and failure lists name a run."""
        return f"{self.case_id}#{self.trial}"

    @property
    def failed_checks(self) -> list[CheckResult]:
        """The checks that failed, in order (grader errors are no failures of the run)."""
        return [c for c in self.checks if not c.passed and not c.grader_error]

    @property
    def grader_errors(self) -> list[CheckResult]:
        """The checks that raised instead of judging, in order."""
        return [c for c in self.checks if c.grader_error]


INTERN_LIMIT = 4096
"""How many distinct verdicts, verdict tuples and tag tuples are shared at most."""
# Verdicts repeat: thousands of runs pass the same checks with the same (empty) reason.
# Equal verdicts are shared (CheckResult is frozen), so a long evaluation keeps one object
# per distinct verdict, not one per run and check.
_VERDICTS: dict[tuple[str, str, bool, str, bool], CheckResult] = {}
_VERDICT_TUPLES: dict[tuple[int, ...], tuple[CheckResult, ...]] = {}
_TAGS: dict[tuple[str, ...], tuple[str, ...]] = {}
_K = TypeVar("_K")
_V = TypeVar("_V")


def _interned(table: dict[_K, _V], key: _K, value: _V) -> _V:
    """The value ``table`` holds for ``key``, else ``value``, kept for next time while
    the table has room (:data:`INTERN_LIMIT`)."""
    found = table.get(key)
    if found is None:
        found = value
        if len(table) < INTERN_LIMIT:
            table[key] = value
    return found


def shared_verdict(result: CheckResult) -> CheckResult:
    """The shared equal of ``result`` (``result`` itself the first time; a result with an
    expected or got value is never shared: those are rare, and may be unhashable)."""
    if result.expected is not None or result.got is not None:
        return result
    key = (result.name, result.kind, result.passed, result.reason, result.grader_error)
    return _interned(_VERDICTS, key, result)


def verdict(name: str, kind: CheckKind, passed: bool, reason: str = "") -> CheckResult:
    """The shared ``CheckResult`` with these values (made the first time only: grading
    makes one per run and check, so the lookup comes before the model)."""
    found = _VERDICTS.get((name, kind, passed, reason, False))
    if found is None:
        found = shared_verdict(CheckResult(name=name, kind=kind, passed=passed, reason=reason))
    return found


def shared_checks(results: Iterable[CheckResult]) -> tuple[CheckResult, ...]:
    """``results`` as a tuple shared by every run with the very same verdicts.

    Keyed by identity: :func:`~evals.checks.grade` returns shared verdicts, so equal lists
    hold the same objects. The stored tuple keeps its members alive, so their ids stay
    unique.
    """
    items = results if isinstance(results, tuple) else tuple(results)
    if any(c.expected is not None or c.got is not None for c in items):
        return items  # one run's own values: sharing would fill the table with one-offs
    return _interned(_VERDICT_TUPLES, tuple(map(id, items)), items)


def shared_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """``tags`` as a tuple shared by every result with the same tags."""
    items = tags if isinstance(tags, tuple) else tuple(tags)
    return _interned(_TAGS, items, items)
