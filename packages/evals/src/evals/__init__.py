"""An evaluation system for agents: cases, lint, runner, checks, metrics, reports, gate, CLI.

The narrow public surface most users need is re-exported here — ``evaluate`` (cases on a
system under test, graded: a :class:`Report`), which is ``plan`` (a validated
:class:`Plan`) then ``execute``, and ``gate`` (a report against a baseline: a verdict);
graders live in :mod:`evals.checks`, the command line in :mod:`evals.cli` (``evals`` /
``python -m evals``), a thin layer over the same functions.
"""

from evals.case import Case
from evals.evaluation import Plan, Report, evaluate, execute, gate, make_baseline, plan
from evals.loader import load_cases
from evals.metrics import Metrics, compute
from evals.result import CheckResult, RunResult
from evals.run import Run
from evals.runner import Runner, RunnerResults, select_cases
from evals.sut import SUT, AsyncSUT, load_sut
from evals.vocabulary import CaseRules

__all__ = [
    "SUT",
    "AsyncSUT",
    "Case",
    "CaseRules",
    "CheckResult",
    "Metrics",
    "Plan",
    "Report",
    "Run",
    "RunResult",
    "Runner",
    "RunnerResults",
    "compute",
    "evaluate",
    "execute",
    "gate",
    "load_cases",
    "load_sut",
    "make_baseline",
    "plan",
    "select_cases",
]
