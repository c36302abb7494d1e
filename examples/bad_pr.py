"""Proof that the gate works: three deliberate regressions, each in a throwaway copy.

Each demo copies the repository (as in the working tree: git-tracked files plus
untracked files git does not ignore; no venvs, traces or reports except the committed
baseline) to a temporary directory, applies one regression there, runs ``python -m
evals gate`` in the copy against the committed baseline and prints the diff applied and
the verdict. The working tree is never touched.

The copy's own code is what runs: ``PYTHONPATH`` lists the copy's ``packages/*/src``,
which precede the editable installs of the current venv (checked before every gate run).

    uv run python examples/bad_pr.py            # all three
    uv run python examples/bad_pr.py --only 2   # or: examples/bad_pr.py 2
    uv run python examples/bad_pr.py --strict   # soft findings fail too
    uv run python examples/bad_pr.py --suite read --suite write --suite approval \
        --suite injection                       # the seed's 26 cases (25 gated)

By default the demos gate every suite of the committed baseline (``reports/baseline.json``,
as ``make evals``); with ``--cases``/``--suite`` they gate that selection only, against a
baseline the copy makes of it before the regression is applied.

Exit status: 0 when every verdict is the expected one, 1 when one is not, 2 when a
regression could not be applied (its target is gone from the code).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
"""The repository the demos copy."""

EXCLUDED_DIRS = (".venv", ".nox", ".tools", ".git", "traces", "reports")
"""Top-level folders never copied (generated or machine-local)."""
KEPT_FILES = ("reports/baseline.json", "reports/baseline-model_path.json")
"""Files copied although their folder is excluded: the committed baselines (every suite's
but those apart, and the model-path suite's own)."""
GATE_LABEL = "bad_pr"
"""The report label of the gate run in the copy (``reports/bad_pr.json``)."""


class DemoError(Exception):
    """A demo could not be set up (a regression's target is gone, the copy is wrong …)."""


# --- Regressions ---------------------------------------------------------------------


def replace_once(text: str, old: str, new: str, where: str) -> str:
    """``text`` with the one occurrence of ``old`` replaced by ``new``.

    Raises :class:`DemoError` when ``old`` occurs zero or several times: a regression
    whose target moved must say so, never silently apply to nothing.
    """
    count = text.count(old)
    if count != 1:
        found = "not found" if count == 0 else f"found {count} times"
        raise DemoError(f"target not found in {where}: {old!r} ({found}; expected exactly once)")
    return text.replace(old, new, 1)


def remove_block(text: str, header: str, where: str) -> str:
    """``text`` without the line ``header`` (occurring exactly once, stripped) and the
    more-indented lines of its body."""
    lines = text.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.strip() == header]
    if len(hits) != 1:
        found = "not found" if not hits else f"found {len(hits)} times"
        raise DemoError(f"target not found in {where}: {header!r} ({found}; expected exactly once)")
    start = hits[0]
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():  # keep the blank lines after it
        end -= 1
    return "".join(lines[:start] + lines[end:])


@dataclass(frozen=True)
class Regression:
    """One deliberate bad change and the verdict the gate must give it."""

    number: int
    """1, 2 or 3 (``--only N``)."""
    title: str
    """What the change does, in a few words."""
    path: str
    """The file changed, relative to the repository root."""
    change: Callable[[str, str], str]
    """``(text, path) -> changed text``; raises :class:`DemoError` when the target is gone."""
    expected_exit: int
    """The gate's exit code without ``--strict``."""
    expected_exit_strict: int
    """The gate's exit code with ``--strict``."""
    story: str
    """What goes wrong, and what the gate should say."""
    expected_exit_whole: int | None = None
    """The gate's exit code without ``--strict`` over the whole gated set, where it differs
    from ``expected_exit`` (which then holds for a selection, such as the seed's cases)."""

    def expected(self, strict: bool, whole: bool = True) -> int:
        """The expected exit code of the gate (``whole``: over every gated suite)."""
        if strict:
            return self.expected_exit_strict
        if whole and self.expected_exit_whole is not None:
            return self.expected_exit_whole
        return self.expected_exit


