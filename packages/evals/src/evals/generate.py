"""Generated suites: dimensions, a covering array over them, and an oracle for ``expect``.

A project describes every way its input can vary as :class:`Dimension` s, each with its
boundary and equivalence-class values under labels (the first value is the baseline).
:func:`cover` picks combinations so that every pair of values of any two dimensions
appears in some case (all pairs), and every combination of the dimensions named in an
:class:`Interaction` (where the rules interact: higher strength). A
:class:`CaseGenerator` turns each combination into a case with the project's ``build``
and asks the project's ``oracle`` what a correct run does (``expect``); each case names
its dimension values in its tags (``dimension:label``), so a failure names the class
that broke.

The committed suite is kept in sync by :func:`stale_lines` (a test, as for any generated
file). Pairs come from allpairspy (deterministic: the same dimensions give the same
rows; its own ``n=3`` misses triples, so it is used for pairs only); interaction groups
are enumerated in full on the baseline path, and every required tuple is verified covered
afterwards (a missing one gets a row of its own), so the guarantee does not rest on the
library.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allpairspy import AllPairs

Labels = dict[str, str]
"""One combination: dimension name -> value label."""
Values = dict[str, Any]
"""One combination: dimension name -> value."""


class GenerationError(ValueError):
    """The dimensions, the interactions or a generated case are not usable."""


@dataclass(frozen=True)
class Dimension:
    """One way the input can vary: labelled values, the first one the baseline."""

    name: str
    """The dimension's name (tags are ``<name>:<label>``)."""
    values: Mapping[str, Any]
    """Label -> value, in order; the first is the baseline that fills a row when only
    other dimensions are being combined."""
    doc: str = ""
    """What the dimension is, for people (the decision table names it)."""

    def __post_init__(self) -> None:
        if not self.name or ":" in self.name:
            raise GenerationError(f"dimension name {self.name!r}: must be non-empty, no ':'")
        if not self.values:
            raise GenerationError(f"dimension {self.name!r} has no values")
        for label in self.values:
            if not label or ":" in label or label != label.strip():
                raise GenerationError(f"dimension {self.name!r}: bad value label {label!r}")

    @property
    def labels(self) -> list[str]:
        """The value labels, baseline first."""
        return list(self.values)

    @property
    def baseline(self) -> str:
        """The baseline value's label."""
        return self.labels[0]


@dataclass(frozen=True)
class Interaction:
    """Dimensions whose rules interact: every combination of their values is covered."""

    dimensions: tuple[str, ...]
    """The dimensions combined in full (others keep their baseline in the added rows)."""
    reason: str = ""
    """Why they interact (for the decision table)."""


Allowed = Callable[[Mapping[str, str]], bool]
"""Whether a (possibly partial) combination of labels can occur at all."""


def _check_names(dimensions: Sequence[Dimension], interactions: Sequence[Interaction]) -> None:
    names = [d.name for d in dimensions]
    if len(set(names)) != len(names):
        raise GenerationError(f"dimension names repeat: {names}")
    for interaction in interactions:
        unknown = [n for n in interaction.dimensions if n not in names]
        if unknown or len(interaction.dimensions) < 2:
            raise GenerationError(
                f"interaction {interaction.dimensions}: needs two or more known dimensions"
                + (f" (unknown: {unknown})" if unknown else "")
            )


def _required(
    dimensions: Sequence[Dimension], interactions: Sequence[Interaction], allowed: Allowed
) -> list[Labels]:
    """Every tuple that must appear in some row: each allowed pair of values of two
    dimensions, and each allowed full combination of every interaction group."""
    groups: list[tuple[str, ...]] = list(itertools.combinations([d.name for d in dimensions], 2))
    groups += [i.dimensions for i in interactions]
    by_name = {d.name: d for d in dimensions}
    required: list[Labels] = []
    for group in groups:
        for labels in itertools.product(*(by_name[n].labels for n in group)):
            combo = dict(zip(group, labels, strict=True))
            if allowed(combo):
                required.append(combo)
    return required


