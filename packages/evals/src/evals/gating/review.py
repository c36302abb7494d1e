"""``evals review``: the cases that passed every run of the last baselines.

A case that has never failed is either a guard doing its job (a regression case, a
must-pass safety case) or one that no longer tells changes apart. The seed reviews them
now and then: graduate a dev/test case into the regression split, rewrite it to be
harder, or retire it. This module only lists them; the decision is the reader's
(docs/cases.md, "A case's life").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.errors import BaselineError
from evals.gating.baseline import Baseline, load_baseline


@dataclass(frozen=True)
class Review:
    """What the baselines say about their cases."""

    baselines: tuple[Path, ...]
    """The baselines read, in the order given."""
    cases: int
    """Cases gated by every one of them."""
    always_passed: tuple[str, ...]
    """Of those, the cases that passed every run of every baseline, sorted."""
    not_in_all: int
    """Cases some baselines gate and others do not (left out: no full record)."""

    def render(self) -> str:
        """The console listing: one summary line, then one case per line."""
        head = (
            f"review: {len(self.always_passed):,} of {self.cases:,} case(s) passed every run"
            f" of {len(self.baselines)} baseline(s)"
        )
        if self.not_in_all:
            head += f"; {self.not_in_all:,} case(s) not in every baseline left out"
        return "\n".join([head, *(f"  {case}" for case in self.always_passed)])


def review(paths: Sequence[Path]) -> Review:
    """Read each baseline (:class:`BaselineError` naming the file when one is unusable)
    and list the cases that passed every run of all of them."""
    if not paths:
        raise ValueError("review needs at least one baseline file")
    baselines = [(path, load_baseline(path)) for path in paths]
    for path, baseline in baselines:
        _every_run(path, baseline)
    gated = [set(b.case_success) for _, b in baselines]
    common = set.intersection(*gated)
    passed = {c for c in common if all(b.case_success[c] for _, b in baselines)}
    return Review(
        baselines=tuple(paths),
        cases=len(common),
        always_passed=tuple(sorted(passed)),
        not_in_all=len(set.union(*gated) - common),
    )


def _every_run(path: Path, baseline: Baseline) -> None:
    """Refuse a baseline whose case verdict cannot say "passed every run"."""
    if baseline.case_verdict != "all" and baseline.trials > 1:
        raise BaselineError(
            path,
            f"case_verdict: {baseline.case_verdict!r} judged a case by most of its trials;"
            " it cannot say a case passed every run (make it with the 'all' rule)",
        )
