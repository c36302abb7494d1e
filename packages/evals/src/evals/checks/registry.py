"""The open registry of checks, and grading a run with every registered check.

A check is anything with a ``name``, a ``kind`` and ``__call__(case, run)``. Another
project registers its own with the :func:`check` decorator or :func:`register`; the
built-in checks are made with :func:`define` and registered from one explicit list
(:mod:`evals.checks.builtin`), in the order reports list them.

The registry also knows which ``expect`` keys exist: the :class:`~evals.model.case.Expect`
model's fields, plus the keys each registered check declares in its optional
``expect_keys`` attribute. The loader refuses any other key, so a typo cannot silently
drop an expectation (:func:`registered_expect_keys`). A check made with :func:`check` may
give each of its keys a type (``expect_keys={"max_refunds": int}``): the loader then
refuses a value of the wrong shape too, naming file, line and field, before any run
(:func:`expect_value_problems`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypeVar, get_args, runtime_checkable

from pydantic import BaseModel, JsonValue, TypeAdapter, ValidationError

from evals._text import quote
from evals.errors import CheckRegistrationError, RunMismatchError
from evals.model.case import Case, Expect, is_configuration
from evals.model.result import CheckKind, CheckResult, RunResult, shared_verdict, verdict
from evals.model.run import PROVIDER_ERROR, SUT_ERROR, RecordTypeError, Run


@dataclass(frozen=True)
class Mismatch:
    """A check's failure that compares values: the reason in words, and what the case
    expected beside what the run gave (JSON values; anything else is shown as its
    ``repr``). Reports show the two side by side."""

    reason: str
    """One sentence a person can act on."""
    expected: object
    """What the case asked for."""
    got: object
    """What the run gave instead."""


CheckOutput: TypeAlias = (
    CheckResult | Sequence[CheckResult] | Mismatch | bool | tuple[bool, str] | None
)
"""What a check returns: ``None`` when it does not apply to this case or run; ``True`` /
``False``; ``(passed, reason)``; a :class:`Mismatch` (failed, with expected and got); or
ready-made :class:`CheckResult` objects (a list when one check judges several things,
e.g. one result per expected fact)."""

_JSON: TypeAdapter[JsonValue] = TypeAdapter(JsonValue)


def as_json(value: object) -> JsonValue:
    """``value`` as a JSON value for a result's ``expected`` or ``got``: itself when it is
    one, a list for a tuple or a set (sorted by ``repr``), else its ``repr`` (a NaN, an
    infinity, an object, a set inside a list)."""
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=repr)
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # JSON has no NaN or infinity: shown as written
    try:
        return _JSON.validate_python(value)
    except ValidationError:
        return repr(value)


M = TypeVar("M", bound=BaseModel)


def parse_expect(case: Case, key: str, model: type[M]) -> M | str | None:
    """A check's own ``expect`` key (one it declares in ``expect_keys``) parsed with
    ``model``: ``None`` when the case does not set it; a one-line string saying why it is
    malformed (``expect.<key>.<field>: <problem>, got <value>``: fail the check with it)."""
    raw: Any = (case.expect.model_extra or {}).get(key)
    if raw is None:
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"expect.{key}{'.' + where if where else ''}: {first['msg']}, got {raw!r}"


def mismatch(name: str, kind: CheckKind, reason: str, expected: object, got: object) -> CheckResult:
    """A failed :class:`CheckResult` with what was expected and what the run gave (for a
    check that makes one result per thing it judges)."""
    return CheckResult(
        name=name,
        kind=kind,
        passed=False,
        reason=reason,
        expected=as_json(expected),
        got=as_json(got),
    )


CheckFunction: TypeAlias = Callable[[Case, Run], CheckOutput]
"""A plain function that judges a run: ``(case, run) -> CheckOutput``."""

CHECK_KINDS: tuple[str, ...] = get_args(CheckKind)
"""The four kinds, in report order."""

CONFIGURATION_CHECKS: tuple[str, ...] = ("refused", "described")
"""The checks that grade a configuration case's run, and the only ones
(:mod:`evals.checks.configuration`)."""


@runtime_checkable
class Check(Protocol):
    """A grader: judges one clear-cut thing about a run of a case."""

    @property
    def name(self) -> str:
        """Unique registered name; also the name of the result it yields."""
        ...

    @property
    def kind(self) -> CheckKind:
        """``outcome``, ``safety``, ``trajectory`` or ``cost``."""
        ...

    def __call__(self, case: Case, run: Run) -> CheckOutput:
        """Judge ``run`` against ``case``; ``None`` when not applicable."""
        ...


@dataclass(frozen=True)
class FunctionCheck:
    """A check made from a plain function by :func:`check`."""

    name: str
    """Unique registered name."""
    kind: CheckKind
    """Which of the four kinds it is."""
    function: CheckFunction
    """The function that judges a run."""
    expect_keys: tuple[str, ...] | Mapping[str, Any] = field(default=(), hash=False)
    """Extra ``expect`` keys the check reads (beyond the :class:`~evals.model.case.Expect`
    fields), or each with the type its value must have; the loader accepts exactly the
    keys some registered check declares, and refuses a value of another type."""

    def __call__(self, case: Case, run: Run) -> CheckOutput:
        """Call the wrapped function."""
        return self.function(case, run)


_REGISTRY: dict[str, Check] = {}
_TYPES: dict[str, dict[str, tuple[Any, TypeAdapter[Any]]]] = {}
"""Check name -> its typed ``expect`` keys: key -> (the type declared, its validator)."""
# The registry in grading order, rebuilt only when the registry changes: sorting it for
# every run cost more than some checks.
_ORDERED: list[tuple[Check, ...]] = []


def _origin(check_obj: Check) -> tuple[str, str, str]:
    """Where a check was defined: module, qualified name, kind. The same definition run
    again (a notebook cell, a module imported under two names) has the same origin."""
    defined: object = getattr(check_obj, "function", None) or type(check_obj)
    module = str(getattr(defined, "__module__", "?"))
    return module, str(getattr(defined, "__qualname__", "?")), check_obj.kind


def register(check_obj: Check, *, replace: bool = False) -> Check:
    """Add a check to the registry (used by :func:`grade`) and return it.

    An optional ``expect_keys`` attribute (a collection of strings) declares the extra
    ``expect`` keys the check reads; a mapping gives each the type its value must have
    (see :func:`check`). Registering the same definition again (a notebook cell run twice,
    a module imported twice) replaces it quietly. Raises
    :class:`~evals.errors.CheckRegistrationError` when the name is taken by another
    definition (unless ``replace``), the kind is not one of the four, ``expect_keys`` is
    not a collection of non-empty strings, a type is one pydantic cannot validate, or
    another registered check gives one of the keys another type.
    """
    if check_obj.kind not in CHECK_KINDS:
        raise CheckRegistrationError(
            f"check {check_obj.name!r} has kind {check_obj.kind!r}; expected one of {CHECK_KINDS}"
        )
    keys = getattr(check_obj, "expect_keys", ())
    # A lone string is a common slip: ("max_refunds") is a string, not a tuple.
    usable = isinstance(keys, Collection) and not isinstance(keys, str)
    if not usable or not all(isinstance(k, str) and k for k in keys):
        raise CheckRegistrationError(
            f"check {check_obj.name!r} has expect_keys {keys!r}; "
            "expected a collection of non-empty strings"
        )
    taken = _REGISTRY.get(check_obj.name)
    if taken is not None and not replace and _origin(taken) != _origin(check_obj):
        raise CheckRegistrationError(
            f"a check named {check_obj.name!r} is already registered "
            f"(from {'.'.join(_origin(taken)[:2])})"
        )
    types = _typed(check_obj.name, keys) if isinstance(keys, Mapping) else {}
    _REGISTRY[check_obj.name] = check_obj
    _TYPES.pop(check_obj.name, None)
    if types:
        _TYPES[check_obj.name] = types
    _ORDERED.clear()
    _IDLE.pop(check_obj.name, None)
    return check_obj


ExpectKeys: TypeAlias = Iterable[str] | Mapping[str, Any]
"""The ``expect`` keys a check reads: their names, or name -> the type its value must have
(anything pydantic validates: ``int``, ``list[str]``, a model; ``None``: any value)."""


def _typed(name: str, keys: Mapping[str, Any]) -> dict[str, tuple[Any, TypeAdapter[Any]]]:
    """The validators of a check's typed keys (``None``: any value, no validator)."""
    typed: dict[str, tuple[Any, TypeAdapter[Any]]] = {}
    for key, kind in keys.items():
        if kind is None:
            continue
        for other, types in _TYPES.items():
            theirs = types.get(key)
            if other != name and theirs is not None and theirs[0] != kind:
                raise CheckRegistrationError(
                    f"check {name!r}: expect key {key!r} has type {kind!r}, but check "
                    f"{other!r} reads it as {theirs[0]!r}"
                )
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(kind)
            if not adapter.pydantic_complete:
                adapter.rebuild(raise_errors=True)
        except Exception as e:  # pydantic cannot validate this type
            raise CheckRegistrationError(
                f"check {name!r}: expect key {key!r} has type {kind!r}, which pydantic "
                f"cannot validate ({type(e).__name__}: {e})"
            ) from e
        typed[key] = (kind, adapter)
    return typed


