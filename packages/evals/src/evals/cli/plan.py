"""What an evaluation of the ``evals`` command line is about to run, as a library
:class:`~evals.evaluation.Plan`: the case files the flags name, the SUT, the label, and
for ``--resume`` the evaluation a trace folder records (every flag that says otherwise
is refused, one line, exit 2)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from evals.cases.configuration import SutRecipe
from evals.cases.vocabulary import rules_of
from evals.config import EvalsConfig, git_revision
from evals.errors import UsageError
from evals.evaluation import NoCasesError, Plan, plan, run_options
from evals.execution.placement import Workers, workers_for
from evals.execution.resume import cases_of, cut_torn_tail, load_meta, read_finished
from evals.gating.baseline import Baseline
from evals.log.traces import META_FILE, RunMeta
from evals.model.options import OptionNames, Origin, RunOptions, Selection, conflict
from evals.model.sut import AnySUT, describe, load_sut, sut_description

STABILITY_TAG = "flaky"


def case_files(
    args: argparse.Namespace, config: EvalsConfig, *, every_suite: bool = False
) -> tuple[list[str], list[Path], list[Path]]:
    """The suites, every case file to load, and the ``--cases`` files among them:
    ``--suite`` and ``--cases``, else every suite but those apart (``every_suite``: all
    of them, for lint). A file named twice (``--suite write --cases cases/write.jsonl``)
    is loaded once, where it was first named.

    A suite apart (``[tool.evals.suite_options]``) runs alone, with its options: named
    beside other suites, or its file given with ``--cases``, it is refused (exit 2)
    rather than run with options that are not its own."""
    available = config.suites()
    for suite in config.suites_apart():
        if suite not in available:
            raise UsageError(
                f"[tool.evals.suite_options] names suite {suite!r}, but"
                f" {str(config.suite_path(suite))!r} does not exist"
            )
    default = config.suites() if every_suite else config.default_suites()
    suites: list[str] = list(dict.fromkeys(args.suite)) or ([] if args.cases else default)
    for suite in suites:
        if suite not in available:
            known = ", ".join(available) or "none"
            raise UsageError(
                f"unknown suite {suite!r} in {str(config.cases_dir)!r}; available: {known}"
            )
    if not every_suite:
        _refuse_mixed_options(suites, [Path(p) for p in args.cases], config)
    paths: list[Path] = []
    extra: list[Path] = []
    seen: set[Path] = set()
    named: list[tuple[Path, bool]] = [(config.suite_path(s), False) for s in suites]
    named += [(p, True) for p in args.cases]  # True: named with --cases
    for path, extra_file in named:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            paths.append(path)
            if extra_file:
                extra.append(path)
    if not paths:
        raise UsageError(f"no suites in {str(config.cases_dir)!r} and no --cases given")
    return suites, paths, extra


def _refuse_mixed_options(suites: list[str], cases: list[Path], config: EvalsConfig) -> None:
    """A suite apart runs on its own: never beside suites with other options, and never
    through ``--cases`` (which would run it with options not its own)."""
    apart = {s: config.suite_options[s] for s in suites if s in config.suite_options}
    if apart and any(config.suite_options.get(s) != next(iter(apart.values())) for s in suites):
        named = next(iter(apart))
        others = ", ".join(repr(s) for s in suites if config.suite_options.get(s) != apart[named])
        raise UsageError(
            f"suite {named!r} runs with SUT options of its own ([tool.evals.suite_options]):"
            f" evaluate it apart from {others} (--suite {named})"
        )
    files = {config.suite_path(s).resolve(): s for s in config.suites_apart()}
    selected = set(suites)
    for path in cases:
        suite = files.get(path.resolve())
        if suite is not None and suite not in selected:
            raise UsageError(
                f"{str(path)!r} is suite {suite!r}, which runs with SUT options of its own"
                f" ([tool.evals.suite_options]): name it with --suite {suite}"
            )


def sut_options(args: argparse.Namespace, config: EvalsConfig, suites: list[str]) -> dict[str, str]:
    """The SUT options of an evaluation of ``suites``: a suite apart's own
    (``[tool.evals.suite_options]``), then ``--sut-option``. A ``--sut-option`` that
    contradicts the suite's own is refused (exit 2): it would not be applied."""
    own: dict[str, str] = {}
    suite = next((s for s in suites if s in config.suite_options), None)
    if suite is not None:
        own = dict(config.suite_options[suite])
    given = dict(args.sut_option)
    for key, value in given.items():
        if key in own and own[key] != value:
            raise UsageError(
                f"--sut-option {key}={value} contradicts suite {suite!r}'s own {key}={own[key]}"
                " ([tool.evals.suite_options]); a suite apart runs with its own options"
            )
    return {**own, **given}


