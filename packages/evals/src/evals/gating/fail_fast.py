"""Stop a gated evaluation as soon as its verdict can only be FAIL (``evals gate
--fail-fast``).

The one rule that decides alone and only ever grows is ``newly_failing``: a case the
baseline saw pass whose every trial has now run and whose verdict under the gate's
``case_verdict`` is a fail stays newly failing whatever the other runs do. Once more such
cases have finished than ``hard.newly_failing_cases_max`` allows, the gate fails, so the
runs still to come cannot change the verdict and need not run. Every other rule (rates,
soft findings, unauthorized runs) needs the whole evaluation and is not anticipated: a
change that only those rules catch runs to the end, as without the flag.

The rule is only a saving: the verdict is still reached from the runs that finished,
by the same rules (:func:`evals.gating.verdict.evaluate`), and a stop the finished runs do
not bear out is never a pass (``evals gate`` then says the evaluation was not judged).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from evals.gating.baseline import Baseline
from evals.gating.case_verdict import CaseVerdict, passes
from evals.gating.rules import GateConfig
from evals.model.result import RunResult

STOPPED_EARLY = "stopped early (--fail-fast)"
"""How a fail-fast stop's reason begins (the trace's ``stop_reason``)."""


@dataclass
class FailFast:
    """Watches graded runs as they finish; :meth:`__call__` says when to stop."""

    passing: frozenset[str]
    """The cases the baseline saw pass."""
    trials: int
    """Runs of each case."""
    rule: CaseVerdict
    """How a case with several trials is judged."""
    allowed: int
    """How many cases may newly fail before the gate fails."""
    excluded: frozenset[str] = frozenset()
    """Tags whose cases the gate leaves out."""
    failing: list[str] = field(default_factory=list)
    """The cases seen newly failing so far, in the order they finished."""
    _runs: dict[str, list[RunResult]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        baseline: Baseline,
        config: GateConfig,
        trials: int,
        exclude_tags: Collection[str] = (),
    ) -> FailFast:
        """The rule for gating an evaluation of ``trials`` trials against ``baseline``
        under ``config`` (its excluded tags and ``exclude_tags``)."""
        return cls(
            passing=frozenset(c for c, ok in baseline.case_success.items() if ok),
            trials=trials,
            rule=config.case_verdict,
            allowed=config.hard.newly_failing_cases_max,
            excluded=frozenset([*config.exclude_tags, *exclude_tags]),
        )

    def __call__(self, result: RunResult) -> str | None:
        """Take one finished run; the reason to stop once the verdict can only be FAIL."""
        case = result.case_id
        if case not in self.passing or self.excluded.intersection(result.tags):
            return None
        runs = self._runs.setdefault(case, [])
        runs.append(result)
        if len(runs) < self.trials:
            return None
        graded = [r for r in runs if not r.errored]
        if graded and not passes(sum(r.success for r in graded), len(graded), self.rule):
            self.failing.append(case)
        if len(self.failing) <= self.allowed:
            return None
        shown = ", ".join(self.failing[:5]) + (" …" if len(self.failing) > 5 else "")
        return (
            f"{STOPPED_EARLY}: {len(self.failing)} case(s) the baseline saw pass now fail"
            f" ({shown}), more than the {self.allowed} the gate allows"
        )
