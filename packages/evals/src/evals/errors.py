"""Errors of the evals package: one base class, specific subclasses.

User-facing errors (a bad case file) carry every problem as one line, so the command
line can print them and exit 2 without a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evals._text import printable


class EvalsError(Exception):
    """Base class of every error the evals package raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a case file, located by file, line and field path."""

    file: str
    """The file, as the user named it."""
    line: int
    """1-based line number; 0 when the problem concerns the whole file."""
    field: str
    """Dotted field path (``expect.outcome``), or ``(file)`` / ``(json)`` / ``(line)``."""
    message: str
    """What is wrong, quoting the offending value."""

    def render(self) -> str:
        """The problem as one line: ``file:line: field.path: message``."""
        # File names and field paths come from the user too: no raw newline or ESC.
        return printable(f"{self.file}:{self.line}: {self.field}: {self.message}")


class CaseFileError(EvalsError):
    """One or more case files are invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        count = len(self.problems)
        super().__init__(f"{count} problem(s) in case files:\n{self.render()}")

    def lines(self) -> list[str]:
        """Every problem, one line each."""
        return [p.render() for p in self.problems]

    def render(self) -> str:
        """Every problem, one per line, for printing."""
        return "\n".join(self.lines())


class CheckRegistrationError(EvalsError):
    """A check could not be registered (duplicate name, bad kind)."""


class RunMismatchError(EvalsError):
    """A run was graded against a case it is not a trial of."""

    def __init__(self, case_id: str, run_case_id: str) -> None:
        self.case_id = case_id
        self.run_case_id = run_case_id
        super().__init__(f"run of case {run_case_id!r} graded against case {case_id!r}")


class MetricsError(EvalsError, ValueError):
    """A metric was asked for with an impossible argument (e.g. percentile 120)."""


class FileError(EvalsError):
    """A file the command needs is missing or malformed; the message names the file."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class BaselineError(FileError):
    """The baseline file is missing, unreadable or of an unknown version."""


class GateConfigError(FileError):
    """The gate configuration is missing or malformed."""


class ReportError(FileError):
    """A metrics JSON report cannot be read back."""


class ConfigError(FileError):
    """``[tool.evals]`` is unreadable or holds a value of the wrong type."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(path, f"[tool.evals]: {problem}")


class SutLoadError(EvalsError):
    """The SUT import path does not name a usable system under test."""

    def __init__(self, spec: str, problem: str, *, refusal: str | None = None) -> None:
        self.spec = spec
        self.problem = problem
        self.refusal = refusal
        """When the SUT's own constructor (or factory) raised: its message on one line,
        unwrapped (a configuration case's refusal, :mod:`evals.cases.configuration`)."""
        super().__init__(f"cannot load SUT {spec!r}: {problem}")


class UsageError(EvalsError):
    """A command-line value that cannot work (unknown suite, nothing selected …)."""


class LintError(EvalsError):
    """A part of a lint that ran in a process of its own ended without its findings."""


class TraceError(FileError):
    """A trace folder cannot be read back, or does not match what is asked of it."""
