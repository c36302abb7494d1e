"""Where the SUT of an evaluation runs, from its :class:`~evals.model.options.RunOptions`:
in the harness's process, in worker processes, or in Ray actors. The library and the
command line both ask here, so one set of rules refuses what cannot run (each in its own
words: keyword arguments or flags)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from evals.execution.isolation import ProcessIsolation
from evals.execution.ray_executor import RayExecutor, require_ray
from evals.model.options import LIBRARY_NAMES, OptionNames, RunOptions, conflict

Workers = ProcessIsolation | RayExecutor
"""Where the SUT runs when not in the harness's process: worker processes or Ray actors."""


def workers_for(
    sut_spec: str | None,
    sut_options: Mapping[str, str] | None,
    options: RunOptions,
    ray_address: str | None = None,
    *,
    names: OptionNames = LIBRARY_NAMES,
    error: Callable[[str], Exception] = ValueError,
) -> Workers | None:
    """The workers that build and run the SUT ``sut_spec`` (``module:attr``; ``None``
    when the SUT is an object, which only the harness's process can run), or ``None``
    when it runs in the harness's process.

    Options that do not go together (:func:`~evals.model.options.conflict`) and a SUT
    object where workers must build their own are refused with ``error`` before anything
    starts; so are a missing Ray and a cluster address nothing answers at."""
    problem = conflict(options, ray_address, names)
    if problem is not None:
        raise error(problem)
    if options.executor == "ray":
        if sut_spec is None:
            raise error(f"{names.ray} builds the SUT in each Ray actor: pass it as 'module:attr'")
        require_ray()
        ray = RayExecutor(sut_spec, dict(sut_options or {}), ray_address)
        ray.refuse_unreachable()  # before any report is written: the last one stays
        return ray
    if options.isolation == "process":
        if sut_spec is None:
            raise error(f"{names.process} builds the SUT in each worker: pass it as 'module:attr'")
        return ProcessIsolation(sut_spec, dict(sut_options or {}), options.memory_limit_mb)
    return None
