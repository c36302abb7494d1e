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
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evals._text import id_key, id_problem, printable, quote
from evals.cases.case_file import Record, read_records
from evals.cases.configuration import run_expectations
from evals.cases.loader import check_located_records, unknown_expectations
from evals.cases.validation import screen_cases
from evals.cases.vocabulary import NO_RULES, CaseRules, rules_of
from evals.checks.registry import registered_expect_keys
from evals.errors import Problem
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

DEFAULT_MIN_SPLIT_SIZE = 3
"""A split with fewer cases than this says nothing."""

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
        """One line: ``[file:line: ]case <id>: <rule>: <message>``."""
        where = f"{self.file}:{self.line}: " if self.file is not None else ""
        who = f"case {quote(self.case_id)}" if self.case_id is not None else "case set"
        return printable(f"{where}{who}: {self.rule}: {self.message}")


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
            "configuration": is_configuration(self.data),
        }
        return json.dumps(content, sort_keys=True, ensure_ascii=False)


def _items(cases: Iterable[Case | Record | Mapping[str, Any]]) -> list[_Item]:
    items: list[_Item] = []
    for case in cases:
        if isinstance(case, Case):
            items.append(_Item(case.model_dump(mode="json"), None, None))
        elif isinstance(case, Record):
            data = case.data if isinstance(case.data, Mapping) else {}
            items.append(_Item(data, case.file, case.line))
        else:
            items.append(_Item(case, None, None))
    return items


