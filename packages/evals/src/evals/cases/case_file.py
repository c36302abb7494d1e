"""Reading case files: JSONL, one case a line, into records, with every problem of the
files themselves (what they are, their bytes, their JSON) as one-line problems.

Blank lines and lines starting with ``#`` are comments. A file that is not a regular file
(a directory, a FIFO, a device), is missing or empty, holds bytes that are not UTF-8, a
line longer than :data:`MAX_LINE_BYTES`, a line that is not JSON or not an object, a
duplicate key, a lone surrogate or nesting deeper than :data:`MAX_DEPTH` is a problem;
what the records *say* is validated by :mod:`evals.cases.loader`.

A file is read a line at a time (:func:`iter_records` yields each record or problem as it
comes; ``evals lint`` never holds more), :func:`read_records` collects them all.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from evals._text import SURROGATE, quote
from evals.errors import Problem
from evals.io.files import not_regular

PathLike = Path | str

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a case line may have (a case needs 4)."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest case line read, in bytes (the longest in ``cases/`` is about 190 KB): a
longer one is a problem, skipped without being held, so reading never holds more."""


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
        seen = dict(pairs)  # the last value of a key wins, as json.loads has it
        if len(seen) < len(pairs):
            keys: set[str] = set()
            for key, _ in pairs:
                if key in keys:
                    duplicates.append(key)
                keys.add(key)
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


def _opened(path: PathLike) -> tuple[BinaryIO | None, Problem | None]:
    """The regular file ``path`` opened for reading, or the problem that keeps it closed.
    ``stat`` first: a FIFO or a device is refused, never opened (a FIFO blocks); then
    opened without blocking and checked again, in case it was swapped meanwhile."""
    name = str(path)
    try:
        refused = not_regular(Path(path).stat().st_mode, "a case file")
        if refused is not None:
            return None, Problem(name, 0, "(file)", refused)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None, Problem(name, 0, "(file)", "file not found")
    except IsADirectoryError:
        return None, Problem(name, 0, "(file)", "is a directory, not a case file")
    except OSError as e:
        return None, Problem(name, 0, "(file)", f"cannot read: {e.strerror}")
    except ValueError as e:  # a path with a NUL byte
        return None, Problem(name, 0, "(file)", f"cannot read: {e}")
    refused = not_regular(os.fstat(fd).st_mode, "a case file")
    if refused is not None:
        os.close(fd)
        return None, Problem(name, 0, "(file)", refused)
    return os.fdopen(fd, "rb", buffering=1 << 16), None