def import_from_working_directory() -> None:
    """Put the working directory first on ``sys.path``, as ``python -m`` does: ``--sut
    my_agent:MySUT`` imports ``my_agent.py`` of the current folder. Only in a process that
    builds the SUT (the gate's parent never does: it imports nothing of the project)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)


def load_named_sut(
    args: argparse.Namespace, config: EvalsConfig, suites: list[str] | None = None
) -> tuple[AnySUT, str]:
    """The SUT named by ``--sut`` and ``--sut-option`` (or the config), with the options of
    the suites apart among ``suites``, and how reports name it. Modules of the working
    directory import too (:func:`import_from_working_directory`)."""
    sut_spec = _sut_spec(args, config)
    options = sut_options(args, config, suites or [])
    import_from_working_directory()
    return load_sut(sut_spec, options), describe(sut_spec, options)


def _sut_spec(args: argparse.Namespace, config: EvalsConfig) -> str:
    sut_spec: str | None = args.sut or config.sut
    if not sut_spec:
        raise UsageError("no SUT: pass --sut module:attr or set [tool.evals] sut")
    return sut_spec


def _use_recorded_sut(args: argparse.Namespace, old: RunMeta, where: str) -> None:
    """Resume with the SUT and options ``old`` recorded, as if given again; a secret it
    could not keep must be (one line, exit 2)."""
    secret = [key for key, value in old.sut_options.items() if value is None]
    if secret:
        raise UsageError(
            f"{where}: its SUT was built with the secret option {secret[0]!r}, which"
            f" {META_FILE} does not keep: pass --sut {old.sut_spec} and every --sut-option"
            " again"
        )
    args.sut = old.sut_spec
    args.sut_option = [(key, str(value)) for key, value in old.sut_options.items()]


CLI_NAMES = OptionNames(
    ray="--executor ray",
    process="--isolation process",
    memory_limit="--memory-limit",
    ray_address="--ray-address",
)
"""How the command line names the options :func:`evals.model.options.conflict` speaks of."""

OPTION_FLAGS = {
    "trials": "--trials",
    "concurrency": "--concurrency",
    "timeout_s": "--timeout",
    "isolation": "--isolation",
    "memory_limit_mb": "--memory-limit",
    "executor": "--executor",
}
"""The flag of each field of :class:`RunOptions`."""


def options_of(
    args: argparse.Namespace, config: EvalsConfig, recorded: RunMeta | None = None
) -> RunOptions:
    """The :class:`RunOptions` the flags ask for. A resumed evaluation (``recorded``) keeps
    what it recorded unless a flag says otherwise; else ``[tool.evals] executor`` and the
    defaults. A value no evaluation can run with, and options that do not go together,
    are refused (one line, exit 2) in the flags' words, before the SUT is built."""
    executor: str = args.executor or (recorded.executor if recorded else config.executor)
    isolation: str | None = args.isolation
    limit: int | None = args.memory_limit
    if isolation is None and recorded is not None and executor != "ray":
        isolation = recorded.isolation
        limit = recorded.memory_limit_mb if limit is None else limit
    given = {
        "trials": recorded.trials if recorded else args.trials or args.default_trials,
        "concurrency": args.concurrency or (recorded.concurrency if recorded else None),
        "timeout_s": args.timeout or (recorded.timeout_s if recorded else None),
        "isolation": isolation,
        "memory_limit_mb": limit,
        "executor": executor,
    }
    try:
        options = run_options(**{key: value for key, value in given.items() if value is not None})
    except ValueError as e:
        field, _, wrong = str(e).partition(": ")
        raise UsageError(f"{OPTION_FLAGS.get(field, field)}: {wrong}") from None
    problem = conflict(options, args.ray_address, CLI_NAMES)
    if problem is not None:
        raise UsageError(problem)
    return options


def workers_of(
    args: argparse.Namespace, config: EvalsConfig, options: RunOptions, suites: list[str]
) -> Workers | None:
    """Where the SUT of an evaluation with ``options`` runs: worker processes, Ray actors
    (a missing Ray, or a cluster address nothing answers at, is exit 2 before any run),
    or ``None`` for the harness's own process."""
    return workers_for(
        _sut_spec(args, config),
        sut_options(args, config, suites),
        options,
        args.ray_address,
        names=CLI_NAMES,
        error=UsageError,
    )