def _covers(row: Labels, combo: Labels) -> bool:
    return all(row[name] == label for name, label in combo.items())


def cover(
    dimensions: Sequence[Dimension],
    *,
    interactions: Sequence[Interaction] = (),
    allowed: Allowed | None = None,
) -> list[Labels]:
    """A covering array over ``dimensions``: rows (dimension -> label) such that every
    allowed pair of values of any two dimensions appears in at least one row, and every
    allowed combination of each interaction group appears in a row whose other
    dimensions are at their baselines (the path where that group decides).
    Deterministic: the same arguments give the same rows in the same order.

    ``allowed`` rules out combinations that cannot occur (it is asked about partial rows
    too, so it must answer ``True`` when the dimensions it constrains are not all there).
    Raises :class:`GenerationError` for unusable dimensions, or when a required tuple
    cannot be completed into an allowed row with baseline values.
    """
    _check_names(dimensions, interactions)
    permitted: Allowed = allowed or (lambda _: True)
    names = [d.name for d in dimensions]
    rows: list[Labels] = []

    def add(row: Labels) -> None:
        if row not in rows and permitted(row):
            rows.append(row)

    if len(dimensions) == 1:
        for label in dimensions[0].labels:
            add({names[0]: label})
    else:
        pairs = AllPairs(
            [d.labels for d in dimensions],
            filter_func=lambda partial: permitted(dict(zip(names, partial, strict=False))),
        )
        for found in pairs:
            add(dict(zip(names, found, strict=True)))
    baseline = {d.name: d.baseline for d in dimensions}
    by_name = {d.name: d for d in dimensions}
    # Interaction groups are enumerated on the baseline path (every other dimension at its
    # baseline), whether or not some pairwise row already holds the tuple: a row in which
    # another dimension ends the run early holds a tuple without exercising it.
    for interaction in interactions:
        group = interaction.dimensions
        for labels in itertools.product(*(by_name[n].labels for n in group)):
            combo = dict(zip(group, labels, strict=True))
            if not permitted(combo):
                continue
            row = {**baseline, **combo}
            if not permitted(row):
                raise GenerationError(
                    f"cannot cover {combo}: with the other dimensions at their baselines the"
                    " row is not allowed (give those dimensions an allowed baseline)"
                )
            add(row)
    for combo in _required(dimensions, interactions, permitted):
        if any(_covers(row, combo) for row in rows):
            continue
        row = {**baseline, **combo}
        if not permitted(row):
            raise GenerationError(
                f"cannot cover {combo}: with the other dimensions at their baselines the row "
                "is not allowed (give those dimensions an allowed baseline)"
            )
        rows.append(row)
    return rows


def missing_tuples(
    rows: Sequence[Mapping[str, str]],
    dimensions: Sequence[Dimension],
    *,
    interactions: Sequence[Interaction] = (),
    allowed: Allowed | None = None,
) -> list[Labels]:
    """The required tuples (see :func:`cover`) that no row of ``rows`` holds."""
    permitted: Allowed = allowed or (lambda _: True)
    required = _required(dimensions, interactions, permitted)
    return [combo for combo in required if not any(_covers(dict(r), combo) for r in rows)]


def tags_of(labels: Mapping[str, str]) -> list[str]:
    """A combination as case tags: ``<dimension>:<label>`` each, in dimension order."""
    return [f"{name}:{label}" for name, label in labels.items()]


def case_id(prefix: str, labels: Mapping[str, str]) -> str:
    """A stable case id for a combination: ``<prefix>-`` and 10 hex digits of a hash of
    the labels, so adding a dimension value does not renumber the other cases."""
    digest = hashlib.sha1(json.dumps(dict(labels), sort_keys=True).encode()).hexdigest()
    return f"{prefix}-{digest[:10]}"


Build = Callable[[Mapping[str, Any]], dict[str, Any]]
"""Values (dimension -> value) -> a case without ``id``, ``tags`` and ``expect``: its
``split``, ``title``, ``input``, ``world`` and ``faults``."""
Oracle = Callable[[Mapping[str, Any]], dict[str, Any]]
"""A case (as a JSON mapping, ``expect`` not yet there) -> its ``expect``."""


