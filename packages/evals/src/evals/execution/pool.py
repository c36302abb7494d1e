"""A supervised pool: ``size`` workers of one kind (worker processes, Ray actors), each
holding a SUT it built itself, that run the cases one trial at a time.

The supervision is the same whatever the worker is, and lives here once: every worker
is started and must say it is ready (built the SUT) within :data:`WORKER_START_S`; a run
waits for an idle worker; a worker that dies, hangs or is killed is retired and a new
one started in its place in the background; when no worker is left and none could be
started, every waiting run fails with the reason. What a worker is — how one starts, is
asked whether it is ready, is stopped, and how one run goes on it — is the backend's
(:class:`evals.execution.isolation.WorkerPool`, :class:`evals.execution.ray_executor.RayPool`).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from evals.errors import SutLoadError
from evals.model.case import Case
from evals.model.run import Run

W = TypeVar("W")
"""A worker of the pool: whatever its backend runs a trial on."""

WORKER_START_S = 120.0
"""How long a worker may take to start and build the SUT before it counts as failed."""


def failed_run(case: Case, trial: int, error: str) -> Run:
    """The run of ``case`` ``trial`` that the pool ended: the SUT's failure, with why."""
    return Run(case_id=case.id, trial=trial, outcome="sut_error", error=error)


class SupervisedPool(ABC, Generic[W]):
    """``size`` workers running ``cases`` through the SUT ``sut`` names (``module:attr``).

    :meth:`start` before the first :meth:`run`, :meth:`close` after the last; one
    :meth:`run` per worker at a time (the runner's concurrency is the pool's size)."""

    worker_name: ClassVar[str] = "worker"
    """What a worker is called when no run could be started on one."""
    where: ClassVar[str] = "a worker"
    """Where the SUT failed to build, in the reason :meth:`start` fails with."""

    def __init__(self, sut: str, cases: Sequence[Case], size: int) -> None:
        self.sut = sut
        self.cases = list(cases)
        self.size = size
        self._index = {id(case): i for i, case in enumerate(self.cases)}
        self._idle: asyncio.Queue[W | None] = asyncio.Queue()
        self._alive = 0  # workers ready, busy or starting
        self._replacing: set[asyncio.Task[str | None]] = set()
        self._start_error: str | None = None
        self.replaced = 0
        """Workers replaced after dying or being killed."""

    # -- what a backend says ------------------------------------------------------------

    async def _prepare(self) -> None:
        """Before the first worker starts (connect to a cluster …)."""

    @abstractmethod
    def _spawn(self) -> W:
        """Start one worker (it builds the SUT in the background)."""

    @abstractmethod
    async def _ready(self, worker: W) -> str | None:
        """Wait until ``worker`` has built the SUT: ``None``, else why it failed (within
        :data:`WORKER_START_S`)."""

    @abstractmethod
    def _stop(self, worker: W) -> None:
        """Stop ``worker`` for good and forget it."""

    @abstractmethod
    def _stop_all(self) -> None:
        """Stop every worker (and whatever the backend started for them)."""

    @abstractmethod
    async def run(self, case: Case, trial: int, timeout_s: float) -> Run:
        """Run one trial on a worker; every way it can fail is a run that says why."""

    # -- the supervision ----------------------------------------------------------------

    async def start(self) -> None:
        """Start every worker and wait until each has built the SUT.

        Raises :class:`SutLoadError` when a worker cannot build it."""
        await self._prepare()
        started = await asyncio.gather(*(self._start_one() for _ in range(self.size)))
        failed = [why for why in started if why is not None]
        if failed:
            self.close()
            raise SutLoadError(self.sut, f"in {self.where}: {failed[0]}")

    async def _start_one(self) -> str | None:
        """Start one worker; ``None`` once it is idle and ready, else why it failed."""
        self._alive += 1
        worker = self._spawn()
        why = await self._ready(worker)
        if why is None:
            self._idle.put_nowait(worker)
            return None
        self._retire(worker)
        self._start_error = why
        if self._alive == 0:
            self._idle.put_nowait(None)  # wake every waiter: no worker is coming
        return why

    def _retire(self, worker: W) -> None:
        self._stop(worker)
        self._alive -= 1

    def _replace(self, worker: W) -> None:
        """Stop ``worker`` and start another in its place, in the background."""
        self._retire(worker)
        self.replaced += 1
        task = asyncio.get_running_loop().create_task(self._start_one())
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _acquire(self) -> W | None:
        """An idle worker, waiting for one; ``None`` when none is left or coming."""
        worker = await self._idle.get()
        if worker is None:
            self._idle.put_nowait(None)  # for the next waiter too
        return worker

    def _not_started(self, case: Case, trial: int) -> Run:
        """The run of a trial no worker is left to run."""
        why = f"no SUT {self.worker_name} could be started: {self._start_error}"
        return failed_run(case, trial, why)

    def _index_of(self, case: Case) -> int:
        """Where ``case`` is among the cases every worker holds."""
        index = self._index.get(id(case))
        if index is None:
            raise ValueError(f"case {case.id!r} is not among the pool's cases")
        return index

    def unstopped(self) -> tuple[str, ...]:
        """None: a worker past its deadline is killed, whatever it was doing."""
        return ()

    def close(self) -> None:
        """Stop every worker (and any being started)."""
        for task in list(self._replacing):
            task.cancel()
        self._stop_all()
