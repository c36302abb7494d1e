"""The report of ``evals power``: the figures, the sample and the ledger, the scope,
survivors by module with their diffs, crashes apart.

:func:`build` turns the results into one JSON-ready dict (``<label>.json``), :func:`render`
writes it as Markdown (``<label>.md``). Three rates, each with its fraction:

- **raw** = killed / tried: every survivor counts, the equivalent ones too;
- **adjusted** = killed / (tried - equivalent): the mutants listed as equivalent (or
  unreachable from the gated suites) whose premise is not known to fail leave the
  denominator;
- **judged** = killed / (killed + survived - equivalent): only the mutants the gate reached
  a verdict on.

Crashes, timeouts and errors stay in the raw and adjusted denominators and are never
counted as killed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.io.files import write_atomic
from evals.power.equivalents import Equivalent
from evals.power.mutants import STATUSES, Mutant, Status, findings_of, verdict_of
from evals.power.premises import Checked
from evals.power.sampling import Drawn

REPORT_VERSION = 2
"""Bumped whenever a field of the JSON report changes meaning or goes away."""
TAIL_LINES = 15
"""Lines of output kept for a mutant that was not killed."""


@dataclass(frozen=True)
class Result:
    """One mutant run."""

    mutant: Mutant
    """The mutant."""
    status: Status
    """What happened (see :func:`evals.power.mutants.classify`)."""
    exit_code: int | None
    """The test command's exit code (``None``: timeout, error, or no marker line)."""
    seconds: float
    """Wall time of this mutant."""
    output: str
    """What the test command printed (stdout and stderr)."""
    diff: str
    """The mutation, as a unified diff."""
    work: Any = None
    """cosmic-ray's ``WorkResult``, stored in its session database."""


@dataclass(frozen=True)
class Dropped:
    """What was set apart before sampling, for the report."""

    mutants_found: int
    """Every mutant cosmic-ray found."""
    annotation_only: int
    """Dropped: annotation-only."""
    invalid: list[dict[str, str]]
    """Dropped: invalid Python (``id``, ``error``)."""
    out_of_scope: Mapping[str, int]
    """Valid mutants of excluded modules, by exclusion."""
    candidates: int
    """Valid, in scope: what samples are drawn from."""
    anchors: frozenset[str]
    """The anchor of every mutant found (to tell stale equivalents)."""


def _tail(text: str) -> str:
    return "\n".join(text.rstrip().splitlines()[-TAIL_LINES:])


def _rate(numerator: int, denominator: int) -> dict[str, Any]:
    return {
        "killed": numerator,
        "denominator": denominator,
        "rate": numerator / denominator if denominator else None,
    }


def _entry(
    result: Result, equivalent: Equivalent | None, checked: Checked | None, counted: bool
) -> dict[str, Any]:
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
        "verdict": verdict_of(result.output),
        "findings": findings_of(result.output),
        "equivalent": None,
    }
    if equivalent is not None and checked is not None:
        entry["equivalent"] = {
            "class": equivalent.cls,
            "reason": equivalent.reason,
            "premise": {"kind": equivalent.premise.kind, **equivalent.premise.fields},
            "premise_verdict": checked.verdict,
            "premise_detail": checked.detail,
            "counted": counted,
        }
    if result.status != "killed":
        entry["output_tail"] = _tail(result.output)
    return entry


