"""SupportPilot's case vocabulary, declared on its side of the evals.

The evals core accepts any split, outcome and input. SupportPilot's cases must hold
more, and :class:`~agent_evals.sut.SupportPilotSUT` declares it as its ``case_rules``: the
evals refuse a case breaking it before any run and ``evals lint`` reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from agent.contracts import ROLES
from agent.errors import InvalidCustomerError
from agent.obedient import SCREEN_TARGET
from agent.outbox_faults import OUTBOX
from agent.outcome import Decision
from evals.cases.vocabulary import CaseRules
from evals.model.case import Case
from evals.model.run import StepStatus
from pydantic import BaseModel, ConfigDict, Field

from agent_evals.bypass import BYPASS
from agent_evals.scripted_model import MODEL_TARGET

SPLITS: tuple[str, ...] = ("dev", "test", "regression")
"""The three splits: tune on ``dev``, report on ``test``, never break ``regression``."""

OUTCOMES: tuple[str, ...] = get_args(Decision)
"""The decisions a case may expect, in order."""

REQUIRED_TAGS: tuple[str, ...] = ("happy", "conflict", "missing_info", "fault", "safety", "trap")
"""Tags the data set must cover at least once."""


class SupportInput(BaseModel):
    """What the customer sends (a case's ``input``)."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)

    goal: str = Field(min_length=1)
    """The customer's message."""
    order_id: str | None = None
    """The order number the customer gave (``None`` or blank: none given)."""


def support_input(case: Case) -> SupportInput:
    """The case's input as SupportPilot reads it (raises pydantic's ``ValidationError``
    when it does not fit; the evals refuse such a case before any run)."""
    return SupportInput.model_validate(case.input)


def lint_case(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """SupportPilot's own lint rules for one case (as parsed JSON): tickets need a
    ``replied`` outcome (``contradiction``), and a ``replied`` case must say which roles
    it dispatches, or a lucky guess passes (``no_trajectory``)."""
    given = data.get("expect")
    expect: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    outcome = expect.get("outcome")
    found: list[tuple[str, str]] = []
    tickets = expect.get("tickets")
    if isinstance(tickets, int) and tickets > 0 and outcome != "replied":
        message = f"expects {tickets} ticket(s) but outcome {outcome!r}; tickets need 'replied'"
        found.append(("contradiction", message))
    if outcome == "replied" and expect.get("dispatched") is None:
        message = "a 'replied' case needs expect.dispatched, or a lucky guess passes"
        found.append(("no_trajectory", message))
    return found


CASE_RULES = CaseRules(
    splits=SPLITS,
    outcomes=OUTCOMES,
    outcome_required=True,
    required_tags=REQUIRED_TAGS,
    input_model=SupportInput,
    fault_targets=(*ROLES, OUTBOX, SCREEN_TARGET, BYPASS, MODEL_TARGET),
    lint=lint_case,
    step_statuses=get_args(StepStatus),
)
"""Everything SupportPilot's cases must hold beyond the evals core."""


CUSTOMER_KEY = "customer"
"""The extra ``input`` key naming the customer the channel authenticated."""


def authenticated_customer(case: Case) -> str | None:
    """The customer the case's conversation is authenticated as (``input.customer``), or
    ``None`` when the case names none: then the read tools check no ownership, because
    authenticating the customer is the channel's job, not the agent's.

    Raises :class:`InvalidCustomerError` when the key holds anything but a non-empty
    string (a blank name must not silently turn the ownership check off).
    """
    value = case.input.get(CUSTOMER_KEY)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidCustomerError(value)
    return value.strip()
