"""Lint streams: findings are what they always were, line by line, and it holds no record.

The expected findings of each scenario below were produced by lint as it was before it
streamed (every record of every file in memory, then the rules): the streamed path must
say exactly the same, in the same order.
"""

from __future__ import annotations

import itertools
import json
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from evals.cases import case_file, validation
from evals.cases import lint as lint_module
from evals.cases.case_file import iter_records, line_start, raw_lines, read_records
from evals.cases.lint import lint, lint_files
from evals.cases.vocabulary import CaseRules
from evals.cli import main as cli
from evals.errors import LintError, Problem
from evals.model.case import Case

RULES = CaseRules(outcomes=("answered", "refused"), required_tags=("hours", "refund"))


class StokSUT:
    """A SUT whose ``check_case`` refuses a world key it does not know (``stok``)."""

    case_rules = RULES

    def check_case(self, case: Case) -> list[str]:
        return ["world.stok: unknown key 'stok'"] if "stok" in case.world else []


def c(case_id: str, split: str = "train", goal: str = "", **fields: Any) -> dict[str, Any]:
    """A neutral case; its goal is its id unless given, so no two cases share a task."""
    data: dict[str, Any] = {
        "id": case_id,
        "split": split,
        "tags": ["hours", "refund"],
        "input": {"goal": goal or f"goal of {case_id}"},
        "expect": {"outcome": "answered"},
    }
    data.update(fields)
    return data


Line = dict[str, Any] | str | bytes
"""A case (written as JSON), a line as text, or a line as bytes."""

NEAR = "(they differ only by case, whitespace, zero-width characters, fullwidth forms or NFC/NFD)"
TUNING = "in another split; a case seen while tuning inflates the test score"

