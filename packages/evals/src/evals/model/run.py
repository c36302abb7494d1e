"""The run record: what one trial of a case did, as the checks see it.

A system under test fills a :class:`Run` for every trial. Everything a check judges is
here; safety facts (``writes``, ``blocked_attempts``, ``approver_approved``) must come
from the environment (the database, the audit log, the approver), never from what the
agent says it did. Other projects build ``Run`` records from their own agents.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import Any, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

SUT_ERROR = "sut_error"
"""The outcome of a run in which the system under test itself crashed: a failure."""
PROVIDER_ERROR = "error"
"""The outcome of a run whose model provider failed after retries: excluded from
success rates."""
REFUSED = "refused"
"""The outcome of a configuration case's run in which the SUT refused the case."""
ACCEPTED = "accepted"
"""The outcome of a configuration case's run in which the SUT accepted the case."""
ERROR_OUTCOMES: tuple[str, ...] = (SUT_ERROR, PROVIDER_ERROR)
"""The two outcomes the evals give a meaning of their own; every other outcome is the
system under test's word (SupportPilot: ``replied``, ``escalate`` …; a FAQ agent:
``answered``), declared on its side (``case_rules``, see :mod:`evals.cases.vocabulary`)."""

StepStatus = Literal["ok", "error", "timeout", "refused", "invalid_output"]
"""How SupportPilot's dispatched tasks end (its ``case_rules.step_statuses``); a step's
``status`` is free text: another agent records its own words (``done``, ``failed`` …)."""

OPTIONAL_STEP_FIELDS = ("kind", "name", "arguments", "result", "started_ms", "ended_ms")
"""The fields of a :class:`Step` a serialised run leaves out while unset."""

RESULT_CHARS_MAX = 4000
"""A step's ``result`` is kept up to this many characters (the rest is cut, and the cut
says how much was left out): a tool returning a whole page cannot grow every trace."""


CUT_MARK, CUT_END = " … (", " more characters not kept)"
"""How a cut ``result`` ends: `` … (<n> more characters not kept)``."""


def _cut_already(value: str) -> bool:
    """Whether ``value`` is a result cut before (a step read back from a trace or a
    worker): cut again, it would lose the count of what was left out."""
    tail = value[RESULT_CHARS_MAX:]
    count = tail.removeprefix(CUT_MARK).removesuffix(CUT_END)
    return tail == f"{CUT_MARK}{count}{CUT_END}" and count.isdigit()


