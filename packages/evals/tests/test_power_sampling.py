"""evals power: the seeded draw, the scope, the ledger of samples drawn, and the rules that
keep a held-out figure held out (a reused seed or an overlapping sample is refused)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from evals.power.mutants import Mutant, PowerError, digest_of
from evals.power.sampling import (
    Earlier,
    Ledger,
    LedgerEntry,
    Scope,
    choose,
    draw,
    entry_for,
    fresh_seed,
    load_ledger,
    refuse_reused_holdout,
    relate,
    render_ledger,
    replay,
    scope_hash,
)

DAY = datetime.date(2026, 12, 1)


def mutant(n: int, path: str = "src/a.py", line: int | None = None) -> Mutant:
    at = n if line is None else line
    return Mutant(f"job{n}", path, at, 0, at, 1, "core/NumberReplacer", n, code=f"x = {n}")


POOL = [mutant(n, path) for n in range(40) for path in ("src/a.py", "src/b.py")]
SCOPE = Scope(("src",), {})


def entry(
    seed: int,
    size: int | None,
    purpose: str = "tune",
    mutants: list[Mutant] | None = None,
    scope: Scope = SCOPE,
) -> LedgerEntry:
    return LedgerEntry(
        seed=seed,
        size=size,
        purpose=purpose,  # type: ignore[arg-type]
        date=DAY,
        scope=scope.hash,
        mutants=None if mutants is None else sorted(m.digest for m in mutants),
    )


def ledger(tmp_path: Path, *entries: LedgerEntry, scope: Scope = SCOPE) -> Ledger:
    return Ledger(tmp_path / "samples.json", list(entries), {scope.hash: scope})


# --- The draw ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "seed", "expected"),
    [(5, 1, 5), (80, 1, 80), (500, 1, 80), (None, 1, 80), (1, 0, 1)],
)
def test_draw_size(size: int | None, seed: int, expected: int) -> None:
    chosen = draw(POOL, size, seed)
    assert len(chosen) == expected
    assert len({m.anchor for m in chosen}) == expected
    assert chosen == sorted(chosen, key=lambda m: (m.path, m.line))


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_draw_is_determined_by_seed_not_by_storage_order(seed: int) -> None:
    shuffled = sorted(POOL, key=lambda m: hash(m.job_id) % 17)
    assert draw(POOL, 10, seed) == draw(shuffled, 10, seed)
    assert draw(POOL, 10, seed) != draw(POOL, 10, seed + 100)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_draw_carries_over_when_code_moves_or_grows(seed: int) -> None:
    before = draw(POOL, 20, seed)
    moved = [mutant(m.occurrence, m.path, m.line + 10) if m.path == "src/a.py" else m for m in POOL]
    assert {m.anchor for m in draw(moved, 20, seed)} == {m.anchor for m in before}
    grown = draw([*POOL, mutant(500, "src/c.py")], 20, seed)
    assert len({m.anchor for m in grown} & {m.anchor for m in before}) >= 19


def test_a_smaller_draw_of_one_seed_lies_inside_a_larger_one() -> None:
    assert {m.anchor for m in draw(POOL, 10, 3)} <= {m.anchor for m in draw(POOL, 30, 3)}


# --- The scope ---------------------------------------------------------------------------

EXCLUDING = Scope(
    ("src", "lib/one.py"), {"src/harness.py": "a test harness", "src/gen": "generated"}
)


@pytest.mark.parametrize(
    ("path", "covered", "excluded"),
    [
        ("src/a.py", True, None),
        ("src/harness.py", True, "src/harness.py"),
        ("src/gen/x.py", True, "src/gen"),
        ("src/generated.py", True, None),  # a prefix of a folder's name is not inside it
        ("lib/one.py", True, None),
        ("lib/two.py", False, None),
        ("srcx/a.py", False, None),
    ],
)
def test_scope(path: str, covered: bool, excluded: str | None) -> None:
    assert EXCLUDING.covers(path) is covered
    assert EXCLUDING.excluded(path) == excluded
    assert EXCLUDING.holds(path) is (covered and excluded is None)


@pytest.mark.parametrize(
    ("other", "same"),
    [
        (
            Scope(("lib/one.py", "src"), {"src/gen": "x", "src/harness.py": "y"}),
            True,
        ),  # order, reasons
        (Scope(("src",), {"src/gen": "", "src/harness.py": ""}), False),
        (Scope(("src", "lib/one.py"), {"src/gen": ""}), False),
    ],
)
def test_the_scope_hash_names_paths_and_exclusions_only(other: Scope, same: bool) -> None:
    assert (other.hash == EXCLUDING.hash) is same
    assert EXCLUDING.hash == scope_hash(EXCLUDING.paths, EXCLUDING.exclude)


# --- The ledger file ----------------------------------------------------------------------


def test_the_ledger_round_trips(tmp_path: Path) -> None:
    book = ledger(tmp_path, entry(1, 300, mutants=POOL[:3]), entry(11, 100))
    book.path.write_text(render_ledger(book), encoding="utf-8")
    again = load_ledger(book.path)
    assert again.samples == book.samples
    assert set(again.scopes) == {SCOPE.hash}
    assert again.scopes[SCOPE.hash].paths == SCOPE.paths
    # one sample a line: a new sample is one new line in the diff
    lines = book.path.read_text(encoding="utf-8").splitlines()
    assert sum('"seed":' in line for line in lines) == 2


def test_record_appends_and_writes(tmp_path: Path) -> None:
    book = ledger(tmp_path, entry(1, 5))
    other = Scope(("lib",), {"lib/x.py": "why"})
    book.record(entry(2, 5, scope=other), other)
    again = load_ledger(book.path)
    assert [e.seed for e in again.samples] == [1, 2]
    assert set(again.scopes) == {SCOPE.hash, other.hash}


def test_no_ledger_file_is_an_empty_ledger(tmp_path: Path) -> None:
    assert load_ledger(tmp_path / "none.json").samples == []


def _file(samples: list[dict[str, object]], **extra: object) -> str:
    return json.dumps(
        {
            "version": 1,
            "scopes": {SCOPE.hash: {"paths": ["src"], "exclude": []}},
            "samples": samples,
            **extra,
        }
    )


GOOD = {"seed": 1, "size": 5, "purpose": "tune", "date": "2026-12-01", "scope": SCOPE.hash}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_file([GOOD]), None),
        ("{", "not a readable JSON ledger"),
        (_file([GOOD], version=2), "version 2"),
        (_file([{**GOOD, "purpose": "final"}]), "samples.0.purpose"),
        (_file([{**GOOD, "seed": -1}]), "samples.0.seed"),
        (_file([{**GOOD, "size": 0}]), "samples.0.size"),
        (_file([{**GOOD, "date": "yesterday"}]), "samples.0.date"),
        (_file([{**GOOD, "scope": "feedbeef0000"}]), "no scope 'feedbeef0000'"),
        (_file([{**GOOD, "mutants": ["ab", "ab"]}]), "a digest appears twice"),
        (_file([{**GOOD, "why": "x"}]), "samples.0.why"),
        (
            json.dumps({"version": 1, "scopes": {"0000": {"paths": ["src"]}}, "samples": []}),
            "hash to",
        ),
    ],
)
def test_a_malformed_ledger_is_one_line_naming_the_field(
    tmp_path: Path, text: str, problem: str | None
) -> None:
    path = tmp_path / "samples.json"
    path.write_text(text, encoding="utf-8")
    if problem is None:
        assert load_ledger(path).samples[0].seed == 1
        return
    with pytest.raises(PowerError, match=problem) as raised:
        load_ledger(path)
    assert str(raised.value).startswith(str(path))
    assert "\n" not in str(raised.value)


# --- Overlap and reuse --------------------------------------------------------------------


def test_an_entry_drawn_before_the_ledger_is_its_draw_within_its_scope(tmp_path: Path) -> None:
    narrow = Scope(("src/a.py",), {})
    book = ledger(tmp_path, entry(4, 6, scope=narrow), scope=narrow)
    expected = {m.digest for m in draw([m for m in POOL if m.path == "src/a.py"], 6, 4)}
    assert book.mutants_of(book.samples[0], POOL) == expected


SAMPLE = draw(POOL, 10, 5)
OTHERS = [m for m in POOL if m not in SAMPLE]


@pytest.mark.parametrize(
    ("earlier", "shared", "same_seed", "reuses"),
    [
        (entry(6, 10, mutants=OTHERS[:10]), 0, False, False),
        (entry(6, 10, mutants=[*SAMPLE[:1], *OTHERS[:3]]), 1, False, True),  # one shared mutant
        (entry(5, 3, mutants=OTHERS[:3]), 0, True, True),  # the same seed
        (entry(5, 10), 10, True, True),  # before the ledger: the same draw
        (entry(6, 80), 10, False, True),  # before the ledger: the whole pool
    ],
)
def test_overlap_and_reuse(
    tmp_path: Path, earlier: LedgerEntry, shared: int, same_seed: bool, reuses: bool
) -> None:
    (found,) = relate(SAMPLE, 5, ledger(tmp_path, earlier), POOL)
    assert (found.shared, found.same_seed, found.reuses) == (shared, same_seed, reuses)


@pytest.mark.parametrize(
    ("earlier", "problem"),
    [
        (Earlier(entry(1, 300), 0, True), "seed 1 was used before"),
        (Earlier(entry(2, 300), 7, False), "shares 7 mutant"),
    ],
)
def test_a_reused_sample_is_refused_as_holdout(earlier: Earlier, problem: str) -> None:
    with pytest.raises(PowerError, match=problem):
        refuse_reused_holdout([Earlier(entry(9, 3), 0, False), earlier], Path("samples.json"))


def test_a_fresh_sample_passes_the_refusal() -> None:
    refuse_reused_holdout([Earlier(entry(9, 3), 0, False)], Path("samples.json"))


# --- Choosing a sample --------------------------------------------------------------------


def test_a_holdout_is_drawn_only_from_mutants_no_earlier_sample_holds(tmp_path: Path) -> None:
    tuned = draw(POOL, 30, 1)
    book = ledger(tmp_path, entry(1, 30, mutants=tuned), entry(11, 10))
    used = {m.digest for m in tuned} | book.mutants_of(book.samples[1], POOL)
    drawn = choose(POOL, book, purpose="holdout", size=20, seed=None)
    assert drawn.seed not in (1, 11)
    assert not drawn.seed_was_given
    assert not drawn.reused
    assert len(drawn.sample) == 20
    assert not {m.digest for m in drawn.sample} & used
    assert {m.digest for m in drawn.population} == {m.digest for m in POOL} - used


@pytest.mark.parametrize("seed", [1, 11])
def test_a_holdout_with_a_seed_used_before_is_refused(tmp_path: Path, seed: int) -> None:
    book = ledger(tmp_path, entry(1, 30, mutants=draw(POOL, 30, 1)), entry(11, 10))
    with pytest.raises(PowerError, match=f"seed {seed} was used before"):
        choose(POOL, book, purpose="holdout", size=5, seed=seed)


def test_a_holdout_larger_than_what_is_left_is_refused(tmp_path: Path) -> None:
    book = ledger(tmp_path, entry(1, 70, mutants=draw(POOL, 70, 1)))
    with pytest.raises(PowerError, match="only 10 of 80 candidate mutants") as info:
        choose(POOL, book, purpose="holdout", size=11, seed=None)
    assert "--sample 10 takes every one of them" in str(info.value)
    assert len(choose(POOL, book, purpose="holdout", size=10, seed=None).sample) == 10


def test_after_a_whole_population_run_no_holdout_can_be_drawn(tmp_path: Path) -> None:
    book = ledger(tmp_path, entry(0, None, purpose="all", mutants=POOL))
    with pytest.raises(PowerError, match="only 0 of 80"):
        choose(POOL, book, purpose="holdout", size=1, seed=None)
    # a new mutant (the code changed) is fresh again
    fresh = mutant(900, "src/c.py")
    drawn = choose([*POOL, fresh], book, purpose="holdout", size=1, seed=None)
    assert drawn.sample == [fresh]


def test_a_holdout_needs_a_size(tmp_path: Path) -> None:
    with pytest.raises(PowerError, match="needs --sample"):
        choose(POOL, ledger(tmp_path), purpose="holdout", size=None, seed=None)


@pytest.mark.parametrize(("seed", "reused"), [(1, True), (2, True), (None, True)])
def test_a_tuning_sample_may_reuse_and_says_so(
    tmp_path: Path, seed: int | None, reused: bool
) -> None:
    book = ledger(tmp_path, entry(1, 60, mutants=draw(POOL, 60, 1)))
    drawn = choose(POOL, book, purpose="tune", size=30, seed=seed)
    assert drawn.seed == (0 if seed is None else seed)
    assert len(drawn.population) == 80
    assert drawn.reused is reused  # 30 of 80 against 60 of 80: they must share some


def test_a_fresh_tuning_sample_holds_only_unsampled_mutants_and_uses_them_up(
    tmp_path: Path,
) -> None:
    first = draw(POOL, 60, 1)
    book = ledger(tmp_path, entry(1, 60, mutants=first))
    drawn = choose(POOL, book, purpose="tune", size=8, seed=3, fresh=True)
    assert drawn.fresh and len(drawn.population) == 20 and len(drawn.sample) == 8
    assert not {m.digest for m in drawn.sample} & {m.digest for m in first}
    assert not drawn.reused
    book.samples.append(entry(3, 8, mutants=drawn.sample))
    left = choose(POOL, book, purpose="holdout", size=12, seed=None)
    assert not {m.digest for m in left.sample} & {m.digest for m in drawn.sample}
    with pytest.raises(PowerError, match="only 12 of 80"):
        choose(POOL, book, purpose="holdout", size=13, seed=None)


def test_a_fresh_tuning_sample_with_nothing_fresh_is_refused(tmp_path: Path) -> None:
    book = ledger(tmp_path, entry(0, None, purpose="all", mutants=POOL))
    with pytest.raises(PowerError, match="--fresh has nothing to draw from"):
        choose(POOL, book, purpose="tune", size=5, seed=None, fresh=True)


def test_all_is_every_candidate(tmp_path: Path) -> None:
    drawn = choose(POOL, ledger(tmp_path, entry(1, 5)), purpose="all", size=None, seed=None)
    assert len(drawn.sample) == 80
    assert drawn.reused


def test_a_fresh_seed_is_one_no_ledger_entry_used(monkeypatch: pytest.MonkeyPatch) -> None:
    draws = iter([0, 10, 1, 41])  # seeds 1, 11, 2, 42
    monkeypatch.setattr("evals.power.sampling.secrets.randbelow", lambda _: next(draws))
    assert fresh_seed({1, 11}) == 2


def test_the_entry_records_the_sample(tmp_path: Path) -> None:
    drawn = choose(POOL, ledger(tmp_path), purpose="holdout", size=4, seed=None)
    recorded = entry_for(drawn, SCOPE, revision="abc", note="n", today=DAY)
    assert recorded.seed == drawn.seed
    assert recorded.purpose == "holdout"
    assert recorded.population == 80
    assert recorded.mutants == sorted(digest_of(m.anchor) for m in drawn.sample)
    assert recorded.scope == SCOPE.hash


# --- Replaying a sample --------------------------------------------------------------------


def test_a_replay_runs_exactly_the_mutants_of_the_seed_as_tuning_data(tmp_path: Path) -> None:
    held_out = draw(POOL, 12, 7)
    book = ledger(tmp_path, entry(1, 30, mutants=draw(POOL, 30, 1)))
    book.samples.append(entry(7, 12, purpose="holdout", mutants=held_out))
    drawn = replay(POOL, book, 7)
    assert drawn.purpose == "tune"
    assert drawn.seed == 7
    assert drawn.sample == held_out
    assert drawn.size == 12
    assert drawn.reused
    assert drawn.earlier[-1].shared == 12


def test_a_replay_keeps_only_mutants_still_there(tmp_path: Path) -> None:
    held_out = draw(POOL, 12, 7)
    book = ledger(tmp_path, entry(7, 12, purpose="holdout", mutants=held_out))
    today = [m for m in POOL if m is not held_out[0]]
    assert replay(today, book, 7).sample == held_out[1:]


@pytest.mark.parametrize(
    ("book_seed", "today", "problem"),
    [
        (8, POOL, "no sample of .* was drawn with seed 7"),
        (7, [mutant(900, "src/c.py")], "none of the 12 mutant"),
    ],
)
def test_a_replay_of_nothing_is_refused(
    tmp_path: Path, book_seed: int, today: list[Mutant], problem: str
) -> None:
    book = ledger(tmp_path, entry(book_seed, 12, purpose="holdout", mutants=draw(POOL, 12, 7)))
    with pytest.raises(PowerError, match=problem):
        replay(today, book, 7)