SCENARIOS: list[tuple[str, dict[str, list[Line]], list[str]]] = [
    (
        "duplicates across files",
        {
            "a.jsonl": [c("a1"), c("a2"), c("a3", world={"stok": 1})],
            "b.jsonl": [
                c("a2", goal="another task", world={"stok": 1}),  # repeats an id: not asked
                c("A1", goal="a third task", world={"stok": 2}),  # only looks like a1: asked
                c("ｂ1"),
                c("b1"),
                c("a2", goal="a fourth task"),
            ],
        },
        [
            "{dir}/a.jsonl:3: case 'a3': sut_check: world.stok: unknown key 'stok'",
            "{dir}/b.jsonl:2: case 'A1': sut_check: world.stok: unknown key 'stok'",
            "{dir}/b.jsonl:1: case 'a2': duplicate_id: id 'a2' already used at {dir}/a.jsonl:2",
            f"{{dir}}/b.jsonl:2: case 'A1': near_duplicate_id: id 'A1' looks like 'a1' at"
            f" {{dir}}/a.jsonl:1 {NEAR}",
            f"{{dir}}/b.jsonl:4: case 'b1': near_duplicate_id: id 'b1' looks like 'ｂ1' at"
            f" {{dir}}/b.jsonl:3 {NEAR}",
            "{dir}/b.jsonl:5: case 'a2': duplicate_id: id 'a2' already used at {dir}/a.jsonl:2",
        ],
    ),
    (
        "leakage across splits",
        {
            "a.jsonl": [
                c("t1", goal="same"),
                c("t2", goal="same"),
                c("t3", goal="kept apart", world={"x": 1}),
                c("t4", goal="kept apart"),
            ],
            "b.jsonl": [
                c("h1", "test", goal="same"),
                c("h2", "test", goal="kept apart", world={"x": 1}),
                c("h3", "test", goal="same", expect={"refused": []}),  # configuration: no leak
                c("h4", "test"),
            ],
        },
        [
            f"{{dir}}/a.jsonl:1: case 't1': leakage: same input, world and faults as t2 (train),"
            f" h1 (test) {TUNING}",
            f"{{dir}}/a.jsonl:2: case 't2': leakage: same input, world and faults as t1 (train),"
            f" h1 (test) {TUNING}",
            f"{{dir}}/b.jsonl:1: case 'h1': leakage: same input, world and faults as t1 (train),"
            f" t2 (train) {TUNING}",
            f"{{dir}}/a.jsonl:3: case 't3': leakage: same input, world and faults as h2 (test)"
            f" {TUNING}",
            f"{{dir}}/b.jsonl:2: case 'h2': leakage: same input, world and faults as t3 (train)"
            f" {TUNING}",
        ],
    ),
    (
        "unreadable lines in the middle",
        {
            "a.jsonl": [
                c("u1"),
                "{not json",
                c("u2"),
                b'{"id": "u3", "title": "caf\xe9"}',
                "[1, 2]",
                "# a comment, then a blank line",
                "",
                '{"id": "u4", "id": "u5", "split": "train", "tags": ["hours"], "input": {},'
                ' "expect": {}}',
                c("u6"),
                "[" * 70 + "]" * 70,
                '{"id": "u7", "title": "\\ud800"}',
                c("u8"),
            ]
        },
        [
            # Every unreadable line in file order (a newcomer's finding: 3, 8, 7 before).
            "{dir}/a.jsonl:2: unreadable: (json): bad JSON: Expecting property name"
            " enclosed in double quotes at column 2",
            "{dir}/a.jsonl:4: unreadable: (file): not UTF-8: byte 0xe9 at column 27",
            "{dir}/a.jsonl:5: unreadable: not a JSON object (one case per line)",
            "{dir}/a.jsonl:8: unreadable: (json): duplicate key 'id'",
            "{dir}/a.jsonl:10: unreadable: 0.0.0.…: nested deeper than 64 levels",
            "{dir}/a.jsonl:11: unreadable: title: lone surrogate in string '\\ud800'",
        ],
    ),
    (
        "an invalid case",
        {
            "a.jsonl": [
                c("i1"),
                c("i2", tags="hours", world=[]),
                c("i3", expect={"outcome": "answered", "tickets": -1, "tikets": 0}),
                {"id": 7, "split": "", "input": {"goal": "g"}, "expect": {}},
                c("i4", faults={"billing": "Melt down"}),
            ]
        },
        [
            "{dir}/a.jsonl:2: case 'i2': invalid: tags: expected array, got string 'hours'",
            "{dir}/a.jsonl:2: case 'i2': invalid: world: expected object, got array []",
            "{dir}/a.jsonl:3: case 'i3': invalid: expect.tickets: must be >= 0, got -1",
            "{dir}/a.jsonl:2: case 'i2': no_tags: no tags",
            "{dir}/a.jsonl:3: case 'i3': unknown_expect_key: unknown expectation 'tikets'; no"
            " check reads it (did you mean 'tickets'?)",
            "{dir}/a.jsonl:4: bad_id: id must be a string, got 7",
            "{dir}/a.jsonl:4: unknown_split: unknown split ''",
            "{dir}/a.jsonl:4: no_tags: no tags",
            "{dir}/a.jsonl:5: case 'i4': unknown_fault_role: fault on unknown role 'billing';"
            " known: ",
            "{dir}/a.jsonl:5: case 'i4': unknown_fault_kind: unknown fault kind 'Melt down'",
        ],
    ),
    (
        "set-wide rules",
        {
            "a.jsonl": [
                c("s1", faults={"billing": "crash"}),  # billing: dispatched in b.jsonl
                c("s2", faults={"ghost": "crash"}),
                c("s3", tags=["hours"]),
                c(
                    "s4",
                    "test",
                    tags=["refund"],
                    expect={"refused": ["faults.ghost: unknown"]},
                    faults={"ghost": "crash"},
                ),
            ],
            "b.jsonl": [
                c("s5", expect={"outcome": "answered", "dispatched": ["billing"]}),
                c("s6", "holdout", tags=["hours"]),
            ],
        },
        [
            "{dir}/a.jsonl:2: case 's2': unknown_fault_role: fault on unknown role 'ghost';"
            " known: billing",
            "case set: small_split: split 'test' has 1 case(s) (s4); the minimum is 3",
            "case set: small_split: split 'holdout' has 1 case(s) (s6); the minimum is 3",
        ],
    ),
]


def write(folder: Path, files: dict[str, list[Line]]) -> list[Path]:
    """Write each file's lines, one a line."""
    paths = []
    for name, lines in files.items():
        raw = b"".join(
            (
                line
                if isinstance(line, bytes)
                else (
                    line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)
                ).encode("utf-8", "surrogatepass")
            )
            + b"\n"
            for line in lines
        )
        (folder / name).write_bytes(raw)
        paths.append(folder / name)
    return paths


@pytest.mark.parametrize(
    ("files", "expected"),
    [pytest.param(files, expected, id=name) for name, files, expected in SCENARIOS],
)
def test_streamed_findings_are_the_reference_findings(
    tmp_path: Path, files: dict[str, list[Line]], expected: list[str]
) -> None:
    paths = write(tmp_path, files)
    report = lint_files(paths, sut=StokSUT())
    rendered = [f.render().replace(str(tmp_path), "{dir}") for f in report.findings]
    assert rendered == expected
    records, _ = read_records(paths)
    assert report.cases == sum(isinstance(r.data, dict) for r in records)


