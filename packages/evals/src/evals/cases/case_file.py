"""Reading case files: JSONL, one case a line, into records, with every problem of the
files themselves (what they are, their bytes, their JSON) as one-line problems.

Blank lines and lines starting with ``#`` are comments. A file that is not a regular file
(a directory, a FIFO, a device), is missing or empty, holds bytes that are not UTF-8, a
line that is not JSON or not an object, a duplicate key, a lone surrogate or nesting
deeper than :data:`MAX_DEPTH` is a problem; what the records *say* is validated by
:mod:`evals.cases.loader`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from evals._text import SURROGATE, quote
from evals.errors import Problem
from evals.io.files import not_regular

PathLike = Path | str

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a case line may have (a case needs 4)."""


@dataclass(frozen=True)
class Record:
    """One parsed (not yet validated) line of a case file."""

    file: str
    """The file, as the user named it."""
    line: int
    """1-based line number."""
    data: Any
    """The parsed JSON value (a case when the line is well formed)."""


def _as_paths(paths: Sequence[PathLike] | PathLike) -> list[PathLike]:
    # A lone str or Path is a common slip; a str is itself a Sequence of characters.
    if isinstance(paths, str | Path):
        return [paths]
    return list(paths)


class CaseSource(NamedTuple):
    """Where a loaded case was written: file (as the user named it) and 1-based line."""

    file: str
    """The file, as the user named it."""
    line: int
    """1-based line number."""


def _pairs_hook(duplicates: list[str]) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                duplicates.append(key)
            seen[key] = value
        return seen

    return hook


def _walk(data: Any) -> tuple[str, str] | None:
    """The first (field path, message) that makes a parsed line unusable: nesting
    deeper than ``MAX_DEPTH`` or a lone surrogate in a string. Iterative, so a deep
    value cannot exhaust the stack here."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return dotted(path[:3]) + ".…", f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, str):
            if SURROGATE.search(value):
                return dotted(path) or "(line)", f"lone surrogate in string {quote(value)}"
        elif isinstance(value, dict):
            for key, item in value.items():
                if SURROGATE.search(key):
                    return dotted(path) or "(line)", f"lone surrogate in key {quote(key)}"
                stack.append((item, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, (*path, i)) for i, item in enumerate(value))
    return None


def _read_file(path: PathLike) -> tuple[list[Record], list[Problem]]:
    name = str(path)
    try:
        # stat first: a FIFO or a device must be refused, never opened (a FIFO blocks).
        refused = not_regular(Path(path).stat().st_mode, "a case file")
        if refused is not None:
            return [], [Problem(name, 0, "(file)", refused)]
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return [], [Problem(name, 0, "(file)", "file not found")]
    except IsADirectoryError:
        return [], [Problem(name, 0, "(file)", "is a directory, not a case file")]
    except OSError as e:
        return [], [Problem(name, 0, "(file)", f"cannot read: {e.strerror}")]
    except ValueError as e:  # a path with a NUL byte
        return [], [Problem(name, 0, "(file)", f"cannot read: {e}")]
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM some editors add
    records: list[Record] = []
    problems: list[Problem] = []
    content_lines = 0
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as e:
            content_lines += 1
            byte = chunk[e.start : e.start + 1].hex()
            message = f"not UTF-8: byte 0x{byte} at column {e.start + 1}"
            problems.append(Problem(name, number, "(file)", message))
            continue
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        content_lines += 1
        duplicates: list[str] = []
        try:
            data = json.loads(stripped, object_pairs_hook=_pairs_hook(duplicates))
        except json.JSONDecodeError as e:
            message = f"bad JSON: {e.msg} at column {e.colno}"
            problems.append(Problem(name, number, "(json)", message))
            continue
        except RecursionError:
            message = f"bad JSON: nested deeper than {MAX_DEPTH} levels"
            problems.append(Problem(name, number, "(json)", message))
            continue
        except ValueError:  # an integer of more digits than int() converts (4,300)
            message = "bad JSON: a number too long to read (over 4300 digits)"
            problems.append(Problem(name, number, "(json)", message))
            continue
        unusable = _walk(data)
        if unusable is not None:
            problems.append(Problem(name, number, *unusable))
            continue
        for key in duplicates:
            problems.append(Problem(name, number, "(json)", f"duplicate key {quote(key)}"))
        records.append(Record(name, number, data))
    if content_lines == 0:
        problems.append(Problem(name, 0, "(file)", "no cases in file"))
    return records, problems


def read_records(paths: Sequence[PathLike] | PathLike) -> tuple[list[Record], list[Problem]]:
    """Parse case files into raw records without validating them as cases.

    Returns the records and the problems met while reading (missing file, not UTF-8,
    bad JSON, empty file). Lint uses this to judge files that do not load.
    """
    records: list[Record] = []
    problems: list[Problem] = []
    for path in _as_paths(paths):
        file_records, file_problems = _read_file(path)
        records += file_records
        problems += file_problems
    return records, problems


def dotted(path: Iterable[Any]) -> str:
    return ".".join(str(part) for part in path)
