"""Hostile case files: every one is one clear problem line (file, line, field), never a
traceback, a hang or a line that lies about what it quotes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import evals.cli.main as cli
import pytest
from evals._text import id_key, id_problem, printable, quote
from evals.cases.lint import lint, lint_paths
from evals.cases.loader import load_cases
from evals.errors import CaseFileError
from support_rules import SUPPORT_RULES

GOOD: dict[str, Any] = {
    "id": "c1",
    "split": "dev",
    "tags": ["happy"],
    "input": {"goal": "包裹一直没到", "order_id": "A1001"},
    "expect": {"outcome": "replied", "tickets": 1, "dispatched": ["order_agent"]},
}


def line(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes}, ensure_ascii=True)


def problems_of(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "bad.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_cases([path], rules=SUPPORT_RULES)  # SupportPilot's vocabulary, as its SUT declares
    return info.value.lines()


DEEP = line(world={"stock": json.loads("[" * 200 + "]" * 200)})
VERY_DEEP = line()[:-1] + ', "world": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        (VERY_DEEP, "(json)", "nested deeper than 64 levels"),
        (DEEP, "world.stock.0.…", "nested deeper than 64 levels"),
        (
            line()[:-1].replace('"tickets": 1', '"tickets": ' + "9" * 5000) + "}",
            "(json)",
            "over 4300 digits",
        ),
        (line(title="a\ud800b"), "title", "lone surrogate in string 'a\\ud800b'"),
        (line(input={"goal": "g", "x\udc00": 1}), "input", "lone surrogate in key"),
        (line(id="a\nGate: PASS"), "id", "holds \\x0a"),
        (line(id="a\x00"), "id", "holds \\x00"),
        (line(id="a\x1b[0m"), "id", "holds \\x1b"),
        (line(id="a\u200bb"), "id", "ZERO WIDTH SPACE"),
        (line(id=" c1"), "id", "leading or trailing whitespace"),
        (line(id="c1 "), "id", "leading or trailing whitespace"),
        (line(id="e\u0301"), "id", "not NFC-normalised"),
        (line(id="x" * 129), "id", "longer than 128 characters (129)"),
        (line(split="s" * 2_000_000), "split", "… (2000002 characters)"),
    ],
)
def test_hostile_lines_are_one_problem_each(
    tmp_path: Path, text: str, field: str, words: str
) -> None:
    found = problems_of(tmp_path, text)
    assert len(found) == 1, found
    prefix = f"{tmp_path / 'bad.jsonl'}:1: {field}: "
    assert found[0].startswith(prefix), found
    assert words in found[0], found
    assert found[0].isprintable()
    assert len(found[0]) < 600


@pytest.mark.parametrize("case_id", ["c1", "t-09", "退货 01", "x" * 128, "é"])
def test_good_ids_load(tmp_path: Path, case_id: str) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text(line(id=case_id) + "\n", encoding="utf-8")
    assert [c.id for c in load_cases([path])] == [case_id]


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (os.mkfifo, "is a FIFO"),
        (os.mkdir, "is a directory"),
    ],
)
def test_a_non_regular_file_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, words: str
) -> None:
    path = tmp_path / "special.jsonl"
    make(path)  # a FIFO nobody writes to: opening it would block for ever
    with pytest.raises(CaseFileError) as info:
        load_cases([path])
    [problem] = info.value.lines()
    assert problem.startswith(f"{path}:0: (file): {words}")
    assert cli.main(["lint", "--cases", str(path)]) == 1
    assert f"{path}:0: unreadable: (file): {words}" in capsys.readouterr().out


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="needs /dev/null")
def test_a_device_is_refused() -> None:
    with pytest.raises(CaseFileError) as info:
        load_cases(["/dev/null"])
    assert info.value.lines() == ["/dev/null:0: (file): is a device, not a case file; not read"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("t01", "T01"),
        ("t01", "t01 "),
        ("t01", "t\u200b01"),
        ("t01", "ｔ０１"),
        ("é1", "e\u03011"),
    ],
)
def test_near_duplicate_ids_are_flagged_by_lint(first: str, second: str) -> None:
    cases = [{**GOOD, "id": first}, {**GOOD, "id": second, "split": "test"}]
    found = [f for f in lint(cases) if f.rule == "near_duplicate_id"]
    assert [f.case_id for f in found] == [second]
    assert id_key(first) == id_key(second)


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        ({**GOOD, "tags": [{}]}, "no_tags"),
        ({**GOOD, "tags": [[1], "happy"], "split": {"a": 1}}, "unknown_split"),
        ({**GOOD, "expect": {"outcome": ["x"]}}, "unknown_outcome"),
        ({**GOOD, "id": "a\nb"}, "bad_id"),
        ({**GOOD, "id": 7}, "bad_id"),
    ],
)
def test_lint_judges_odd_values_without_a_traceback(data: dict[str, Any], rule: str) -> None:
    found = lint([data])
    assert rule in {f.rule for f in found}
    assert all(f.render().isprintable() for f in found)


def test_lint_paths_reports_unreadable_hostile_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(VERY_DEEP + "\n" + line(id="c2", title="\ud800") + "\n", encoding="utf-8")
    found = [f for f in lint_paths([path]) if f.rule == "unreadable"]
    assert [f.line for f in found] == [1, 2]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain 中文", "plain 中文"),
        ("a\nb", "a\\x0ab"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("lone\ud800", "lone\\ud800"),
        ("line\u2028sep", "line\\u2028sep"),
    ],
)
def test_printable_escapes_what_a_terminal_must_not_see(text: str, expected: str) -> None:
    assert printable(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("short", "'short'"),
        ("x" * 300, "'" + "x" * 199 + "… (302 characters)"),
        # repr refuses an integer of more than 4,300 digits
        pytest.param(10**5000, "<int>", id="huge-int"),
    ],
)
def test_quote_cuts_long_values(value: Any, expected: str) -> None:
    assert quote(value) == expected


@pytest.mark.parametrize(
    ("case_id", "words"),
    [
        ("ok-1", None),
        ("", "must not be empty"),
        ("a\tb", "holds \\x09"),
        ("\u00a0x", "holds"),
    ],
)
def test_id_problem(case_id: str, words: str | None) -> None:
    problem = id_problem(case_id)
    if words is None:
        assert problem is None
    else:
        assert problem is not None and words in problem
