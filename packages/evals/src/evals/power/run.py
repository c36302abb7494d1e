"""Running ``evals power``: copy the project, find and sample the mutants, judge each with
the project's test command in a copy of its own, write the report.

Each worker owns one copy of a snapshot of the project (its git-tracked and
untracked-but-not-ignored files, taken once at the start so every mutant sees the same
code) and one scratch folder. cosmic-ray applies a mutant in the worker's copy
(``mutate_and_test``) and runs the test command there through a small ``sh`` wrapper that
changes into the copy, merges stderr into stdout and echoes the command's exit code
(cosmic-ray keeps only stdout, and only "zero or not"). ``PYTHONPATH`` starts with a
``sitecustomize`` folder (cosmic-ray's exception operator writes ``except
CosmicRayTestingException:``, which must name a real class) and the copy's
``pythonpath`` entries, so the copy's code is what runs; the sanity run proves it.

Importing this module needs the optional extra ``supportpilot-evals[power]``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import queue
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
from cosmic_ray.mutating import mutate_and_test  # type: ignore[import-untyped]
from cosmic_ray.testing import run_tests  # type: ignore[import-untyped]
from cosmic_ray.work_db import WorkDB, use_db  # type: ignore[import-untyped]
from cosmic_ray.work_item import WorkerOutcome  # type: ignore[import-untyped]

from evals.config import git_revision, load_config
from evals.execution.stop_signals import STOP_SIGNALS
from evals.power import report as power_report
from evals.power import session
from evals.power.config import PowerConfig, describe, expand, power_config
from evals.power.equivalents import load_equivalents
from evals.power.mutants import EXIT_MARKER, Mutant, PowerError, Status, classify
from evals.power.premises import Project, check_all, load_gated_cases
from evals.power.sampling import Drawn, Purpose, choose, entry_for, load_ledger, replay

INJECTED = (
    "import builtins\n"
    "from cosmic_ray.exceptions import CosmicRayTestingException\n"
    "builtins.CosmicRayTestingException = CosmicRayTestingException\n"
)
"""``sitecustomize`` of every test-command run (see the module docstring)."""
WRAPPER = (
    f'cd "$1" || exit 97\nshift\n"$@" 2>&1\ncode=$?\necho "{EXIT_MARKER}$code"\nexit "$code"\n'
)
"""The ``sh -c`` script around the test command: its cwd, stderr and exit code."""
SKIPPED_DIRS = frozenset({".git", ".venv", ".nox", "__pycache__", ".mypy_cache", ".ruff_cache"})


def say(text: str) -> None:
    """One progress line on stderr."""
    print(f"power: {text}", file=sys.stderr, flush=True)


# --- The copy ------------------------------------------------------------------------------


def project_files(root: Path) -> list[Path]:
    """The files worth copying, relative to ``root``: git-tracked plus untracked but not
    ignored, as they are on disk; outside a git checkout every file but caches and
    virtualenvs."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.decode("utf-8")
        names = [Path(n) for n in out.split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = [
            p.relative_to(root)
            for p in root.rglob("*")
            if p.is_file() and not SKIPPED_DIRS & set(p.relative_to(root).parts)
        ]
    return sorted(n for n in set(names) if (root / n).is_file())


def copy_project(root: Path, dest: Path) -> Path:
    """Copy :func:`project_files` of ``root`` into ``dest``."""
    for relative in project_files(root):
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)
    dest.mkdir(parents=True, exist_ok=True)
    return dest


def make_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file, as ``git diff`` shows it."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


# --- Running one mutant --------------------------------------------------------------------


