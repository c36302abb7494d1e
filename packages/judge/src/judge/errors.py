"""Errors of the judge package: one base class, specific subclasses."""

from __future__ import annotations


class JudgeError(Exception):
    """Base class of every judge error."""


class LabelFileError(JudgeError):
    """A labels or pairs file is unreadable or a line is invalid (user input: exit 2)."""

    def __init__(self, path: str, line: int, field: str, problem: str) -> None:
        where = f"{path}:{line}" if line else path
        # "-": the problem is the file's or the line's as a whole, not one field's.
        about = "" if field == "-" else f"field {field!r}: "
        super().__init__(f"{where}: {about}{problem}")
        self.path = path
        self.line = line
        self.field = field
        self.problem = problem


class JudgeConfigError(JudgeError):
    """A judge cannot be built from the given configuration (e.g. no API key)."""


class UnknownJudgeError(JudgeConfigError):
    """No judge has this name."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown judge {name!r}; known: {', '.join(known)}")
        self.name = name


class JudgeCallError(JudgeError):
    """A judge could not produce a verdict (model unreachable, HTTP error after retries)."""


class JudgeOutputError(JudgeCallError):
    """The model's answer stayed unparsable after the repair round; never a silent pass."""

    def __init__(self, output: str | None, problem: str) -> None:
        super().__init__(f"judge output unparsable after one repair round ({problem}): {output!r}")
        self.output = output
        self.problem = problem
