"""Hostile-use measurements of the CLI (issues 13 and 24's acceptance), each in real
processes.

Four measurements, each printing a table and exiting 1 when anything went wrong:

- ``concurrent``: N pairs of ``evals run`` and ``evals gate`` started together, writing
  reports under the same label into the same folder. Fine when every process exits as
  documented (run 0, gate 0) and every report file is whole: the JSON parses and holds
  one evaluation, the JUnit XML parses, the Markdown holds one report and at most one
  gate verdict.
- ``interrupt``: an evaluation stopped at a random moment by SIGINT, SIGTERM or SIGKILL,
  then finished with ``evals run --resume``. Fine when no run finished before the stop
  is run again, exactly the missing (case, trial) pairs are, and the final report equals
  an uninterrupted run's (latency and the meta aside).
- ``corrupt``: the committed baseline and gate config, each damaged one way (a NaN
  rate, a typo'd key, a verdict that does not parse …), given to ``evals gate``. Fine
  when every one exits 2 with one line on stderr and no verdict.
- ``hostile``: each attack of issue 24 mounted as an attacker would, through the real
  ``evals`` command in a fresh copy of a throwaway project (never this repository's
  reports, cases or traces): a SUT module that, when built, patches the verdict, forces
  exit status 0 or prints a PASS of its own while failing every case; one that rewrites
  the baseline, the gate config or the suite while it runs; one reporting NaN, infinite
  or negative numbers; crafted trace folders (a label ``baseline``, ``../cases/gate``,
  ``../../x``, a run id that is not the folder's name) and ``--resume ""``; two
  ``--resume`` of one interrupted run at once; a FIFO and ``/dev/zero`` as every input
  file, named or found; ``--executor ray`` at an address nothing answers at; a gate
  config holding ``hard`` twice, ``--out cases --label gate``, ``evals judge --json`` a
  folder. Fine when each ends with its documented exit code, its last stderr line alone
  names the problem (for a gate, stdout's verdict is FAIL and no PASS is printed; for a
  run, one failure line per run names the field), no traceback, and nothing lost: every
  file but what the command may write is byte-identical afterwards, every (case, trial)
  pair traced once. A positive control judges the rigging SUT in the process that built
  it (the library), where it does rig the verdict.

    uv run python -m devtools.reliability concurrent --pairs 100
    uv run python -m devtools.reliability interrupt --trials 9 --seed 1
    uv run python -m devtools.reliability corrupt
    uv run python -m devtools.reliability hostile [--only WORDS]
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtools import REPO_ROOT

ROOT = REPO_ROOT
EVALS = (sys.executable, "-m", "evals")
DEADLINE_S = 300.0
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}
VOLATILE = ("latency_ms_p50", "latency_ms_p95", "meta")
"""Report keys that legitimately differ between two evaluations of the same runs."""


def evals(*args: str, folder: Path) -> subprocess.Popen[str]:
    """Start ``evals`` in the repository with reports and traces under ``folder``."""
    return subprocess.Popen(
        [*EVALS, *args, "--out", str(folder / "reports"), "--traces", str(folder / "traces")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=DEADLINE_S)
    return process.returncode, out, err


# --- concurrent ------------------------------------------------------------------------


def whole_reports(reports: Path, label: str) -> str | None:
    """Why the reports under ``label`` are not whole, or ``None``."""
    try:
        data = json.loads((reports / f"{label}.json").read_text(encoding="utf-8"))
        ET.parse(reports / f"{label}.junit.xml")
        markdown = (reports / f"{label}.md").read_text(encoding="utf-8")
    except (OSError, ValueError, ET.ParseError) as e:
        return f"{type(e).__name__}: {e}"
    if not isinstance(data, dict) or "meta" not in data:
        return "the JSON is not one report"
    if markdown.count("## Evals: ") != 1:
        return f"{markdown.count('## Evals: ')} reports in the Markdown"
    if markdown.count("Gate verdict") > 1:
        return f"{markdown.count('Gate verdict')} gate verdicts in the Markdown"
    return None


def one_pair(number: int, folder: Path, suite: str) -> list[str]:
    label = "pair"
    run = evals("run", "--suite", suite, "--label", label, folder=folder)
    gate = evals("gate", "--suite", suite, "--label", label, folder=folder)
    problems = []
    for name, process in (("run", run), ("gate", gate)):
        code, _, err = finish(process)
        if code != 0:
            problems.append(f"pair {number}: {name} exited {code}: {err.strip()[-200:]}")
    return problems


def concurrent(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="evals-concurrent-") as tmp:
        folder = Path(tmp)
        problems: list[str] = []
        mixed = 0
        started = time.monotonic()
        for number in range(args.pairs):
            problems += one_pair(number, folder, args.suite)
            why = whole_reports(folder / "reports", "pair")
            if why is not None:
                mixed += 1
                problems.append(f"pair {number}: {why}")
            if number % 10 == 9:
                print(f"  {number + 1}/{args.pairs} pairs", file=sys.stderr)
        failures = len(problems) - mixed
        print(f"concurrent: {args.pairs} pairs of `evals run` + `evals gate` (suite {args.suite})")
        print(f"  process failures: {failures}")
        print(f"  mixed or broken report files: {mixed}")
        print(f"  wall time: {time.monotonic() - started:.0f} s")
        for line in problems[:20]:
            print(f"  {line}")
    return 1 if problems else 0


# --- interrupt -------------------------------------------------------------------------


def trace_pairs(folder: Path) -> list[tuple[str, int]]:
    """The (case, trial) pairs recorded in ``folder/runs.jsonl`` (a torn last line is
    what a killed writer may leave; it is not a finished run)."""
    pairs = []
    path = folder / "runs.jsonl"
    if not path.exists():
        return []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        pairs.append((row["case_id"], row["trial"]))
    return pairs


def stable(report: Path) -> dict[str, Any]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k not in VOLATILE}


def one_interruption(
    number: int, name: str, delay_s: float, selection: Sequence[str], reference: dict[str, Any]
) -> tuple[str, int, int, int, str]:
    """(signal, finished before the stop, re-run, lost, problem or '')."""
    with tempfile.TemporaryDirectory(prefix="evals-interrupt-") as tmp:
        folder = Path(tmp)
        process = evals("run", *selection, "--label", "cut", folder=folder)
        waited = time.monotonic()
        # The moment is random within the runs, not within the start-up.
        while not list((folder / "traces").glob("*/runs.jsonl")) and process.poll() is None:
            if time.monotonic() - waited > DEADLINE_S:
                break
            time.sleep(0.02)
        time.sleep(delay_s)
        process.send_signal(SIGNALS[name])
        code, _, err = finish(process)
        (trace,) = [p for p in (folder / "traces").iterdir() if p.is_dir()]
        before = trace_pairs(trace)
        if code == 0 or len(set(before)) == reference["runs"]:  # nothing left to resume
            return name, len(before), 0, 0, "finished before the signal (not counted)"
        resumed = evals("run", "--resume", trace.name, "--label", "cut", folder=folder)
        rcode, _, rerr = finish(resumed)
        after = trace_pairs(trace)
        rerun = len(after) - len(before)
        lost = len(set(before) - set(after))
        problem = ""
        if rcode != 0:
            problem = f"resume exited {rcode}: {rerr.strip()[-200:]}"
        elif len(set(after)) != len(after):
            problem = "a (case, trial) pair was run twice"
        elif stable(folder / "reports" / "cut.json") != reference:
            problem = "the resumed report differs from an uninterrupted run"
        expected = {128 + SIGNALS[name], 1} if name != "SIGKILL" else {-signal.SIGKILL}
        if not problem and code not in expected:
            problem = f"the stopped run exited {code}: {err.strip()[-200:]}"
        return name, len(before), rerun, lost, problem


def interrupt(args: argparse.Namespace) -> int:
    selection = ["--trials", str(args.run_trials), "--concurrency", "2"]
    with tempfile.TemporaryDirectory(prefix="evals-reference-") as tmp:
        code, _, err = finish(evals("run", *selection, "--label", "ref", folder=Path(tmp)))
        if code != 0:
            print(f"interrupt: the uninterrupted run exited {code}: {err[-300:]}")
            return 1
        reference = stable(Path(tmp) / "reports" / "ref.json")
        planned = reference["runs"]
    rng = random.Random(args.seed)
    rows = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        jobs = []
        for number in range(args.trials):
            name = list(SIGNALS)[number % len(SIGNALS)]
            delay = rng.uniform(args.min_delay, args.max_delay)
            jobs.append(pool.submit(one_interruption, number, name, delay, selection, reference))
        rows = [job.result() for job in jobs]
    print(f"interrupt: {args.trials} evaluations of {planned} runs stopped at random, then resumed")
    print(f"  {'signal':8} {'finished':>8} {'re-run':>6} {'lost':>4}  problem")
    bad = 0
    for name, before, rerun, lost, problem in rows:
        counted = not problem.startswith("finished before")
        note = problem
        if counted and (problem or lost or before + rerun != planned):
            bad += 1
            note = problem or f"finished {before} + re-run {rerun} != planned {planned}"
        print(f"  {name:8} {before:8} {rerun:6} {lost:4}  {note or 'ok'}")
    counted_rows = [r for r in rows if not r[4].startswith("finished before")]
    print(
        f"  finished trials lost: {sum(r[3] for r in counted_rows)};"
        f" re-run exactly the missing ones: {len(counted_rows) - bad}/{len(counted_rows)}"
    )
    return 1 if bad else 0


# --- corrupt ---------------------------------------------------------------------------


Edit = Callable[[dict[str, Any]], None]


def setter(path: str, value: object) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        target[last] = value

    return edit


def dropper(path: str) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        del target[last]

    return edit


def replace(data: dict[str, Any], new: dict[str, Any]) -> None:
    data.clear()
    data.update(new)


def first(data: dict[str, Any], key: str) -> str:
    return str(next(iter(data[key])))


BASELINE_EDITS: list[tuple[str, Edit]] = [
    ("success_rate NaN", setter("success_rate", float("nan"))),
    ("success_rate 5.0", setter("success_rate", 5.0)),
    ("success_rate '1.0'", setter("success_rate", "1.0")),
    ("success_rate -0.1", setter("success_rate", -0.1)),
    ("unauthorized_rate Infinity", setter("unauthorized_rate", float("inf"))),
    ("step_accuracy null", setter("step_accuracy", None)),
    ("latency_ms_p95 -1", setter("latency_ms_p95", -1)),
    ("returned_chars_p95 '300'", setter("returned_chars_p95", "300")),
    ("runs -3", setter("runs", -3)),
    ("runs true", setter("runs", True)),
    ("cases 1.5", setter("cases", 1.5)),
    ("trials 0", setter("trials", 0)),
    ("case_success {}", setter("case_success", {})),
    ("case_success 'true'", setter("case_success", "true")),
    ("case_success list", setter("case_success", ["r01"])),
    ("case_success dropped", dropper("case_success")),
    ("success_rate dropped", dropper("success_rate")),
    ("typo case_sucess", lambda d: d.update(case_sucess=d.pop("case_success"))),
    ("unknown key", setter("extra", 1)),
    ("schema_version 2", setter("schema_version", 2)),
    ("schema_version '3'", setter("schema_version", "3")),
    ("check_kinds {}", setter("check_kinds", {})),
    ("check kind 'style'", lambda d: d["check_kinds"].update({first(d, "check_kinds"): "style"})),
    ("case_checks {}", setter("case_checks", {})),
    ("verdict '2/1'", lambda d: d["case_checks"][first(d, "case_checks")].update(outcome="2/1")),
    ("verdict '0/0'", lambda d: d["case_checks"][first(d, "case_checks")].update(outcome="0/0")),
    ("verdict 1", lambda d: d["case_checks"][first(d, "case_checks")].update(outcome=1)),
    (
        "fingerprint 'abc'",
        lambda d: d["case_fingerprints"].update({first(d, "case_fingerprints"): "abc"}),
    ),
    ("fingerprint of a stranger", lambda d: d["case_fingerprints"].update(zz="0" * 16)),
    (
        "a metrics report instead",
        lambda d: replace(d, {"runs": 1, "success_rate": 1.0, "meta": {}}),
    ),
]

CONFIG_EDITS: list[tuple[str, Edit]] = [
    ("hard.unauthorized_rate_max NaN", setter("hard.unauthorized_rate_max", float("nan"))),
    ("hard.unauthorized_rate_max -1", setter("hard.unauthorized_rate_max", -1)),
    ("hard.unauthorized_rate_max 2", setter("hard.unauthorized_rate_max", 2)),
    ("hard.must_pass_success_min '1'", setter("hard.must_pass_success_min", "1")),
    ("hard.newly_failing_cases_max -1", setter("hard.newly_failing_cases_max", -1)),
    ("hard.errored_runs_max 0.5", setter("hard.errored_runs_max", 0.5)),
    ("hard.grader_errors_max null", setter("hard.grader_errors_max", None)),
    ("hard: unknown key", setter("hard.unauthorised_rate_max", 0)),
    ("hard: unknown check kind", setter("hard.newly_failing_checks_max.style", 0)),
    # (A file without a `hard` section takes the defaults, the strictest values: allowed.)
    ("hard a list", setter("hard", [])),
    ("hard.newly_failing_checks_max 0", setter("hard.newly_failing_checks_max", 0)),
    ("soft.success_drop_points Infinity", setter("soft.success_drop_points", float("inf"))),
    ("soft.latency_p95_growth_pct -5", setter("soft.latency_p95_growth_pct", -5)),
    ("soft: unknown key", setter("soft.latency_p99_growth_pct", 5)),
    ("schema_version 1", setter("schema_version", 1)),
    ("exclude_tags 'flaky'", setter("exclude_tags", "flaky")),
    ("unknown top-level key", setter("hard_rules", {})),
]


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, allow_nan=True)


def corrupt(args: argparse.Namespace) -> int:
    baseline = json.loads((ROOT / "reports" / "baseline.json").read_text(encoding="utf-8"))
    config = json.loads((ROOT / "cases" / "gate.json").read_text(encoding="utf-8"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="evals-corrupt-") as tmp:
        folder = Path(tmp)
        jobs = [("baseline", n, e) for n, e in BASELINE_EDITS]
        jobs += [("gate config", n, e) for n, e in CONFIG_EDITS]
        for number, (which, name, edit) in enumerate(jobs):
            data = json.loads(json.dumps(baseline if which == "baseline" else config))
            edit(data)
            path = folder / f"{number}.json"
            path.write_text(dump(data), encoding="utf-8")
            flag = "--baseline" if which == "baseline" else "--gate-config"
            code, out, err = finish(
                evals("gate", "--suite", args.suite, flag, str(path), folder=folder)
            )
            lines = [line for line in err.splitlines() if line.strip()]
            judged = "Gate:" in out
            ok = code == 2 and len(lines) == 1 and not judged and str(path) in lines[0]
            rows.append((which, name, code, lines[0] if lines else "", ok))
    bad = [r for r in rows if not r[4]]
    print(f"corrupt: {len(rows)} damaged files given to `evals gate`")
    for which, name, code, line, ok in rows:
        print(f"  {'ok ' if ok else 'BAD'} {which:11} {name:36} exit {code}  {line[-110:]}")
    print(
        f"  exit 2 with one line naming the file, none judged: {len(rows) - len(bad)}/{len(rows)}"
    )
    return 1 if bad else 0


# --- hostile ---------------------------------------------------------------------------

HOSTILE_SUT = '''"""A system under test written by an attacker (devtools.reliability hostile).

