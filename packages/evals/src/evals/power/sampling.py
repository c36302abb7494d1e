"""The seeded sample, the scope it is drawn from, and the ledger of samples drawn so far.

**The draw.** Each candidate mutant is ranked by a hash of the seed and its anchor, and the
``size`` first are taken: the same code, size and seed give the same sample whatever order
cosmic-ray stored the mutants in, and a change to the code only changes the sample where
mutants came or went.

**Tune and holdout.** A *tuning* sample is one whose survivors are read to write new cases
(or equivalence entries): after that, its figure measures how well the suites were fitted
to it, not their power. The figure to report comes from a *held-out* sample: drawn with a
seed no earlier sample used, from the candidates that no earlier sample holds.

**The ledger** (``power/samples.json``, committed) records every sample drawn: seed, size,
purpose, date, the hash of the scope it was drawn from, and the digests of its mutants'
anchors. An entry drawn before the ledger existed may have no digests (``mutants: null``);
its mutants are then taken to be the draw of its seed and size from today's candidates
within its recorded scope (what the same command would draw today).

**Overlap, precisely.** Two samples *overlap* when they hold a mutant with the same anchor
(module, operator, the mutated line's stripped text, ``nth``). A new sample is *reused*
when it overlaps any ledger entry or was drawn with a seed any ledger entry used. A reused
sample is never called held out: ``evals power --purpose holdout`` refuses it (exit 2).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evals.io.files import write_atomic
from evals.power.mutants import DIGEST_CHARS, Mutant, PowerError, order_key

Purpose = Literal["tune", "holdout", "all"]
"""Why a sample was drawn: ``tune`` (its survivors guide new cases), ``holdout`` (its
figure is the one reported), ``all`` (the whole population: a benchmark; it uses up every
mutant, so no later holdout can be drawn until the code changes)."""
PURPOSES: tuple[Purpose, ...] = ("tune", "holdout", "all")
LEDGER_VERSION = 1
MAX_SEED = 2**31 - 1


# --- The scope ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """What is mutated: folders or modules, less the modules left out (with why)."""

    paths: tuple[str, ...]
    """Folders or ``.py`` files, relative to the project root (POSIX)."""
    exclude: Mapping[str, str] = field(default_factory=dict)
    """Module or folder -> why it is left out of the figure."""

    def covers(self, path: str) -> bool:
        """Whether ``path`` lies under one of :attr:`paths`."""
        return any(_under(path, p) for p in self.paths)

    def excluded(self, path: str) -> str | None:
        """The exclusion ``path`` falls under (``None``: in scope)."""
        return next((e for e in sorted(self.exclude) if _under(path, e)), None)

    def holds(self, path: str) -> bool:
        """In :attr:`paths` and not excluded."""
        return self.covers(path) and self.excluded(path) is None

    @property
    def hash(self) -> str:
        """A digest of the sorted paths and exclusions (not the reasons): two samples with
        the same hash were drawn from the same part of the code."""
        return scope_hash(self.paths, self.exclude)


def scope_hash(paths: Iterable[str], exclude: Iterable[str]) -> str:
    """:attr:`Scope.hash` from its parts."""
    text = json.dumps({"paths": sorted(paths), "exclude": sorted(exclude)})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def _under(path: str, folder_or_file: str) -> bool:
    base = folder_or_file.rstrip("/")
    return path == base or path.startswith(base + "/")


# --- The draw ----------------------------------------------------------------------------


def _rank(mutant: Mutant, seed: int) -> bytes:
    return hashlib.sha256(f"{seed}\n{mutant.anchor}".encode()).digest()


def draw(mutants: Sequence[Mutant], size: int | None, seed: int) -> list[Mutant]:
    """``size`` mutants drawn with ``seed`` (all when ``size`` is ``None`` or larger), in
    file order; see the module docstring."""
    ordered = sorted(mutants, key=order_key)
    if size is None or size >= len(ordered):
        return ordered
    chosen = {m.anchor for m in sorted(ordered, key=lambda m: _rank(m, seed))[:size]}
    return [m for m in ordered if m.anchor in chosen]


# --- The ledger --------------------------------------------------------------------------


class _ScopeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paths: list[str] = Field(min_length=1)
    exclude: list[str] = []


class LedgerEntry(BaseModel):
    """One sample drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(ge=0, le=MAX_SEED)
    """The seed of the draw."""
    size: int | None = Field(ge=1)
    """How many were asked for (``None``: the whole population, ``--all``)."""
    purpose: Purpose
    """``tune``, ``holdout`` or ``all``."""
    date: datetime.date
    """When it was drawn (UTC)."""
    scope: str = Field(min_length=1)
    """The :attr:`Scope.hash` it was drawn from (a key of the ledger's ``scopes``)."""
    revision: str = "unknown"
    """The git revision of the code mutated."""
    population: int | None = Field(default=None, ge=0)
    """How many candidates it was drawn from."""
    mutants: list[str] | None = None
    """The digests of its mutants' anchors (``None``: drawn before the ledger; see the
    module docstring)."""
    note: str = ""
    """Anything a reader needs (where it was drawn, what it was used for)."""

    def describe(self) -> str:
        """``seed 1 (tune, 300, 2026-11-30)``."""
        size = "all" if self.size is None else str(self.size)
        return f"seed {self.seed} ({self.purpose}, {size}, {self.date.isoformat()})"


