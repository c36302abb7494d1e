"""Lint a case set: a data-set health check run in CI.

Lint judges the data set, not one case at a time: duplicate ids, leakage between
splits, splits too small to mean anything, required tags nobody covers. It works on
loaded :class:`~evals.model.case.Case` objects and on raw JSON objects (records of files that
do not load), so every rule can fire, including "unknown split" and "missing outcome"
which a SUT's screening would stop first. Each finding is one line naming the case.

The rules about a project's vocabulary (which splits, outcomes and fault targets exist,
which tags the set must cover, anything else it checks) come from the ``case_rules`` its
system under test declares (:mod:`evals.cases.vocabulary`); without them lint judges what the
domain-neutral core requires.

Lint streams: :func:`lint_files` reads a file a line at a time and lints each case as it
is read (:func:`lint` takes the cases one by one too), holding no record and no file text.
For the rules about the whole set it keeps, per case, only a hash of its id key
(:func:`~evals._text.id_key`) and one of its task (input, world, faults …; see
``_Item.content_key``), each with where the case is, in flat arrays (``_Seen``: about 60
bytes a case for both), plus the split counts, the first ``min_split_size`` ids of each
split, the required tags covered and the roles cases expect dispatched. A hash shared by
two cases only says they may be twins: at the end, lint reads those cases again (the
lines named, nothing else) and judges them exactly, as it would have judged the whole
set in memory. The SUT's ``check_case`` is asked about every valid run case as it is
read; what it said of a case that repeats an earlier id is dropped at the end, once
lint knows (the loader never screens a repeated id). A fault on a role no case before
it dispatched waits for the end too (a later case may dispatch it), in its place among
the case's findings. Findings come in the order they always had: per kind, each in file
and line order, the set-wide ones last.

Big files are linted in parts at once (:func:`lint_files`' ``jobs``): the lines are cut
between processes, each part judged as above on its own, and the parts' findings,
counts and hashes added up in file order at the end. Nothing a rule says depends on
where the cuts fall: the rules judged case by case see one case, the roles are judged
against every role known at the end, and the hashes are placed in file order.
"""

from __future__ import annotations

import bisect
import ctypes
import hashlib
import itertools
import json
import multiprocessing
import os
import pickle
import re
import signal
import traceback
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from evals._text import id_key, id_problem, printable, quote
from evals.cases.case_file import LineDecoder, Record, line_start, parse_line, raw_lines
from evals.cases.configuration import run_expectations
from evals.cases.loader import unknown_expectations, validate_record
from evals.cases.validation import SCREEN_BATCH, Screener
from evals.cases.vocabulary import DEFAULT_MIN_SPLIT_SIZE, NO_RULES, CaseRules, rules_of
from evals.checks.registry import registered_expect_keys
from evals.errors import EvalsError, LintError, Problem
from evals.model.case import FAULT_PATTERN, Case, is_configuration

Rule = str
"""A lint rule's name: one of :data:`CORE_RULES`, or a rule of the project's own
``case_rules.lint`` hook (SupportPilot: ``contradiction``, ``no_trajectory``)."""

CORE_RULES: tuple[str, ...] = (
    "unreadable",
    "invalid",
    "sut_check",
    "duplicate_id",
    "bad_id",
    "near_duplicate_id",
    "unknown_split",
    "missing_outcome",
    "unknown_outcome",
    "unknown_expect_key",
    "unknown_fault_role",
    "unknown_fault_kind",
    "no_tags",
    "leakage",
    "small_split",
    "missing_tag",
    "unchecked_expectation",
    "lint_hook",
)
"""The rules of the core, by name (``lint_hook``: the project's hook itself raised)."""

_FAULT_RE = re.compile(FAULT_PATTERN)


class Finding(BaseModel):
    """One lint finding."""

    rule: Rule
    """Which rule fired."""
    case_id: str | None = None
    """The case concerned (``None`` for findings about the whole set)."""
    message: str
    """What is wrong, in a sentence."""
    file: str | None = None
    """The file of the case, when known."""
    line: int | None = None
    """The line of the case, when known."""

    def render(self) -> str:
        """One line: ``[file:line: ]case <id>: <rule>: <message>``; a line that holds no
        readable case is named by its file and line alone, a finding about the whole set
        by ``case set``."""
        where = f"{self.file}:{self.line}: " if self.file is not None else ""
        if self.case_id is not None:
            who = f"case {quote(self.case_id)}: "
        else:
            who = "" if self.file is not None else "case set: "
        return printable(f"{where}{who}{self.rule}: {self.message}")


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
"""``json.dumps(..., sort_keys=True, ensure_ascii=False)``, the encoder made once."""


