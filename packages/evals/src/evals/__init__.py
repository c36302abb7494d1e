"""An evaluation system for agents: cases, lint, runner, checks, metrics, reports, gate, CLI.

The narrow public surface most users need is here — ``evaluate`` (cases on a system under
test, graded: a :class:`Report`), which is ``plan`` (a validated :class:`Plan`; how the
cases run is a :class:`RunOptions`) then ``execute``; ``gate`` (a report against a
baseline: a verdict) and ``make_baseline``; the records ``Case`` and ``Run``; the ``SUT``
protocols; ``CaseRules`` (a project's case vocabulary) and ``load_cases``. Graders live in
:mod:`evals.checks`; everything else is imported from the module that defines it (the
layout: docs/architecture.md). The command line is :mod:`evals.cli.main` (``evals`` /
``python -m evals``), a thin layer over the same functions.
"""

from evals.cases.loader import load_cases
from evals.cases.vocabulary import CaseRules
from evals.evaluation import Plan, Report, evaluate, execute, gate, make_baseline, plan
from evals.model.case import Case
from evals.model.options import RunOptions
from evals.model.run import Run
from evals.model.sut import SUT, AsyncSUT

__all__ = [
    "SUT",
    "AsyncSUT",
    "Case",
    "CaseRules",
    "Plan",
    "Report",
    "Run",
    "RunOptions",
    "evaluate",
    "execute",
    "gate",
    "load_cases",
    "make_baseline",
    "plan",
]
