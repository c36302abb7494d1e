"""evals.cases.generate: the covering array's guarantees, the case generator, the sync check and
``evals generate``.

Coverage is judged here by the tests' own enumeration of pairs and groups (not by
``missing_tuples``), over many seeded random dimension sets, with and without
constraints: a generator that trusted allpairspy alone would fail these tables (the
library misses allowed pairs under constraints and triples always; see the controls).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from allpairspy import AllPairs
from evals.cases.generate import (
    CaseGenerator,
    Dimension,
    GenerationError,
    Interaction,
    case_id,
    cover,
    labels_in,
    load_generator,
    missing_tuples,
    render,
    stale_lines,
    values_in,
    write_suite,
)
from evals.cli.main import main
from helpers import run_doc_shell

Row = Mapping[str, str]
Forbidden = set[tuple[tuple[str, str], tuple[str, str]]]

SEEDS = range(40)


def random_dimensions(rng: random.Random, *, at_least: int = 2) -> list[Dimension]:
    """2 to 6 dimensions of 1 to 5 values each."""
    return [
        Dimension(f"d{i}", {f"v{j}": j * 10 + i for j in range(rng.randint(1, 5))})
        for i in range(rng.randint(at_least, 6))
    ]


def random_forbidden(rng: random.Random, dimensions: list[Dimension]) -> Forbidden:
    """Up to 4 forbidden pairs among non-baseline values (so that every allowed tuple
    can be completed with baselines)."""
    values = [(d.name, label) for d in dimensions for label in d.labels[1:]]
    pairs = [(a, b) for a, b in itertools.combinations(values, 2) if a[0] != b[0]]
    return set(rng.sample(pairs, min(len(pairs), rng.randint(1, 4))))


def allowing(forbidden: Forbidden) -> Callable[[Row], bool]:
    """``allowed`` that rules out every row holding both values of a forbidden pair."""

    def allowed(row: Row) -> bool:
        return not any(row.get(a[0]) == a[1] and row.get(b[0]) == b[1] for a, b in forbidden)

    return allowed


def tuples(dimensions: list[Dimension], groups: list[tuple[str, ...]]) -> Iterator[dict[str, str]]:
    """Every pair of values of two dimensions, then every combination of each group."""
    by_name = {d.name: d for d in dimensions}
    for group in [*itertools.combinations(by_name, 2), *groups]:
        for labels in itertools.product(*(by_name[name].labels for name in group)):
            yield dict(zip(group, labels, strict=True))


def uncovered(
    rows: list[dict[str, str]],
    dimensions: list[Dimension],
    groups: Sequence[tuple[str, ...]] = (),
    allowed: Callable[[Row], bool] = lambda _: True,
) -> list[dict[str, str]]:
    """The allowed tuples no row holds."""
    return [
        combo
        for combo in tuples(dimensions, list(groups))
        if allowed(combo) and not any(all(row[k] == v for k, v in combo.items()) for row in rows)
    ]


def assert_complete_rows(rows: list[dict[str, str]], dimensions: list[Dimension]) -> None:
    assert rows
    for row in rows:
        assert list(row) == [d.name for d in dimensions]
        assert all(row[d.name] in d.values for d in dimensions)


# --- the covering array ---------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_every_pair_is_covered(seed: int) -> None:
    dimensions = random_dimensions(random.Random(seed))
    rows = cover(dimensions)
    assert_complete_rows(rows, dimensions)
    assert uncovered(rows, dimensions) == []
    assert len(rows) == len({tuple(r.values()) for r in rows})  # no row twice


@pytest.mark.parametrize("seed", SEEDS)
def test_every_tuple_of_an_interaction_group_is_covered(seed: int) -> None:
    rng = random.Random(seed)
    dimensions = random_dimensions(rng, at_least=3)
    names = [d.name for d in dimensions]
    groups = [tuple(rng.sample(names, rng.randint(3, len(names))))]
    if len(names) >= 4:
        groups.append(tuple(rng.sample(names, 2)))
    rows = cover(dimensions, interactions=[Interaction(g) for g in groups])
    assert_complete_rows(rows, dimensions)
    assert uncovered(rows, dimensions, groups) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_allowed_is_respected_and_every_allowed_tuple_covered(seed: int) -> None:
    rng = random.Random(seed)
    dimensions = random_dimensions(rng, at_least=3)
    forbidden = random_forbidden(rng, dimensions)
    allowed = allowing(forbidden)
    names = [d.name for d in dimensions]
    groups = [tuple(rng.sample(names, 3))]
    rows = cover(dimensions, interactions=[Interaction(g) for g in groups], allowed=allowed)
    assert_complete_rows(rows, dimensions)
    assert [row for row in rows if not allowed(row)] == []
    assert uncovered(rows, dimensions, groups, allowed) == []


def test_the_controls_allpairspy_alone_misses_allowed_pairs_and_triples() -> None:
    """Why cover() verifies: the tables above would catch a cover() that trusted the
    library (under constraints it stops early; its pairs are not triples)."""
    missed_pairs = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        dimensions = random_dimensions(rng, at_least=3)
        allowed = allowing(random_forbidden(rng, dimensions))
        names = [d.name for d in dimensions]
        raw = [
            dict(zip(names, found, strict=True))
            for found in AllPairs(
                [d.labels for d in dimensions],
                filter_func=lambda p, n=names, a=allowed: a(dict(zip(n, p, strict=False))),
            )
        ]
        missed_pairs += bool(uncovered(raw, dimensions, allowed=allowed))
    assert missed_pairs >= 10
    dimensions = [Dimension(f"d{i}", {f"v{j}": j for j in range(3)}) for i in range(4)]
    names = [d.name for d in dimensions]
    raw = [dict(zip(names, r, strict=True)) for r in AllPairs([d.labels for d in dimensions])]
    assert uncovered(raw, dimensions) == []
    assert uncovered(raw, dimensions, [tuple(names[:3])])  # 9 rows cannot hold 27 triples


SHOP = [
    Dimension("os", {"linux": "L", "mac": "M", "windows": "W"}),
    Dimension("browser", {"firefox": "F", "safari": "S", "edge": "E"}),
    Dimension("locale", {"en": "en", "zh": "zh"}),
]


def shop_allowed(row: Row) -> bool:
    """Safari only on a Mac, Edge only on Windows."""
    if row.get("browser") == "safari" and row.get("os") not in (None, "mac"):
        return False
    return not (row.get("browser") == "edge" and row.get("os") not in (None, "windows"))


def test_a_constrained_table_by_hand() -> None:
    rows = cover(SHOP, allowed=shop_allowed)
    held = {(r["os"], r["browser"]) for r in rows}
    assert held == {
        ("linux", "firefox"),
        ("mac", "firefox"),
        ("windows", "firefox"),
        ("mac", "safari"),
        ("windows", "edge"),
    }
    assert {(r["browser"], r["locale"]) for r in rows} == {
        (b, loc) for b in ("firefox", "safari", "edge") for loc in ("en", "zh")
    }
    assert missing_tuples(rows, SHOP, allowed=shop_allowed) == []


def _needs_c(row: Row) -> bool:
    """a1 needs c1, b1 needs c0: a1 with b1 is allowed as a pair but in no full row."""
    return not (
        (row.get("a") == "a1" and row.get("c") == "c0")
        or (row.get("b") == "b1" and row.get("c") == "c1")
    )


def _no_baseline_b(row: Row) -> bool:
    """b0 (b's baseline) never goes with c1: (a0, c1) can only be completed with b1."""
    return not (row.get("b") == "b0" and row.get("c") == "c1")


def _c1_nowhere(row: Row) -> bool:
    """c1 goes with neither value of b: allowed alone, in no full row."""
    return not (row.get("c") == "c1" and row.get("b") is not None)


ABC = [Dimension(n, {f"{n}0": 0, f"{n}1": 1}) for n in "abc"]


@pytest.mark.parametrize(
    ("allowed", "interactions", "message"),
    [
        (_needs_c, (), r"cannot cover \{'a': 'a1', 'b': 'b1'\}"),
        (_needs_c, (Interaction(("a", "b", "c")),), "cannot cover"),
        (_c1_nowhere, (), r"cannot cover \{'a': 'a0', 'c': 'c1'\}: no allowed row holds it"),
    ],
    ids=["pair_without_a_row", "exhaustive_group", "value_in_no_row"],
)
def test_a_required_tuple_that_cannot_be_completed_is_an_error(
    allowed: Callable[[Row], bool], interactions: tuple[Interaction, ...], message: str
) -> None:
    with pytest.raises(GenerationError, match=message):
        cover(ABC, interactions=interactions, allowed=allowed)


def test_a_tuple_the_baselines_rule_out_is_completed_with_other_values() -> None:
    rows = cover(ABC, interactions=[Interaction(("a", "c"))], allowed=_no_baseline_b)
    assert uncovered(rows, ABC, [("a", "c")], _no_baseline_b) == []
    assert all(_no_baseline_b(row) for row in rows)
    assert {"a": "a0", "b": "b1", "c": "c1"} in rows or {"a": "a1", "b": "b1", "c": "c1"} in rows


def test_a_group_of_every_dimension_is_the_full_product_in_order() -> None:
    group = Interaction(("locale", "os", "browser"))
    rows = cover(SHOP, interactions=[group], allowed=shop_allowed)
    product = [
        dict(zip(("os", "browser", "locale"), labels, strict=True))
        for labels in itertools.product(*(d.labels for d in SHOP))
    ]
    assert rows == [row for row in product if shop_allowed(row)]
    assert len(rows) == 10
    assert cover(SHOP, interactions=[group]) == product


def test_one_dimension_is_its_values() -> None:
    assert cover([Dimension("x", {"a": 1, "b": 2, "c": 3})]) == [{"x": "a"}, {"x": "b"}, {"x": "c"}]


@pytest.mark.parametrize("seed", [0, 7, 21])
def test_the_same_arguments_give_the_same_rows(seed: int) -> None:
    rng = random.Random(seed)
    dimensions = random_dimensions(rng, at_least=3)
    allowed = allowing(random_forbidden(rng, dimensions))
    group = [Interaction(tuple(d.name for d in dimensions[:3]))]
    first = cover(dimensions, interactions=group, allowed=allowed)
    assert cover(dimensions, interactions=group, allowed=allowed) == first


ROWS_IN_A_PROCESS = """
import json
from evals.cases.generate import Dimension, Interaction, cover
dims = [Dimension(f"d{i}", {f"v{j}": j for j in range(2 + i % 3)}) for i in range(6)]
forbid = lambda r: not (r.get("d1") == "v1" and r.get("d2") == "v2")
print(json.dumps(cover(dims, interactions=[Interaction(("d0", "d3", "d4"))], allowed=forbid)))
"""


def test_the_rows_do_not_depend_on_the_hash_seed() -> None:
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", ROWS_IN_A_PROCESS],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())) >= 12


# --- validation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "values", "message"),
    [
        ("", {"a": 1}, "must be non-empty"),
        ("a:b", {"a": 1}, "no ':'"),
        ("x", {}, "has no values"),
        ("x", {"": 1}, "bad value label ''"),
        ("x", {"a:b": 1}, "bad value label 'a:b'"),
        ("x", {" a": 1}, "bad value label ' a'"),
        ("x", {"a ": 1}, "bad value label 'a '"),
        ("x", {5: 1}, "bad value label 5"),
    ],
)
def test_a_bad_dimension_is_refused(name: str, values: dict[Any, Any], message: str) -> None:
    with pytest.raises(GenerationError, match=message):
        Dimension(name, values)


