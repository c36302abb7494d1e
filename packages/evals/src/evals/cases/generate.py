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
file); ``evals generate MODULE:ATTR [--check]`` writes or checks it from the command line
(:func:`load_generator`). Pairs come from allpairspy (deterministic: the same dimensions
give the same rows; its own ``n=3`` misses triples, so it is used for pairs only);
interaction groups are enumerated in full on the baseline path, and every required tuple
is verified covered afterwards (a missing one gets a row of its own), so the guarantee
does not rest on the library. An interaction group holding every dimension makes the
suite exhaustive: the full product (less what ``allowed`` rules out), in product order.
The guide: ``docs/generated-suites.md``.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allpairspy import AllPairs

from evals.errors import EvalsError
from evals.io.files import write_atomic

Labels = dict[str, str]
"""One combination: dimension name -> value label."""
Values = dict[str, Any]
"""One combination: dimension name -> value."""


class GenerationError(EvalsError, ValueError):
    """The dimensions, the interactions or a generated case are not usable (the command
    line prints it as one line, exit 2)."""


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
            if not isinstance(label, str) or not label or ":" in label or label != label.strip():
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
    if not dimensions:
        raise GenerationError("no dimensions to combine")
    names = [d.name for d in dimensions]
    if len(set(names)) != len(names):
        raise GenerationError(f"dimension names repeat: {names}")
    for interaction in interactions:
        unknown = [n for n in interaction.dimensions if n not in names]
        group = interaction.dimensions
        if unknown or len(group) < 2 or len(set(group)) != len(group):
            raise GenerationError(
                f"interaction {interaction.dimensions}: needs two or more known dimensions,"
                " each once" + (f" (unknown: {unknown})" if unknown else "")
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
    dimensions are at their baselines (the path where that group decides; the first
    allowed values found when the baselines are ruled out). Deterministic: the same arguments
    give the same rows in the same order. When one interaction group (or the only
    dimension) spans every dimension, the rows are the full product in product order
    (the first dimension varying slowest), less the combinations ``allowed`` rules out.

    ``allowed`` rules out combinations that cannot occur (it is asked about partial rows
    too, so it must answer ``True`` when the dimensions it constrains are not all there).
    Raises :class:`GenerationError` for unusable dimensions, or when a required tuple
    cannot be completed into an allowed row (the other dimensions at their baselines
    when that is allowed, else the first allowed values found).
    """
    _check_names(dimensions, interactions)
    permitted: Allowed = allowed or (lambda _: True)
    names = [d.name for d in dimensions]
    rows: list[Labels] = []

    def add(row: Labels) -> None:
        if row not in rows and permitted(row):
            rows.append(row)

    if len(dimensions) == 1 or any(set(i.dimensions) == set(names) for i in interactions):
        # Exhaustive: the full product, in product order (all pairs are in it).
        for labels in itertools.product(*(d.labels for d in dimensions)):
            add(dict(zip(names, labels, strict=True)))
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
            add(row if permitted(row) else _complete(combo, dimensions, permitted))
    for combo in _required(dimensions, interactions, permitted):
        if any(_covers(row, combo) for row in rows):
            continue
        row = {**baseline, **combo}
        if not permitted(row):
            row = _complete(combo, dimensions, permitted)
        rows.append(row)
    return rows


COMPLETION_BUDGET = 100_000
"""Partial rows :func:`_complete` may try before it gives up on a tuple."""


def _complete(combo: Labels, dimensions: Sequence[Dimension], permitted: Allowed) -> Labels:
    """An allowed row holding ``combo``, the other dimensions' values tried baseline
    first (a depth-first search, pruned by asking ``permitted`` about partial rows).
    Raises :class:`GenerationError` when there is none (or none within the budget)."""
    tried = 0

    def extend(row: Labels, rest: Sequence[Dimension]) -> Labels | None:
        nonlocal tried
        if not rest:
            return row
        first, others = rest[0], rest[1:]
        for label in [combo[first.name]] if first.name in combo else first.labels:
            tried += 1
            if tried > COMPLETION_BUDGET:
                return None
            candidate = {**row, first.name: label}
            if permitted(candidate):
                found = extend(candidate, others)
                if found is not None:
                    return found
        return None

    found = extend({}, dimensions)
    if found is None:
        why = "no allowed row holds it" if tried <= COMPLETION_BUDGET else "search budget spent"
        raise GenerationError(f"cannot cover {combo}: {why} (see allowed)")
    return found


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


def labels_in(case: Mapping[str, Any], dimensions: Sequence[Dimension]) -> Labels:
    """The combination a generated case was made from, read back from its
    ``<dimension>:<label>`` tags (tags naming no dimension, or no value of it, are left
    out): what an oracle reads when the expectation is a property of the class itself
    (which carrier holds a text), rather than of the world and input it can read."""
    known = {d.name: d for d in dimensions}
    found: Labels = {}
    for tag in case.get("tags", ()):
        name, sep, label = str(tag).partition(":")
        if sep and name in known and label in known[name].values:
            found[name] = label
    return found


def values_in(case: Mapping[str, Any], dimensions: Sequence[Dimension]) -> Values:
    """What the dimension tags of a generated case stand for (see :func:`labels_in`)."""
    by_name = {d.name: d for d in dimensions}
    return {
        name: by_name[name].values[label] for name, label in labels_in(case, dimensions).items()
    }


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
IdOf = Callable[[Mapping[str, str]], str]
"""A combination of labels -> its case id (instead of ``<prefix>-<hash>``)."""
ExtraTags = Callable[[Mapping[str, str]], Sequence[str]]
"""A combination of labels -> tags it carries besides its dimension tags."""


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
    suite: str = ""
    """The suite's name: ``evals generate`` writes ``<cases_dir>/<suite>.jsonl`` unless
    told ``--out`` (empty: ``--out`` is required)."""
    id_of: IdOf | None = None
    """A combination -> its case id, for a suite whose ids predate the generator (keeps
    a committed baseline valid); ``None``: ``<prefix>-<hash of the labels>``."""
    extra_tags: ExtraTags | None = None
    """A combination -> tags it carries after ``tags`` and before its dimension tags
    (e.g. ``attack`` for the attack half of a matrix)."""

    def __post_init__(self) -> None:
        if not self.prefix and self.id_of is None:
            raise GenerationError("a generator needs a prefix for its case ids (or id_of)")
        if any(not line.startswith("#") for line in self.header.splitlines()):
            raise GenerationError(f"header {self.header!r}: every line must start with '#'")

    def combinations(self) -> list[Labels]:
        """The covering array's rows."""
        return cover(self.dimensions, interactions=self.interactions, allowed=self.allowed)

    def values_of(self, labels: Mapping[str, str]) -> Values:
        """The values a combination of labels stands for."""
        by_name = {d.name: d for d in self.dimensions}
        return {name: by_name[name].values[label] for name, label in labels.items()}

    def case_id(self, labels: Mapping[str, str]) -> str:
        """The case id of a combination (``id_of``, else ``<prefix>-<hash>``)."""
        if self.id_of is None:
            return case_id(self.prefix, labels)
        made = self.id_of(dict(labels))
        if not isinstance(made, str) or not made.strip():
            raise GenerationError(f"id_of{dict(labels)} returned {made!r}, not an id")
        return made

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
        case: dict[str, Any] = {"id": self.case_id(labels)}
        case["split"] = built.pop("split", "test")
        extra = list(self.extra_tags(dict(labels))) if self.extra_tags is not None else []
        case["tags"] = [*self.tags, *extra, *tags_of(labels)]
        case.update(built)
        case["expect"] = self.oracle(case)
        return case

    def cases(self) -> list[dict[str, Any]]:
        """Every case of the suite, in covering-array order."""
        made = [self.case(labels) for labels in self.combinations()]
        ids = [c["id"] for c in made]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise GenerationError(f"two combinations make one case id: {repeated[0]!r}")
        return made


def render(cases: Sequence[Mapping[str, Any]], header: str = "") -> str:
    """A suite file's text: the header comment (if any), then one JSON case a line."""
    lines = [header] if header else []
    lines += [json.dumps(case, ensure_ascii=False) for case in cases]
    return "\n".join(lines) + "\n"


def write_suite(generator: CaseGenerator, path: str | Path) -> int:
    """Write the generator's suite to ``path`` (in one step; an unchanged file is left
    alone); returns the number of cases."""
    cases = generator.cases()
    target = Path(path)
    text = render(cases, generator.header)
    try:
        unchanged = target.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        unchanged = False
    if not unchanged:
        write_atomic(target, text)
    return len(cases)


def _committed(target: Path) -> tuple[dict[str, Any], list[str]]:
    """The cases of a committed suite file by id, and the lines that are no case."""
    have: dict[str, Any] = {}
    problems: list[str] = []
    for number, line in enumerate(target.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{target}:{number}: not JSON ({e.msg})")
            continue
        if not isinstance(case, dict) or not isinstance(case.get("id"), str):
            problems.append(f"{target}:{number}: not a case with an id")
        elif case["id"] in have:
            problems.append(f"{target}:{number}: {case['id']}: repeated")
        else:
            have[case["id"]] = case
    return have, problems


def stale_lines(generator: CaseGenerator, path: str | Path) -> list[str]:
    """How the committed suite at ``path`` differs from what the generator makes now: one
    line per case added, removed or changed, or per line that is no case (empty: in
    sync, byte for byte)."""
    made = generator.cases()
    wanted = {c["id"]: c for c in made}
    target = Path(path)
    if not target.is_file():
        return [f"{target}: missing ({len(wanted)} cases to generate)"]
    try:
        have, problems = _committed(target)
    except (OSError, UnicodeDecodeError) as e:
        return [f"{target}: unreadable ({e})"]
    problems += [f"{target}: {cid}: not generated any more" for cid in have if cid not in wanted]
    for cid, case in wanted.items():
        if cid not in have:
            problems.append(f"{target}: {cid}: missing ({' '.join(case['tags'])})")
        elif have[cid] != case:
            keys = sorted(k for k in {*case, *have[cid]} if case.get(k) != have[cid].get(k))
            problems.append(f"{target}: {cid}: differs in {', '.join(keys)}")
    if problems:
        return problems
    text = target.read_text(encoding="utf-8")
    first = text.splitlines()[0] if text else ""
    header = first if first.startswith("#") else ""
    if header != generator.header:
        return [f"{target}: the header differs from the generator's"]
    if render(made, generator.header) != text:
        return [f"{target}: same cases, in another order or layout"]
    return []


def load_generator(spec: str) -> CaseGenerator:
    """The :class:`CaseGenerator` named by ``module:attr`` (dotted attributes allowed),
    the working directory importable too. Raises :class:`GenerationError` with a
    one-line message when it cannot be imported or is no generator."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise GenerationError(f"{spec}: expected 'package.module:attr'")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise GenerationError(f"{spec}: cannot import {module_name!r} ({e})") from e
    except Exception as e:  # the project's own module failed while importing
        raise GenerationError(f"{spec}: importing {module_name!r} failed: {_one_line(e)}") from e
    target: object = module
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as e:
            raise GenerationError(f"{spec}: {module_name!r} has no attribute {attr_path!r}") from e
    if not isinstance(target, CaseGenerator):
        raise GenerationError(f"{spec}: a {type(target).__name__}, not a CaseGenerator")
    return target


def _one_line(error: BaseException) -> str:
    """An exception as one line: its type, its message, and where it was raised."""
    message = " ".join(str(error).split())
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    where = ""
    if frames:
        code = frames[-1].tb_frame.f_code
        where = f" ({Path(code.co_filename).name}:{frames[-1].tb_lineno})"
    return f"{type(error).__name__}: {message}{where}"


def generation_failed(spec: str, error: Exception) -> GenerationError:
    """A project's ``build``, ``oracle`` or hook that raised, as a one-line error."""
    if isinstance(error, GenerationError):
        return GenerationError(f"{spec}: {error}")
    return GenerationError(f"{spec}: generating the suite failed: {_one_line(error)}")
