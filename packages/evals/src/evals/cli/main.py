"""The ``evals`` command line: init, lint, run, baseline, gate, stability, report,
compare, generate, judge, power.

``--sut module:attr`` imports modules of the working directory too, as ``python -m``
does (:func:`evals.cli.plan.import_from_working_directory`). Without a ``gate.json``,
``gate`` and ``baseline`` apply the built-in rules (the verdict lists them), as
:func:`evals.gate` does; ``init`` writes them to ``gate.json``.

Exit codes: 0 ok; 1 the gate or lint says no, or ``generate --check`` finds a stale
suite; 2 bad input or usage (a bad case file
prints the loader's one-line problems, never a traceback; so does a reports or traces
folder that cannot be written); 130 interrupted by Ctrl-C (SIGINT), 143 by SIGTERM: the
partial report is written and printed, marked INCOMPLETE, and finished traces are kept;
further SIGINTs and SIGTERMs are ignored until it is written.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import importlib.util
import os
import signal
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from evals.cases.case_file import Record, iter_records
from evals.cli import harness
from evals.cli.parser import build_parser
from evals.cli.plan import (
    STABILITY_TAG,
    case_files,
    import_from_working_directory,
    label_of,
    planned,
    resumed,
    sut_options,
)
from evals.config import EvalsConfig, ensure_writable_folder, load_config
from evals.errors import CaseFileError, EvalsError, SutLoadError, UsageError
from evals.evaluation import Report, execute, gate, make_baseline, validated
from evals.execution.resume import cases_of, load_meta, rebuild
from evals.execution.runner import STOP_SIGNALS
from evals.execution.source_check import check_sources
from evals.gating.baseline import Baseline, load_baseline, write_baseline
from evals.gating.fail_fast import STOPPED_EARLY, FailFast
from evals.gating.input_guard import InputGuard
from evals.gating.review import review
from evals.gating.rules import gate_config_or_defaults, starter_gate_config
from evals.gating.verdict import GateConfig, Verdict, load_gate_config
from evals.io.files import write_atomic
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.model.case import Case
from evals.model.sut import load_sut
from evals.report.files import load_report, report_paths, write_placeholder
from evals.report.summary import incomplete_note, render_console

EXIT_OK, EXIT_NO, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
"""Stopped by a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM)."""


@dataclass(frozen=True)
class Done:
    """An evaluation the command line executed: its report, and where it goes."""

    report: Report
    """The graded runs, the metrics, and what was run (how it ended)."""
    out: Path
    """The reports folder."""
    handlers: Mapping[signal.Signals, object]
    """Ctrl-C's and SIGTERM's handlers before the evaluation: after a stop both stay
    ignored until :meth:`publish` has written the report, then get these back."""

    @property
    def complete(self) -> bool:
        """Every planned run finished."""
        return self.report.complete

    @property
    def stopped_exit(self) -> int:
        """The exit code of a stopped evaluation: 128 + the signal's number, or 3 when
        it stopped by itself (the provider kept failing)."""
        meta = self.report.meta
        if meta.stop_signal is None:
            return EXIT_STOPPED if meta.stop_reason is not None else EXIT_INTERRUPTED
        return 128 + signal.Signals[meta.stop_signal].value

    def publish(
        self,
        not_gated: list[str],
        *,
        sections: dict[str, str] | None = None,
        verdict: Verdict | None = None,
    ) -> None:
        """Write the report files and print the console report; then Ctrl-C and SIGTERM
        work again."""
        try:
            written = self.report.write(
                self.out, not_gated=not_gated, sections=sections, verdict=verdict
            )
            self.report.print(not_gated=not_gated)
            print(f"\nreports: {', '.join(str(p) for p in written)}", file=sys.stderr)
            print(f"traces: {self.report.traces}", file=sys.stderr)
        finally:
            _restore(self.handlers)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["judge"]:
        return _judge(args_list[1:])
    try:
        args = build_parser().parse_args(args_list)
        args.argv = args_list
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        return _COMMANDS[args.command](args)
    except CaseFileError as e:
        for line in e.lines():
            print(line, file=sys.stderr)
        return EXIT_USAGE
    except EvalsError as e:
        print(f"evals: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # writing reports, traces or the baseline: one line, no traceback
        print(f"evals: error: {_os_error_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("evals: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _os_error_line(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    files = [str(f) for f in (error.filename, error.filename2) if f is not None]
    return f"{reason}: {' -> '.join(repr(f) for f in files)}" if files else reason


def _lint(args: argparse.Namespace) -> int:
    from evals.cases.lint import lint_files  # noqa: PLC0415 (only this command needs it)

    config = load_config()
    suites, paths, _ = case_files(args, config, every_suite=True)
    linted = lint_files(
        paths,
        min_split_size=args.min_split_size,
        known_roles=config.fault_targets,
        sut=_lint_checker(args, config, suites),
        jobs=args.jobs,
    )
    for finding in linted.findings:
        print(finding.render())
    read = f"{linted.cases:,} case(s) in {len(paths)} file(s)"
    if linted.findings:
        print(f"lint: {read}: {len(linted.findings)} finding(s)", file=sys.stderr)
        return EXIT_NO
    print(f"lint: {read}: no problems found", file=sys.stderr)
    return EXIT_OK


def _lint_sut(
    args: argparse.Namespace, config: EvalsConfig, suites: list[str] | None = None
) -> object | None:
    """The SUT whose ``check_case`` lint asks too: ``--sut`` (must load), else
    ``[tool.evals] sut`` (when it cannot load here, lint says so and goes on), with the
    options of the suites apart among ``suites``."""
    options = sut_options(args, config, suites or [])
    if args.sut or config.sut:
        import_from_working_directory()
    if args.sut:
        return load_sut(args.sut, options)
    if not config.sut:
        return None
    try:
        return load_sut(config.sut, options)
    except SutLoadError as e:
        print(f"lint: the SUT's check_case skipped: {e}", file=sys.stderr)
        return None


class _SuiteCheckers:
    """The SUT lint asks about each case: the one with the options of the case's suite
    (a suite apart has its own), so every file is judged as ``evals run`` would run it."""

    def __init__(self, default: object, by_case: Mapping[str, object]) -> None:
        self.default = default
        self.by_case = dict(by_case)
        self.case_rules = getattr(default, "case_rules", None)

    def check_case(self, case: Case) -> list[str]:
        """What the case's own SUT says about it (a SUT without the hook: nothing)."""
        sut = self.by_case.get(case.id, self.default)
        hook = getattr(sut, "check_case", None)
        return list(hook(case)) if callable(hook) else []