def _size(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MiB" if limit % mib == 0 else f"{limit:,} bytes"


def raw_lines(
    path: PathLike, start: int = 0, end: int | None = None
) -> Iterator[tuple[int, bytes] | Problem]:
    """Every line of the case file ``path``, one at a time: ``(number, bytes)`` without
    its newline (the UTF-8 BOM some editors add dropped from the first), or a problem:
    the file cannot be read, or a line is longer than :data:`MAX_LINE_BYTES` (skipped
    without being held). Never more than one line in memory.

    ``start`` and ``end`` (byte offsets, each the start of a line: see
    :func:`line_start`) read only the lines that begin in between, numbered from 1 at
    ``start``."""
    name = str(path)
    f, refused = _opened(path)
    if f is None:
        assert refused is not None
        yield refused
        return
    with f:
        number = 0
        try:
            if start:
                f.seek(start)
            while (end is None or f.tell() < end) and (chunk := f.readline(MAX_LINE_BYTES + 1)):
                number += 1
                if chunk.endswith(b"\n"):
                    chunk = chunk[:-1]
                elif len(chunk) > MAX_LINE_BYTES:  # else the last line, without a newline
                    while (rest := f.readline(1 << 20)) and not rest.endswith(b"\n"):
                        pass  # the rest of the over-long line, read and dropped
                    message = f"line longer than {_size(MAX_LINE_BYTES)}: not read"
                    yield Problem(name, number, "(file)", message)
                    continue
                first = number == 1 and not start
                yield number, chunk.removeprefix(b"\xef\xbb\xbf") if first else chunk
        except OSError as e:
            yield Problem(name, 0, "(file)", f"cannot read: {e.strerror}")


_SCAN_BYTES = 1 << 20


def line_start(path: PathLike, at: int) -> int | None:
    """The offset of the first line of the regular file ``path`` that starts at or after
    byte ``at`` (> 0): where to cut it between lines. ``None`` when no line starts there
    before its end, or it cannot be read (its reader then says why)."""
    f, _ = _opened(path)
    if f is None:
        return None
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
            f.seek(at - 1)  # a line starts at ``at`` when the byte before is a newline
            while block := f.read(_SCAN_BYTES):
                newline = block.find(b"\n")
                if newline >= 0:
                    at += newline
                    return at if at < size else None
                at += len(block)
        except OSError:
            return None
    return None  # no newline after it: the rest is the last line


_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape that may spell a lone surrogate: a line without one cannot hold one
(UTF-8 cannot encode a surrogate)."""


def _unusable(text: str, data: Any) -> tuple[str, str] | None:
    """:func:`_walk`, skipped when ``text`` cannot hold what it looks for: no more
    brackets than :data:`MAX_DEPTH` levels and no surrogate escape (most lines)."""
    shallow = text.count("{") + text.count("[") <= MAX_DEPTH
    if shallow and ("\\u" not in text or not _MAYBE_SURROGATE.search(text)):
        return None
    return _walk(data)


class LineDecoder:
    """``json.loads`` of one line after another, each line's duplicate keys recorded (the
    decoder is made once, not once a line); one per reader, never shared by threads."""

    def __init__(self) -> None:
        self.duplicates: list[str] = []
        self._decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook(self.duplicates))

    def loads(self, text: str) -> Any:
        """``json.loads(text)``; :attr:`duplicates` holds the keys met twice in an object."""
        self.duplicates.clear()
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return self._decoder.decode(text)


def parse_line(
    name: str, number: int, chunk: bytes, decoder: LineDecoder | None = None
) -> tuple[Record | None, list[Problem], bool]:
    """One raw line of a case file: its record (``None`` when it holds none), the
    problems of its bytes and its JSON, and whether it counts as content (not blank,
    not a ``#`` comment). ``decoder``: one to reuse."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as e:
        byte = chunk[e.start : e.start + 1].hex()
        message = f"not UTF-8: byte 0x{byte} at column {e.start + 1}"
        return None, [Problem(name, number, "(file)", message)], True
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None, [], False
    decoder = decoder or LineDecoder()
    try:
        data = decoder.loads(stripped)
    except json.JSONDecodeError as e:
        message = f"bad JSON: {e.msg} at column {e.colno}"
        return None, [Problem(name, number, "(json)", message)], True
    except RecursionError:
        message = f"bad JSON: nested deeper than {MAX_DEPTH} levels"
        return None, [Problem(name, number, "(json)", message)], True
    except ValueError:  # an integer of more digits than int() converts (4,300)
        message = "bad JSON: a number too long to read (over 4300 digits)"
        return None, [Problem(name, number, "(json)", message)], True
    unusable = _unusable(stripped, data)
    if unusable is not None:
        return None, [Problem(name, number, *unusable)], True
    problems = [
        Problem(name, number, "(json)", f"duplicate key {quote(key)}") for key in decoder.duplicates
    ]
    return Record(name, number, data), problems, True


def iter_records(paths: Sequence[PathLike] | PathLike) -> Iterator[Record | Problem]:
    """Every record and every problem of the case files, file by file, line by line, as
    they are read: one line in memory at a time. A file's problems come in line order,
    ``no cases in file`` last."""
    for path in _as_paths(paths):
        name = str(path)
        content = unread = False
        decoder = LineDecoder()
        for entry in raw_lines(path):
            if isinstance(entry, Problem):
                # line 0: the file could not be read; else an over-long line (content)
                unread, content = unread or entry.line == 0, content or entry.line > 0
                yield entry
                continue
            record, problems, counts = parse_line(name, *entry, decoder)
            content = content or counts
            yield from problems
            if record is not None:
                yield record
        if not content and not unread:
            yield Problem(name, 0, "(file)", "no cases in file")


def read_records(paths: Sequence[PathLike] | PathLike) -> tuple[list[Record], list[Problem]]:
    """Parse case files into raw records without validating them as cases.

    Returns the records and the problems met while reading (missing file, not UTF-8,
    bad JSON, empty file). :func:`iter_records` yields the same one at a time.
    """
    records: list[Record] = []
    problems: list[Problem] = []
    for entry in iter_records(paths):
        if isinstance(entry, Problem):
            problems.append(entry)
        else:
            records.append(entry)
    return records, problems


def dotted(path: Iterable[Any]) -> str:
    return ".".join(str(part) for part in path)
