"""Check cases against the system under test before any run: the optional SUT hook.

The loader judges what every case must be (the schema, known ``expect`` keys). Only the
SUT knows what *it* accepts in ``world`` and which roles ``faults`` may name; a mistake
there would otherwise surface as a ``sut_error`` in every run. So a SUT may define::

    def check_case(self, case: Case) -> list[str]: ...

returning one string per problem that would make every run of the case fail (empty:
the case can run), ideally ``field.path: message`` (``world.stok: unknown key 'stok'``).
It must be cheap and must not run the agent. :func:`check_cases` calls it for every
case and locates each problem at the case's line, from the sources
:func:`evals.cases.loader.load_cases_with_sources` returns; the CLI prints them like load
problems and exits 2 (:func:`require_runnable`).

A hook that *raises* (or answers something other than a list of strings) says nothing
about the case: the system under test itself failed on it. That is its failure, as a
``run`` that raises is: :func:`require_runnable` returns such cases apart, and the runner
records each of their runs as ``sut_error`` without calling the SUT — never an exit 2
that would blame the case file.

So is a problem the hook finds in a case the baseline ran *unchanged* (same fingerprint):
the case file did not move, so the SUT did — a regression of the SUT's own validation
(say, a fault parser that no longer knows a fault its cases use). ``evals gate`` passes
such a predicate to :func:`require_runnable`; those cases' runs fail with the problem
as their error and the gate names them, instead of an exit 2 that blames the case file.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from evals.cases.vocabulary import NO_RULES, CaseRules, case_data, rules_of
from evals.errors import CaseFileError, Problem
from evals.model.case import Case

CHECK_CASE_DEADLINE_S = 10.0
"""How long one ``check_case`` call may take. The hook must be cheap; one that outlives
this has hung, and the cases after it are not asked (their runs are ``sut_error``)."""

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


@dataclass(frozen=True)
class Screening:
    """What the SUT's hook said about a set of cases."""

    found: dict[str, list[Problem]] = field(default_factory=dict)
    """Case id -> its problems, located at its line (cases without any are absent)."""
    crashed: dict[str, str] = field(default_factory=dict)
    """Case id -> how the hook itself failed on it (raised, or answered no list)."""

    @property
    def problems(self) -> list[Problem]:
        """Every problem of every case, in case order."""
        return [p for problems in self.found.values() for p in problems]


def ask(sut: CaseChecker, case: Case, deadline_s: float) -> tuple[str, object]:
    """``("ok", answer)``, ``("raised", exception)`` or ``("hung", None)``: the hook runs
    in a daemon thread, abandoned after ``deadline_s`` (``SystemExit`` included)."""
    asker = _Asker(sut)
    try:
        return asker.ask(case, deadline_s)
    finally:
        asker.close()


@dataclass
class _Batch:
    """Cases handed to the hook's thread at once, and what it answered so far."""

    cases: list[Case]
    answers: list[tuple[str, object]] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    current: tuple[int, float] = (0, 0.0)
    """The call in progress: its case's index and when it started (``time.monotonic``)."""
    abandoned: bool = False
    """A call hung: the thread asks no more of this batch."""


class _Asker:
    """One daemon thread that answers ``check_case`` calls a batch at a time (a thread per
    case, or a hand-over per case, costs more than most hooks), abandoned once a call
    outlasts its deadline."""

    def __init__(self, sut: CaseChecker) -> None:
        self._batches: queue.SimpleQueue[_Batch | None] = queue.SimpleQueue()
        worker = threading.Thread(
            target=self._serve, args=(self._batches, sut), name="check_case", daemon=True
        )
        worker.start()

    @staticmethod
    def _serve(batches: queue.SimpleQueue[_Batch | None], sut: CaseChecker) -> None:
        while (batch := batches.get()) is not None:
            for index, case in enumerate(batch.cases):
                if batch.abandoned:
                    break
                batch.current = (index, time.monotonic())
                try:
                    batch.answers.append(("ok", sut.check_case(case)))
                except BaseException as e:  # SystemExit too: the SUT's failure
                    batch.answers.append(("raised", e))
            batch.done.set()

    def ask(self, case: Case, deadline_s: float) -> tuple[str, object]:
        return self.ask_all([case], deadline_s)[0]

    def ask_all(self, cases: Sequence[Case], deadline_s: float) -> list[tuple[str, object]]:
        """``("ok", answer)`` or ``("raised", exception)`` for each case in order, up to a
        call that outlasts ``deadline_s``: ``("hung", None)`` for it, and none after it.
        The caller waits for the whole batch, judging the call in progress by when it
        started."""
        batch = _Batch(list(cases))
        batch.current = (0, time.monotonic())
        self._batches.put(batch)
        while True:
            index, started = batch.current
            if batch.done.wait(max(deadline_s - (time.monotonic() - started), 0.001)):
                return batch.answers
            running = batch.current == (index, started) and len(batch.answers) == index
            if running and time.monotonic() - started >= deadline_s:
                batch.abandoned = True
                return [*batch.answers[:index], ("hung", None)]

    def close(self) -> None:
        """Let the thread end after the call it is in, if any."""
        self._batches.put(None)


SCREEN_BATCH = 256
"""Cases handed to the hook's thread at once."""


