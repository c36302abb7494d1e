"""The library entry point: evaluate cases on a system under test, print or write the
report, gate it against a baseline.

    import evals
    report = evals.evaluate("cases/faq.jsonl", MyAgent(), checks=[answer_matches])
    report.print()
    report.write("reports")
    verdict = evals.gate(report, "reports/baseline.json")

The CLI does the same with files, flags, traces and Ctrl-C handling on top.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TextIO

from evals.baseline import Baseline, load_baseline
from evals.case import Case
from evals.checks import Check
from evals.gate import Verdict
from evals.gate import evaluate as judge
from evals.gate_config import GateConfig, load_gate_config
from evals.isolation import Isolation, ProcessIsolation
from evals.loader import load_cases_with_sources
from evals.metrics import Metrics, compute
from evals.ray_executor import Executor, RayExecutor, require_ray
from evals.report import render_console, write_reports
from evals.result import RunResult
from evals.runner import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, Runner
from evals.sut import AnySUT, Task, as_sut, load_sut, sut_name
from evals.traces import RunMeta, new_run_id, utc_now
from evals.validation import require_runnable
from evals.vocabulary import CaseRules, rules_of

CaseSource = str | PathLike[str] | Case
"""A case file, or a case already loaded."""


@dataclass(frozen=True)
class Report:
    """The outcome of :func:`evaluate`: every graded run, the metrics, what was run."""

    results: Sequence[RunResult]
    """One graded run per (case, trial) that finished, in case order then trial."""
    metrics: Metrics
    """The figures (success with its interval, per split and tag, failures …)."""
    meta: RunMeta
    """What was run: label, SUT, trials, timings, whether it completed."""

    @property
    def complete(self) -> bool:
        """Every planned run finished (no Ctrl-C)."""
        return self.meta.complete

    def print(self, file: TextIO | None = None) -> None:
        """Print the console report (to stdout by default)."""
        print(render_console(self.metrics, self.meta), file=file or sys.stdout)

    def write(self, folder: str | PathLike[str]) -> list[Path]:
        """Write ``<label>.json``, ``.md``, ``.junit.xml`` and ``.html`` into ``folder``;
        return their paths (the library keeps no traces: the HTML report shows each run's
        checks, not its trace)."""
        return write_reports(Path(folder), self.meta.label, self.metrics, self.results, self.meta)


def _cases(
    cases: CaseSource | Iterable[CaseSource], rules: CaseRules
) -> tuple[list[Case], dict[str, tuple[str, int]]]:
    """Cases from files and/or ready-made cases, validated, with where each came from."""
    items: list[CaseSource] = [cases] if isinstance(cases, str | PathLike | Case) else list(cases)
    loaded: list[Case] = []
    sources: dict[str, tuple[str, int]] = {}
    for item in items:
        if isinstance(item, Case):
            loaded.append(item)
            continue
        found, where = load_cases_with_sources([Path(item)], rules=rules)
        loaded += found
        sources.update(where)
    if not loaded:
        raise ValueError("no cases to evaluate")
    return loaded, sources


def evaluate(
    cases: CaseSource | Iterable[CaseSource],
    sut: AnySUT | Task | str,
    *,
    checks: Iterable[Check] | None = None,
    trials: int = 1,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT_S,
    label: str = "evaluate",
    sut_options: Mapping[str, str] | None = None,
    isolation: Isolation = "none",
    memory_limit_mb: int | None = None,
    executor: Executor = "local",
    ray_address: str | None = None,
    baseline: Baseline | None = None,
) -> Report:
    """Run every case ``trials`` times on ``sut`` and grade each run.

    ``cases``: a case file, a list of files, or :class:`~evals.case.Case` objects.
    ``sut``: an object with ``run(case, trial)`` or ``arun(case, trial)``, a plain
    function ``(case, trial) -> Run`` (or a coroutine function), or a ``module:attr``
    string (with ``sut_options`` as its keyword arguments).
    ``checks``: the checks to grade with (default: every registered check).
    ``isolation="process"`` runs the SUT in ``concurrency`` worker processes, each
    building it from the ``module:attr`` string (so ``sut`` must be one), each limited to
    ``memory_limit_mb`` MiB of address space when given: a run that exits the process,
    hangs or blows the limit is a ``sut_error``, and the evaluation goes on
    (:mod:`evals.isolation`).
    ``executor="ray"`` runs the SUT in ``concurrency`` Ray actors instead, each building it
    from the ``module:attr`` string, on the cluster at ``ray_address`` (else
    ``RAY_ADDRESS``, else a local Ray started for the evaluation; :mod:`evals.ray_executor`).
    Every case is validated first, with the SUT's own ``check_case`` hook when it has
    one: :class:`~evals.errors.CaseFileError` lists every problem before any run —
    except, given the ``baseline`` the report will be gated against, on cases it ran
    unchanged: those the SUT now refuses are its failures, and their runs fail.
    """
    if isolation not in ("none", "process"):
        raise ValueError(f"isolation must be 'none' or 'process', got {isolation!r}")
    workers: ProcessIsolation | RayExecutor | None = None
    if executor not in ("local", "ray"):
        raise ValueError(f"executor must be 'local' or 'ray', got {executor!r}")
    if executor == "ray":
        if not isinstance(sut, str) or isolation != "none" or memory_limit_mb is not None:
            raise ValueError(
                "executor='ray' builds the SUT in each Ray actor: pass it as 'module:attr',"
                " without isolation or memory_limit_mb"
            )
        require_ray()
        workers = RayExecutor(sut, dict(sut_options or {}), ray_address)
    elif ray_address is not None:
        raise ValueError("ray_address names a Ray cluster: it needs executor='ray'")
    elif isolation == "process":
        if not isinstance(sut, str):
            raise ValueError(
                "isolation='process' builds the SUT in each worker: pass it as 'module:attr'"
            )
        workers = ProcessIsolation(sut, dict(sut_options or {}), memory_limit_mb)
    elif memory_limit_mb is not None:
        raise ValueError("memory_limit_mb limits worker processes: it needs isolation='process'")
    system = load_sut(sut, sut_options) if isinstance(sut, str) else as_sut(sut)
    selected, sources = _cases(cases, rules_of(system))
    judged_before = baseline.unchanged if baseline is not None else None
    crashed = require_runnable(system, selected, sources, judged_before=judged_before)
    meta = RunMeta(
        run_id=new_run_id(label),
        label=label,
        command="evaluate",
        sut=sut if isinstance(sut, str) else sut_name(system),
        trials=trials,
        concurrency=concurrency,
        timeout_s=timeout,
        isolation=isolation,
        memory_limit_mb=memory_limit_mb,
        executor=executor,
        started=utc_now(),
        planned_runs=len(selected) * trials,
    )
    runner = Runner(
        system,
        trials=trials,
        concurrency=concurrency,
        timeout_s=timeout,
        checks=checks,
        crashed=crashed,
        isolation=workers,
    )
    outcome = runner.run(selected)
    final = meta.model_copy(
        update={
            "finished": utc_now(),
            "finished_runs": len(outcome.results),
            "complete": outcome.complete,
            "unstopped_runs": list(outcome.unstopped),
        }
    )
    return Report(results=outcome.results, metrics=compute(outcome.results), meta=final)


def gate(
    report: Report,
    baseline: Baseline | str | PathLike[str],
    config: GateConfig | str | PathLike[str] | None = None,
    *,
    strict: bool = False,
) -> Verdict:
    """Judge ``report`` against ``baseline`` (a :class:`~evals.baseline.Baseline` or its
    file) under ``config`` (a :class:`~evals.gate_config.GateConfig`, its file, or the
    defaults). ``verdict.passed`` says whether the change may land; ``verdict.render()``
    says why."""
    base = baseline if isinstance(baseline, Baseline) else load_baseline(Path(baseline))
    if config is None:
        rules = GateConfig()
    elif isinstance(config, GateConfig):
        rules = config
    else:
        rules = load_gate_config(Path(config))
    return judge(report.results, base, rules, strict=strict, meta=report.meta)