class _LedgerFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int
    about: str = ""
    scopes: dict[str, _ScopeEntry] = {}
    samples: list[LedgerEntry] = []


ABOUT = (
    "Every sample `evals power` drew (docs/power.md): a sample overlapping any of these, or"
    " drawn with one of their seeds, is reused and never reported as held out."
)


@dataclass
class Ledger:
    """The samples drawn so far, and the scopes they were drawn from."""

    path: Path
    """The file (``power/samples.json``); it need not exist yet."""
    samples: list[LedgerEntry] = field(default_factory=list)
    """In the order drawn."""
    scopes: dict[str, Scope] = field(default_factory=dict)
    """Scope hash -> the scope (paths and exclusions; the reasons are not kept)."""

    def seeds(self) -> set[int]:
        """Every seed used."""
        return {e.seed for e in self.samples}

    def mutants_of(self, entry: LedgerEntry, candidates: Sequence[Mutant]) -> set[str]:
        """The anchor digests of ``entry``'s mutants: recorded, or (an entry drawn before
        the ledger) its draw from today's ``candidates`` within its scope."""
        if entry.mutants is not None:
            return set(entry.mutants)
        scope = self.scopes.get(entry.scope)
        if scope is None:  # refused when the file is read
            raise PowerError(f"{self.path}: {entry.describe()}: unknown scope {entry.scope!r}")
        within = [m for m in candidates if scope.holds(m.path)]
        return {m.digest for m in draw(within, entry.size, entry.seed)}

    def used(self, candidates: Sequence[Mutant]) -> set[str]:
        """The digests of every mutant some entry holds."""
        found: set[str] = set()
        for entry in self.samples:
            found |= self.mutants_of(entry, candidates)
        return found

    def record(self, entry: LedgerEntry, scope: Scope) -> None:
        """Append ``entry`` (drawn from ``scope``) and write the file."""
        self.scopes.setdefault(
            scope.hash, Scope(tuple(sorted(scope.paths)), {e: "" for e in sorted(scope.exclude)})
        )
        self.samples.append(entry)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, render_ledger(self))