def build(
    *,
    results: Sequence[Result],
    drawn: Drawn,
    dropped: Dropped,
    equivalents: Sequence[Equivalent],
    premises: Mapping[str, Checked],
    scope: Mapping[str, Any],
    ledger: Mapping[str, Any],
    settings: Mapping[str, Any],
    complete: bool,
    wall_s: float,
) -> dict[str, Any]:
    """The whole report as plain data."""
    by_anchor = {e.anchor: e for e in equivalents}

    def counted(r: Result) -> bool:
        e = by_anchor.get(r.mutant.anchor)
        return e is not None and premises[e.anchor].verdict != "fails"

    counts = dict.fromkeys(STATUSES, 0)
    for r in results:
        counts[r.status] += 1
    listed = [r for r in results if r.mutant.anchor in by_anchor]
    eq = [r for r in results if counted(r)]
    killed = counts["killed"]
    tried = len(results)
    judged = sum(1 for r in results if r.status in ("killed", "survived") and not counted(r))
    classes = {
        c: sum(1 for r in eq if by_anchor[r.mutant.anchor].cls == c)
        for c in ("equivalent", "unreachable")
    }
    verdicts: dict[str, int] = {}
    for r in listed:
        v = premises[r.mutant.anchor].verdict
        verdicts[v] = verdicts.get(v, 0) + 1
    earlier_digests = set(ledger.get("earlier_digests", ()))
    fresh = [r for r in results if r.mutant.digest not in earlier_digests]
    fresh_eq = sum(1 for r in fresh if counted(r))
    fresh_killed = sum(1 for r in fresh if r.status == "killed")
    modules: dict[str, dict[str, int]] = {}
    for r in results:
        row = modules.setdefault(
            r.mutant.path,
            {"tried": 0, **dict.fromkeys(STATUSES, 0), "equivalent": 0, "survivors": 0},
        )
        row["tried"] += 1
        row[r.status] += 1
        row["equivalent"] += int(counted(r))
        row["survivors"] += int(r.status == "survived" and not counted(r))
    out_total = sum(dropped.out_of_scope.values())
    in_and_out = dropped.candidates + out_total
    held_out = drawn.purpose == "holdout" and not drawn.reused
    return {
        "version": REPORT_VERSION,
        "complete": complete,
        "wall_s": round(wall_s, 1),
        "settings": dict(settings),
        "scope": {
            **scope,
            "out_of_scope": dict(dropped.out_of_scope),
            "out_of_scope_total": out_total,
            "out_of_scope_share": out_total / in_and_out if in_and_out else None,
        },
        "mutants_found": dropped.mutants_found,
        "annotation_only_dropped": dropped.annotation_only,
        "invalid_dropped": dropped.invalid,
        "candidates": dropped.candidates,
        "sample": {
            "purpose": drawn.purpose,
            "seed": drawn.seed,
            "seed_given": drawn.seed_was_given,
            "size": drawn.size,
            "drawn_from": len(drawn.population),
            "sampled": len(drawn.sample),
            "held_out": held_out,
            "reused": drawn.reused,
            "earlier": [e.as_json() for e in drawn.earlier],
        },
        "ledger": {k: v for k, v in ledger.items() if k != "earlier_digests"},
        "tried": tried,
        "counts": counts,
        "equivalent_in_sample": len(eq),
        "equivalent_classes": classes,
        "equivalent_share": len(eq) / tried if tried else None,
        "premise_verdicts": verdicts,
        "raw_kill_rate": {**_rate(killed, tried), "meaning": "killed / tried"},
        "kill_rate": {
            **_rate(killed, tried - len(eq)),
            "meaning": "killed / (tried - equivalent); crash, timeout and error are in the"
            " denominator and not killed",
        },
        "judged_kill_rate": {
            **_rate(killed, judged),
            "meaning": "killed / (killed + survived - equivalent): only the mutants the gate"
            " reached a verdict on",
        },
        "never_sampled_kill_rate": {
            **_rate(fresh_killed, len(fresh) - fresh_eq),
            "tried": len(fresh),
            "meaning": "the adjusted rate among the tried mutants no earlier sample held",
        },
        "by_module": dict(sorted(modules.items())),
        "equivalent_but_killed": [r.mutant.id for r in listed if r.status == "killed"],
        "premise_fails": [
            {"id": r.mutant.id, "detail": premises[r.mutant.anchor].detail}
            for r in listed
            if premises[r.mutant.anchor].verdict == "fails"
        ],
        "stale_equivalents": [e.anchor for e in equivalents if e.anchor not in dropped.anchors],
        "mutants": [
            _entry(
                r,
                by_anchor.get(r.mutant.anchor),
                premises.get(r.mutant.anchor),
                counted(r),
            )
            for r in results
        ],
    }


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def _frac(rate: Mapping[str, Any]) -> str:
    return f"{rate['killed']}/{rate['denominator']} = {_pct(rate['rate'])}"


def headline(report: Mapping[str, Any]) -> str:
    """What kind of figure this is, in one line."""
    s = report["sample"]
    earlier = [e for e in s["earlier"] if e["shared"] or e["same_seed"]]
    if s["purpose"] == "holdout" and s["held_out"]:
        return (
            f"HELD-OUT sample (seed {s['seed']}, fresh; drawn from the {s['drawn_from']}"
            " candidates no earlier sample held): the figure to report"
        )
    if s["purpose"] == "holdout":
        return (
            f"REUSED sample (seed {s['seed']}): asked for as a holdout but it reuses an earlier"
            " sample; not a figure to report"
        )
    if s["purpose"] == "all":
        shared = sum(e["shared"] for e in earlier)
        return (
            "WHOLE POPULATION (--all): includes the mutants of earlier samples"
            f" ({shared} shared in all); not a held-out figure"
        )
    reuse = "; ".join(
        f"seed {e['seed']} ({e['purpose']}): {e['shared']} shared"
        + (", same seed" if e["same_seed"] else "")
        for e in earlier
    )
    return f"TUNING sample (seed {s['seed']}): not a figure to report, it overstates the power" + (
        f"; reuses {reuse}" if reuse else ""
    )


RANDOM_PART = (
    "the sample runs in an order shuffled by its seed, so those that ran are a random part"
    " of it (a wider interval, not a biased one)"
)
"""What an interrupted report says of the mutants that ran."""