def _lint_checker(
    args: argparse.Namespace, config: EvalsConfig, suites: list[str]
) -> object | None:
    """The SUT of every suite but those apart, or, when suites apart are linted too, one
    that asks each case's own (:class:`_SuiteCheckers`)."""
    default = _lint_sut(args, config)
    apart = [s for s in suites if s in config.suite_options]
    if default is None or not apart:
        return default
    by_case: dict[str, object] = {}
    for suite in apart:
        sut = _lint_sut(args, config, [suite])
        for record in iter_records([config.suite_path(suite)]):
            data = record.data if isinstance(record, Record) else None
            case_id = data.get("id") if isinstance(data, dict) else None
            if isinstance(case_id, str):
                by_case[case_id] = sut
    return _SuiteCheckers(default, by_case)


def _note_suites_apart(args: argparse.Namespace, config: EvalsConfig) -> None:
    """Say which suites "every suite" left out (they run apart, with options of their
    own), so nobody reads an evaluation of the others as the whole."""
    if args.suite or args.cases or getattr(args, "resume", None) or not config.suites_apart():
        return
    named = ", ".join(config.suites_apart())
    print(
        f"note: suite(s) {named} run apart, with SUT options of their own"
        f" ([tool.evals.suite_options]), and are left out; name them with --suite",
        file=sys.stderr,
    )


def _run(args: argparse.Namespace) -> int:
    config = load_config()
    done = _evaluate(args, config, exclude_tags=args.exclude_tag)
    done.publish(_not_gated(args, config))
    if not done.complete and done.report.meta.run_id and args.command == "run":
        # The finished runs are traced: say how to run only the missing ones.
        print(f"finish it: evals run --resume {done.report.meta.run_id}", file=sys.stderr)
    return EXIT_OK if done.complete else done.stopped_exit


def _stability(args: argparse.Namespace) -> int:
    if not args.tag:
        args.tag = [STABILITY_TAG]
    return _run(args)