@pytest.mark.parametrize(
    ("dimensions", "interactions", "message"),
    [
        ([], (), "no dimensions"),
        ([ABC[0], ABC[0]], (), "dimension names repeat"),
        (ABC, (Interaction(("a", "z")),), r"unknown: \['z'\]"),
        (ABC, (Interaction(("a",)),), "two or more known dimensions"),
        (ABC, (Interaction(("a", "a")),), "each once"),
    ],
    ids=["none", "repeated", "unknown", "one_dimension", "repeated_in_group"],
)
def test_bad_dimension_sets_are_refused(
    dimensions: list[Dimension], interactions: tuple[Interaction, ...], message: str
) -> None:
    with pytest.raises(GenerationError, match=message):
        cover(dimensions, interactions=interactions)


def test_a_generation_error_is_an_evals_error_and_a_value_error() -> None:
    from evals.errors import EvalsError

    assert issubclass(GenerationError, EvalsError) and issubclass(GenerationError, ValueError)


# --- the case generator --------------------------------------------------------------

COLOURS = Dimension("colour", {"red": "红", "blue": "蓝", "green": "绿"}, "a colour")
SIZES = Dimension("size", {"s": 1, "m": 2, "l": 3})
SHAPES = Dimension("shape", {"round": "圆", "square": "方"})