class _Item:
    """A case or raw record, seen through the fields lint reads."""

    def __init__(self, data: Mapping[str, Any], file: str | None, line: int | None) -> None:
        self.data = data
        self.file = file
        self.line = line
        raw_id = data.get("id")
        self.id = raw_id if isinstance(raw_id, str) else None
        expect = data.get("expect")
        self.expect: Mapping[str, Any] = expect if isinstance(expect, Mapping) else {}
        faults = data.get("faults")
        self.faults: Mapping[str, Any] = faults if isinstance(faults, Mapping) else {}
        tags = data.get("tags")
        # Only strings are tags; anything else is the loader's problem, not a crash here.
        self.tags: list[str] = (
            [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
        )
        self.configuration = is_configuration(data)

    def finding(self, rule: Rule, message: str) -> Finding:
        return Finding(rule=rule, case_id=self.id, message=message, file=self.file, line=self.line)

    def content_key(self) -> str:
        """Input, world, faults and (a configuration case's) SUT options and environment,
        canonically: equal keys mean the same task."""
        given = self.data.get("input")
        # A key set to null says what leaving it out says.
        inputs = (
            {k: v for k, v in given.items() if v is not None}
            if isinstance(given, Mapping)
            else {"value": given}
        )
        content = {
            "input": inputs,
            "world": self.data.get("world") or {},
            "faults": self.data.get("faults") or {},
            # A configuration case's task is its configuration too.
            "sut_options": self.data.get("sut_options") or {},
            "sut_env": self.data.get("sut_env") or {},
            # Asking whether the SUT accepts a task is not running it: a configuration
            # case never leaks into a run case (or back).
            "configuration": self.configuration,
        }
        return _CANONICAL.encode(content)


def _item(case: Case | Record | Mapping[str, Any]) -> _Item:
    if isinstance(case, Case):
        return _Item(case.model_dump(mode="json"), None, None)
    if isinstance(case, Record):
        data = case.data if isinstance(case.data, Mapping) else {}
        return _Item(data, case.file, case.line)
    return _Item(case, None, None)


def _named(value: object) -> bool:
    return isinstance(value, str) and bool(value)


class _UnknownRole(NamedTuple):
    """A fault on a role not known yet: a finding unless a later case dispatches it."""

    role: Any
    case_id: str | None
    file: str | None
    line: int | None


def _per_case(
    item: _Item,
    known_roles: set[str] | None,
    expect_keys: Collection[str],
    rules: CaseRules,
) -> list[Finding | _UnknownRole]:
    found: list[Finding | _UnknownRole] = []
    raw_id = item.data.get("id")
    if not isinstance(raw_id, str):
        found.append(item.finding("bad_id", f"id must be a string, got {quote(raw_id)}"))
    elif (problem := id_problem(raw_id)) is not None:
        found.append(item.finding("bad_id", f"id {problem}"))
    split = item.data.get("split")
    if not _named(split) or (rules.splits is not None and split not in rules.splits):
        found.append(item.finding("unknown_split", f"unknown split {quote(split)}"))
    outcome = item.expect.get("outcome")
    configuration = item.configuration
    if configuration:
        unchecked = run_expectations(item.data)
        if unchecked:
            keys = ", ".join(f"expect.{key}" for key in unchecked)
            message = (
                f"a configuration case is never run, so {keys} would never be checked"
                " (only expect.refused or expect.described is)"
            )
            found.append(item.finding("unchecked_expectation", message))
    if outcome is None:
        if rules.outcome_required and not configuration:
            message = "no expected outcome (expect.outcome)"
            found.append(item.finding("missing_outcome", message))
    elif not _named(outcome) or not rules.accepts_outcome(outcome):
        message = f"unknown expected outcome {quote(outcome)}"
        found.append(item.finding("unknown_outcome", message))
    for _, message in unknown_expectations(item.expect, expect_keys):
        found.append(item.finding("unknown_expect_key", message))
    # A case the SUT must refuse names what is wrong on purpose (an unknown role …).
    refused = item.expect.get("refused") if isinstance(item.expect, Mapping) else None
    must_refuse = isinstance(refused, list) and bool(refused)
    for role, kind in item.faults.items():
        if known_roles is not None and role not in known_roles and not must_refuse:
            # Judged at the end, against every role known by then.
            found.append(_UnknownRole(role, item.id, item.file, item.line))
        if not isinstance(kind, str) or not _FAULT_RE.match(kind):
            found.append(item.finding("unknown_fault_kind", f"unknown fault kind {quote(kind)}"))
    if not item.tags:
        found.append(item.finding("no_tags", "no tags"))
    if rules.lint is not None:
        try:
            own = rules.lint(item.data)
        except Exception as e:  # the project's hook: report it, never crash
            own = [("lint_hook", f"the project's lint hook raised {type(e).__name__}: {e}")]
        found += [item.finding(rule, message) for rule, message in own]
    return found


class _Shard:
    """One part of a :class:`_Seen`: open addressing (linear probing) over flat arrays."""

    __slots__ = ("handles", "hashes", "tags", "used")

    def __init__(self, slots: int, tagged: bool) -> None:
        self.hashes = array("I", bytes(4 * slots))
        """32 bits of each hash (0: an empty slot)."""
        self.handles = array("Q", bytes(8 * slots))
        self.tags = array("I", bytes(4 * slots)) if tagged else None
        self.used = 0


_SHARDS = 64


class _Seen:
    """Which hashes were seen, each with the handle (where the case is) and, ``tagged``, a
    tag of the first case it came with. 64 shards (by 6 bits of the hash), each open
    addressing over flat arrays: 12 bytes a slot (16 tagged), at most two thirds full, so
    a million cases cost some 25 MB (33 MB tagged), not the hundreds of megabytes a dict
    of Python ints would, and a shard grows alone (nothing is ever held twice but one
    shard). 38 bits of the hash tell keys apart: a hit only says "maybe the same", and the
    cases are judged again, exactly, at the end."""

    def __init__(self, *, tagged: bool = False) -> None:
        self._shards = [_Shard(256, tagged) for _ in range(_SHARDS)]

    def first(self, key: int, handle: int, tag: int = 0) -> tuple[int, int] | None:
        """The handle and tag stored with ``key``'s hash, or ``None`` when it is new (they
        are then ``handle`` and ``tag``)."""
        shard = self._shards[(key >> 32) % _SHARDS]
        hashed = (key & 0xFFFFFFFF) or 1
        slot = _slot(shard.hashes, hashed)
        if shard.hashes[slot]:
            return shard.handles[slot], shard.tags[slot] if shard.tags is not None else 0
        _put(shard, slot, hashed, handle, tag)
        if 3 * shard.used > 2 * len(shard.hashes):
            _grow(shard)
        return None

    def handle(self, key: int) -> int:
        """The handle stored with ``key``'s hash (which must have been seen)."""
        shard = self._shards[(key >> 32) % _SHARDS]
        return shard.handles[_slot(shard.hashes, (key & 0xFFFFFFFF) or 1)]


def _slot(hashes: array[int], hashed: int) -> int:
    """Where ``hashed`` is, or the empty slot where it goes."""
    mask = len(hashes) - 1
    slot = hashed & mask
    while (there := hashes[slot]) and there != hashed:
        slot = (slot + 1) & mask
    return slot


def _put(shard: _Shard, slot: int, hashed: int, handle: int, tag: int) -> None:
    shard.hashes[slot], shard.handles[slot] = hashed, handle
    if shard.tags is not None:
        shard.tags[slot] = tag
    shard.used += 1


def _grow(shard: _Shard) -> None:
    """Twice the slots, every entry put again."""
    hashes, handles, tags = shard.hashes, shard.handles, shard.tags
    size = 2 * len(hashes)
    shard.hashes, shard.handles = array("I", bytes(4 * size)), array("Q", bytes(8 * size))
    shard.tags = array("I", bytes(4 * size)) if tags is not None else None
    shard.used = 0
    for slot, hashed in enumerate(hashes):
        if hashed:
            tag = tags[slot] if tags is not None else 0
            _put(shard, _slot(shard.hashes, hashed), hashed, handles[slot], tag)


class _Twin(NamedTuple):
    """A case read again at the end because a hash says it may share its id key or its
    task with another: what the set-wide rules read of it."""

    id: str | None
    file: str | None
    line: int | None
    split: str
    """``str`` of its split, as leakage compares and names them."""
    task: bytes
    """A 256-bit digest of its content key."""


def _twin(item: _Item) -> _Twin:
    task = item.content_key().encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(task, digest_size=32).digest()
    return _Twin(item.id, item.file, item.line, str(item.data.get("split")), digest)


def _finding(twin: _Twin, rule: Rule, message: str) -> Finding:
    return Finding(rule=rule, case_id=twin.id, message=message, file=twin.file, line=twin.line)


def _duplicates(twins: list[_Twin]) -> list[Finding]:
    first: dict[str, _Twin] = {}
    looks: dict[str, _Twin] = {}
    found: list[Finding] = []
    for twin in twins:
        if twin.id is None:
            continue
        if twin.id in first:
            where = first[twin.id]
            place = f" at {where.file}:{where.line}" if where.file is not None else ""
            message = f"id {quote(twin.id)} already used{place}"
            found.append(_finding(twin, "duplicate_id", message))
            continue
        first[twin.id] = twin
        key = id_key(twin.id)
        if key in looks:
            other = looks[key]
            place = f" at {other.file}:{other.line}" if other.file is not None else ""
            message = (
                f"id {quote(twin.id)} looks like {quote(other.id)}{place} (they differ only "
                "by case, whitespace, zero-width characters, fullwidth forms or NFC/NFD)"
            )
            found.append(_finding(twin, "near_duplicate_id", message))
        else:
            looks[key] = twin
    return found


def _leakage(twins: list[_Twin]) -> list[Finding]:
    groups: dict[bytes, list[_Twin]] = {}
    for twin in twins:
        groups.setdefault(twin.task, []).append(twin)
    found: list[Finding] = []
    for group in groups.values():
        splits = {t.split for t in group}
        if len(splits) < 2:
            continue
        for twin in group:
            others = [f"{o.id} ({o.split})" for o in group if o is not twin]
            message = (
                f"same input, world and faults as {', '.join(others)} in another split; "
                "a case seen while tuning inflates the test score"
            )
            found.append(_finding(twin, "leakage", message))
    return found


Fetch = Callable[[Sequence[int]], Iterable[tuple[int, _Item]]]
"""Reads the cases of the handles given (in handle order) again: ``(handle, item)``."""


class _Counts(NamedTuple):
    """What :class:`_Tally` keeps, as plain data (a part linted in another process sends
    it back)."""

    per_case: list[Finding | _UnknownRole]
    roles: set[str]
    sizes: dict[str, int]
    members: dict[str, list[str]]
    runs: bool
    covered: set[str]


class _Tally:
    """The rules judged one case at a time, and what the set-wide rules count: the
    findings of each case, the roles faults may name, split sizes and first members,
    the required tags covered. None of it depends on the order the cases come in but
    the order of the findings, so parts of a set tallied apart add up
    (:meth:`add`)."""

    def __init__(
        self,
        *,
        min_split_size: int,
        required_tags: Sequence[str] | None,
        known_roles: Iterable[str] | None,
        expect_keys: Collection[str] | None,
        rules: CaseRules,
    ) -> None:
        self.rules = rules
        self.min_split_size = min_split_size
        self.keys = registered_expect_keys() if expect_keys is None else expect_keys
        tags = rules.required_tags if required_tags is None else required_tags
        self.required_tags = tuple(tags)
        # What faults may name: the declared targets plus known_roles; without a
        # declaration, the roles any case expects dispatched plus known_roles.
        self.counts = _Counts(
            per_case=[],
            roles=set(known_roles or ()) | set(rules.fault_targets or ()),
            sizes={},
            members={},
            runs=False,
            covered=set(),
        )
        """``sizes``: named split -> its cases, in the order the splits first came;
        ``members``: a split -> its first ``min_split_size`` ids; ``covered``: the
        required tags some case that runs has."""

    def judge(self, item: _Item) -> None:
        """The findings of one case, and what it adds to the counts."""
        counts = self.counts
        if self.rules.fault_targets is None:
            dispatched = item.expect.get("dispatched")
            if isinstance(dispatched, list):
                counts.roles.update(r for r in dispatched if isinstance(r, str))
        counts.per_case.extend(_per_case(item, counts.roles, self.keys, self.rules))
        split = item.data.get("split")
        if isinstance(split, str):
            members = counts.members.setdefault(split, [])
            if len(members) < self.min_split_size:
                members.append(item.id or "?")
            if split:
                counts.sizes[split] = counts.sizes.get(split, 0) + 1
        # Required tags are about what runs cover: configuration cases neither cover them
        # nor need them, and a set of configuration cases alone is not judged by them.
        if not item.configuration:
            self.counts = counts._replace(runs=True)
            self.counts.covered.update(tag for tag in item.tags if tag in self.required_tags)

    def add(self, later: _Counts, lines: int) -> None:
        """Count in what a later part of the set tallied; ``lines``: where its file's
        lines are, so far (its findings' lines are numbered from its start)."""
        counts = self.counts
        counts.per_case.extend(_moved(entry, lines) for entry in later.per_case)
        counts.roles.update(later.roles)
        for split, size in later.sizes.items():
            counts.sizes[split] = counts.sizes.get(split, 0) + size
        for split, ids in later.members.items():
            members = counts.members.setdefault(split, [])
            members += ids[: max(0, self.min_split_size - len(members))]
        counts.covered.update(later.covered)
        self.counts = counts._replace(runs=counts.runs or later.runs)


def _moved(entry: Finding | _UnknownRole, lines: int) -> Finding | _UnknownRole:
    """``entry`` of a part read after ``lines`` lines of its file, numbered in the file."""
    if not lines or not entry.line:  # line 0: about the whole file
        return entry
    if isinstance(entry, Finding):
        return entry.model_copy(update={"line": entry.line + lines})
    return entry._replace(line=entry.line + lines)


class _Linter:
    """The rules about the whole set: :meth:`place` each case (a hash of its id key and
    one of its task, with the handle that finds it again; it is not kept), then
    :meth:`finish` (every finding, per case in order, then the set-wide ones). See the
    module for what it keeps."""

    def __init__(self, tally: _Tally) -> None:
        self.tally = tally
        self.ids = _Seen()
        """id key hash -> the first case with it."""
        self.twins: set[int] = set()
        """Handles of the cases whose id key hash another case has."""
        self.tasks = _Seen(tagged=True)
        """Content key hash -> the first case with it, tagged with its split's code."""
        self.same_task: dict[int, list[int]] = {}
        """Content key hash -> the handles of the cases after the first with it."""
        self.leaks: set[int] = set()
        """Content key hashes seen in two splits."""
        self.split_codes: dict[str, int] = {}

    def place(self, handle: int, named: int | None, task: int, split: str) -> None:
        """The case at ``handle`` (increasing): ``named``, the hash of its id key (``None``
        without an id), ``task``, the hash of its content key, ``split``, ``str`` of its
        split."""
        code = self.split_codes.setdefault(split, len(self.split_codes))
        first = self.tasks.first(task, handle, code)
        if first is not None:
            self.same_task.setdefault(task, []).append(handle)
            if first[1] != code:
                self.leaks.add(task)
        if named is None:
            return
        twin = self.ids.first(named, handle)
        if twin is not None:
            self.twins.update((twin[0], handle))

    def finish(self, fetch: Fetch) -> list[Finding]:
        """Every finding: per case in order, then duplicates, leakage, split sizes and
        tags. ``fetch`` reads again the cases a hash says may be twins."""
        counts = self.tally.counts
        known = ", ".join(sorted(counts.roles))
        found: list[Finding] = []
        for entry in counts.per_case:
            if isinstance(entry, Finding):
                found.append(entry)
            elif entry.role not in counts.roles:
                message = f"fault on unknown role {quote(entry.role)}; known: {known}"
                found.append(
                    Finding(
                        rule="unknown_fault_role",
                        case_id=entry.case_id,
                        message=message,
                        file=entry.file,
                        line=entry.line,
                    )
                )
        leaking = {h for task in self.leaks for h in self.same_task[task]}
        leaking |= {self.tasks.handle(task) for task in self.leaks}
        same_id: list[_Twin] = []
        same_task: list[_Twin] = []
        for handle, item in fetch(sorted(self.twins | leaking)):
            twin = _twin(item)
            if handle in self.twins:
                same_id.append(twin)
            if handle in leaking:
                same_task.append(twin)
        found += _duplicates(same_id)
        found += _leakage(same_task)
        found += self._set_rules()
        return found

    def _set_rules(self) -> list[Finding]:
        found: list[Finding] = []
        tally = self.tally
        splits, min_split_size = tally.rules.splits, tally.min_split_size
        named = tally.counts.sizes
        # The declared splits, each judged even when empty; else the splits the cases name.
        judged = list(splits) if splits is not None else list(dict.fromkeys(named))
        for split in judged:
            size = named.get(split, 0)
            if size < min_split_size:
                members = tally.counts.members.get(split, [])
                listed = f" ({', '.join(members)})" if members else ""
                message = (
                    f"split {split!r} has {size} case(s){listed}; the minimum is {min_split_size}"
                )
                found.append(Finding(rule="small_split", message=message))
        for tag in tally.required_tags if tally.counts.runs else ():
            if tag not in tally.counts.covered:
                message = f"no case covers required tag {tag!r}"
                found.append(Finding(rule="missing_tag", message=message))
        return found


def _hashes(item: _Item) -> tuple[int | None, int, str]:
    """What :meth:`_Linter.place` keeps of a case."""
    named = hash(id_key(item.id)) if item.id is not None else None
    return named, hash(item.content_key()), str(item.data.get("split"))


def lint(
    cases: Iterable[Case | Record | Mapping[str, Any]],
    *,
    min_split_size: int = DEFAULT_MIN_SPLIT_SIZE,
    required_tags: Sequence[str] | None = None,
    known_roles: Iterable[str] | None = None,
    expect_keys: Collection[str] | None = None,
    rules: CaseRules = NO_RULES,
) -> list[Finding]:
    """Every finding for a case set, per case in order, then set-wide findings.

    ``cases`` may mix loaded cases, raw records and plain JSON objects. ``rules`` is the
    project's vocabulary (splits, outcomes, fault targets, required tags, its own lint
    hook); ``required_tags`` overrides its tags. Fault targets known are the declared
    ones (else the roles any case expects dispatched) plus ``known_roles``. ``expect``
    keys known are ``expect_keys``, by default those of the registered checks.
    """
    held = cases if isinstance(cases, Sequence) else list(cases)
    tally = _Tally(
        min_split_size=min_split_size,
        required_tags=required_tags,
        known_roles=known_roles,
        expect_keys=expect_keys,
        rules=rules,
    )
    linter = _Linter(tally)
    for number, case in enumerate(held):
        item = _item(case)
        tally.judge(item)
        linter.place(number, *_hashes(item))
    return linter.finish(lambda handles: ((h, _item(held[h])) for h in handles))


def _named_by_a_rule(problem: Problem) -> bool:
    """Whether a lint rule already reports this load problem (no finding twice)."""
    field, message = problem.field, problem.message
    if field in ("id", "split", "expect.outcome"):
        return True  # bad_id / duplicate_id, unknown_split, missing_ or unknown_outcome
    if field.startswith("expect.") and message.startswith("unknown expectation"):
        return True  # unknown_expect_key
    return field.startswith("faults.") and message.startswith("unknown fault kind")


def _as_finding(rule: Rule, problem: Problem, raw_id: Any) -> Finding:
    return Finding(
        rule=rule,
        case_id=raw_id if isinstance(raw_id, str) else None,
        message=f"{problem.field}: {problem.message}",
        file=problem.file,
        line=problem.line,
    )


class LintReport(BaseModel):
    """What :func:`lint_files` found: the findings and how many cases it read."""

    findings: list[Finding]
    """Every finding, in file order."""
    cases: int
    """Lines read as JSON objects (one case each), valid or not."""


def lint_paths(
    paths: Sequence[Path | str],
    *,
    min_split_size: int = DEFAULT_MIN_SPLIT_SIZE,
    required_tags: Sequence[str] | None = None,
    known_roles: Iterable[str] | None = None,
    expect_keys: Collection[str] | None = None,
    sut: object | None = None,
) -> list[Finding]:
    """The findings of :func:`lint_files` (same arguments)."""
    return lint_files(
        paths,
        min_split_size=min_split_size,
        required_tags=required_tags,
        known_roles=known_roles,
        expect_keys=expect_keys,
        sut=sut,
    ).findings


_LINE_BITS = 40
"""A case's handle in :func:`lint_files`: its file's index, shifted by this, plus its line."""

SPLIT_BYTES = 16 << 20
"""Case files of at least this many bytes in all are linted in parts, in parallel."""


@dataclass(frozen=True)
class _Part:
    """The lines of one file a part lints: those that begin from ``start`` (a line's
    first byte) to ``end`` (``None``: the file's end)."""

    index: int
    """The file's place among the files linted."""
    start: int = 0
    end: int | None = None


class _Job(NamedTuple):
    """What every part is linted with."""

    files: list[Path | str]
    min_split_size: int
    required_tags: Sequence[str] | None
    known_roles: Iterable[str] | None
    expect_keys: Collection[str] | None
    rules: CaseRules
    sut: object | None

    def tally(self) -> _Tally:
        return _Tally(
            min_split_size=self.min_split_size,
            required_tags=self.required_tags,
            known_roles=self.known_roles,
            expect_keys=self.expect_keys,
            rules=self.rules,
        )


class _PartFound(NamedTuple):
    """What linting one part found, its lines numbered from the part's start."""

    lines: int
    """The last line read."""
    content: bool
    """Some line was neither blank nor a comment."""
    unread: bool
    """The file could not be opened."""
    unreadable: list[Finding]
    invalid: list[Finding]
    screened: list[tuple[int, list[Finding]]]
    """A case's line, and what the SUT's ``check_case`` said of it (cases it found
    nothing in left out)."""
    hung: int | None
    """The line of the case ``check_case`` hung on (no later case was asked)."""
    counts: _Counts
    cases: array[int]
    """The line of each case read (a JSON object)."""
    named: bytes
    """1 where that case has an id (a string), else 0."""
    ids: array[int]
    """The hash of each case's id key (0 without an id)."""
    tasks: array[int]
    """The hash of each case's content key."""
    splits: array[int]
    """The code of each case's split (``str`` of it) in ``split_names``."""
    split_names: list[str]


class _Screening:
    """What the SUT's ``check_case`` says about the valid run cases of a part, in case
    order, asked a batch at a time by ``screener``
    (:class:`~evals.cases.validation.Screener`, one for the parts a process lints: after
    it hung, it asks no more). Every such case is asked, even one whose id repeats an
    earlier case's: no part knows the others' ids, so :func:`lint_files` drops those
    cases' findings at the end, when it does (the loader never screens a repeated
    id)."""

    def __init__(self, screener: Screener) -> None:
        self.screener = screener
        self.found: list[tuple[int, list[Finding]]] = []
        self.hung: int | None = None
        self.batch: list[tuple[Case, Record]] = []

    def ask(self, case: Case, record: Record) -> None:
        self.batch.append((case, record))
        if len(self.batch) >= SCREEN_BATCH:
            self.flush()

    def flush(self) -> None:
        asked = self.screener.hung_on is None
        answers = self.screener.answer_all([case for case, _ in self.batch])
        for (case, record), (problems, _) in zip(self.batch, answers, strict=True):
            if asked and self.hung is None and case.id == self.screener.hung_on:
                self.hung = record.line
            located = [Problem(record.file, record.line, f, m) for f, m in problems]
            found = [
                _as_finding("sut_check", p, case.id) for p in located if not _named_by_a_rule(p)
            ]
            if found:
                self.found.append((record.line, found))
        self.batch.clear()


def _unreadable(problem: Problem) -> Finding:
    message = f"{problem.field}: {problem.message}"
    return Finding(rule="unreadable", message=message, file=problem.file, line=problem.line)


def _lint_part(job: _Job, part: _Part, screener: Screener | None) -> _PartFound:
    """Lint the lines of one part, one at a time (see the module); ``screener`` asks the
    SUT's ``check_case``."""
    path = job.files[part.index]
    name = str(path)
    loader_keys = registered_expect_keys()
    tally = job.tally()
    screening = _Screening(screener) if screener is not None else None
    decoder = LineDecoder()
    lines, content, unread = 0, False, False
    unreadable: list[Finding] = []
    invalid: list[Finding] = []
    cases, ids, tasks, splits = array("q"), array("q"), array("q"), array("I")
    named = bytearray()
    codes: dict[str, int] = {}
    for entry in raw_lines(path, part.start, part.end):
        if isinstance(entry, Problem):
            # line 0: the file could not be read; else an over-long line (content)
            unread, content = unread or entry.line == 0, content or entry.line > 0
            lines = max(lines, entry.line)
            unreadable.append(_unreadable(entry))
            continue
        lines = entry[0]
        record, problems, counts = parse_line(name, *entry, decoder)
        content = content or counts
        unreadable += [_unreadable(p) for p in problems]
        if record is None:
            continue
        if not isinstance(record.data, Mapping):
            # Beside the lines that are no JSON: every unreadable line in file order.
            message = "not a JSON object (one case per line)"
            unreadable.append(
                Finding(rule="unreadable", message=message, file=name, line=record.line)
            )
            continue
        case, problems = validate_record(record, loader_keys, job.rules)
        raw_id = record.data.get("id")
        invalid += [_as_finding("invalid", p, raw_id) for p in problems if not _named_by_a_rule(p)]
        item = _item(record)
        tally.judge(item)
        id_hash, task, split = _hashes(item)
        cases.append(record.line)
        named.append(id_hash is not None)
        ids.append(id_hash or 0)
        tasks.append(task)
        splits.append(codes.setdefault(split, len(codes)))
        # What the SUT says about a configuration case is its refusal, no finding.
        if screening is not None and case is not None and not is_configuration(case):
            screening.ask(case, record)
    if screening is not None:
        screening.flush()
    return _PartFound(
        lines=lines,
        content=content,
        unread=unread,
        unreadable=unreadable,
        invalid=invalid,
        screened=screening.found if screening is not None else [],
        hung=screening.hung if screening is not None else None,
        counts=tally.counts,
        cases=cases,
        named=bytes(named),
        ids=ids,
        tasks=tasks,
        splits=splits,
        split_names=list(codes),
    )


def _groups(files: Sequence[Path | str], jobs: int) -> list[list[_Part]]:
    """The files, read one after another, cut into ``jobs`` groups of parts of about the
    same size (a file cut between lines where a group ends inside it), in file and line
    order; one group when they are small together (under :data:`SPLIT_BYTES`) or
    ``jobs`` is 1."""
    sizes: list[int] = []
    for path in files:
        try:
            sizes.append(os.stat(path).st_size if os.path.isfile(path) else 0)
        except (OSError, ValueError):
            sizes.append(0)
    total = sum(sizes)
    if jobs <= 1 or total < SPLIT_BYTES:
        return [[_Part(index) for index in range(len(files))]]
    starts = list(itertools.accumulate(sizes, initial=0))
    cuts: list[tuple[int, int]] = []
    """Where each group after the first begins: (file, offset)."""
    for k in range(1, jobs):
        target = total * k // jobs
        index = bisect.bisect_right(starts, target) - 1
        offset = target - starts[index]
        at = line_start(files[index], offset) if offset else 0
        cut = (index, at) if at is not None else (index + 1, 0)
        if cut[0] < len(files) and cut > (cuts[-1] if cuts else (0, 0)):
            cuts.append(cut)
    groups: list[list[_Part]] = [[]]
    for index in range(len(files)):
        start = 0
        for where, at in cuts:
            if where != index:
                continue
            if at:
                groups[-1].append(_Part(index, start, at))
            groups.append([])
            start = at
        groups[-1].append(_Part(index, start, None))
    return groups


MAX_JOBS = 64
"""The most parts linted at once."""


def _lint_group(job: _Job, group: list[_Part]) -> Iterator[tuple[_Part, _PartFound]]:
    """What each part of ``group`` found, in order, linted in this process with one
    screener."""
    screener = Screener(job.sut) if job.sut is not None else None
    try:
        for part in group:
            yield part, _lint_part(job, part, screener)
    finally:
        if screener is not None:
            screener.close()


def _sendable(error: BaseException) -> BaseException:
    """``error`` if it survives being sent to the parent whole (an
    :class:`~evals.errors.EvalsError` or :class:`OSError` the CLI prints as one line);
    else a :class:`RuntimeError` holding its traceback."""
    if isinstance(error, EvalsError | OSError):
        try:
            back = pickle.loads(pickle.dumps(error))
            if isinstance(back, BaseException) and str(back) == str(error):
                return error
        except Exception:  # not sendable whole: its traceback is sent
            pass
    return RuntimeError(f"a part of lint failed:\n{traceback.format_exc()}")


def _group_to(
    job: _Job, group: list[_Part], sender: Connection, inherited: list[Connection]
) -> None:
    """In a forked process: lint ``group`` and send what its parts found (or the
    error). It ends with its parent (Linux) and leaves Ctrl-C to it: the parent stops
    its parts."""
    for connection in inherited:  # the other parts' ends: a dead parent breaks the pipe
        connection.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent()
    try:
        found: object = [found for _, found in _lint_group(job, group)]
    except Exception as e:
        found = _sendable(e)
    sender.send(found)
    sender.close()


def _end_with_parent() -> None:
    """Ask Linux to send this process SIGTERM when its parent dies (else nothing)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: a dead parent breaks the pipe instead
        pass


def _linted(job: _Job, groups: list[list[_Part]]) -> Iterator[tuple[_Part, _PartFound]]:
    """What each part found, in order: the first group's parts linted in this process,
    each other group's in a process forked for it, all at the same time."""
    if len(groups) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        for group in groups:
            yield from _lint_group(job, group)
        return
    context = multiprocessing.get_context("fork")
    workers: list[tuple[BaseProcess, Connection]] = []
    try:
        for group in groups[1:]:
            receiver, sender = context.Pipe(duplex=False)
            inherited = [receiver, *(r for _, r in workers)]
            started = context.Process(
                target=_group_to, args=(job, group, sender, inherited), daemon=True
            )
            started.start()
            sender.close()
            workers.append((started, receiver))
        yield from _lint_group(job, groups[0])
        for group, (worker, receiver) in zip(groups[1:], workers, strict=True):
            try:
                found = receiver.recv()
            except (EOFError, OSError):  # it ended before or while sending
                worker.join()
                code = worker.exitcode or 0
                how = f"was killed by signal {-code}" if code < 0 else f"exited ({code})"
                raise LintError(
                    f"lint of {job.files[group[0].index]} (from byte {group[0].start})"
                    f" stopped: the process linting that part {how} without its findings"
                ) from None
            if isinstance(found, BaseException):
                raise found
            yield from zip(group, found, strict=True)
            worker.join()
    finally:
        for worker, receiver in workers:
            receiver.close()
            if worker.is_alive():
                worker.kill()
                worker.join()


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def lint_files(
    paths: Sequence[Path | str],
    *,
    min_split_size: int = DEFAULT_MIN_SPLIT_SIZE,
    required_tags: Sequence[str] | None = None,
    known_roles: Iterable[str] | None = None,
    expect_keys: Collection[str] | None = None,
    sut: object | None = None,
    jobs: int | None = None,
) -> LintReport:
    """Lint case files as they are, even when they do not load.

    Lines that cannot be read as JSON objects become ``unreadable`` findings; every
    other line is linted as a raw record, so findings name file and line too. Every
    problem the loader would refuse that no lint rule names becomes an ``invalid``
    finding, and with a ``sut``, every problem its ``check_case`` hook or its
    ``case_rules`` find in a valid case a ``sut_check`` finding (unless a rule names it):
    what ``evals run`` refuses, lint reports. The SUT's ``case_rules`` drive the
    vocabulary rules too.

    The files are read a line at a time, and again at the end only for the lines of
    cases a hash says may be twins (see the module). Files of :data:`SPLIT_BYTES` or
    more in all are cut into ``jobs`` parts (default: the CPUs this process may use),
    each linted in a process of its own (forked, where the system can), and what the
    parts found is added up in file order: the findings are the same as one process
    would print.
    """
    files: list[Path | str] = [paths] if isinstance(paths, str | Path) else list(paths)
    job = _Job(
        files=files,
        min_split_size=min_split_size,
        required_tags=required_tags,
        known_roles=known_roles,
        expect_keys=expect_keys,
        rules=rules_of(sut),
        sut=sut,
    )
    groups = _groups(files, min(MAX_JOBS, default_jobs() if jobs is None else max(1, jobs)))
    tally = job.tally()
    linter = _Linter(tally)
    unreadable: list[Finding] = []
    invalid: list[Finding] = []
    screened: dict[int, list[Finding]] = {}
    """A case's handle -> what ``check_case`` said of it."""
    hung: int | None = None
    """The handle of the first case ``check_case`` hung on: no later case counts as
    asked (one process asks none)."""
    usable = 0
    read = [0] * len(files)
    """Lines read of each file so far."""
    content = [False] * len(files)
    unread = [False] * len(files)
    parts = [part for group in groups for part in group]
    for number, (part, found) in enumerate(_linted(job, groups)):
        shift, base = read[part.index], part.index << _LINE_BITS
        unreadable += [
            f  # type: ignore[misc]
            for f in map(_moved, found.unreadable, itertools.repeat(shift))
            if f.line or part.start == 0 or f not in unreadable  # a file's problem once
        ]
        invalid += [_moved(f, shift) for f in found.invalid]  # type: ignore[misc]
        for line, said in found.screened:
            screened[base | (line + shift)] = [_moved(f, shift) for f in said]  # type: ignore[misc]
        if found.hung is not None and hung is None:
            hung = base | (found.hung + shift)
        tally.add(found.counts, shift)
        names = found.split_names
        for line, has_id, id_hash, task, code in zip(
            found.cases, found.named, found.ids, found.tasks, found.splits, strict=True
        ):
            linter.place(base | (line + shift), id_hash if has_id else None, task, names[code])
        usable += len(found.cases)
        read[part.index] += found.lines
        content[part.index] = content[part.index] or found.content
        unread[part.index] = unread[part.index] or found.unread
        last = number + 1 == len(parts) or parts[number + 1].index != part.index
        if last and not content[part.index] and not unread[part.index]:
            name = str(files[part.index])
            unreadable.append(_unreadable(Problem(name, 0, "(file)", "no cases in file")))
    repeated: set[int] = set()
    """Handles of cases repeating an earlier case's id (the loader never screens them)."""

    def fetch(handles: Sequence[int]) -> Iterator[tuple[int, _Item]]:
        ids: set[bytes] = set()  # digests of the ids read again so far
        for handle, record in _read_again(files, handles):
            item = _item(record)
            if item.id is not None:
                said = _digest(item.id)
                if said in ids:
                    repeated.add(handle)
                ids.add(said)
            yield handle, item

    findings = linter.finish(fetch)
    sut_checks = [
        f
        for h, said in screened.items()
        if h not in repeated and (hung is None or h <= hung)
        for f in said
    ]
    every = [*unreadable, *invalid, *sut_checks, *findings]
    return LintReport(findings=every, cases=usable)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _read_again(
    files: Sequence[Path | str], handles: Sequence[int]
) -> Iterator[tuple[int, Record]]:
    """The records at ``handles`` (increasing), read again line by line: the lines named
    are parsed, the others only counted. A line that no longer holds a JSON object (the
    file changed meanwhile) is left out."""
    wanted: dict[int, set[int]] = {}
    for handle in handles:
        wanted.setdefault(handle >> _LINE_BITS, set()).add(handle & ((1 << _LINE_BITS) - 1))
    for index, lines in wanted.items():
        name, last = str(files[index]), max(lines)
        for entry in raw_lines(files[index]):
            if isinstance(entry, Problem):
                continue
            number, chunk = entry
            if number in lines:
                record, _, _ = parse_line(name, number, chunk)
                if record is not None and isinstance(record.data, Mapping):
                    yield index << _LINE_BITS | number, record
            if number >= last:
                break
