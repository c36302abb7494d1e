"""evals power: the report's figures (raw beside adjusted, judged), what counts as
equivalent (a failing premise does not), the share out of scope, and the headline that
says whether the figure may be reported."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from evals.power import report as power_report
from evals.power.equivalents import Equivalent, Premise
from evals.power.mutants import Mutant
from evals.power.premises import Checked
from evals.power.sampling import Drawn, Earlier, LedgerEntry, Purpose

GONE = "x.py op #0: y = 1"


def mutant(n: int, path: str = "src/a.py") -> Mutant:
    return Mutant(f"job{n}", path, n, 0, n, 1, "core/NumberReplacer", n, code=f"x = {n}")


def earlier(shared: int, same_seed: bool = False) -> Earlier:
    entry = LedgerEntry(
        seed=1, size=300, purpose="tune", date=datetime.date(2026, 11, 30), scope="s"
    )
    return Earlier(entry, shared, same_seed)


def report_of(
    statuses: list[str],
    equivalent: dict[int, tuple[str, str]] | None = None,
    *,
    purpose: Purpose = "tune",
    prior: list[Earlier] | None = None,
    out_of_scope: dict[str, int] | None = None,
    earlier_digests: list[str] | None = None,
) -> dict[str, Any]:
    """A report of mutants with ``statuses``; ``equivalent`` maps a mutant's index (-1: a
    stale entry) to (class, premise verdict)."""
    sampled = [mutant(n, "src/a.py" if n % 2 else "src/b.py") for n in range(len(statuses))]
    results = [
        power_report.Result(m, s, None, 1.0, "", "diff", None)  # type: ignore[arg-type]
        for m, s in zip(sampled, statuses, strict=True)
    ]
    entries, premises = [], {}
    for n, (cls, verdict) in (equivalent or {}).items():
        anchor = sampled[n].anchor if n >= 0 else GONE
        entries.append(Equivalent(anchor, "why", Premise("claim", {"claim": "c"}), cls))  # type: ignore[arg-type]
        premises[anchor] = Checked(verdict, "detail")  # type: ignore[arg-type]
    drawn = Drawn(purpose, 7, len(sampled), sampled, sampled, prior or [], True)
    dropped = power_report.Dropped(
        mutants_found=len(sampled) + 5,
        annotation_only=3,
        invalid=[{"id": "src/a.py:1:core/X:0", "error": "bad"}],
        out_of_scope=out_of_scope or {},
        candidates=len(sampled),
        anchors=frozenset(m.anchor for m in sampled),
    )
    return power_report.build(
        results=results,
        drawn=drawn,
        dropped=dropped,
        equivalents=entries,
        premises=premises,
        scope={"paths": ["src"], "exclude": {}, "scope_hash": "h", "test_command": "t"},
        ledger={"path": "samples.json", "recorded": True, "earlier_digests": earlier_digests or []},
        settings={"jobs": 2, "timeout_s": 60.0},
        complete=True,
        wall_s=1.0,
    )


@pytest.mark.parametrize(
    ("statuses", "equivalent", "raw", "adjusted", "judged"),
    [
        (["killed", "killed", "survived", "crash"], {}, (2, 4), (2, 4), (2, 3)),
        (
            ["killed", "survived", "timeout", "error"],
            {1: ("equivalent", "holds")},
            (1, 4),
            (1, 3),
            (1, 1),
        ),
        (["killed", "survived"], {1: ("unreachable", "unchecked")}, (1, 2), (1, 1), (1, 1)),
        (["killed", "survived"], {1: ("equivalent", "probe")}, (1, 2), (1, 1), (1, 1)),
        # a failing premise: the survivor counts as one
        (["killed", "survived"], {1: ("equivalent", "fails")}, (1, 2), (1, 2), (1, 2)),
        (["crash", "crash"], {}, (0, 2), (0, 2), (0, 0)),
    ],
)
def test_raw_adjusted_and_judged_rates(
    statuses: list[str],
    equivalent: dict[int, tuple[str, str]],
    raw: tuple[int, int],
    adjusted: tuple[int, int],
    judged: tuple[int, int],
) -> None:
    report = report_of(statuses, equivalent)
    for key, (killed, denominator) in (
        ("raw_kill_rate", raw),
        ("kill_rate", adjusted),
        ("judged_kill_rate", judged),
    ):
        assert (report[key]["killed"], report[key]["denominator"]) == (killed, denominator), key
    text = power_report.render(report)
    assert f"Raw kill rate: {raw[0]}/{raw[1]}" in text
    assert f"Adjusted kill rate: {adjusted[0]}/{adjusted[1]}" in text


def test_the_equivalent_share_and_classes() -> None:
    report = report_of(
        ["survived"] * 4 + ["killed"] * 6,
        {0: ("equivalent", "holds"), 1: ("unreachable", "unchecked"), 2: ("equivalent", "fails")},
    )
    assert report["equivalent_in_sample"] == 2
    assert report["equivalent_share"] == pytest.approx(0.2)
    assert report["equivalent_classes"] == {"equivalent": 1, "unreachable": 1}
    assert report["premise_verdicts"] == {"holds": 1, "unchecked": 1, "fails": 1}
    assert [p["id"] for p in report["premise_fails"]] == [
        mutant(2).id.replace("src/a.py", "src/b.py")
    ]
    assert "its premise fails" in power_report.render(report)


@pytest.mark.parametrize(
    ("equivalent", "stale", "killed"),
    [
        ({0: ("equivalent", "holds")}, [], ["src/b.py:0:core/NumberReplacer:0"]),
        ({-1: ("equivalent", "holds")}, [GONE], []),
    ],
)
def test_equivalents_file_problems(
    equivalent: dict[int, tuple[str, str]], stale: list[str], killed: list[str]
) -> None:
    report = report_of(["killed", "survived"], equivalent)
    assert report["stale_equivalents"] == stale
    assert report["equivalent_but_killed"] == killed
    text = power_report.render(report)
    assert all(item in text for item in stale + killed)


def test_the_share_out_of_scope_and_by_module() -> None:
    report = report_of(
        ["killed", "survived", "survived"],
        {2: ("equivalent", "holds")},
        out_of_scope={"src/harness.py": 3},
    )
    assert report["scope"]["out_of_scope_total"] == 3
    assert report["scope"]["out_of_scope_share"] == pytest.approx(0.5)  # 3 of 3 + 3
    assert report["by_module"]["src/a.py"]["survivors"] == 1
    assert report["by_module"]["src/b.py"]["equivalent"] == 1
    assert report["by_module"]["src/b.py"]["survivors"] == 0


@pytest.mark.parametrize(
    ("purpose", "prior", "expected"),
    [
        ("holdout", [earlier(0)], "HELD-OUT sample (seed 7, fresh"),
        ("tune", [earlier(0)], "TUNING sample (seed 7): not a figure to report"),
        ("tune", [earlier(3)], "reuses seed 1 (tune): 3 shared"),
        ("all", [earlier(5)], "WHOLE POPULATION (--all)"),
        # a holdout that is reused anyway is never called held out
        ("holdout", [earlier(2)], "REUSED sample (seed 7)"),
        ("holdout", [earlier(0, same_seed=True)], "REUSED sample"),
    ],
)
def test_the_headline_says_whether_the_figure_may_be_reported(
    purpose: Purpose, prior: list[Earlier], expected: str
) -> None:
    report = report_of(["killed"], purpose=purpose, prior=prior)
    assert expected in power_report.headline(report)
    assert report["sample"]["held_out"] is expected.startswith("HELD-OUT")
    assert expected in power_report.render(report)


def test_the_rate_among_mutants_no_earlier_sample_held() -> None:
    used = [mutant(0, "src/b.py").digest, mutant(1, "src/a.py").digest]
    report = report_of(["killed", "killed", "survived", "survived"], earlier_digests=used)
    fresh = report["never_sampled_kill_rate"]
    assert (fresh["tried"], fresh["killed"], fresh["denominator"]) == (2, 0, 2)


def test_write(tmp_path: Path) -> None:
    paths = power_report.write(report_of(["killed"]), tmp_path, "power-x")
    assert [p.name for p in paths] == ["power-x.md", "power-x.json"]
    assert all(p.stat().st_size > 0 for p in paths)
