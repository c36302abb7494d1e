"""The watchdog of the default (in-process) mode: it interrupts a SUT coroutine that
blocks the event loop past its deadline.

A SUT's ``arun`` that calls ``time.sleep`` (or any blocking call) holds the loop: no
timeout can fire, no signal handler of the loop runs, the evaluation hangs. A watchdog
thread sees the loop's heartbeat stop; once a watched run is ``grace_s`` past its
deadline, it sends ``WATCHDOG_SIGNAL`` to the main thread, whose handler raises
:class:`LoopBlocked` in the code holding the loop, if that code is a watched SUT run.
The run ends as a ``sut_error`` saying so, and the evaluation goes on.

The limits, honestly: this works when the loop runs in the main thread (signals reach
only it), the signal's handler was the default one (a SUT or host using it keeps it), and
the blocking code returns to Python now and then or is a system call that a signal
interrupts (``time.sleep``, socket and pipe waits, pure-Python loops). Code that blocks
inside one C call that ignores signals, or that catches ``BaseException`` every time,
cannot be stopped in-process: the evaluation waits for it. ``--isolation process`` kills
such a run's worker instead.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from types import FrameType

WATCHDOG_SIGNAL = signal.SIGUSR2
"""The signal the watchdog sends the main thread (rarely used by anything else)."""


class LoopBlocked(BaseException):
    """Raised in a SUT coroutine that blocks the event loop past its deadline. A
    ``BaseException``, so that the SUT's ``except Exception`` does not swallow it."""


class Watchdog:
    """Watches the runs of one event loop; see the module docstring."""

    def __init__(self, loop: asyncio.AbstractEventLoop, grace_s: float) -> None:
        self.loop = loop
        self.grace_s = grace_s
        self.interval_s = min(0.1, grace_s / 2)
        self._deadlines: dict[asyncio.Future[object], float] = {}
        self._beat = time.monotonic()
        self._beating: asyncio.TimerHandle | None = None
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._previous: signal.Handlers | None = None
        self.interrupted = 0
        """Runs interrupted so far."""

    def start(self) -> bool:
        """Start watching; False (and nothing started) where it cannot interrupt: not the
        main thread, or the signal already has a handler."""
        if threading.current_thread() is not threading.main_thread():
            return False
        if signal.getsignal(WATCHDOG_SIGNAL) is not signal.SIG_DFL:
            return False
        signal.signal(WATCHDOG_SIGNAL, self._on_signal)
        self._previous = signal.SIG_DFL
        self._heartbeat()
        self._thread = threading.Thread(target=self._watch, name="evals-watchdog", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop watching and give the signal back."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._beating is not None:
            self._beating.cancel()
            self._beating = None
        if self._previous is not None:
            signal.signal(WATCHDOG_SIGNAL, self._previous)
            self._previous = None
        self._deadlines.clear()

    def watch(self, run: asyncio.Future[object], deadline: float) -> None:
        """Watch the task of one SUT call, due at ``deadline`` (``time.monotonic``)."""
        self._deadlines[run] = deadline

    def forget(self, run: asyncio.Future[object]) -> None:
        """The call is over (or abandoned): stop watching it."""
        self._deadlines.pop(run, None)

    def _heartbeat(self) -> None:
        self._beat = time.monotonic()
        self._beating = self.loop.call_later(self.interval_s, self._heartbeat)

    def _overdue(self, now: float) -> bool:
        try:
            deadlines = tuple(self._deadlines.values())
        except RuntimeError:  # changed size while read: look again next time
            return False
        return any(now > deadline + self.grace_s for deadline in deadlines)

    def _watch(self) -> None:
        main = threading.main_thread().ident
        while not self._stopped.wait(self.interval_s):
            now = time.monotonic()
            if now - self._beat > self.grace_s and self._overdue(now) and main is not None:
                signal.pthread_kill(main, WATCHDOG_SIGNAL)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """In the main thread: raise in the blocking code if it is an overdue SUT run."""
        task = asyncio.current_task(self.loop)
        deadline = self._deadlines.get(task) if task is not None else None
        now = time.monotonic()
        if task is None or deadline is None or now <= deadline + self.grace_s:
            return
        self._deadlines.pop(task, None)  # interrupted once; then it is the runner's
        self.interrupted += 1
        blocked = now - self._beat
        raise LoopBlocked(
            f"it blocked the event loop for {blocked:.1f}s and was interrupted by the watchdog"
        )
