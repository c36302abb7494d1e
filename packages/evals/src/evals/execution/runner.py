"""The runner: every selected case x trial through the SUT, graded as it finishes.

Runs are independent, so they go concurrently on one asyncio event loop, at most
``concurrency`` in flight (an ``asyncio.Semaphore``). A SUT with ``arun`` is awaited
directly; a plain ``run`` goes to a worker thread. Results are stored by position
(case order, then trial), never by completion, so any concurrency gives the same
results. Each finished run is graded at once and its trace appended to disk; only a
:class:`~evals.metrics.summary.RunResult` (~200 bytes: what metrics and reports need) stays in
memory, so memory stays flat however many runs there are.

A run that raises becomes a ``sut_error`` run; one that outlives ``timeout_s`` becomes a
``sut_error`` run "timed out after …s" and is abandoned, not waited for. So does a run
that cannot be serialised (its reason recorded), since traces and workers need its JSON.

In the default mode (``isolation=None``) the SUT runs in this process, and a run can
misbehave past its deadline: an async SUT that swallows ``CancelledError`` is given a
grace period (``grace_s``) after the cancellation, then abandoned (still running on the
loop); one that blocks the event loop (``time.sleep`` in ``arun``) is interrupted by a
watchdog thread once it is ``grace_s`` past its deadline (a signal to the main thread
raises in the blocking code; see :mod:`evals.execution.watchdog` for the limits). Runs that could
not be stopped are listed in :attr:`RunnerResults.unstopped`. With
:class:`~evals.execution.isolation.ProcessIsolation` the SUT runs in worker processes
instead, which can be killed (:mod:`evals.execution.isolation`); with
:class:`~evals.execution.ray_executor.RayExecutor`, in the actors of a Ray cluster
(:mod:`evals.execution.ray_executor`). Ctrl-C
(SIGINT) or SIGTERM stops scheduling, cancels what is in flight and returns the finished
results, marked incomplete, with the signal that stopped them. Runs are scheduled
trial-major (every case's trial 0, then trial 1 …), so the finished results of an
interrupted evaluation cover every case about equally.

With ``hold_sigint``, such a stop also leaves further SIGINTs and SIGTERMs ignored when
:meth:`Runner.run` returns, so the caller can write the partial report undisturbed; it
then calls :meth:`Runner.release_sigint` to restore the handling there was before.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from evals.cases.configuration import Configurations, is_configuration
from evals.checks import Check, grade
from evals.execution import stop_signals
from evals.execution.backend import Backend
from evals.execution.in_process import InProcess, LoopClock, close_loop
from evals.execution.isolation import (
    ProcessIsolation,
    RunSerialisationError,
    WorkerPool,
    run_json,
)
from evals.execution.progress import Progress
from evals.execution.ray_executor import RayExecutor
from evals.execution.stop_signals import STOP_SIGNALS
from evals.log.traces import TraceWriter
from evals.model.case import Case
from evals.model.options import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S
from evals.model.result import RunResult
from evals.model.run import INVALID_RUN, Run, number_problem
from evals.model.sut import AnySUT

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW",
    "DEFAULT_TIMEOUT_S",
    "STOP_SIGNALS",
    "Runner",
    "RunnerResults",
    "select_cases",
]

DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW = 10
"""Provider errors (runs ending ``error``) in a row after which a runner stops
scheduling: a dead endpoint is noticed in seconds, not after every run has retried."""


def default_grace_s(timeout_s: float) -> float:
    """How long past its deadline a run may take to stop (a quarter of the timeout, from
    0.2 s to 5 s): a cancelled coroutine stops in microseconds, so this is generous."""
    return min(5.0, max(0.2, timeout_s / 4))


def select_cases(
    cases: Iterable[Case],
    *,
    split: str | None = None,
    tags: Iterable[str] = (),
    exclude_tags: Iterable[str] = (),
) -> list[Case]:
    """The cases of ``split`` (any when ``None``) having any of ``tags`` (any when empty)
    and none of ``exclude_tags``, in their original order."""
    wanted, excluded = set(tags), set(exclude_tags)
    return [
        case
        for case in cases
        if (split is None or case.split == split)
        and (not wanted or wanted.intersection(case.tags))
        and not excluded.intersection(case.tags)
    ]


@dataclass(frozen=True)
class RunnerResults:
    """What a runner returns: the graded runs, in (case order, trial) order."""

    results: tuple[RunResult, ...]
    """One result per finished run; unfinished runs of an interrupted evaluation are
    absent."""
    planned_runs: int
    """Runs selected (cases x trials)."""
    interrupted: bool
    """True when a signal (Ctrl-C or SIGTERM) stopped the evaluation."""
    stop_signal: int | None = None
    """The signal that stopped it (``signal.SIGINT`` or ``signal.SIGTERM``), if any."""
    stop_reason: str | None = None
    """Why the runner itself stopped scheduling (the provider kept failing), if it did."""
    unstopped: tuple[str, ...] = ()
    """Runs (``case#trial``) that timed out and could not be stopped: still running in
    this process (a thread, or a coroutine that ignored its cancellation) when the
    evaluation ended. Their results are ``sut_error`` runs."""

    @property
    def stop_signal_name(self) -> str | None:
        """The name of the signal that stopped it (``SIGINT``, ``SIGTERM``), if any."""
        return None if self.stop_signal is None else signal.Signals(self.stop_signal).name

    @property
    def complete(self) -> bool:
        """Every planned run finished."""
        return (
            not self.interrupted
            and self.stop_reason is None
            and len(self.results) == self.planned_runs
        )


class Runner:
    """Runs cases through a SUT; see the module docstring for the guarantees."""

    def __init__(
        self,
        sut: AnySUT,
        *,
        trials: int = 1,
        concurrency: int = DEFAULT_CONCURRENCY,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        traces: TraceWriter | None = None,
        progress: TextIO | None = None,
        handle_sigint: bool = True,
        hold_sigint: bool = False,
        checks: Iterable[Check] | None = None,
        crashed: Mapping[str, str] | None = None,
        max_provider_errors_in_a_row: int | None = DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW,
        isolation: ProcessIsolation | RayExecutor | None = None,
        grace_s: float | None = None,
        configurations: Configurations | None = None,
        stop_when: Callable[[RunResult], str | None] | None = None,
    ) -> None:
        if trials < 1:
            raise ValueError(f"trials must be at least 1, got {trials!r}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency!r}")
        if not timeout_s > 0:
            raise ValueError(f"timeout must be positive, got {timeout_s!r}")
        limit = max_provider_errors_in_a_row
        if limit is not None and limit < 1:
            raise ValueError(f"max_provider_errors_in_a_row must be at least 1, got {limit!r}")
        self.sut = sut
        self.trials = trials
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.traces = traces
        self.progress = progress
        self.handle_sigint = handle_sigint
        self.hold_sigint = hold_sigint
        # The handlers to restore while the stop signals are held.
        self._held: dict[signal.Signals, Any] | None = None
        self.checks: tuple[Check, ...] | None = None if checks is None else tuple(checks)
        """The checks every run is graded with (``None``: every registered check)."""
        self.max_provider_errors_in_a_row = max_provider_errors_in_a_row
        """Provider errors in a row after which scheduling stops (``None``: never)."""
        self._errors_in_a_row = 0
        self._stop_reason: str | None = None
        self.crashed: dict[str, str] = dict(crashed or {})
        """Cases the SUT's ``check_case`` hook failed on (id -> how): every run of them
        is a ``sut_error``, the SUT is not called."""
        self.isolation = isolation
        """With it, runs go to worker processes building the SUT it names; ``sut`` is
        then used only for what the harness asks before runs (``check_case``)."""
        self.grace_s = default_grace_s(timeout_s) if grace_s is None else grace_s
        """How long past its deadline an in-process run may take to stop."""
        if not self.grace_s > 0:
            raise ValueError(f"grace must be positive, got {grace_s!r}")
        self.configurations = configurations or Configurations(sut)
        """What answers configuration cases (:mod:`evals.cases.configuration`): in this process,
        in a thread of its own, never the SUT's ``run``; by default with ``sut`` itself."""
        self.stop_when = stop_when
        """Asked about every graded run as it finishes: a reason stops scheduling (the
        runs in flight finish), as too many provider errors do (``evals gate
        --fail-fast``, :mod:`evals.gating.fail_fast`)."""
        clock = LoopClock()  # one for every run in this process, the SUT's and the questions'
        # Configuration cases are answered here, whatever the isolation: never run.
        self._here = InProcess(self.configurations, self.grace_s, clock=clock, watch=False)
        self._backend: Backend = InProcess(sut, self.grace_s, clock=clock)

    def run(
        self, cases: Sequence[Case], finished: Mapping[tuple[str, int], RunResult] | None = None
    ) -> RunnerResults:
        """Run every case ``trials`` times on a fresh event loop and return the results.

        ``finished``: runs done already (by (case id, trial); a resumed evaluation's
        traces): they are not run again, and are among the results in their place.
        :meth:`arun` takes them as ``earlier``."""
        done: list[RunnerResults] = []
        before = (
            {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
            if threading.current_thread() is threading.main_thread()
            else None
        )

        async def main() -> None:
            done.append(await self.arun(cases, finished))

        # Not asyncio.run: at its end it waits for every task to finish cancelling, and a
        # SUT coroutine that swallows CancelledError would hang it for ever.
        loop = asyncio.new_event_loop()
        try:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(main())
        finally:
            close_loop(loop, self.grace_s)
        if self._held is not None and before is not None:
            self._held = {k: v for k, v in before.items() if v is not None}
        return done[0]

    def release_sigint(self) -> None:
        """End the hold a stop (Ctrl-C or SIGTERM) left with ``hold_sigint``: restore the
        handlers there were before the run. Does nothing when nothing is held."""
        if self._held is not None:
            for signum, handler in self._held.items():
                signal.signal(signum, handler)
            self._held = None

    async def arun(
        self, cases: Sequence[Case], earlier: Mapping[tuple[str, int], RunResult] | None = None
    ) -> RunnerResults:
        """Like :meth:`run`, on the running event loop."""
        self._errors_in_a_row, self._stop_reason = 0, None
        loop = asyncio.get_running_loop()
        planned = len(cases) * self.trials
        slots: list[RunResult | None] = [None] * planned
        for position, case in enumerate(cases):
            for trial in range(self.trials):
                slots[position * self.trials + trial] = (earlier or {}).get((case.id, trial))
        progress = Progress(self.progress, planned - sum(s is not None for s in slots))
        semaphore = asyncio.Semaphore(self.concurrency)
        in_flight: set[asyncio.Task[None]] = set()
        interrupted = False
        stop_signal: int | None = None
        harness_errors: list[BaseException] = []

        def stop_all() -> None:
            producer.cancel()
            for task in list(in_flight):
                task.cancel()

        def on_stop(signum: int) -> None:
            nonlocal interrupted, stop_signal
            if not interrupted:
                interrupted, stop_signal = True, signum
            stop_all()

        def finished(task: asyncio.Task[None]) -> None:
            in_flight.discard(task)
            semaphore.release()
            if not task.cancelled() and task.exception() is not None:
                # A bug in grading or tracing, not in the SUT: stop and re-raise below.
                harness_errors.append(task.exception())  # type: ignore[arg-type]
                stop_all()

        async def produce() -> None:
            # Trial-major: every case's trial 0, then every case's trial 1 … so an
            # interrupted evaluation has covered every case about equally.
            for trial in range(self.trials):
                for position, case in enumerate(cases):
                    index = position * self.trials + trial  # the (case order, trial) slot
                    if slots[index] is not None:  # finished before a resume
                        continue
                    await semaphore.acquire()
                    if self._stop_reason is not None:  # the provider is down: no more
                        semaphore.release()
                        break
                    task = loop.create_task(self._one(case, trial, index, slots, progress))
                    in_flight.add(task)
                    task.add_done_callback(finished)
                if self._stop_reason is not None:
                    break
            while in_flight:
                await asyncio.wait(set(in_flight))

        if isinstance(self.isolation, RayExecutor):  # actors on a Ray cluster
            self._backend = self.isolation.pool(cases, self.concurrency)
        elif self.isolation is not None:
            self._backend = WorkerPool(self.isolation, cases, self.concurrency)
        await self._here.start()
        try:
            await self._backend.start()  # a SUT no worker can build: SutLoadError, no run
        except BaseException:  # the SUT unbuildable, the cluster gone, Ctrl-C while starting
            self._backend.close()  # whatever workers did start are stopped
            self._here.close()
            raise
        producer = loop.create_task(produce())
        sigint_installed = self.handle_sigint and stop_signals.route(loop, on_stop)
        try:
            try:
                await producer
            except asyncio.CancelledError:
                if not (interrupted or harness_errors):
                    raise
            if in_flight:
                await asyncio.gather(*in_flight, return_exceptions=True)
        finally:
            self._backend.close()
            self._here.close()
            if sigint_installed:
                held = interrupted and self.hold_sigint
                stop_signals.let_go(loop, hold=held)
                if held:  # what the loop leaves behind, restored on release
                    self._held = {
                        signal.SIGINT: signal.default_int_handler,
                        signal.SIGTERM: signal.SIG_DFL,
                    }
            progress.close()
        if harness_errors:
            raise harness_errors[0]
        results = tuple(r for r in slots if r is not None)
        return RunnerResults(
            results=results,
            planned_runs=planned,
            interrupted=interrupted,
            stop_signal=stop_signal,
            stop_reason=self._stop_reason,
            unstopped=self._here.unstopped() + self._backend.unstopped(),
        )

    async def _one(
        self,
        case: Case,
        trial: int,
        index: int,
        slots: list[RunResult | None],
        progress: Progress,
    ) -> None:
        started = time.perf_counter()
        run = await self._call(case, trial)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if run.case_id != case.id or run.trial != trial:
            run = run.model_copy(update={"case_id": case.id, "trial": trial})
        problem = number_problem(run)
        if problem is not None:  # the SUT's numbers are untrusted input
            run = _failed(case, trial, f"{INVALID_RUN}: {problem}")
        if run.latency_ms <= 0:
            run = run.model_copy(update={"latency_ms": elapsed_ms})
        try:
            data = run_json(run)  # before grading: an unserialisable run is the SUT's failure
        except RunSerialisationError as e:
            run = _failed(case, trial, str(e)).model_copy(update={"latency_ms": elapsed_ms})
            data = run_json(run)
        checks = grade(case, run, self.checks)
        result = RunResult.graded(case, run, checks)
        slots[index] = result
        self._count_provider_errors(result)
        if self.stop_when is not None and self._stop_reason is None:
            self._stop_reason = self.stop_when(result)
        if self.traces is not None:
            self.traces.write(run, checks, result.success, run_json=data)
        progress.update(result.success)

    def _count_provider_errors(self, result: RunResult) -> None:
        """Stop scheduling after too many provider errors in a row (a dead endpoint)."""
        self._errors_in_a_row = self._errors_in_a_row + 1 if result.errored else 0
        limit = self.max_provider_errors_in_a_row
        if limit is not None and self._errors_in_a_row >= limit and self._stop_reason is None:
            self._stop_reason = (
                f"stopped after {limit} provider errors in a row (last: {result.error or '?'});"
                " the provider looks down"
            )

    async def _call(self, case: Case, trial: int) -> Run:
        """One SUT call, through the backend, under the time limit; every failure becomes
        a ``sut_error`` run."""
        if case.id in self.crashed:
            return _failed(case, trial, f"the SUT failed before the run: {self.crashed[case.id]}")
        if is_configuration(case):  # built and asked here, whatever the isolation: never run
            return await self._here.run(case, trial, self.timeout_s)
        return await self._backend.run(case, trial, self.timeout_s)


def _failed(case: Case, trial: int, error: str) -> Run:
    return Run(case_id=case.id, trial=trial, outcome="sut_error", error=error)