def define(
    kind: CheckKind, *, name: str | None = None, expect_keys: ExpectKeys = ()
) -> Callable[[CheckFunction], FunctionCheck]:
    """Decorator: make a function ``(case, run) -> CheckOutput`` a check, without
    registering it (the built-in checks are registered from one list,
    :data:`evals.checks.builtin.BUILT_IN`). See :func:`check` for the arguments."""
    if isinstance(expect_keys, str):
        raise CheckRegistrationError(
            f"expect_keys {expect_keys!r} is a string; expected a tuple such as ({expect_keys!r},)"
        )
    declared = dict(expect_keys) if isinstance(expect_keys, Mapping) else None

    def decorate(function: CheckFunction) -> FunctionCheck:
        made = name or function.__name__
        if declared is not None:
            _typed(made, declared)  # a type pydantic cannot validate fails here, named
        keys = declared if declared is not None else tuple(expect_keys)
        return FunctionCheck(name=made, kind=kind, function=function, expect_keys=keys)

    return decorate


def check(
    kind: CheckKind,
    *,
    name: str | None = None,
    replace: bool = False,
    expect_keys: ExpectKeys = (),
) -> Callable[[CheckFunction], FunctionCheck]:
    """Decorator: register a function ``(case, run) -> CheckOutput`` as a check.

    The check is named ``name`` or, by default, after the function. ``expect_keys``
    declares the extra ``expect`` keys it reads (``expect_keys=("max_refunds",)``), or
    each with the type its value must have (``expect_keys={"max_refunds": int}``): a
    case whose value does not validate then fails to load (file, line, field), instead
    of failing the check in every run. Raises
    :class:`~evals.errors.CheckRegistrationError` for a type pydantic cannot validate.
    """
    made = define(kind, name=name, expect_keys=expect_keys)

    def decorate(function: CheckFunction) -> FunctionCheck:
        return register(made(function), replace=replace)  # type: ignore[return-value]

    return decorate


