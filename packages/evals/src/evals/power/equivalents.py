"""The equivalents file: mutants judged equivalent, each with the premise it rests on.

One ``[[mutant]]`` per judged mutant, keyed by its anchor (``path``, ``operator``,
``code``: the mutated line's stripped text, ``nth`` when that operator hits lines of the
same text more than once in the module), with:

- ``class``: ``equivalent`` (no valid input makes the run record differ) or
  ``unreachable`` (valid input could tell, but the mutated code runs on no gated case:
  a gap of the suites that is named rather than hidden);
- ``reason``: why, in one line;
- ``premise``: the fact the reason rests on, as a table whose ``kind`` says how it is
  checked (see :mod:`evals.power.premises`): by evals itself from the source and the
  gated cases, by a named probe in the project's own tests, or not at all (``claim``,
  counted in the report as unchecked).

A malformed file is one :class:`~evals.power.mutants.PowerError` line naming the file and
the entry.
"""

from __future__ import annotations

import operator
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from evals.power.mutants import PowerError, anchor_of

EquivalenceClass = Literal["equivalent", "unreachable"]
CLASSES: tuple[EquivalenceClass, ...] = ("equivalent", "unreachable")
KEYS = ("path", "operator", "code", "nth", "class", "reason", "premise")


_Fields = dict[str, tuple[type | tuple[type, ...], bool]]
"""field -> (type, required)."""
KINDS: dict[str, _Fields] = {
    "literal": {
        "file": (str, True),
        "name": (str, True),
        "values": (list, True),
        "compare": (list, False),
        "constant": ((str, int, float, bool), False),
        "reaching": (list, False),
    },
    "keyword_always": {"callable": (str, True), "keyword": (str, True), "ignore": (list, False)},
    "no_keyword": {"callable": (str, True), "parameters": (list, True), "ignore": (list, False)},
    "never_called": {"callable": (str, True), "ignore": (list, False)},
    "called_only_in": {"callable": (str, True), "functions": (list, True), "ignore": (list, False)},
    "attribute_never_read": {"attribute": (str, True), "ignore": (list, False)},
    "never_assigned": {"file": (str, True), "class": (str, True), "ignore": (list, False)},
    "key_never_read": {"key": (str, True), "ignore": (list, False)},
    "error_attribute_never_read": {
        "file": (str, True),
        "class": (str, True),
        "attribute": (str, True),
        "within": (list, False),
        "ignore": (list, False),
    },
    "source_has": {"file": (str, True), "pattern": (str, True)},
    "default_is": {
        "file": (str, True),
        "callable": (str, True),
        "parameter": (str, True),
        "value": (str, True),
    },
    "gated_cases": {
        "field": (str, True),
        "never_matches": (str, False),
        "max_items": (int, False),
        "max_length": (int, False),
    },
    "probe": {"name": (str, True), "claim": (str, True)},
    "claim": {"claim": (str, True)},
}
"""Every premise kind and its fields (checked by :mod:`evals.power.premises`)."""

COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.eq,
    "is not": operator.ne,
}


_CASE_TESTS = ("never_matches", "max_items", "max_length")


def validate_premise(raw: Mapping[str, Any]) -> str | None:
    """Why ``raw`` is not a well-formed premise (``None``: it is)."""
    kind = raw.get("kind")
    if kind not in KINDS:
        return f"unknown kind {kind!r} (expected one of {', '.join(KINDS)})"
    fields = KINDS[kind]
    extra = sorted(set(raw) - {"kind", *fields})
    if extra:
        return f"{kind}: unknown field {extra[0]!r} (expected {', '.join(fields)})"
    for name, (types, required) in fields.items():
        if name not in raw:
            if required:
                return f"{kind}: missing field {name!r}"
            continue
        value = raw[name]
        if not isinstance(value, types) or (isinstance(value, bool) and types is int):
            return f"{kind}: field {name!r} has the wrong type"
        if isinstance(value, str) and not value.strip():
            return f"{kind}: field {name!r} is empty"
    if kind == "literal" and "compare" in raw:
        ops = raw["compare"]
        if len(ops) != 2 or any(op not in COMPARE for op in ops) or "constant" not in raw:
            return (
                "literal: 'compare' is [original, mutated], two of "
                f"{', '.join(COMPARE)}, and needs 'constant'"
            )
    if kind == "gated_cases" and sum(k in raw for k in _CASE_TESTS) != 1:
        return f"gated_cases: exactly one of {', '.join(map(repr, _CASE_TESTS))}"
    if kind == "gated_cases" and "never_matches" in raw:
        try:
            re.compile(raw["never_matches"])
        except re.error as e:
            return f"gated_cases: 'never_matches' is no regular expression: {e}"
    if kind == "source_has":
        try:
            re.compile(raw["pattern"])
        except re.error as e:
            return f"source_has: 'pattern' is no regular expression: {e}"
    return None


