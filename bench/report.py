"""The benchmark's report: ``bench.json`` (every sample) and ``bench.md`` (the table),
with the machine, the date and which targets are met."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import gate_scenario, html_scenario, lint_scenario
from bench.ray_scenario import report_lines, throughput_lines
from bench.scenarios import (
    LINT_RSS_GROWTH_MAX,
    LINT_S_MAX,
    OFFLINE_MS_PER_RUN_MAX,
    OVERHEAD_EXTRA_MS_MAX,
    RSS_GROWTH_MAX,
    STARTUP_EXTRA_S_MAX,
    THROUGHPUT_RATIO_MAX,
)


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions: dict[str, str | None] = {}
    for dist in ("openai", "httpx2", "pydantic", "pydantic-evals"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "git": _git_revision(),
    }


def _git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip()


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target of the issue with the measured value and whether it is met."""
    found: list[dict[str, Any]] = []
    by_name = {s["name"]: s for s in results["scenarios"]}
    if "throughput" in by_name:
        s = by_name["throughput"]
        ratio = s["ratio"]["median"]
        in_flight = s["ours"]["max_in_flight"]
        found.append(
            {
                "target": f"N=1000 C=50 100 ms: ours/reference <= {THROUGHPUT_RATIO_MAX:.2f},"
                f" max in-flight exactly {s['concurrency']}",
                "value": f"{ratio:.3f} (min {s['ratio']['min']:.3f}, max {s['ratio']['max']:.3f});"
                f" in-flight {in_flight}",
                "met": ratio <= THROUGHPUT_RATIO_MAX and in_flight == [s["concurrency"]],
            }
        )
    if "overhead" in by_name:
        s = by_name["overhead"]
        extra = s["extra_ms_per_sample"]["median"]
        ours = s["ours"]["ms_per_sample"]["median"]
        other = s.get("pydantic_evals")
        theirs = other["ms_per_sample"]["median"] if other else None
        found.append(
            {
                "target": f"N=1000 C=1 0 ms: ours - reference <= {OVERHEAD_EXTRA_MS_MAX:.1f} ms per"
                " sample, all costs included, and below pydantic_evals",
                "value": f"ours {ours:.2f} ms, reference"
                f" {s['reference']['ms_per_sample']['median']:.2f} ms: +{extra:.2f} ms"
                f" (min {s['extra_ms_per_sample']['min']:+.2f}, max"
                f" {s['extra_ms_per_sample']['max']:+.2f}); pydantic_evals "
                + (f"{theirs:.2f} ms" if theirs is not None else "not measured"),
                "met": extra <= OVERHEAD_EXTRA_MS_MAX and theirs is not None and ours < theirs,
            }
        )
    if "startup" in by_name:
        s = by_name["startup"]
        ours_s, ref_s = s["ours"]["wall_s"]["median"], s["reference"]["wall_s"]["median"]
        extra_s = s["extra_ms_per_sample"]["median"] / 1000  # N=1: per sample is per start
        found.append(
            {
                "target": f"startup (N=1): ours - reference <= {STARTUP_EXTRA_S_MAX:.1f} s",
                "value": f"ours {ours_s:.3f} s, reference {ref_s:.3f} s: +{extra_s:.3f} s",
                "met": extra_s <= STARTUP_EXTRA_S_MAX,
            }
        )
    offline = results.get("offline")
    if offline:
        ms = offline["small"]["ms_per_run"]["median"]
        found.append(
            {
                "target": f"offline SupportPilot < {OFFLINE_MS_PER_RUN_MAX:.0f} ms per run",
                "value": f"{ms:.2f} ms",
                "met": ms < OFFLINE_MS_PER_RUN_MAX,
            }
        )
        small = offline["small"]["peak_rss_mb"]["median"]
        big = offline["big"]["peak_rss_mb"]["median"]
        growth = big / small - 1
        found.append(
            {
                "target": f"peak RSS at ~10,000 runs within {RSS_GROWTH_MAX:.0%} of ~1,000",
                "value": f"{small:.1f} -> {big:.1f} MiB ({growth:+.1%})",
                "met": growth <= RSS_GROWTH_MAX,
            }
        )
    if results.get("lint"):
        found += lint_scenario.lint_targets(results["lint"], LINT_S_MAX, LINT_RSS_GROWTH_MAX)
    return found


