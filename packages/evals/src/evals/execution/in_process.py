"""Calling the SUT in the harness's own process (``isolation="none"``): a coroutine in a
task of its own, a sync ``run`` in a daemon thread, and closing an event loop that may
hold a coroutine that ignores its cancellation.

All coroutines of an evaluation share one event loop, so one that blocks it (a regex
that holds the GIL for seconds, a ``time.sleep``) delays every other run in flight. A
:class:`LoopClock` counts how long each SUT coroutine held the loop (:class:`Timed`
measures every step it takes), so that the runner can give a run back the time other
runs took from it: only the run that held the loop is timed out for it."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from evals.model.case import Case
from evals.model.run import Run


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