def unregister(name: str) -> None:
    """Remove a check from the registry, and from the checks recorded as judging nothing
    (:func:`idle`); a no-op when it is in neither."""
    _REGISTRY.pop(name, None)
    _TYPES.pop(name, None)
    _IDLE.pop(name, None)
    _ORDERED.clear()


_IDLE: dict[str, str] = {}
"""Check name -> why a check the project set up judges nothing (see :func:`idle`)."""


def idle(name: str, why: str) -> None:
    """Record that the check ``name``, which the project set up, judges nothing in this
    process and why (a rubric not calibrated): the reports say so, so that a check that
    never ran cannot pass for one that found nothing. Registering ``name`` later clears it."""
    unregister(name)
    _IDLE[name] = why


def idle_checks() -> list[str]:
    """``<name>: <why>`` for every check recorded by :func:`idle` and not registered since,
    sorted by name."""
    return [f"{name}: {why}" for name, why in sorted(_IDLE.items())]


def registered(kind: CheckKind | None = None) -> list[Check]:
    """The registered checks, optionally of one kind only: by kind (outcome, safety,
    trajectory, cost), then in registration order."""
    return [c for c in _ordered() if kind is None or c.kind == kind]


def registered_expect_keys() -> frozenset[str]:
    """Every ``expect`` key some check reads: the :class:`~evals.model.case.Expect` fields and
    the ``expect_keys`` every registered check declares."""
    declared = {k for c in _REGISTRY.values() for k in getattr(c, "expect_keys", ())}
    return frozenset(Expect.model_fields) | declared