def paint_build(values: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "title": "涂色",
        "input": {"colour": values["colour"], "size": values["size"], "shape": values["shape"]},
    }


def paint_oracle(case: Mapping[str, Any]) -> dict[str, Any]:
    """Big red things are refused; the rest answered with the colour."""
    given = case["input"]
    if given["colour"] == "红" and given["size"] == 3:
        return {"outcome": "refused"}
    return {"outcome": "answered", "contains": given["colour"]}


def painter(*dimensions: Dimension, **options: Any) -> CaseGenerator:
    given: dict[str, Any] = {"prefix": "p", "build": paint_build, "oracle": paint_oracle}
    return CaseGenerator(dimensions=dimensions or (COLOURS, SIZES, SHAPES), **(given | options))


def test_a_case_is_built_tagged_and_its_expect_from_the_oracle() -> None:
    seen: list[Mapping[str, Any]] = []

    def oracle(case: Mapping[str, Any]) -> dict[str, Any]:
        seen.append(dict(case))
        return paint_oracle(case)

    generator = painter(oracle=oracle, tags=("paint",))
    case = generator.case({"colour": "red", "size": "l", "shape": "square"})
    assert case == {
        "id": case_id("p", {"colour": "red", "size": "l", "shape": "square"}),
        "split": "test",
        "tags": ["paint", "colour:red", "size:l", "shape:square"],
        "title": "涂色",
        "input": {"colour": "红", "size": 3, "shape": "方"},
        "expect": {"outcome": "refused"},
    }
    assert "expect" not in seen[0] and seen[0]["tags"] == case["tags"]  # oracle sees the case
    assert labels_in(case, generator.dimensions) == {
        "colour": "red",
        "size": "l",
        "shape": "square",
    }
    assert values_in(case, generator.dimensions) == {"colour": "红", "size": 3, "shape": "方"}


