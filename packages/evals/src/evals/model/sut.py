"""The system-under-test protocol: the one narrow door between the evals and an agent.

A SUT turns one trial of one case into a :class:`~evals.model.run.Run`. The runner knows
nothing else about it. It is named by an import path (``package.module:attr``) on the
command line or in ``[tool.evals]`` of the root ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast, runtime_checkable

from evals.errors import SutLoadError
from evals.model.case import Case
from evals.model.run import Run


@runtime_checkable
class SUT(Protocol):
    """A system under test: ``run(case, trial) -> Run``.

    It may also define ``async def arun(case, trial) -> Run``; the runner prefers it
    when present (no thread per run). ``run`` must be safe to call from a worker thread
    and must give every call a fresh world: runs are independent.
    """

    def run(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case`` and return its record."""
        ...


@runtime_checkable
class AsyncSUT(Protocol):
    """A system under test with a coroutine: ``async arun(case, trial) -> Run``.

    The runner awaits it directly on its event loop, so it must not block.
    """

    async def arun(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case`` and return its record."""
        ...


AnySUT = SUT | AsyncSUT
"""What :func:`load_sut` returns: a SUT with ``run``, ``arun`` or both."""

Task = Callable[[Case, int], Run] | Callable[[Case, int], Awaitable[Run]]
"""A plain function ``(case, trial) -> Run`` (or a coroutine function): the smallest SUT."""


@dataclass(frozen=True)
class FunctionSUT:
    """A plain function ``(case, trial) -> Run`` as a system under test."""

    function: Callable[[Case, int], Run]
    """The function that runs one trial of one case."""

    def run(self, case: Case, trial: int) -> Run:
        """Call the function."""
        return self.function(case, trial)


@dataclass(frozen=True)
class AsyncFunctionSUT:
    """A coroutine function ``async (case, trial) -> Run`` as a system under test."""

    function: Callable[[Case, int], Awaitable[Run]]
    """The coroutine function that runs one trial of one case."""

    async def arun(self, case: Case, trial: int) -> Run:
        """Await the function."""
        return await self.function(case, trial)


def as_sut(target: AnySUT | Task) -> AnySUT:
    """``target`` itself when it has ``run`` or ``arun``; a plain function (or coroutine
    function) ``(case, trial) -> Run`` wrapped as a SUT. Anything else raises
    :class:`TypeError` with a one-line message."""
    if isinstance(target, SUT | AsyncSUT):
        return target
    if inspect.iscoroutinefunction(target):
        return AsyncFunctionSUT(target)
    if callable(target):
        return FunctionSUT(cast(Callable[[Case, int], Run], target))
    raise TypeError(
        f"{type(target).__name__} is no system under test: expected an object with"
        " run(case, trial) or arun(case, trial), or a function (case, trial) -> Run"
    )


def sut_name(target: object) -> str:
    """How reports and baselines name a SUT given as an object or a function: the import
    path of its class (of the function itself, for a plain function), ``module:qualname``,
    as ``--sut module:attr`` spells the class on the command line. A baseline made from
    Python then gates from the command line, and the other way round.

    A class or function of the script run as ``__main__`` is named by the module that
    script is when imported (``python grade.py``: ``grade``), as ``--sut`` would import
    it from the script's folder."""
    if isinstance(target, FunctionSUT | AsyncFunctionSUT):
        target = target.function
    named = target if inspect.isfunction(target) or inspect.ismethod(target) else type(target)
    module = _importable_module(str(getattr(named, "__module__", None) or "__main__"))
    qualname = str(getattr(named, "__qualname__", None) or type(target).__name__)
    return f"{module}:{qualname}"


def _importable_module(name: str) -> str:
    """``name``, or for ``__main__`` the name it is imported by: its spec's (``python -m
    pkg.mod``), else its file's stem (``python grade.py``); ``__main__`` when neither."""
    if name != "__main__":
        return name
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name and spec.name != "__main__":
        return str(spec.name)
    file = getattr(main, "__file__", None)
    return Path(file).stem if isinstance(file, str) and file.endswith(".py") else name


def short_name(spec: str) -> str:
    """The last part of a SUT's import path (``pkg.mod:Outer.Inner`` -> ``Inner``): how
    reports and baselines made from Python named a SUT before they named its import
    path."""
    return spec.split(" (", 1)[0].rpartition(":")[2].rpartition(".")[2]


SECRET_WORDS = frozenset({"key", "apikey", "secret", "token", "password"})
"""Option names with one of these among their ``_``-separated words (``api_key``,
``auth_token``) have their values hidden in reports."""


def is_secret(name: str) -> bool:
    """Whether an option (or environment variable) named ``name`` holds a secret: one of
    :data:`SECRET_WORDS` among its ``_``-separated words, in any letter case (``api_key``,
    ``OPENAI_API_KEY``)."""
    return bool(SECRET_WORDS & set(name.lower().split("_")))


def parse_option(text: str) -> tuple[str, str]:
    """Split ``KEY=VALUE`` (a ``--sut-option``); the key must be a Python identifier.

    Raises ``ValueError`` with a one-line message otherwise.
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    if not key.isidentifier():
        raise ValueError(f"option name must be an identifier, got {key!r}")
    return key, value


def describe(spec: str, options: Mapping[str, str] | None = None) -> str:
    """How reports name the SUT: the import path, then its options (secrets hidden)."""
    if not options:
        return spec
    shown = [f"{k}={'***' if is_secret(k) else v}" for k, v in options.items()]
    return f"{spec} ({', '.join(shown)})"


MAX_DESCRIPTION_LINES = 20
"""The most lines of a SUT's own description a report prints."""
MAX_DESCRIPTION_CHARS = 400
"""The most characters of one description line a report prints."""


def sut_description(target: object) -> list[str]:
    """What the system under test says it really runs: its optional ``describe()`` hook,
    as printable lines (the effective settings and where each came from; SupportPilot:
    brain, model, endpoint …). The evals print it under every report's headline and know
    nothing of what it means. No hook: no lines. A hook that raises or answers anything
    but a list of strings says so in one line, never a traceback."""
    hook = getattr(target, "describe", None)
    if not callable(hook):
        return []
    try:
        answer = hook()
    except Exception as e:  # the SUT's own code: reported, never a crash
        return [f"(its describe() raised {type(e).__name__}: {' '.join(str(e).split())})"]
    if not isinstance(answer, list) or not all(isinstance(line, str) for line in answer):
        return [f"(its describe() returned {type(answer).__name__}, not a list of strings)"]
    lines = [" ".join(line.split())[:MAX_DESCRIPTION_CHARS] for line in answer]
    return [line for line in lines if line][:MAX_DESCRIPTION_LINES]


def load_sut(spec: str, options: Mapping[str, str] | None = None) -> AnySUT:
    """Import ``module:attr`` and return a SUT.

    A class is instantiated, a function (a factory) called, with ``options`` as keyword
    arguments (values are strings: the SUT converts them); anything else is used as it
    is, and then takes no options. The result must have a ``run`` or an ``arun`` method.
    The evals know nothing about what the options mean.
    Raises :class:`SutLoadError` with a one-line message when any step fails (when the
    constructor itself raised, its own message on one line is the error's ``refusal``).
    """
    options = dict(options or {})
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise SutLoadError(spec, "expected 'package.module:attr'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise SutLoadError(spec, f"cannot import {module_name!r} ({e})") from e
    except Exception as e:  # the SUT's own code failed as it was imported: one line
        message = " ".join(str(e).split())
        raise SutLoadError(
            spec, f"importing {module_name!r} failed: {type(e).__name__}: {message}"
        ) from e
    target: object = module
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as e:
            raise SutLoadError(spec, f"{module_name!r} has no attribute {attr_path!r}") from e
    if inspect.isclass(target) and not any(
        callable(getattr(target, method, None)) for method in ("run", "arun")
    ):
        # Never built: its constructor's complaint would hide that it is no SUT at all.
        raise SutLoadError(spec, f"{target.__name__} has no run(case, trial) method")
    if inspect.isclass(target) or inspect.isfunction(target):
        try:
            target = target(**options)
        except Exception as e:  # the SUT's own constructor: report, never crash
            # One line, whatever the SUT raised; the spaces inside a line stay (they can
            # be part of a value the message quotes, or the SUT's own wording).
            message = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
            raise SutLoadError(
                spec,
                f"creating it failed: {type(e).__name__}: {message}",
                refusal=message or type(e).__name__,
            ) from e
    elif options:
        names = ", ".join(sorted(options))
        raise SutLoadError(spec, f"options given ({names}) but it is an instance, not a factory")
    if isinstance(target, SUT | AsyncSUT):
        return target
    raise SutLoadError(spec, f"{type(target).__name__} has no run(case, trial) method")
