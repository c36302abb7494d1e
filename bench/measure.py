"""Measuring one child process: wall time, CPU time and peak RSS, from the outside.

Every measured thing runs in a fresh child process, so interpreter start-up, imports
and exit are counted, and ``os.wait4`` gives that child's own resource usage (CPU
seconds and ``ru_maxrss``) without mixing in the driver's.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Sample:
    """One measured child process."""

    wall_s: float
    """From spawn to exit, seconds."""
    cpu_s: float
    """User + system CPU seconds of the child (and the children it waited for)."""
    peak_rss_mb: float
    """Peak resident set size of the child, MiB (``ru_maxrss``)."""
    returncode: int
    """The child's exit code."""
    stdout: str
    """What the child printed on stdout."""
    max_in_flight: int | None = None
    """The most requests the fake server answered at once during this sample."""
    server_cpu_s: float | None = None
    """CPU seconds the driver process (the fake server's threads) used meanwhile."""

    def summary(self) -> dict[str, Any]:
        """The sample without its output, for ``bench.json``."""
        data = asdict(self)
        data.pop("stdout")
        return data


class ChildFailedError(RuntimeError):
    """A measured child exited with an error."""

    def __init__(self, command: Sequence[str], returncode: int, stderr: str) -> None:
        tail = stderr.strip().splitlines()[-5:]
        super().__init__(f"{' '.join(command)!r} exited {returncode}: " + " | ".join(tail))


def measure(
    command: Sequence[str], env: Mapping[str, str], cwd: str, *, ok: Sequence[int] = (0,)
) -> Sample:
    """Run ``command`` as a child and measure it; raise when it exits with a code not in
    ``ok``."""
    # Output goes to files, not pipes: a chatty child can never block on a full pipe,
    # and os.wait4 (which reaps the child and returns its own rusage) can be the only
    # wait.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(list(command), env=dict(env), cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # so Popen never waits again
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode not in ok:
        raise ChildFailedError(command, child.returncode, stderr)
    return Sample(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=usage.ru_maxrss / 1024.0,  # Linux reports KiB
        returncode=child.returncode,
        stdout=stdout,
    )


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max of ``values``."""
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
    }