def test_labels_in_ignores_tags_of_no_dimension() -> None:
    case = {"tags": ["paint", "colour:red", "colour:purple", "weight:9", "size:m"]}
    assert labels_in(case, (COLOURS, SIZES)) == {"colour": "red", "size": "m"}


@pytest.mark.parametrize("key", ["id", "tags", "expect"])
def test_a_build_that_sets_what_the_generator_sets_is_refused(key: str) -> None:
    generator = painter(build=lambda values: {**paint_build(values), key: "mine"})
    with pytest.raises(GenerationError, match=f"build returned '{key}'"):
        generator.cases()


def test_a_build_may_choose_the_split() -> None:
    generator = painter(build=lambda values: {**paint_build(values), "split": "holdout"})
    assert {case["split"] for case in generator.cases()} == {"holdout"}


def test_id_of_and_extra_tags_hooks() -> None:
    generator = painter(
        id_of=lambda labels: f"paint-{labels['colour']}-{labels['size']}-{labels['shape']}",
        extra_tags=lambda labels: ["danger"] if labels["colour"] == "red" else [],
        tags=("paint",),
    )
    cases = {case["id"]: case for case in generator.cases()}
    assert cases["paint-red-s-round"]["tags"] == [
        "paint",
        "danger",
        "colour:red",
        "size:s",
        "shape:round",
    ]
    assert all(
        ("danger" in case["tags"]) == case_id_.startswith("paint-red-")
        for case_id_, case in cases.items()
    )


@pytest.mark.parametrize(
    ("id_of", "message"),
    [
        (lambda labels: "same", "two combinations make one case id: 'same'"),
        (lambda labels: "", "returned '', not an id"),
        (lambda labels: None, "returned None, not an id"),
    ],
    ids=["collision", "empty", "none"],
)
def test_bad_ids_from_id_of_are_refused(id_of: Callable[..., Any], message: str) -> None:
    with pytest.raises(GenerationError, match=message):
        painter(id_of=id_of).cases()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"prefix": ""}, "needs a prefix"),
        ({"header": "generated, no comment"}, "must start with '#'"),
        ({"header": "# one\nand a second line"}, "must start with '#'"),
    ],
)
def test_a_bad_generator_is_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(GenerationError, match=message):
        painter(**options)


def _ids_by_labels(generator: CaseGenerator) -> dict[tuple[str, ...], str]:
    return {tuple(t for t in case["tags"] if ":" in t): case["id"] for case in generator.cases()}


