"""The signals that stop an evaluation, routed to the runner's event loop while it runs.

SIGINT (Ctrl-C) and SIGTERM (what CI runners, ``timeout`` and container stops send) are
handled on the loop (``loop.add_signal_handler``), so a stop lands between two steps of
the loop, never inside a SUT's code. When the loop lets them go, they either get the
handlers they had back, or, to *hold* them, stay ignored: a caller writing a partial
report must not be stopped half way by a second Ctrl-C, and restores the handlers itself
once the report is written (the ``evals`` command line does).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop an evaluation, keeping what finished: Ctrl-C, and what CI
runners, ``timeout`` and container stops send."""


def route(loop: asyncio.AbstractEventLoop, handler: Callable[[int], None]) -> bool:
    """Route SIGINT and SIGTERM to ``handler(signum)`` on ``loop``; False where that is
    impossible (not the main thread, or a platform without ``add_signal_handler``)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, handler, signum)
    except (NotImplementedError, RuntimeError, ValueError):
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        return False
    return True


def let_go(loop: asyncio.AbstractEventLoop, *, hold: bool) -> None:
    """Take the stop signals off ``loop``: back to the handlers they had, or, with
    ``hold``, ignored (see the module docstring)."""
    if not hold:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
        return
    # Blocked while they change hands: in between, the loop's defaults would turn a
    # further Ctrl-C into a KeyboardInterrupt and a SIGTERM into a silent death.
    # Setting SIG_IGN drops one that arrived meanwhile.
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for signum in STOP_SIGNALS:
            # A Ctrl-C a SUT thread caught meanwhile: the hold is for it.
            with contextlib.suppress(KeyboardInterrupt):
                loop.remove_signal_handler(signum)
            signal.signal(signum, signal.SIG_IGN)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