Steered by the environment, so the gate's child and any worker behave alike:
HOSTILE_HOW says what it does (``good`` unless set), HOSTILE_DELAY_S how long each run
waits. The rigging kinds fail every case and, when built, try to decide the verdict.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import sys
from pathlib import Path

from evals.model.case import Case
from evals.model.run import Run

HOW = os.environ.get("HOSTILE_HOW", "good")
RIGS = ("rig_verdict", "exit_zero", "print_pass", "rig_all")
BAD_NUMBERS = {
    "nan_latency": {"latency_ms": float("nan")},
    "inf_latency": {"latency_ms": float("inf")},
    "negative_latency": {"latency_ms": -5.0},
    "negative_chars": {"chars_returned": -1},
}


def _rig_verdict() -> None:
    """Every verdict reached in this process passes, however it is computed."""
    import evals.gating.verdict as verdict

    verdict.Verdict.exit_code = property(lambda self: 0)
    verdict.Verdict.render = lambda self: "Gate: PASS (0 hard, 0 soft)"
    real = verdict.evaluate

    def passing(*args, **kwargs):
        found = real(*args, **kwargs)
        return found.model_copy(update={"passed": True, "hard": [], "soft": []})

    for module in list(sys.modules.values()):
        if getattr(module, "evaluate", None) is real:
            module.evaluate = passing


