"""Calling the SUT in the harness's own process (``isolation="none"``): the
:class:`InProcess` backend, beside the process and Ray pools (:mod:`evals.execution.backend`).
A coroutine runs in a task of its own, a sync ``run`` in a daemon thread; a run past its
deadline is cancelled, and one that does not stop is abandoned; and an event loop that may
hold a coroutine that ignores its cancellation is closed without waiting for it.

All coroutines of an evaluation share one event loop, so one that blocks it (a regex
that holds the GIL for seconds, a ``time.sleep``) delays every other run in flight. A
:class:`LoopClock` counts how long each SUT coroutine held the loop (:class:`Timed`
measures every step it takes), so that the runner can give a run back the time other
runs took from it: only the run that held the loop is timed out for it."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from evals.execution.isolation import describe_error
from evals.execution.pool import failed_run
from evals.execution.watchdog import LoopBlocked, Watchdog
from evals.model.case import Case
from evals.model.run import Run
from evals.model.sut import SUT, AsyncSUT


class Raised:
    """What a guarded SUT coroutine raised, handed back as its result."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class LoopClock:
    """The time SUT coroutines held the event loop, all runs together."""

    __slots__ = ("held_s",)

    def __init__(self) -> None:
        self.held_s = 0.0
        """Seconds, summed over every step of every timed coroutine."""


class Timed:
    """Awaits a SUT coroutine step by step (as ``await`` would), adding the time each step
    holds the event loop to :attr:`held_s` and to the ``clock``'s total."""

    __slots__ = ("_clock", "_coroutine", "held_s")

    def __init__(self, coroutine: Coroutine[Any, Any, Run], clock: LoopClock) -> None:
        self._coroutine = coroutine
        self._clock = clock
        self.held_s = 0.0
        """Seconds this coroutine held the loop so far."""

    def _held(self, started: float) -> None:
        spent = time.monotonic() - started
        self.held_s += spent
        self._clock.held_s += spent

    def __await__(self) -> Generator[Any, Any, Run]:
        coroutine = self._coroutine
        value: Any = None
        error: BaseException | None = None
        while True:
            started = time.monotonic()
            try:
                step = coroutine.send(value) if error is None else coroutine.throw(error)
            except StopIteration as done:
                self._held(started)
                result: Run = done.value
                return result
            except BaseException:
                self._held(started)
                raise
            self._held(started)
            try:
                value, error = (yield step), None
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as e:  # a cancellation, thrown in as into the coroutine
                value, error = None, e


async def guarded(call: Awaitable[Run]) -> object:
    """Await a SUT coroutine in its own task. What it raises comes back as a
    :class:`Raised` (``SystemExit`` raised in a task would leave the event loop itself),
    except a cancellation, so that a cancelled run reads as one."""
    try:
        return await call
    except asyncio.CancelledError:
        raise
    except BaseException as e:  # the caller sorts it out, as if raised there
        return Raised(e)


def still_running(work: asyncio.Future[object] | threading.Thread) -> bool:
    return work.is_alive() if isinstance(work, threading.Thread) else not work.done()


