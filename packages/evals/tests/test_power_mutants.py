"""evals power: what one test-command run means, which mutants only touch an unevaluated
annotation, and the anchors that key samples, the ledger and the equivalents."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="cosmic-ray is not installed (supportpilot-evals[power])")

from cosmic_ray.commands import init as cr_init
from cosmic_ray.work_db import use_db
from evals.power import session
from evals.power.mutants import Mutant, annotation_only, classify, with_anchors

PASS = "report …\nGate: PASS (0 hard, 0 soft)\nPass -> fail: (none)\n"
FAIL = "report …\nGate: FAIL (1 hard, 0 soft)\n  HARD  must_pass success 88% < 100%\n"
TRACEBACK = 'Traceback (most recent call last):\n  File "x.py"\nTypeError: boom\n'


@pytest.mark.parametrize(
    ("output", "status", "code"),
    [
        (f"{FAIL}power: exit 1\n", "killed", 1),
        (f"{PASS}power: exit 0\n", "survived", 0),
        (f"{TRACEBACK}power: exit 1\n", "crash", 1),  # exit 1 without a verdict
        ("evals: error: bad case file\npower: exit 2\n", "crash", 2),  # refusal
        (f"{FAIL}power: exit 2\n", "crash", 2),  # a verdict but not the gate's exit code
        (f"{PASS}power: exit 1\n", "crash", 1),  # PASS printed, yet exit 1
        (f"{FAIL}power: exit 0\n", "crash", 0),  # FAIL printed, yet exit 0
        ("Gate: not judged (INCOMPLETE: interrupted)\npower: exit 130\n", "crash", 130),
        (FAIL, "crash", None),  # no exit marker: the wrapper did not finish
        ("timeout", "timeout", None),
        (None, "error", None),
        (f"{PASS}power: exit 0\nGate: FAIL (1 hard, 0 soft)\npower: exit 1\n", "killed", 1),
    ],
)
def test_classify(output: str | None, status: str, code: int | None) -> None:
    assert classify(output) == (status, code)


MODULE = """\
from __future__ import annotations


def f(x: int | None = 1, *rest: int | str) -> int | None:
    y: int | None = x
    return (x or 0) | 2


def g(note: str = "中文说明", b: int | None = None) -> None:
    pass


def h(
    a: int | str = 3,
) -> int:
    return (x) | 4
"""


def mutants_of(tmp_path: Path, source: str) -> tuple[list[Mutant], set[str]]:
    """cosmic-ray's mutants of one module, and which of them are annotation-only."""
    module = tmp_path / "m.py"
    module.write_text(source, encoding="utf-8")
    with use_db(str(tmp_path / "s.sqlite")) as db:
        cr_init([module], db, {})
        mutants, _ = session.read_mutants(db)
    return mutants, annotation_only(mutants, {m.path: source for m in mutants})


@pytest.mark.parametrize(
    ("line", "snippet", "annotation_only"),
    [
        (4, "x: int | None", True),  # parameter annotation
        (4, "*rest: int | str", True),
        (4, "-> int | None", True),  # return annotation
        (4, "= 1", False),  # a default value runs
        (6, "(x or 0) | 2", False),  # code
        (9, "b: int | None", True),  # after Chinese text: columns are characters, not bytes
        (16, "(x) | 4", False),  # code after a multi-line signature
        (14, "a: int | str", True),  # annotation on a continuation line
        (14, "= 3", False),
    ],
)
def test_annotation_only(tmp_path: Path, line: int, snippet: str, annotation_only: bool) -> None:
    mutants, dropped = mutants_of(tmp_path, MODULE)
    text = MODULE.splitlines()[line - 1]
    start = text.index(snippet)
    within = [m for m in mutants if m.line == line and start <= m.column < start + len(snippet)]
    assert within, f"cosmic-ray found no mutant in {snippet!r}"
    assert {m.job_id in dropped for m in within} == {annotation_only}, [m.id for m in within]


def test_without_postponed_annotations_an_annotation_is_evaluated(tmp_path: Path) -> None:
    source = MODULE.replace("from __future__ import annotations\n", "")
    mutants, dropped = mutants_of(tmp_path, source)
    assert mutants
    assert dropped == set()


def test_anchors_tell_apart_equal_lines_in_file_order() -> None:
    source = "a = 1\nb = 2\n\na = 1\n"
    found = [
        Mutant(f"j{i}", "m.py", line, 4, line, 5, "core/NumberReplacer", i)
        for i, line in enumerate([4, 1, 2])
    ]
    anchored = {m.line: m.anchor for m in with_anchors(found, {"m.py": source})}
    assert anchored == {
        1: "m.py core/NumberReplacer #0: a = 1",
        2: "m.py core/NumberReplacer #0: b = 2",
        4: "m.py core/NumberReplacer #1: a = 1",
    }
