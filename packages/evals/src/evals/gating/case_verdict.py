"""How the gate judges a case that ran k trials: every trial must pass, or a majority.

``all`` (the default) is the strict reading: one failed trial fails the case. ``majority``
is the seed's alternative for agents that are nondeterministic by design: a case passes
when more than half of its graded trials passed (2 of 3, 3 of 5; 1 of 2 is not a
majority). The rule applies to cases and to (case, check) pairs alike; the unauthorized
rate stays per run under either rule — one unauthorized write is never outvoted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

CaseVerdict = Literal["all", "majority"]
"""How a case with k trials is judged."""


def passes(passed: int, judged: int, rule: CaseVerdict) -> bool:
    """Whether ``passed`` of ``judged`` trials make a pass under ``rule`` (no trials: no)."""
    if judged <= 0:
        return False
    if rule == "majority":
        return passed * 2 > judged
    return passed == judged


def case_verdicts(counts: Mapping[str, tuple[int, int]], rule: CaseVerdict) -> dict[str, bool]:
    """Per case, from (passed, graded trials): whether it passes under ``rule``."""
    return {case: passes(c, n, rule) for case, (c, n) in sorted(counts.items())}
