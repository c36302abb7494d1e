"""The case model: one test with its input, world, faults and expectations.

A case file is JSONL, one case a line. ``case.schema.json`` is generated from these
models (``python -m evals.model.schema``) and committed, so editors can validate cases too.
Each field's docstring is its description there; the models do not read their own
docstrings (pydantic's ``use_attribute_docstrings`` parses this module's source at every
import, ~25 ms of every start), the schema generator does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from evals._text import id_problem

Split = Annotated[str, Field(min_length=1)]
"""A split: any non-empty name (``dev``, ``test``, ``train`` …). Which splits a project
uses is its own declaration (``case_rules.splits``, :mod:`evals.cases.vocabulary`); the gate
gives one a meaning: the cases of ``regression`` (``gate.json``) must never break."""

FAULT_PATTERN = r"^[a-z][a-z_]*(:[^\s:][^\s]*)?$"
"""The shape of a fault: a kind, optionally ``:argument`` (``crash``, ``flaky:0.3``,
``write_attempt:support__send_reply``). Which kinds and arguments exist is the system
under test's business: its ``check_case`` hook refuses unknown ones before any run."""

FaultKind = Annotated[str, StringConstraints(pattern=FAULT_PATTERN)]
"""One fault kind, validated against ``FAULT_PATTERN``."""


def _check_id(case_id: str) -> str:
    problem = id_problem(case_id)
    if problem is not None:
        raise ValueError(problem)
    return case_id


CaseId = Annotated[str, Field(min_length=1), AfterValidator(_check_id)]
"""A case id: printable, NFC, no surrounding whitespace, at most 128 characters
(:func:`evals._text.id_problem`)."""


class Expect(BaseModel):
    """What a correct run does. Each key maps to checks; registered checks may read
    extra keys of their own."""

    model_config = ConfigDict(extra="allow")

    outcome: str | None = Field(default=None, min_length=1)
    """The outcome the run must end with, in the system's own words (``None``: not
    checked; a project may require it, see :mod:`evals.cases.vocabulary`)."""
    outcome_reason: str | None = None
    """Why the run must end with its outcome (the SUT's short code, e.g. the escalation
    reason); ``None``: not checked."""
    tickets: int | None = Field(default=None, ge=0)
    """How many tickets must exist after the run."""
    facts: dict[str, str] = Field(default_factory=dict)
    """Facts the run must report, with their values as strings."""
    reply_contains: list[str] = Field(default_factory=list)
    """Phrases the reply must contain."""
    reply_not_contains: list[str] = Field(default_factory=list)
    """Phrases the reply must not contain."""
    dispatched: list[str] | None = None
    """The set of roles that must be dispatched (order does not matter)."""
    statuses: dict[str, list[str]] | None = None
    """Per role, how each task dispatched to it ended, in order (``{"logistics_agent":
    ["invalid_output", "ok"]}``: one retry that worked); roles not named are not
    checked. The words are the system's (a project declares them:
    ``case_rules.step_statuses``)."""
    blocked_attempts: int | None = Field(default=None, ge=0)
    """How many unauthorized attempts must be made and blocked."""
    max_tasks: int | None = Field(default=None, ge=0)
    """Budget: tasks dispatched at most (``None``: not checked; a project may give every
    case a budget, ``case_rules.expect_defaults``, see :mod:`evals.cases.vocabulary`)."""
    max_chars: int | None = Field(default=None, ge=0)
    """Budget: characters the tools or workers returned into the agent's context
    (``run.chars_returned``) at most (``None``: not checked)."""
    max_tokens: int | None = Field(default=None, ge=0)
    """Budget: model tokens at most (``None``: not checked)."""
    refused: list[str] | None = None
    """A configuration case (:mod:`evals.cases.configuration`): the SUT must refuse the case,
    giving exactly these problem lines (in any order): the one line of the error its
    construction with the case's ``sut_options`` raised, else what its ``check_case``
    hook answers. The SUT is never run; ``None``: not a refusal case."""
    described: list[str] | None = None
    """A configuration case (:mod:`evals.cases.configuration`): the SUT built with the case's
    ``sut_options`` (and ``sut_env``) must describe itself with exactly these lines, in
    order (its ``describe()``, the report header). The SUT is never run; ``None``: not
    checked."""


class Case(BaseModel):
    """One evaluation case."""

    model_config = ConfigDict(extra="forbid")

    id: CaseId
    """Unique id across the data set."""
    split: Split
    """Which split the case belongs to."""
    tags: list[str] = Field(default_factory=list)
    """Capabilities and risks the case exercises (``happy``, ``safety``, ``flaky`` …)."""
    title: str = ""
    """One line for people."""
    input: dict[str, Any]
    """What the user sends: a free mapping (SupportPilot: ``goal``, ``order_id``; a FAQ
    agent: ``question``). A project validates its shape with ``case_rules.input_model``
    (:mod:`evals.cases.vocabulary`)."""
    world: dict[str, Any] = Field(default_factory=dict)
    """Overrides of the system's default world."""
    faults: dict[str, FaultKind] = Field(default_factory=dict)
    """Role -> fault kind to inject (see ``FAULT_PATTERN``)."""
    expect: Expect
    """What a correct run does: keys owned by the checks that read them, none required."""
    sut_options: dict[str, str] = Field(default_factory=dict)
    """Only for a configuration case (``expect.refused`` or ``expect.described``): the
    options (as ``--sut-option KEY=VALUE`` gives them) the case's SUT is built with, over
    the evaluation's own."""
    sut_env: dict[str, str] = Field(default_factory=dict)
    """Only for a configuration case: the environment variables the SUT reads for its
    configuration (those it declares in ``config_env``) while it is built, instead of the
    machine's."""


# --- configuration cases (the behaviour: evals.cases.configuration) ----------------------

CONFIGURATION_KEYS: tuple[str, ...] = ("refused", "described")
"""The ``expect`` keys that make a case a configuration case."""

CASE_LEVEL_KEYS: tuple[str, ...] = ("sut_options", "sut_env")
"""The case fields only a configuration case may set."""


def expect_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A case's ``expect`` as parsed JSON (``{}`` when it is no mapping)."""
    given = data.get("expect")
    return given if isinstance(given, Mapping) else {}


def is_configuration(case: Case | Mapping[str, Any]) -> bool:
    """Whether ``case`` (loaded, or as parsed JSON) is a configuration case: it sets
    ``expect.refused`` or ``expect.described``."""
    if isinstance(case, Case):
        return case.expect.refused is not None or case.expect.described is not None
    expect = expect_of(case)
    return any(expect.get(key) is not None for key in CONFIGURATION_KEYS)


def case_problems(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for what a case (as parsed JSON) gets wrong about being a
    configuration case, whatever the SUT: ``sut_options``/``sut_env`` on a case that is
    none, or both ``expect.refused`` and ``expect.described``."""
    found: list[tuple[str, str]] = []
    if not is_configuration(data):
        for key in CASE_LEVEL_KEYS:
            if data.get(key):
                found.append(
                    (
                        key,
                        "only a configuration case (expect.refused or expect.described)"
                        " may set it; a run of this case would ignore it",
                    )
                )
        return found
    expect = expect_of(data)
    if all(expect.get(key) is not None for key in CONFIGURATION_KEYS):
        found.append(
            (
                "expect.described",
                "a configuration case sets exactly one of expect.refused and expect.described",
            )
        )
    return found
