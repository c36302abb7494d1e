"""Where the SUT is called: one protocol for the three backends.

- :class:`~evals.execution.in_process.InProcess`: in the harness's own process
  (``isolation="none"``, the default);
- :class:`~evals.execution.isolation.WorkerPool`: in worker processes
  (``isolation="process"``);
- :class:`~evals.execution.ray_executor.RayPool`: in the actors of a Ray cluster
  (``executor="ray"``).

The two pools share their supervision (:class:`~evals.execution.pool.SupervisedPool`:
start every worker, replace a dead one, stop them all). The runner schedules, grades and
traces runs the same way whichever backend calls the SUT.
"""

from __future__ import annotations

from typing import Protocol

from evals.model.case import Case
from evals.model.run import Run


class Backend(Protocol):
    """Calls the SUT for one trial at a time, any number at once."""

    async def start(self) -> None:
        """Get ready before the first run (raises
        :class:`~evals.errors.SutLoadError` when the SUT cannot be built there)."""
        ...

    async def run(self, case: Case, trial: int, timeout_s: float) -> Run:
        """Run one trial under the time limit; every way it can fail is a ``sut_error``
        run that says why."""
        ...

    def close(self) -> None:
        """Stop what :meth:`start` started."""
        ...

    def unstopped(self) -> tuple[str, ...]:
        """Runs (``case#trial``) that outlived their deadline and could not be stopped:
        still running when the evaluation ends."""
        ...
