"""Every mutant of `nox -s mutate` still finds its target: code moved under a mutant would
otherwise only show as "target not found" in a long run nobody reads to the end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import mutate  # noqa: E402


@pytest.mark.parametrize("mutant", mutate.MUTANTS, ids=[m.name for m in mutate.MUTANTS])
def test_the_mutants_target_occurs_exactly_once(mutant: mutate.Mutant) -> None:
    assert mutate.target_state(mutant) == "found", f"{mutant.name} in {mutant.path}"


def test_mutant_names_are_unique() -> None:
    names = [m.name for m in mutate.MUTANTS]
    assert len(names) == len(set(names))