def _range(d: dict[str, float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(d['median'])} ({fmt.format(d['min'])}–{fmt.format(d['max'])})"


def render_markdown(results: dict[str, Any]) -> str:
    """The report as Markdown."""
    m = results["machine"]
    lines = [
        "# Benchmark: evals run vs a plain openai client",
        "",
        f"{m['date']} · {m['cpus']} CPUs ({m['cpu']}) · Python {m['python']}"
        f" · openai {m['versions'].get('openai')} · git {m['git']}",
        "",
        "Medians with (min–max) over the repeats; wall and CPU in seconds, peak RSS in MiB.",
        "Every figure is a fresh child process, start-up included.",
        "",
        "| scenario | N | C | latency | ideal | reference wall | ours wall | ours / ref |"
        " ref CPU | ours CPU | ref RSS | ours RSS | max in-flight ref / ours | ours ms/sample"
        " | server CPU |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in results["scenarios"]:
        ref, ours = s["reference"], s["ours"]
        lines.append(
            f"| {s['name']} | {s['n']} | {s['concurrency']} | {s['latency_s'] * 1000:g} ms"
            f" | {s['ideal_s']:.1f} | {_range(ref['wall_s'])} | {_range(ours['wall_s'])}"
            f" | {_range(s['ratio'], '{:.3f}')} | {_range(ref['cpu_s'])} | {_range(ours['cpu_s'])}"
            f" | {ref['peak_rss_mb']['median']:.0f} | {ours['peak_rss_mb']['median']:.0f}"
            f" | {_in_flight(ref)} / {_in_flight(ours)} | {ours['ms_per_sample']['median']:.2f}"
            f" | {ours['server_cpu_s']['median']:.2f} |"
        )
    others = [s for s in results["scenarios"] if s.get("pydantic_evals")]
    if others:
        lines += [
            "",
            "pydantic_evals on the same cases (`bench/pydantic_evals_side.py`: the same call, two"
            " of its evaluators, no files written):",
            "",
            "| scenario | reference wall | pydantic_evals wall | pydantic_evals / ref | ours / ref"
            " | pydantic_evals ms/sample | ours ms/sample | ours - ref ms/sample |",
            "|---|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for s in others:
            other = s["pydantic_evals"]
            lines.append(
                f"| {s['name']} | {_range(s['reference']['wall_s'])} | {_range(other['wall_s'])}"
                f" | {_range(s['pydantic_evals_ratio'], '{:.3f}')} | {_range(s['ratio'], '{:.3f}')}"
                f" | {other['ms_per_sample']['median']:.2f}"
                f" | {s['ours']['ms_per_sample']['median']:.2f}"
                f" | {_range(s['extra_ms_per_sample'], '{:+.3f}')} |"
            )
    same = results.get("same_process_server")
    if same:
        lines += [
            "",
            f"Reference, {same['name']} scenario, with the fake server inside the client's"
            f" process (its threads share the client's GIL): wall {_range(same['wall_s'])} s,"
            f" CPU {_range(same['cpu_s'])} s; in the table the server runs in the driver"
            " process.",
        ]
    offline = results.get("offline")
    if offline:
        small, big = offline["small"], offline["big"]
        lines += [
            "",
            "## Offline SupportPilot (rule brains, `evals run` over every suite,"
            f" --concurrency {small.get('concurrency', '-')})",
            "",
            "| runs | wall s | ms per run (all included) | SUT latency p50 ms | CPU s"
            " | peak RSS MiB |",
            "|--:|--:|--:|--:|--:|--:|",
        ]
        for o in (small, big):
            lines.append(
                f"| {o['runs']} | {_range(o['wall_s'])} | {_range(o['ms_per_run'])}"
                f" | {o['sut_latency_ms_p50']:.2f} | {_range(o['cpu_s'])}"
                f" | {_range(o['peak_rss_mb'], '{:.1f}')} |"
            )
    isolation = results.get("isolation")
    if isolation:
        lines += [
            "",
            f"## Isolation (`evals run`, one-call SUT, N={isolation['n']},"
            f" C={isolation['concurrency']}, {isolation['latency_s'] * 1000:g} ms model)",
            "",
            "| --isolation | start-up wall s (N=1) | start-up CPU s | wall s | CPU s"
            " | wall ms per run | CPU ms per run |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for mode in ("none", "process"):
            side = isolation[mode]
            lines.append(
                f"| {mode} | {_range(side['start_s'])} | {_range(side['start_cpu_s'])}"
                f" | {_range(side['wall_s'])} | {_range(side['cpu_s'])}"
                f" | {_range(side['ms_per_run'], '{:.3f}')}"
                f" | {_range(side['cpu_ms_per_run'], '{:.3f}')} |"
            )
        lines += [
            "",
            f"CPU includes the worker processes; per run = (N runs - {isolation['warm_n']} runs)"
            f" / (N - {isolation['warm_n']}): start-up and each worker's first calls apart."
            f" Process isolation costs {isolation['extra_cpu_ms_per_run']:.3f} ms of CPU"
            f" ({isolation['extra_ms_per_run']:.3f} ms of wall) per run more, and"
            f" {isolation['extra_start_s']:.2f} s of wall ({isolation['extra_start_cpu_s']:.2f} s"
            " of CPU) at start-up: the workers each import and build the SUT.",
        ]
    if results.get("ray"):
        lines += report_lines(results["ray"])
    if results.get("ray_throughput"):
        lines += throughput_lines(results["ray_throughput"])
    if results.get("gate"):
        lines += gate_scenario.report_lines(results["gate"])
    if results.get("lint"):
        lines += lint_scenario.report_lines(results["lint"])
    if results.get("html"):
        lines += html_scenario.report_lines(results["html"])
    lines += ["", "## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for t in results["targets"]:
        lines.append(f"| {t['target']} | {t['value']} | {'yes' if t['met'] else '**no**'} |")
    return "\n".join(lines) + "\n"


def _in_flight(side: dict[str, Any]) -> str:
    values = side["max_in_flight"]
    return ",".join(str(v) for v in values) if values else "-"


def write_report(out: Path, results: dict[str, Any]) -> list[Path]:
    """Add the machine and the targets to ``results``; write ``bench.json`` and
    ``bench.md`` under ``out``."""
    results = {"machine": machine(), **results}
    results["targets"] = targets(results)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "bench.json", out / "bench.md"
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")
    md_path.write_text(render_markdown(results), "utf-8")
    return [json_path, md_path]
