"""Load case files: JSONL, one case a line, validated whole before anything runs.

Blank lines and lines starting with ``#`` are comments. Every problem in every file is
collected (bad JSON, schema violations, duplicate ids within and across files, empty or
missing files, bytes that are not UTF-8) and raised together as one
:class:`~evals.errors.CaseFileError`, each problem one line ``file:line: field: message``.

``expect`` allows extra keys (registered checks of other projects read their own), but
only keys some check reads: the :class:`~evals.model.case.Expect` fields and the keys registered
checks declare (:func:`evals.checks.registry.registered_expect_keys`). Any other key is a
problem (``expect.tikets: unknown expectation 'tikets'; no check reads it (did you mean
'tickets'?)``), so a typo cannot silently drop an expectation.

Validation: a line the pydantic model accepts in strict mode is valid (the committed JSON
Schema is generated from that model, and a test holds the two in agreement), so it costs
one model validation. Any other line goes through the JSON Schema (jsonschema; strict JSON
types and field paths for people), then the lax model, to name every problem.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from evals._text import quote
from evals.cases.case_file import CaseSource, PathLike, Record, dotted, read_records
from evals.cases.schema_errors import json_type
from evals.checks.registry import expect_value_problems, registered_expect_keys
from evals.errors import CaseFileError, Problem
from evals.model.case import Case, case_problems, is_configuration
from evals.model.schema import load_schema

if TYPE_CHECKING:
    # No stubs are locked for jsonschema; the ignore stays quiet once they are.
    import jsonschema  # type: ignore[import-untyped,unused-ignore]

    from evals.cases.vocabulary import CaseRules


@cache
def _validator() -> jsonschema.protocols.Validator:
    # Imported on the first line the strict model refuses (its messages are the schema's):
    # a valid case file never needs it, and importing it costs ~30 ms of every start.
    import jsonschema  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    schema = load_schema()
    cls = jsonschema.validators.validator_for(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def _schema_problems(record: Record) -> list[Problem]:
    from evals.cases.schema_errors import describe_schema_error  # noqa: PLC0415 (jsonschema)

    described = [
        pair for e in _validator().iter_errors(record.data) for pair in describe_schema_error(e)
    ]
    # One schema error can be described by several sub-errors saying the same thing.
    return [Problem(record.file, record.line, f, m) for f, m in sorted(set(described))]


class _AnyKey(Collection[str]):
    """Holds every key: for cases read back to place runs graded elsewhere."""

    def __contains__(self, key: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


ANY_EXPECTATION: Collection[str] = _AnyKey()
"""``expect_keys`` for cases that are not graded where they are loaded (a report rebuilt
from a trace: its runs were graded, by checks this process may not have registered, when
they ran)."""


def unknown_expectations(
    expect: Mapping[str, Any], known: Collection[str] | None = None
) -> list[tuple[str, str]]:
    """``(field path, message)`` for every key of ``expect`` that no check reads.

    ``known`` defaults to :func:`~evals.checks.registry.registered_expect_keys`; the
    message suggests the closest known key when one is close.
    """
    keys = registered_expect_keys() if known is None else known
    found: list[tuple[str, str]] = []
    for key in expect:
        if key in keys:
            continue
        message = f"unknown expectation {quote(key)}; no check reads it"
        close = difflib.get_close_matches(str(key), sorted(keys), n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
        found.append((f"expect.{key}", message))
    return found


def with_expect_defaults(data: Any, defaults: Mapping[str, Any] | None) -> Any:
    """``data`` (a case as parsed JSON) with the project's default expectations
    (``[tool.evals.expect_defaults]``, such as a budget) filled in where its ``expect``
    says nothing. Anything else is returned as it is: no defaults, no case, a
    configuration case (never run: a budget means nothing to it)."""
    if not defaults or not isinstance(data, Mapping) or is_configuration(data):
        return data
    given = data.get("expect")
    if not isinstance(given, Mapping):
        return data
    missing = {k: v for k, v in defaults.items() if k not in given}
    return {**data, "expect": {**given, **missing}} if missing else data


def validate_record(
    record: Record,
    expect_keys: Collection[str] | None = None,
    rules: CaseRules | None = None,
    *,
    expect_defaults: Mapping[str, Any] | None = None,
) -> tuple[Case | None, list[Problem]]:
    """Validate one record: the JSON Schema first, then the pydantic model, then the
    project's vocabulary (``rules``, see :mod:`evals.cases.vocabulary`; a field the schema
    already faulted is not faulted twice), then every ``expect`` key against the keys
    checks read (``expect_keys``, by default
    :func:`~evals.checks.registry.registered_expect_keys`) and each known key's value
    against the type a registered check declares for it
    (:func:`~evals.checks.registry.expect_value_problems`; not for
    :data:`ANY_EXPECTATION`). ``expect_defaults`` are filled
    in first and checked as if written (:func:`with_expect_defaults`)."""
    if not isinstance(record.data, dict):
        kind = json_type(record.data)
        message = f"expected a JSON object (one case per line), got {kind}"
        return None, [Problem(record.file, record.line, "(line)", message)]
    if expect_defaults:
        record = replace(record, data=with_expect_defaults(record.data, expect_defaults))
    expect = record.data.get("expect")
    given = expect if isinstance(expect, dict) else {}
    unknown = [
        Problem(record.file, record.line, f, m) for f, m in unknown_expectations(given, expect_keys)
    ]
    if expect_keys is not ANY_EXPECTATION:  # graded here: a check's typed key has its type
        named = {p.field for p in unknown}  # an unknown key is not faulted twice
        typed = expect_value_problems(
            {k: v for k, v in given.items() if f"expect.{k}" not in named}
        )
        unknown += [Problem(record.file, record.line, f, m) for f, m in typed]
    case, problems = _validate_model(record)
    if rules is not None:
        named = {p.field for p in problems}
        extra = [
            Problem(record.file, record.line, f, m)
            for f, m in rules.problems(record.data)
            if not any(f == n or f.startswith(f"{n}.") for n in named)
        ]
        if extra:
            # In field order with the schema's problems, as one validation would say them.
            problems = sorted(problems + extra, key=lambda p: (p.field, p.message))
    if case is not None:
        # What a configuration case must be, whatever the SUT (evals.cases.configuration).
        problems += [Problem(record.file, record.line, f, m) for f, m in case_problems(record.data)]
    if unknown or problems:
        return None, problems + unknown
    return case, problems


def _validate_model(record: Record) -> tuple[Case | None, list[Problem]]:
    try:
        # Fast path: what the model accepts without coercing any type is valid against
        # the schema generated from it too; the schema's messages are only for failures.
        return Case.model_validate(record.data, strict=True), []
    except ValidationError:
        pass
    problems = _schema_problems(record)
    if problems:
        return None, problems
    try:
        return Case.model_validate(record.data), []
    except ValidationError as e:
        for err in e.errors():
            field = dotted(err["loc"]) or "(line)"
            what = err["msg"].removeprefix("Value error, ")
            message = f"{what}, got {quote(err.get('input'))}"
            problems.append(Problem(record.file, record.line, field, message))
        return None, problems


def check_records(
    records: Sequence[Record], rules: CaseRules | None = None
) -> tuple[list[Case], list[Problem]]:
    """Validate records (against ``rules`` too, when given) and check ids are unique
    across all of them."""
    located, problems = _check_located(records, rules)
    return [case for case, _ in located], problems


def check_located_records(
    records: Sequence[Record], rules: CaseRules | None = None
) -> tuple[list[tuple[Case, Record]], list[Problem]]:
    """:func:`check_records`, each valid case paired with the record it came from (lint
    uses the records to locate what a SUT's ``check_case`` says about the case)."""
    return _check_located(records, rules)


def _check_located(
    records: Sequence[Record],
    rules: CaseRules | None = None,
    expect_keys: Collection[str] | None = None,
    expect_defaults: Mapping[str, Any] | None = None,
) -> tuple[list[tuple[Case, Record]], list[Problem]]:
    cases: list[tuple[Case, Record]] = []
    problems: list[Problem] = []
    first_seen: dict[str, Record] = {}
    if expect_keys is None:
        expect_keys = registered_expect_keys()  # once per load, not once per line
    for record in records:
        case, found = validate_record(record, expect_keys, rules, expect_defaults=expect_defaults)
        problems += found
        case_id = record.data.get("id") if isinstance(record.data, dict) else None
        if isinstance(case_id, str):
            if case_id in first_seen:
                first = first_seen[case_id]
                message = f"duplicate id {quote(case_id)} (first at {first.file}:{first.line})"
                problems.append(Problem(record.file, record.line, "id", message))
                continue
            first_seen[case_id] = record
        if case is not None:
            cases.append((case, record))
    return cases, problems


def load_cases(
    paths: Sequence[PathLike] | PathLike,
    *,
    rules: CaseRules | None = None,
    expect_defaults: Mapping[str, Any] | None = None,
) -> list[Case]:
    """Load and validate every case of every file, in file and line order.

    Args:
        paths: a case file (JSONL) or several.
        rules: a project's case vocabulary to validate against too
            (:mod:`evals.cases.vocabulary`).
        expect_defaults: ``[tool.evals.expect_defaults]``: each case holds them where it
            says nothing (:func:`with_expect_defaults`).

    Returns:
        The cases, validated.

    Raises:
        CaseFileError: listing every problem of every file when anything is wrong;
            nothing is returned half-validated.
    """
    cases, _ = load_cases_with_sources(paths, rules=rules, expect_defaults=expect_defaults)
    return cases


def load_cases_with_sources(
    paths: Sequence[PathLike] | PathLike,
    *,
    rules: CaseRules | None = None,
    expect_keys: Collection[str] | None = None,
    expect_defaults: Mapping[str, Any] | None = None,
) -> tuple[list[Case], dict[str, CaseSource]]:
    """:func:`load_cases`, plus where each case was written: case id -> file and line.

    The locations let later problems about a loaded case (a SUT's ``check_case``, see
    :mod:`evals.cases.validation`) name its line the way load problems do.
    ``expect_keys``: the ``expect`` keys allowed (default: those the registered checks
    read; :data:`ANY_EXPECTATION` when the cases are not graded here).
    """
    records, problems = read_records(paths)
    located, found = _check_located(records, rules, expect_keys, expect_defaults)
    problems += found
    if problems:
        # Report in reading order: by file as given, then by line.
        file_order = {f: i for i, f in enumerate(dict.fromkeys(p.file for p in problems))}
        problems.sort(key=lambda p: (file_order[p.file], p.line))
        raise CaseFileError(problems)
    cases = [case for case, _ in located]
    sources = {case.id: CaseSource(record.file, record.line) for case, record in located}
    return cases, sources


def load_file(path: PathLike, *, rules: CaseRules | None = None) -> list[Case]:
    """Load and validate one case file (see :func:`load_cases`)."""
    return load_cases([path], rules=rules)


def parse_case(
    data: Any, *, file: str = "<memory>", line: int = 1, rules: CaseRules | None = None
) -> Case:
    """Validate one case given as parsed JSON, with the loader's messages."""
    case, problems = validate_record(Record(file, line, data), rules=rules)
    if case is None:
        raise CaseFileError(problems)
    return case