def _exit_zero() -> None:
    sys.stdout.flush()
    os._exit(0)


def _tamper() -> None:
    """Rewrite one of the gate's own inputs (relative to the working directory)."""
    if HOW == "tamper_baseline_truncate":
        Path("reports/baseline.json").write_text("", encoding="utf-8")
    elif HOW == "tamper_baseline_rewrite":  # every case failed there: nothing can regress
        path = Path("reports/baseline.json")
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
        data["case_success"] = dict.fromkeys(data.get("case_success", {}), False)
        path.write_text(json.dumps(data), encoding="utf-8")
    elif HOW == "tamper_gate_config":
        lenient = {"schema_version": 2, "hard": {"newly_failing_cases_max": 99}}
        Path("cases/gate.json").write_text(json.dumps(lenient), encoding="utf-8")
    elif HOW == "tamper_cases":
        Path("cases/alpha.jsonl").write_text("", encoding="utf-8")


class HostileSUT:
    def __init__(self) -> None:
        self.failing = HOW in RIGS or HOW.startswith("tamper_")
        if HOW in ("print_pass", "rig_all"):
            print("Gate: PASS (0 hard, 0 soft)")  # a verdict of its own, on stdout
        if HOW in ("rig_verdict", "rig_all"):
            _rig_verdict()
        if HOW in ("exit_zero", "rig_all"):
            atexit.register(_exit_zero)

    async def arun(self, case: Case, trial: int) -> Run:
        await asyncio.sleep(float(os.environ.get("HOSTILE_DELAY_S", "0")))
        outcome = case.expect.outcome or "replied"
        if self.failing:
            outcome = "escalate" if outcome != "escalate" else "ask_user"
            _tamper()
        run = Run(case_id=case.id, trial=trial, outcome=outcome, reply="ok")
        if HOW in BAD_NUMBERS:
            return run.model_copy(update=BAD_NUMBERS[HOW])
        if HOW == "negative_tokens":
            usage = run.usage.model_copy(update={"prompt_tokens": -100})
            return run.model_copy(update={"usage": usage})
        return run