def planned(
    args: argparse.Namespace,
    config: EvalsConfig,
    exclude_tags: list[str],
    baseline: Baseline | None = None,
) -> Plan:
    """A new evaluation of the cases the flags select: :func:`evals.evaluation.plan` with
    the flags as its arguments (``baseline``: the one the report will be gated against,
    so a case it ran unchanged that the SUT now refuses is the SUT's failure)."""
    suites, paths, extra = case_files(args, config)
    options = options_of(args, config)
    import_from_working_directory()
    try:
        return plan(
            paths,
            _sut_spec(args, config),
            options,
            label=label_of(args, suites),
            sut_options=sut_options(args, config, suites),
            ray_address=args.ray_address,
            baseline=baseline,
            selection=Selection(
                split=args.split, tags=tuple(args.tag), exclude_tags=tuple(exclude_tags)
            ),
            origin=Origin(
                command=args.command,
                suites=tuple(suites),
                case_files=tuple(str(p) for p in extra),
            ),
        )
    except NoCasesError:
        if args.command == "stability" and args.tag == [STABILITY_TAG]:
            raise UsageError(
                f"no {STABILITY_TAG}-tagged cases among the selected cases (stability runs"
                f" only cases tagged {STABILITY_TAG!r}; pass --tag to measure others)"
            ) from None
        raise UsageError(
            "no cases selected (check --suite, --cases, --split, --tag, --exclude-tag)"
        ) from None


def resumed(args: argparse.Namespace, config: EvalsConfig, folder: Path) -> Plan:
    """The evaluation traced in ``folder``, to be finished: its cases, SUT and trials as
    its meta records them; a flag that says otherwise is refused (one line, exit 2)."""
    old = load_meta(folder)
    where = f"--resume {folder.name!r}"
    if old.command != args.command:
        raise UsageError(
            f"{where}: that trace is of `evals {old.command}`, not `evals {args.command}`"
        )
    if old.complete:
        raise UsageError(
            f"{where}: that evaluation is complete, nothing to resume"
            f" (`evals report {folder}` rebuilds its report)"
        )
    if args.sut is None and not args.sut_option and old.sut_spec:
        _use_recorded_sut(args, old, where)
    sut, sut_name = load_named_sut(args, config, old.suites)
    now = git_revision(config.root)
    described = sut_description(sut)
    given = [
        ("--sut/--sut-option", sut_name, old.sut),
        # The same options can mean another system (an environment variable changed).
        ("what the SUT says it runs", described if old.sut_description else None,
         old.sut_description),
        ("--trials", args.trials, old.trials),
        ("--suite", list(dict.fromkeys(args.suite)) or None, old.suites),
        ("--cases", [str(p) for p in args.cases] or None, old.case_files),
        ("--split", args.split, old.split),
        ("--tag", list(args.tag) or None, old.tags),
        ("--exclude-tag", sorted(set(args.exclude_tag)) or None, old.exclude_tags),
        ("--label", args.label, old.label),
        ("the git revision", now if "unknown" not in (now, old.git_revision) else None,
         old.git_revision),
    ]  # fmt: skip
    for flag, value, recorded in given:
        if value is not None and value != recorded:
            raise UsageError(
                f"{where}: {flag} is {value!r} now, {recorded!r} in its {META_FILE};"
                " a resumed evaluation runs what it recorded"
            )
    cases, sources = cases_of(old, config, rules=rules_of(sut))
    if len(cases) * old.trials != old.planned_runs:
        raise UsageError(
            f"{where}: the case files changed: {len(cases)} cases x {old.trials} trials"
            f" now, {old.planned_runs} runs planned in its {META_FILE}"
        )
    finished = read_finished(folder, cases, old.trials)
    cut_torn_tail(folder, finished)
    options = options_of(args, config, old)
    workers = workers_of(args, config, options, old.suites)
    meta = old.model_copy(
        update={
            "finished": None,
            "complete": False,
            "stop_signal": None,
            "finished_runs": len(finished.runs),
            "options": options,
            "unstopped_runs": [],
        }
    )
    return Plan(
        sut=sut,
        cases=cases,
        meta=meta,
        sources=sources,
        finished=finished.runs,
        workers=workers,
        recipe=SutRecipe(_sut_spec(args, config), sut_options(args, config, old.suites)),
    )


def label_of(args: argparse.Namespace, suites: list[str]) -> str:
    if args.label:
        return str(args.label)
    if args.command in ("gate", "stability"):
        return str(args.command)
    if args.command == "baseline":
        return "baseline-run"
    if args.cases or not suites:
        return "run"
    return "-".join(suites) if len(suites) < 4 else "all"