def load_ledger(path: Path) -> Ledger:
    """The ledger at ``path`` (empty when there is no file); :class:`PowerError`, one line
    naming the file and the field, when it is malformed."""
    if not path.is_file():
        return Ledger(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PowerError(f"{path}: not a readable JSON ledger: {e}") from e
    try:
        parsed = _LedgerFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise PowerError(f"{path}: {where}: {first['msg']}") from e
    if parsed.version != LEDGER_VERSION:
        raise PowerError(f"{path}: version {parsed.version} (this evals reads {LEDGER_VERSION})")
    for number, entry in enumerate(parsed.samples):
        if entry.scope not in parsed.scopes:
            raise PowerError(f"{path}: samples.{number}.scope: no scope {entry.scope!r}")
        if entry.mutants is not None and len(set(entry.mutants)) != len(entry.mutants):
            raise PowerError(f"{path}: samples.{number}.mutants: a digest appears twice")
    scopes = {
        key: Scope(tuple(s.paths), dict.fromkeys(s.exclude, "")) for key, s in parsed.scopes.items()
    }
    for key, scope in scopes.items():
        if scope.hash != key:
            raise PowerError(f"{path}: scopes.{key}: its paths and exclusions hash to {scope.hash}")
    return Ledger(path, list(parsed.samples), scopes)


def render_ledger(ledger: Ledger) -> str:
    """The ledger as JSON: one scope, one sample a line (a sample's digests on its line)."""
    scopes = [
        f"    {json.dumps(key)}: "
        + json.dumps({"paths": list(s.paths), "exclude": sorted(s.exclude)}, ensure_ascii=False)
        for key, s in sorted(ledger.scopes.items())
    ]
    samples = [
        "    " + json.dumps(e.model_dump(mode="json"), ensure_ascii=False) for e in ledger.samples
    ]
    return (
        "{\n"
        f'  "version": {LEDGER_VERSION},\n'
        f'  "about": {json.dumps(ABOUT)},\n'
        '  "scopes": {\n' + ",\n".join(scopes) + ("\n" if scopes else "") + "  },\n"
        '  "samples": [\n' + ",\n".join(samples) + ("\n" if samples else "") + "  ]\n"
        "}\n"
    )


# --- Choosing and judging a sample -------------------------------------------------------


@dataclass(frozen=True)
class Earlier:
    """An earlier sample of the ledger, as the new one relates to it."""

    entry: LedgerEntry
    """The ledger entry."""
    shared: int
    """How many of the new sample's mutants it holds."""
    same_seed: bool
    """Whether it was drawn with the new sample's seed."""

    @property
    def reuses(self) -> bool:
        """Whether the new sample counts as reused because of this entry."""
        return self.shared > 0 or self.same_seed

    def as_json(self) -> dict[str, Any]:
        """For the report."""
        return {
            "seed": self.entry.seed,
            "size": self.entry.size,
            "purpose": self.entry.purpose,
            "date": self.entry.date.isoformat(),
            "scope": self.entry.scope,
            "shared": self.shared,
            "same_seed": self.same_seed,
            "recorded_mutants": self.entry.mutants is not None,
        }


def relate(
    sample: Sequence[Mutant], seed: int, ledger: Ledger, candidates: Sequence[Mutant]
) -> list[Earlier]:
    """How ``sample`` (drawn with ``seed``) relates to every earlier ledger entry."""
    digests = {m.digest for m in sample}
    return [
        Earlier(e, len(digests & ledger.mutants_of(e, candidates)), e.seed == seed)
        for e in ledger.samples
    ]


def refuse_reused_holdout(earlier: Sequence[Earlier], ledger: Path) -> None:
    """:class:`PowerError` naming the first earlier sample that makes this one reused."""
    for e in earlier:
        if e.same_seed:
            raise PowerError(
                f"seed {e.entry.seed} was used before ({e.entry.describe()} in {ledger}):"
                " a sample drawn with it is not held out; leave --seed out for a fresh one"
            )
        if e.shared:
            raise PowerError(
                f"the sample shares {e.shared} mutant(s) with {e.entry.describe()} in"
                f" {ledger}: a reused sample is not held out"
            )


def fresh_seed(used: set[int]) -> int:
    """A random seed (1 ..= 2**31 - 1) that no ledger entry used."""
    while True:
        seed = secrets.randbelow(MAX_SEED) + 1
        if seed not in used:
            return seed


@dataclass(frozen=True)
class Drawn:
    """A sample chosen for a run, before it runs."""

    purpose: Purpose
    """Why it is drawn."""
    seed: int
    """Its seed (fresh for a holdout)."""
    size: int | None
    """Asked for (``None``: all)."""
    population: list[Mutant]
    """What it was drawn from: every candidate for ``tune`` and ``all``; for
    ``holdout`` and a ``fresh`` tune only those no earlier sample holds."""
    sample: list[Mutant]
    """The mutants to run, in file order."""
    earlier: list[Earlier]
    """How it relates to every earlier sample of the ledger."""
    seed_was_given: bool
    """Whether the seed came from ``--seed`` (a holdout's is drawn otherwise)."""
    fresh: bool = False
    """Whether it was drawn only from candidates no earlier sample holds (a holdout
    always is; a tune with ``--fresh``)."""

    @property
    def reused(self) -> bool:
        """Whether some earlier sample makes this one reused."""
        return any(e.reuses for e in self.earlier)


def choose(
    candidates: Sequence[Mutant],
    ledger: Ledger,
    *,
    purpose: Purpose,
    size: int | None,
    seed: int | None,
    fresh: bool = False,
) -> Drawn:
    """Draw the sample a run asks for and relate it to the ledger.

    ``tune``: ``size`` of every candidate with ``seed`` (default 0); with ``fresh``, of
    the candidates no ledger entry holds (new code or new operators, read before a held-out
    sample is drawn from what is left; drawing it uses those mutants up). ``all``: every
    candidate. ``holdout``: ``size`` drawn with ``seed`` (a fresh random one when ``None``)
    from the candidates no ledger entry holds; refused (:class:`PowerError`) when the seed
    was used before, when fewer than ``size`` such candidates are left, or when the sample
    is reused anyway.
    """
    if purpose == "all":
        chosen_seed = 0 if seed is None else seed
        sample = draw(candidates, None, chosen_seed)
        return Drawn(
            purpose,
            chosen_seed,
            None,
            list(candidates),
            sample,
            relate(sample, chosen_seed, ledger, candidates),
            seed is not None,
        )
    if purpose == "tune":
        chosen_seed = 0 if seed is None else seed
        pool = list(candidates)
        if fresh:
            used = ledger.used(candidates)
            pool = [m for m in candidates if m.digest not in used]
            if not pool:
                raise PowerError(
                    f"every candidate mutant is in some sample of {ledger.path}: --fresh has"
                    " nothing to draw from (new code of the scope brings new mutants)"
                )
        sample = draw(pool, size, chosen_seed)
        return Drawn(
            purpose,
            chosen_seed,
            size,
            pool,
            sample,
            relate(sample, chosen_seed, ledger, candidates),
            seed is not None,
            fresh,
        )
    if size is None:
        raise PowerError("a held-out sample needs --sample N (--all uses every mutant)")
    chosen_seed = fresh_seed(ledger.seeds()) if seed is None else seed
    used = ledger.used(candidates)
    population = [m for m in candidates if m.digest not in used]
    if seed is not None and seed in ledger.seeds():
        refuse_reused_holdout(relate([], chosen_seed, ledger, candidates), ledger.path)
    if len(population) < size:
        raise PowerError(
            f"only {len(population)} of {len(candidates)} candidate mutants are in no earlier"
            f" sample of {ledger.path}: a held-out sample of {size} cannot be drawn"
            + (
                f" (--sample {len(population)} takes every one of them; new code of the"
                " scope brings new mutants)"
                if population
                else " (new code of the scope brings new mutants)"
            )
        )
    sample = draw(population, size, chosen_seed)
    earlier = relate(sample, chosen_seed, ledger, candidates)
    refuse_reused_holdout(earlier, ledger.path)
    return Drawn(purpose, chosen_seed, size, population, sample, earlier, seed is not None, True)


def replay(candidates: Sequence[Mutant], ledger: Ledger, seed: int) -> Drawn:
    """The mutants the ledger's samples of ``seed`` hold, run again as a *tuning* sample.

    A held-out sample, once its figure is reported, is how the next round of tuning
    begins: its survivors are read and answered. Replaying runs exactly its mutants (those
    still among today's ``candidates``; code that changed since has other mutants), so its
    survivors can be read without drawing, and so using up, fresh candidates a later
    held-out sample needs. :class:`PowerError` when no entry of the ledger used ``seed``
    or none of its mutants is left.
    """
    entries = [e for e in ledger.samples if e.seed == seed]
    if not entries:
        raise PowerError(
            f"no sample of {ledger.path} was drawn with seed {seed}: --replay takes the seed"
            " of a sample the ledger records"
        )
    held: set[str] = set()
    for entry in entries:
        held |= ledger.mutants_of(entry, candidates)
    sample = [m for m in sorted(candidates, key=order_key) if m.digest in held]
    if not sample:
        raise PowerError(
            f"none of the {len(held)} mutant(s) of seed {seed} in {ledger.path} is among"
            " today's candidates (the code they mutated changed)"
        )
    earlier = relate(sample, seed, ledger, candidates)
    return Drawn("tune", seed, len(sample), list(candidates), sample, earlier, True)


def entry_for(
    drawn: Drawn, scope: Scope, *, revision: str, note: str = "", today: datetime.date | None = None
) -> LedgerEntry:
    """The ledger entry recording ``drawn``."""
    return LedgerEntry(
        seed=drawn.seed,
        size=drawn.size,
        purpose=drawn.purpose,
        date=today or datetime.datetime.now(datetime.UTC).date(),
        scope=scope.hash,
        revision=revision,
        population=len(drawn.population),
        mutants=sorted(m.digest for m in drawn.sample),
        note=note,
    )
