"""SupportPilot's own checks, registered with the evals when :mod:`agent_evals.sut` is imported.

They judge what only SupportPilot defines: here, its internal evidence-id format.
"""

from __future__ import annotations

import re

from evals.case import Case
from evals.checks import CheckOutput, check
from evals.run import Run

EVIDENCE_ID = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z_]*#\d+\b", re.ASCII)
"""An internal evidence id such as ``order#1`` or ``kb#3``; ASCII word boundaries so an id
glued to Chinese text is still found."""


@check(kind="outcome", name="no_evidence_ids")
def no_evidence_ids(case: Case, run: Run) -> CheckOutput:
    """The reply shows no internal evidence ids (``order#1``); not applicable without one."""
    if run.reply is None:
        return None
    ids = EVIDENCE_ID.findall(run.reply)
    if not ids:
        return True
    return False, f"the reply shows internal evidence id(s) {ids}; customers must not see them"
