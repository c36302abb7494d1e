"""Calling the SUT in the harness's own process (``isolation="none"``): a coroutine in a
task of its own, a sync ``run`` in a daemon thread, and closing an event loop that may
hold a coroutine that ignores its cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Awaitable, Callable

from evals.model.case import Case
from evals.model.run import Run


class Raised:
    """What a guarded SUT coroutine raised, handed back as its result."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


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
