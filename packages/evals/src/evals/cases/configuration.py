"""Configuration cases: cases about how a system under test is configured and how it
validates what it is given, not about its runs.

A case is a configuration case when it sets ``expect.refused`` or ``expect.described``
(:func:`is_configuration`). Its SUT is built again for it, from the evaluation's
``module:attr`` with the case's ``sut_options`` over the evaluation's own options,
while the environment variables the SUT declares in its class attribute
``config_env`` are removed and the case's ``sut_env`` set (:func:`configuration_env`:
under a lock, restored afterwards, also on errors), so a developer's exported variable
never changes the verdict. Then:

- building it raised: the case is refused with that one line, the constructor's own
  message (not :class:`~evals.errors.SutLoadError`'s wrapper);
- else its ``check_case`` hook (asked under the same deadline as before any run,
  :data:`evals.cases.validation.CHECK_CASE_DEADLINE_S`) answers the refusal lines, and
  :func:`evals.model.sut.sut_description` what the built SUT says it runs.

A SUT built with a secret (an option or a ``sut_env`` variable whose name has a word of
:data:`evals.model.sut.SECRET_WORDS`: ``api_key``, ``OPENAI_API_KEY``) must not show it: when its
value (of at least :data:`MIN_SECRET_CHARS` characters) is in the SUT's ``repr`` or
``str``, in the ``repr`` of any of its attributes (what a log line or an error report's
locals show of it) or in its description, the case's run is a ``sut_error`` naming the
secret and where it showed, never its value (:func:`shown_secret`).

The SUT's ``run`` is never called. :class:`Configurations` turns a case into the
synthesized :class:`~evals.model.run.Run` (outcome ``refused`` or ``accepted``, with
``refusal`` and ``description``), always in the evaluation's own process, whatever the
isolation; SUTs with the same options and environment are built once. Only the checks
``refused`` and ``described`` grade such a run (:mod:`evals.checks.configuration`).

What is wrong with a configuration case itself is a problem of the case file (exit 2):
``sut_options`` or ``sut_env`` on another case, both ``refused`` and ``described``
(:func:`case_problems`, found by the loader), a ``sut_env`` variable the SUT does not
declare, or options for a SUT given as an object, which cannot be built again
(:func:`plan_problems`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from evals._text import quote
from evals.cases import validation
from evals.errors import Problem, SutLoadError
from evals.model.case import (
    CASE_LEVEL_KEYS,
    CONFIGURATION_KEYS,
    Case,
    Expect,
    case_problems,
    expect_of,
    is_configuration,
)
from evals.model.run import ACCEPTED, REFUSED, SUT_ERROR, Run
from evals.model.sut import is_secret, load_sut, sut_description

__all__ = [
    "CASE_LEVEL_KEYS",
    "CONFIGURATION_KEYS",
    "CONFIG_ENV",
    "Built",
    "Configurations",
    "SutRecipe",
    "case_problems",
    "config_env_of",
    "configuration_env",
    "is_configuration",
    "plan_problems",
    "run_expectations",
    "secrets_given",
    "shown_secret",
]

CONFIG_ENV = "config_env"
"""The SUT class attribute naming the environment variables it reads for its
configuration (a tuple of names)."""


def run_expectations(data: Mapping[str, Any]) -> list[str]:
    """The ``expect`` keys of a configuration case (as parsed JSON) that judge runs
    (``outcome``, ``tickets``, ``reply_contains`` …, or a project's own keys): set to
    anything but their default, they would never be checked."""
    expect = expect_of(data)
    found: list[str] = []
    for key, value in expect.items():
        if key in CONFIGURATION_KEYS or value is None:
            continue
        model_field = Expect.model_fields.get(key)
        if model_field is not None and value == model_field.get_default(call_default_factory=True):
            continue
        found.append(key)
    return found


def config_env_of(sut: object) -> tuple[str, ...]:
    """The variables ``sut`` (its class, or a factory function) declares in
    ``config_env``; anything but a collection of strings there declares nothing."""
    declared = getattr(sut, CONFIG_ENV, ())
    if isinstance(declared, str) or not isinstance(declared, Iterable):
        return ()
    names = tuple(declared)
    return names if all(isinstance(n, str) and n for n in names) else ()


MIN_SECRET_CHARS = 4
"""A secret shorter than this is not looked for in what the SUT shows (it would be found
there by chance)."""


def secrets_given(options: Mapping[str, object], env: Mapping[str, str]) -> dict[str, str]:
    """Option or variable name -> the secret it gives (its value, stripped), for every
    name that holds a secret (:func:`evals.model.sut.is_secret`) and a value long enough to look
    for."""
    found: dict[str, str] = {}
    for name, value in [*options.items(), *env.items()]:
        text = str(value).strip() if value is not None else ""
        if is_secret(name) and len(text) >= MIN_SECRET_CHARS:
            found[name] = text
    return found


def shown_secret(sut: object, secrets: Mapping[str, str]) -> str | None:
    """Where the built ``sut`` shows one of ``secrets`` (one line naming the secret and
    the place, never the value), or ``None``. Looked at: ``repr(sut)``, ``str(sut)``, the
    ``repr`` of each of its attributes, its description. A ``repr`` that raises shows
    nothing."""
    if not secrets:
        return None
    views: list[tuple[str, Any]] = [
        ("repr(sut)", lambda: repr(sut)),
        ("str(sut)", lambda: str(sut)),
    ]
    attributes = getattr(sut, "__dict__", None)
    if isinstance(attributes, dict):
        for attr, value in attributes.items():
            views.append((f"repr(sut.{attr})", lambda v=value: repr(v)))
    views.append(("its description", lambda: "\n".join(sut_description(sut))))
    for where, view in views:
        try:
            text = str(view())
        except Exception:  # the SUT's own repr failed: it showed nothing
            continue
        for name, secret in secrets.items():
            if secret in text:
                return f"the SUT shows the secret {name} in {where} (its value hidden here)"
    return None


@dataclass(frozen=True)
class SutRecipe:
    """How the evaluation's SUT was built: what a configuration case's SUT is built from
    again (with the case's options over these)."""

    spec: str
    """The ``module:attr`` import path."""
    options: Mapping[str, str] = field(default_factory=dict)
    """The evaluation's options (``--sut-option``, a suite's own)."""


def _as_line(text: str) -> str:
    """A problem line as the SUT gave it; one given on several lines joined with a space.
    Spaces inside a line stay: they can be the very value the problem quotes (``got '  '``)."""
    if "\n" not in text and "\r" not in text:
        return text
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


AS_OBJECT = (
    "the SUT was given as an object, which cannot be built again with the case's own"
    " options: pass it as 'module:attr'"
)
"""Why a configuration case with options or environment cannot be answered without a
recipe (a plan problem; a ``sut_error`` run for a runner given no recipe)."""


def plan_problems(
    sut: object,
    recipe: SutRecipe | None,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
) -> list[Problem]:
    """Problems of the configuration cases among ``cases`` that only the SUT can tell:
    options or environment for a SUT given as an object (``recipe`` is ``None``: it
    cannot be built again), and ``sut_env`` variables it does not declare in
    ``config_env``. Each is located at the case's line."""
    located = sources or {}
    declared = config_env_of(sut)
    found: list[Problem] = []
    for case in cases:
        if not is_configuration(case):
            continue
        file, line = located.get(case.id, (f"<case {case.id}>", 0))
        if recipe is None:
            for key in CASE_LEVEL_KEYS:
                if getattr(case, key):
                    found.append(Problem(file, line, key, AS_OBJECT))
            continue
        for name in case.sut_env:
            if name not in declared:
                known = ", ".join(declared) or "none"
                message = (
                    f"{quote(name)} is not a variable the SUT reads for its configuration"
                    f" (its config_env: {known})"
                )
                found.append(Problem(file, line, f"sut_env.{name}", message))
    return found


_ENV_LOCK = threading.Lock()
"""Held while a configuration case's environment is in force: one at a time."""


@contextmanager
def configuration_env(declared: Iterable[str], given: Mapping[str, str]) -> Iterator[None]:
    """Under a lock: every variable of ``declared`` removed from ``os.environ``, then
    ``given`` set; afterwards (also when the body raises) the environment as it was."""
    names = set(declared) | set(given)
    with _ENV_LOCK:
        saved = {name: os.environ.get(name) for name in names}
        try:
            for name in names:
                os.environ.pop(name, None)
            os.environ.update(given)
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@dataclass(frozen=True)
class Built:
    """A configuration case's SUT, once built (or refused)."""

    sut: object | None
    """The SUT; ``None`` when building it failed."""
    refusal: str | None = None
    """The one line its constructor raised, when that is how it refused."""
    error: str | None = None
    """Why it could not be built other than by its constructor's refusal (the SUT's
    failure, a ``sut_error`` run)."""
    description: tuple[str, ...] = ()
    """What it says it runs (:func:`evals.model.sut.sut_description`)."""


class Configurations:
    """Answers configuration cases for one evaluation: builds each case's SUT from the
    ``recipe`` (or, without one, uses ``sut`` itself), asks it, and synthesizes the run.
    Safe to call from several threads: builds are serialised under the environment lock,
    and a SUT built for some options and environment serves every case with the same."""

    def __init__(self, sut: object, recipe: SutRecipe | None = None) -> None:
        self.sut = sut
        """The evaluation's SUT (its ``config_env``; the one asked without a recipe)."""
        self.recipe = recipe
        """How to build it again; ``None``: it was given as an object."""
        self.config_env: tuple[str, ...] = config_env_of(sut)
        """The variables cleared while a case's SUT is built."""
        self._built: dict[tuple[tuple[tuple[str, str], ...], ...], Built] = {}
        self.builds = 0
        """How many SUTs were built (each distinct options and environment once)."""

    def _build(self, case: Case) -> Built:
        """The case's SUT, from the cache or built now (the environment lock is held)."""
        if self.recipe is None:
            if case.sut_options or case.sut_env:  # answering for another SUT would lie
                return Built(None, error=AS_OBJECT)
            return Built(self.sut, description=tuple(sut_description(self.sut)))
        options = {**self.recipe.options, **case.sut_options}
        key = (tuple(sorted(options.items())), tuple(sorted(case.sut_env.items())))
        cached = self._built.get(key)
        if cached is not None:
            return cached
        self.builds += 1
        try:
            sut = load_sut(self.recipe.spec, options)
        except SutLoadError as e:
            made = (
                Built(None, refusal=e.refusal)
                if e.refusal is not None
                else Built(None, error=str(e))
            )
        else:
            leak = shown_secret(sut, secrets_given(options, case.sut_env))
            made = (
                Built(None, error=leak)
                if leak is not None
                else Built(sut, description=tuple(sut_description(sut)))
            )
        self._built[key] = made
        return made

    def run(self, case: Case, trial: int = 0) -> Run:
        """The synthesized run of configuration case ``case``: outcome ``refused`` with
        the SUT's problem lines, or ``accepted`` with its description; a ``sut_error``
        run when its ``check_case`` hook failed (raised, answered no list of strings,
        outlived the deadline) or it could not be built for another reason."""
        started = time.perf_counter()
        with configuration_env(self.config_env, case.sut_env):
            built = self._build(case)
            run = self._answer(case, trial, built)
        return run.model_copy(update={"latency_ms": (time.perf_counter() - started) * 1000})

    def _answer(self, case: Case, trial: int, built: Built) -> Run:
        if built.refusal is not None:
            return Run(case_id=case.id, trial=trial, outcome=REFUSED, refusal=[built.refusal])
        if built.sut is None:
            error = built.error or "the SUT could not be built"
            return Run(case_id=case.id, trial=trial, outcome=SUT_ERROR, error=error)
        lines: list[str] = []
        if isinstance(built.sut, validation.CaseChecker):
            deadline = validation.CHECK_CASE_DEADLINE_S  # read now: a test may shorten it
            status, answer = validation.ask(built.sut, case, deadline)
            failure: str | None = None
            if status == "hung":
                failure = f"check_case did not answer within {deadline:g}s"
            elif status == "raised":
                failure = f"check_case raised {type(answer).__name__}: {answer}"
            elif not isinstance(answer, list) or not all(isinstance(p, str) for p in answer):
                failure = f"check_case returned {answer!r}; expected a list of strings"
            else:
                lines = [_as_line(text) for text in answer]
            if failure is not None:
                error = " ".join(failure.split())
                return Run(case_id=case.id, trial=trial, outcome=SUT_ERROR, error=error)
        if lines:
            return Run(case_id=case.id, trial=trial, outcome=REFUSED, refusal=lines)
        return Run(
            case_id=case.id,
            trial=trial,
            outcome=ACCEPTED,
            refusal=[],
            description=list(built.description),
        )
