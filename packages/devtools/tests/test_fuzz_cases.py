"""devtools.fuzz_cases: seeded generation, the traceback and hang detector, and a small
sample of fuzzed case files through ``evals lint`` and ``evals run`` (``nox -s fuzz``
runs 500)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from devtools import fuzz_cases as fuzz


def contents(files: list[object]) -> list[tuple[str, bytes | None, tuple[str, ...]]]:
    found = []
    for made in files:
        path = made.path  # type: ignore[attr-defined]
        data = path.read_bytes() if path.is_file() else None
        found.append((path.name, data, made.mutations))  # type: ignore[attr-defined]
    return found


def test_the_same_seed_gives_the_same_files(tmp_path: Path) -> None:
    first = fuzz.generate(tmp_path / "a", 40, seed=7)
    again = fuzz.generate(tmp_path / "b", 40, seed=7)
    other = fuzz.generate(tmp_path / "c", 40, seed=8)
    assert contents(first) == contents(again)
    assert contents(first) != contents(other)


def test_every_mutation_is_used(tmp_path: Path) -> None:
    files = fuzz.generate(tmp_path, 300, seed=1)
    used = {m.split(":")[0] for f in files for m in f.mutations}
    expected = {*fuzz.MUTATIONS, *fuzz.BYTE_MUTATIONS, *fuzz.SPECIAL}
    assert expected <= used, expected - used


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("import sys; sys.exit(2)", (2, False, False)),
        ("raise TypeError('boom')", (1, True, True)),
        ("import sys; sys.exit(5)", (5, False, True)),
        ("import time; time.sleep(60)", (None, False, True)),
    ],
)
def test_the_detector_names_tracebacks_hangs_and_odd_exits(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    program: str,
    expected: tuple[int | None, bool, bool],
) -> None:
    """(exit code, traceback seen, counted as bad) of one command."""
    monkeypatch.setattr(fuzz, "_command", lambda *_: [sys.executable, "-c", program])
    made = fuzz.Generated(tmp_path / "f.jsonl", "read.jsonl", ("set_value",))
    outcome = fuzz.run_one(made, "run", tmp_path, timeout=2)
    assert (outcome.exit_code, outcome.traceback, outcome.bad) == expected


def test_a_fuzzed_sample_gives_no_traceback_and_no_hang(tmp_path: Path) -> None:
    files = fuzz.generate(tmp_path / "cases", 30, seed=13)
    outcomes = fuzz.check(files, tmp_path / "scratch", timeout=60, jobs=4)
    bad = [(o.file.path.name, o.file.mutations, o.command, o.last_line) for o in outcomes if o.bad]
    assert bad == []
    figures = fuzz.summary(outcomes)
    assert figures == {
        "files": 30,
        "commands": 60,
        "tracebacks": 0,
        "hangs": 0,
        "unexpected_exits": 0,
    }
