"""The report of ``scripts/power.py``: figures, survivors with their diffs, crashes apart.

``build`` turns the results into one JSON-ready dict (``reports/power.json``);
``render`` writes it as Markdown (``reports/power.md``). The kill rate is
killed / (sampled - equivalent): crashes, timeouts and invalid mutants stay in the
denominator and are never counted as killed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import power_mutants as pm
import power_session as ps

REPORT_VERSION = 1
"""Bumped whenever a field of ``power.json`` changes meaning or goes away."""
TAIL_LINES = 15
"""Lines of output kept for a mutant that was not killed."""


@dataclass(frozen=True)
class Result:
    """One mutant run."""

    mutant: pm.Mutant
    """The mutant."""
    status: pm.Status
    """What happened (see :func:`power_mutants.classify`)."""
    exit_code: int | None
    """The gate's exit code (``None``: timeout, invalid, or no marker line)."""
    seconds: float
    """Wall time of this mutant."""
    output: str
    """What the test command printed (stdout and stderr)."""
    diff: str
    """The mutation, as a unified diff."""
    work: Any = None
    """cosmic-ray's ``WorkResult``, stored in its session database."""


def _tail(text: str) -> str:
    return "\n".join(text.rstrip().splitlines()[-TAIL_LINES:])


def _entry(result: Result, equivalent: pm.Equivalent | None) -> dict[str, Any]:
    m = result.mutant
    entry: dict[str, Any] = {
        "id": m.id,
        "anchor": m.anchor,
        "path": m.path,
        "line": m.line,
        "operator": m.operator,
        "occurrence": m.occurrence,
        "definition": m.definition,
        "status": result.status,
        "exit_code": result.exit_code,
        "seconds": round(result.seconds, 2),
        "diff": result.diff,
        "verdict": pm.verdict_of(result.output),
        "findings": pm.findings_of(result.output),
        "equivalent": equivalent.reason if equivalent else None,
    }
    if result.status != "killed":
        entry["output_tail"] = _tail(result.output)
    return entry


def build(
    *,
    results: Sequence[Result],
    selection: ps.Selection,
    equivalents: Sequence[pm.Equivalent],
    excluded: Mapping[str, str],
    settings: Mapping[str, Any],
    complete: bool,
    wall_s: float,
) -> dict[str, Any]:
    """The whole report as plain data (``power.json``)."""
    by_anchor = {e.anchor: e for e in equivalents}
    known = {m.anchor for m in selection.candidates}
    invalid = [
        {"id": m.id, "error": selection.invalid[m.job_id]}
        for m in selection.mutants
        if m.job_id in selection.invalid
    ]
    counts = {status: 0 for status in pm.STATUSES}
    for r in results:
        counts[r.status] += 1
    equivalent_run = [r for r in results if r.mutant.anchor in by_anchor]
    killed = counts["killed"]
    denominator = len(results) - len(equivalent_run)
    judged = sum(1 for r in results if r.status in ("killed", "survived")) - sum(
        1 for r in equivalent_run if r.status in ("killed", "survived")
    )
    return {
        "version": REPORT_VERSION,
        "complete": complete,
        "wall_s": round(wall_s, 1),
        "settings": dict(settings),
        "excluded_modules": dict(excluded),
        "mutants_found": len(selection.mutants),
        "annotation_only_dropped": len(selection.annotation_only),
        "invalid_dropped": invalid,
        "candidates": len(selection.candidates),
        "sampled": len(selection.sample),
        "tried": len(results),
        "counts": counts,
        "equivalent_in_sample": len(equivalent_run),
        "kill_rate": {
            "killed": killed,
            "denominator": denominator,
            "rate": killed / denominator if denominator else None,
            "meaning": "killed / (tried - equivalent); crash, timeout and error "
            "are in the denominator and not killed",
        },
        "judged_kill_rate": {
            "killed": killed,
            "denominator": judged,
            "rate": killed / judged if judged else None,
            "meaning": "killed / (killed + survived - equivalent): only the mutants the "
            "gate reached a verdict on; crashes, timeouts and errors are left out",
        },
        "equivalent_but_killed": [r.mutant.id for r in equivalent_run if r.status == "killed"],
        "stale_equivalents": [e.anchor for e in equivalents if e.anchor not in known],
        "mutants": [_entry(r, by_anchor.get(r.mutant.anchor)) for r in results],
    }


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def summary(report: Mapping[str, Any]) -> str:
    """The figures in a few lines (printed at the end of a run)."""
    c, k, j = report["counts"], report["kill_rate"], report["judged_kill_rate"]
    head = "" if report["complete"] else "INCOMPLETE (interrupted): "
    return (
        f"{head}tried {report['tried']} of {report['sampled']} sampled "
        f"({report['candidates']} candidates; dropped before sampling: "
        f"{report['annotation_only_dropped']} annotation-only, "
        f"{len(report['invalid_dropped'])} invalid Python); killed {c['killed']}, "
        f"survived {c['survived']}, crash {c['crash']}, timeout {c['timeout']}, "
        f"error {c['error']}; equivalent {report['equivalent_in_sample']}\n"
        f"kill rate {k['killed']}/{k['denominator']} = {_pct(k['rate'])} "
        f"(of the mutants the gate judged: {j['killed']}/{j['denominator']} = "
        f"{_pct(j['rate'])}); wall time {report['wall_s']:.0f}s"
    )


