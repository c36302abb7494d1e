"""The lint scenario (``python -m bench.run --only lint``): ``evals lint --cases FILE`` of
generated case files of 10,000, 100,000 and 1,000,000 lines: wall, CPU and peak RSS.

Each file cycles through every case line of ``cases/*.jsonl`` but the suites apart's
(they lint with SUT options of their own), in file order, every copy with an id and a
goal of its own: real cases' shapes and sizes (about 2.3 KB a line, the longest 190 KB),
no duplicate ids, no leakage, so the file lints clean (exit 0) with SupportPilot's
``check_case`` asked about every run case, as ``evals lint`` in this repository does.
A file is written to the work folder, measured, and deleted (the 1,000,000-line one is
about 2.3 GB). The measured child is ``evals lint`` itself (:func:`bench.measure.measure`:
``ru_maxrss`` of the reaped child), start-up included.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.measure import Sample, measure, spread

MIB = 1024 * 1024


@dataclass(frozen=True)
class LintScenario:
    """``evals lint`` of generated case files, small to big."""

    name: str = "lint"
    """Name used with ``--only``."""
    sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000)
    """Lines (cases) of each file measured."""
    repeats: int = 1
    """Measurements of each size."""


LINT = LintScenario()


def template_lines(root: Path) -> list[dict[str, Any]]:
    """Every case of ``root``'s suites, parsed, but the suites apart's."""
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    apart = set(pyproject["tool"]["evals"].get("suite_options", {}))
    cases: list[dict[str, Any]] = []
    for path in sorted((root / "cases").glob("*.jsonl")):
        if path.stem in apart:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if text and not text.startswith("#"):
                cases.append(json.loads(text))
    return cases


_ID = "\x00id\x00"
_GOAL = "\x00goal\x00"


def _pattern(case: dict[str, Any]) -> tuple[str, str, str]:
    """A case line cut around its id's and its goal's suffixes: copies are written by
    joining strings, not by serialising 1,000,000 objects."""
    copy = dict(case, id=case["id"] + _ID, input=dict(case["input"]))
    copy["input"]["goal"] = copy["input"]["goal"] + _GOAL
    line = json.dumps(copy, ensure_ascii=False)
    # json.dumps writes the marker's NUL as \u0000: cut there.
    head, rest = line.split(json.dumps(_ID)[1:-1], 1)
    middle, tail = rest.split(json.dumps(_GOAL)[1:-1], 1)
    return head, middle, tail


def write_lint_cases(path: Path, n: int, root: Path) -> int:
    """Write ``n`` case lines to ``path`` (see the module); return its size in bytes."""
    patterns = [_pattern(case) for case in template_lines(root)]
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            head, middle, tail = patterns[i % len(patterns)]
            f.write(f"{head}-{i:07d}{middle} ({i}){tail}\n")
    return path.stat().st_size


def run_lint(
    scenario: LintScenario, work: Path, evals: list[str], env: dict[str, str], cwd: str
) -> dict[str, Any]:
    """Measure ``evals lint --cases FILE`` at every size; the file must lint clean."""
    root = Path(cwd)
    sizes: list[dict[str, Any]] = []
    warm = work / "lint-warm.jsonl"
    write_lint_cases(warm, 1_000, root)
    measure([*evals, "lint", "--cases", str(warm)], env, cwd)  # unmeasured: caches warm
    warm.unlink()
    for n in scenario.sizes:
        path = work / f"lint-{n}.jsonl"
        size = write_lint_cases(path, n, root)
        samples: list[Sample] = []
        for _ in range(scenario.repeats):
            # exit 0 or the measurement raises: a fast lint that found problems is no result
            samples.append(measure([*evals, "lint", "--cases", str(path)], env, cwd))
            print(f"  lint {n:,} lines ({size / MIB:,.0f} MiB): {samples[-1].wall_s:.2f}s"
                  f" {samples[-1].peak_rss_mb:.0f} MiB", file=sys.stderr)  # fmt: skip
        path.unlink()
        sizes.append(
            {
                "lines": n,
                "file_mib": size / MIB,
                "wall_s": spread([s.wall_s for s in samples]),
                "cpu_s": spread([s.cpu_s for s in samples]),
                "us_per_line": spread([s.wall_s / n * 1e6 for s in samples]),
                "peak_rss_mb": spread([s.peak_rss_mb for s in samples]),
                "samples": [s.summary() for s in samples],
            }
        )
    return {"name": scenario.name, "sizes": sizes}


def report_lines(result: dict[str, Any]) -> list[str]:
    """The lint scenario's section of ``bench.md``."""
    lines = [
        "",
        "## Lint (`evals lint --cases FILE`, generated from `cases/*.jsonl`, SupportPilot's"
        " `check_case` asked)",
        "",
        "| lines | file MiB | wall s | CPU s | µs per line (wall) | peak RSS MiB |",
        "|--:|--:|--:|--:|--:|--:|",
    ]
    for size in result["sizes"]:
        lines.append(
            f"| {size['lines']:,} | {size['file_mib']:,.0f} | {size['wall_s']['median']:.2f}"
            f" | {size['cpu_s']['median']:.2f} | {size['us_per_line']['median']:.1f}"
            f" | {size['peak_rss_mb']['median']:.1f} |"
        )
    return lines


def lint_targets(
    result: dict[str, Any], seconds_max: float, rss_growth_max: float
) -> list[dict[str, Any]]:
    """The issue's lint targets, when the sizes measured include them: the biggest file
    within ``seconds_max``; peak RSS at the biggest within ``rss_growth_max`` of the
    smallest's."""
    by_lines = {s["lines"]: s for s in result["sizes"]}
    found: list[dict[str, Any]] = []
    if 1_000_000 in by_lines:
        wall = by_lines[1_000_000]["wall_s"]["median"]
        found.append(
            {
                "target": f"evals lint of 1,000,000 lines < {seconds_max:.0f} s",
                "value": f"{wall:.1f} s",
                "met": wall < seconds_max,
            }
        )
    if len(by_lines) > 1:
        small, big = by_lines[min(by_lines)], by_lines[max(by_lines)]
        low, high = small["peak_rss_mb"]["median"], big["peak_rss_mb"]["median"]
        growth = high / low - 1
        found.append(
            {
                "target": f"evals lint: peak RSS at {big['lines']:,} lines within"
                f" {rss_growth_max:.0%} of {small['lines']:,}",
                "value": f"{low:.1f} -> {high:.1f} MiB ({growth:+.1%})",
                "met": growth <= rss_growth_max,
            }
        )
    return found


def parse_sizes(text: str) -> tuple[int, ...]:
    """``--lint-sizes 10000,100000`` -> ``(10000, 100000)``."""
    sizes = tuple(int(part) for part in text.split(",") if part.strip())
    if not sizes or min(sizes) < 1:
        raise ValueError(f"lint sizes must be positive line counts, got {text!r}")
    return sizes


def sizes_of(values: Sequence[int]) -> str:
    """How the sizes read in a progress line."""
    return ", ".join(f"{n:,}" for n in values)