def _baseline(args: argparse.Namespace) -> int:
    if args.harness_result is not None:
        return _child(args, gating=False)
    config = load_config()
    found = _gate_rules(args, config)  # None: no gate.json, the built-in rules
    gate_config = found or GateConfig()
    path: Path = args.baseline or _baseline_path(args, config)
    exclude = [*gate_config.exclude_tags, *args.exclude_tag]
    # Evaluated as the gate evaluates (in a child process): the checks a project
    # registers are those a fresh process registers, for the baseline and the gate alike.
    apart = _evaluate_apart(args, config, exclude, guarded=[])
    if isinstance(apart, int):
        return apart
    if isinstance(apart, str):
        raise UsageError(apart)  # the child raises it itself: never reached
    done = apart
    done.publish(gate_config.exclude_tags)
    report = done.report
    if not done.complete:
        print(f"baseline not written: the run was interrupted ({path})", file=sys.stderr)
        return done.stopped_exit
    errored = sum(1 for r in report.results if r.errored)
    max_errors = gate_config.hard.errored_runs_max if args.max_errors is None else args.max_errors
    if errored > max_errors:
        print(
            f"baseline not written: results incomplete: {errored} run(s) errored"
            f" (at most {max_errors} allowed)",
            file=sys.stderr,
        )
        return EXIT_NO
    baseline = make_baseline(report, exclude_tags=exclude, case_verdict=gate_config.case_verdict)
    write_baseline(path, baseline)
    print(
        f"baseline written: {path} ({len(baseline.case_success):,} cases, {baseline.runs:,}"
        f" runs, success {baseline.success_rate * 100:.1f}%)"
    )
    if found is None:
        _note_default_rules(config)
    return EXIT_OK


def _gate(args: argparse.Namespace) -> int:
    """The gate: its evaluation in a child process, its verdict here
    (:mod:`evals.cli.harness`); the child itself when ``--harness-result`` is given."""
    if args.harness_result is not None:
        return _child(args, gating=True)
    config = load_config()
    gate_config_path = args.gate_config or config.gate_config_path
    found = _gate_rules(args, config)  # None: no gate.json, the built-in rules
    gate_config = found or GateConfig()
    # Compiled before any case runs: the code under review cannot rewrite itself first.
    source_warnings = (
        check_sources(gate_config.source.paths, config.root, gate_config_path)
        if gate_config.source is not None
        else None
    )
    baseline_path = args.baseline or _baseline_path(args, config)
    baseline = load_baseline(baseline_path)  # before a long run
    exclude = [*gate_config.exclude_tags, *args.exclude_tag]
    apart = _evaluate_apart(
        args, config, exclude, guarded=[baseline_path, gate_config_path], baseline=baseline
    )
    if isinstance(apart, int):
        return apart
    if isinstance(apart, str):
        print(unbuildable_verdict(apart))
        return EXIT_NO
    done = apart
    stopped_early = (done.report.meta.stop_reason or "").startswith(STOPPED_EARLY)
    if not done.complete and not (args.fail_fast and stopped_early):
        done.publish(gate_config.exclude_tags)
        print(f"Gate: not judged ({incomplete_note(done.report.meta) or 'INCOMPLETE'})")
        return done.stopped_exit
    verdict = gate(
        done.report,
        baseline,
        found,  # None: the built-in rules, which the verdict states
        strict=args.strict,
        max_errors=args.max_errors,
        source_warnings=source_warnings,
    )
    if not done.complete and not _borne_out(verdict):
        # The child stopped early, but its finished runs show no case newly failing
        # beyond what the gate allows: a stop the runs do not bear out judges nothing.
        done.publish(gate_config.exclude_tags)
        print(
            f"Gate: not judged ({incomplete_note(done.report.meta) or 'INCOMPLETE'}; the"
            " finished runs do not fail the gate)"
        )
        return EXIT_USAGE
    if not done.complete:
        reason = f"{done.report.meta.stop_reason}; the runs left could not change the verdict"
        verdict = verdict.model_copy(update={"stopped_early": reason})
    # The verdict goes into <label>.md in the same single write as the report: appended
    # afterwards, a concurrent gate's verdict could land in the same file.
    shown = verdict.render()
    sections = {"Gate verdict": shown}
    done.publish(gate_config.exclude_tags, sections=sections, verdict=verdict)
    if found is None:
        _note_default_rules(config)
    print()
    print(shown)
    return verdict.exit_code


