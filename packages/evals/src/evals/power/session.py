"""cosmic-ray's side of ``evals power``: finding the mutants of the scope in a snapshot,
applying one to a module's text, telling which do not compile, and marking work items
skipped in cosmic-ray's session database (as its own filters do).

Importing this module needs the optional extra ``supportpilot-evals[power]``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosmic_ray.commands import init as cr_init  # type: ignore[import-untyped]
from cosmic_ray.modules import find_modules  # type: ignore[import-untyped]
from cosmic_ray.mutating import mutate_code  # type: ignore[import-untyped]
from cosmic_ray.plugins import get_operator  # type: ignore[import-untyped]
from cosmic_ray.work_db import WorkDB  # type: ignore[import-untyped]
from cosmic_ray.work_item import WorkerOutcome, WorkResult  # type: ignore[import-untyped]

from evals.power import operators
from evals.power.mutants import Mutant, annotation_only, with_anchors
from evals.power.sampling import Scope

operators.register()


def init_session(db: WorkDB, snapshot: Path, scope: Scope) -> None:
    """Every mutant of every module under the scope's paths (the excluded ones too, so
    the report can say what share was left out) into the session ``db``."""
    modules = sorted(find_modules([snapshot / p for p in scope.paths]))
    modules = [m for m in modules if "__pycache__" not in Path(m).parts]
    cr_init(modules, db, {})


def read_mutants(db: WorkDB, root: Path | None = None) -> tuple[list[Mutant], dict[str, Any]]:
    """Every (single-mutation) work item of the session, paths relative to ``root`` (as
    stored when ``None``), and cosmic-ray's ``MutationSpec`` of each, by job id."""
    found: list[Mutant] = []
    specs: dict[str, Any] = {}
    for item in db.work_items:
        (spec,) = item.mutations
        path = Path(spec.module_path)
        if root is not None and path.is_absolute():
            path = path.relative_to(root)
        found.append(
            Mutant(
                job_id=item.job_id,
                path=path.as_posix(),
                line=spec.start_pos[0],
                column=spec.start_pos[1],
                end_line=spec.end_pos[0],
                end_column=spec.end_pos[1],
                operator=spec.operator_name,
                occurrence=spec.occurrence,
                definition=spec.definition_name,
            )
        )
        specs[item.job_id] = spec
    return found, specs


def mutated_source(source: str, spec: Any) -> str | None:
    """The module's text with cosmic-ray's mutation applied (``None``: nothing to mutate)."""
    operator = get_operator(spec.operator_name)(**spec.operator_args)
    with warnings.catch_warnings():  # `x is "ok"` is a mutant, not a problem to print
        warnings.simplefilter("ignore", SyntaxWarning)
        mutated: str | None = mutate_code(source, operator, spec.occurrence)
    return mutated


def invalid_python(
    mutants: Sequence[Mutant], specs: Mapping[str, Any], sources: Mapping[str, str]
) -> dict[str, str]:
    """The mutants whose mutated module does not compile, by job id, with the error.

    cosmic-ray reads ``**kwargs`` and ``*args`` as binary operators and writes
    ``^kwargs``: not a mutant of the program, so dropped before sampling.
    """
    found: dict[str, str] = {}
    for m in mutants:
        mutated = mutated_source(sources[m.path], specs[m.job_id])
        if mutated is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                compile(mutated, m.path, "exec")
        except SyntaxError as e:
            found[m.job_id] = f"{e.msg} (line {e.lineno})"
    return found


def skip(db: WorkDB, job_ids: Sequence[str], why: str) -> None:
    """Mark work items skipped, as cosmic-ray's filters do."""
    if job_ids:
        db.set_multiple_results(
            list(job_ids), WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED)
        )


@dataclass(frozen=True)
class Population:
    """Every mutant found, and what was dropped or left out before sampling."""

    mutants: list[Mutant]
    """Every mutant cosmic-ray found, anchored, in file order."""
    annotation_only: set[str]
    """Job ids dropped as annotation-only."""
    invalid: dict[str, str]
    """Job ids dropped as invalid Python, with the compiler's message."""
    out_of_scope: dict[str, str]
    """Job ids of valid mutants in an excluded module -> the exclusion they fall under."""
    candidates: list[Mutant]
    """The mutants a sample is drawn from: valid, not annotation-only, in scope."""
    specs: dict[str, Any]
    """cosmic-ray's ``MutationSpec`` of every mutant, by job id."""


def population(db: WorkDB, snapshot: Path, scope: Scope, say: Callable[[str], None]) -> Population:
    """Read the session's mutants; drop annotation-only and invalid ones, set the excluded
    modules' apart."""
    found, specs = read_mutants(db, snapshot)
    paths = {m.path for m in found}
    sources = {p: (snapshot / p).read_text(encoding="utf-8") for p in paths}
    mutants = with_anchors(found, sources)
    dropped = annotation_only(mutants, sources)
    say(f"{len(mutants)} mutants, {len(dropped)} annotation-only; checking the others compile …")
    invalid = invalid_python([m for m in mutants if m.job_id not in dropped], specs, sources)
    valid = [m for m in mutants if m.job_id not in dropped and m.job_id not in invalid]
    out: dict[str, str] = {}
    for m in valid:
        exclusion = scope.excluded(m.path)
        if exclusion is not None:
            out[m.job_id] = exclusion
    candidates = [m for m in valid if m.job_id not in out]
    say(f"{len(invalid)} invalid Python; {len(out)} out of scope; {len(candidates)} candidates")
    return Population(mutants, dropped, invalid, out, candidates, specs)


def mark_unsampled(db: WorkDB, pop: Population, sample: Sequence[Mutant]) -> None:
    """Every work item that will not run, marked skipped with why."""
    chosen = {m.job_id for m in sample}
    skip(db, sorted(pop.annotation_only), "annotation-only (never evaluated)")
    skip(db, sorted(pop.invalid), "invalid Python")
    skip(db, sorted(pop.out_of_scope), "out of scope")
    skip(db, [m.job_id for m in pop.candidates if m.job_id not in chosen], "not in the sample")