def summary(report: Mapping[str, Any]) -> str:
    """The figures in a few lines (printed at the end of a run)."""
    c = report["counts"]
    head = "" if report["complete"] else f"INCOMPLETE (interrupted; {RANDOM_PART}): "
    sc = report["scope"]
    return (
        f"{head}{headline(report)}\n"
        f"tried {report['tried']} of {report['sample']['sampled']} sampled "
        f"({report['candidates']} candidates; out of scope {sc['out_of_scope_total']}"
        f" = {_pct(sc['out_of_scope_share'])}; dropped before sampling: "
        f"{report['annotation_only_dropped']} annotation-only, "
        f"{len(report['invalid_dropped'])} invalid Python); killed {c['killed']}, "
        f"survived {c['survived']}, crash {c['crash']}, timeout {c['timeout']}, "
        f"error {c['error']}; equivalent {report['equivalent_in_sample']}"
        f" ({_pct(report['equivalent_share'])} of the tried)\n"
        f"raw kill rate {_frac(report['raw_kill_rate'])}; adjusted {_frac(report['kill_rate'])}"
        f"; of the mutants the gate judged {_frac(report['judged_kill_rate'])}; wall time"
        f" {report['wall_s']:.0f}s"
    )


def _section(title: str, entries: Sequence[Mapping[str, Any]], body: str) -> list[str]:
    lines = [f"## {title} ({len(entries)})", ""]
    if not entries:
        return [*lines, "(none)", ""]
    for e in entries:
        where = f" in `{e['definition']}`" if e["definition"] else ""
        lines.append(f"### `{e['id']}`{where}")
        lines.append("")
        lines += [f"anchor: `{e['anchor']}`", ""]
        eq = e["equivalent"]
        if eq:
            lines += [
                f"Listed as {eq['class']}: {eq['reason']}",
                "",
                f"Premise ({eq['premise']['kind']}): {eq['premise_verdict']}:"
                f" {eq['premise_detail']}",
                "",
            ]
        lines += ["```diff", e["diff"].rstrip(), "```", ""]
        if body == "output" and e.get("output_tail"):
            lines += [f"exit code {e['exit_code']}; last lines:", "", "```"]
            lines += [e["output_tail"], "```", ""]
    return lines


def _invalid(invalid: Sequence[Mapping[str, str]]) -> list[str]:
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


def _ledger_lines(report: Mapping[str, Any]) -> list[str]:
    s = report["sample"]
    ledger = report["ledger"]
    origin = (
        "given" if s["seed_given"] else "drawn fresh" if s["purpose"] == "holdout" else "default"
    )
    recorded = "recorded in" if ledger.get("recorded") else "NOT recorded in"
    lines = [
        "## The sample and the ledger",
        "",
        f"Purpose **{s['purpose']}**; seed {s['seed']} ({origin}); size {s['size'] or 'all'};"
        f" drawn from {s['drawn_from']} candidates; {recorded} `{ledger.get('path')}`.",
        "",
    ]
    if not s["earlier"]:
        return [*lines, "No earlier sample in the ledger.", ""]
    lines += [
        "Samples drawn before (a sample that shares a mutant with one of them, or uses its"
        " seed, is reused and never called held out):",
        "",
        "| seed | purpose | size | date | shared with this sample | same seed |",
        "|---|---|---|---|---|---|",
    ]
    for e in s["earlier"]:
        recon = "" if e["recorded_mutants"] else " (reconstructed)"
        lines.append(
            f"| {e['seed']} | {e['purpose']} | {e['size'] or 'all'} | {e['date']} |"
            f" {e['shared']}{recon} | {'yes' if e['same_seed'] else 'no'} |"
        )
    return [*lines, ""]