def _borne_out(verdict: Verdict) -> bool:
    """Whether a fail-fast stop is borne out: the finished runs alone fail the gate by
    its ``newly_failing`` rule, which the runs left could only make worse."""
    return not verdict.passed and any(f.rule == "newly_failing" for f in verdict.hard)


def _evaluate_apart(
    args: argparse.Namespace,
    config: EvalsConfig,
    exclude: list[str],
    guarded: list[Path],
    baseline: Baseline | None = None,
) -> Done | str | int:
    """The evaluation the flags ask for, run in a child process (:mod:`evals.cli.harness`)
    and read back here from its trace: the :class:`Done` to judge or write; or why the
    committed SUT cannot be built (``str``: nothing ran); or the exit code to end with
    (``int``: the child's own error line is printed, or an input of ``guarded`` and the
    case files changed during the run, or the trace is not the one asked for).
    ``--in-process``: run here instead (``baseline``: the gate's, see :func:`_evaluate`)."""
    if args.in_process:
        return _evaluate_here(args, config, exclude, guarded, baseline)
    suites, case_paths, extra = case_files(args, config)
    traces_dir: Path = args.traces or config.traces_dir
    asked = harness.Asked(
        command=args.command,
        label=label_of(args, suites),
        suites=suites,
        case_files=[str(p) for p in extra],
        split=args.split,
        tags=list(args.tag),
        exclude_tags=sorted(set(exclude)),
        trials=args.trials or args.default_trials,
    )
    # Read before any SUT code runs: the code under review may not rewrite what it is
    # judged against (this verdict's inputs, or the next one's).
    guard = InputGuard.of([*guarded, *case_paths])
    before = harness.folders(traces_dir)
    handlers = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    with tempfile.TemporaryDirectory(prefix="evals-") as scratch:
        result = Path(scratch) / "result.json"
        code = harness.run_child(args.argv, result)
        said = harness.read_result(result)
    tampered = guard.put_back()
    try:
        if tampered:
            for line in tampered:
                print(f"evals: error: {line}", file=sys.stderr)
            print("Gate: not judged (an input of the gate changed during the run)")
            return EXIT_USAGE
        if said is None:
            return _ended_without_result(code)
        if said.unbuildable is not None:
            return said.unbuildable
        assert said.trace is not None
        folder = harness.the_new_trace(traces_dir, said.trace, before)
        results, meta = rebuild(folder, config)
        wrong = asked.differences(meta)
        cases, _ = cases_of(meta, config, graded_here=False)
        if meta.planned_runs != len(cases) * meta.trials:
            wrong.append(f"planned_runs: {meta.planned_runs} for {len(cases)} case(s)")
        if wrong:
            raise UsageError(
                f"the trace {str(folder)!r} does not record the evaluation asked for: "
                + "; ".join(wrong)
            )
    except BaseException:
        _restore(handlers)
        raise
    report = Report(
        results=results, metrics=compute(results), meta=meta, traces=folder, cases=tuple(cases)
    )
    return Done(report=report, out=args.out or config.reports_dir, handlers=handlers)


def _evaluate_here(
    args: argparse.Namespace,
    config: EvalsConfig,
    exclude: list[str],
    guarded: list[Path],
    baseline: Baseline | None,
) -> Done | str | int:
    """:func:`_evaluate_apart` in this process (``--in-process``): for a debugger, or a
    test that breaks the SUT in memory. The SUT can then reach the code of the verdict."""
    _, case_paths, _ = case_files(args, config)
    guard = InputGuard.of([*guarded, *case_paths])
    try:
        done = _evaluate(args, config, exclude_tags=exclude, baseline=baseline)
    except SutLoadError as e:
        if args.command != "gate" or args.sut or args.sut_option:
            raise
        return str(e)
    tampered = guard.put_back()
    if tampered:
        done.publish(exclude)
        for line in tampered:
            print(f"evals: error: {line}", file=sys.stderr)
        print("Gate: not judged (an input of the gate changed during the run)")
        return EXIT_USAGE
    return done


def _ended_without_result(code: int) -> int:
    """The child ended without naming a trace: its own error line is on stderr already
    (a usage error, a bad case file), or it was stopped before its first run."""
    if code == EXIT_USAGE:
        return EXIT_USAGE
    stopped = harness.stop_signal(code)
    if stopped is not None:
        print(f"evals: stopped by {stopped} before a trace was written", file=sys.stderr)
        return 128 + signal.Signals[stopped].value
    print(
        f"evals: error: the evaluation ended with exit status {code} and named no trace",
        file=sys.stderr,
    )
    return EXIT_USAGE