@pytest.mark.parametrize(
    ("grown", "added"),
    [
        ((COLOURS, Dimension("size", {**SIZES.values, "xl": 4}), SHAPES), "size:xl"),
        ((Dimension("colour", {**COLOURS.values, "black": "黑"}), SIZES, SHAPES), "colour:black"),
        ((COLOURS, SIZES, Dimension("shape", {"star": "星", **SHAPES.values})), "shape:star"),
    ],
    ids=["last_value_of_size", "last_value_of_colour", "new_first_value_of_shape"],
)
def test_adding_a_value_keeps_the_other_cases_ids(grown: tuple[Dimension, ...], added: str) -> None:
    before = _ids_by_labels(painter())
    after = _ids_by_labels(painter(*grown))
    shared = set(before) & set(after)
    assert len(shared) >= 2
    assert {labels: before[labels] for labels in shared} == {
        labels: after[labels] for labels in shared
    }
    new = [labels for labels in after if added in labels]
    assert new and all(after[labels] not in before.values() for labels in new)
    assert all(len(i) == len("p-") + 10 for i in after.values())


def test_cases_are_the_same_twice() -> None:
    assert painter().cases() == painter().cases()


# --- writing and the sync check ------------------------------------------------------

HEADER = "# Generated by test_generate (regenerate: evals generate paint:GENERATOR)."


@pytest.fixture
def committed(tmp_path: Path) -> tuple[CaseGenerator, Path]:
    generator = painter(header=HEADER)
    path = tmp_path / "paint.jsonl"
    assert write_suite(generator, path) == len(generator.cases())
    return generator, path


def test_a_written_suite_is_in_sync(committed: tuple[CaseGenerator, Path]) -> None:
    generator, path = committed
    text = path.read_text(encoding="utf-8")
    assert text == render(generator.cases(), HEADER)
    assert text.splitlines()[0] == HEADER
    assert [json.loads(line) for line in text.splitlines()[1:]] == generator.cases()
    assert stale_lines(generator, path) == []


def test_an_unchanged_suite_is_not_rewritten(committed: tuple[CaseGenerator, Path]) -> None:
    generator, path = committed
    before = path.stat().st_ino
    write_suite(generator, path)
    assert path.stat().st_ino == before
    path.write_text("", encoding="utf-8")
    write_suite(generator, path)
    assert stale_lines(generator, path) == []


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _changed_expect(line: str) -> str:
    case = json.loads(line)
    case["expect"] = {"outcome": "maybe"}
    return json.dumps(case, ensure_ascii=False)


STALE = [
    (
        "removed",
        lambda lines: [*lines, lines[1].replace('"id": "p-', '"id": "p-old')],
        r": p-old\w+: not generated any more$",
    ),
    ("added", lambda lines: [lines[0], *lines[2:]], r": p-\w+: missing \(colour:\w+ size:"),
    (
        "changed",
        lambda lines: [lines[0], _changed_expect(lines[1]), *lines[2:]],
        "differs in expect",
    ),
    (
        "retitled",
        lambda lines: [lines[0], lines[1].replace("涂色", "上色"), *lines[2:]],
        "differs in title$",
    ),
    ("reordered", lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], "another order"),
    ("header", lambda lines: ["# hand-made", *lines[1:]], "the header differs"),
    ("no_header", lambda lines: lines[1:], "the header differs"),
    ("garbled", lambda lines: [*lines[:2], "{not json", *lines[2:]], r":3: not JSON"),
    ("no_id", lambda lines: [*lines, '{"title": "x"}'], "not a case with an id"),
    ("repeated", lambda lines: [*lines, lines[1]], r": p-\w+: repeated$"),
]


@pytest.mark.parametrize(
    ("edit", "problem"), [(e, p) for _, e, p in STALE], ids=[n for n, _, _ in STALE]
)
def test_stale_lines_name_what_differs(
    committed: tuple[CaseGenerator, Path],
    edit: Callable[[list[str]], list[str]],
    problem: str,
) -> None:
    generator, path = committed
    _write(path, edit(_lines(path)))
    found = stale_lines(generator, path)
    assert len(found) == 1, found
    assert found[0].startswith(str(path))
    assert re.search(problem, found[0]), found


