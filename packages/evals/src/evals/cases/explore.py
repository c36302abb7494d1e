"""The search for disagreements: property-based exploration of a generated suite's
dimensions, running the system under test against the oracle and every registered check
(the invariants included).

Where :mod:`evals.cases.generate` covers the input space systematically (all pairs, interaction
groups), exploration draws combinations at random — Hypothesis, seeded, bounded in time
and examples — including values no dimension lists (a project passes strategies of its
own). Each disagreement is shrunk by Hypothesis to a minimal combination (labels shrink
towards each dimension's baseline) and printed as a ready case line; a project then fixes
the agent and commits the case, or fixes the oracle.

Hypothesis is the ``explore`` extra of the evals package::

    python -m evals.cases.explore agent_evals.generated_worlds:GENERATOR --minutes 10 --seed 1
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import random
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from evals.cases.generate import CaseGenerator
from evals.cases.loader import with_expect_defaults
from evals.checks import grade
from evals.config import load_config
from evals.model.case import Case
from evals.model.run import Run
from evals.model.sut import AnySUT, load_sut

try:  # the explore extra
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    HAVE_HYPOTHESIS = True
except ImportError:  # reported by explore() and main()
    HAVE_HYPOTHESIS = False

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

MISSING_EXTRA = "exploration needs Hypothesis: install the evals 'explore' extra"


@dataclass(frozen=True)
class Finding:
    """One disagreement: a minimal combination whose run failed some check."""

    labels: dict[str, str]
    """The combination (dimension -> label; explored values are labelled ``~<value>``)."""
    case: dict[str, Any]
    """The case, ``expect`` from the oracle: ready to commit."""
    failed: tuple[str, ...]
    """Each failing check with its reason."""

    @property
    def signature(self) -> frozenset[str]:
        """The class of the disagreement: the names of the checks that failed."""
        return signature_of(self.failed)

    def case_line(self) -> str:
        """The case as one JSONL line."""
        return json.dumps(self.case, ensure_ascii=False)


@dataclass
class Exploration:
    """What a search found."""

    seed: int
    """The seed the search started from."""
    examples: int = 0
    """Combinations run."""
    invalid: int = 0
    """Combinations the system under test refused as cases (``check_case``)."""
    findings: list[Finding] = field(default_factory=list)
    """One minimal disagreement per class, in the order found."""
    seconds: float = 0.0
    """Wall time of the search."""
    stopped_by: str = ""
    """Why it ended: ``time`` (the budget), or ``rounds`` (``max_rounds`` done)."""
    empty_rounds: int = 0
    """Rounds that found no new class of disagreement within their example budget."""


def signature_of(failed: tuple[str, ...] | list[str]) -> frozenset[str]:
    """The check names (before any ``:`` part) of ``check: reason`` lines."""
    return frozenset(line.split(":", 1)[0] for line in failed)


def _label(value: Any) -> str:
    text = repr(value).replace(":", "_").strip() or "_"
    return "~" + text[:40]


def run_case(sut: AnySUT, case: Case, trial: int = 0) -> Run:
    """One run of ``case`` on ``sut`` (``arun`` preferred, as the runner does)."""
    arun = getattr(sut, "arun", None)
    if arun is not None and inspect.iscoroutinefunction(arun):
        result: Run = asyncio.run(arun(case, trial))
        return result
    return sut.run(case, trial)  # type: ignore[union-attr]


def judge(
    generator: CaseGenerator,
    sut: AnySUT,
    labels: Mapping[str, str],
    values: Mapping[str, Any],
    expect_defaults: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], tuple[str, ...]] | None:
    """Build, run and grade one combination: the case and its failing checks (empty when
    every check passed); ``None`` when the combination is no valid case. The case is
    judged holding the project's default expectations (``[tool.evals.expect_defaults]``),
    as a case file's would be; the case returned is the generator's, as written."""
    try:
        raw = generator.case(labels, values)
        case = Case.model_validate(with_expect_defaults(raw, expect_defaults))
    except (ValidationError, ValueError, KeyError, TypeError):
        return None
    check_case = getattr(sut, "check_case", None)
    if check_case is not None and check_case(case):
        return None
    run = run_case(sut, case)
    failed = tuple(
        f"{r.name}: {r.reason}" for r in grade(case, run) if not r.passed and not r.grader_error
    )
    return raw, failed


def explore(
    generator: CaseGenerator,
    sut: AnySUT,
    *,
    seed: int = 0,
    time_limit_s: float = 60.0,
    max_examples: int = 2000,
    max_rounds: int | None = None,
    strategies: Mapping[str, SearchStrategy[Any]] | None = None,
    report: Callable[[str], None] | None = None,
    expect_defaults: Mapping[str, Any] | None = None,
) -> Exploration:
    """Search ``generator``'s dimensions for runs of ``sut`` that some check fails.

    Each round asks Hypothesis, with a random generator of its own seeded from ``seed``,
    for a combination failing a class of checks not yet found (at most ``max_examples``
    tries a round), shrinks it, and records it; rounds go on, found or not, until the time
    is up (or ``max_rounds`` are done). ``strategies`` adds, per dimension,
    values beyond its labels (drawn values are labelled ``~<value>``); ``expect_defaults``
    fills in every case's unstated expectations (see :func:`judge`). Deterministic for a
    given seed, apart from where the time budget cuts it.
    """
    if not HAVE_HYPOTHESIS:
        raise RuntimeError(MISSING_EXTRA)
    say = report or (lambda _line: None)
    extra = dict(strategies or {})
    unknown = sorted(set(extra) - {d.name for d in generator.dimensions})
    if unknown:
        raise ValueError(f"strategies for unknown dimension(s): {', '.join(unknown)}")
    per_dimension: dict[str, SearchStrategy[tuple[str, Any]]] = {}
    for dim in generator.dimensions:
        listed = st.sampled_from(list(dim.values.items()))
        if dim.name in extra:
            drawn = extra[dim.name].map(lambda v: (_label(v), v))
            per_dimension[dim.name] = st.one_of(listed, drawn)
        else:
            per_dimension[dim.name] = listed
    combos = st.fixed_dictionaries(per_dimension)
    result = Exploration(seed=seed)
    found: set[frozenset[str]] = set()
    started = time.monotonic()
    deadline = started + time_limit_s
    budget = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    latest: dict[str, Any] = {}

    def disagrees(combo: Mapping[str, tuple[str, Any]]) -> bool:
        if time.monotonic() > deadline:
            # Hypothesis wraps what a condition raises; a spent budget answers "no" at
            # once instead, and the round ends within its example budget.
            return False
        labels = {name: pair[0] for name, pair in combo.items()}
        values = {name: pair[1] for name, pair in combo.items()}
        if not generator.allowed or generator.allowed(labels):
            judged = judge(generator, sut, labels, values, expect_defaults)
        else:
            judged = None
        result.examples += 1
        if judged is None:
            result.invalid += 1
            return False
        case, failed = judged
        if not failed or signature_of(failed) in found:
            return False
        latest[repr(sorted(labels.items()))] = (labels, case, failed)
        return True

    round_no = 0
    result.stopped_by = "rounds"
    while max_rounds is None or round_no < max_rounds:
        if time.monotonic() > deadline:
            result.stopped_by = "time"
            break
        round_no += 1
        try:
            minimal = find(
                combos, disagrees, settings=budget, random=random.Random(seed * 1000 + round_no)
            )
        except NoSuchExample:
            result.empty_rounds += 1
            continue
        except Exception:
            # Cut by the budget in the middle of shrinking (Hypothesis then finds the
            # condition unreliable): the round's finding is not kept.
            if time.monotonic() > deadline:
                result.stopped_by = "time"
                break
            raise
        labels = {name: pair[0] for name, pair in minimal.items()}
        labels, case, failed = latest[repr(sorted(labels.items()))]
        finding = Finding(labels=labels, case=case, failed=failed)
        found.add(finding.signature)
        result.findings.append(finding)
        say(f"finding {len(result.findings)}: {' '.join(f'{k}:{v}' for k, v in labels.items())}")
        for line in failed:
            say(f"  {line}")
    result.seconds = time.monotonic() - started
    return result


def _load(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"expected 'package.module:attr', got {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    return target


def main(argv: list[str] | None = None) -> int:
    """``python -m evals.cases.explore GENERATOR --sut SPEC``: search, print each finding and its
    case line; exit 1 when something was found, 2 on bad arguments."""
    parser = argparse.ArgumentParser(
        prog="python -m evals.cases.explore",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("generator", help="the CaseGenerator, as package.module:attr")
    parser.add_argument(
        "--sut", required=True, help="the system under test, as package.module:attr"
    )
    parser.add_argument(
        "--strategies",
        help="package.module:attr of a mapping dimension -> Hypothesis strategy (or of a"
        " function returning one)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=1.0, help="time budget (default 1)")
    parser.add_argument("--max-examples", type=int, default=2000, help="tries per round")
    parser.add_argument("--rounds", type=int, default=None, help="stop after N rounds")
    args = parser.parse_args(argv)
    if not HAVE_HYPOTHESIS:
        print(f"evals explore: {MISSING_EXTRA}", file=sys.stderr)
        return 2
    try:
        generator = _load(args.generator)
        if not isinstance(generator, CaseGenerator):
            raise ValueError(
                f"{args.generator} is a {type(generator).__name__}, not a CaseGenerator"
            )
        sut = load_sut(args.sut)
        strategies = _load(args.strategies) if args.strategies else None
        if callable(strategies):
            strategies = strategies()
    except (ImportError, AttributeError, ValueError) as e:
        print(f"evals explore: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a SUT's or module's own failure to load
        print(f"evals explore: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print(
        f"exploring {args.generator} on {args.sut}: seed {args.seed}, {args.minutes:g} min",
        flush=True,
    )
    found = explore(
        generator,
        sut,
        seed=args.seed,
        time_limit_s=args.minutes * 60,
        max_examples=args.max_examples,
        max_rounds=args.rounds,
        strategies=strategies,
        report=lambda line: print(line, flush=True),
        expect_defaults=load_config().expect_defaults,
    )
    print(
        f"{found.examples} combinations run ({found.invalid} not valid cases) in "
        f"{found.seconds:.0f} s, stopped by {found.stopped_by} ({found.empty_rounds} round(s)"
        " found nothing new): "
        f"{len(found.findings)} disagreement class(es)"
    )
    for number, finding in enumerate(found.findings, 1):
        print(f"case {number}: {finding.case_line()}")
    return 1 if found.findings else 0


if __name__ == "__main__":
    sys.exit(main())
