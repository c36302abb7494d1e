"""The Ray scenario (``python -m bench.run --only ray --no-offline``): offline SupportPilot
through ``evals run`` with the local executor and with ``--executor ray`` (a local Ray
started for each evaluation): what scheduling a run on Ray costs.

Each side runs every suite at ``trials`` and at ``warm_trials``; the per-run figure is
``(wall(trials) - wall(warm_trials)) / (runs(trials) - runs(warm_trials))``, so start-up
(Ray's own, each actor's import of the SUT) is apart. At the default 73 trials that is
about 10,000 runs; ``--ray-trials K`` runs it small.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.measure import Sample, measure, spread


@dataclass(frozen=True)
class RayScenario:
    """Offline SupportPilot, local executor vs Ray."""

    name: str = "ray"
    """Name used with ``--only``."""
    trials: int = 73
    """Trials per case on the big side (x the ~138 cases of every suite: ~10,000 runs)."""
    warm_trials: int = 1
    """Trials per case on the small side (start-up and first calls)."""
    concurrency: int = 8
    """Runs in flight (and Ray actors)."""
    repeats: int = 1
    """Measurements of each (executor, size)."""


RAY = RayScenario()


def run_ray(
    scenario: RayScenario, work: Path, evals: list[str], env: dict[str, str], cwd: str
) -> dict[str, Any]:
    """Measure both executors at both sizes; the per-run wall and Ray's extra per run."""
    executors = ("local", "ray")
    sizes = (scenario.warm_trials, scenario.trials)

    def command(executor: str, trials: int) -> list[str]:
        return [
            *evals, "run", "--sut", "agent_evals.sut:SupportPilotSUT", "--trials", str(trials),
            "--concurrency", str(scenario.concurrency), "--executor", executor,
            "--label", f"bench-ray-{executor}-{trials}",
            "--out", str(work / "reports"), "--traces", str(work / "traces"),
        ]  # fmt: skip

    samples: dict[tuple[str, int], list[Sample]] = {(e, t): [] for e in executors for t in sizes}
    runs: dict[int, int] = {}
    for executor in executors:  # one unmeasured round: caches warm, bytecode compiled
        measure(command(executor, scenario.warm_trials), env, cwd)
    for _ in range(scenario.repeats):
        for executor in executors:
            for trials in sizes:
                sample = measure(command(executor, trials), env, cwd)
                samples[executor, trials].append(sample)
                report = work / "reports" / f"bench-ray-{executor}-{trials}.json"
                runs[trials] = int(json.loads(report.read_text(encoding="utf-8"))["runs"])
                print(f"  {executor} x{trials}: {runs[trials]} runs {sample.wall_s:.2f}s",
                      file=sys.stderr)  # fmt: skip
    extra_runs = runs[scenario.trials] - runs[scenario.warm_trials]
    result: dict[str, Any] = {
        "name": scenario.name,
        "runs": runs[scenario.trials],
        "warm_runs": runs[scenario.warm_trials],
        "concurrency": scenario.concurrency,
    }
    for executor in executors:
        warm, many = samples[executor, scenario.warm_trials], samples[executor, scenario.trials]
        result[executor] = {
            "start_s": spread([s.wall_s for s in warm]),
            "wall_s": spread([s.wall_s for s in many]),
            "ms_per_run": spread(
                [(m.wall_s - w.wall_s) / extra_runs * 1000 for m, w in zip(many, warm, strict=True)]
            ),
        }
    result["extra_ms_per_run"] = (
        result["ray"]["ms_per_run"]["median"] - result["local"]["ms_per_run"]["median"]
    )
    return result


def throughput_lines(row: dict[str, Any]) -> list[str]:
    """The one-call SUT through Ray against the plain client (``throughput`` on Ray)."""
    ours, ref = row["ours"], row["reference"]
    return [
        "",
        f"## The one-call SUT through Ray (N={row['n']}, C={row['concurrency']},"
        f" {row['latency_s'] * 1000:g} ms a call; ideal {row['ideal_s']:.1f} s)",
        "",
        "| side | wall s | CPU s | peak RSS MiB |",
        "|---|--:|--:|--:|",
        f"| plain `openai` client | {ref['wall_s']['median']:.2f} | {ref['cpu_s']['median']:.2f}"
        f" | {ref['peak_rss_mb']['median']:.0f} |",
        f"| `evals run --executor ray` | {ours['wall_s']['median']:.2f}"
        f" | {ours['cpu_s']['median']:.2f} | {ours['peak_rss_mb']['median']:.0f} |",
        "",
        f"Wall ratio (ours / plain client), median of pairs: {row['ratio']['median']:.2f}"
        " (Ray's start-up included: a local Ray and one actor per in-flight run). CPU and RSS"
        " are the driver's and its reaped children's; Ray's own daemons are not counted.",
    ]


def report_lines(ray: dict[str, Any]) -> list[str]:
    """The scenario's section of ``bench.md``."""
    lines = [
        "",
        f"## Ray (`evals run --executor ray`, offline SupportPilot, {ray['runs']} runs,"
        f" C={ray['concurrency']}, a local Ray on this machine)",
        "",
        f"| executor | wall s ({ray['warm_runs']} runs) | wall s ({ray['runs']} runs)"
        " | wall ms per run |",
        "|---|--:|--:|--:|",
    ]
    for executor in ("local", "ray"):
        side = ray[executor]
        lines.append(
            f"| {executor} | {side['start_s']['median']:.2f} | {side['wall_s']['median']:.2f}"
            f" | {side['ms_per_run']['median']:.3f} |"
        )
    lines += [
        "",
        f"Per run = (wall at {ray['runs']} runs - wall at {ray['warm_runs']}) / the difference:"
        f" start-up apart. Ray minus local: {ray['extra_ms_per_run']:+.3f} ms of wall per run"
        " (below zero when the actors' processes use cores that the local executor's one"
        " process cannot), and"
        f" {ray['ray']['start_s']['median'] - ray['local']['start_s']['median']:+.2f} s of"
        " start-up (a local Ray, each actor importing and building the SUT).",
    ]
    return lines