def close_loop(loop: asyncio.AbstractEventLoop, grace_s: float) -> None:
    """Close ``loop`` like ``asyncio.run`` does, without waiting for ever on a task that
    ignores its cancellation (it is dropped after ``grace_s``)."""
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=grace_s))
        loop.run_until_complete(asyncio.wait_for(loop.shutdown_asyncgens(), grace_s))
    except (TimeoutError, RuntimeError):
        pass
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def in_daemon_thread(
    fn: Callable[[Case, int], Run], case: Case, trial: int
) -> tuple[asyncio.Future[object], threading.Thread]:
    """Call ``fn`` in a fresh daemon thread, like ``asyncio.to_thread``; return the
    future of its result and the thread.

    Not ``to_thread`` itself: its executor's threads are joined at exit, so one hung
    SUT call would hang the harness forever. A daemon thread is abandoned on timeout.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[object] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: object) -> None:
        if future.done():  # cancelled or timed out meanwhile
            return
        if ok:
            future.set_result(value)  # checked by the caller
        else:
            future.set_exception(value)  # type: ignore[arg-type]

    def work() -> None:
        try:
            outcome: tuple[bool, object] = (True, context.run(fn, case, trial))
        except BaseException as e:  # handed to the loop, which records it
            outcome = (False, e)
        # RuntimeError: the loop is closed; this run was abandoned long ago.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    thread = threading.Thread(target=work, name=f"sut-{case.id}#{trial}", daemon=True)
    thread.start()
    return future, thread


class InProcess:
    """The SUT called in this process: its ``arun`` awaited in a task of its own (each
    step timed on the :class:`LoopClock`, so a run is not timed out for the time other
    runs held the loop), else its ``run`` in a daemon thread. A run past its deadline is
    cancelled; a coroutine that ignores its cancellation for ``grace_s`` is abandoned, a
    thread at once (neither can be stopped from here): :meth:`unstopped` names them.
    With ``watch``, a :class:`~evals.execution.watchdog.Watchdog` interrupts a coroutine
    that blocks the event loop past its deadline. Every failure is a ``sut_error`` run
    saying why; nothing the SUT raises (``SystemExit`` included) ends the evaluation."""

    def __init__(
        self, sut: object, grace_s: float, *, clock: LoopClock | None = None, watch: bool = True
    ) -> None:
        # Decided once: a runtime Protocol isinstance check costs more than a trivial run.
        self._arun: Callable[[Case, int], Awaitable[Run]] | None = (
            sut.arun if isinstance(sut, AsyncSUT) else None
        )
        self._run: Callable[[Case, int], Run] | None = sut.run if isinstance(sut, SUT) else None
        self._name = type(sut).__name__
        self.grace_s = grace_s
        """How long past its deadline a run may take to stop."""
        self.clock = clock or LoopClock()
        """The time SUT coroutines held the loop (shared by the runs it times)."""
        self._watch = watch
        self._watchdog: Watchdog | None = None
        self._abandoned: list[tuple[str, asyncio.Future[object] | threading.Thread]] = []

    async def start(self) -> None:
        """Start watching the event loop (with ``watch``)."""
        self._abandoned = []
        if self._watch:
            self._watchdog = Watchdog(asyncio.get_running_loop(), self.grace_s)
            self._watchdog.start()

    def close(self) -> None:
        """Stop watching."""
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None

    def unstopped(self) -> tuple[str, ...]:
        """The runs (``case#trial``) abandoned past their deadline and still running."""
        return tuple(label for label, work in self._abandoned if still_running(work))

    async def run(self, case: Case, trial: int, timeout_s: float) -> Run:
        """One SUT call under the time limit; every failure becomes a ``sut_error`` run."""
        work: asyncio.Future[object]
        thread: threading.Thread | None = None
        timed: Timed | None = None
        if self._arun is not None:
            call = self._arun(case, trial)
            if inspect.iscoroutine(call):
                call = timed = Timed(call, self.clock)
            work = asyncio.get_running_loop().create_task(guarded(call))
            if self._watchdog is not None:
                self._watchdog.watch(work, time.monotonic() + timeout_s)
        elif self._run is not None:
            work, thread = in_daemon_thread(self._run, case, trial)
        else:
            return failed_run(case, trial, f"{self._name} has neither run nor arun")
        try:
            if not await self._finished_in_time(work, timed, timeout_s):
                return await self._stop(work, thread, case, trial, timeout_s=timeout_s)
        except asyncio.CancelledError:  # the evaluation is stopping
            if not work.done() or work.cancelled():
                work.cancel()
                raise
            # It had finished as the stop came: kept, as it would be when awaited inline.
        finally:
            if self._watchdog is not None:
                self._watchdog.forget(work)
        try:
            value = work.result()
            if isinstance(value, Raised):
                raise value.error
        except LoopBlocked as e:
            return failed_run(case, trial, f"timed out after {timeout_s:g}s: {e}")
        except asyncio.CancelledError as e:  # cancelled by the SUT's own code
            return failed_run(case, trial, describe_error(e))
        except Exception as e:  # the SUT's own failure: recorded, never a harness crash
            return failed_run(case, trial, describe_error(e))
        except (SystemExit, KeyboardInterrupt) as e:
            # Raised by the SUT's own code (a real Ctrl-C reaches the runner as a signal,
            # not through the SUT call): a SUT may not end the evaluation, least of all
            # green and without a verdict. Recorded as its failure, like any crash.
            return failed_run(case, trial, describe_error(e))
        if not isinstance(value, Run):
            return failed_run(case, trial, f"SUT returned {type(value).__name__}, not a Run")
        return value

    async def _finished_in_time(
        self, work: asyncio.Future[object], timed: Timed | None, timeout_s: float
    ) -> bool:
        """Wait for ``work`` up to the time limit. For a timed coroutine the limit counts
        only time the loop could give it: what other runs held the loop for while it
        waited (a blocking SUT step) is added back, so that they do not time it out."""
        started = time.monotonic()
        clock_before = self.clock.held_s
        deadline = started + timeout_s
        while True:
            done, _ = await asyncio.wait({work}, timeout=max(0.0, deadline - time.monotonic()))
            if done:
                return True
            if timed is None:
                return False
            taken = self.clock.held_s - clock_before - timed.held_s
            extended = started + timeout_s + taken
            if extended <= time.monotonic():
                return False
            deadline = extended
            if self._watchdog is not None:
                self._watchdog.watch(work, deadline)

    async def _stop(
        self,
        work: asyncio.Future[object],
        thread: threading.Thread | None,
        case: Case,
        trial: int,
        *,
        timeout_s: float,
    ) -> Run:
        """A run past its deadline: cancel it; one that does not stop within the grace
        period (a thread cannot be stopped at all) is abandoned, still running."""
        timed_out = f"timed out after {timeout_s:g}s"
        label = f"{case.id}#{trial}"
        if thread is None:
            work.cancel()
            done, _ = await asyncio.wait({work}, timeout=self.grace_s)
            if done:
                return failed_run(case, trial, timed_out)
            self._abandoned.append((label, work))
            # Dropped with the loop at the end: asyncio's "destroyed but pending" warning
            # would only repeat what the report says.
            with contextlib.suppress(AttributeError):
                work._log_destroy_pending = False  # type: ignore[attr-defined]
            return failed_run(
                case,
                trial,
                f"{timed_out}; it ignored its cancellation for {self.grace_s:g}s and was"
                " abandoned, still running (--isolation process can stop it)",
            )
        self._abandoned.append((label, thread))
        return failed_run(case, trial, timed_out)