def _named(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _per_case(
    item: _Item,
    known_roles: set[str] | None,
    expect_keys: Collection[str],
    rules: CaseRules,
) -> list[Finding]:
    found: list[Finding] = []
    raw_id = item.data.get("id")
    if not isinstance(raw_id, str):
        found.append(item.finding("bad_id", f"id must be a string, got {quote(raw_id)}"))
    elif (problem := id_problem(raw_id)) is not None:
        found.append(item.finding("bad_id", f"id {problem}"))
    split = item.data.get("split")
    if not _named(split) or (rules.splits is not None and split not in rules.splits):
        found.append(item.finding("unknown_split", f"unknown split {quote(split)}"))
    outcome = item.expect.get("outcome")
    configuration = is_configuration(item.data)
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
            known = ", ".join(sorted(known_roles))
            message = f"fault on unknown role {quote(role)}; known: {known}"
            found.append(item.finding("unknown_fault_role", message))
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


def _duplicates(items: list[_Item]) -> list[Finding]:
    first: dict[str, _Item] = {}
    looks: dict[str, _Item] = {}
    found: list[Finding] = []
    for item in items:
        if item.id is None:
            continue
        if item.id in first:
            where = first[item.id]
            place = f" at {where.file}:{where.line}" if where.file is not None else ""
            message = f"id {quote(item.id)} already used{place}"
            found.append(item.finding("duplicate_id", message))
            continue
        first[item.id] = item
        key = id_key(item.id)
        if key in looks:
            other = looks[key]
            place = f" at {other.file}:{other.line}" if other.file is not None else ""
            message = (
                f"id {quote(item.id)} looks like {quote(other.id)}{place} (they differ only "
                "by case, whitespace, zero-width characters, fullwidth forms or NFC/NFD)"
            )
            found.append(item.finding("near_duplicate_id", message))
        else:
            looks[key] = item
    return found


def _leakage(items: list[_Item]) -> list[Finding]:
    groups: dict[str, list[_Item]] = defaultdict(list)
    for item in items:
        groups[item.content_key()].append(item)
    found: list[Finding] = []
    for group in groups.values():
        splits = {str(i.data.get("split")) for i in group}
        if len(splits) < 2:
            continue
        for item in group:
            others = [f"{o.id} ({o.data.get('split')})" for o in group if o is not item]
            message = (
                f"same input, world and faults as {', '.join(others)} in another split; "
                "a case seen while tuning inflates the test score"
            )
            found.append(item.finding("leakage", message))
    return found


def _set_rules(
    items: list[_Item],
    min_split_size: int,
    required_tags: Sequence[str],
    splits: Sequence[str] | None,
) -> list[Finding]:
    found: list[Finding] = []
    named = [str(i.data.get("split")) for i in items if _named(i.data.get("split"))]
    # The declared splits, each judged even when empty; else the splits the cases name.
    judged = list(splits) if splits is not None else list(dict.fromkeys(named))
    sizes = Counter(split for split in named if split in judged)
    for split in judged:
        if sizes[split] < min_split_size:
            members = [i.id or "?" for i in items if i.data.get("split") == split]
            listed = f" ({', '.join(members)})" if members else ""
            message = (
                f"split {split!r} has {sizes[split]} case(s){listed}; "
                f"the minimum is {min_split_size}"
            )
            found.append(Finding(rule="small_split", message=message))
    # Required tags are about what runs cover: configuration cases neither cover them
    # nor need them, and a set of configuration cases alone is not judged by them.
    runs = [i for i in items if not is_configuration(i.data)]
    covered = {tag for i in runs for tag in i.tags}
    for tag in required_tags if runs else ():
        if tag not in covered:
            message = f"no case covers required tag {tag!r}"
            found.append(Finding(rule="missing_tag", message=message))
    return found


def _fault_targets(
    items: list[_Item], rules: CaseRules, known_roles: Iterable[str] | None
) -> set[str] | None:
    """What ``faults`` may name: the declared targets plus ``known_roles``; without a
    declaration, the roles any case expects dispatched plus ``known_roles``."""
    targets = set(known_roles or ())
    if rules.fault_targets is not None:
        return targets | set(rules.fault_targets)
    for item in items:
        dispatched = item.expect.get("dispatched")
        if isinstance(dispatched, list):
            targets.update(r for r in dispatched if isinstance(r, str))
    return targets


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
    items = _items(cases)
    keys = registered_expect_keys() if expect_keys is None else expect_keys
    roles = _fault_targets(items, rules, known_roles)
    tags = rules.required_tags if required_tags is None else required_tags
    found: list[Finding] = []
    for item in items:
        found += _per_case(item, roles, keys, rules)
    found += _duplicates(items)
    found += _leakage(items)
    found += _set_rules(items, min_split_size, tags, rules.splits)
    return found


def _named_by_a_rule(problem: Problem) -> bool:
    """Whether a lint rule already reports this load problem (no finding twice)."""
    field, message = problem.field, problem.message
    if field in ("id", "split", "expect.outcome"):
        return True  # bad_id / duplicate_id, unknown_split, missing_ or unknown_outcome
    if field.startswith("expect.") and message.startswith("unknown expectation"):
        return True  # unknown_expect_key
    return field.startswith("faults.") and message.startswith("unknown fault kind")


def _as_finding(rule: Rule, problem: Problem, ids: Mapping[tuple[str, int], Any]) -> Finding:
    raw_id = ids.get((problem.file, problem.line))
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


def lint_files(
    paths: Sequence[Path | str],
    *,
    min_split_size: int = DEFAULT_MIN_SPLIT_SIZE,
    required_tags: Sequence[str] | None = None,
    known_roles: Iterable[str] | None = None,
    expect_keys: Collection[str] | None = None,
    sut: object | None = None,
) -> LintReport:
    """Lint case files as they are, even when they do not load.

    Lines that cannot be read as JSON objects become ``unreadable`` findings; every
    other line is linted as a raw record, so findings name file and line too. Every
    problem the loader would refuse that no lint rule names becomes an ``invalid``
    finding, and with a ``sut``, every problem its ``check_case`` hook or its
    ``case_rules`` find in a valid case a ``sut_check`` finding (unless a rule names it):
    what ``evals run`` refuses, lint reports. The SUT's ``case_rules`` drive the
    vocabulary rules too.
    """
    records, problems = read_records(paths)
    found = [
        Finding(rule="unreadable", message=f"{p.field}: {p.message}", file=p.file, line=p.line)
        for p in problems
    ]
    for record in records:
        if not isinstance(record.data, Mapping):
            message = "not a JSON object (one case per line)"
            found.append(
                Finding(rule="unreadable", message=message, file=record.file, line=record.line)
            )
    usable = [r for r in records if isinstance(r.data, Mapping)]
    located, problems = check_located_records(usable, rules_of(sut))
    ids = {(r.file, r.line): r.data.get("id") for r in usable}
    found += [_as_finding("invalid", p, ids) for p in problems if not _named_by_a_rule(p)]
    if sut is not None:
        sources = {case.id: (record.file, record.line) for case, record in located}
        # What the SUT says about a configuration case is its refusal, no finding.
        runs = [case for case, _ in located if not is_configuration(case)]
        # The vocabulary was held against every record above.
        screening = screen_cases(sut, runs, sources, vocabulary=False)
        found += [
            _as_finding("sut_check", p, ids) for p in screening.problems if not _named_by_a_rule(p)
        ]
    found += lint(
        usable,
        min_split_size=min_split_size,
        required_tags=required_tags,
        known_roles=known_roles,
        expect_keys=expect_keys,
        rules=rules_of(sut),
    )
    return LintReport(findings=found, cases=len(usable))
