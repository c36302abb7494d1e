"""Every mutant of `nox -s mutate` still finds its target: code moved under a mutant would
otherwise only show as "target not found" in a long run nobody reads to the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools import mutate


@pytest.mark.parametrize("mutant", mutate.MUTANTS, ids=[m.name for m in mutate.MUTANTS])
def test_the_mutants_target_occurs_exactly_once(mutant: mutate.Mutant) -> None:
    assert mutate.target_state(mutant) == "found", f"{mutant.name} in {mutant.path}"


def test_mutant_names_are_unique() -> None:
    names = [m.name for m in mutate.MUTANTS]
    assert len(names) == len(set(names))


SOURCE = """\
LIMIT = 1


def check(x):
    return x < LIMIT


class Gate:
    @staticmethod
    def judge(x):
        if x:
            def inner():
                return x < LIMIT
            return inner()
        return x < LIMIT
"""


@pytest.mark.parametrize(
    ("where", "old", "new", "changed"),
    [
        # The module's top level: the snippet once in the whole file.
        ("m", "LIMIT = 1", "LIMIT = 2", "LIMIT = 2"),
        # A function: the snippet occurs three times in the file, once in it.
        ("m:check", "return x < LIMIT", "return x <= LIMIT", "    return x <= LIMIT\n\n\nclass"),
        # A function nested in an if block of a method.
        ("m:Gate.judge.inner", "x < LIMIT", "x > LIMIT", "return x > LIMIT\n            return"),
    ],
)
def test_a_mutant_strikes_inside_its_symbol(where: str, old: str, new: str, changed: str) -> None:
    mutant = mutate.Mutant("t", where, old, new, "a test")
    text = mutant.apply(SOURCE)
    assert changed in text
    assert text.count(new) == 1 and len(text) == len(SOURCE) + len(new) - len(old)


@pytest.mark.parametrize(
    ("where", "old", "problem"),
    [
        ("m:gone", "x", "no 'gone' defined there"),  # the symbol moved away
        ("m:Gate.judge", "x < LIMIT", r"2 occurrences of the snippet in m:Gate\.judge"),
        ("m:check", "x > LIMIT", "0 occurrences"),  # the code changed under it
    ],
)
def test_a_mutant_whose_target_is_gone_says_what_is_missing(
    where: str, old: str, problem: str
) -> None:
    with pytest.raises(LookupError, match=problem):
        mutate.Mutant("t", where, old, "y", "a test").apply(SOURCE)


def test_a_module_is_found_under_any_package_without_importing_it(tmp_path: Path) -> None:
    (tmp_path / "packages" / "p" / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "packages" / "p" / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "packages" / "p" / "src" / "pkg" / "mod.py").write_text("raise SystemExit")
    assert mutate.source_file("pkg.mod", tmp_path).name == "mod.py"
    assert mutate.source_file("pkg", tmp_path).name == "__init__.py"
    with pytest.raises(LookupError, match=r"no module 'pkg\.gone'"):
        mutate.source_file("pkg.gone", tmp_path)
