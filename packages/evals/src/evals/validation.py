"""Check cases against the system under test before any run: the optional SUT hook.

The loader judges what every case must be (the schema, known ``expect`` keys). Only the
SUT knows what *it* accepts in ``world`` and which roles ``faults`` may name; a mistake
there would otherwise surface as a ``sut_error`` in every run. So a SUT may define::

    def check_case(self, case: Case) -> list[str]: ...

returning one string per problem that would make every run of the case fail (empty:
the case can run), ideally ``field.path: message`` (``world.stok: unknown key 'stok'``).
It must be cheap and must not run the agent. :func:`check_cases` calls it for every
case and locates each problem at the case's line, from the sources
:func:`evals.loader.load_cases_with_sources` returns; the CLI prints them like load
problems and exits 2 (:func:`require_runnable`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from evals.case import Case
from evals.errors import CaseFileError, Problem

SUT_FIELD = "(sut)"
"""The field of a problem about the hook itself (it raised, or returned no list)."""
CASE_FIELD = "(case)"
"""The field of a problem the SUT gave without a ``field.path: `` prefix."""


@runtime_checkable
class CaseChecker(Protocol):
    """A SUT that can judge a case before running it."""

    def check_case(self, case: Case) -> list[str]:
        """One line per problem that would make every run of ``case`` fail."""
        ...


def _split(text: str) -> tuple[str, str]:
    """``"world.stok: unknown key"`` -> ``("world.stok", "unknown key")``."""
    head, sep, tail = text.partition(": ")
    if sep and head and tail and not any(ch.isspace() for ch in head):
        return head, tail
    return CASE_FIELD, text


def _one_line(text: str) -> str:
    return " ".join(text.split())


def check_cases(
    sut: object,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
) -> list[Problem]:
    """Every problem ``sut.check_case`` finds in ``cases``, in case order.

    ``sources`` maps a case id to its file and line (as
    :func:`~evals.loader.load_cases_with_sources` returns); a case without one is located
    as ``<case ID>`` line 0. A SUT without ``check_case`` finds nothing. A hook that
    raises or returns something other than a list of strings is itself a problem of
    that case (field ``(sut)``), never a crash.
    """
    if not isinstance(sut, CaseChecker):
        return []
    located = sources or {}
    problems: list[Problem] = []
    for case in cases:
        file, line = located.get(case.id, (f"<case {case.id}>", 0))
        try:
            found = sut.check_case(case)
        except Exception as e:  # the SUT's bug must not stop the command with a traceback
            message = _one_line(f"check_case raised {type(e).__name__}: {e}")
            problems.append(Problem(file, line, SUT_FIELD, message))
            continue
        if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            message = f"check_case returned {found!r}; expected a list of strings"
            problems.append(Problem(file, line, SUT_FIELD, _one_line(message)))
            continue
        for text in found:
            field, message = _split(_one_line(text))
            problems.append(Problem(file, line, field, message))
    return problems


def require_runnable(
    sut: object,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
) -> None:
    """Raise :class:`~evals.errors.CaseFileError` listing every problem
    :func:`check_cases` finds (the CLI prints one line each and exits 2)."""
    problems = check_cases(sut, cases, sources)
    if problems:
        raise CaseFileError(problems)
