"""Hostile-use measurements of the CLI (issue 13's acceptance), each in real processes.

Three measurements, each printing a table and exiting 1 when anything went wrong:

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

    uv run python scripts/reliability.py concurrent --pairs 100
    uv run python scripts/reliability.py interrupt --trials 9 --seed 1
    uv run python scripts/reliability.py corrupt
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
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
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return {"concurrent": concurrent, "interrupt": interrupt, "corrupt": corrupt}[args.command](
        args
    )


if __name__ == "__main__":
    sys.exit(main())
