"""``nox -s bench``: the reference client and ``evals run`` against a fake model.

    python -m bench.run [--repeats K] [--only NAME ...] [--no-offline] [--out reports]

Writes ``<out>/bench.json`` (every sample) and ``<out>/bench.md`` (the table). The fake
OpenAI server runs in this driver process, which only waits while a child is measured,
so the server's threads never compete with the measured client for its GIL. Every
measured thing is a fresh child process (see :mod:`bench.measure`).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI

from bench.gate_scenario import GATE, run_gate
from bench.html_scenario import HTML, run_html
from bench.lint_scenario import LINT, parse_sizes, run_lint, sizes_of
from bench.measure import Sample, measure, spread
from bench.ray_scenario import RAY, run_ray
from bench.report import write_report
from bench.scenarios import (
    ISOLATION,
    OFFLINE_BIG_TRIALS,
    OFFLINE_TRIALS,
    REPLY,
    SCENARIOS,
    IsolationScenario,
    Scenario,
    write_cases,
)

ROOT = Path(__file__).resolve().parent.parent
SUT = "bench.one_call_sut:OneCallSUT"
OFFLINE_SUT = "agent_evals.sut:SupportPilotSUT"
OFFLINE_CONCURRENCY = 8
"""Runs in flight offline: the rule brains do not block, but fault cases wait on timeouts."""


def child_env(base_url: str | None = None) -> dict[str, str]:
    """The environment of a measured child: ``bench`` importable, the server's URL,
    worlds in memory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("SUPPORTPILOT_DB_DIR", None)
    # Python's default: bytecode caches are written and reused. With them disabled every
    # child would compile openai and its dependencies from source (~0.3 s per start).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if base_url is not None:
        env["BENCH_BASE_URL"] = base_url
    return env


