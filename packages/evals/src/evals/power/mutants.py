"""Mutants and what one test-command run says about them.

A mutant's identity for people is its ``path:line:operator:occurrence`` id; its identity
for the sample, the ledger and the equivalents file is its *anchor* (module, operator, the
mutated line's stripped text, and which such mutant it is in the module), which stays put
when code is added or removed elsewhere. Nothing here runs a process or imports
cosmic-ray.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from evals.errors import EvalsError

Status = Literal["killed", "survived", "crash", "timeout", "error"]
"""What happened to one mutant run (see :func:`classify`; ``error``: cosmic-ray could not
apply it). Invalid Python never runs: it is dropped before sampling."""
STATUSES: tuple[Status, ...] = ("killed", "survived", "crash", "timeout", "error")

EXIT_MARKER = "power: exit "
"""The line the test command's wrapper prints last: the command's own exit code."""
TIMEOUT_OUTPUT = "timeout"
"""What cosmic-ray records as the output of a test command it killed for running too long."""
DIGEST_CHARS = 12
"""Hex characters of an anchor's digest in the ledger (48 bits: no collision among the few
thousand mutants of a project but with odds below one in ten million)."""


class PowerError(EvalsError):
    """Bad input to ``evals power`` (configuration, ledger, equivalents, arguments), or a
    run that cannot be judged: one clear line, exit 2."""


@dataclass(frozen=True)
class Mutant:
    """One mutation cosmic-ray found: where, which operator, which occurrence."""

    job_id: str
    """cosmic-ray's work-item id (random per session: never a key)."""
    path: str
    """The module, relative to the project root (POSIX separators)."""
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
    """Which match of ``operator`` in the module (0-based, over the whole file)."""
    definition: str | None = None
    """The function or class around it, when cosmic-ray found one."""
    code: str = ""
    """The mutated line's text, stripped (see :func:`with_anchors`)."""
    nth: int = 0
    """Which mutant of this operator on a line of this text in the module (0-based)."""

    @property
    def id(self) -> str:
        """``path:line:operator:occurrence``: where to look; moves with the code above it."""
        return f"{self.path}:{self.line}:{self.operator}:{self.occurrence}"

    @property
    def anchor(self) -> str:
        """The key of the sample, the ledger and the equivalents file (see the module
        docstring)."""
        return anchor_of(self.path, self.operator, self.code, self.nth)

    @property
    def digest(self) -> str:
        """The anchor's digest, as the ledger records the mutants of a sample."""
        return digest_of(self.anchor)


def anchor_of(path: str, operator: str, code: str, nth: int) -> str:
    """:attr:`Mutant.anchor` from its parts."""
    return f"{path} {operator} #{nth}: {code}"


def digest_of(anchor: str) -> str:
    """The first :data:`DIGEST_CHARS` hex characters of the anchor's SHA-256."""
    return hashlib.sha256(anchor.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def order_key(m: Mutant) -> tuple[str, int, int, str, int]:
    """File order: path, line, column, operator, occurrence."""
    return (m.path, m.line, m.column, m.operator, m.occurrence)


def with_anchors(mutants: Iterable[Mutant], sources: dict[str, str]) -> list[Mutant]:
    """``mutants`` in file order with :attr:`Mutant.code` and :attr:`Mutant.nth` filled
    in from the modules' text (``sources`` maps each ``path`` to it)."""
    lines = {path: text.splitlines() for path, text in sources.items()}
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Mutant] = []
    for m in sorted(mutants, key=order_key):
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


def postponed_annotations(tree: ast.Module) -> bool:
    """Whether the module starts with ``from __future__ import annotations``."""
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )


def annotation_spans(source: str) -> list[Span]:
    """The spans of every parameter and return annotation of the module's functions,
    when the module postpones annotations (none otherwise).

    Under ``from __future__ import annotations`` they are never evaluated, so a mutant
    inside one changes nothing that runs. (cosmic-ray 8.7 does not mutate variable
    annotations, ``x: int | None = …``; class-body ones would not qualify anyway: pydantic
    and dataclasses read them when the class is created.)
    """
    tree = ast.parse(source)
    if not postponed_annotations(tree):
        return []
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
    """The job ids of the mutants that only change an unevaluated annotation."""
    spans = {path: annotation_spans(text) for path, text in sources.items()}
    return {m.job_id for m in mutants if inside(m, spans.get(m.path, ()))}


# --- What one test-command run says ------------------------------------------------------


def exit_code_of(output: str) -> int | None:
    """The command's exit code, from the wrapper's last marker line (``None``: no marker)."""
    codes = [
        line[len(EXIT_MARKER) :].strip()
        for line in output.splitlines()
        if line.startswith(EXIT_MARKER)
    ]
    return int(codes[-1]) if codes and codes[-1].lstrip("-").isdigit() else None


def verdict_of(output: str) -> str | None:
    """The last ``Gate: …`` line printed, or ``None``."""
    lines = [line for line in output.splitlines() if line.startswith("Gate: ")]
    return lines[-1] if lines else None


def classify(output: str | None) -> tuple[Status, int | None]:
    """What really happened in one test-command run: (status, the command's exit code).

    killed: exit 1 and a ``Gate: FAIL`` verdict. survived: exit 0 and ``Gate: PASS``.
    timeout: cosmic-ray stopped the command. crash: anything else (a traceback, exit 2,
    exit 1 without a verdict, an interrupted gate): the suites did not get to judge.
    ``error``: no output at all (cosmic-ray could not apply the mutation).
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