def expect_value_problems(expect: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field path, message)`` for every value of ``expect`` that is not of the type a
    registered check declares for its key (:func:`check`), the first problem of each.

    Strict, as the case's JSON holds it: ``"2"`` is no ``int``, ``2.0`` neither (a JSON
    list is a tuple, an object a model). ``null`` is not set, as checks read it."""
    found: list[tuple[str, str]] = []
    for key, value in expect.items():
        typed = next((t[key] for t in _TYPES.values() if key in t), None)
        if typed is None or value is None:
            continue
        try:
            typed[1].validate_json(json.dumps(value, ensure_ascii=False), strict=True)
        except ValidationError as e:
            first = e.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            what = first["msg"].removeprefix("Value error, ")
            got = quote(value if not where else first.get("input"))
            found.append((f"expect.{key}{'.' + where if where else ''}", f"{what}, got {got}"))
        except Exception as e:  # a validator of the project's that raised something else
            found.append((f"expect.{key}", f"cannot be validated: {type(e).__name__}: {e}"))
    return found


def _ordered() -> tuple[Check, ...]:
    if not _ORDERED:
        _ORDERED.append(tuple(sorted(_REGISTRY.values(), key=lambda c: CHECK_KINDS.index(c.kind))))
    return _ORDERED[0]


def _normalize(check_obj: Check, output: CheckOutput) -> list[CheckResult]:
    if output is None:
        return []
    if isinstance(output, CheckResult):
        return [shared_verdict(output)]
    if isinstance(output, Mismatch):
        reason = output.reason or f"{check_obj.name} failed"
        return [mismatch(check_obj.name, check_obj.kind, reason, output.expected, output.got)]
    if isinstance(output, bool):
        reason = "" if output else f"{check_obj.name} failed"
        return [verdict(check_obj.name, check_obj.kind, output, reason)]
    if isinstance(output, tuple):
        passed, reason = output
        if type(passed) is bool and type(reason) is str:
            return [verdict(check_obj.name, check_obj.kind, passed, reason)]
        # Anything else is validated (and rejected) as the model says.
        return [CheckResult(name=check_obj.name, kind=check_obj.kind, passed=passed, reason=reason)]
    return [shared_verdict(r) if isinstance(r, CheckResult) else r for r in output]


def join_reasons(reasons: Iterable[str], separator: str = "; ") -> str:
    """Join a check's reasons into one message, each distinct reason once, in first-seen
    order; a repeated one says how often (``… is not approved (2 times)``)."""
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return separator.join(r if n == 1 else f"{r} ({n} times)" for r, n in counts.items())


def _error_result(run: Run) -> CheckResult:
    if run.outcome == "sut_error":
        return CheckResult(
            name="sut_error",
            kind="outcome",
            passed=False,
            reason=f"the system under test crashed: {run.error or 'no error recorded'}",
        )
    return CheckResult(
        name="provider_error",
        kind="outcome",
        passed=False,
        reason=(
            f"the model provider failed ({run.error or 'no error recorded'}); "
            "the run is excluded from success rates"
        ),
    )


def grade(case: Case, run: Run, checks: Iterable[Check] | None = None) -> list[CheckResult]:
    """Judge a run with every registered check (or the given ones), in order.

    A run that ended in ``sut_error`` or ``error`` yields one failed outcome check
    naming the error and nothing else, unless the case expects that very ``error`` (it
    injects the provider's outage): then every check judges it, as any run. A check that
    raises yields a grader error (``grader_error=True``: it judged nothing) instead of
    stopping the evaluation; it counts neither as the run's failure nor as a
    regression, and is reported apart.

    A configuration case (:mod:`evals.cases.configuration`) is judged by the registered
    :data:`CONFIGURATION_CHECKS` alone, whatever ``checks`` says: no other check, and no
    project's invariant, applies to a run that never happened.
    """
    if run.case_id != case.id:
        raise RunMismatchError(case.id, run.case_id)
    expected = run.outcome == PROVIDER_ERROR and case.expect.outcome == PROVIDER_ERROR
    if run.outcome in (SUT_ERROR, PROVIDER_ERROR) and not expected:
        return [_error_result(run)]
    chosen: Iterable[Check] = _ordered() if checks is None else list(checks)
    if is_configuration(case):
        chosen = [_REGISTRY[name] for name in CONFIGURATION_CHECKS if name in _REGISTRY]
    results: list[CheckResult] = []
    for check_obj in chosen:
        try:
            output = check_obj(case, run)
        except RecordTypeError as e:  # the SUT's record, not the check, is wrong
            results.append(
                CheckResult(name=check_obj.name, kind=check_obj.kind, passed=False, reason=str(e))
            )
            continue
        except Exception as e:  # a third-party check's bug must not stop a whole suite
            reason = f"the check itself raised {type(e).__name__}: {e}"
            results.append(
                CheckResult(
                    name=check_obj.name,
                    kind=check_obj.kind,
                    passed=False,
                    reason=reason,
                    grader_error=True,
                )
            )
            continue
        results += _normalize(check_obj, output)
    return results


def to_result(case: Case, run: Run, checks: Sequence[CheckResult] | None = None) -> RunResult:
    """Reduce a graded run to a :class:`RunResult` (grading it first when ``checks`` is
    ``None``)."""
    graded = grade(case, run) if checks is None else list(checks)
    return RunResult.graded(case, run, graded)