def evals_command() -> list[str]:
    """The ``evals`` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("evals")
    return [str(script)] if script.exists() else [sys.executable, "-m", "evals"]


def _sampled(fake: FakeOpenAI, command: list[str], env: dict[str, str]) -> Sample:
    fake.reset()
    # The driver only waits while a child runs: its CPU time is the server's.
    cpu = time.process_time()
    sample = measure(command, env, str(ROOT))
    server_cpu = time.process_time() - cpu
    return dataclasses.replace(sample, max_in_flight=fake.max_in_flight, server_cpu_s=server_cpu)


def run_scenario(
    fake: FakeOpenAI,
    scenario: Scenario,
    work: Path,
    repeats: int,
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """Measure the reference and ``evals run`` (with ``extra`` flags, e.g. ``--executor
    ray``) on one scenario, alternating them."""
    fake.latency = scenario.latency_s
    cases = write_cases(work / f"cases-{scenario.n}.jsonl", scenario.n)
    env = child_env(fake.base_url)
    reference = [
        sys.executable, "-m", "bench.reference", "--base-url", fake.base_url,
        "--n", str(scenario.n), "--concurrency", str(scenario.concurrency),
    ]  # fmt: skip
    ours = [
        *evals_command(), "run", "--cases", str(cases), "--sut", SUT,
        "--concurrency", str(scenario.concurrency), "--label", "bench-ours",
        "--out", str(work / "reports"), "--traces", str(work / "traces"), *extra,
    ]  # fmt: skip
    other = [
        sys.executable, "-m", "bench.pydantic_evals_side", "--cases", str(cases),
        "--base-url", fake.base_url, "--concurrency", str(scenario.concurrency),
    ]  # fmt: skip
    # pydantic_evals beside the two only where it is installed and no flag is added
    # (``extra`` is an option of ours, such as ``--executor ray``).
    sides: dict[str, list[str]] = {"reference": reference, "ours": ours}
    if not extra and pydantic_evals_installed():
        sides["pydantic_evals"] = other
    # One unmeasured round: bytecode caches written, files in the page cache.
    for command in sides.values():
        measure(command, env, str(ROOT))
    samples: dict[str, list[Sample]] = {name: [] for name in sides}
    names = list(sides)
    for i in range(repeats):
        # Rotate who goes first, so a drifting machine favours no side.
        for name in names[i % len(names) :] + names[: i % len(names)]:
            samples[name].append(_sampled(fake, sides[name], env))
            if name == "ours":
                _check_all_passed(work / "reports" / "bench-ours.json", scenario.n)
            print(f"  {scenario.name}: {name} {samples[name][-1].wall_s:.3f}s", file=sys.stderr)
    refs, mine = samples["reference"], samples["ours"]
    ratios = [o.wall_s / r.wall_s for o, r in zip(mine, refs, strict=True)]
    others = samples.get("pydantic_evals")
    return {
        "name": scenario.name,
        "n": scenario.n,
        "concurrency": scenario.concurrency,
        "latency_s": scenario.latency_s,
        "ideal_s": scenario.ideal_s,
        "reference": side(refs, scenario.n),
        "ours": side(mine, scenario.n),
        "ratio": spread(ratios),
        "ratios": ratios,
        # ours - reference per sample, each pair measured in the same repeat (ms)
        "extra_ms_per_sample": spread(
            [(o.wall_s - r.wall_s) / scenario.n * 1000 for o, r in zip(mine, refs, strict=True)]
        ),
        "pydantic_evals": side(others, scenario.n) if others else None,
        "pydantic_evals_ratio": (
            spread([p.wall_s / r.wall_s for p, r in zip(others, refs, strict=True)])
            if others
            else None
        ),
    }


def pydantic_evals_installed() -> bool:
    """Whether the other harness can be measured (``nox -s bench`` installs it)."""
    return importlib.util.find_spec("pydantic_evals") is not None


def run_isolation(
    fake: FakeOpenAI, scenario: IsolationScenario, work: Path, repeats: int
) -> dict[str, Any]:
    """``evals run`` of the one-call SUT with ``--isolation none`` and ``process``, each at
    N=1 (start-up), ``warm_n`` and ``n``: wall, CPU (workers included: ``wait4`` counts
    reaped descendants), and the per-run cost, ``(x(n) - x(warm_n)) / (n - warm_n)`` of
    wall and of CPU, apart from start-up and first calls (CPU is the steadier figure on a
    shared machine)."""
    fake.latency = scenario.latency_s
    env = child_env(fake.base_url)
    sizes = (1, scenario.warm_n, scenario.n)
    files = {size: write_cases(work / f"isolation-{size}.jsonl", size) for size in sizes}
    modes = ("none", "process")

    def command(mode: str, size: int) -> list[str]:
        return [
            *evals_command(), "run", "--cases", str(files[size]), "--sut", SUT,
            "--concurrency", str(scenario.concurrency), "--isolation", mode,
            "--label", f"bench-isolation-{mode}-{size}",
            "--out", str(work / "reports"), "--traces", str(work / "traces"),
        ]  # fmt: skip

    for mode in modes:  # one unmeasured round
        measure(command(mode, 1), env, str(ROOT))
    samples: dict[tuple[str, int], list[Sample]] = {(m, s): [] for m in modes for s in sizes}
    for i in range(repeats):
        for mode in modes if i % 2 == 0 else modes[::-1]:
            for size in sizes:
                samples[mode, size].append(_sampled(fake, command(mode, size), env))
                report = work / "reports" / f"bench-isolation-{mode}-{size}.json"
                _check_all_passed(report, size)
                print(f"  isolation {mode} N={size}: {samples[mode, size][-1].wall_s:.3f}s",
                      file=sys.stderr)  # fmt: skip
    result: dict[str, Any] = {
        "name": scenario.name,
        "n": scenario.n,
        "warm_n": scenario.warm_n,
        "concurrency": scenario.concurrency,
        "latency_s": scenario.latency_s,
    }
    for mode in modes:
        one, warm, many = (samples[mode, size] for size in sizes)
        pairs = list(zip(many, warm, strict=True))
        runs = scenario.n - scenario.warm_n
        result[mode] = {
            "start_s": spread([s.wall_s for s in one]),
            "start_cpu_s": spread([s.cpu_s for s in one]),
            "wall_s": spread([s.wall_s for s in many]),
            "cpu_s": spread([s.cpu_s for s in many]),
            "ms_per_run": spread([(m.wall_s - o.wall_s) / runs * 1000 for m, o in pairs]),
            "cpu_ms_per_run": spread([(m.cpu_s - o.cpu_s) / runs * 1000 for m, o in pairs]),
            "samples": [s.summary() for s in many],
        }
    for key in ("ms_per_run", "cpu_ms_per_run", "start_s", "start_cpu_s"):
        extra = result["process"][key]["median"] - result["none"][key]["median"]
        result[f"extra_{key}"] = extra
    return result


def _check_all_passed(report: Path, n: int) -> None:
    """A fast run that failed is no result: every run must have passed its checks."""
    metrics = json.loads(report.read_text(encoding="utf-8"))
    if metrics["runs"] != n or metrics["successes"] != n:
        raise RuntimeError(
            f"evals run did not pass all {n} runs ({metrics['successes']}/{metrics['runs']});"
            f" failures: {metrics['failures'][:3]}"
        )


def side(samples: Sequence[Sample], n: int) -> dict[str, Any]:
    """Medians and min-max of one side's samples."""
    walls = [s.wall_s for s in samples]
    return {
        "wall_s": spread(walls),
        "cpu_s": spread([s.cpu_s for s in samples]),
        "peak_rss_mb": spread([s.peak_rss_mb for s in samples]),
        "ms_per_sample": spread([w / n * 1000 for w in walls]),
        "max_in_flight": sorted({s.max_in_flight for s in samples if s.max_in_flight is not None}),
        "server_cpu_s": spread([s.server_cpu_s or 0.0 for s in samples]),
        "samples": [s.summary() for s in samples],
    }


