"""The power of the suites: mutate SupportPilot, run the gate on every mutant.

cosmic-ray finds the mutants of the SUT's source (``domain``, ``tools``, ``agent``; the
OpenAI-only modules left out, see ``power_session.EXCLUDED``) in a snapshot of the
working tree: ``cosmic-ray init`` writes its session database. Annotation-only mutants
(under ``from __future__ import annotations`` an annotation is never evaluated) and
mutants that are not valid Python are dropped, then a seeded sample is drawn; the items
not run are marked skipped in the session, as cosmic-ray's own filters do. Each
sampled mutant is applied by cosmic-ray (``mutate_and_test``) in one of ``--jobs``
copies of the snapshot, and its test command is the gate in that copy:

    python -m evals gate --label power-<job id>

with ``PYTHONPATH`` on the copy's ``packages/*/src`` (as ``examples/bad_pr.py`` does),
``SUPPORTPILOT_DB_DIR`` in a temporary folder, and a small ``sh`` wrapper that changes
into the copy, merges stderr into stdout and echoes the gate's exit code (cosmic-ray
keeps only stdout and reduces the code to zero or not). The mutant's status is read
from what the gate printed (see ``power_mutants.classify``); a crash, a refusal
(exit 2) or a timeout is reported apart and never counted as killed.

    uv run --group power python scripts/power.py                     # every mutant
    uv run --group power python scripts/power.py --sample 300 --seed 1
    nox -s power -- --sample 20 --seed 1

Writes reports/power.md, reports/power.json and the session reports/power.sqlite
(``cr-report reports/power.sqlite`` reads it; cosmic-ray counts crashes as killed
there). Progress goes to stderr. Ctrl-C stops after the running mutants and writes a
partial report marked incomplete (exit 130).

Exit status: 0 when the report is written, 2 on bad input or when the unmutated copy
does not pass the gate, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import shutil
import signal
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import power_mutants as pm
import power_report
import power_session as ps
from examples_loader import load_bad_pr

ROOT = Path(__file__).resolve().parents[1]
"""The repository mutated (in copies)."""
EQUIVALENTS = ROOT / "power" / "equivalent.toml"
"""The committed list of mutants judged equivalent."""
INJECTED = (
    "import builtins\n"
    "from cosmic_ray.exceptions import CosmicRayTestingException\n"
    "builtins.CosmicRayTestingException = CosmicRayTestingException\n"
)
"""``sitecustomize`` of every gate run: cosmic-ray's ExceptionReplacer writes
``except CosmicRayTestingException:``, which must name a real class (it used to inject
it the same way) or the mutant would test a NameError instead."""
WRAPPER = (
    'cd "$1" || exit 97\n'
    '"$2" -m evals gate --label "$3" 2>&1\n'
    "code=$?\n"
    f'echo "{pm.EXIT_MARKER}$code"\n'
    'exit "$code"\n'
)
"""The ``sh -c`` script around the gate: its cwd, stderr and exit code (see the docstring)."""


bad_pr = load_bad_pr()


# --- Running one mutant -----------------------------------------------------------------


@dataclass
class Worker:
    """One copy of the snapshot and its own database folder; runs one mutant at a time."""

    copy: Path
    """The copy cosmic-ray mutates in place (and restores)."""
    db_dir: Path
    """``SUPPORTPILOT_DB_DIR`` of its gate runs, emptied after each."""
    inject_dir: Path
    """Holds the ``sitecustomize`` (see ``INJECTED``)."""

    def command(self, label: str) -> str:
        """The test command of one mutant: the gate in this copy."""
        sources = [str(p) for p in sorted((self.copy / "packages").glob("*/src")) if p.is_dir()]
        pythonpath = os.pathsep.join([str(self.inject_dir), *sources])
        return shlex.join(
            [
                "env",
                f"PYTHONPATH={pythonpath}",
                f"SUPPORTPILOT_DB_DIR={self.db_dir}",
                "sh",
                "-c",
                WRAPPER,
                "sh",
                str(self.copy),
                sys.executable,
                label,
            ]
        )

    def run(self, mutant: pm.Mutant, spec: Any, timeout_s: float) -> power_report.Result:
        """Apply ``mutant`` with cosmic-ray, run the gate, classify what it printed."""
        started = time.monotonic()
        source = (self.copy / mutant.path).read_text(encoding="utf-8")
        mutated = ps.mutated_source(source, spec)
        diff = bad_pr.make_diff(source, mutated, mutant.path) if mutated is not None else ""
        local = attrs.evolve(spec, module_path=self.copy / mutant.path)
        work = mutate_and_test([local], self.command(f"power-{mutant.job_id}"), timeout_s)
        for leftover in self.db_dir.iterdir():
            leftover.unlink()
        status: pm.Status
        if work.worker_outcome != WorkerOutcome.NORMAL:
            status, code = "error", None
        else:
            status, code = pm.classify(work.output)
        seconds = time.monotonic() - started
        return power_report.Result(mutant, status, code, seconds, work.output or "", diff, work)


def make_worker(parent: Path, snapshot: Path, number: int, inject_dir: Path) -> Worker:
    """A fresh copy of ``snapshot`` with its own database folder."""
    copy = parent / f"worker-{number}" / "repo"
    shutil.copytree(snapshot, copy)
    db_dir = parent / f"worker-{number}" / "db"
    db_dir.mkdir()
    return Worker(copy, db_dir, inject_dir)


def sanity(worker: Worker, timeout_s: float) -> str | None:
    """``None`` when the unmutated copy imports its own code and passes the gate."""
    try:
        bad_pr.assert_copy_imported(worker.copy, ("evals", "agent", "domain", "tools"))
    except bad_pr.DemoError as e:
        return str(e)
    _, output = run_tests(worker.command("power-sanity"), timeout_s)
    for leftover in worker.db_dir.iterdir():
        leftover.unlink()
    status, code = pm.classify(output)
    if status != "survived":
        tail = "\n".join(output.splitlines()[-12:])
        return f"the unmutated copy does not pass the gate (exit {code}):\n{tail}"
    return None


# --- The run ----------------------------------------------------------------------------


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


def run_all(
    chosen: ps.Selection,
    workers: Sequence[Worker],
    timeout_s: float,
    db: WorkDB,
) -> tuple[list[power_report.Result], bool]:
    """Run ``chosen`` on ``workers`` (one mutant each at a time); (results, complete).

    Ctrl-C stops handing out mutants; the running ones finish (each within its
    timeout) and are kept.
    """
    todo: queue.Queue[pm.Mutant] = queue.Queue()
    for mutant in chosen.sample:
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
                done.put(worker.run(mutant, chosen.specs[mutant.job_id], timeout_s))
            except Exception as e:  # reported by the main thread, which stops the run
                done.put(e)
                return

    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    results: list[power_report.Result] = []
    progress = Progress(total=len(chosen.sample))
    complete = True
    try:
        while len(results) < len(chosen.sample) and any(t.is_alive() for t in threads):
            try:
                item = done.get(timeout=0.5)
            except queue.Empty:
                continue
            if isinstance(item, BaseException):
                raise item
            db.set_result(item.mutant.job_id, item.work)
            results.append(item)
            progress.add(item)
    except KeyboardInterrupt:
        complete = False
        stop.set()
        # Each running mutant ends within its timeout; a second Ctrl-C (or uv forwarding
        # the first) must not abandon them mid-run and lose the partial report.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        say(f"interrupted; waiting for the running mutants (at most {timeout_s:g}s)")
        for t in threads:
            t.join()
        signal.signal(signal.SIGINT, previous)
        while not done.empty():
            item = done.get()
            if not isinstance(item, BaseException):
                db.set_result(item.mutant.job_id, item.work)
                results.append(item)
    while not done.empty():  # finished between the last check and the loop's end
        item = done.get()
        if isinstance(item, BaseException):
            raise item
        db.set_result(item.mutant.job_id, item.work)
        results.append(item)
    complete = complete and len(results) == len(chosen.sample)
    return results, complete


EPILOG = """\
statuses: killed (exit 1 with a `Gate: FAIL` verdict), survived (exit 0, `Gate: PASS`),
crash (a traceback, exit 2, exit 1 without a verdict), timeout, error (cosmic-ray could
not apply the mutation). Annotation-only and invalid-Python mutants are dropped before
sampling. Kill rate = killed / (tried - equivalent); crashes and timeouts count as not
killed. Equivalent mutants: power/equivalent.toml (see docs/power.md).