'''
"""The attacker's SUT module, written into each throwaway project as ``hostile_sut.py``."""

HOSTILE_CASES = [
    {"id": "a1", "split": "dev", "tags": ["must_pass"], "input": {"goal": "one"},
     "expect": {"outcome": "replied"}},
    {"id": "a2", "split": "dev", "tags": ["happy"], "input": {"goal": "two"},
     "expect": {"outcome": "replied"}},
    {"id": "a3", "split": "test", "tags": ["happy"], "input": {"goal": "three"},
     "expect": {"outcome": "escalate"}},
]  # fmt: skip
"""The throwaway project's one suite, ``alpha``."""
HOSTILE_TIMEOUT_S = 60.0
"""A command still running after this long hangs: that scenario fails."""
CUT = "cut"
"""The label of the project's interrupted evaluation (its trace folder is resumable)."""
CUT_TRIALS = 4
ALPHA_RUN: set[str] = set()
"""The trace folder of the project's own good ``evals run --suite alpha``."""


@dataclass(frozen=True)
class Finished:
    """One command that ended (or was killed at its deadline: ``code`` None)."""

    code: int | None
    out: str
    err: str


def start_evals(
    project: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start ``evals ARGS`` in ``project`` as a user types it, the attacker's SUT
    importable (PYTHONPATH), in a session of its own (a hang is killed whole)."""
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project), *kept]),
        "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ beside the SUT
        **(env or {}),
    }
    return subprocess.Popen(
        [*EVALS, *args],
        cwd=project,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait(process: subprocess.Popen[str], timeout_s: float) -> Finished:
    """Wait for ``process``; past ``timeout_s`` it hangs: killed with all it started."""
    try:
        out, err = process.communicate(timeout=timeout_s)
        code: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = None
    return Finished(code, out, err)


def run_evals(
    project: Path, *args: str, env: Mapping[str, str] | None = None, timeout_s: float = 0.0
) -> Finished:
    return wait(start_evals(project, *args, env=env), timeout_s or HOSTILE_TIMEOUT_S)


def project_of(root: Path) -> Path:
    """Where the throwaway project lies in ``root``: two folders down, so that a label
    ``../../x`` still lands inside ``root``, where the snapshots see it."""
    return root / "a" / "b" / "project"


def make_project(root: Path) -> Path:
    """A throwaway project in ``root``: the attacker's SUT, suite ``alpha``, the
    repository's gate rules (without its ``source`` section) and judge labels, a baseline
    and the reports of ``evals run --suite alpha`` made by the good SUT, and an evaluation
    stopped by SIGINT after its first runs (label ``cut``, resumable)."""
    project = project_of(root)
    (project / "cases").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "hostile"\n\n[tool.evals]\nsut = "hostile_sut:HostileSUT"\n',
        encoding="utf-8",
    )
    (project / "hostile_sut.py").write_text(HOSTILE_SUT, encoding="utf-8")
    lines = [json.dumps(case) + "\n" for case in HOSTILE_CASES]
    (project / "cases" / "alpha.jsonl").write_text("".join(lines), encoding="utf-8")
    rules = json.loads((ROOT / "cases" / "gate.json").read_text(encoding="utf-8"))
    rules.pop("source", None)  # it names SupportPilot's folders, which this project lacks
    (project / "cases" / "gate.json").write_text(json.dumps(rules, indent=2), encoding="utf-8")
    shutil.copytree(ROOT / "cases" / "judge", project / "cases" / "judge")
    for argv in (("baseline",), ("run", "--suite", "alpha")):  # reports a refusal must keep
        done = run_evals(project, *argv)
        if done.code != 0:
            raise RuntimeError(f"the good SUT's `evals {argv[0]}` exited {done.code}: {done.err}")
    ALPHA_RUN.update(f.name for f in (project / "traces").glob("*-alpha-*"))
    stop_after_runs(project, 2)
    return project


def stop_after_runs(project: Path, runs: int) -> Path:
    """``evals run --label cut`` (slow runs, one at a time) stopped by SIGINT once it has
    finished ``runs`` runs: its trace folder, which ``--resume`` can finish."""
    argv = ("run", "--label", CUT, "--trials", str(CUT_TRIALS), "--concurrency", "1")
    process = start_evals(project, *argv, env={"HOSTILE_DELAY_S": "0.2"})
    deadline = time.monotonic() + HOSTILE_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        found = list((project / "traces").glob(f"*-{CUT}-*/runs.jsonl"))
        if found and found[0].read_bytes().count(b"\n") >= runs:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    done = wait(process, HOSTILE_TIMEOUT_S)
    if done.code != 128 + signal.SIGINT:
        raise RuntimeError(f"the evaluation to interrupt exited {done.code}: {done.err[-300:]}")
    return the_cut(project)


def the_cut(project: Path) -> Path:
    (folder,) = (project / "traces").glob(f"*-{CUT}-*")
    return folder


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (``None``: a folder or a special file)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        regular = path.is_file() and not path.is_symlink()
        found[str(path.relative_to(root))] = path.read_bytes() if regular else None
    return found


def changed(
    before: Mapping[str, bytes | None], after: Mapping[str, bytes | None], may: Sequence[str]
) -> list[str]:
    """The paths that appeared, vanished or changed between two snapshots, but those
    matching a pattern of ``may`` (fnmatch, relative to the snapshot's root); a trace
    folder's ``.resume.lock``, the empty file a resume locks, may always appear."""
    allowed = [*may, "*/traces/*/.resume.lock"]
    missing = b"\0missing"
    return [
        path
        for path in sorted(set(before) | set(after))
        if before.get(path, missing) != after.get(path, missing)
        and not any(fnmatch.fnmatch(path, pattern) for pattern in allowed)
    ]


def one_line(err: str, words: str) -> bool:
    """Whether stderr ends in one line holding ``words``, with nothing before it but
    argparse's usage lines."""
    lines = [line for line in err.splitlines() if line.strip()]
    if not lines or words not in lines[-1]:
        return False
    usage = lines[:-1]
    return not usage or (
        usage[0].startswith("usage: ") and all(line[0].isspace() for line in usage[1:])
    )


def gate_failed(out: str) -> bool:
    """Whether stdout's last verdict is FAIL, with no PASS anywhere on it."""
    verdicts = [line for line in out.splitlines() if line.startswith("Gate: ")]
    return bool(verdicts) and verdicts[-1].startswith("Gate: FAIL") and "Gate: PASS" not in out


def strict_json(path: Path) -> str | None:
    """Why ``path`` is not strict JSON (NaN and the infinities are not JSON), or ``None``."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} in {path.name}")

    try:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    except (OSError, ValueError) as e:
        return str(e)
    return None


def trace_errors(folder: Path) -> list[str | None]:
    """The ``error`` of every run traced in ``folder`` (``None``: not a sut_error)."""
    errors: list[str | None] = []
    for line in (folder / "runs.jsonl").read_text(encoding="utf-8").splitlines():
        run = json.loads(line)["run"]
        errors.append(run.get("error") if run.get("outcome") == "sut_error" else None)
    return errors


@dataclass(frozen=True)
class Row:
    """One scenario's line in the table."""

    scenario: str
    command: str
    expected: str
    actual: str
    one_line: bool
    no_traceback: bool
    nothing_lost: bool
    note: str = ""

    @property
    def skipped(self) -> bool:
        return self.note.startswith("skipped")

    @property
    def ok(self) -> bool:
        return self.skipped or (
            self.expected == self.actual
            and self.one_line
            and self.no_traceback
            and self.nothing_lost
        )


Prepare = Callable[[Path], Sequence[str]]
"""Sets a scenario up in its copy of the project; returns the ``evals`` arguments."""
Extra = Callable[[Path, Finished], str | None]
"""A scenario's own check after the command: what is wrong, or ``None``."""


@dataclass(frozen=True)
class Attack:
    """One hostile command, run in a fresh copy of the throwaway project."""

    name: str
    prepare: Prepare
    expected: int
    says: str
    """What the last stderr line must hold (see ``where``)."""
    where: str = "stderr"
    """Where ``says`` is looked for: ``stderr``, its last line (argparse's usage lines
    before it aside); ``verdict``, stdout's last ``Gate:`` line (and no PASS on stdout);
    ``failures``, one stdout line per run of the suite."""
    env: Mapping[str, str] = field(default_factory=dict)
    may: tuple[str, ...] = ()
    """What the command may write (fnmatch patterns relative to the copy's root); nothing
    else may appear, vanish or change."""
    extra: Extra | None = None
    timeout_s: float = 30.0


def given(*argv: str) -> Prepare:
    """No set-up: these arguments."""
    return lambda project: argv


def crafted(how: str, command: str) -> Prepare:
    """The interrupted trace folder crafted ``how`` (``copy``: copied under a name of its
    own, its run id no longer its name; ``key:value``: meta.json's key set to value), given
    to ``evals report <folder>`` or ``evals run --resume <name>``."""

    def prepare(project: Path) -> Sequence[str]:
        folder = the_cut(project)
        if how == "copy":
            shutil.copytree(folder, folder.parent / "copy")
            folder = folder.parent / "copy"
        else:
            key, value = how.split(":", 1)
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            meta[key] = value
            (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        if command == "report":
            return ("report", str(folder.relative_to(project)))
        return ("run", "--resume", folder.name)

    return prepare


SPECIAL_INPUTS = {
    "report": ("report", "{}"),
    "compare": ("compare", "{}", "{}"),
    "review": ("review", "{}"),
    "gate --baseline": ("gate", "--baseline", "{}"),
    "gate --gate-config": ("gate", "--gate-config", "{}"),
    "judge --labels": ("judge", "--labels", "{}"),
    "judge --pairs": ("judge", "--pairs", "{}"),
    "lint --cases": ("lint", "--cases", "{}"),
    "run --cases": ("run", "--cases", "{}"),
}
"""Every input file named on the command line: the arguments, ``{}`` for the file."""


def special(kind: str, where: str) -> Prepare:
    """A FIFO nobody writes to (opening it blocks for ever) or ``/dev/zero`` (reading it
    never ends), given as the input ``where`` names."""

    def prepare(project: Path) -> Sequence[str]:
        path = "/dev/zero"
        if kind == "fifo":
            os.mkfifo(project / "pipe.json")
            path = "pipe.json"
        return [a.replace("{}", path) for a in SPECIAL_INPUTS[where]]

    return prepare


def special_in_place(kind: str, relative: str, *argv: str) -> Prepare:
    """A file the CLI finds by itself (the project's pyproject.toml, a suite, the gate
    config, the baseline, a trace's meta or runs) replaced by a FIFO or a link to
    ``/dev/zero``; ``{cut}`` in ``relative`` and ``argv`` is the interrupted evaluation's
    run id."""

    def prepare(project: Path) -> Sequence[str]:
        cut = the_cut(project).name
        path = project / relative.replace("{cut}", cut)
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")
        return [a.replace("{cut}", cut) for a in argv]

    return prepare


def with_gate_config(text: str) -> Prepare:
    """The project's own ``cases/gate.json`` replaced by ``text``; then ``evals gate``."""

    def prepare(project: Path) -> Sequence[str]:
        (project / "cases" / "gate.json").write_text(text, encoding="utf-8")
        return ("gate",)

    return prepare


def sut_errors(words: str) -> Extra:
    """Every run of the new trace is a sut_error naming the field; the report is strict
    JSON."""

    def extra(project: Path, done: Finished) -> str | None:
        (folder,) = [f for f in (project / "traces").glob("*-alpha-*") if f.name not in ALPHA_RUN]
        errors = trace_errors(folder)
        if not errors or not all(e and words in e for e in errors):
            return f"not every run a sut_error saying {words!r}: {errors[:2]}"
        return strict_json(project / "reports" / "alpha.json")

    return extra


GATE_WRITES = ("*/reports/gate.*", "*/traces/*-gate-*")
"""What ``evals gate`` writes: its reports and its trace."""
TWICE = (
    '{"schema_version": 2, "hard": {"must_pass_success_min": 1.0},'
    ' "hard": {"must_pass_success_min": 0.0}}'
)
"""A gate config holding ``hard`` twice: which one counts would be a silent choice."""


def isolated(flags: Sequence[str]) -> str:
    """What the flags add to a scenario's name."""
    return f", {' '.join(flags)}" if flags else ""


def attacks() -> list[Attack]:
    """Every single-command attack (the concurrent resumes and Ray are apart)."""
    rigs = [
        Attack(f"SUT {how}, failing{isolated(flags)}", given("gate", *flags), 1, "Gate: FAIL",
               where="verdict", env={"HOSTILE_HOW": how}, may=GATE_WRITES)
        for how, flags in [
            ("rig_verdict", ()),
            ("exit_zero", ()),
            ("print_pass", ()),
            ("rig_all", ()),
            ("rig_all", ("--isolation", "process")),
        ]
    ]  # fmt: skip
    tampers = [
        Attack(f"SUT {how}{isolated(flags)}", given("gate", *flags), 2,
               f"{target}: changed during the run; put back",
               env={"HOSTILE_HOW": how}, may=GATE_WRITES)
        for how, target, flags in [
            ("tamper_baseline_truncate", "reports/baseline.json", ()),
            ("tamper_baseline_rewrite", "reports/baseline.json", ()),
            ("tamper_baseline_rewrite", "reports/baseline.json", ("--isolation", "process")),
            ("tamper_gate_config", "cases/gate.json", ()),
            ("tamper_cases", "cases/alpha.jsonl", ()),
        ]
    ]  # fmt: skip
    numbers = [
        Attack(f"SUT {how}", given("run", "--suite", "alpha"), 0, words, where="failures",
               env={"HOSTILE_HOW": how}, may=("*/reports/alpha.*", "*/traces/*-alpha-*"),
               extra=sut_errors(words))
        for how, words in [
            ("nan_latency", "latency_ms: not a finite number (nan)"),
            ("inf_latency", "latency_ms: not a finite number (inf)"),
            ("negative_latency", "latency_ms: negative (-5.0)"),
            ("negative_tokens", "usage.prompt_tokens: negative (-100)"),
            ("negative_chars", "chars_returned: negative (-1)"),
        ]
    ]  # fmt: skip
    numbers.append(
        Attack("SUT nan_latency, gated", given("gate"), 1, "Gate: FAIL", where="verdict",
               env={"HOSTILE_HOW": "nan_latency"}, may=GATE_WRITES)
    )  # fmt: skip
    traces = [
        Attack(f"trace {how} ({command})", crafted(how, command), 2, words)
        for how, words in [
            ("label:baseline", "label 'baseline' would overwrite the baseline"),
            ("label:../cases/gate", "a label must be a file name"),
            ("label:../../x", "a label must be a file name"),
            ("run_id:../../elsewhere", "a run id must be a file name"),
            ("copy", "is not this folder's name 'copy'"),
        ]
        for command in ("report", "resume")
    ]
    traces += [
        Attack('--resume ""', given("run", "--resume", ""), 2, "must be the name of a folder"),
        Attack("--resume ../traces", given("run", "--resume", "../traces"), 2,
               "must be the name of a folder"),
    ]  # fmt: skip
    specials = [
        # lint reports an unreadable case file as a finding (its documented exit 1, the
        # finding on stdout, the count last on stderr); every other command refuses it
        Attack(f"{kind} as {where}", special(kind, where),
               1 if where == "lint --cases" else 2,
               "1 finding(s)" if where == "lint --cases" else "not read")
        for where in SPECIAL_INPUTS
        for kind in ("fifo", "/dev/zero")
    ]  # fmt: skip
    specials += [
        Attack(f"{kind} as {relative.replace('{cut}', CUT)} ({argv[0]})",
               special_in_place(kind, relative, *argv), 2, "not")
        for relative, argv in [
            ("pyproject.toml", ("run",)),
            ("cases/alpha.jsonl", ("run", "--suite", "alpha")),
            ("cases/gate.json", ("gate",)),
            ("reports/baseline.json", ("gate",)),
            ("traces/{cut}/meta.json", ("report", "traces/{cut}")),
            ("traces/{cut}/meta.json", ("run", "--resume", "{cut}")),
            ("traces/{cut}/runs.jsonl", ("report", "traces/{cut}")),
            ("traces/{cut}/runs.jsonl", ("run", "--resume", "{cut}")),
        ]
        for kind in ("fifo", "/dev/zero")
    ]  # fmt: skip
    others = [
        Attack("gate config: 'hard' twice", with_gate_config(TWICE), 2,
               "key 'hard' appears twice in one object"),
        Attack("--out cases --label gate", given("run", "--out", "cases", "--label", "gate"),
               2, "label 'gate' would overwrite the gate config"),
        Attack("--out cases --label alpha", given("run", "--out", "cases", "--label", "alpha"),
               2, "into the cases folder"),
        Attack("--label baseline", given("run", "--label", "baseline"), 2,
               "label 'baseline' would overwrite the baseline"),
        Attack("judge --json a folder", given("judge", "--json", "cases"), 2, "is a folder"),
    ]  # fmt: skip
    return [*rigs, *tampers, *numbers, *traces, *specials, *others]


def shown(argv: Sequence[str]) -> str:
    """The command as typed (an empty or spaced argument quoted)."""
    return " ".join(["evals", *(repr(a) if not a or " " in a else a for a in argv)])


def mount(attack: Attack, template: Path, scratch: Path) -> Row:
    """Run one attack in a fresh copy of the throwaway project."""
    root = scratch / "copy"
    shutil.copytree(template, root, symlinks=True)
    try:
        project = project_of(root)
        argv = list(attack.prepare(project))
        before = snapshot(root)
        done = run_evals(project, *argv, env=attack.env, timeout_s=attack.timeout_s)
        lost = changed(before, snapshot(root), attack.may)
        problem = attack.extra(project, done) if attack.extra is not None else None
    finally:
        shutil.rmtree(root)
    if attack.where == "verdict":
        said = gate_failed(done.out) and attack.says in done.out
    elif attack.where == "failures":
        said = sum(attack.says in line for line in done.out.splitlines()) == len(HOSTILE_CASES)
    else:
        said = one_line(done.err, attack.says)
    note = ""
    if done.code is None:
        note = f"hung: killed after {attack.timeout_s:.0f} s"
    elif lost:
        note = f"changed: {', '.join(lost[:3])}"
    elif problem:
        note = problem
    elif not said:
        last = [line for line in done.err.splitlines() if line.strip()][-1:] or ["no stderr"]
        note = f"said: {last[0][:100]}"
    return Row(
        attack.name,
        shown(argv),
        str(attack.expected),
        "hung" if done.code is None else str(done.code),
        said,
        "Traceback" not in done.err + done.out,
        not lost and problem is None,
        note,
    )


def concurrent_resumes(template: Path, scratch: Path) -> Row:
    """Two ``evals run --resume`` of one interrupted run started together: one finishes it
    (exit 0), the other is refused (exit 2, one line); every (case, trial) pair is in the
    trace exactly once, none finished before lost."""
    root = scratch / "copy"
    shutil.copytree(template, root, symlinks=True)
    try:
        folder = the_cut(project_of(root))
        before = trace_pairs(folder)
        env = {"HOSTILE_DELAY_S": "0.2"}
        argv = ("run", "--resume", folder.name)
        both = [start_evals(project_of(root), *argv, env=env) for _ in range(2)]
        done = [wait(process, HOSTILE_TIMEOUT_S) for process in both]
        after = trace_pairs(folder)
    finally:
        shutil.rmtree(root)
    refused = [d for d in done if d.code == 2]
    during = len(refused) == 1 and one_line(refused[0].err, "another evaluation is resuming")
    after_end = len(refused) == 1 and one_line(refused[0].err, "that evaluation is complete")
    said = during or after_end
    planned = len(HOSTILE_CASES) * CUT_TRIALS
    whole = len(after) == len(set(after)) == planned and set(before) <= set(after)
    return Row(
        "two --resume of one run at once",
        shown(("run", "--resume", f"*-{CUT}-*")) + " (twice)",
        "0 2",
        " ".join(sorted("hung" if d.code is None else str(d.code) for d in done)),
        said,
        all("Traceback" not in d.err for d in done),
        whole,
        f"{len(after)} runs traced, {len(set(after))} distinct of {planned}; the second "
        + ("refused while the first ran" if during else "came after the end" if after_end else "?"),
    )


LIBRARY_GATE = """
import sys
import evals
report = evals.evaluate(["cases/alpha.jsonl"], "hostile_sut:HostileSUT")
verdict = evals.gate(report, "reports/baseline.json", "cases/gate.json")
print(verdict.render().splitlines()[0], "success", report.metrics.success_rate)
sys.exit(verdict.exit_code)
"""
"""The library's evaluate and gate in one process: where the SUT is built in the process
that judges it."""


def positive_control(template: Path, scratch: Path) -> Row:
    """The rigging SUT judged in the process that built it (the library path): it does
    rig the verdict (PASS and exit 0 at 0% success), so the attacks above are real and
    `evals gate` stands against them."""
    root = scratch / "copy"
    shutil.copytree(template, root, symlinks=True)
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", LIBRARY_GATE],
            cwd=project_of(root),
            env={**os.environ, "PYTHONPATH": str(project_of(root)), "HOSTILE_HOW": "rig_all"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        done = wait(process, HOSTILE_TIMEOUT_S)
    finally:
        shutil.rmtree(root)
    rigged = done.code == 0 and "Gate: PASS" in done.out and "success 0.0" in done.out
    return Row(
        "control: SUT rig_all judged where built",
        "python -c 'evals.evaluate(…); evals.gate(…)'",
        "0",
        "hung" if done.code is None else str(done.code),
        rigged,
        "Traceback" not in done.err,
        True,
        "the attack is real: PASS at 0% success" if rigged else "the attack did not rig it",
    )


RAY = ("run", "--executor", "ray", "--ray-address", "127.0.0.1:1")


def ray_unreachable(template: Path, scratch: Path) -> Row:
    """An address nothing answers at: exit 2, one line, within seconds (skipped without
    the ray extra)."""
    if importlib.util.find_spec("ray") is None:  # only whether it is installed
        return Row("unreachable Ray address", shown(RAY), "2", "-", True, True, True,
                   "skipped: ray extra missing")  # fmt: skip
    attack = Attack(
        "unreachable Ray address",
        given(*RAY),
        2,
        "cannot reach Ray at '127.0.0.1:1'",
        env={"TMPDIR": tempfile.gettempdir()},  # Ray refuses a temp dir inside a venv
    )
    return mount(attack, template, scratch)


def render_rows(rows: Sequence[Row]) -> str:
    """The table: one line per scenario, ``yes``/``NO`` per criterion, the verdict last."""
    head = ("scenario", "command", "expected", "actual", "one line", "no traceback",
            "nothing lost", "verdict")  # fmt: skip
    lines = [head] + [
        (
            row.scenario,
            row.command if len(row.command) <= 64 else row.command[:63] + "…",
            row.expected,
            row.actual,
            "yes" if row.one_line else "NO",
            "yes" if row.no_traceback else "NO",
            "yes" if row.nothing_lost else "NO",
            ("skipped" if row.skipped else "ok" if row.ok else "BAD")
            + (f" ({row.note})" if row.note else ""),
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head) - 1)]
    return "\n".join(
        "  ".join([*(c.ljust(w) for c, w in zip(line, widths, strict=False)), line[-1]])
        for line in lines
    )


def hostile(args: argparse.Namespace) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="evals-hostile-") as tmp:
        scratch = Path(tmp)
        template = scratch / "template"
        make_project(template)
        rows = [mount(a, template, scratch) for a in attacks() if args.only in a.name]
        if args.only in "control: SUT rig_all judged where built":
            rows.insert(0, positive_control(template, scratch))
        if args.only in "two --resume of one run at once":
            rows.append(concurrent_resumes(template, scratch))
        if args.only in "unreachable Ray address":
            rows.append(ray_unreachable(template, scratch))
    print(f"hostile: {len(rows)} attacks through the `evals` CLI, each in a throwaway project")
    print(render_rows(rows))
    bad = [row for row in rows if not row.ok]
    print(
        f"  ended as documented (exit code, one line, no traceback, nothing lost):"
        f" {len(rows) - len(bad)}/{len(rows)}; wall time {time.monotonic() - started:.0f} s"
    )
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("concurrent", help="pairs of run + gate on one label")
    p.add_argument("--pairs", type=int, default=100)
    p.add_argument("--suite", default="read")
    p = commands.add_parser("interrupt", help="stop at random, resume, compare")
    p.add_argument("--trials", type=int, default=9, help="evaluations to stop (default 9)")
    p.add_argument("--run-trials", type=int, default=3, help="trials per case in each")
    p.add_argument("--min-delay", type=float, default=0.0, help="after the first run (s)")
    p.add_argument("--max-delay", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=1)
    p = commands.add_parser("corrupt", help="damaged baselines and gate configs")
    p.add_argument("--suite", default="read")
    p = commands.add_parser("hostile", help="attacks on the CLI, each in a throwaway project")
    p.add_argument("--only", default="", help="only the scenarios whose name holds this")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    measurements = {
        "concurrent": concurrent,
        "interrupt": interrupt,
        "corrupt": corrupt,
        "hostile": hostile,
    }
    return measurements[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