def _child(args: argparse.Namespace, *, gating: bool) -> int:
    """``evals gate|baseline --harness-result FILE``: evaluate and trace as the command
    asks, name the trace folder in ``FILE``; no verdict, no report, no baseline (the
    parent writes them)."""
    config = load_config()
    gate_config = _gate_rules(args, config) or GateConfig()
    baseline = load_baseline(args.baseline or _baseline_path(args, config)) if gating else None
    exclude = [*gate_config.exclude_tags, *args.exclude_tag]
    try:
        done = _evaluate(args, config, exclude_tags=exclude, baseline=baseline)
    except SutLoadError as e:
        if not gating or args.sut or args.sut_option:  # a usage error: one line, exit 2
            raise
        # The committed SUT with the committed options, as the baseline was made: the
        # change under review broke the system itself, a verdict, never a usage error.
        harness.write_result(args.harness_result, harness.ChildSaid(unbuildable=str(e)))
        return EXIT_OK
    _restore(done.handlers)
    traces = done.report.traces
    assert traces is not None
    harness.write_result(args.harness_result, harness.ChildSaid(trace=traces.name))
    return EXIT_OK if done.complete else done.stopped_exit


def unbuildable_verdict(error: SutLoadError | str) -> str:
    """The verdict on a system under test that its committed spec and options no longer
    build (or import): it fails, and says why in one line."""
    return (
        "Gate: FAIL (1 hard, 0 soft)\n"
        f"  HARD  the system under test cannot be built as the baseline was: {error}\n"
        "Nothing was run: every case fails with it."
    )


def _report_command(args: argparse.Namespace) -> int:
    config = load_config()
    if args.path.is_dir():  # a trace folder: the report rebuilt from its runs
        results, meta = rebuild(args.path, config)
        _refuse_overwriting_inputs(args.out or config.reports_dir, meta.label, config, args)
        cases, _ = cases_of(meta, config, graded_here=False)  # shown beside their runs
        report = Report(
            results=results,
            metrics=compute(results),
            meta=meta,
            traces=args.path,
            cases=tuple(cases),
        )
        not_gated = _not_gated_of(meta, config)
        written = report.write(args.out or config.reports_dir, not_gated=not_gated)
        report.print(not_gated=not_gated)
        print(f"\nreports: {', '.join(str(p) for p in written)}", file=sys.stderr)
        return EXIT_OK
    metrics, meta = load_report(args.path)
    print(render_console(metrics, meta, not_gated=_not_gated_of(meta, config)))
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from evals.report.compare import (  # noqa: PLC0415 (only this command needs it)
        compare,
        load_side,
        refuse_unrelated,
        render,
    )
    from evals.report.compare_html import render_compare_html  # noqa: PLC0415

    config = load_config()
    a, b = load_side(args.a, config), load_side(args.b, config)
    refuse_unrelated(a, b)
    rules = load_gate_config(args.gate_config) if args.gate_config else _gate_config(config)
    comparison = compare(a, b, rules)
    text = render(comparison, args.alpha)
    if args.markdown is not None:
        write_atomic(args.markdown, text)
    if args.html is not None:
        write_atomic(args.html, render_compare_html(comparison, args.alpha))
    print(text, end="")
    if args.fail_on_regression and comparison.regression(args.alpha):
        return EXIT_NO
    return EXIT_OK


def _review(args: argparse.Namespace) -> int:
    config = load_config()
    paths = args.baselines or [config.baseline_path]
    print(review(paths).render())
    return EXIT_OK