def _section(title: str, entries: Sequence[Mapping[str, Any]], body: str) -> list[str]:
    lines = [f"## {title} ({len(entries)})", ""]
    if not entries:
        return [*lines, "(none)", ""]
    for e in entries:
        where = f" in `{e['definition']}`" if e["definition"] else ""
        lines.append(f"### `{e['id']}`{where}")
        lines.append("")
        if e.get("anchor"):
            lines += [f"anchor: `{e['anchor']}`", ""]
        if e["equivalent"]:
            lines += [f"Listed as equivalent: {e['equivalent']}", ""]
        lines += ["```diff", e["diff"].rstrip(), "```", ""]
        if body == "output" and e.get("output_tail"):
            lines += [f"exit code {e['exit_code']}; last lines:", "", "```"]
            lines += [e["output_tail"], "```", ""]
    return lines


def _invalid(invalid: Sequence[Mapping[str, str]]) -> list[str]:
    """Invalid-Python mutants, counted by operator, then listed."""
    by_operator: dict[str, int] = {}
    for entry in invalid:
        operator = entry["id"].rsplit(":", 2)[1]
        by_operator[operator] = by_operator.get(operator, 0) + 1
    lines = [
        f"## Invalid Python, dropped before sampling ({len(invalid)})",
        "",
        "cosmic-ray reads `*args`, `**kwargs` and `{**d}` as binary operators "
        "(`^kwargs`): these are not mutants of the program and never run.",
        "",
    ]
    lines += [f"- {op}: {n}" for op, n in sorted(by_operator.items())]
    lines += ["", "<details><summary>every one</summary>", ""]
    lines += [f"- `{e['id']}`: {e['error']}" for e in invalid]
    return [*lines, "", "</details>", ""]


def render(report: Mapping[str, Any]) -> str:
    """The report as Markdown: figures, exclusions, then every mutant not killed."""
    c, k, j = report["counts"], report["kill_rate"], report["judged_kill_rate"]
    s = report["settings"]
    mutants = report["mutants"]
    title = "# Power of the suites on mutants of SupportPilot"
    lines = [title if report["complete"] else f"{title} (INCOMPLETE: interrupted)", ""]
    lines += [
        f"Mutants found by cosmic-ray: {report['mutants_found']}; dropped before sampling: "
        f"{report['annotation_only_dropped']} annotation-only (never evaluated under "
        "`from __future__ import annotations`) and "
        f"{len(report['invalid_dropped'])} invalid Python (see below); "
        f"candidates: {report['candidates']}; "
        f"sampled: {report['sampled']} (sample {s['sample'] or 'all'}, seed {s['seed']}); "
        f"tried: {report['tried']}.",
        "",
        "| status | mutants |",
        "|---|---|",
        *[f"| {status} | {n} |" for status, n in c.items()],
        f"| equivalent (of those tried) | {report['equivalent_in_sample']} |",
        "",
        f"**Kill rate: {k['killed']} / {k['denominator']} = {_pct(k['rate'])}** "
        "(killed / (tried - equivalent); crashes, timeouts and errors "
        "stay in the denominator and are not killed).",
        "",
        f"Of the mutants the gate reached a verdict on (crashes, timeouts and errors left "
        f"out, as the harness fell over before the suites could judge): "
        f"{j['killed']} / {j['denominator']} = {_pct(j['rate'])}.",
        "",
        f"Wall time {report['wall_s']:.0f}s; {s['jobs']} at a time; "
        f"{s['timeout_s']:g}s per gate run; test command `{s['test_command']}`.",
        "",
        "killed: exit 1 with a `Gate: FAIL` verdict. survived: exit 0 with `Gate: PASS`. "
        "crash: anything else (a traceback, exit 2, exit 1 without a verdict). "
        "error: cosmic-ray could not apply the mutation.",
        "",
        "## Left out of the figure",
        "",
        "Modules only the OpenAI brains run (no offline suite exercises them):",
        "",
        *[f"- `{path}`: {why}" for path, why in report["excluded_modules"].items()],
        "",
    ]
    lines += _invalid(report["invalid_dropped"])
    if report["stale_equivalents"] or report["equivalent_but_killed"]:
        lines += ["## Equivalents file problems", ""]
        lines += [
            f"- `{i}`: matches no mutant of the current code (stale)"
            for i in report["stale_equivalents"]
        ]
        lines += [
            f"- `{i}`: listed as equivalent but the gate killed it"
            for i in report["equivalent_but_killed"]
        ]
        lines.append("")
    pick = {status: [m for m in mutants if m["status"] == status] for status in pm.STATUSES}
    survivors = [m for m in pick["survived"] if not m["equivalent"]]
    lines += _section("Survivors", survivors, "diff")
    lines += _section(
        "Survivors listed as equivalent", [m for m in pick["survived"] if m["equivalent"]], "diff"
    )
    lines += _section("Crashes and refusals", pick["crash"], "output")
    lines += _section("Timeouts", pick["timeout"], "diff")
    lines += _section("Errors", pick["error"], "output")
    lines += [f"## Killed ({len(pick['killed'])})", "", "| mutant | first finding |", "|---|---|"]
    lines += [
        f"| `{m['id']}` | {(m['findings'] or ['?'])[0].replace('|', '/')} |" for m in pick["killed"]
    ]
    return "\n".join(lines) + "\n"


def write(report: Mapping[str, Any], out: Path) -> list[Path]:
    """``power.json`` and ``power.md`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "power.json", out / "power.md"
    json_path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", "utf-8")
    md_path.write_text(render(report), encoding="utf-8")
    return [md_path, json_path]
