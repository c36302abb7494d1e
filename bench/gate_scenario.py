"""The gate scenario (``python -m bench.run --only gate``): offline SupportPilot gated
against the committed baseline at ~1,000 and ~20,000 runs.

- ``evals gate`` of every suite at the trials that make about ``small_runs`` and ``runs``
  runs (from the number of gated cases; with 2,000 cases the small side is one trial,
  ~2,000 runs): wall, CPU and peak RSS of the whole command (traces and reports written,
  as in CI);
- ``bench.gate_memory`` at the big side's trials: what the graded runs hold and what the gate
  allocates on top, through the library entry points, by ``tracemalloc``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.measure import Sample, measure, spread


@dataclass(frozen=True)
class GateScenario:
    """Offline SupportPilot through ``evals gate``, small and big."""

    name: str = "gate"
    """Name used with ``--only``."""
    small_runs: int = 1_000
    """Runs on the small side, about: trials per case are chosen from the number of
    gated cases (one trial at least), which grows as suites do."""
    runs: int = 20_000
    """Runs on the big side, about."""
    concurrency: int = 8
    """Runs in flight."""
    repeats: int = 1
    """Measurements of each size."""


GATE = GateScenario()


def run_gate(
    scenario: GateScenario, work: Path, evals: list[str], env: dict[str, str], cwd: str
) -> dict[str, Any]:
    """Measure ``evals gate`` at both sizes and the library's memory at the big one."""

    def command(trials: int) -> list[str]:
        return [
            *evals, "gate", "--trials", str(trials), "--concurrency", str(scenario.concurrency),
            "--label", f"bench-gate-{trials}",
            "--out", str(work / "reports"), "--traces", str(work / "traces"),
        ]  # fmt: skip

    measure(command(1), env, cwd, ok=(0, 1))  # unmeasured: caches warm; counts the cases
    one = work / "reports" / "bench-gate-1.json"
    gated = int(json.loads(one.read_text(encoding="utf-8"))["runs"])
    sizes = tuple(sorted({max(1, round(n / gated)) for n in (scenario.small_runs, scenario.runs)}))
    print(f"  gate: {gated} gated cases, x{sizes[0]} and x{sizes[-1]} trials", file=sys.stderr)
    samples: dict[int, list[Sample]] = {t: [] for t in sizes}
    runs: dict[int, int] = {}
    verdicts: dict[int, str] = {}
    for _ in range(scenario.repeats):
        for trials in sizes:
            sample = measure(command(trials), env, cwd, ok=(0, 1))
            samples[trials].append(sample)
            report = work / "reports" / f"bench-gate-{trials}.json"
            runs[trials] = int(json.loads(report.read_text(encoding="utf-8"))["runs"])
            verdicts[trials] = _verdict(sample.stdout)
            print(f"  gate x{trials}: {runs[trials]} runs {sample.wall_s:.2f}s"
                  f" {sample.peak_rss_mb:.0f} MiB, {verdicts[trials]}",
                  file=sys.stderr)  # fmt: skip
    memory_command = [
        sys.executable, "-m", "bench.gate_memory", "--trials", str(sizes[-1]),
        "--concurrency", str(scenario.concurrency),
    ]  # fmt: skip
    memory = json.loads(measure(memory_command, env, cwd).stdout.strip().splitlines()[-1])
    print(f"  library x{sizes[-1]}: {memory}", file=sys.stderr)
    return {
        "name": scenario.name,
        "concurrency": scenario.concurrency,
        "gated_cases": gated,
        "sizes": [
            {
                "trials": trials,
                "runs": runs[trials],
                "verdict": verdicts[trials],
                "wall_s": spread([s.wall_s for s in samples[trials]]),
                "ms_per_run": spread([s.wall_s / runs[trials] * 1000 for s in samples[trials]]),
                "cpu_s": spread([s.cpu_s for s in samples[trials]]),
                "peak_rss_mb": spread([s.peak_rss_mb for s in samples[trials]]),
                "samples": [s.summary() for s in samples[trials]],
            }
            for trials in sizes
        ],
        "library": memory,
    }


def _verdict(stdout: str) -> str:
    lines = [line for line in stdout.splitlines() if line.startswith("Gate: ")]
    return lines[-1].removeprefix("Gate: ") if lines else "no verdict"


def report_lines(result: dict[str, Any]) -> list[str]:
    """The gate scenario's section of ``bench.md``."""
    lines = [
        "",
        f"## Gate (`evals gate`, offline SupportPilot, every suite, --concurrency"
        f" {result['concurrency']})",
        "",
        "| runs | verdict | wall s | ms per run (all included) | CPU s | peak RSS MiB |",
        "|--:|---|--:|--:|--:|--:|",
    ]
    for size in result["sizes"]:
        lines.append(
            f"| {size['runs']} | {size['verdict']} | {size['wall_s']['median']:.2f}"
            f" | {size['ms_per_run']['median']:.2f} | {size['cpu_s']['median']:.2f}"
            f" | {size['peak_rss_mb']['median']:.1f} |"
        )
    memory = result["library"]
    lines += [
        "",
        f"Library path (`evals.evaluate` then `evals.gate`, {memory['runs']} runs, measured by"
        f" tracemalloc): the graded runs hold {memory['results_mib']:.1f} MiB (deep"
        " size); the gate"
        f" allocates {memory['gate_peak_mib']:.1f} MiB more at its peak.",
    ]
    return lines
