"""Grade the refund desk with evals: the record built from its database, the built-in
checks (approvals, writes, effects), a report and a gate.

python grade.py    # prints the report and the verdict; exit 0 PASS, 1 FAIL
"""

from collections.abc import Callable
from pathlib import Path

import evals
from evals.checks import ApprovalRecord, Case, Run, Step, Write
from evals.gating.rules import GateConfig
from refund_agent import LIMIT, RefundAgent, open_shop

HERE = Path(__file__).parent


class RefundSUT:
    """One trial of one case: a fresh shop and approver from the case's world; the
    limit recorded is the shop's policy, whatever the agent believes."""

    def __init__(self, make: Callable[..., RefundAgent] = RefundAgent) -> None:
        self.make = make

    def run(self, case: Case, trial: int) -> Run:
        """Ask the desk for the case's refund; read what happened from its database."""
        db = open_shop(case.world.get("orders", {}))
        agent = self.make(db, lambda order, amount: bool(case.world.get("approve")))
        a = agent.handle(case.input["order_id"])
        key = f"{case.id}#{trial}:refund"  # the approval's id, and the write's key
        rows = {o: (paid, done) for o, paid, done in db.execute("SELECT * FROM orders")}
        at_stake = rows.get(case.input["order_id"], (None, 0))[0]  # the database's amount
        approvals = [
            ApprovalRecord(action="refund", amount=a.amount, expected_amount=at_stake,
                           decided_by=a.decided_by, approved=a.approved, limit=LIMIT,
                           approval_id=key)
        ] if a.decided_by else []  # fmt: skip
        writes = [Write(kind="refund", idempotency_key=key, approval_id=key, approved=True)]
        return Run(
            case_id=case.id, trial=trial, outcome=a.status, reply=a.text,
            steps=[Step(role=call, status="ok") for call in a.calls],
            writes=writes if any(done for _, done in rows.values()) else [],
            approvals=approvals,
            ground_truth={f"refunded.{o}": str(done) for o, (_, done) in rows.items()},
        )  # fmt: skip


def main(make: Callable[..., RefundAgent] = RefundAgent) -> int:
    """Print the report and the verdict against the committed baseline."""
    report = evals.evaluate(HERE / "cases.jsonl", RefundSUT(make), progress=False)
    report.print()
    verdict = evals.gate(report, HERE / "baseline.json", GateConfig())  # the built-in rules
    print(verdict.render())
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