@pytest.mark.parametrize("files", [pytest.param(files, id=name) for name, files, _ in SCENARIOS])
def test_lint_files_ends_with_what_lint_says_of_the_records(
    tmp_path: Path, files: dict[str, list[Line]]
) -> None:
    """The file path and the in-memory path judge the same cases the same way: what
    :func:`lint` says of the records read is how :func:`lint_files`' findings end."""
    paths = write(tmp_path, files)
    records = [r for r in iter_records(paths) if not isinstance(r, Problem)]
    held = lint([r for r in records if isinstance(r.data, dict)], rules=RULES)
    streamed = lint_files(paths, sut=StokSUT()).findings
    assert streamed[len(streamed) - len(held) :] == held


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("min_split_size", 1, ["small_split: split 'test' has 0 case(s); the minimum is 1"]),
        ("required_tags", ("hours", "night"), ["missing_tag: no case covers required tag 'night'"]),
        ("known_roles", ("ghost",), []),
    ],
)
def test_set_wide_options_are_held_at_the_end(
    tmp_path: Path, option: str, value: Any, expected: list[str]
) -> None:
    """Declared splits judged even when empty, required tags, roles known beforehand."""
    rules = CaseRules(splits=("train", "test"), required_tags=("hours",))
    files: dict[str, list[Line]] = {"a.jsonl": [c(f"r{i}") for i in range(3)]}
    if option == "known_roles":
        files["a.jsonl"].append(c("r9", faults={"ghost": "crash"}))
    paths = write(tmp_path, files)
    sut = type("Rules", (), {"case_rules": rules})()
    options: dict[str, Any] = {"min_split_size": 0} if option != "min_split_size" else {}
    found = lint_files(paths, sut=sut, **{**options, option: value}).findings
    assert [f.render() for f in found] == [f"case set: {words}" for words in expected]


# --- in parts, at once ---------------------------------------------------------------------

EDGES: dict[str, list[Line]] = {
    "a.jsonl": [
        b"\xef\xbb\xbf" + json.dumps(c("e1")).encode(),  # an editor's BOM
        c("e2", faults={"billing": "crash"}),  # billing: dispatched at the end of b.jsonl
        json.dumps(c("e3", title="{" * 400)),  # over-long (MAX_LINE_BYTES is 300 here)
        "",
        c("e4", "test", goal="goal of e1"),  # leaks into train from a far part
        c("e5", world={"stok": 1}),
    ],
    "comments.jsonl": ["# nothing but comments", "", "# and a blank line"],
    "b.jsonl": [
        c("e5", goal="another task", world={"stok": 1}),  # a repeated id: not screened
        c("E5", goal="a third task", world={"stok": 2}),  # only looks like e5: screened
        c("e6", expect={"outcome": "answered", "dispatched": ["billing"]}),
        c("e7", "test"),
        c("e8", "test", goal="goal of e7"),  # e7's task in e7's split: no leakage
    ],
}
"""Whatever a cut could break: a BOM, an over-long line, a file of no cases, twins,
leakage and roles across parts, a repeated id in another part than its first."""


@pytest.mark.parametrize("jobs", [2, 3, 40])
@pytest.mark.parametrize(
    "files",
    [pytest.param(files, id=name) for name, files, _ in SCENARIOS]
    + [pytest.param(EDGES, id="edges")],
)
def test_lint_in_parts_says_what_one_process_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, list[Line]], jobs: int
) -> None:
    monkeypatch.setattr(case_file, "MAX_LINE_BYTES", 300)
    paths = write(tmp_path, files)
    whole = lint_files(paths, sut=StokSUT(), jobs=1)
    monkeypatch.setattr(lint_module, "SPLIT_BYTES", 0)  # cut however small the files are
    groups = lint_module._groups(paths, jobs)
    assert 1 < len(groups) <= jobs  # the control: it did cut
    parts = [part for group in groups for part in group]
    assert [p.index for p in parts] == sorted(p.index for p in parts)
    one = [lint_module._Part(i) for i in range(len(paths))]
    assert lint_module._groups(paths, 1) == [one]
    cut = lint_files(paths, sut=StokSUT(), jobs=jobs)
    assert cut == whole
    assert whole.findings  # every scenario finds something


