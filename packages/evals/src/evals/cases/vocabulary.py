"""A project's vocabulary: what its cases must hold beyond the domain-neutral core.

The core accepts any split, any outcome, any ``input`` mapping and no required
``expect`` key. A project that wants more declares it once, on its side, as the
``case_rules`` attribute of its system under test::

    class FaqSUT:
        case_rules = CaseRules(splits=("train", "test"), outcomes=("answered", "refused"))

        def run(self, case, trial): ...

The evals enforce it wherever they meet that SUT: ``evals run``, ``evals.evaluate`` and
the pytest plugin refuse a case breaking it before any run (one line per problem,
``file:line: field: message``, exit 2, see :mod:`evals.cases.validation`), and ``evals lint``
reports it by rule (``unknown_split``, ``missing_outcome``, ``unknown_outcome``,
``missing_tag``, ``small_split``, ``unknown_fault_role``) plus whatever the project's
own ``lint`` hook finds in a case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from evals._text import quote
from evals.model.case import Case, is_configuration
from evals.model.run import PROVIDER_ERROR

if TYPE_CHECKING:
    # No stubs are locked for jsonschema; the ignore stays quiet once they are.
    import jsonschema  # type: ignore[import-untyped,unused-ignore]

DEFAULT_MIN_SPLIT_SIZE = 3
"""A split with fewer cases than this says nothing (``evals lint --min-split-size``)."""

LintHook = Callable[[Mapping[str, Any]], list[tuple[str, str]]]
"""A project's own lint rules: a case as parsed JSON -> ``(rule, message)`` pairs."""


@dataclass(frozen=True)
class CaseRules:
    """What a project's cases must hold; every field is optional (the default accepts
    everything the core accepts)."""

    splits: tuple[str, ...] | None = None
    """The splits cases may name, in report order (``None``: any)."""
    outcomes: tuple[str, ...] | None = None
    """The outcomes ``expect.outcome`` may name (``None``: any). ``error`` is always
    accepted: a case that injects a provider outage expects the run to end as errored
    (:attr:`evals.model.result.RunResult.expected_error`)."""
    outcome_required: bool = False
    """Whether every case must set ``expect.outcome`` (a configuration case, never run,
    need not: :mod:`evals.cases.configuration`)."""
    required_tags: tuple[str, ...] = ()
    """Tags the case set must cover at least once (``evals lint``; configuration cases
    neither cover them nor are required to)."""
    input_model: type[BaseModel] | None = None
    """A model ``input`` must satisfy (checked against its JSON Schema, so problems read
    like the loader's: ``input.goal: missing required field``); not a configuration
    case's, which is never run."""
    fault_targets: tuple[str, ...] | None = None
    """What ``faults`` may name (roles, components); ``None``: lint infers the roles
    from the cases' ``expect.dispatched`` (plus ``[tool.evals] fault_targets``)."""
    lint: LintHook | None = None
    """The project's own lint rules, asked about every case ``evals lint`` reads."""
    step_statuses: tuple[str, ...] | None = None
    """The words ``expect.statuses`` may use for how a step ended (``None``: any; a
    step's status is the system's free text)."""

    def accepts_outcome(self, outcome: object) -> bool:
        """Whether ``expect.outcome`` may name ``outcome``: one of :attr:`outcomes`, or
        ``error`` (an outage the case injects)."""
        return self.outcomes is None or outcome in (*self.outcomes, PROVIDER_ERROR)

    def problems(self, data: Mapping[str, Any]) -> list[tuple[str, str]]:
        """``(field, message)`` for everything ``data`` (a case as parsed JSON, or a
        loaded case dumped) breaks: split, outcome and input shape."""
        found: list[tuple[str, str]] = []
        split = data.get("split")
        if self.splits is not None and split not in self.splits:
            found.append(
                ("split", f"unknown split {quote(split)}; expected {_one_of(self.splits)}")
            )
        given = data.get("expect")
        expect: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        # A configuration case is never run: what only a run reads (its outcome, its
        # input) is not required of it (evals.cases.configuration).
        configuration = is_configuration(data)
        outcome = expect.get("outcome")
        if outcome is None:
            if self.outcome_required and not configuration:
                found.append(("expect.outcome", "missing required field"))
        elif not self.accepts_outcome(outcome):
            message = f"unknown outcome {quote(outcome)}; expected {_one_of(self.outcomes or ())}"
            found.append(("expect.outcome", message))
        if self.input_model is not None and not configuration:
            found += input_problems(self.input_model, data.get("input"))
        found += self._status_problems(expect.get("statuses"))
        return found

    def _status_problems(self, statuses: object) -> list[tuple[str, str]]:
        """``expect.statuses`` words the project does not declare, one per place."""
        if self.step_statuses is None or not isinstance(statuses, Mapping):
            return []
        return [
            (f"expect.statuses.{role}.{i}", f"unknown status {quote(word)}; expected"
             f" {_one_of(self.step_statuses)}")
            for role, words in statuses.items()
            if isinstance(words, list)
            for i, word in enumerate(words)
            if word not in self.step_statuses
        ]  # fmt: skip

    def case_problems(self, case: Case) -> list[str]:
        """:meth:`problems` of a loaded case, as ``field: message`` lines."""
        return [f"{field}: {message}" for field, message in self.problems(case_data(case))]


def case_data(case: Case) -> dict[str, Any]:
    """A loaded case as the JSON it came from (unset ``expect`` keys left out)."""
    return case.model_dump(mode="json", exclude_unset=True)


def _one_of(options: tuple[str, ...]) -> str:
    return "one of " + ", ".join(repr(o) for o in options)


@cache
def _input_validator(model: type[BaseModel]) -> jsonschema.protocols.Validator:
    # Imported when a project declares an input model: ~30 ms of a start otherwise.
    import jsonschema  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    schema = model.model_json_schema()
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def input_problems(model: type[BaseModel], value: Any) -> list[tuple[str, str]]:
    """``(field, message)`` for everything ``value`` breaks in ``model``'s JSON Schema,
    with field paths under ``input``."""
    from evals.cases.schema_errors import describe_schema_error  # noqa: PLC0415 (jsonschema)

    described = {
        (f"input.{field}" if field != "(line)" else "input", message)
        for error in _input_validator(model).iter_errors(value)
        for field, message in describe_schema_error(error)
    }
    return sorted(described)


NO_RULES = CaseRules()
"""The rules of a SUT that declares none: everything the core accepts."""


def rules_of(sut: object | None) -> CaseRules:
    """The ``case_rules`` a SUT declares, or :data:`NO_RULES`. Anything else under that
    name is ignored (a SUT must not be able to break loading by a stray attribute)."""
    declared = getattr(sut, "case_rules", None)
    return declared if isinstance(declared, CaseRules) else NO_RULES
