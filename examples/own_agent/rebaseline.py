"""Rewrite ``baseline.json`` on purpose, after a change you mean to keep (what
``nox -s baseline`` is for SupportPilot)::

    python rebaseline.py
"""

import evals
from evals.gating.baseline import write_baseline
from faq_agent import FaqAgent
from grade import HERE, evaluate

write_baseline(HERE / "baseline.json", evals.make_baseline(evaluate(FaqAgent())))
print(f"wrote {HERE / 'baseline.json'}")
