"""An evaluation system for agents: cases, lint, runner, checks, metrics, reports, gate, CLI.

The narrow public surface most users need is re-exported here — ``evaluate`` (cases on a
system under test, graded: a :class:`Report`), which is ``plan`` (a validated
:class:`Plan`) then ``execute``, and ``gate`` (a report against a baseline: a verdict);
graders live in :mod:`evals.checks`, the command line in :mod:`evals.cli.main` (``evals`` /
``python -m evals``), a thin layer over the same functions.
"""

from evals.cases.loader import load_cases
from evals.cases.vocabulary import CaseRules
from evals.evaluation import Plan, Report, evaluate, execute, gate, make_baseline, plan
from evals.execution.runner import Runner, RunnerResults, select_cases
from evals.metrics.summary import Metrics, compute
from evals.model.case import Case
from evals.model.result import CheckResult, RunResult
from evals.model.run import Run
from evals.model.sut import SUT, AsyncSUT, load_sut

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
