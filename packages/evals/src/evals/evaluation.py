"""The library entry points: plan and run an evaluation of cases on a system under test,
print or write its report, gate it against a baseline.

    import evals
    report = evals.evaluate("cases/faq.jsonl", MyAgent(), checks=[answer_matches])
    report.print()
    report.write("reports")
    verdict = evals.gate(report, "reports/baseline.json")

:func:`evaluate` is :func:`plan` (load the SUT and the cases, validate every case, say
where the SUT runs) then :func:`execute` (run, grade, trace). The ``evals`` command line
is a thin layer over the same three: it turns flags into a :class:`Plan` (or finds the
plan of an evaluation to resume), decides where files go, and owns Ctrl-C.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from evals.cases.case_file import CaseSource as Where
from evals.cases.configuration import Configurations, SutRecipe, is_configuration, plan_problems
from evals.cases.loader import load_cases_with_sources
from evals.cases.validation import require_runnable
from evals.cases.vocabulary import CaseRules, rules_of
from evals.checks import Check
from evals.checks.registry import idle_checks
from evals.config import git_revision, load_config
from evals.errors import CaseFileError
from evals.execution.placement import Workers, workers_for
from evals.execution.runner import DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW, Runner, select_cases
from evals.execution.source_check import SourceWarning
from evals.gating.baseline import Baseline, build_baseline, load_baseline
from evals.gating.case_verdict import CaseVerdict
from evals.gating.rules import GateConfig, gate_config_or_defaults, load_gate_config
from evals.gating.verdict import Verdict
from evals.gating.verdict import evaluate as judge
from evals.io.json_files import first_problem
from evals.log.traces import RunMeta, TraceWriter, is_import_path, new_run_id, utc_now
from evals.metrics.summary import Metrics, compute
from evals.model.case import Case
from evals.model.options import (
    DEFAULT_CONCURRENCY,
    DEFAULT_TIMEOUT_S,
    Executor,
    Isolation,
    Origin,
    RunOptions,
    Selection,
)
from evals.model.result import RunResult
from evals.model.sut import (
    AnySUT,
    Task,
    as_sut,
    describe,
    is_secret,
    load_sut,
    sut_description,
    sut_name,
)
from evals.report.files import write_reports
from evals.report.summary import render_console

CaseSource = str | PathLike[str] | Case
"""A case file, or a case already loaded."""

Progress = TextIO | bool | None
"""Where the progress line goes: a terminal, ``True`` (standard error), or ``False`` /
``None`` (nowhere). The line is only drawn on a terminal."""


def _progress_stream(progress: Progress) -> TextIO | None:
    """The stream :data:`Progress` names (``True``: ``sys.stderr``)."""
    if progress is True:
        return sys.stderr
    if progress is False or progress is None:
        return None
    if not callable(getattr(progress, "write", None)):
        raise TypeError(f"progress must be a stream, True or False, not {type(progress).__name__}")
    return progress


@dataclass(frozen=True)
class Plan:
    """An evaluation about to run: the SUT, the validated cases, what to trace, and the
    runs a resumed evaluation finished before. Made by :func:`plan` (or by the command
    line from its flags); run by :func:`execute`."""

    sut: AnySUT
    """The system under test (in worker processes or actors, ``workers`` builds its own)."""
    cases: list[Case]
    """The cases, in order; each is run ``meta.trials`` times."""
    meta: RunMeta
    """What is run: label, SUT, trials, concurrency, timeout, where."""
    sources: Mapping[str, Where] = field(default_factory=dict)
    """Case id -> (file, line), for problems found in a case."""
    finished: Mapping[tuple[str, int], RunResult] = field(default_factory=dict)
    """Runs finished already (a resumed evaluation's traces): not run again."""
    workers: Workers | None = None
    """Set when the SUT runs in worker processes or Ray actors."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """Cases whose runs are the SUT's failures before it is called (case id -> why): its
    ``check_case`` hook failed on them, or refuses them though the baseline ran them
    unchanged. Filled in by :func:`validated`."""
    recipe: SutRecipe | None = None
    """How the SUT was built (``module:attr`` and options), to build a configuration
    case's own SUT again in this process (:mod:`evals.cases.configuration`); ``None``: it was
    given as an object."""


def validated(plan: Plan, baseline: Baseline | None = None) -> Plan:
    """``plan`` once the SUT's own ``check_case`` hook has seen every case: raises
    :class:`~evals.errors.CaseFileError` listing every problem before any run, except,
    given the ``baseline`` the report will be gated against, on cases it ran unchanged:
    those the SUT now refuses are its failures (:attr:`Plan.refused`).

    Configuration cases are not asked here: what the SUT answers about them is their
    refusal, judged by their checks. Only what is wrong with such a case itself is a
    problem (:func:`evals.cases.configuration.plan_problems`)."""
    judged_before = baseline.unchanged if baseline is not None else None
    runs = [case for case in plan.cases if not is_configuration(case)]
    problems = plan_problems(plan.sut, plan.recipe, plan.cases, plan.sources)
    try:
        refused = require_runnable(plan.sut, runs, plan.sources, judged_before=judged_before)
    except CaseFileError as e:
        raise CaseFileError(problems + e.problems) from None
    if problems:
        raise CaseFileError(problems)
    return replace(plan, refused=refused)


@dataclass(frozen=True)
class Report:
    """The outcome of an evaluation: every graded run, the metrics, what was run."""

    results: tuple[RunResult, ...]
    """One graded run per (case, trial) that finished, in case order then trial."""
    metrics: Metrics
    """The figures (success with its interval, per split and tag, failures …)."""
    meta: RunMeta
    """What was run: label, SUT, trials, timings, whether it completed and why not."""
    traces: Path | None = None
    """The trace folder of this evaluation, when it was traced."""
    cases: tuple[Case, ...] = ()
    """The cases planned, in order (a baseline keeps their fingerprints)."""

    @property
    def complete(self) -> bool:
        """Every planned run finished (nothing stopped it)."""
        return self.meta.complete

    def render(self, *, not_gated: Collection[str] = ()) -> str:
        """The console report; failures of cases tagged ``not_gated`` are marked so."""
        return render_console(self.metrics, self.meta, not_gated=not_gated)

    def print(self, file: TextIO | None = None, *, not_gated: Collection[str] = ()) -> None:
        """Print the console report (to stdout by default)."""
        print(self.render(not_gated=not_gated), file=file or sys.stdout, flush=True)

    def write(
        self,
        folder: str | PathLike[str],
        *,
        not_gated: Collection[str] = (),
        sections: Mapping[str, str] | None = None,
        verdict: Verdict | None = None,
    ) -> list[Path]:
        """Write ``<label>.json``, ``.md`` (with ``sections``), ``.junit.xml`` and
        ``.html`` (each run's trace when the evaluation was traced; the baseline diff of
        ``verdict`` when given) into ``folder``; return their paths."""
        return write_reports(
            Path(folder),
            self.meta.label,
            self.metrics,
            self.results,
            self.meta,
            not_gated=not_gated,
            sections=sections,
            traces=self.traces,
            verdict=verdict,
            cases=self.cases,
        )


class NoCasesError(ValueError):
    """An evaluation would run no case: its files hold none, or the selection left none."""


def _cases(
    cases: CaseSource | Iterable[CaseSource], rules: CaseRules, defaults: Mapping[str, Any] | None
) -> tuple[list[Case], dict[str, Where]]:
    """Cases from files and/or ready-made cases, validated, with where each came from."""
    items: list[CaseSource] = [cases] if isinstance(cases, str | PathLike | Case) else list(cases)
    # Every file in one load: an id given in two files is a problem, and every file's
    # problems are listed together.
    files = [Path(item) for item in items if not isinstance(item, Case)]
    found, sources = (
        load_cases_with_sources(files, rules=rules, expect_defaults=defaults) if files else ([], {})
    )
    by_file: dict[str, list[Case]] = {}
    for case in found:
        by_file.setdefault(sources[case.id].file, []).append(case)
    loaded: list[Case] = []
    for item in items:  # in the order given
        if isinstance(item, Case):
            loaded.append(item)  # judged as built (the defaults fill case files in)
        else:
            loaded += by_file.pop(str(Path(item)), [])
    return loaded, dict(sources)


def _is_file(item: object) -> bool:
    return isinstance(item, str | PathLike)


def plan(
    cases: CaseSource | Iterable[CaseSource],
    sut: AnySUT | Task | str,
    options: RunOptions | None = None,
    *,
    label: str = "evaluate",
    sut_options: Mapping[str, str] | None = None,
    ray_address: str | None = None,
    baseline: Baseline | None = None,
    selection: Selection | None = None,
    origin: Origin | None = None,
) -> Plan:
    """Load the SUT and the cases and validate every case: the :class:`Plan` that
    :func:`execute` runs. The ``evals`` command line plans through here too: it only
    turns its flags into these arguments.

    Args:
        cases: as :func:`evaluate`'s.
        sut: as :func:`evaluate`'s.
        options: trials, concurrency, timeout and where the SUT runs (default:
            ``RunOptions()``); the meta keeps it as it is.
        label: the evaluation's name, in its run id and reports.
        sut_options: keyword arguments for a ``module:attr`` SUT.
        ray_address: the Ray cluster, with ``executor="ray"``.
        baseline: the baseline the report will be gated against (see :func:`evaluate`).
        selection: which of the loaded cases run (default: all of them).
        origin: what asked for the evaluation, as the meta records it (default: the
            library's ``evaluate``).

    Returns:
        The validated plan: the SUT, the selected cases and the run's meta.

    Raises:
        CaseFileError: a case is invalid (every problem listed).
        SutLoadError: the SUT cannot be built.
        NoCasesError: no case to evaluate (a ``ValueError``).
        ValueError: options that do not go together (an isolation or executor that
            needs a ``module:attr`` SUT, ``ray_address`` without ``executor="ray"``,
            ``memory_limit_mb`` without ``isolation="process"``).
    """
    options = RunOptions() if options is None else options
    selection = Selection() if selection is None else selection
    origin = Origin() if origin is None else origin
    spec = sut if isinstance(sut, str) else None
    workers = workers_for(spec, sut_options, options, ray_address)
    system = load_sut(sut, sut_options) if isinstance(sut, str) else as_sut(sut)
    items: list[CaseSource] = [cases] if isinstance(cases, str | PathLike | Case) else list(cases)
    # A case file's cases hold the project's default expectations, as from the CLI.
    config = load_config() if any(_is_file(item) for item in items) else None
    loaded, sources = _cases(items, rules_of(system), config.expect_defaults if config else None)
    selected = select_cases(
        loaded, split=selection.split, tags=selection.tags, exclude_tags=selection.exclude_tags
    )
    if not selected:
        raise NoCasesError("no cases to evaluate" if not loaded else "no cases selected")
    meta = RunMeta(
        run_id=new_run_id(label),
        label=label,
        command=origin.command,
        suites=list(origin.suites),
        case_files=list(origin.case_files),
        split=selection.split,
        tags=list(selection.tags),
        exclude_tags=sorted(set(selection.exclude_tags)),
        # As the command line names it: its import path (and options), from a
        # ``module:attr`` string or from the object, so baselines gate by either route.
        sut=describe(sut, sut_options) if isinstance(sut, str) else sut_name(system),
        sut_spec=spec if spec and is_import_path(spec) else "",
        sut_options=kept_options(sut_options or {}) if spec else {},
        sut_description=sut_description(system),
        options=options,
        git_revision=git_revision(config.root if config else None),
        started=utc_now(),
        planned_runs=len(selected) * options.trials,
        idle_checks=idle_checks(),
    )
    recipe = SutRecipe(spec, dict(sut_options or {})) if spec else None
    draft = Plan(
        sut=system, cases=selected, meta=meta, sources=sources, workers=workers, recipe=recipe
    )
    return validated(draft, baseline)


def kept_options(options: Mapping[str, str]) -> dict[str, str | None]:
    """``options`` as a trace's meta keeps them: a secret's value left out (``None``)."""
    return {key: None if is_secret(key) else value for key, value in options.items()}


def run_options(**given: object) -> RunOptions:
    """A :class:`RunOptions` from keyword arguments, a wrong value refused with a
    ``ValueError`` of one line (``trials: Input should be greater than or equal to 1``)."""
    try:
        return RunOptions.model_validate(given)
    except ValidationError as e:
        raise ValueError(first_problem(e, RunOptions)) from None


def execute(
    plan: Plan,
    *,
    checks: Iterable[Check] | None = None,
    traces: str | PathLike[str] | None = None,
    progress: Progress = None,
    max_provider_errors: int | None = DEFAULT_MAX_PROVIDER_ERRORS_IN_A_ROW,
    stop_signals: bool = True,
    hold_signals: bool = False,
    stop_when: Callable[[RunResult], str | None] | None = None,
) -> Report:
    """Run ``plan``: every case ``meta.trials`` times, each run graded as it finishes.

    Args:
        plan: what :func:`plan` made.
        checks: the checks to grade with (default: every registered check).
        traces: a folder; each run's full trace is appended under
            ``<traces>/<run_id>/`` as it finishes (a plan with finished runs appends to
            its own).
        progress: a terminal to show one updating progress line on (``True``: standard
            error; ``False`` or ``None``: none).
        max_provider_errors: provider errors in a row after which scheduling stops
            (``None``: never); the report is then incomplete, with the reason.
        stop_signals: SIGINT (Ctrl-C) and SIGTERM stop the evaluation (the default), and
            the report holds the finished runs, marked incomplete with the signal; then
            both signals get their handlers back. ``False`` leaves the signals alone (the
            caller's own handling applies; a ``KeyboardInterrupt`` raised inside the
            SUT's code is that run's failure).
        hold_signals: after such a stop both signals stay *ignored* when this returns, so
            the caller can write the partial report undisturbed, then restore their
            handlers (the command line does; a second Ctrl-C must not lose the report).
        stop_when: asked about every graded run as it finishes; a reason it returns
            stops scheduling (the runs in flight finish) and the report is incomplete,
            with that reason (:class:`evals.gating.fail_fast.FailFast`).

    Returns:
        The report: every finished run graded, the metrics, the meta (``complete`` says
        whether every planned run finished) and the traces folder.
    """
    meta = plan.meta
    writer = TraceWriter(Path(traces), meta) if traces is not None else None
    runner = Runner(
        plan.sut,
        trials=meta.trials,
        concurrency=meta.concurrency,
        timeout_s=meta.timeout_s,
        traces=writer,
        progress=_progress_stream(progress),
        handle_sigint=stop_signals,
        hold_sigint=hold_signals,
        checks=checks,
        crashed=plan.refused,
        max_provider_errors_in_a_row=max_provider_errors,
        isolation=plan.workers,
        configurations=Configurations(plan.sut, plan.recipe),
        stop_when=stop_when,
    )
    try:
        outcome = runner.run(plan.cases, plan.finished)
    finally:
        if writer is not None:
            writer.close()
    final = meta.model_copy(
        update={
            "finished": utc_now(),
            "finished_runs": len(outcome.results),
            "complete": outcome.complete,
            "stop_signal": outcome.stop_signal_name,
            "stop_reason": outcome.stop_reason,
            "unstopped_runs": list(outcome.unstopped),
        }
    )
    if writer is not None:
        writer.close(final)
    return Report(
        results=outcome.results,
        metrics=compute(outcome.results),
        meta=final,
        traces=writer.folder if writer is not None else None,
        cases=tuple(plan.cases),
    )


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
    traces: str | PathLike[str] | None = None,
    progress: Progress = None,
) -> Report:
    """Run every case ``trials`` times on ``sut`` and grade each run: :func:`plan`, then
    :func:`execute`.

    Every case is validated first, with the SUT's own ``check_case`` hook when it has
    one — except, given the ``baseline`` the report will be gated against, cases it ran
    unchanged: those the SUT now refuses are its failures, and their runs fail.

    Args:
        cases: a case file, a list of files, or :class:`~evals.model.case.Case` objects
            (a file's cases hold the ``[tool.evals.expect_defaults]`` of the nearest
            ``pyproject.toml``, as the CLI's do; a ready-made case is judged as built).
        sut: an object with ``run(case, trial)`` or ``arun(case, trial)``, a plain
            function ``(case, trial) -> Run`` (or a coroutine function), or a
            ``module:attr`` string (with ``sut_options`` as its keyword arguments).
        checks: the checks to grade with (default: every registered check).
        trials: runs of each case.
        concurrency: runs in flight at once.
        timeout: seconds a run may take before it is a ``sut_error``.
        label: the evaluation's name, in its run id and reports.
        sut_options: keyword arguments for a ``module:attr`` SUT.
        isolation: ``"process"`` runs the SUT in ``concurrency`` worker processes, each
            building it from the ``module:attr`` string (so ``sut`` must be one): a run
            that exits the process, hangs or blows the memory limit is a ``sut_error``,
            and the evaluation goes on (:mod:`evals.execution.isolation`).
        memory_limit_mb: each worker process's address-space limit, in MiB.
        executor: ``"ray"`` runs the SUT in ``concurrency`` Ray actors instead, each
            building it from the ``module:attr`` string
            (:mod:`evals.execution.ray_executor`).
        ray_address: the Ray cluster (else ``RAY_ADDRESS``, else a local Ray started for
            the evaluation).
        baseline: the baseline the report will be gated against.
        traces: a folder to append every run's full trace to (the HTML report then shows
            each run's trace).
        progress: a terminal for a progress line (``True``: standard error, drawn when
            it is a terminal; ``False`` or ``None``: none).

    Returns:
        The report (:class:`Report`): ``print()`` it, ``write()`` its files, or
        :func:`gate` it.

    Raises:
        CaseFileError: a case is invalid, every problem listed before any run.
        SutLoadError: the SUT cannot be built.
        ValueError: no case to evaluate, or options that do not go together (see
            :func:`plan`).
    """
    options = run_options(
        trials=trials,
        concurrency=concurrency,
        timeout_s=timeout,
        isolation=isolation,
        memory_limit_mb=memory_limit_mb,
        executor=executor,
    )
    planned = plan(
        cases,
        sut,
        options,
        label=label,
        sut_options=sut_options,
        ray_address=ray_address,
        baseline=baseline,
    )
    return execute(planned, checks=checks, traces=traces, progress=progress)


def make_baseline(
    report: Report,
    *,
    exclude_tags: Iterable[str] | None = None,
    case_verdict: CaseVerdict = "all",
) -> Baseline:
    """The baseline ``report`` makes, for :func:`gate` to judge later reports against
    (write it with :func:`evals.gating.baseline.write_baseline`). A fingerprint of each
    gated case is kept: a case the SUT refuses later though it is unchanged is then the
    SUT's failure.

    Args:
        report: what :func:`evaluate` returned.
        exclude_tags: cases with one of these tags are left out (by default those of the
            built-in gate rules, ``flaky``, as ``evals baseline`` leaves them out without
            a ``gate.json``).
        case_verdict: how a case with several trials is judged: ``all`` or ``majority``.

    Returns:
        The baseline: rates, per-case success and the fingerprints.
    """
    excluded = GateConfig().exclude_tags if exclude_tags is None else exclude_tags
    return build_baseline(report.results, report.meta, excluded, report.cases, case_verdict)


def gate(
    report: Report,
    baseline: Baseline | str | PathLike[str],
    config: GateConfig | str | PathLike[str] | None = None,
    *,
    strict: bool = False,
    max_errors: int | None = None,
    source_warnings: Sequence[SourceWarning] | None = None,
) -> Verdict:
    """Judge ``report`` against ``baseline``: may the change land?

    Args:
        report: what :func:`evaluate` returned.
        baseline: a :class:`~evals.gating.baseline.Baseline` or its file.
        config: a :class:`~evals.gating.rules.GateConfig` or its file; by default the
            project's ``gate.json``, in the ``cases_dir`` of the nearest ``[tool.evals]``,
            as ``evals gate`` reads it, and without one the built-in defaults, which the
            verdict then states.
        strict: soft findings fail the gate too.
        max_errors: overrides the config's errored-runs limit.
        source_warnings: :func:`evals.execution.source_check.check_sources` of the
            config's ``source`` paths, judged by ``hard.source_warnings_max``.

    Returns:
        The verdict: ``verdict.passed`` says whether the change may land,
        ``verdict.render()`` says why.

    Raises:
        BaselineError: the baseline file is missing or damaged.
        GateConfigError: the gate configuration is invalid.
    """
    base = baseline if isinstance(baseline, Baseline) else load_baseline(Path(baseline))
    found = gate_config_or_defaults(load_config().gate_config_path) if config is None else None
    if config is None:
        rules = GateConfig() if found is None else found
    elif isinstance(config, GateConfig):
        rules = config
    else:
        rules = load_gate_config(Path(config))
    verdict = judge(
        report.results,
        base,
        rules,
        strict=strict,
        max_errors=max_errors,
        meta=report.meta,
        source_warnings=source_warnings,
        metrics=report.metrics,
    )
    return verdict.model_copy(update={"default_rules": config is None and found is None})