@dataclass(frozen=True)
class CaseGenerator:
    """A generated suite: dimensions, how to build a case, and the oracle of its expect."""

    prefix: str
    """Case ids are ``<prefix>-<hash>``."""
    dimensions: tuple[Dimension, ...]
    """Every dimension, in tag order."""
    build: Build
    """Values -> the case's input, world and faults."""
    oracle: Oracle
    """Case -> ``expect``, computed from the world and the input alone."""
    interactions: tuple[Interaction, ...] = ()
    """Groups of dimensions covered in full."""
    allowed: Allowed | None = None
    """Combinations that can occur (``None``: all)."""
    tags: tuple[str, ...] = ()
    """Tags every generated case carries besides its dimension values."""
    header: str = field(default="")
    """The first line of the written file (a ``#`` comment saying how to regenerate)."""

    def combinations(self) -> list[Labels]:
        """The covering array's rows."""
        return cover(self.dimensions, interactions=self.interactions, allowed=self.allowed)

    def values_of(self, labels: Mapping[str, str]) -> Values:
        """The values a combination of labels stands for."""
        by_name = {d.name: d for d in self.dimensions}
        return {name: by_name[name].values[label] for name, label in labels.items()}

    def case(
        self, labels: Mapping[str, str], values: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The case of one combination: built, tagged, its ``expect`` from the oracle.
        ``values`` overrides what the labels stand for (exploration draws values of its
        own and labels them as it likes)."""
        built = self.build(dict(values) if values is not None else self.values_of(labels))
        for key in ("id", "tags", "expect"):
            if key in built:
                raise GenerationError(f"build returned {key!r}; the generator sets it")
        case: dict[str, Any] = {"id": case_id(self.prefix, labels)}
        case["split"] = built.pop("split", "test")
        case["tags"] = [*self.tags, *tags_of(labels)]
        case.update(built)
        case["expect"] = self.oracle(case)
        return case

    def cases(self) -> list[dict[str, Any]]:
        """Every case of the suite, in covering-array order."""
        made = [self.case(labels) for labels in self.combinations()]
        ids = [c["id"] for c in made]
        if len(set(ids)) != len(ids):
            raise GenerationError(f"{self.prefix}: two combinations hash to one case id")
        return made


def render(cases: Sequence[Mapping[str, Any]], header: str = "") -> str:
    """A suite file's text: the header comment (if any), then one JSON case a line."""
    lines = [header] if header else []
    lines += [json.dumps(case, ensure_ascii=False) for case in cases]
    return "\n".join(lines) + "\n"


def write_suite(generator: CaseGenerator, path: str | Path) -> int:
    """Write the generator's suite to ``path``; returns the number of cases."""
    cases = generator.cases()
    Path(path).write_text(render(cases, generator.header), encoding="utf-8")
    return len(cases)


def stale_lines(generator: CaseGenerator, path: str | Path) -> list[str]:
    """How the committed suite at ``path`` differs from what the generator makes now: one
    line per case added, removed or changed (empty: in sync)."""
    wanted = {c["id"]: c for c in generator.cases()}
    target = Path(path)
    if not target.is_file():
        return [f"{target}: missing ({len(wanted)} cases to generate)"]
    have: dict[str, Any] = {}
    for line in target.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            case = json.loads(line)
            have[str(case.get("id"))] = case
    problems = [f"{target}: {cid}: not generated any more" for cid in have if cid not in wanted]
    for cid, case in wanted.items():
        if cid not in have:
            problems.append(f"{target}: {cid}: missing ({' '.join(case['tags'])})")
        elif have[cid] != case:
            problems.append(f"{target}: {cid}: differs from what the generator makes")
    if not problems and render(list(wanted.values()), generator.header) != target.read_text(
        encoding="utf-8"
    ):
        problems.append(f"{target}: same cases, other order or header")
    return problems
