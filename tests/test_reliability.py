"""scripts/reliability.py judges report files and damaged inputs the way it says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import reliability  # noqa: E402

MD = "## Evals: pair\n\nsuites: read\n"
VERDICT = "\n### Gate verdict\n\nGate: PASS (0 hard, 0 soft)\n"
JUNIT = '<testsuite name="pair" tests="0"/>'
JSON = json.dumps({"runs": 0, "meta": {"label": "pair"}})


@pytest.mark.parametrize(
    ("markdown", "junit", "data", "problem"),
    [
        (MD, JUNIT, JSON, None),
        (MD + VERDICT, JUNIT, JSON, None),
        (MD + VERDICT + VERDICT, JUNIT, JSON, "2 gate verdicts"),
        (MD + MD, JUNIT, JSON, "2 reports"),
        ("", JUNIT, JSON, "0 reports"),
        (MD, JUNIT[:-3], JSON, "ParseError"),
        (MD, JUNIT, JSON[:-2], "JSONDecodeError"),
        (MD, JUNIT, "[]", "not one report"),
    ],
)
def test_whole_reports_flags_mixed_and_torn_files(
    tmp_path: Path, markdown: str, junit: str, data: str, problem: str | None
) -> None:
    (tmp_path / "pair.md").write_text(markdown, encoding="utf-8")
    (tmp_path / "pair.junit.xml").write_text(junit, encoding="utf-8")
    (tmp_path / "pair.json").write_text(data, encoding="utf-8")
    got = reliability.whole_reports(tmp_path, "pair")
    assert (got is None) if problem is None else (got is not None and problem in got)


def test_trace_pairs_skip_a_torn_last_line(tmp_path: Path) -> None:
    rows = [{"case_id": "a", "trial": 0}, {"case_id": "b", "trial": 1}]
    text = "\n".join(json.dumps(r) for r in rows) + '\n{"case_id": "c", "tri'
    (tmp_path / "runs.jsonl").write_text(text, encoding="utf-8")
    assert reliability.trace_pairs(tmp_path) == [("a", 0), ("b", 1)]


@pytest.mark.parametrize(("name", "edit"), reliability.BASELINE_EDITS + reliability.CONFIG_EDITS)
def test_every_damage_changes_the_file(name: str, edit: reliability.Edit) -> None:
    root = Path(__file__).resolve().parents[1]
    source = "baseline" if any(name == n for n, _ in reliability.BASELINE_EDITS) else "config"
    path = root / ("reports/baseline.json" if source == "baseline" else "cases/gate.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    before = reliability.dump(data)
    edit(data)
    assert reliability.dump(data) != before, name