@dataclass(frozen=True)
class Premise:
    """What an equivalence entry rests on: a ``kind`` and that kind's fields."""

    kind: str
    """How it is checked (a key of :data:`evals.power.premises.KINDS`)."""
    fields: Mapping[str, Any] = field(default_factory=dict)
    """The kind's own fields, as written."""


@dataclass(frozen=True)
class Equivalent:
    """A mutant judged equivalent (or unreachable from the gated suites)."""

    anchor: str
    """The mutant's :attr:`~evals.power.mutants.Mutant.anchor`."""
    reason: str
    """Why, in one line."""
    premise: Premise
    """What the reason rests on."""
    cls: EquivalenceClass = "equivalent"
    """``equivalent`` or ``unreachable``."""
    number: int = 0
    """Its place in the file (1-based), for messages."""


def parse_equivalents(text: str, where: str) -> list[Equivalent]:
    """The ``[[mutant]]`` entries of an equivalents file (see the module docstring).

    Raises :class:`PowerError` naming the file and the entry on anything else: an unknown
    key, a missing or empty field, an unknown class or premise kind, a premise field the
    kind does not know or lacks, a duplicate mutant.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PowerError(f"{where}: not valid TOML: {e}") from e
    unknown = sorted(set(data) - {"mutant"})
    if unknown:
        raise PowerError(f"{where}: unknown table {unknown[0]!r} (expected [[mutant]] entries)")
    entries = data.get("mutant", [])
    if not isinstance(entries, list):
        raise PowerError(f"{where}: 'mutant' must be an array of tables ([[mutant]])")
    found: list[Equivalent] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, start=1):
        here = f"{where}: entry {number}"
        extra = sorted(set(entry) - set(KEYS))
        if extra:
            raise PowerError(f"{here}: unknown key {extra[0]!r} (expected {', '.join(KEYS)})")
        for key in ("path", "operator", "code", "reason"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise PowerError(f"{here}: {key!r} must be a non-empty string")
        nth = entry.get("nth", 0)
        if not isinstance(nth, int) or isinstance(nth, bool) or nth < 0:
            raise PowerError(f"{here}: 'nth' must be a whole number >= 0")
        if "\n" in entry["reason"] or "\n" in entry["code"]:
            raise PowerError(f"{here}: 'code' and 'reason' must be one line each")
        cls = entry.get("class")
        if cls not in CLASSES:
            raise PowerError(f"{here}: 'class' must be one of {', '.join(CLASSES)}, got {cls!r}")
        raw = entry.get("premise")
        if not isinstance(raw, dict):
            raise PowerError(f"{here}: 'premise' must be a table with a 'kind'")
        problem = validate_premise(raw)
        if problem is not None:
            raise PowerError(f"{here}: premise: {problem}")
        anchor = anchor_of(
            entry["path"].strip(), entry["operator"].strip(), entry["code"].strip(), nth
        )
        if anchor in seen:
            raise PowerError(f"{here}: duplicate mutant {anchor!r}")
        seen.add(anchor)
        premise = Premise(str(raw["kind"]), {k: v for k, v in raw.items() if k != "kind"})
        found.append(Equivalent(anchor, entry["reason"].strip(), premise, cls, number))
    return found


def load_equivalents(path: Path) -> list[Equivalent]:
    """:func:`parse_equivalents` of a file; no file means no equivalents."""
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PowerError(f"{path}: cannot read: {e}") from e
    return parse_equivalents(text, str(path))
