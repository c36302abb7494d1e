"""The pure parts of ``scripts/power.py``: mutants, their stable ids, the annotation-only
filter, the seeded sample, the equivalents file and the verdict of one gate run.

Nothing here runs a process or touches cosmic-ray's session database, so the tests can
drive every rule with plain values.
"""

from __future__ import annotations

import ast
import hashlib
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

Status = Literal["killed", "survived", "crash", "timeout", "error"]
"""What happened to one mutant run (see :func:`classify`; ``error``: cosmic-ray could not
apply it). Invalid Python never runs: it is dropped before sampling."""
STATUSES: tuple[Status, ...] = ("killed", "survived", "crash", "timeout", "error")

EXIT_MARKER = "power: exit "
"""The line the test command's wrapper prints last: the gate's own exit code."""
TIMEOUT_OUTPUT = "timeout"
"""What cosmic-ray records as the output of a test command it killed for running too long."""


class PowerError(Exception):
    """Bad input to the power script (equivalents file, arguments): one clear line."""


@dataclass(frozen=True)
class Mutant:
    """One mutation cosmic-ray's ``init`` found: where, which operator, which occurrence."""

    job_id: str
    """cosmic-ray's work-item id (random per session: never use it as a key)."""
    path: str
    """The module, relative to the repository root."""
    line: int
    """First line of the mutated node (1-based)."""
    column: int
    """Its first column (0-based, in characters)."""
    end_line: int
    """Last line of the mutated node."""
    end_column: int
    """Column just past its end."""
    operator: str
    """cosmic-ray's operator name (``core/NumberReplacer``)."""
    occurrence: int
    """Which match of ``operator`` in the module (0-based, counted over the whole file)."""
    definition: str | None = None
    """The function or class around it, when cosmic-ray found one."""
    code: str = ""
    """The mutated line's text, stripped (see :func:`with_anchors`)."""
    nth: int = 0
    """Which mutant of this operator on a line of this text in the module (0-based)."""

    @property
    def id(self) -> str:
        """``path:line:operator:occurrence``: where to look, for people; moves with the
        code above it."""
        return f"{self.path}:{self.line}:{self.operator}:{self.occurrence}"

    @property
    def anchor(self) -> str:
        """The key of the sample and of the equivalents file: path, operator, the line's
        text and ``nth``. Unlike :attr:`id` it stays put when code is added or removed
        elsewhere in the module, so judged equivalents and the sample carry over."""
        return anchor_of(self.path, self.operator, self.code, self.nth)


def anchor_of(path: str, operator: str, code: str, nth: int) -> str:
    """:attr:`Mutant.anchor` from its parts."""
    return f"{path} {operator} #{nth}: {code}"


def with_anchors(mutants: Iterable[Mutant], sources: dict[str, str]) -> list[Mutant]:
    """``mutants`` with :attr:`Mutant.code` and :attr:`Mutant.nth` filled in from the
    modules' text (``sources`` maps each ``path`` to it)."""
    lines = {path: text.splitlines() for path, text in sources.items()}
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Mutant] = []
    for m in sorted(mutants, key=lambda m: (m.path, m.line, m.column, m.operator, m.occurrence)):
        text = lines.get(m.path, [])
        code = text[m.line - 1].strip() if 0 < m.line <= len(text) else ""
        key = (m.path, m.operator, code)
        nth = seen.get(key, 0)
        seen[key] = nth + 1
        out.append(replace(m, code=code, nth=nth))
    return out


# --- Annotation-only mutants -------------------------------------------------------------

Span = tuple[tuple[int, int], tuple[int, int]]
"""``((line, column), (end_line, end_column))``, columns in characters."""