def render(report: Mapping[str, Any]) -> str:
    """The report as Markdown: figures, scope, sample, then every mutant not killed."""
    c = report["counts"]
    sc = report["scope"]
    st = report["settings"]
    mutants = report["mutants"]
    title = "# Power of the suites on mutants of the project"
    lines = [title if report["complete"] else f"{title} (INCOMPLETE: interrupted)", ""]
    if not report["complete"]:
        lines += [f"Interrupted: {report['tried']} of the sample ran; {RANDOM_PART}.", ""]
    lines += [f"**{headline(report)}.**", ""]
    lines += [
        f"**Raw kill rate: {_frac(report['raw_kill_rate'])}** (killed / tried; every"
        " survivor counted, the equivalent ones too).",
        "",
        f"**Adjusted kill rate: {_frac(report['kill_rate'])}** (killed / (tried -"
        f" equivalent); equivalent {report['equivalent_in_sample']} ="
        f" {_pct(report['equivalent_share'])} of the tried, of which"
        f" {report['equivalent_classes']['unreachable']} unreachable from the gated suites"
        " rather than equivalent). Crashes, timeouts and errors stay in the denominator.",
        "",
        f"Of the mutants the gate reached a verdict on: {_frac(report['judged_kill_rate'])}."
        f" Among the tried mutants no earlier sample held"
        f" ({report['never_sampled_kill_rate']['tried']}):"
        f" {_frac(report['never_sampled_kill_rate'])}.",
        "",
        f"Mutants found: {report['mutants_found']}; dropped before sampling:"
        f" {report['annotation_only_dropped']} annotation-only (never evaluated under"
        f" `from __future__ import annotations`) and {len(report['invalid_dropped'])} invalid"
        f" Python; **out of scope: {sc['out_of_scope_total']} ="
        f" {_pct(sc['out_of_scope_share'])}** of the valid mutants; candidates:"
        f" {report['candidates']}; sampled: {report['sample']['sampled']}; tried:"
        f" {report['tried']}.",
        "",
        "| status | mutants |",
        "|---|---|",
        *[f"| {status} | {n} |" for status, n in c.items()],
        f"| listed as equivalent (of those tried) | {report['equivalent_in_sample']} |",
        "",
        "Premises of the listed mutants in this sample: "
        + (
            ", ".join(f"{v} {n}" for v, n in sorted(report["premise_verdicts"].items()))
            or "(none listed)"
        )
        + " (holds: checked by evals; probe: checked by the project's tests; unchecked: a"
        " claim; fails: not counted as equivalent).",
        "",
        f"Wall time {report['wall_s']:.0f}s; {st['jobs']} at a time; {st['timeout_s']:g}s per"
        f" run; test command `{sc['test_command']}`.",
        "",
        "killed: exit 1 with a `Gate: FAIL` verdict. survived: exit 0 with `Gate: PASS`."
        " crash: anything else (a traceback, exit 2, exit 1 without a verdict). error:"
        " cosmic-ray could not apply the mutation.",
        "",
    ]
    lines += _ledger_lines(report)
    lines += ["## Scope", "", f"Mutated (scope {sc['scope_hash']}):", ""]
    lines += [f"- `{p}`" for p in sc["paths"]]
    lines += ["", "Left out of the figure, each with why:", ""]
    if sc["exclude"]:
        lines += [
            f"- `{p}`: {why} ({sc['out_of_scope'].get(p, 0)} mutants)"
            for p, why in sc["exclude"].items()
        ]
    else:
        lines.append("(nothing)")
    lines += ["", "## By module", ""]
    lines += [
        "| module | tried | killed | survived (not equivalent) | equivalent | crash | timeout |",
        "|---|---|---|---|---|---|---|",
    ]
    for path, row in report["by_module"].items():
        lines.append(
            f"| `{path}` | {row['tried']} | {row['killed']} | {row['survivors']} |"
            f" {row['equivalent']} | {row['crash']} | {row['timeout']} |"
        )
    lines.append("")
    lines += _invalid(report["invalid_dropped"])
    problems = report["stale_equivalents"], report["equivalent_but_killed"], report["premise_fails"]
    if any(problems):
        lines += ["## Equivalents file problems", ""]
        lines += [f"- `{i}`: matches no mutant of the current code (stale)" for i in problems[0]]
        lines += [f"- `{i}`: listed as equivalent but the gate killed it" for i in problems[1]]
        lines += [
            f"- `{p['id']}`: its premise fails ({p['detail']}): counted as a survivor"
            for p in problems[2]
        ]
        lines.append("")
    pick = {status: [m for m in mutants if m["status"] == status] for status in STATUSES}

    def is_counted(m: Mapping[str, Any]) -> bool:
        return bool(m["equivalent"] and m["equivalent"]["counted"])

    lines += _section("Survivors", [m for m in pick["survived"] if not is_counted(m)], "diff")
    lines += _section(
        "Survivors listed as equivalent", [m for m in pick["survived"] if is_counted(m)], "diff"
    )
    lines += _section("Crashes and refusals", pick["crash"], "output")
    lines += _section("Timeouts", pick["timeout"], "diff")
    lines += _section("Errors", pick["error"], "output")
    lines += [f"## Killed ({len(pick['killed'])})", "", "| mutant | first finding |", "|---|---|"]
    lines += [
        f"| `{m['id']}` | {(m['findings'] or ['?'])[0].replace('|', '/')} |" for m in pick["killed"]
    ]
    return "\n".join(lines) + "\n"


def write(report: Mapping[str, Any], out: Path, label: str) -> list[Path]:
    """``<label>.json`` and ``<label>.md`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / f"{label}.json", out / f"{label}.md"
    write_atomic(json_path, json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    write_atomic(md_path, render(report))
    return [md_path, json_path]
