"""cosmic-ray's side of ``scripts/power.py``: its configuration, ``cosmic-ray init``, the
mutants of the session, which of them are not valid Python, and skipping work items
(as cosmic-ray's own filters do: a ``SKIPPED`` result).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import power_mutants as pm
from cosmic_ray.mutating import mutate_code  # type: ignore[import-untyped]
from cosmic_ray.plugins import get_operator  # type: ignore[import-untyped]
from cosmic_ray.work_db import WorkDB  # type: ignore[import-untyped]
from cosmic_ray.work_item import WorkerOutcome, WorkResult  # type: ignore[import-untyped]

MODULE_PATHS = (
    "packages/domain/src/domain",
    "packages/tools/src/tools",
    "packages/agent/src/agent",
    # Not packages/agent-evals: the plug-in is the evaluation's side (the adapter, the run
    # recorder, SupportPilot's case rules and its own checks). A mutant there breaks the
    # instrument, not the agent: on a correct agent it mostly changes nothing the gate
    # can see, and the evaluation's own tests are what must catch it.
)
"""Where cosmic-ray looks for modules to mutate."""
EXCLUDED: dict[str, str] = {
    "packages/agent/src/agent/openai_brain.py": "the model brains: run only with brain=openai",
    "packages/agent/src/agent/provider.py": "maps openai client errors: run only with brain=openai",
    "packages/agent/src/agent/prompts.py": "model prompts: read only by openai_brain",
    "packages/agent/src/agent/settings.py": "model settings: only its defaults run offline",
    "packages/agent/src/agent/usage.py": "token meter: only openai_brain counts into it",
    "packages/agent/src/agent/testing.py": "a test harness around the orchestrator: tests"
    " import it, the SUT never does",
    "packages/tools/src/tools/openai_schema.py": "tool schemas: read only by openai_brain",
    "packages/agent/src/agent/obedient.py": (
        "the deliberately vulnerable path: runs only with screen=off (the injection"
        " matrix's positive control, tested in test_injection_matrix.py), never in a gate"
    ),
    "packages/domain/src/domain/problems.py": (
        "words the one-line problems of an invalid world: the gate refuses such a case"
        " (exit 2) before any run, so no suite can reach it (domain tests cover it)"
    ),
}
"""Modules left out of the figure (no offline suite exercises them), with why."""


def write_config(path: Path, timeout_s: float) -> None:
    """cosmic-ray's configuration: what to mutate, what to leave out, the timeout.

    The test command here is a placeholder: every mutant gets its own (its label), so
    this script hands it to ``mutate_and_test`` itself.
    """
    excluded = ", ".join(f'"{m}"' for m in EXCLUDED)
    modules = ", ".join(f'"{m}"' for m in MODULE_PATHS)
    path.write_text(
        "[cosmic-ray]\n"
        f"module-path = [{modules}]\n"
        f"excluded-modules = [{excluded}]\n"
        f"timeout = {timeout_s}\n"
        'test-command = "python -m evals gate"\n'
        "\n[cosmic-ray.distributor]\n"
        'name = "local"\n',
        encoding="utf-8",
    )


def init_session(snapshot: Path, config: Path, session: Path, timeout_s: float) -> None:
    """Write ``config`` and run ``cosmic-ray init`` in the snapshot (module paths stay
    relative to it)."""
    write_config(config, timeout_s)
    cli = Path(sys.executable).parent / "cosmic-ray"
    command = [str(cli)] if cli.is_file() else [sys.executable, "-m", "cosmic_ray.cli"]
    done = subprocess.run(
        [*command, "init", str(config), str(session)],
        cwd=snapshot,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise pm.PowerError(f"cosmic-ray init failed: {done.stderr.strip()[-500:]}")


def read_mutants(db: WorkDB) -> list[pm.Mutant]:
    """Every (single-mutation) work item of the session."""
    found: list[pm.Mutant] = []
    for item in db.work_items:
        (spec,) = item.mutations
        found.append(
            pm.Mutant(
                job_id=item.job_id,
                path=Path(spec.module_path).as_posix(),
                line=spec.start_pos[0],
                column=spec.start_pos[1],
                end_line=spec.end_pos[0],
                end_column=spec.end_pos[1],
                operator=spec.operator_name,
                occurrence=spec.occurrence,
                definition=spec.definition_name,
            )
        )
    return found


def mutated_source(source: str, spec: Any) -> str | None:
    """The module's text with cosmic-ray's mutation applied (``None``: nothing to mutate)."""
    operator = get_operator(spec.operator_name)(**spec.operator_args)
    with warnings.catch_warnings():  # `x is "ok"` is a mutant, not a problem to print
        warnings.simplefilter("ignore", SyntaxWarning)
        mutated: str | None = mutate_code(source, operator, spec.occurrence)
    return mutated


def invalid_python(
    mutants: Sequence[pm.Mutant], specs: Mapping[str, Any], sources: Mapping[str, str]
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
class Selection:
    """What a run covers: every mutant found, what was dropped, the sample."""

    mutants: list[pm.Mutant]
    """Every mutant cosmic-ray found."""
    annotation_only: set[str]
    """Job ids dropped as annotation-only."""
    invalid: dict[str, str]
    """Job ids dropped as invalid Python, with the compiler's message."""
    candidates: list[pm.Mutant]
    """The mutants the sample is drawn from."""
    sample: list[pm.Mutant]
    """The mutants to run, in id order."""
    specs: dict[str, Any]
    """cosmic-ray's ``MutationSpec`` of every mutant, by job id."""


def select(
    db: WorkDB, snapshot: Path, size: int | None, seed: int, say: Callable[[str], None]
) -> Selection:
    """Drop annotation-only and invalid mutants, draw the sample, and mark every other
    work item of the session skipped (with why)."""
    found = read_mutants(db)
    specs = {item.job_id: item.mutations[0] for item in db.work_items}
    paths = {m.path for m in found}
    sources = {p: (snapshot / p).read_text(encoding="utf-8") for p in paths}
    mutants = pm.with_anchors(found, sources)
    dropped = pm.annotation_only(mutants, sources)
    say(f"{len(mutants)} mutants, {len(dropped)} annotation-only; checking the others compile …")
    invalid = invalid_python([m for m in mutants if m.job_id not in dropped], specs, sources)
    candidates = [m for m in mutants if m.job_id not in dropped and m.job_id not in invalid]
    chosen = pm.sample(candidates, size, seed)
    chosen_ids = {m.job_id for m in chosen}
    skip(db, sorted(dropped), "annotation-only (never evaluated)")
    skip(db, sorted(invalid), "invalid Python")
    skip(db, [m.job_id for m in candidates if m.job_id not in chosen_ids], "not in the sample")
    say(f"{len(invalid)} invalid Python; {len(candidates)} candidates")
    return Selection(mutants, dropped, invalid, candidates, chosen, specs)
