"""Traces as the source of truth: a report rebuilt from a trace folder, and an
interrupted evaluation resumed where it stopped.

A trace folder holds everything a report needs: ``meta.json`` names the cases (suites,
case files, split, tags), the SUT and the trials; ``runs.jsonl`` every finished run with
its checks' verdicts. The runs are not graded again: a rebuilt report says what the
original said. The cases are loaded again from the files ``meta.json`` names (a record
keeps no split or tags), so those files must still hold the same cases.

A process killed in the middle of a write may leave half a line at the end of
``runs.jsonl``: that run did not finish, so it is left out (and cut off before a resumed
evaluation appends to the file). Anything else that is not a trace record is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from evals.cases.case_file import CaseSource
from evals.cases.loader import ANY_EXPECTATION, load_cases_with_sources
from evals.cases.vocabulary import CaseRules
from evals.config import EvalsConfig
from evals.errors import TraceError
from evals.execution.runner import select_cases
from evals.io.json_files import first_problem
from evals.log.traces import META_FILE, RUNS_FILE, RunMeta, TraceRecord, read_meta, trace_lines
from evals.model.case import Case
from evals.model.result import RunResult, shared_verdict

Pair = tuple[str, int]
"""A run's place: (case id, trial)."""


@dataclass(frozen=True)
class Finished:
    """The runs a trace folder holds, graded as they were."""

    runs: dict[Pair, RunResult]
    """Every finished run by (case id, trial); a pair traced twice counts once (the first)."""
    whole_bytes: int
    """The length of ``runs.jsonl`` up to its last whole record (a torn line after it)."""


def load_meta(folder: Path) -> RunMeta:
    """A trace folder's ``meta.json``; :class:`TraceError` (one line) when missing or bad."""
    path = folder / META_FILE
    if not path.exists() and not path.is_symlink():
        raise TraceError(folder, f"not a trace folder (no {META_FILE})")
    try:
        meta = read_meta(folder)  # read as hostile input: TraceError naming the problem
    except ValidationError as e:
        raise TraceError(path, f"not a trace meta: {first_problem(e)}") from e
    if meta.run_id and meta.run_id != folder.name:
        # A copied or renamed folder: a resume would append to the folder it names.
        raise TraceError(
            path,
            f"run_id: {meta.run_id!r} is not this folder's name {folder.name!r}"
            " (a copied or renamed trace folder is not the evaluation it records)",
        )
    return meta


def cases_of(
    meta: RunMeta,
    config: EvalsConfig,
    *,
    graded_here: bool = True,
    rules: CaseRules | None = None,
) -> tuple[list[Case], dict[str, CaseSource]]:
    """The cases an evaluation selected, loaded again from the files its meta names, and
    where each was found (file, line). ``graded_here=False`` (a report rebuilt from the
    trace): their ``expect`` keys are not checked, since the checks that read them graded
    the runs already and may be a plug-in this process never imported. ``rules``: the
    vocabulary of the SUT that runs them (a resumed evaluation). The project's default
    expectations are filled in as when they were first loaded."""
    paths = [config.suite_path(s) for s in meta.suites] + [Path(f) for f in meta.case_files]
    keys = None if graded_here else ANY_EXPECTATION
    cases, sources = load_cases_with_sources(
        paths, expect_keys=keys, rules=rules, expect_defaults=config.expect_defaults
    )
    selected = select_cases(cases, split=meta.split, tags=meta.tags, exclude_tags=meta.exclude_tags)
    return selected, sources


def read_finished(folder: Path, cases: Sequence[Case], trials: int) -> Finished:
    """The finished runs of a trace folder, for ``cases`` x ``trials``.

    Raises :class:`TraceError` naming file and line for a record that is not one, or
    whose case or trial is not among those given (the case files changed)."""
    path = folder / RUNS_FILE
    by_id = {case.id: case for case in cases}
    runs: dict[Pair, RunResult] = {}
    whole = 0
    for line in trace_lines(folder):
        whole = line.end
        record = _record(path, line.number, line.text)
        case = by_id.get(record.case_id)
        if case is None or not 0 <= record.trial < trials:
            raise TraceError(
                path,
                f"line {line.number}: run {record.case_id!r}#{record.trial} is not among"
                f" the {len(cases)} cases x {trials} trials of {META_FILE}"
                " (did the case files change?)",
            )
        pair = (record.case_id, record.trial)
        if pair not in runs:
            # Verdicts read back are new objects: shared again, as grading shares them, or
            # a long trace's report holds every run's every verdict (~30 KB a run).
            checks = [shared_verdict(check) for check in record.checks]
            runs[pair] = RunResult.graded(case, record.run, checks)
    return Finished(runs=runs, whole_bytes=whole)


def _record(path: Path, number: int, line: bytes) -> TraceRecord:
    try:
        return TraceRecord.model_validate_json(line)
    except ValidationError as e:
        raise TraceError(path, f"line {number}: not a trace record: {first_problem(e)}") from e


def in_order(
    cases: Sequence[Case], trials: int, runs: dict[Pair, RunResult]
) -> tuple[RunResult, ...]:
    """The runs in report order: case order, then trial."""
    return tuple(
        runs[(case.id, trial)]
        for case in cases
        for trial in range(trials)
        if (case.id, trial) in runs
    )


def rebuild(folder: Path, config: EvalsConfig) -> tuple[tuple[RunResult, ...], RunMeta]:
    """The results and meta of the evaluation traced in ``folder``, for a report."""
    meta = load_meta(folder)
    cases, _ = cases_of(meta, config, graded_here=False)
    finished = read_finished(folder, cases, meta.trials)
    results = in_order(cases, meta.trials, finished.runs)
    complete = meta.complete and len(results) == meta.planned_runs
    return results, meta.model_copy(update={"finished_runs": len(results), "complete": complete})


def cut_torn_tail(folder: Path, finished: Finished) -> None:
    """Cut ``runs.jsonl`` after its last whole record, so appended records start on a
    line of their own."""
    path = folder / RUNS_FILE
    if path.is_file() and path.stat().st_size > finished.whole_bytes:
        with path.open("r+b") as f:
            f.truncate(finished.whole_bytes)