def test_a_grown_generator_names_every_new_case(committed: tuple[CaseGenerator, Path]) -> None:
    _, path = committed
    grown = painter(COLOURS, Dimension("size", {**SIZES.values, "xl": 4}), SHAPES, header=HEADER)
    found = stale_lines(grown, path)
    new = [c for c in grown.cases() if "size:xl" in c["tags"]]
    assert len(found) >= len(new) >= 3
    assert all(any(c["id"] in line and "missing" in line for line in found) for c in new)


def test_a_missing_file_is_stale(tmp_path: Path) -> None:
    generator = painter()
    found = stale_lines(generator, tmp_path / "none.jsonl")
    assert found == [
        f"{tmp_path / 'none.jsonl'}: missing ({len(generator.cases())} cases to generate)"
    ]


# --- evals generate ------------------------------------------------------------------

MODULE = """
from evals.cases.generate import CaseGenerator, Dimension

def build(values):
    if values["colour"] == "boom":
        raise KeyError("no paint")
    return {"title": "涂色", "input": {"colour": values["colour"], "size": values["size"]}}

def oracle(case):
    return {"outcome": "answered"}

COLOURS = {"red": "红", "blue": "蓝"}
GENERATOR = CaseGenerator(
    prefix="p",
    dimensions=(Dimension("colour", COLOURS), Dimension("size", {"s": 1, "l": 3})),
    build=build,
    oracle=oracle,
    header="# paint (regenerate: evals generate {name}:GENERATOR)",
    suite="paint",
)
NAMELESS = CaseGenerator(
    prefix="q", dimensions=GENERATOR.dimensions, build=build, oracle=oracle
)
BOOM = CaseGenerator(
    prefix="b",
    dimensions=(Dimension("colour", {"boom": "boom"}), Dimension("size", {"s": 1})),
    build=build,
    oracle=oracle,
)
NOT_A_GENERATOR = 42
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A project folder (the working directory) holding a generator module of a name of
    its own; sys.path and sys.modules are restored afterwards."""
    name = f"paint_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(MODULE.replace("{name}", name), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.evals]\ncases_dir = "suites"\n', encoding="utf-8"
    )
    (tmp_path / "suites").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path, name
    sys.modules.pop(name, None)