examples:
  nox -s power -- --sample 300 --seed 1
  uv run --group power python scripts/power.py --sample 20 --seed 1

exit status: 0 report written, 2 bad input or the unmutated copy fails the gate,
130 interrupted (partial report marked incomplete).
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="power",
        description="Mutate SupportPilot with cosmic-ray; the gate is the test. "
        "Writes reports/power.md, .json and .sqlite.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    parser.add_argument(
        "--sample", type=int, metavar="N", help="run a seeded sample of N mutants (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument(
        "--jobs", type=int, default=2, help="mutants in parallel, one copy each (default 2)"
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per gate run (default 60)"
    )
    parser.add_argument(
        "--equivalents",
        type=Path,
        default=EQUIVALENTS,
        help="file of mutants judged equivalent (default power/equivalent.toml)",
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "reports", help="report folder (default reports/)"
    )
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample must be at least 1, got {args.sample}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout:g}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Find, filter, sample, run, report; see the module docstring."""
    args = parse_args(argv)
    started = time.monotonic()
    try:
        equivalents = pm.load_equivalents(args.equivalents)
        with tempfile.TemporaryDirectory(prefix="power-", ignore_cleanup_errors=True) as tmp:
            parent = Path(tmp)
            snapshot = bad_pr.copy_repo(parent / "snapshot", ROOT)
            session = parent / "session.sqlite"
            say("cosmic-ray init …")
            ps.init_session(snapshot, parent / "cosmic-ray.toml", session, args.timeout)
            inject_dir = parent / "inject"
            inject_dir.mkdir()
            (inject_dir / "sitecustomize.py").write_text(INJECTED, encoding="utf-8")
            with use_db(str(session)) as db:
                chosen = ps.select(db, snapshot, args.sample, args.seed, say)
                workers = [make_worker(parent, snapshot, n, inject_dir) for n in range(args.jobs)]
                say(f"running {len(chosen.sample)} ({args.jobs} at a time); sanity check first")
                problem = sanity(workers[0], args.timeout)
                if problem is not None:
                    raise pm.PowerError(problem)
                results, complete = run_all(chosen, workers, args.timeout, db)
            args.out.mkdir(parents=True, exist_ok=True)
            shutil.copy2(session, args.out / "power.sqlite")
    except pm.PowerError as e:
        print(f"power: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("power: interrupted before any mutant ran; no report written", file=sys.stderr)
        return 130
    report = power_report.build(
        results=results,
        selection=chosen,
        equivalents=equivalents,
        excluded=ps.EXCLUDED,
        settings={
            "sample": args.sample,
            "seed": args.seed,
            "jobs": args.jobs,
            "timeout_s": args.timeout,
            "test_command": "python -m evals gate --label power-<job id>",
        },
        complete=complete,
        wall_s=time.monotonic() - started,
    )
    paths = power_report.write(report, args.out)
    print(power_report.summary(report), file=sys.stderr)
    say(f"wrote {', '.join(str(p) for p in paths)}")
    return 0 if complete else 130


def say(text: str) -> None:
    """One progress line on stderr."""
    print(f"power: {text}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