def _generate(args: argparse.Namespace) -> int:
    """Write each generator's suite, or with ``--check`` print its stale lines."""
    from evals.cases.generate import (  # noqa: PLC0415 (only this command needs it)
        CaseGenerator,
        GenerationError,
        generation_failed,
        load_generator,
        stale_lines,
        write_suite,
    )

    if args.out is not None and len(args.generators) > 1:
        raise UsageError("--out names one file: give one generator with it")
    jobs: list[tuple[str, CaseGenerator, Path]] = []
    for spec in args.generators:  # every one loads before anything is written
        generator = load_generator(spec)
        if args.out is not None:
            path: Path = args.out
        elif generator.suite:
            path = _shown(load_config().suite_path(generator.suite))
        else:
            raise UsageError(f"{spec}: the generator names no suite: give --out FILE")
        jobs.append((spec, generator, path))
    stale = 0
    for spec, generator, path in jobs:
        try:
            if args.check:
                problems = stale_lines(generator, path)
            else:
                count = write_suite(generator, path)
        except GenerationError as e:
            raise generation_failed(spec, e) from e
        except (EvalsError, OSError):
            raise
        except Exception as e:  # the project's build, oracle or hook: one line
            raise generation_failed(spec, e) from e
        if not args.check:
            print(f"{path}: {count} cases written")
        elif problems:
            stale += 1
            for line in problems:
                print(line)
            print(
                f"generate: {path} is stale ({len(problems)} problem(s)):"
                f" run evals generate {spec}" + (f" --out {path}" if args.out else ""),
                file=sys.stderr,
            )
        else:
            print(f"{path}: in sync")
    return EXIT_NO if stale else EXIT_OK


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _not_gated_of(meta: RunMeta, config: EvalsConfig) -> list[str]:
    return [] if meta.command == "stability" else _gate_config(config).exclude_tags