def _char_column(lines: Sequence[str], line: int, byte_column: int) -> int:
    """``ast`` counts columns in UTF-8 bytes, cosmic-ray (parso) in characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def annotation_spans(source: str) -> list[Span]:
    """The spans of every parameter and return annotation of the module's functions.

    Under ``from __future__ import annotations`` they are never evaluated, so a mutant
    inside one changes nothing that runs. (cosmic-ray 8.7 does not mutate variable
    annotations, ``x: int | None = …``; class-body ones would not qualify anyway: pydantic
    evaluates them when the class is created.)
    """
    tree = ast.parse(source)
    lines = source.splitlines()
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
            found += [p.annotation for p in params if p is not None and p.annotation]
            if node.returns is not None:
                found.append(node.returns)
    spans: list[Span] = []
    for expr in found:
        end_line = expr.end_lineno or expr.lineno
        end_col = expr.end_col_offset if expr.end_col_offset is not None else expr.col_offset
        spans.append(
            (
                (expr.lineno, _char_column(lines, expr.lineno, expr.col_offset)),
                (end_line, _char_column(lines, end_line, end_col)),
            )
        )
    return spans


def inside(mutant: Mutant, spans: Iterable[Span]) -> bool:
    """Whether the mutated node lies wholly within one of ``spans``."""
    start = (mutant.line, mutant.column)
    end = (mutant.end_line, mutant.end_column)
    return any(lo <= start and end <= hi for lo, hi in spans)


def annotation_only(mutants: Iterable[Mutant], sources: dict[str, str]) -> set[str]:
    """The job ids of the mutants that only change an unevaluated annotation.

    ``sources`` maps each mutant's ``path`` to the module's text.
    """
    spans = {path: annotation_spans(text) for path, text in sources.items()}
    return {m.job_id for m in mutants if inside(m, spans.get(m.path, ()))}


# --- The sample ------------------------------------------------------------------------


def _rank(mutant: Mutant, seed: int) -> bytes:
    return hashlib.sha256(f"{seed}\n{mutant.anchor}".encode()).digest()


def sample(mutants: Sequence[Mutant], size: int | None, seed: int) -> list[Mutant]:
    """``size`` mutants drawn with ``seed`` (all when ``size`` is ``None`` or larger),
    in (path, line) order.

    Each mutant's place in the draw is a hash of the seed and its :attr:`Mutant.anchor`,
    and the ``size`` first are taken. So the same code, size and seed give the same
    sample whatever order cosmic-ray stored them in, and a change to one module only
    changes the sample where mutants came or went: the rest of the sample, and what was
    judged about it, carries over.
    """
    ordered = sorted(mutants, key=lambda m: (m.path, m.line, m.column, m.operator, m.occurrence))
    if size is None or size >= len(ordered):
        return ordered
    chosen = {m.anchor for m in sorted(ordered, key=lambda m: _rank(m, seed))[:size]}
    return [m for m in ordered if m.anchor in chosen]


# --- Equivalent mutants ------------------------------------------------------------------


@dataclass(frozen=True)
class Equivalent:
    """A mutant judged equivalent: no test can tell it from the original."""

    anchor: str
    """The mutant's :attr:`Mutant.anchor`."""
    reason: str
    """Why it is equivalent, in one line."""


EQUIVALENT_KEYS = ("path", "operator", "code", "nth", "reason")


def parse_equivalents(text: str, where: str) -> list[Equivalent]:
    """The ``[[mutant]]`` entries of an equivalents file.

    Each has ``path``, ``operator``, ``code`` (the mutated line's stripped text) and
    ``reason`` (one line), and ``nth`` when the same operator hits a line of the same text
    more than once in the module (default 0). Raises :class:`PowerError` naming the file
    and the entry on anything else: an unknown key, a missing or empty field, a
    duplicate mutant.
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
        extra = sorted(set(entry) - set(EQUIVALENT_KEYS))
        if extra:
            raise PowerError(
                f"{here}: unknown key {extra[0]!r} (expected {', '.join(EQUIVALENT_KEYS)})"
            )
        for key in ("path", "operator", "code", "reason"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise PowerError(f"{here}: {key!r} must be a non-empty string")
        nth = entry.get("nth", 0)
        if not isinstance(nth, int) or isinstance(nth, bool) or nth < 0:
            raise PowerError(f"{here}: 'nth' must be a whole number >= 0")
        reason = entry["reason"].strip()
        if "\n" in reason or "\n" in entry["code"]:
            raise PowerError(f"{here}: 'code' and 'reason' must be one line each")
        anchor = anchor_of(
            entry["path"].strip(), entry["operator"].strip(), entry["code"].strip(), nth
        )
        if anchor in seen:
            raise PowerError(f"{here}: duplicate mutant {anchor!r}")
        seen.add(anchor)
        found.append(Equivalent(anchor, reason))
    return found


def load_equivalents(path: Path) -> list[Equivalent]:
    """:func:`parse_equivalents` of a file; no file means no equivalents."""
    if not path.is_file():
        return []
    return parse_equivalents(path.read_text(encoding="utf-8"), str(path))


# --- What one gate run says ------------------------------------------------------------


def exit_code_of(output: str) -> int | None:
    """The gate's exit code, from the wrapper's last marker line (``None``: no marker)."""
    codes = [
        line[len(EXIT_MARKER) :].strip()
        for line in output.splitlines()
        if line.startswith(EXIT_MARKER)
    ]
    return int(codes[-1]) if codes and codes[-1].lstrip("-").isdigit() else None


def verdict_of(output: str) -> str | None:
    """The last ``Gate: …`` line the gate printed, or ``None``."""
    lines = [line for line in output.splitlines() if line.startswith("Gate: ")]
    return lines[-1] if lines else None


def classify(output: str | None) -> tuple[Status, int | None]:
    """What really happened in one test-command run: (status, the gate's exit code).

    killed: exit 1 and a ``Gate: FAIL`` verdict. survived: exit 0 and ``Gate: PASS``.
    timeout: cosmic-ray stopped the command. crash: anything else (a traceback, exit 2,
    exit 1 without a verdict, an interrupted gate): the suites did not get to judge.
    """
    if output is None:
        return "error", None
    if output.strip() == TIMEOUT_OUTPUT:
        return "timeout", None
    code = exit_code_of(output)
    verdict = verdict_of(output) or ""
    if code == 1 and verdict.startswith("Gate: FAIL"):
        return "killed", code
    if code == 0 and verdict.startswith("Gate: PASS"):
        return "survived", code
    return "crash", code


def findings_of(output: str) -> list[str]:
    """The HARD and SOFT lines of the verdict (what killed the mutant)."""
    return [
        line.strip() for line in output.splitlines() if line.startswith(("  HARD  ", "  SOFT  "))
    ]
