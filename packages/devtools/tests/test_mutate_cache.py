"""devtools.mutate's cache of last killers: which test a killed mutant fell to, read back
so the next run tries it first."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools import mutate

SUMMARY = """\
..F
=========================== short test summary info ============================
FAILED packages/evals/tests/test_x.py::test_a[one two-1] - AssertionError: assert 1 == 2
FAILED packages/evals/tests/test_x.py::test_b - x
!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!
"""


@pytest.mark.parametrize(
    ("output", "test"),
    [
        (SUMMARY, "packages/evals/tests/test_x.py::test_a[one two-1]"),
        ("ERROR packages/a/tests/test_y.py::test_c\n", "packages/a/tests/test_y.py::test_c"),
        ("ERROR packages/a/tests/test_y.py - ImportError: boom\n", None),  # no test: a file
        ("1 passed\n", None),
    ],
)
def test_the_first_failing_test_is_read_from_pytest_s_summary(
    output: str, test: str | None
) -> None:
    assert mutate.failing_test(output) == test


def _outcome(name: str, killer: str | None) -> mutate.Outcome:
    mutant = next(m for m in mutate.MUTANTS if m.name == name)
    status: mutate.Status = "killed" if killer else "survived"
    return mutate.Outcome(mutant, status, "", 1.0, killer)


def test_killers_are_kept_merged_and_forgotten_when_a_mutant_survives(tmp_path: Path) -> None:
    path = tmp_path / "killers.json"
    assert mutate.read_killers(path) == {}
    first, second = (m.name for m in mutate.MUTANTS[:2])
    mutate.write_killers([_outcome(first, "t.py::a"), _outcome(second, "t.py::b")], path)
    mutate.write_killers([_outcome(second, None)], path)  # a later run: it survived
    assert mutate.read_killers(path) == {first: "t.py::a"}
    path.write_text("[not a mapping", encoding="utf-8")
    assert mutate.read_killers(path) == {}