@dataclass
class Worker:
    """One copy of the snapshot and its own scratch folder; one mutant at a time."""

    copy: Path
    """The copy cosmic-ray mutates in place (and restores)."""
    scratch: Path
    """The folder ``scratch_env`` variables name, emptied after each run."""
    inject_dir: Path
    """Holds the ``sitecustomize``."""
    config: PowerConfig
    """What to run."""

    def pythonpath(self) -> list[Path]:
        """The copy's ``pythonpath`` entries, expanded."""
        found: list[Path] = []
        for entry in self.config.pythonpath:
            matches = (
                sorted(self.copy.glob(entry))
                if any(c in entry for c in "*?[")
                else [self.copy / entry]
            )
            found += [p for p in matches if p.is_dir()]
        return found

    def env(self) -> dict[str, str]:
        """The variables set for the test command: ``PYTHONPATH`` is the sitecustomize
        folder, the copy's ``pythonpath`` entries, then whatever it already held (so the
        test command finds the same tools as this process, after the copy's own code)."""
        inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        paths = [str(self.inject_dir), *(str(p) for p in self.pythonpath()), *inherited]
        variables = {"PYTHONPATH": os.pathsep.join(paths), "PYTHONDONTWRITEBYTECODE": "1"}
        variables.update({name: str(self.scratch) for name in self.config.scratch_env})
        return variables

    def command(self, job: str) -> str:
        """The test command of one mutant, as the string cosmic-ray splits and runs."""
        inner = expand(self.config.test_command, {"python": sys.executable, "job": job})
        assigned = [f"{k}={v}" for k, v in self.env().items()]
        return shlex.join(["env", *assigned, "sh", "-c", WRAPPER, "sh", str(self.copy), *inner])

    def clean(self) -> None:
        """Empty the scratch folder."""
        for leftover in self.scratch.iterdir():
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)

    def run(self, mutant: Mutant, spec: Any, timeout_s: float) -> power_report.Result:
        """Apply ``mutant`` with cosmic-ray, run the test command, classify its output."""
        started = time.monotonic()
        source = (self.copy / mutant.path).read_text(encoding="utf-8")
        mutated = session.mutated_source(source, spec)
        diff = make_diff(source, mutated, mutant.path) if mutated is not None else ""
        local = attrs.evolve(spec, module_path=self.copy / mutant.path)
        work = mutate_and_test([local], self.command(mutant.job_id), timeout_s)
        self.clean()
        status: Status
        code: int | None
        if work.worker_outcome != WorkerOutcome.NORMAL:
            status, code = "error", None
        else:
            status, code = classify(work.output)
        seconds = time.monotonic() - started
        return power_report.Result(mutant, status, code, seconds, work.output or "", diff, work)

    def module_names(self) -> list[str]:
        """The importable names of the scope's paths, by the copy's ``pythonpath`` (a path
        that is itself a ``pythonpath`` folder stands for the modules directly in it)."""
        bases = self.pythonpath()
        names: list[str] = []
        for path in self.config.scope.paths:
            target = self.copy / path
            if target in bases:
                names += sorted(
                    p.stem if p.is_file() else p.name
                    for p in target.iterdir()
                    if (p.suffix == ".py" and p.is_file()) or (p / "__init__.py").is_file()
                )
                continue
            base = next((b for b in bases if target.is_relative_to(b)), None)
            if base is None:
                raise PowerError(
                    f"{self.config.source}: [tool.evals.power] paths: {path!r} is under none of"
                    " the pythonpath entries, so nothing proves the copy's code is what runs"
                )
            parts = list(target.relative_to(base).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
        return names

    def sanity(self, timeout_s: float) -> str | None:
        """``None`` when the copy's code is what gets imported and the unmutated copy
        passes; else the problem."""
        names = self.module_names()
        probe = (
            "import importlib, sys\n"
            "for m in sys.argv[1:]: print(importlib.import_module(m).__file__)"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe, *names],
            cwd=self.copy,
            env={**os.environ, **self.env()},
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        files = done.stdout.split()
        inside = [Path(f).resolve().is_relative_to(self.copy.resolve()) for f in files]
        if done.returncode != 0 or len(files) != len(names) or not all(inside):
            problem = files or done.stderr.strip().splitlines()[-1:]
            return f"the copy's code is not what gets imported: {problem!r}"
        _, output = run_tests(self.command("sanity"), timeout_s)
        self.clean()
        status, code = classify(output)
        if status != "survived":
            tail = "\n".join((output or "").splitlines()[-12:])
            return f"the unmutated copy does not pass its test command (exit {code}):\n{tail}"
        return None


def make_worker(
    parent: Path, snapshot: Path, number: int, inject: Path, config: PowerConfig
) -> Worker:
    """A fresh copy of ``snapshot`` with its own scratch folder."""
    copy = parent / f"worker-{number}" / "project"
    shutil.copytree(snapshot, copy)
    scratch = parent / f"worker-{number}" / "scratch"
    scratch.mkdir()
    return Worker(copy, scratch, inject, config)


# --- The run -------------------------------------------------------------------------------


@dataclass
class Progress:
    """Counts so far, printed on stderr after each mutant."""

    total: int
    counts: dict[str, int] = field(default_factory=dict)
    done: int = 0

    def add(self, result: power_report.Result) -> None:
        self.done += 1
        self.counts[result.status] = self.counts.get(result.status, 0) + 1
        so_far = ", ".join(f"{s} {self.counts.get(s, 0)}" for s in ("killed", "survived"))
        others = ", ".join(
            f"{s} {n}" for s, n in self.counts.items() if s not in ("killed", "survived")
        )
        print(
            f"[{self.done}/{self.total}] {so_far}{', ' + others if others else ''}"
            f"  {result.mutant.id}: {result.status} ({result.seconds:.1f}s)",
            file=sys.stderr,
            flush=True,
        )


def run_order(sample: Sequence[Mutant], seed: int | None) -> list[Mutant]:
    """The order the sample runs in: shuffled by its seed (the same every time), so a run
    stopped part way leaves a random part of the sample judged, not the first modules in
    file order."""
    order = list(sample)
    random.Random(f"run-order:{seed}").shuffle(order)
    return order


def _interrupted(signum: int, frame: object) -> None:
    """A stop signal, as the Ctrl-C it stands for."""
    raise KeyboardInterrupt


def run_all(
    sample: Sequence[Mutant],
    specs: dict[str, Any],
    workers: Sequence[Worker],
    timeout_s: float,
    db: WorkDB,
) -> tuple[list[power_report.Result], bool]:
    """Run ``sample`` on ``workers`` (one mutant each at a time); (results, complete).

    Ctrl-C or SIGTERM stops handing out mutants; the running ones finish (each within its
    timeout) and are kept; a second signal is ignored until they have.
    """
    todo: queue.Queue[Mutant] = queue.Queue()
    for mutant in sample:
        todo.put(mutant)
    done: queue.Queue[power_report.Result | BaseException] = queue.Queue()
    stop = threading.Event()

    def work(worker: Worker) -> None:
        while not stop.is_set():
            try:
                mutant = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put(worker.run(mutant, specs[mutant.job_id], timeout_s))
            except Exception as e:  # reported by the main thread, which stops the run
                done.put(e)
                return

    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    results: list[power_report.Result] = []
    progress = Progress(total=len(sample))

    def take(item: power_report.Result | BaseException) -> None:
        if isinstance(item, BaseException):
            raise item
        db.set_result(item.mutant.job_id, item.work)
        results.append(item)

    complete = True
    # Ctrl-C and SIGTERM (what CI runners, `timeout` and container stops send) both stop
    # the run and keep what finished; set here, so a run started in the background, whose
    # shell left SIGINT ignored, still stops when asked.
    previous = {signum: signal.signal(signum, _interrupted) for signum in STOP_SIGNALS}
    try:
        while len(results) < len(sample) and any(t.is_alive() for t in threads):
            try:
                item = done.get(timeout=0.5)
            except queue.Empty:
                continue
            take(item)
            progress.add(results[-1])
    except KeyboardInterrupt:
        complete = False
        stop.set()
        for signum in STOP_SIGNALS:  # a second one waits for the running mutants too
            signal.signal(signum, signal.SIG_IGN)
        say(f"interrupted; waiting for the running mutants (at most {timeout_s:g}s)")
        for t in threads:
            t.join()
        while not done.empty():
            item = done.get()
            if not isinstance(item, BaseException):
                take(item)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    while not done.empty():  # finished between the last check and the loop's end
        take(done.get())
    complete = complete and len(results) == len(sample)
    return results, complete


def _draw_lines(drawn: Drawn) -> list[str]:
    lines = [
        f"{drawn.purpose} sample: seed {drawn.seed}, {len(drawn.sample)} of"
        f" {len(drawn.population)} candidates"
        + (" (those no earlier sample held)" if drawn.fresh else "")
    ]
    for e in drawn.earlier:
        lines.append(
            f"  earlier {e.entry.describe()}: {e.shared} shared"
            + ("; same seed" if e.same_seed else "")
        )
    lines.append("  reused: " + ("yes" if drawn.reused else "no"))
    return lines


def main(args: argparse.Namespace) -> int:
    """``evals power``: see :mod:`evals.power` and the command's ``--help``."""
    started = time.monotonic()
    if args.all and args.purpose is not None:
        raise PowerError(
            f"--all is a purpose of its own (the whole population): drop --purpose {args.purpose}"
        )
    if args.replay is not None and args.purpose not in (None, "tune"):
        raise PowerError(
            "--replay runs an earlier sample again, so its figure is a tuning one: drop"
            f" --purpose {args.purpose} (a held-out sample is drawn fresh with --sample N)"
        )
    if args.replay is not None and args.seed is not None:
        raise PowerError("--replay names the sample by its seed: drop --seed")
    if args.fresh and (args.all or args.replay is not None or args.purpose == "holdout"):
        raise PowerError(
            "--fresh draws a tuning sample from the mutants no earlier sample holds (a"
            " held-out sample always is): use it with --sample N and no --purpose holdout,"
            " --all or --replay"
        )
    config = power_config(load_config(file=args.config))
    timeout_s: float = args.timeout or config.timeout_s
    ledger_path: Path = (args.ledger or config.ledger).resolve()
    equivalents_path: Path = (args.equivalents or config.equivalents).resolve()
    equivalents = load_equivalents(equivalents_path)
    ledger = load_ledger(ledger_path)
    out: Path = (args.out or config.reports_dir).resolve()
    label: str = args.label or config.label
    purpose: Purpose = "all" if args.all else (args.purpose or "tune")
    revision = git_revision(config.root)
    with tempfile.TemporaryDirectory(prefix="evals-power-", ignore_cleanup_errors=True) as tmp:
        parent = Path(tmp)
        snapshot = copy_project(config.root, parent / "snapshot")
        session_file = parent / "session.sqlite"
        say("finding mutants (cosmic-ray) …")
        with use_db(str(session_file)) as db:
            session.init_session(db, snapshot, config.scope)
            pop = session.population(db, snapshot, config.scope, say)
            if args.replay is not None:
                drawn = replay(pop.candidates, ledger, args.replay)
            else:
                drawn = choose(
                    pop.candidates,
                    ledger,
                    purpose=purpose,
                    size=args.sample,
                    seed=args.seed,
                    fresh=args.fresh,
                )
            for line in _draw_lines(drawn):
                say(line)
            if args.dry_run:
                for m in drawn.sample:
                    print(m.id)
                return 0
            session.mark_unsampled(db, pop, drawn.sample)
            inject = parent / "inject"
            inject.mkdir()
            (inject / "sitecustomize.py").write_text(INJECTED, encoding="utf-8")
            workers = [make_worker(parent, snapshot, n, inject, config) for n in range(args.jobs)]
            say(f"running {len(drawn.sample)} ({args.jobs} at a time); sanity check first")
            problem = workers[0].sanity(timeout_s)
            if problem is not None:
                raise PowerError(problem)
            entry = entry_for(drawn, config.scope, revision=revision, note=args.note or "")
            earlier_digests = ledger.used(pop.candidates)
            ledger.record(entry, config.scope)
            say(f"recorded in {ledger_path}: {entry.describe()}")
            order = run_order(drawn.sample, drawn.seed)
            results, complete = run_all(order, pop.specs, workers, timeout_s, db)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy2(session_file, out / f"{label}.sqlite")
        project = Project(
            root=snapshot,
            call_sites=[snapshot / p.relative_to(config.root) for p in config.call_site_files()],
            gated_cases=load_gated_cases(snapshot / config.cases_dir.relative_to(config.root))
            if config.cases_dir.is_relative_to(config.root)
            else load_gated_cases(config.cases_dir),
        )
        premises = check_all(equivalents, project)
    out_of_scope: dict[str, int] = {}
    for exclusion in pop.out_of_scope.values():
        out_of_scope[exclusion] = out_of_scope.get(exclusion, 0) + 1
    dropped = power_report.Dropped(
        mutants_found=len(pop.mutants),
        annotation_only=len(pop.annotation_only),
        invalid=[
            {"id": m.id, "error": pop.invalid[m.job_id]}
            for m in pop.mutants
            if m.job_id in pop.invalid
        ],
        out_of_scope=out_of_scope,
        candidates=len(pop.candidates),
        anchors=frozenset(m.anchor for m in pop.mutants),
    )
    report = power_report.build(
        results=results,
        drawn=drawn,
        dropped=dropped,
        equivalents=equivalents,
        premises=premises,
        scope=describe(config),
        ledger={
            "path": str(ledger_path),
            "recorded": True,
            "entry": entry.model_dump(mode="json", exclude={"mutants"}),
            "earlier_digests": sorted(earlier_digests),
        },
        settings={
            "purpose": purpose,
            "sample": drawn.size,
            "replay": args.replay,
            "seed": drawn.seed,
            "jobs": args.jobs,
            "timeout_s": timeout_s,
            "revision": revision,
            "equivalents": str(equivalents_path),
        },
        complete=complete,
        wall_s=time.monotonic() - started,
    )
    paths = power_report.write(report, out, label)
    print(power_report.summary(report), file=sys.stderr)
    say(f"wrote {', '.join(str(p) for p in paths)} and {out / (label + '.sqlite')}")
    return 0 if complete else 130