class Screener:
    """Asks a SUT's ``check_case`` about cases, a batch at a time, with
    :func:`screen_cases`'s rules: the hook's problems, or why it said nothing (it raised,
    answered no list of strings, or hung: after a hang, no later case is asked). For
    callers that never hold all the cases (``evals lint``); :meth:`close` it when done."""

    def __init__(self, sut: object, deadline_s: float | None = None) -> None:
        self.asker = _Asker(sut) if isinstance(sut, CaseChecker) else None
        # read now, so that a test can shorten it
        self.deadline_s = CHECK_CASE_DEADLINE_S if deadline_s is None else deadline_s
        self.hung_on: str | None = None

    def answer(self, case: Case) -> tuple[list[tuple[str, str]], str | None]:
        """``(field, message)`` for every problem the hook finds in ``case``, and ``None``;
        or no problem and how the hook failed on it (a SUT without the hook: neither)."""
        return self.answer_all([case])[0]

    def answer_all(self, cases: Sequence[Case]) -> list[tuple[list[tuple[str, str]], str | None]]:
        """:meth:`answer` for each case, in order, the hook asked about them all at once."""
        found: list[tuple[list[tuple[str, str]], str | None]] = []
        todo = list(cases)
        while todo:
            if self.asker is None:
                return [*found, *[([], None)] * len(todo)]
            if self.hung_on is not None:
                why = f"not asked: check_case hung on case {self.hung_on!r}"
                return [*found, *[([], why)] * len(todo)]
            answers = self.asker.ask_all(todo, self.deadline_s)
            found += [self._judged(c, *a) for c, a in zip(todo, answers, strict=False)]
            todo = todo[len(answers) :]
        return found

    def _judged(
        self, case: Case, status: str, answer: object
    ) -> tuple[list[tuple[str, str]], str | None]:
        if status == "hung":
            self.hung_on = case.id
            return [], f"check_case did not answer within {self.deadline_s:g}s"
        if status == "raised":
            error = answer
            return [], _one_line(f"check_case raised {type(error).__name__}: {error}")
        if not isinstance(answer, list) or not all(isinstance(p, str) for p in answer):
            return [], _one_line(f"check_case returned {answer!r}; expected a list of strings")
        return [_split(_one_line(text)) for text in answer], None

    def close(self) -> None:
        """Let the hook's thread end (after the call it is in, if any)."""
        if self.asker is not None:
            self.asker.close()


def screen_cases(
    sut: object,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
    *,
    deadline_s: float | None = None,
    vocabulary: bool = True,
) -> Screening:
    """Ask ``sut.check_case`` about every case, in case order.

    ``sources`` maps a case id to its file and line (as
    :func:`~evals.cases.loader.load_cases_with_sources` returns); a case without one is located
    as ``<case ID>`` line 0. A SUT without ``check_case`` finds nothing. A hook that
    raises or returns something other than a list of strings failed on that case: it is
    listed in ``crashed``, never a problem of the case and never a traceback. So is a
    hook that does not answer within ``deadline_s`` (default
    :data:`CHECK_CASE_DEADLINE_S`); the cases after it are not asked.

    First, every case is held to the vocabulary the SUT declares (``case_rules``, see
    :mod:`evals.cases.vocabulary`): a split, outcome or input it does not know is a problem of
    the case, located the same way.
    """
    rules = rules_of(sut) if vocabulary else NO_RULES
    located = sources or {}
    found = Screening()
    screener = Screener(sut, deadline_s)
    try:
        _screen(cases, located=located, rules=rules, screener=screener, found=found)
    finally:
        screener.close()
    return found


def _screen(
    cases: Iterable[Case],
    *,
    located: Mapping[str, tuple[str, int]],
    rules: CaseRules,
    screener: Screener,
    found: Screening,
) -> None:
    listed = list(cases)
    for start in range(0, len(listed), SCREEN_BATCH):
        batch = listed[start : start + SCREEN_BATCH]
        for case, (problems, crashed) in zip(batch, screener.answer_all(batch), strict=True):
            file, line = located.get(case.id, (f"<case {case.id}>", 0))
            if rules is not NO_RULES:
                for where, message in rules.problems(case_data(case)):
                    found.found.setdefault(case.id, []).append(Problem(file, line, where, message))
            if crashed is not None:
                found.crashed[case.id] = crashed
            for where, message in problems:
                found.found.setdefault(case.id, []).append(Problem(file, line, where, message))


def check_cases(
    sut: object,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
) -> list[Problem]:
    """Every problem ``sut.check_case`` finds in ``cases``, in case order (a hook that
    fails on a case is the SUT's failure, not a problem: see :func:`screen_cases`)."""
    return screen_cases(sut, cases, sources).problems


def require_runnable(
    sut: object,
    cases: Iterable[Case],
    sources: Mapping[str, tuple[str, int]] | None = None,
    *,
    judged_before: Callable[[Case], bool] | None = None,
) -> dict[str, str]:
    """Raise :class:`~evals.errors.CaseFileError` listing every problem the hook finds
    (the CLI prints one line each and exits 2); otherwise return the cases whose runs
    are the SUT's failures (case id -> why): those the hook itself failed on, and those
    ``judged_before`` says the baseline ran unchanged, which the SUT now refuses."""
    listed = list(cases)
    screening = screen_cases(sut, listed, sources)
    failed = dict(screening.crashed)
    blamed: list[Problem] = []
    for case in listed:
        problems = screening.found.get(case.id)
        if not problems:
            continue
        if judged_before is not None and judged_before(case):
            first = problems[0]
            more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            failed[case.id] = (
                "the SUT refuses this case, unchanged since the baseline ran it:"
                f" {first.field}: {first.message}{more}"
            )
        else:
            blamed += problems
    if blamed:
        raise CaseFileError(blamed)
    return failed
