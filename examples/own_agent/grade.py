"""Grade the FAQ agent with evals: its own cases, one custom check, a report, a gate.

python grade.py    # prints the report and the verdict; exit 0 PASS, 1 FAIL
"""

from pathlib import Path

import evals
from evals.checks import Case, Run, Step, check, dispatched, outcome_matches
from faq_agent import FaqAgent

HERE = Path(__file__).parent


@check(kind="outcome", expect_keys=("contains",))
def contains(case: Case, run: Run) -> tuple[bool, str] | None:
    """The answer holds the text ``expect.contains`` names (not applicable without it)."""
    wanted = (case.expect.model_extra or {}).get("contains")
    return None if wanted is None else (wanted in (run.reply or ""), f"no {wanted!r} in answer")


def evaluate(agent: FaqAgent) -> evals.Report:
    """Run every case on the agent, graded by the checks chosen here."""

    def task(case: Case, trial: int) -> Run:  # one trial of one case: each tool call a step
        r = agent.answer(case.input["question"])
        steps = [Step(role=call, status="ok") for call in r.tool_calls]
        return Run(case_id=case.id, trial=trial, outcome=r.status, reply=r.text, steps=steps)

    return evals.evaluate(
        HERE / "cases.jsonl", task, checks=[contains, outcome_matches, dispatched]
    )


def main(agent: FaqAgent | None = None) -> int:
    """Print the report and the verdict against the committed baseline."""
    report = evaluate(agent or FaqAgent())
    report.print()
    verdict = evals.gate(report, HERE / "baseline.json")
    print(verdict.render())
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