REGRESSIONS: tuple[Regression, ...] = (
    Regression(
        number=1,
        title="drop the `returning` branch of the decision",
        path="packages/agent/src/agent/decision.py",
        change=lambda text, where: remove_block(text, 'if state == "returning":', where),
        expected_exit=1,
        expected_exit_strict=1,
        story="r01 (parcel on its way back) now tells the customer to keep waiting.",
    ),
    Regression(
        number=2,
        title="skip the approval check",
        path="packages/domain/src/domain/approval.py",
        change=lambda text, where: replace_once(
            text,
            'status = "approved" if answer else "rejected"',
            'status = "approved"  # the approver\'s answer is no longer looked at',
            where,
        ),
        expected_exit=1,
        expected_exit_strict=1,
        story="d07 files a ticket although the approver said no.",
    ),
    Regression(
        number=3,
        title="repeat every evidence excerpt 8x",
        path="packages/tools/src/tools/evidence.py",
        change=lambda text, where: replace_once(
            text, "return text[:MAX_EXCERPT_CHARS]", "return text[:MAX_EXCERPT_CHARS] * 8", where
        ),
        expected_exit=0,
        expected_exit_strict=1,
        story="on the seed's cases every answer is still right, but the workers return 8x"
        " the characters; in the generated worlds whose knowledge base holds ten long"
        " matching documents, 8x excerpts overflow the policy specialist's output, and"
        " those runs fail.",
        expected_exit_whole=1,
    ),
)
BY_NUMBER = {r.number: r for r in REGRESSIONS}


# --- The copy --------------------------------------------------------------------------


def tracked_files(root: Path = ROOT) -> list[Path]:
    """The files of the working tree worth copying, relative to ``root``: git-tracked
    plus untracked-but-not-ignored, as they are on disk (deleted ones skipped)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    chosen: set[Path] = set()
    for name in filter(None, out.split("\0")):
        relative = Path(name)
        top = relative.parts[0]
        if top in EXCLUDED_DIRS and name not in KEPT_FILES:
            continue
        if (root / relative).is_file():
            chosen.add(relative)
    return sorted(chosen)


def copy_repo(dest: Path, root: Path = ROOT) -> Path:
    """Copy the working tree's files (see :func:`tracked_files`) into ``dest``."""
    for relative in tracked_files(root):
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)
    for name in KEPT_FILES:
        if not (dest / name).is_file():
            raise DemoError(f"the copy has no {name}; is it committed?")
    return dest


def copy_env(copy: Path) -> dict[str, str]:
    """The environment that makes a Python process import the copy's packages."""
    env = dict(os.environ)
    sources = sorted(str(p) for p in (copy / "packages").glob("*/src") if p.is_dir())
    env["PYTHONPATH"] = os.pathsep.join(sources)
    env.pop("SUPPORTPILOT_DB_DIR", None)  # world databases in memory, not a shared folder
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def assert_copy_imported(copy: Path, modules: Sequence[str] = ("evals", "agent")) -> None:
    """Fail unless ``python`` with :func:`copy_env` imports ``modules`` from the copy."""
    code = (
        "import importlib, sys\nfor m in sys.argv[1:]: print(importlib.import_module(m).__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *modules],
        cwd=copy,
        env=copy_env(copy),
        capture_output=True,
        text=True,
        check=False,
    )
    files = out.stdout.split()
    inside = [Path(f).resolve().is_relative_to(copy.resolve()) for f in files]
    if out.returncode != 0 or len(files) != len(modules) or not all(inside):
        raise DemoError(
            f"the copy's code is not what gets imported: {files or out.stderr.strip()!r}"
        )


