"""The progress line of a long evaluation: one line on a terminal, rewritten in place."""

from __future__ import annotations

import time
from typing import TextIO

REFRESH_S = 0.1
"""The line is rewritten at most this often (and once more at the last run)."""


class Progress:
    """One updating line: done/total runs, passed, failed. Silent unless a terminal."""

    def __init__(self, stream: TextIO | None, total: int) -> None:
        self.stream = stream if stream is not None and stream.isatty() else None
        self.total = total
        self.done = 0
        self.passed = 0
        self._last = 0.0

    def update(self, success: bool) -> None:
        """One more run finished."""
        self.done += 1
        self.passed += success
        if self.stream is None:
            return
        now = time.monotonic()
        if now - self._last >= REFRESH_S or self.done == self.total:  # cheap per run
            self._last = now
            failed = self.done - self.passed
            self.stream.write(
                f"\r{self.done}/{self.total} runs, {self.passed} passed, {failed} failed"
            )
            self.stream.flush()

    def close(self) -> None:
        """End the line (when one was written)."""
        if self.stream is not None and self.done:
            self.stream.write("\n")
            self.stream.flush()