def run_same_process_server(scenario: Scenario, repeats: int) -> dict[str, Any]:
    """The reference with the fake server inside its own process (GIL shared)."""
    command = [
        sys.executable, "-m", "bench.reference", "--own-server",
        "--latency", str(scenario.latency_s),
        "--n", str(scenario.n), "--concurrency", str(scenario.concurrency),
    ]  # fmt: skip
    samples = [measure(command, child_env(), str(ROOT)) for _ in range(repeats)]
    return {"name": scenario.name, **side(samples, scenario.n)}


def run_offline(work: Path, trials: int, repeats: int) -> dict[str, Any]:
    """SupportPilot with rule brains over every suite x ``trials``, via ``evals run``."""
    out = work / f"offline-{trials}"
    command = [
        *evals_command(), "run", "--sut", OFFLINE_SUT, "--trials", str(trials),
        "--concurrency", str(OFFLINE_CONCURRENCY),
        "--label", "offline", "--out", str(out), "--traces", str(work / "traces"),
    ]  # fmt: skip
    samples = []
    runs = 0
    latency_p50: list[float] = []
    for _ in range(repeats):
        sample = measure(command, child_env(), str(ROOT))
        metrics = json.loads((out / "offline.json").read_text(encoding="utf-8"))
        runs = int(metrics["runs"])
        latency_p50.append(float(metrics["latency_ms_p50"]))
        samples.append(sample)
        print(f"  offline x{trials}: {sample.wall_s:.2f}s {sample.peak_rss_mb:.0f} MiB",
              file=sys.stderr)  # fmt: skip
    return {
        "trials": trials,
        "concurrency": OFFLINE_CONCURRENCY,
        "runs": runs,
        "wall_s": spread([s.wall_s for s in samples]),
        "ms_per_run": spread([s.wall_s / runs * 1000 for s in samples]),
        "sut_latency_ms_p50": statistics.median(latency_p50),
        "cpu_s": spread([s.cpu_s for s in samples]),
        "peak_rss_mb": spread([s.peak_rss_mb for s in samples]),
        "samples": [s.summary() for s in samples],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write the reports."""
    parser = argparse.ArgumentParser(prog="bench.run", description=__doc__)
    parser.add_argument(
        "--repeats",
        type=int,
        help="measurements per side (default 3; 5 for throughput and startup)",
    )
    parser.add_argument("--only", action="append", default=[], help="scenario name (repeatable)")
    parser.add_argument("--no-offline", action="store_true", help="skip offline SupportPilot")
    parser.add_argument("--out", type=Path, default=ROOT / "reports")
    parser.add_argument(
        "--ray-trials",
        type=int,
        default=RAY.trials,
        help=f"trials per case of the ray scenario (default {RAY.trials}: ~10,000 runs)",
    )
    parser.add_argument(
        "--lint-sizes",
        type=parse_sizes,
        default=LINT.sizes,
        help="lines of the lint scenario's files, comma-separated"
        f" (default {sizes_of(LINT.sizes)})",
    )
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "scenarios": [],
        "same_process_server": None,
        "offline": None,
        "isolation": None,
        "ray": None,
        "ray_throughput": None,
        "gate": None,
        "lint": None,
        "html": None,
    }
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp, FakeOpenAI(default=REPLY) as fake:
        work = Path(tmp)
        for scenario in SCENARIOS:
            if args.only and scenario.name not in args.only:
                continue
            repeats = args.repeats or scenario.repeats
            print(f"{scenario.name}: N={scenario.n} C={scenario.concurrency}"
                  f" latency={scenario.latency_s * 1000:g} ms", file=sys.stderr)  # fmt: skip
            results["scenarios"].append(run_scenario(fake, scenario, work, repeats))
            if scenario is SCENARIOS[0]:
                results["same_process_server"] = run_same_process_server(scenario, min(repeats, 3))
        if not args.only or ISOLATION.name in args.only:
            repeats = args.repeats or ISOLATION.repeats
            print(f"{ISOLATION.name}: N={ISOLATION.n} C={ISOLATION.concurrency}, --isolation"
                  " none vs process", file=sys.stderr)  # fmt: skip
            results["isolation"] = run_isolation(fake, ISOLATION, work, repeats)
        if RAY.name in args.only:  # needs the extra: only when asked for
            ray = dataclasses.replace(RAY, trials=args.ray_trials)
            print(f"{RAY.name}: offline SupportPilot x{ray.trials} trials, local vs"
                  " --executor ray", file=sys.stderr)  # fmt: skip
            results["ray"] = run_ray(ray, work, evals_command(), child_env(), str(ROOT))
            throughput = SCENARIOS[0]
            print(f"{throughput.name} through Ray: N={throughput.n} C={throughput.concurrency}",
                  file=sys.stderr)  # fmt: skip
            results["ray_throughput"] = run_scenario(
                fake, throughput, work, args.repeats or 3, ["--executor", "ray"]
            )
        if not args.only or GATE.name in args.only:
            print(f"{GATE.name}: offline SupportPilot through evals gate, ~{GATE.small_runs:,}"
                  f" and ~{GATE.runs:,} runs", file=sys.stderr)  # fmt: skip
            results["gate"] = run_gate(GATE, work, evals_command(), child_env(), str(ROOT))
        if not args.only or LINT.name in args.only:
            lint = dataclasses.replace(LINT, sizes=args.lint_sizes)
            print(f"{LINT.name}: evals lint --cases FILE of {sizes_of(lint.sizes)} lines",
                  file=sys.stderr)  # fmt: skip
            results["lint"] = run_lint(lint, work, evals_command(), child_env(), str(ROOT))
        if not args.only or HTML.name in args.only:
            print(f"{HTML.name}: the report page of {', '.join(f'{n:,}' for n in HTML.sizes)}"
                  " runs in headless Chromium", file=sys.stderr)  # fmt: skip
            results["html"] = run_html(HTML, work)
        if not args.no_offline:
            repeats = args.repeats or 3
            results["offline"] = {
                "small": run_offline(work, OFFLINE_TRIALS, repeats),
                "big": run_offline(work, OFFLINE_BIG_TRIALS, 1),
            }
    paths = write_report(args.out, results)
    for path in paths:
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