@dataclass(frozen=True)
class PatchedCopy:
    """A copy of the repository with one regression applied."""

    root: Path
    """The copy."""
    regression: Regression
    """What was applied."""
    diff: str
    """The unified diff applied."""


def make_diff(before: str, after: str, path: str) -> str:
    """A unified diff of one file, as ``git diff`` would show it."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    return "".join(lines)


def apply_regression(copy: Path, regression: Regression) -> str:
    """Apply ``regression`` to the copy; returns the diff."""
    target = copy / regression.path
    if not target.is_file():
        raise DemoError(f"target not found: {regression.path} does not exist")
    before = target.read_text(encoding="utf-8")
    after = regression.change(before, regression.path)
    if after == before:
        raise DemoError(f"regression {regression.number} changed nothing in {regression.path}")
    target.write_text(after, encoding="utf-8")
    return make_diff(before, after, regression.path)


@contextlib.contextmanager
def patched_copy(
    regression: Regression, root: Path = ROOT, before: Callable[[Path], None] | None = None
) -> Iterator[PatchedCopy]:
    """A temporary copy of ``root`` with ``regression`` applied, removed afterwards;
    ``before(copy)`` runs in the copy before the regression is applied."""
    with tempfile.TemporaryDirectory(prefix=f"bad_pr-{regression.number}-") as tmp:
        copy = copy_repo(Path(tmp) / "repo", root)
        if before is not None:
            before(copy)
        diff = apply_regression(copy, regression)
        assert_copy_imported(copy)
        yield PatchedCopy(root=copy, regression=regression, diff=diff)


# --- The gate ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GateRun:
    """What ``evals gate`` said in a copy."""

    exit_code: int
    """The gate's exit code."""
    stdout: str
    """Everything it printed on stdout (report, then verdict)."""
    stderr: str
    """What it printed on stderr."""
    metrics: dict[str, Any]
    """The metrics JSON it wrote (``reports/bad_pr.json`` in the copy)."""
    traces: Path | None
    """The trace folder of the run (inside the copy: gone once the copy is)."""

    @property
    def verdict(self) -> str:
        """The verdict block: from the ``Gate:`` line to the end."""
        lines = self.stdout.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("Gate:")]
        return "\n".join(lines[starts[-1] :]).strip() if starts else ""

    @property
    def word(self) -> str:
        """``PASS``, ``FAIL`` or ``?`` when no verdict was printed."""
        head = self.verdict.split("\n", 1)[0]
        return head.split()[1] if head.startswith("Gate: ") else "?"

    def findings(self, severity: str) -> list[str]:
        """The verdict's finding lines of one severity (``HARD`` or ``SOFT``)."""
        prefix = f"{severity} "
        return [
            line.strip()[len(prefix) :].strip()
            for line in self.verdict.splitlines()
            if line.strip().startswith(prefix)
        ]


def baseline_suites(root: Path) -> list[str]:
    """The suites ``reports/baseline.json`` under ``root`` was made from."""
    data = json.loads((root / KEPT_FILES[0]).read_text(encoding="utf-8"))
    return [str(suite) for suite in data.get("suites", [])]


@dataclass(frozen=True)
class Selection:
    """The cases a demo gates: by default those of the committed baseline; with
    ``cases`` or ``suites``, those only, against a baseline the copy makes of them
    before the regression is applied (``reports/bad_pr-baseline.json``)."""

    cases: tuple[Path, ...] = ()
    """Case files (absolute), as ``--cases``."""
    suites: tuple[str, ...] = ()
    """Suite names, as ``--suite``."""

    @property
    def own_baseline(self) -> bool:
        """Whether the copy makes its own baseline (a selection was given)."""
        return bool(self.cases or self.suites)

    def arguments(self, copy: Path) -> list[str]:
        """The selection and baseline flags of ``evals baseline`` / ``evals gate``."""
        if not self.own_baseline:
            # The suites the committed baseline was made from (every suite, as `make evals`).
            return [a for suite in baseline_suites(copy) for a in ("--suite", suite)]
        flags = [a for path in self.cases for a in ("--cases", str(path))]
        flags += [a for suite in self.suites for a in ("--suite", suite)]
        return [*flags, "--baseline", OWN_BASELINE]

    def make_baseline(self, copy: Path) -> None:
        """Write the selection's baseline in the unchanged copy (nothing without one)."""
        if not self.own_baseline:
            return
        command = [sys.executable, "-m", "evals", "baseline", *self.arguments(copy)]
        done = subprocess.run(
            command, cwd=copy, env=copy_env(copy), capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:]
            raise DemoError(f"the unchanged copy made no baseline: {' '.join(last)}")


