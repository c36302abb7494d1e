"""Text that comes from case files, made safe to judge and to print.

Case files are user input: an id may hold a newline, an ANSI escape or a zero-width
space, a value may be megabytes long. These helpers judge case ids, find ids that only
look different, cut quoted values short and escape what a terminal, a Markdown table or
an XML parser must not see raw.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: JSON can spell one (``"\\ud800"``), UTF-8 cannot encode it."""

MAX_ID_LENGTH = 128
"""The longest case id accepted, in characters."""

QUOTE_LIMIT = 200
"""Quoted values in problem lines are cut to about this many characters."""


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters with the full length said.

    ``repr`` already escapes control characters and lone surrogates in strings; a huge
    value (a 2 MB string, a deeply nested list) must not fill an error line.
    """
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # a container nested too deep, a huge integer
        return f"<{type(value).__name__}>"
    return cut(text, limit)


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def _escape_char(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""What :func:`printable` escapes: controls (newline, NUL, ESC), format characters
(zero-width, bidi overrides), lone surrogates, private-use and unassigned code points
(U+FFFF), line and paragraph separators. Spaces of every width stay."""


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in UNSAFE_CATEGORIES


def printable(text: str) -> str:
    """``text`` with control, format and surrogate characters written as escapes
    (``\\x1b``, ``\\u200b``), so it prints as one honest line."""
    if text.isprintable():
        return text
    return "".join(_escape_char(c) if _unsafe(c) else c for c in text)


_NOT_XML = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_chars(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold (controls but tab and newline,
    lone surrogates, U+FFFE, U+FFFF) written as an escape (``\\x1b``)."""
    return _NOT_XML.sub(lambda m: _escape_char(m.group()), text)


def id_problem(case_id: str) -> str | None:
    """Why ``case_id`` is not a usable case id, or ``None`` when it is.

    An id names a case in every report, JUnit file and gate verdict: it must be
    printable (no newline, NUL, ANSI escape, zero-width or other control character),
    NFC-normalised, free of surrounding whitespace, and at most ``MAX_ID_LENGTH``
    characters.
    """
    if not case_id:
        return "must not be empty"
    if len(case_id) > MAX_ID_LENGTH:
        return f"longer than {MAX_ID_LENGTH} characters ({len(case_id)})"
    if not case_id.isprintable():  # the one character that fails, named (a space does not)
        for position, char in enumerate(case_id, start=1):
            if not char.isprintable() and char != " ":
                name = unicodedata.name(char, "control character")
                return (
                    f"holds {_escape_char(char)} ({name}) at position {position};"
                    " ids must be printable"
                )
    if case_id != case_id.strip():
        return "has leading or trailing whitespace"
    if unicodedata.normalize("NFC", case_id) != case_id:
        return f"is not NFC-normalised; write it as {unicodedata.normalize('NFC', case_id)!r}"
    return None


def id_key(case_id: str) -> str:
    """What ``case_id`` looks like to a person: ids with equal keys differ only by case,
    surrounding whitespace, zero-width characters, fullwidth forms or NFC/NFD."""
    if case_id.isascii() and case_id.isprintable():
        return case_id.lower().strip()  # what the steps below make of it, sooner
    folded = unicodedata.normalize("NFKC", case_id).casefold()
    visible = "".join(c for c in folded if unicodedata.category(c) not in ("Cf", "Cc"))
    return unicodedata.normalize("NFKC", visible).strip()