def _calibrate(args: list[str]) -> int:
    """``evals judge --calibrate MODULE:ATTR --labels FILE [--out FILE]``: a rubric judge's
    exam (:mod:`evals.checks.calibration`); exit 0 when it may gate, 1 when it may not
    (the file is written either way), 2 on bad input."""
    from evals.checks.calibration import (  # noqa: PLC0415 (only this command needs it)
        CalibrationError,
        calibrate,
        load_labels,
        write_calibration,
    )
    from evals.checks.rubric import RubricJudge  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="evals judge --calibrate",
        description="Sit a rubric judge's exam on labelled replies; write its calibration.",
    )
    parser.add_argument(
        "--calibrate",
        required=True,
        metavar="MODULE:ATTR",
        help="the RubricJudge (importable from the current folder)",
    )
    parser.add_argument(
        "--labels",
        required=True,
        type=Path,
        metavar="FILE",
        help="labelled replies and pairs, JSON Lines",
    )
    out_help = "the calibration file (default: <rubric>.calibration.json)"
    parser.add_argument("--out", type=Path, metavar="FILE", help=out_help)
    options = parser.parse_args(args)
    module_name, _, attr = str(options.calibrate).partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        judge = getattr(importlib.import_module(module_name), attr) if attr else None
    except (ImportError, AttributeError) as e:
        print(f"evals judge: error: cannot load {options.calibrate!r}: {e}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(judge, RubricJudge):
        print(
            f"evals judge: error: {options.calibrate!r} is not a RubricJudge"
            " (expected module:attr naming one)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        replies, pairs = load_labels(options.labels)
    except CalibrationError as e:
        print(f"evals judge: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    result = calibrate(judge, replies, pairs)
    out = options.out or Path(f"{judge.rubric.name}.calibration.json")
    write_calibration(out, result)
    kappa = "n/a" if result.kappa is None else f"{result.kappa:.2f}"
    recall = "n/a" if result.fail_recall is None else f"{result.fail_recall:.0%}"
    print(
        f"rubric {result.rubric!r} on {result.model}: {result.labels} labels, kappa {kappa},"
        f" fail recall {recall}, attacks passed {result.attack_false_passes}/{result.attacks},"
        f" pairs flipped {result.pairs_flipped}/{result.pairs}"
    )
    verdict = "may gate" if result.passed else "may not gate: " + "; ".join(result.problems)
    print(f"calibration written: {out} ({verdict})")
    return 0 if result.passed else 1


def _judge(args: list[str]) -> int:
    """Delegate to ``judge.cli.main`` when the judge is installed (no hard dependency);
    ``--calibrate`` is a rubric judge's exam, which the evals make themselves."""
    if any(a == "--calibrate" or a.startswith("--calibrate=") for a in args):
        return _calibrate(args)
    try:
        found = importlib.util.find_spec("judge") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        try:
            module = importlib.import_module("judge.cli")
        except ModuleNotFoundError as e:
            if e.name not in ("judge", "judge.cli"):
                raise
            found = False
    if not found:
        print(
            "evals: error: the judge is not installed; install supportpilot-judge", file=sys.stderr
        )
        return EXIT_USAGE
    return int(module.main(args, prog="evals judge") or 0)


def _power(args: argparse.Namespace) -> int:
    """``evals power``, when the extra that brings cosmic-ray is installed."""
    try:
        found = importlib.util.find_spec("cosmic_ray") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(
            "evals power needs cosmic-ray, which is not installed: install the extra"
            " supportpilot-evals[power]"
        )
    module = importlib.import_module("evals.power.run")
    return int(module.main(args))


def _init(args: argparse.Namespace) -> int:
    """Write a starter ``gate.json`` (the built-in rules); never over an existing file."""
    config = load_config()
    path: Path = args.gate_config or config.gate_config_path
    shown = _shown(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # O_EXCL: whatever is there (a file, a link, a FIFO) stays as it is
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise UsageError(
            f"{str(shown)!r} exists already: not overwritten (edit it instead)"
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(starter_gate_config())
    print(f"wrote {shown}: the gate's built-in rules, to change by review (docs/gate.md)")
    if config.source is None:
        print(TOOL_EVALS_SNIPPET, end="")
    return EXIT_OK


TOOL_EVALS_SNIPPET = """
No pyproject.toml with a [tool.evals] table here or above. To name your system under
test once (then `evals run` and `evals gate` need no --sut), add to pyproject.toml:

[tool.evals]
sut = "my_agent:MySUT"  # module:attr, as --sut names it
# cases_dir = "cases"      suites (<suite>.jsonl) and gate.json
# reports_dir = "reports"  reports and baseline.json
# traces_dir = "traces"    one folder per evaluation
"""
"""What ``evals init`` prints when no ``[tool.evals]`` table was found."""


_COMMANDS = {
    "lint": _lint,
    "run": _run,
    "baseline": _baseline,
    "gate": _gate,
    "stability": _stability,
    "report": _report_command,
    "compare": _compare,
    "review": _review,
    "generate": _generate,
    "power": _power,
    "init": _init,
}


def _gate_config(config: EvalsConfig) -> GateConfig:
    """The committed gate config, or its defaults when there is none."""
    return gate_config_or_defaults(config.gate_config_path) or GateConfig()


def _gate_rules(args: argparse.Namespace, config: EvalsConfig) -> GateConfig | None:
    """The gate config ``--gate-config`` names (it must exist), else the project's
    ``gate.json``; ``None`` when the project has none: the built-in rules apply, as
    :func:`evals.gate` applies them without one (:func:`_note_default_rules`)."""
    if args.gate_config is not None:
        return load_gate_config(args.gate_config)
    return gate_config_or_defaults(config.gate_config_path)


def _note_default_rules(config: EvalsConfig) -> None:
    """Say on stderr which file was looked for when the built-in rules applied."""
    print(
        f"note: no {str(_shown(config.gate_config_path))!r}: the gate's built-in rules"
        " applied (`evals init` writes them there, to change)",
        file=sys.stderr,
    )


def _not_gated(args: argparse.Namespace, config: EvalsConfig) -> list[str]:
    """Tags whose failures the console report notes as not gated (stability: none, as
    measuring those cases is its very purpose)."""
    if args.command == "stability":
        return []
    return _gate_config(config).exclude_tags


def _evaluate(
    args: argparse.Namespace,
    config: EvalsConfig,
    exclude_tags: list[str],
    baseline: Baseline | None = None,
) -> Done:
    """Plan the evaluation the flags ask for (or the one to resume) and execute it,
    tracing every run; never raises on Ctrl-C or SIGTERM, which stop it (the finished
    runs are kept) and stay ignored until :meth:`Done.publish` has written the report.
    With a ``baseline``, a case the SUT refuses though the baseline ran it unchanged is
    the SUT's failure (its runs fail), not an exit 2."""
    traces_dir: Path = args.traces or config.traces_dir
    resume: str | None = getattr(args, "resume", None)
    with _collector_paused():
        if resume:
            _hold_resume_lock(traces_dir / resume, resume)
            # The SUT's own view of each case, before any run (a new plan is validated so).
            plan = validated(resumed(args, config, traces_dir / resume), baseline)
        else:
            plan = planned(args, config, exclude_tags, baseline)
            _note_suites_apart(args, config)
    label = plan.meta.label
    baseline_path: Path = getattr(args, "baseline", None) or _baseline_path(args, config)
    out: Path = args.out or config.reports_dir
    _refuse_overwriting_inputs(out, label, config, args, baseline_path)
    ensure_writable_folder(out, "reports")  # before any run, not after the last one
    ensure_writable_folder(traces_dir, "traces")
    # An earlier evaluation's report under this label must not look current while this
    # one runs, nor after it is killed: it is replaced at once by one saying so.
    write_placeholder(out, plan.meta)
    stop_when = (
        FailFast.of(baseline, _gate_rules(args, config) or GateConfig(), plan.meta.trials)
        if getattr(args, "fail_fast", False) and baseline is not None
        else None
    )
    handlers = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        report = execute(
            plan,
            traces=traces_dir,
            progress=sys.stderr,
            max_provider_errors=getattr(args, "max_provider_errors", None) or None,
            hold_signals=True,  # after a stop: a second one must not lose the report
            stop_when=stop_when,
        )
    except BaseException:
        _restore(handlers)
        raise
    return Done(report=report, out=out, handlers=handlers)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while the plan is made (the SUT built, its imports
    done, every case loaded), then all of it frozen (``gc.freeze``): it lives until the
    command ends, and every later full collection would otherwise walk it again. With a
    client library such as openai imported that is ~100,000 objects and ~50 ms per full
    collection, during loading, during the runs and while the reports are written. The
    price: the few thousand objects of cyclic garbage the imports leave (~2,700 with
    openai) stay until the command ends, where one collection to find them would cost
    those 50 ms."""
    enabled = gc.isenabled()
    try:
        gc.disable()
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _baseline_path(args: argparse.Namespace, config: EvalsConfig) -> Path:
    """The baseline of the suites the flags select (or a resumed evaluation recorded):
    suites apart have their own (:meth:`EvalsConfig.baseline_for`)."""
    resume: str | None = getattr(args, "resume", None)
    if resume:
        traces_dir: Path = args.traces or config.traces_dir
        return config.baseline_for(load_meta(traces_dir / resume).suites)
    suites, _, _ = case_files(args, config)
    return config.baseline_for(suites)


RESUME_LOCK = ".resume.lock"
"""The file in a trace folder a resumed evaluation holds locked until its process ends."""
_held_locks: list[IO[bytes]] = []
"""The resume locks this process holds (released when it exits, or by the OS if killed)."""


def _hold_resume_lock(folder: Path, run_id: str) -> None:
    """Lock ``folder`` for this process's resume; a second resume of the same run while
    this one runs is refused (one line, exit 2): both would re-run the missing pairs."""
    if not folder.is_dir():
        return  # not a trace folder: the resume itself says so
    import fcntl  # noqa: PLC0415  # POSIX only: imported where a resume needs it

    handle = (folder / RESUME_LOCK).open("ab")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise UsageError(
            f"--resume {run_id!r}: another evaluation is resuming that run now; wait for it"
            " to end (two would both re-run the missing pairs)"
        ) from None
    _held_locks.append(handle)


def _refuse_overwriting_inputs(
    out: Path,
    label: str,
    config: EvalsConfig,
    args: argparse.Namespace,
    baseline: Path | None = None,
) -> None:
    """Refuse (exit 2, before anything is written) reports that would land on what the
    gate reads: a baseline, the gate config, or anything in the cases folder."""
    inputs = {
        config.baseline_path: "the baseline",
        **{config.baseline_for([s]): "a baseline" for s in config.suites_apart()},
        config.gate_config_path: "the gate config",
    }
    for given, what in (
        (baseline, "the baseline"),
        (getattr(args, "gate_config", None), "the gate config"),
    ):
        if given is not None:
            inputs[given] = what
    resolved = {path.resolve(): (path, what) for path, what in inputs.items()}
    cases_dir = config.cases_dir.resolve()
    for path in report_paths(out, label):
        target = path.resolve()
        if target in resolved:
            known, what = resolved[target]
            raise UsageError(f"label {label!r} would overwrite {what} {str(known)!r}")
        if target.is_relative_to(cases_dir):
            raise UsageError(
                f"label {label!r} would write {str(path)!r} into the cases folder"
                f" {str(config.cases_dir)!r}; reports go elsewhere (--out)"
            )


def _restore(handlers: Mapping[signal.Signals, object]) -> None:
    """Give Ctrl-C and SIGTERM back the handlers they had."""
    for signum, handler in handlers.items():
        if callable(handler) or isinstance(handler, int):
            signal.signal(signum, handler)
