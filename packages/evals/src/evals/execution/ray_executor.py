"""The Ray executor: runs spread over a Ray cluster (``--executor ray``).

Each (case, trial) is a unit of work. The SUT lives in a pool of Ray actors, as many as
the concurrency: each actor builds it once from its ``module:attr`` spec and options (as
an :mod:`evals.execution.isolation` worker does), then answers one ``(case index, trial)`` call at a
time. The cases go to the object store once; each run comes back as JSON (the serialised
:class:`~evals.model.run.Run`) and the driver, this process, grades it and writes its trace as
the local executor does: the same report for the same cases, the same resume.

What the cluster does to a run is not the agent's doing:

- an actor that dies (its process killed, its node lost) is replaced, and the run is
  tried once more on another actor; when that dies too, the run is recorded as an
  ``error`` (like a provider error: excluded from the rates) naming both causes;
- a run past its deadline (counted from the first attempt's request, not the wait for a
  free actor, and covering the retry) ends its actor
  (``ray.kill``) and is a ``sut_error`` "timed out", as with ``--isolation process``;
- what the SUT raises, or a run that cannot be serialised, is a ``sut_error`` as ever.

Connecting: ``address`` (``--ray-address``), else ``RAY_ADDRESS``, names an existing
cluster; with neither, a local Ray is started for the evaluation with this machine's CPUs
and shut down after it. A Ray already initialised in this process (a notebook, a test) is
used as it is and left running. Ray is an optional extra: ``supportpilot-evals[ray]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from evals.errors import EvalsError, SutLoadError
from evals.execution.isolation import (
    RunSerialisationError,
    describe_error,
    read_back_problem,
    run_json,
)
from evals.execution.pool import WORKER_START_S, SupervisedPool
from evals.execution.pool import failed_run as _failed
from evals.model.case import Case
from evals.model.run import Run
from evals.model.sut import AsyncSUT, load_sut

ATTEMPTS = 2
"""Tries of a run whose actor died: the first, then one on another actor."""
_CAUSE_CHARS = 300
UV_HOOK_VARIABLE = "RAY_ENABLE_UV_RUN_RUNTIME_ENV"


class RayUnavailableError(EvalsError):
    """Ray is not installed, or the cluster cannot be reached."""


CONNECT_PROBE_S = 3.0
"""How long a cluster address may take to accept a TCP connection before it is called
unreachable (a live head answers in milliseconds)."""


def _unreachable(address: str, timeout_s: float = CONNECT_PROBE_S) -> str | None:
    """Why nothing answers at ``address`` (``host:port`` or ``ray://host:port``), or
    ``None`` when something does or the address names no port (``auto``: Ray finds it)."""
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not host:
        return None
    try:
        number = int(port)
    except ValueError:
        return f"{port!r} is not a port number"
    try:
        with socket.create_connection((host.strip("[]"), number), timeout=timeout_s):
            return None
    except OSError as e:
        return f"nothing answers there ({e.strerror or type(e).__name__})"


def require_ray() -> ModuleType:
    """The ``ray`` module; :class:`RayUnavailableError` (one line) when it is not installed.

    Ray's ``uv run`` hook is off unless set: under ``uv run`` it would build each worker a
    fresh environment from the project (without this extra, so without Ray); the workers
    use the environment that is installed, as the driver does."""
    os.environ.setdefault(UV_HOOK_VARIABLE, "0")
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise RayUnavailableError(
            "--executor ray needs Ray, which is not installed:"
            " install the extra supportpilot-evals[ray]"
        ) from e


@dataclass(frozen=True)
class RayExecutor:
    """How to run the SUT on Ray: which SUT, and which cluster."""

    sut: str
    """The SUT's import path (``module:attr``); each actor builds it once."""
    options: Mapping[str, str] = field(default_factory=dict)
    """Keyword arguments for the SUT's constructor or factory."""
    address: str | None = None
    """The cluster (``ray://host:10001``, ``host:6379``, ``auto``); ``None``:
    ``RAY_ADDRESS``, else a local Ray started for the evaluation."""

    def pool(self, cases: Sequence[Case], size: int) -> RayPool:
        """A pool of ``size`` actors running ``cases``."""
        return RayPool(self, cases, size)

    def cluster(self) -> str | None:
        """The cluster's address: :attr:`address`, else ``RAY_ADDRESS``; ``None``: a
        local Ray."""
        return self.address or os.environ.get("RAY_ADDRESS") or None

    def refuse_unreachable(self) -> None:
        """:class:`RayUnavailableError` (one line) when nothing answers at the cluster's
        address. Asked when the evaluation is planned, before any report is written (a
        refusal must not replace the last report under its label), and again before
        ``ray.init``, which would retry for minutes, deaf to Ctrl-C. A Ray this process
        has initialised already is used as it is, unasked."""
        address = self.cluster()
        if not address or require_ray().is_initialized():
            return
        unreachable = _unreachable(address)
        if unreachable is not None:
            raise RayUnavailableError(f"cannot reach Ray at {address!r}: {unreachable}")


# ---------------------------------------------------------------------------- actor side


class SutActor:
    """One actor's SUT (wrapped with ``ray.remote`` by the pool). Built once; then one
    :meth:`run` at a time."""

    def __init__(
        self, spec: str, options: dict[str, str], cases: list[Case], sys_path: list[str]
    ) -> None:
        # The driver's import paths that exist here too (a SUT found on a path it added).
        sys.path[:0] = [p for p in sys_path if p not in sys.path and os.path.isdir(p)]
        self.cases = cases
        self.problem: str | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        try:
            self.sut = load_sut(spec, options)
        except SutLoadError as e:
            self.problem = e.problem
            return
        if isinstance(self.sut, AsyncSUT):
            self.loop = asyncio.new_event_loop()

    def ready(self) -> str | None:
        """``None`` once the SUT is built, else why it could not be."""
        return self.problem

    def run(self, index: int, trial: int) -> tuple[str, bytes | str]:
        """Trial ``trial`` of case ``index``: ``("run", json)`` or ``("error", why)``."""
        case = self.cases[index]
        try:
            if self.loop is not None:
                value: object = self.loop.run_until_complete(self.sut.arun(case, trial))  # type: ignore[union-attr]
            else:
                value = self.sut.run(case, trial)  # type: ignore[union-attr]
        except BaseException as e:  # SystemExit and KeyboardInterrupt too: the SUT's
            return ("error", describe_error(e))
        if not isinstance(value, Run):
            return ("error", f"SUT returned {type(value).__name__}, not a Run")
        try:
            return ("run", run_json(value))
        except RunSerialisationError as e:
            return ("error", str(e))


# ---------------------------------------------------------------------------- driver side


def _cause(error: BaseException) -> str:
    """A Ray error in one short line: its type and the first line of its message."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    if len(text) > _CAUSE_CHARS:
        text = text[: _CAUSE_CHARS - 1] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class _ActorDiedError(Exception):
    """An attempt's actor died (or its node, or its result was lost)."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class RayPool(SupervisedPool[Any]):
    """``size`` Ray actors running ``cases`` through the SUT that ``executor`` names
    (supervised as :class:`~evals.execution.pool.SupervisedPool` says)."""

    worker_name = "actor"
    where = "a Ray actor"

    def __init__(self, executor: RayExecutor, cases: Sequence[Case], size: int) -> None:
        super().__init__(executor.sut, cases, size)
        self.executor = executor
        self._ray: Any = None
        self._actor_class: Any = None
        self._cases_ref: Any = None
        self._owns_ray = False
        self._actors: list[Any] = []
        self.retried = 0
        """Runs tried again on another actor after their actor died."""

    def _connect(self) -> None:
        ray = require_ray()
        self._ray = ray
        if ray.is_initialized():  # the caller's Ray: used as it is, left running
            return
        address = self.executor.cluster()
        settings: dict[str, Any] = {"log_to_driver": False, "logging_level": "ERROR"}
        self.executor.refuse_unreachable()  # ray.init would retry for minutes, deaf to Ctrl-C
        try:
            if address:
                ray.init(address=address, **settings)
            else:
                ray.init(
                    address="local",
                    num_cpus=os.cpu_count() or 1,
                    include_dashboard=False,
                    **settings,
                )
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = f"at {address!r}" if address else "locally"
            raise RayUnavailableError(f"cannot start or reach Ray {where}: {_cause(e)}") from e
        self._owns_ray = True

    async def _prepare(self) -> None:
        """Connect to Ray; the actor class and the cases, shipped once for every actor."""
        self._connect()
        ray = self._ray
        # No restarts by Ray itself: the pool replaces a dead actor and retries the run once.
        self._actor_class = ray.remote(max_restarts=0, max_task_retries=0)(SutActor)
        self._cases_ref = ray.put(self.cases)  # shipped once, shared by every actor

    def _spawn(self) -> Any:
        actor = self._actor_class.remote(
            self.executor.sut, dict(self.executor.options), self._cases_ref, list(sys.path)
        )
        self._actors.append(actor)
        return actor

    async def _ready(self, actor: Any) -> str | None:
        try:
            why = await asyncio.wait_for(_result(actor.ready.remote()), WORKER_START_S)
        except TimeoutError:
            why = f"not ready within {WORKER_START_S:g}s"
        except self._ray.exceptions.RayError as e:
            why = f"the Ray actor died ({_cause(e)})"
        return None if why is None else str(why)

    def _stop(self, actor: Any) -> None:
        with contextlib.suppress(Exception):  # already dead, or Ray shutting down
            self._ray.kill(actor, no_restart=True)
        with contextlib.suppress(ValueError):
            self._actors.remove(actor)

    def _stop_all(self) -> None:
        """Stop every actor; shut down a Ray started here."""
        if self._ray is None:
            return
        for actor in list(self._actors):
            with contextlib.suppress(Exception):
                self._ray.kill(actor, no_restart=True)
        self._actors.clear()
        if self._owns_ray:
            self._ray.shutdown()
            self._owns_ray = False

    async def run(self, case: Case, trial: int, timeout_s: float) -> Run:
        """Run one trial on an actor; a dead actor's run is tried once more on another.
        The deadline counts from the first request (not the wait for a free actor) and
        covers both attempts."""
        index = self._index_of(case)
        causes: list[str] = []
        deadline: float | None = None
        for _ in range(ATTEMPTS):
            actor = await self._acquire()
            if actor is None:
                return self._not_started(case, trial)
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + timeout_s
            else:
                self.retried += 1
            try:
                return await self._attempt(actor, case, trial, index, deadline)
            except _ActorDiedError as e:
                causes.append(e.cause)
            except TimeoutError:
                return _failed(case, trial, f"timed out after {timeout_s:g}s (Ray actor killed)")
        return Run(
            case_id=case.id,
            trial=trial,
            outcome="error",
            error=f"the Ray actor died on both attempts, a fault of the cluster, not the"
            f" agent ({'; then '.join(causes)})",
        )

    async def _attempt(
        self, actor: Any, case: Case, trial: int, index: int, deadline: float
    ) -> Run:
        """One try on ``actor``: :class:`_ActorDiedError` when the actor is lost,
        ``TimeoutError`` past ``deadline`` (the actor is then killed and replaced)."""
        errors = self._ray.exceptions
        try:
            async with asyncio.timeout_at(deadline):
                kind, payload = await _result(actor.run.remote(index, trial))
        except TimeoutError:  # the actor may still be running it: ended and replaced
            self._replace(actor)
            raise
        except asyncio.CancelledError:  # the evaluation is stopping: no replacement
            self._retire(actor)
            raise
        except errors.RayTaskError as e:  # the actor's method raised (not the SUT's call)
            self._idle.put_nowait(actor)
            return _failed(case, trial, f"the Ray actor failed: {_cause(e)}")
        except errors.RayError as e:  # the actor, its node or the result was lost
            self._replace(actor)
            raise _ActorDiedError(_cause(e)) from e
        self._idle.put_nowait(actor)
        if kind == "error":
            return _failed(case, trial, str(payload))
        try:
            return Run.model_validate_json(payload)
        except ValidationError as e:
            return _failed(case, trial, read_back_problem(e))


async def _result(ref: Any) -> Any:
    """Await a Ray object reference on this event loop."""
    return await asyncio.wrap_future(ref.future())
