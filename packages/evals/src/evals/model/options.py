"""How an evaluation runs its cases: one frozen record of trials, concurrency, timeout
and where the SUT runs, made once from :func:`evals.evaluate`'s arguments or from the
command line's flags, and kept as it is in the evaluation's meta (every report and
trace records it)."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Isolation = Literal["none", "process"]
"""Where the SUT runs: ``none`` in the harness's own process (the default: cheapest),
``process`` in worker processes (survives a SUT that exits, hangs or eats memory)."""
ISOLATIONS: tuple[str, ...] = get_args(Isolation)

Executor = Literal["local", "ray"]
"""Where runs are scheduled: ``local`` (this process's event loop; the default) or
``ray`` (a Ray cluster's actors)."""
EXECUTORS: tuple[str, ...] = get_args(Executor)

DEFAULT_TIMEOUT_S = 30.0
"""Seconds a run may take, unless told otherwise."""
DEFAULT_CONCURRENCY = 4
"""Runs in flight at once, unless told otherwise."""


class RunOptions(BaseModel):
    """How the cases of one evaluation run. The meta of its reports and traces keeps it
    as it is (written there as the top-level keys ``trials``, ``concurrency`` …)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trials: int = Field(default=1, ge=1)
    """Runs of each case."""
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1)
    """Runs in flight at once."""
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, allow_inf_nan=False)
    """Seconds a run may take before it is a ``sut_error``."""
    isolation: Isolation = "none"
    """Where the SUT runs: in the harness's process or in worker processes."""
    memory_limit_mb: int | None = Field(default=None, ge=1)
    """Each worker process's address-space limit in MiB (``process`` isolation)."""
    executor: Executor = "local"
    """Where runs are scheduled: this process's event loop or Ray actors."""


OPTION_FIELDS: tuple[str, ...] = tuple(RunOptions.model_fields)
"""The keys of :class:`RunOptions`, as a report's or trace's meta writes them."""


def conflict(options: RunOptions, ray_address: str | None, names: OptionNames) -> str | None:
    """Why ``options`` (with a Ray cluster at ``ray_address``) cannot run together, in the
    words of the caller's interface (``names``); ``None`` when they can. The one place
    the library and the command line take these rules from."""
    if options.executor == "ray":
        if options.isolation == "process" or options.memory_limit_mb is not None:
            return (
                f"{names.ray} runs the SUT in Ray actors (processes already):"
                f" {names.process} and {names.memory_limit} do not apply"
            )
    elif ray_address is not None:
        return f"{names.ray_address} names a Ray cluster: it needs {names.ray}"
    if options.isolation != "process" and options.memory_limit_mb is not None:
        return f"{names.memory_limit} limits worker processes: it needs {names.process}"
    return None


class OptionNames(BaseModel):
    """How an interface names the options :func:`conflict` speaks of."""

    model_config = ConfigDict(frozen=True)

    ray: str
    """The Ray executor."""
    process: str
    """Process isolation."""
    memory_limit: str
    """The worker memory limit."""
    ray_address: str
    """The Ray cluster's address."""


LIBRARY_NAMES = OptionNames(
    ray="executor='ray'",
    process="isolation='process'",
    memory_limit="memory_limit_mb",
    ray_address="ray_address",
)
""":func:`evals.evaluate`'s names."""


class Selection(BaseModel):
    """Which of the loaded cases an evaluation runs (every one, by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    split: str | None = None
    """Only cases of this split (``None``: any)."""
    tags: tuple[str, ...] = ()
    """Only cases with one of these tags (empty: any)."""
    exclude_tags: tuple[str, ...] = ()
    """No case with one of these tags."""


class Origin(BaseModel):
    """What asked for an evaluation, as its meta records it: the command line's command
    and the suites and extra case files it named (the library: ``evaluate``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str = "evaluate"
    """``evaluate`` (the library), or the ``evals`` command (``run``, ``gate`` …)."""
    suites: tuple[str, ...] = ()
    """The suites named."""
    case_files: tuple[str, ...] = ()
    """Case files named besides the suites (``--cases``)."""
