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
from evals.cases.loader import load_cases_with_sources
from evals.cases.vocabulary import rules_of
from evals.checks.registry import idle_checks
from evals.config import EvalsConfig, git_revision
from evals.errors import UsageError
from evals.evaluation import Plan
from evals.execution.isolation import ProcessIsolation
from evals.execution.ray_executor import RayExecutor, require_ray
from evals.execution.resume import cases_of, cut_torn_tail, load_meta, read_finished
from evals.execution.runner import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S, select_cases
from evals.log.traces import META_FILE, RunMeta, new_run_id, utc_now
from evals.model.sut import AnySUT, describe, is_secret, load_sut, sut_description

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


def kept_options(options: dict[str, str]) -> dict[str, str | None]:
    """``options`` as a trace's meta keeps them: a secret's value left out (``None``)."""
    return {key: None if is_secret(key) else value for key, value in options.items()}


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


def executor_of(
    args: argparse.Namespace,
    config: EvalsConfig,
    recorded: RunMeta | None = None,
    suites: list[str] | None = None,
) -> tuple[str, str, ProcessIsolation | RayExecutor | None]:
    """``--executor`` (a resumed evaluation keeps what it recorded unless told otherwise;
    else ``[tool.evals] executor``) and the isolation: the executor's name, the
    isolation's, and where the SUT runs. Ray actors are processes already:
    ``--isolation process`` and ``--memory-limit`` are refused with ``--executor ray``, as
    are a missing Ray and a cluster address nothing answers at (exit 2, before any run)."""
    executor: str = args.executor or (recorded.executor if recorded else config.executor)
    if executor != "ray":
        if args.ray_address is not None:
            raise UsageError("--ray-address names a Ray cluster: it needs --executor ray")
        return (executor, *isolation_of(args, config, recorded, suites))
    if args.isolation == "process" or args.memory_limit is not None:
        raise UsageError(
            "--executor ray runs the SUT in Ray actors (processes already):"
            " --isolation process and --memory-limit do not apply"
        )
    require_ray()
    ray = RayExecutor(
        _sut_spec(args, config), sut_options(args, config, suites or []), args.ray_address
    )
    ray.refuse_unreachable()  # before any report is written: the last one under the label stays
    return executor, "none", ray


def isolation_of(
    args: argparse.Namespace,
    config: EvalsConfig,
    recorded: RunMeta | None = None,
    suites: list[str] | None = None,
) -> tuple[str, ProcessIsolation | None]:
    """``--isolation`` and ``--memory-limit`` (a resumed evaluation keeps what it recorded
    unless told otherwise): the mode's name, and the worker setup when it is ``process``.
    A memory limit without process isolation is refused (exit 2)."""
    mode: str = args.isolation or (recorded.isolation if recorded else "none")
    limit: int | None = args.memory_limit
    if limit is None and recorded is not None and args.isolation is None:
        limit = recorded.memory_limit_mb
    if mode != "process":
        if args.memory_limit is not None:
            raise UsageError("--memory-limit limits worker processes: it needs --isolation process")
        return mode, None
    options = sut_options(args, config, suites or [])
    return mode, ProcessIsolation(_sut_spec(args, config), options, limit)


def planned(args: argparse.Namespace, config: EvalsConfig, exclude_tags: list[str]) -> Plan:
    """A new evaluation of the cases the flags select."""
    suites, paths, extra = case_files(args, config)
    # The SUT first: a project's checks may register (and declare expect keys) on import.
    sut, sut_name = load_named_sut(args, config, suites)
    # The whole set is validated before any run.
    cases, sources = load_cases_with_sources(
        paths, rules=rules_of(sut), expect_defaults=config.expect_defaults
    )
    selected = select_cases(cases, split=args.split, tags=args.tag, exclude_tags=exclude_tags)
    if not selected and args.command == "stability" and args.tag == [STABILITY_TAG]:
        raise UsageError(
            f"no {STABILITY_TAG}-tagged cases among the selected cases (stability runs only"
            f" cases tagged {STABILITY_TAG!r}; pass --tag to measure others)"
        )
    if not selected:
        raise UsageError(
            "no cases selected (check --suite, --cases, --split, --tag, --exclude-tag)"
        )
    label = label_of(args, suites)
    trials: int = args.trials or args.default_trials
    executor, mode, isolation = executor_of(args, config, suites=suites)
    meta = RunMeta(
        run_id=new_run_id(label),
        label=label,
        command=args.command,
        suites=suites,
        case_files=[str(p) for p in extra],
        split=args.split,
        tags=list(args.tag),
        exclude_tags=sorted(set(exclude_tags)),
        sut=sut_name,
        sut_spec=_sut_spec(args, config),
        sut_options=kept_options(sut_options(args, config, suites)),
        sut_description=sut_description(sut),
        trials=trials,
        concurrency=args.concurrency or DEFAULT_CONCURRENCY,
        timeout_s=args.timeout or DEFAULT_TIMEOUT_S,
        isolation=mode,
        memory_limit_mb=_memory_limit(isolation),
        executor=executor,
        git_revision=git_revision(config.root),
        started=utc_now(),
        planned_runs=len(selected) * trials,
        idle_checks=idle_checks(),
    )
    recipe = SutRecipe(_sut_spec(args, config), sut_options(args, config, suites))
    return Plan(
        sut=sut, cases=selected, meta=meta, sources=sources, workers=isolation, recipe=recipe
    )


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
    executor, mode, isolation = executor_of(args, config, old, old.suites)
    meta = old.model_copy(
        update={
            "finished": None,
            "complete": False,
            "stop_signal": None,
            "finished_runs": len(finished.runs),
            "concurrency": args.concurrency or old.concurrency,
            "timeout_s": args.timeout or old.timeout_s,
            "isolation": mode,
            "memory_limit_mb": _memory_limit(isolation),
            "executor": executor,
            "unstopped_runs": [],
        }
    )
    return Plan(
        sut=sut,
        cases=cases,
        meta=meta,
        sources=sources,
        finished=finished.runs,
        workers=isolation,
        recipe=SutRecipe(_sut_spec(args, config), sut_options(args, config, old.suites)),
    )


def _memory_limit(isolation: ProcessIsolation | RayExecutor | None) -> int | None:
    return isolation.memory_limit_mb if isinstance(isolation, ProcessIsolation) else None


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
