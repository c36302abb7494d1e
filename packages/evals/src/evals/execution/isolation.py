"""Process isolation: the system under test runs in worker processes.

With ``isolation="process"`` (``--isolation process``) the runner does not call the SUT
in its own process. A pool of worker processes (as many as the concurrency) each build
the SUT once from its ``module:attr`` spec and options, then run one (case, trial) at a
time; the run comes back as JSON (the serialised :class:`~evals.model.run.Run`) and is read
back in the harness. What a misbehaving SUT can do there costs only that run:

- a worker that exits (``os._exit``, a segfault, the OOM killer) makes the run a
  ``sut_error`` naming the exit code or signal;
- a run past its deadline (an async SUT blocking its loop with ``time.sleep``, one that
  swallows ``CancelledError``, a hung thread) is ended by killing its worker;
- with a memory limit (``RLIMIT_AS`` in the worker), an allocation past it fails in the
  worker (``MemoryError``), and the run is a ``sut_error`` saying so;
- a run that cannot be serialised is a ``sut_error`` with the reason.

A worker that died or was killed is replaced (the SUT is built again) and the evaluation
goes on. A worker is a fresh interpreter (``sys.executable``), never a ``fork`` of the
harness (its threads and event loop are not copied) and, unlike ``multiprocessing``'s
``spawn``, it does not import the harness's ``__main__`` again: a script calling
:func:`evals.evaluate` needs no ``if __name__ == "__main__"`` guard. It talks to the
harness over a socket pair (pickled messages), not stdout, which stays the SUT's. A
Ctrl-C from the terminal reaches the whole process group; workers ignore it and the
harness stops them.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from evals.errors import SutLoadError
from evals.execution.pool import WORKER_START_S, SupervisedPool
from evals.execution.pool import failed_run as _failed
from evals.model.case import Case
from evals.model.run import INVALID_RUN, Run, number_problem
from evals.model.sut import AsyncSUT, load_sut

_MIB = 1024 * 1024
_EVALS_ROOT = str(Path(__file__).resolve().parents[2])
"""Where this ``evals`` was imported from: a worker imports the very same one."""
_WORKER_CODE = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from evals.execution.isolation import worker_main; worker_main({fd})"
)


@dataclass(frozen=True)
class ProcessIsolation:
    """How to run the SUT in worker processes: which SUT, and the limits per worker."""

    sut: str
    """The SUT's import path (``module:attr``); each worker builds it once."""
    options: Mapping[str, str] = field(default_factory=dict)
    """Keyword arguments for the SUT's constructor or factory."""
    memory_limit_mb: int | None = None
    """Address-space limit of each worker in MiB (``RLIMIT_AS``); ``None``: none. No
    default: some runtimes reserve much more address space than they use."""

    def __post_init__(self) -> None:
        if self.memory_limit_mb is not None and self.memory_limit_mb < 1:
            raise ValueError(f"memory_limit_mb must be at least 1, got {self.memory_limit_mb!r}")


class RunSerialisationError(ValueError):
    """A run that cannot be written as JSON (a lone surrogate, an object in ``detail``)."""


MAX_RUN_BYTES = 16 * 2**20
"""The largest run record kept (JSON bytes): SupportPilot's are a few kilobytes."""


def run_json(run: Run) -> bytes:
    """``run`` as JSON bytes, as traces store it and workers send it.

    Raises :class:`RunSerialisationError`, one line, when it cannot be serialised, holds a
    number that cannot mean what its field says (:func:`evals.model.run.number_problem`), or is
    larger than :data:`MAX_RUN_BYTES` — checked here, where every worker sends its runs
    from, so no trace line, report or page grows past that for one run."""
    problem = number_problem(run)
    if problem is not None:
        raise RunSerialisationError(f"{INVALID_RUN}: {problem}")
    try:
        data: bytes = run.__pydantic_serializer__.to_json(run)
    except (PydanticSerializationError, ValueError, TypeError) as e:
        raise RunSerialisationError(f"the run could not be serialised: {_one_line(str(e))}") from e
    if len(data) > MAX_RUN_BYTES:
        raise RunSerialisationError(
            f"{INVALID_RUN}: its record is {len(data) / 2**20:.1f} MiB, over the"
            f" {MAX_RUN_BYTES // 2**20} MiB a run may hold (a reply or a trace that size is a"
            " bug of the system under test)"
        )
    return data


