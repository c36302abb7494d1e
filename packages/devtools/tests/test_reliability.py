"""devtools.reliability judges report files and damaged inputs the way it says."""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path

import pytest
from devtools import REPO_ROOT, reliability

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
    root = REPO_ROOT
    source = "baseline" if any(name == n for n, _ in reliability.BASELINE_EDITS) else "config"
    path = root / ("reports/baseline.json" if source == "baseline" else "cases/gate.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    before = reliability.dump(data)
    edit(data)
    assert reliability.dump(data) != before, name


# --- hostile ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("err", "words", "expected"),
    [
        ("evals: error: x.json: is a FIFO, not read\n", "not read", True),
        ("evals: error: x.json: not JSON\n", "not read", False),
        ("", "not read", False),
        ("a traceback line\nevals: error: not read\n", "not read", False),
        (  # argparse's usage lines before the error
            "usage: evals run [-h]\n         [--suite S]\nevals run: error: --resume: must be\n",
            "must be",
            True,
        ),
        ("evals: error: not read\n\n", "not read", True),
    ],
)
def test_one_line_is_the_last_stderr_line_alone(err: str, words: str, expected: bool) -> None:
    assert reliability.one_line(err, words) is expected


@pytest.mark.parametrize(
    ("out", "expected"),
    [
        ("Gate: FAIL (1 hard, 0 soft)\n", True),
        ("Gate: PASS (0 hard, 0 soft)\nGate: FAIL (1 hard, 0 soft)\n", False),  # a PASS shown
        ("Gate: FAIL (1 hard, 0 soft)\nGate: PASS (0 hard, 0 soft)\n", False),
        ("no verdict\n", False),
    ],
)
def test_gate_failed_wants_fail_last_and_no_pass(out: str, expected: bool) -> None:
    assert reliability.gate_failed(out) is expected


def test_changed_sees_what_appeared_vanished_or_changed_but_what_may_change() -> None:
    before = {"p/cases/gate.json": b"{}", "p/reports/gate.json": b"1", "p/traces": None}
    after = {
        "p/cases/gate.json": b"{} ",  # changed
        "p/reports/gate.json": b"2",  # may change
        "p/traces": None,
        "p/traces/r/.resume.lock": b"",  # a resume's lock may always appear
        "x.json": b"{}",  # appeared
    }
    assert reliability.changed(before, after, ("*/reports/gate.*",)) == [
        "p/cases/gate.json",
        "x.json",
    ]
    assert reliability.changed(before, {}, ()) == sorted(before)


def test_snapshot_reads_regular_files_only(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_bytes(b"x")
    (tmp_path / "zero").symlink_to("/dev/zero")
    assert reliability.snapshot(tmp_path) == {"a": None, "a/f": b"x", "zero": None}


@pytest.mark.parametrize(
    ("text", "problem"),
    [('{"a": 1.5}', None), ('{"a": NaN}', "NaN"), ("[-Infinity]", "-Infinity"), ("{", "")],
)
def test_strict_json_refuses_nan_and_infinities(
    tmp_path: Path, text: str, problem: str | None
) -> None:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    found = reliability.strict_json(path)
    assert (found is None) if problem is None else (found is not None and problem in found)


ROW = reliability.Row("s", "evals x", "2", "2", one_line=True, no_traceback=True,
                      nothing_lost=True)  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "ok"),
    [
        ({}, True),
        ({"actual": "0"}, False),
        ({"actual": "hung"}, False),
        ({"one_line": False}, False),
        ({"no_traceback": False}, False),
        ({"nothing_lost": False}, False),
        ({"actual": "-", "note": "skipped: ray extra missing"}, True),
    ],
)
def test_a_row_is_ok_only_when_every_criterion_holds(changes: dict[str, object], ok: bool) -> None:
    row = dataclasses.replace(ROW, **changes)
    assert row.ok is ok
    assert ("BAD" in reliability.render_rows([row]).splitlines()[1]) is not ok


def test_the_attacks_are_named_once_and_their_sut_compiles() -> None:
    names = [attack.name for attack in reliability.attacks()]
    assert len(names) == len(set(names))
    compile(reliability.HOSTILE_SUT, "hostile_sut.py", "exec")
    hows = {attack.env.get("HOSTILE_HOW") for attack in reliability.attacks()} - {None}
    assert all(f'"{how}"' in reliability.HOSTILE_SUT for how in hows)


@pytest.mark.parametrize("where", sorted(reliability.SPECIAL_INPUTS))
def test_every_special_input_is_given_the_special_file(tmp_path: Path, where: str) -> None:
    argv = reliability.special("/dev/zero", where)(tmp_path)
    assert "/dev/zero" in argv and "{}" not in argv
    argv = reliability.special("fifo", where)(tmp_path)
    assert "pipe.json" in argv and stat.S_ISFIFO((tmp_path / "pipe.json").stat().st_mode)
