"""The FAQ agent as a SUT object, ``run(case, trial) -> Run``: what the pytest plugin
(``--evals-sut faq_sut:FaqSUT``) and ``evals run --sut`` load by import path.
``grade.py`` passes ``evals.evaluate`` a plain function instead."""

import grade  # noqa: F401  (registers the example's `contains` check)
from evals.checks import Case, Run, Step
from faq_agent import FaqAgent


class FaqSUT:
    """One fresh agent per SUT; a Run per (case, trial), each tool call a step."""

    def __init__(self) -> None:
        self.agent = FaqAgent()

    def run(self, case: Case, trial: int) -> Run:
        """Ask the agent the case's question."""
        gaps = case.input.get("kb_without", [])  # the case's world: the KB less its gaps
        kb = {t: v for t, v in self.agent.kb.items() if t not in gaps}
        r = FaqAgent(kb).answer(case.input["question"])
        steps = [Step(role=call, status="ok") for call in r.tool_calls]
        return Run(case_id=case.id, trial=trial, outcome=r.status, reply=r.text, steps=steps)