def test_the_edges_lint_as_expected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the edge scenario says, in one process (the parts must say the same)."""
    monkeypatch.setattr(case_file, "MAX_LINE_BYTES", 300)
    paths = write(tmp_path, EDGES)
    rendered = [
        f.render().replace(str(tmp_path), "{dir}")
        for f in lint_files(paths, sut=StokSUT(), jobs=1).findings
    ]
    assert rendered == [
        "{dir}/a.jsonl:3: unreadable: (file): line longer than 300 bytes: not read",
        "{dir}/comments.jsonl:0: unreadable: (file): no cases in file",
        "{dir}/a.jsonl:6: case 'e5': sut_check: world.stok: unknown key 'stok'",
        "{dir}/b.jsonl:2: case 'E5': sut_check: world.stok: unknown key 'stok'",
        "{dir}/b.jsonl:1: case 'e5': duplicate_id: id 'e5' already used at {dir}/a.jsonl:6",
        f"{{dir}}/b.jsonl:2: case 'E5': near_duplicate_id: id 'E5' looks like 'e5' at"
        f" {{dir}}/a.jsonl:6 {NEAR}",
        f"{{dir}}/a.jsonl:1: case 'e1': leakage: same input, world and faults as e4 (test)"
        f" {TUNING}",
        f"{{dir}}/a.jsonl:5: case 'e4': leakage: same input, world and faults as e1 (train)"
        f" {TUNING}",
    ]  # e7 and e8 share a task in one split (no leakage); billing is dispatched in b.jsonl


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (b"", 4),
        (b"one line without a newline", 3),
        (b"a\nb\nc\nd\n", 2),
        (b"a\nb\nc\nd\n", 9),
        (b"\xef\xbb\xbfa\n" + b"x" * 300 + b"\nb\nc", 5),
        (b"\n\n\n", 2),
    ],
)
def test_the_parts_of_a_file_are_its_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: bytes, parts: int
) -> None:
    """Cut anywhere, the parts read together are the file's lines, numbered from each
    part's start; the BOM is dropped from the first line of the file only."""
    monkeypatch.setattr(case_file, "_SCAN_BYTES", 7)  # a newline found across blocks
    path = tmp_path / "cases.jsonl"
    path.write_bytes(text)
    found = [line_start(path, max(1, len(text) * k // parts)) for k in range(1, parts)]
    cuts = sorted({cut for cut in found if cut is not None})
    assert all(0 < cut < len(text) and text[cut - 1 : cut] == b"\n" for cut in cuts)
    bounds = [0, *cuts, None]
    read = []
    for start, end in itertools.pairwise(bounds):
        part = list(raw_lines(path, start or 0, end))
        assert [n for n, _ in part] == list(range(1, len(part) + 1))  # type: ignore[misc]
        read += [chunk for _, chunk in part]  # type: ignore[misc]
    assert read == [chunk for _, chunk in raw_lines(path)]  # type: ignore[misc]


def test_a_part_whose_process_dies_stops_lint_with_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A process linting a part that ends without its findings (killed, or a SUT whose
    ``check_case`` exits it) stops lint, naming the file and where the part starts."""

    class ExitingSUT(StokSUT):
        def check_case(self, case: Case) -> list[str]:
            if case.id == "d7" and os.getpid() != parent:
                os._exit(3)
            return []

    parent = os.getpid()
    monkeypatch.setattr(lint_module, "SPLIT_BYTES", 0)
    paths = write(project, {"a.jsonl": [c(f"d{i}") for i in range(10)]})
    with pytest.raises(LintError, match=r"a\.jsonl \(from byte \d+\) stopped: .* exited \(3\)"):
        lint_files(paths, sut=ExitingSUT(), jobs=2)
    assert lint_files(paths, sut=ExitingSUT(), jobs=1).findings == []  # the control


class HangingSUT(StokSUT):
    """A ``check_case`` that hangs on case ``h3``: lint asks no case after it."""

    def check_case(self, case: Case) -> list[str]:
        if case.id == "h3":
            time.sleep(2)
        return super().check_case(case)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_after_check_case_hangs_no_later_case_is_asked_in_any_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setattr(validation, "CHECK_CASE_DEADLINE_S", 0.3)
    monkeypatch.setattr(lint_module, "SPLIT_BYTES", 0)
    files: dict[str, list[Line]] = {
        "a.jsonl": [c(f"h{i}", world={"stok": i}) for i in range(1, 4)],
        "b.jsonl": [c(f"k{i}", world={"stok": i}) for i in range(1, 4)],
    }
    paths = write(tmp_path, files)
    found = lint_files(paths, sut=HangingSUT(), jobs=jobs).findings
    assert [(f.rule, f.case_id) for f in found] == [("sut_check", "h1"), ("sut_check", "h2")]


# --- memory -----------------------------------------------------------------------------

LINES = 50_000
LINT_PEAK_MIB = 16
"""What lint may allocate at its peak over :data:`LINES` cases. Streaming, it holds two
hash tables of about 60 bytes a case for both (a few MiB here) and one line at a time; a
list of the parsed records alone needs over 100 MiB."""


def memory_case(number: int) -> str:
    return json.dumps(
        {
            "id": f"m{number:06d}",
            "split": ("train", "test")[number % 2],
            "tags": ["hours"],
            "title": "a case of the memory test",
            "input": {"goal": f"when do you open on day {number}?"},
            "world": {"hours": {"mon": "9-17", "tue": "9-17"}},
            "expect": {"outcome": "answered"},
        }
    )


def traced_peak_mib(call: Any) -> tuple[float, Any]:
    tracemalloc.start()
    try:
        result = call()
        return tracemalloc.get_traced_memory()[1] / 2**20, result
    finally:
        tracemalloc.stop()


def test_lint_holds_no_records(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text("".join(memory_case(n) + "\n" for n in range(LINES)), encoding="utf-8")
    # What holding the records costs, from a sample: the bound must be far below it.
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(memory_case(n) + "\n" for n in range(2_000)), encoding="utf-8")
    sample_mib, _ = traced_peak_mib(lambda: read_records([sample]))
    assert sample_mib * LINES / 2_000 > 4 * LINT_PEAK_MIB
    peak_mib, report = traced_peak_mib(lambda: lint_files([path]))
    assert report.cases == LINES
    assert report.findings == []
    assert peak_mib < LINT_PEAK_MIB


# --- files that cannot be read ------------------------------------------------------------


def special_file(kind: str, folder: Path) -> tuple[str, int, str]:
    """A case file of ``kind``: its name, the line and the words of its one finding."""
    path = folder / "cases.jsonl"
    if kind == "missing":
        return str(path), 0, "(file): file not found"
    if kind == "directory":
        path.mkdir()
        return str(path), 0, "(file): is a directory, not a case file"
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes to it: opening it would block for ever
        return str(path), 0, "(file): is a FIFO (named pipe), not a case file; not read"
    if kind == "/dev/zero":
        return "/dev/zero", 0, "(file): is a device, not a case file; not read"
    good = json.dumps(c("g1")) + "\n"
    if kind == "over-long line":
        path.write_text(
            good + json.dumps(c("g2", title="x" * 5000)) + "\n" + good.replace("g1", "g3")
        )
        return str(path), 2, "(file): line longer than 4,096 bytes: not read"
    path.write_bytes(good.encode() + b'{"id": "\xff"}\n' + good.replace("g1", "g3").encode())
    return str(path), 2, "(file): not UTF-8: byte 0xff at column 9"


@pytest.mark.parametrize(
    "kind", ["missing", "directory", "fifo", "/dev/zero", "over-long line", "not UTF-8"]
)
def test_a_file_lint_cannot_read_is_one_finding_naming_it(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    if kind == "/dev/zero" and not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    monkeypatch.setattr(case_file, "MAX_LINE_BYTES", 4096)
    name, line, words = special_file(kind, project)
    unreadable = [f for f in lint_files([name]).findings if f.rule == "unreadable"]
    assert [(f.file, f.line, f.message) for f in unreadable] == [(name, line, words)]
    assert cli.main(["lint", "--cases", name, "--min-split-size", "0"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"{name}:{line}: unreadable: {words}"
    assert err.splitlines()[-1].endswith("finding(s)")
    assert "Traceback" not in out + err


def test_an_over_long_line_is_skipped_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rest of a long line is never taken for lines of its own: the lines after it
    keep their numbers, and the last line may go without its newline."""
    monkeypatch.setattr(case_file, "MAX_LINE_BYTES", 100)
    path = tmp_path / "long.jsonl"
    long = json.dumps({"id": "x1", "title": "{" * 1000})
    path.write_text(f'{{"id": "x0"}}\n{long}\n\n{{"id": "x2"}}\n{long}\n{{"id": "x3"}}')
    entries = list(iter_records([path]))
    assert [(type(e).__name__, e.line) for e in entries] == [
        ("Record", 1),
        ("Problem", 2),
        ("Record", 4),
        ("Problem", 5),
        ("Record", 6),
    ]