def read_back_problem(error: ValidationError) -> str:
    """Why a run sent by a worker (or a Ray actor) could not be read back, naming the
    field: a NaN the SUT put in a number arrives as ``null``."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the run"
    return f"the run could not be read back: {where}: {_one_line(str(first['msg']))}"


def describe_error(error: BaseException) -> str:
    """How a SUT's exception is recorded: ``Type: message``; ``SystemExit`` and
    ``KeyboardInterrupt`` say that the SUT raised them."""
    text = _one_line(str(error))
    described = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if isinstance(error, SystemExit | KeyboardInterrupt):
        return f"{described} (raised by the system under test)"
    return described


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------- worker side

_Message = tuple[str, Any]
"""What a worker sends: ``("ready", None)``, ``("failed", why)`` (the SUT could not be
built), ``("run", json_bytes)``, ``("error", description)``."""


@dataclass(frozen=True)
class _WorkerSetup:
    """What a worker is started with (pickled to it once)."""

    spec: str
    options: dict[str, str]
    cases: list[Case]
    sys_path: list[str]
    memory_limit_mb: int | None


def worker_main(fd: int) -> None:
    """A worker (``python -c``, the harness's end of the socket pair at ``fd``): take its
    setup, build the SUT, then answer ``(case index, trial)`` requests until the harness
    closes the socket."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness handles Ctrl-C
    conn = Connection(fd)
    try:
        setup: _WorkerSetup = conn.recv()
    except (EOFError, OSError):
        return
    sys.path[:] = setup.sys_path  # the harness's imports (a SUT found on a path it added)
    cases, memory_limit_mb = setup.cases, setup.memory_limit_mb
    if memory_limit_mb is not None:
        import resource  # noqa: PLC0415  # POSIX only, and needed only here

        limit = memory_limit_mb * _MIB
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        sut = load_sut(setup.spec, setup.options)
    except SutLoadError as e:
        conn.send(("failed", e.problem))
        return
    except MemoryError:
        conn.send(("failed", f"MemoryError (the worker's memory limit is {memory_limit_mb} MiB)"))
        return
    arun = sut.arun if isinstance(sut, AsyncSUT) else None
    loop = asyncio.new_event_loop() if arun is not None else None
    conn.send(("ready", None))
    while True:
        try:
            index, trial = conn.recv()
        except (EOFError, OSError):  # the harness is gone or done
            return
        case = cases[index]
        try:
            if arun is not None and loop is not None:
                value: object = loop.run_until_complete(arun(case, trial))
            else:
                value = sut.run(case, trial)  # type: ignore[union-attr]
        except MemoryError:
            note = (
                f" (the worker's memory limit is {memory_limit_mb} MiB)" if memory_limit_mb else ""
            )
            conn.send(("error", f"MemoryError{note}"))
            return  # a worker that ran out of memory is replaced, not trusted further
        except BaseException as e:  # SystemExit and KeyboardInterrupt too: the SUT's
            conn.send(("error", describe_error(e)))
            continue
        if not isinstance(value, Run):
            conn.send(("error", f"SUT returned {type(value).__name__}, not a Run"))
            continue
        try:
            conn.send(("run", run_json(value)))
        except RunSerialisationError as e:
            conn.send(("error", str(e)))


# ---------------------------------------------------------------------------- harness side


def _exit_cause(process: subprocess.Popen[bytes]) -> str:
    code = process.poll()
    if code is None:
        return "its pipe closed"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


class _Worker:
    """One worker process and the harness's end of its pipe."""

    def __init__(self, pool: WorkerPool) -> None:
        ours, theirs = socket.socketpair()
        try:
            fd = theirs.fileno()
            self.process = subprocess.Popen(
                [sys.executable, "-c", _WORKER_CODE.format(root=_EVALS_ROOT, fd=fd)],
                stdin=subprocess.DEVNULL,
                pass_fds=(fd,),
            )
        finally:
            theirs.close()  # so the worker's death reads as the end of the socket here
        self.conn = Connection(ours.detach())
        self.conn.send(pool.setup)

    async def receive(self) -> _Message:
        """The worker's next message; ``("died", cause)`` when its pipe ends."""
        loop = asyncio.get_running_loop()
        readable: asyncio.Future[None] = loop.create_future()
        fd = self.conn.fileno()

        def ready() -> None:
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(fd, ready)
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        try:
            message: _Message = self.conn.recv()
        except (EOFError, OSError):
            return ("died", await self.cause_of_death())
        return message

    async def cause_of_death(self) -> str:
        """Why the worker is gone (its exit code or signal), once the OS says."""
        for _ in range(100):  # the pipe can close a moment before the exit is reaped
            if self.process.poll() is not None:
                break
            await asyncio.sleep(0.01)
        return _exit_cause(self.process)

    def kill(self) -> None:
        """End the worker at once (SIGKILL) and reap it."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.close()
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)


class WorkerPool(SupervisedPool[_Worker]):
    """``size`` worker processes running ``cases`` through the SUT that ``isolation``
    names (supervised as :class:`~evals.execution.pool.SupervisedPool` says)."""

    worker_name = "worker"
    where = "a worker process"

    def __init__(self, isolation: ProcessIsolation, cases: Sequence[Case], size: int) -> None:
        super().__init__(isolation.sut, cases, size)
        self.isolation = isolation
        self.setup = _WorkerSetup(
            isolation.sut,
            dict(isolation.options),
            self.cases,
            list(sys.path),
            isolation.memory_limit_mb,
        )
        self._workers: set[_Worker] = set()

    def _spawn(self) -> _Worker:
        worker = _Worker(self)
        self._workers.add(worker)
        return worker

    async def _ready(self, worker: _Worker) -> str | None:
        try:
            kind, payload = await asyncio.wait_for(worker.receive(), WORKER_START_S)
        except TimeoutError:
            kind, payload = "failed", f"not ready within {WORKER_START_S:g}s"
        if kind == "ready":
            return None
        return str(payload) if kind == "failed" else f"the worker process died ({payload})"

    def _stop(self, worker: _Worker) -> None:
        worker.kill()
        self._workers.discard(worker)

    def _stop_all(self) -> None:
        for worker in list(self._workers):
            worker.kill()
        self._workers.clear()

    async def run(self, case: Case, trial: int, timeout_s: float) -> Run:
        """Run one trial in a worker; every way it can fail is a ``sut_error`` run. The
        deadline counts from the request, not the wait for a worker to be free."""
        index = self._index_of(case)
        worker = await self._acquire()
        if worker is None:
            return self._not_started(case, trial)
        try:
            worker.conn.send((index, trial))
            async with asyncio.timeout(timeout_s):
                kind, payload = await worker.receive()
        except TimeoutError:
            self._replace(worker)
            return _failed(case, trial, f"timed out after {timeout_s:g}s (worker process killed)")
        except asyncio.CancelledError:  # the evaluation is stopping: no replacement
            self._retire(worker)
            raise
        except (OSError, ValueError) as e:  # the pipe broke as the request went out
            self._replace(worker)
            return _failed(case, trial, f"the worker process died ({describe_error(e)})")
        if kind == "run":
            try:
                run = Run.model_validate_json(payload)
            except ValidationError as e:
                self._idle.put_nowait(worker)
                return _failed(case, trial, read_back_problem(e))
            self._idle.put_nowait(worker)
            return run
        if kind == "error":
            if str(payload).startswith("MemoryError"):
                self._replace(worker)  # it leaves after a MemoryError
            else:
                self._idle.put_nowait(worker)
            return _failed(case, trial, str(payload))
        self._replace(worker)
        limit = self.isolation.memory_limit_mb
        # A kill may be the limit's doing (a C extension failing an allocation).
        note = f"; its memory limit was {limit} MiB" if limit and "killed" in payload else ""
        return _failed(case, trial, f"the worker process died ({payload}{note})")