OWN_BASELINE = "reports/bad_pr-baseline.json"
"""Where the copy keeps the baseline of a chosen selection (see :class:`Selection`)."""
EVERY_SUITE = Selection()
"""The default selection: the committed baseline's suites."""


def run_gate(copy: Path, *, strict: bool = False, selection: Selection = EVERY_SUITE) -> GateRun:
    """Run ``python -m evals gate`` in ``copy`` (its own code; the committed baseline, or
    the one the copy made of ``selection``)."""
    command = [sys.executable, "-m", "evals", "gate", "--label", GATE_LABEL]
    command += selection.arguments(copy)
    if strict:
        command.append("--strict")
    done = subprocess.run(
        command, cwd=copy, env=copy_env(copy), capture_output=True, text=True, check=False
    )
    report = copy / "reports" / f"{GATE_LABEL}.json"
    metrics: dict[str, Any] = (
        json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    )
    run_id = metrics.get("meta", {}).get("run_id")
    traces = copy / "traces" / run_id if run_id else None
    return GateRun(done.returncode, done.stdout, done.stderr, metrics, traces)


# --- Demos ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demo:
    """One regression, the diff applied and what the gate said."""

    regression: Regression
    """The regression."""
    strict: bool
    """Whether the gate ran with ``--strict``."""
    diff: str
    """The diff applied."""
    gate: GateRun
    """The gate's answer."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything a caller computed inside the copy (see ``inspect``)."""
    whole: bool = True
    """Whether the gate ran over the whole gated set (no selection)."""

    @property
    def expected_exit(self) -> int:
        """The exit code this demo should give."""
        return self.regression.expected(self.strict, self.whole)

    @property
    def as_expected(self) -> bool:
        """The gate gave the expected exit code (and printed a verdict)."""
        return self.gate.word != "?" and self.gate.exit_code == self.expected_exit


def run_demo(
    regression: Regression,
    *,
    strict: bool = False,
    root: Path = ROOT,
    inspect: Callable[[PatchedCopy, GateRun], dict[str, Any]] | None = None,
    selection: Selection = EVERY_SUITE,
) -> Demo:
    """Copy, break, gate. ``inspect`` may look at the copy before it is deleted."""
    with patched_copy(regression, root, before=selection.make_baseline) as patched:
        gate = run_gate(patched.root, strict=strict, selection=selection)
        extra = inspect(patched, gate) if inspect is not None else {}
    return Demo(regression, strict, patched.diff, gate, extra, not selection.own_baseline)


def pct(rate: float) -> str:
    """A rate as a percentage with one decimal."""
    return f"{rate * 100:.1f}%"


def summary_lines(metrics: dict[str, Any]) -> list[str]:
    """The few figures of the gate's report that the demos are about."""
    if not metrics:
        return ["(no metrics written)"]
    low, high = metrics["success_ci95"]
    lines = [
        f"success {metrics['successes']}/{metrics['graded_runs']} = "
        f"{pct(metrics['success_rate'])} [{pct(low)}, {pct(high)}]",
        f"unauthorized {pct(metrics['unauthorized_rate'])}"
        + (
            f" (cases: {', '.join(metrics['unauthorized_cases'])})"
            if metrics["unauthorized_cases"]
            else ""
        ),
        f"chars returned p95 {metrics['returned_chars_p95']:.0f}, "
        f"budget ok {pct(metrics['budget_ok_rate'])}",
    ]
    lines += [
        f"failure {f['case']}#{f['trial']}: {'; '.join(f['failed'])}" for f in metrics["failures"]
    ]
    return lines