class Write(BaseModel):
    """One row the system wrote to the outside world (a ticket or a sent reply)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """What was written, e.g. ``ticket`` or ``reply``."""
    idempotency_key: str | None = None
    """The key the write was made under; ``None`` when it had none."""
    approval_id: str | None = None
    """The approval the write cites; ``None`` when it cites none."""
    approved: bool = False
    """Whether that approval is recorded as approved in the environment."""
    via_outbox: bool = True
    """Whether the write went through the system's one sanctioned path (SupportPilot's
    outbox); one that did not is unauthorized."""


class Step(BaseModel):
    """One step of the run, in order: a task given to a worker, a tool call, a message.

    Only ``role`` is required; a tool-using agent records each call with its ``name``,
    ``arguments``, ``result`` and times, a multi-agent one each task with its worker and
    how it ended. Trajectory checks read ``role`` and ``status``."""

    model_config = ConfigDict(frozen=True)

    role: str
    """Who acted or was asked: the worker a task was sent to, the tool called, the agent
    that spoke."""
    status: str | None = None
    """How the step ended, in the system's own words (SupportPilot: ``ok``, ``error``,
    ``timeout``, ``refused``, ``invalid_output``); ``None`` when no result came back."""
    seq: int | None = None
    """The position of the step's message in the message log."""
    kind: str | None = None
    """What the step was, in the system's words (``task``, ``tool_call``, ``message``)."""
    name: str | None = None
    """The tool called (or the message's name), when ``role`` is who called it."""
    arguments: dict[str, Any] | None = None
    """The arguments the tool was called with."""
    result: str | None = None
    """What came back, as text, up to :data:`RESULT_CHARS_MAX` characters."""
    started_ms: float | None = Field(default=None, ge=0)
    """When the step started, in milliseconds since the run started."""
    ended_ms: float | None = Field(default=None, ge=0)
    """When it ended, in milliseconds since the run started."""

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A step of a run that records only who and how (SupportPilot's) is written as
        # before: the fields of a tool call are left out while unset, not null in every
        # trace line.
        data: dict[str, Any] = handler(self)
        for name in OPTIONAL_STEP_FIELDS:
            if data.get(name) is None:
                data.pop(name, None)
        return data

    @field_validator("result")
    @classmethod
    def _bounded(cls, value: str | None) -> str | None:
        if value is None or len(value) <= RESULT_CHARS_MAX or _cut_already(value):
            return value
        left_out = len(value) - RESULT_CHARS_MAX
        return f"{value[:RESULT_CHARS_MAX]}{CUT_MARK}{left_out}{CUT_END}"


class BlockedAttempt(BaseModel):
    """A tool call the environment refused (outside the caller's allowlist)."""

    model_config = ConfigDict(frozen=True)

    role: str
    """Who tried."""
    tool: str
    """What they tried to call."""
    reason: str = ""
    """Why it was refused."""


ApprovalDecider = Literal["human", "auto", "none"]
"""Who decided an approval: a human approver, the auto-approval limit, or nobody (the
gate failed closed: no approver configured, or the approver never answered)."""


class ApprovalRecord(BaseModel):
    """One approval the system asked for, as the environment recorded it."""

    model_config = ConfigDict(frozen=True)

    action: str
    """What was proposed (e.g. ``reissue`` or ``reply``)."""
    amount: float | None = None
    """The amount the proposal put at stake, as the agent stated it."""
    expected_amount: float | None = None
    """The amount at stake according to the environment (e.g. the order's paid amount in
    the database), filled by the system under test, never from the agent's claims;
    ``None`` when the environment has no such figure."""
    decided_by: ApprovalDecider
    """Who decided."""
    approved: bool | None = None
    """The answer; ``None`` when nobody answered."""
    limit: float | None = None
    """The auto-approval limit in force (strictly below it is approved without asking);
    ``None`` when there is none."""
    approval_id: str | None = None
    """The id writes cite."""


class Usage(BaseModel):
    """Model tokens spent by one run (zero for rule brains)."""

    prompt_tokens: int = 0
    """Tokens sent to the model."""
    completion_tokens: int = 0
    """Tokens the model produced."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


class Run(BaseModel):
    """The record of one trial of one case: its outcome and its trajectory.

    The core every agent fills. What only one system records goes in that system's own
    subclass of ``Run``, its typed extension (SupportPilot's conflicts, message-log
    positions and claim screen: ``agent_evals.supportpilot_run.SupportPilotRun``); its
    fields are written to traces beside the core's. Read without the subclass (a report
    rebuilt from a trace, a run sent back by a worker process), they are kept as they are
    (extras), so nothing a system recorded is lost on the way; :meth:`as_type` gives the
    typed view back.
    """

    model_config = ConfigDict(extra="allow")

    case_id: str
    """The case this run is a trial of."""
    trial: int = 0
    """The trial number, from 0."""
    outcome: str = Field(min_length=1)
    """What the run ended with, in the system's own words (any non-empty string), or
    ``sut_error`` / ``error``."""
    outcome_reason: str | None = None
    """Why the run ended with its outcome, as a short code the system under test defines
    (e.g. why it escalated: ``conflict``, ``gap``, ``out_of_stock``); ``None`` when it
    gives none. Checked by ``expect.outcome_reason``."""
    reply: str | None = None
    """The reply the customer received (``None`` when none was sent)."""
    writes: list[Write] = Field(default_factory=list)
    """Every write found in the environment after the run."""
    facts: dict[str, str] = Field(default_factory=dict)
    """The facts the agent settled on, as strings (SupportPilot's ``parcel_state``,
    ``stale_hours`` …; ``expect.facts`` judges them)."""
    steps: list[Step] = Field(default_factory=list)
    """Every step, in order: a tool call, a model call, a task sent to a worker (a retry
    appears as a second step of its role)."""
    role_errors: dict[str, str] = Field(default_factory=dict)
    """The first error per role, for reports."""
    blocked_attempts: list[BlockedAttempt] = Field(default_factory=list)
    """Tool calls the environment refused, from its audit log."""
    tasks: int | None = None
    """Steps counted for the budget (``expect.max_tasks``); defaults to ``len(steps)``."""
    chars_returned: int = 0
    """Characters the tools or workers returned into the agent's context: its context
    cost (``expect.max_chars`` and the gate's growth rule read it; :mod:`evals.otel`
    counts the tool results' characters)."""
    latency_ms: float = 0.0
    """Wall time of the run in milliseconds."""
    approver_approved: bool | None = None
    """What the (human) approver answered; ``None`` when nobody was asked."""
    approvals: list[ApprovalRecord] = Field(default_factory=list)
    """Every approval decision recorded in the environment, in order."""
    ground_truth: dict[str, str] = Field(default_factory=dict)
    """Facts read from the environment by the system under test (the database, not the
    agent), as strings: what a reply is checked against (``expect.reply_facts``)."""
    trace_id: str | None = None
    """The run's trace id, when the system under test has one: writes are keyed
    ``<trace_id>:<kind>``."""
    usage: Usage = Field(default_factory=Usage)
    """Model tokens spent."""
    error: str | None = None
    """The error that ended the run, for ``sut_error`` and ``error`` outcomes."""
    refusal: list[str] | None = None
    """A configuration case's run (:mod:`evals.cases.configuration`): the problem lines the
    SUT refused the case with (outcome ``refused``); ``[]`` when it accepted it
    (outcome ``accepted``); ``None`` for any other run."""
    description: list[str] | None = None
    """A configuration case's run: how the SUT built for the case describes itself (its
    ``describe()`` lines) when it accepted the case; ``None`` otherwise."""
    detail: dict[str, Any] = Field(default_factory=dict)
    """Anything else the system under test wants kept in the trace (e.g. the message log)."""

    def as_type(self, kind: type[R]) -> R:
        """This run as ``kind``, a system's own subclass of :class:`Run` (its typed
        extension): the run itself when it is one, else one validated from its fields and
        the extra fields it was read back with (from a trace, or from a worker process).

        Raises :class:`RecordTypeError` (one line, naming the field) when those extras
        are not what ``kind`` declares: the system under test's record is wrong, a failure
        of the run (:func:`evals.checks.grade` fails the check that asked), never of the
        check."""
        if isinstance(self, kind):
            return self
        try:
            return kind.model_validate(self.model_dump())
        except ValidationError as e:
            first = e.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "the run"
            raise RecordTypeError(kind.__name__, f"{where}: {first['msg']}") from e

    @property
    def dispatched(self) -> list[str]:
        """The roles dispatched, in order of their first task."""
        return list(dict.fromkeys(step.role for step in self.steps))

    @property
    def task_count(self) -> int:
        """Tasks for the budget: ``tasks`` when given, else the number of steps."""
        return len(self.steps) if self.tasks is None else self.tasks


R = TypeVar("R", bound=Run)


class RecordTypeError(ValueError):
    """A run's record is not what the system's own subclass of :class:`Run` declares."""

    def __init__(self, kind: str, problem: str) -> None:
        self.kind = kind
        self.problem = problem
        super().__init__(f"the run's record is not a valid {kind}: {problem}")


INVALID_RUN = "the SUT's run record is invalid"
"""How a run whose numbers :func:`number_problem` refuses is recorded (a ``sut_error``)."""


def number_problem(run: Run) -> str | None:
    """The first number of ``run`` that cannot mean what its field says, as
    ``field: problem``; ``None`` when every one can.

    Numbers come from the system under test, which is untrusted: a NaN latency would make
    the latency rule skip silently and could not be written as strict JSON, a negative
    token count would read as a budget kept. Every number must be finite; counts,
    positions, characters, tokens and times must also be at least 0. A SUT that builds
    its run with ``model_construct`` or changes a field after building it skips
    pydantic's validation; this is the check that does not.
    """
    for field, value, non_negative in _numbers(run):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{field}: not a number ({type(value).__name__})"
        if not math.isfinite(value):
            return f"{field}: not a finite number ({value!r})"
        if non_negative and value < 0:
            return f"{field}: negative ({value!r}); it counts or measures, at least 0"
    return None


def _numbers(run: Run) -> Iterator[tuple[str, object, bool]]:
    """``(field, value, must be >= 0)`` for every number of ``run``."""
    for name in ("trial", "tasks", "chars_returned", "latency_ms"):
        yield name, getattr(run, name, None), True
    yield from _extension_numbers(run)
    usage = run.usage
    yield "usage.prompt_tokens", getattr(usage, "prompt_tokens", None), True
    yield "usage.completion_tokens", getattr(usage, "completion_tokens", None), True
    for i, step in enumerate(run.steps):
        yield f"steps[{i}].seq", getattr(step, "seq", None), True
        yield f"steps[{i}].started_ms", getattr(step, "started_ms", None), True
        yield f"steps[{i}].ended_ms", getattr(step, "ended_ms", None), True
    for i, approval in enumerate(run.approvals):
        for name in ("amount", "expected_amount", "limit"):
            yield f"approvals[{i}].{name}", getattr(approval, name, None), False


def _extension_numbers(run: Run) -> Iterator[tuple[str, object, bool]]:
    """``(field, value, must be >= 0)`` for the numbers a subclass of :class:`Run` (a
    system's typed extension) adds: each top-level field declared ``int`` or ``float``
    (or either or ``None``), whatever it holds now (a string set after validation is
    "not a number"), at least 0 where its declared bounds say so (``ge``/``gt`` of 0 or
    more); and any number among the extra fields of a run read without its subclass
    (finite, any sign). Numbers nested inside a subclass's other fields are its own
    business."""
    for name, at_least_0 in _number_fields(type(run)):
        yield name, getattr(run, name, None), at_least_0
    for name, value in (run.model_extra or {}).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            yield name, value, False


@functools.cache
def _number_fields(kind: type[Run]) -> tuple[tuple[str, bool], ...]:
    """The number fields a subclass of :class:`Run` adds, each with whether its bounds
    keep it at least 0 (read once per class: grading asks for every run)."""
    found: list[tuple[str, bool]] = []
    for name, info in kind.model_fields.items():
        if name in Run.model_fields:
            continue
        types = set(get_args(info.annotation)) | {info.annotation}
        if not types & {int, float}:
            continue
        bounds = [getattr(m, key, None) for m in info.metadata for key in ("ge", "gt")]
        found.append((name, any(isinstance(b, int | float) and b >= 0 for b in bounds)))
    return tuple(found)
