"""What changed between the baseline and now, check by check: the (case, check) pairs
whose verdict flipped, the checks the baseline judged that judge nothing now, and the
checks it never saw (only for cases both know)."""

from __future__ import annotations

from evals.gating.baseline import CheckTally
from evals.gating.case_verdict import CaseVerdict, passes
from evals.model.result import CheckKind


class CheckDiff:
    """The (case, check) pairs whose verdict changed between baseline and now, for the
    cases both know."""

    def __init__(
        self,
        old: dict[str, dict[str, CheckTally]],
        new: dict[str, dict[str, CheckTally]],
        rule: CaseVerdict = "all",
    ) -> None:
        def ok(t: CheckTally) -> bool:
            return passes(t.passed, t.judged, rule)

        self.newly_failing: dict[str, list[str]] = {}
        self.newly_passing: list[str] = []
        self.no_longer_judged: dict[str, list[str]] = {}
        """By kind: checks that passed every run in the baseline and judge none now."""
        self.not_in_baseline: list[str] = []
        for case in sorted(set(old) & set(new)):
            before, now = old[case], new[case]
            for name, tally in now.items():
                pair = f"{case}: {name}"
                was = before.get(name)
                if was is None:
                    self.not_in_baseline.append(pair)
                elif ok(was) and not ok(tally):
                    self.newly_failing.setdefault(tally.kind, []).append(pair)
                elif not ok(was) and ok(tally):
                    self.newly_passing.append(pair)
            for name, was in before.items():
                if name not in now and ok(was):
                    self.no_longer_judged.setdefault(was.kind, []).append(f"{case}: {name}")

    def cases_behind(self, kind: CheckKind) -> list[str]:
        """``case: check`` pairs of one kind that newly fail."""
        return self.newly_failing.get(kind, [])