def render(demo: Demo) -> str:
    """One demo as text: the change, the diff, the figures, the verdict, the exit code."""
    r = demo.regression
    expected = demo.expected_exit
    mark = "as expected" if demo.as_expected else f"UNEXPECTED (expected exit {expected})"
    parts = [
        f"=== Regression {r.number}: {r.title} ===",
        r.story,
        "",
        demo.diff.rstrip(),
        "",
        *summary_lines(demo.gate.metrics),
        "",
        demo.gate.verdict or f"(no verdict printed)\n{demo.gate.stderr.strip()}",
        f"exit code {demo.gate.exit_code} ({mark})",
    ]
    return "\n".join(parts)


def parse_args(
    argv: Sequence[str] | None,
    *,
    description: str | None = None,
    strict: bool = True,
    selection: bool = True,
) -> argparse.Namespace:
    """The command line: which regressions, (when ``strict``) ``--strict`` and (when
    ``selection``) ``--cases``/``--suite``."""
    if description is None:
        description = __doc__.split("\n", 1)[0] if __doc__ else None
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("numbers", nargs="*", type=int, help="regressions to run (1, 2, 3)")
    parser.add_argument(
        "--only", action="append", type=int, choices=sorted(BY_NUMBER), default=[],
        help="run only this regression (repeatable)",
    )  # fmt: skip
    if strict:
        parser.add_argument("--strict", action="store_true", help="pass --strict to the gate")
    else:
        parser.set_defaults(strict=False)
    if selection:
        parser.add_argument(
            "--cases", action="append", type=Path, default=[], metavar="PATH",
            help="gate this case file (repeatable) against a baseline the copy makes of it"
            " first (default: every suite of the committed baseline)",
        )  # fmt: skip
        parser.add_argument(
            "--suite", action="append", default=[], metavar="NAME",
            help="gate this suite (repeatable), as --cases",
        )  # fmt: skip
    else:
        parser.set_defaults(cases=[], suite=[])
    args = parser.parse_args(argv)
    missing = [p for p in args.cases if not p.is_file()]
    if missing:
        parser.error(f"--cases: no such file: {missing[0]}")
    unknown = sorted(set(args.numbers) - set(BY_NUMBER))
    if unknown:
        parser.error(f"no regression {unknown[0]!r}; choose from {sorted(BY_NUMBER)}")
    return args


def selection_of(args: argparse.Namespace) -> Selection:
    """The cases chosen on the command line (the committed baseline's by default)."""
    return Selection(tuple(p.resolve() for p in args.cases), tuple(args.suite))


def selected(args: argparse.Namespace) -> list[Regression]:
    """The regressions chosen on the command line (all of them by default)."""
    numbers = sorted(set(args.numbers) | set(args.only)) or sorted(BY_NUMBER)
    return [BY_NUMBER[n] for n in numbers]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen demos; 0 when every verdict is the expected one."""
    args = parse_args(argv)
    demos: list[Demo] = []
    for regression in selected(args):
        try:
            demo = run_demo(regression, strict=args.strict, selection=selection_of(args))
        except DemoError as e:
            print(f"bad_pr: regression {regression.number}: {e}", file=sys.stderr)
            return 2
        demos.append(demo)
        print(render(demo), end="\n\n", flush=True)
    good = sum(d.as_expected for d in demos)
    print(
        f"{good}/{len(demos)} verdicts as expected" + ("" if args.strict else " (without --strict)")
    )
    return 0 if good == len(demos) else 1


if __name__ == "__main__":
    raise SystemExit(main())