def test_generate_writes_the_suite_then_finds_it_in_sync(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, name = folder
    assert main(["generate", f"{name}:GENERATOR"]) == 0
    suite = root / "suites" / "paint.jsonl"
    assert capsys.readouterr().out == "suites/paint.jsonl: 4 cases written\n"
    generator = load_generator(f"{name}:GENERATOR")
    assert suite.read_text(encoding="utf-8") == render(generator.cases(), generator.header)
    assert main(["generate", f"{name}:GENERATOR", "--check"]) == 0
    assert capsys.readouterr().out == "suites/paint.jsonl: in sync\n"


def test_generate_check_prints_the_stale_lines_and_exits_1(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, name = folder
    out = root / "elsewhere.jsonl"
    assert main(["generate", f"{name}:NAMELESS", "--out", str(out)]) == 0
    lines = _lines(out)
    _write(out, [lines[0].replace("涂色", "上色"), *lines[2:]])
    capsys.readouterr()
    assert main(["generate", f"{name}:NAMELESS", "--out", str(out), "--check"]) == 1
    captured = capsys.readouterr()
    printed = captured.out.splitlines()
    assert len(printed) == 2
    assert printed[0].endswith("differs in title")
    assert ": missing (colour:" in printed[1]
    assert captured.err == (
        f"generate: {out} is stale (2 problem(s)): run evals generate {name}:NAMELESS --out {out}\n"
    )
    assert main(["generate", f"{name}:NAMELESS", "--out", str(out)]) == 0
    assert main(["generate", f"{name}:NAMELESS", "--out", str(out), "--check"]) == 0


def test_generate_checks_several_generators(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, name = folder
    assert main(["generate", f"{name}:GENERATOR", "--check"]) == 1  # not written yet
    assert "suites/paint.jsonl: missing (4 cases to generate)" in capsys.readouterr().out
    assert main(["generate", f"{name}:GENERATOR"]) == 0
    assert main(["generate", f"{name}:GENERATOR", f"{name}:GENERATOR", "--check"]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["generate", "{name}"], "{name}: expected 'package.module:attr'"),
        (["generate", "no_such_module_x:G"], "cannot import 'no_such_module_x'"),
        (["generate", "{name}:MISSING"], "'{name}' has no attribute 'MISSING'"),
        (["generate", "{name}:NOT_A_GENERATOR"], "{name}:NOT_A_GENERATOR: a int, not a"),
        (["generate", "{name}:NAMELESS"], "the generator names no suite: give --out FILE"),
        (
            ["generate", "{name}:GENERATOR", "{name}:NAMELESS", "--out", "x.jsonl"],
            "--out names one file",
        ),
        (
            ["generate", "{name}:BOOM", "--out", "x.jsonl"],
            "{name}:BOOM: generating the suite failed: KeyError: 'no paint' ({name}.py:6)",
        ),
        (["generate", "{name}:GENERATOR", "--out", "nowhere/x.jsonl"], "No such file"),
    ],
    ids=[
        "no_attr",
        "no_module",
        "unknown_attr",
        "not_a_generator",
        "no_suite",
        "out_with_two",
        "build_raises",
        "unwritable",
    ],
)
def test_generate_bad_input_is_one_line_exit_2(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    root, name = folder
    assert main([a.replace("{name}", name) for a in args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1, captured.err
    assert captured.err.startswith("evals: error: ")
    assert message.replace("{name}", name) in captured.err
    assert not (root / "x.jsonl").exists()


def test_a_module_that_fails_to_import_is_one_line(
    folder: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = folder
    (root / "broken_gen_mod.py").write_text("raise RuntimeError('half done')\n", encoding="utf-8")
    try:
        assert main(["generate", "broken_gen_mod:G", "--out", "x.jsonl"]) == 2
    finally:
        sys.modules.pop("broken_gen_mod", None)
    err = capsys.readouterr().err
    assert err == (
        "evals: error: broken_gen_mod:G: importing 'broken_gen_mod' failed:"
        " RuntimeError: half done (broken_gen_mod.py:1)\n"
    )


def test_generate_imports_from_the_current_folder_in_a_real_process(
    folder: tuple[Path, str],
) -> None:
    """``-P``: the interpreter itself puts no folder on sys.path, as for the ``evals``
    console script; the module is found because the command adds the current folder."""
    root, name = folder
    command = [sys.executable, "-P", "-m", "evals", "generate", f"{name}:GENERATOR"]
    done = subprocess.run(
        [*command, "--check"], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout) == (
        1,
        "suites/paint.jsonl: missing (4 cases to generate)\n",
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert len(_lines(root / "suites" / "paint.jsonl")) == 5
    assert "Traceback" not in done.stderr


def test_every_snippet_of_the_guide_runs() -> None:
    """docs/generated-suites.md: every python block runs (one namespace, as the guide
    continues itself), every sh block runs from the repository root and exits 0."""
    root = Path(__file__).resolve().parents[3]
    doc = (root / "docs" / "generated-suites.md").read_text("utf-8")
    blocks = [part.split("```", 1)[0] for part in doc.split("```python\n")[1:]]
    shells = [part.split("```", 1)[0] for part in doc.split("```sh\n")[1:]]
    usage = doc.count("```\nevals generate MODULE:ATTR")
    assert len(blocks) >= 4 and len(shells) >= 1
    assert len(blocks) + len(shells) + usage == doc.count("\n```") // 2, "an untested snippet"
    namespace: dict[str, object] = {}
    for code in blocks:
        exec(compile(code, "docs/generated-suites.md", "exec"), namespace)
    for script in shells:
        done = run_doc_shell(script, root)
        assert "in sync" in done.stdout


def test_missing_tuples_names_a_full_combination_an_interaction_group_lacks() -> None:
    # Every pair of the three dimensions is in these rows, but one whole triple is not:
    # only the group as a whole can say so (a check of its parts would pass).
    dimensions = [Dimension(n, {"x": 0, "y": 1}) for n in ("a", "b", "c")]
    product = [dict(zip("abc", v, strict=True)) for v in itertools.product("xy", repeat=3)]
    rows = [r for r in product if r != {"a": "y", "b": "y", "c": "y"}]
    assert missing_tuples(rows, dimensions) == []  # every pair is there
    group = Interaction(("a", "b", "c"))
    assert missing_tuples(rows, dimensions, interactions=[group]) == [
        {"a": "y", "b": "y", "c": "y"}
    ]
