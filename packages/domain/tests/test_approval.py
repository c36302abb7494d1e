"""The approval gate: approver, auto-approval limit, fail closed."""

from __future__ import annotations

import pytest
from domain import ApprovalGate, Approver, Proposal, build_world
from pydantic import ValidationError


def _proposal(amount: float = 59.0) -> Proposal:
    return Proposal(trace_id="t", action="reissue", order_id="A1001", amount=amount, summary="补发")


@pytest.mark.parametrize("amount", ["59", "59.00", None, b"59"])
def test_a_proposal_takes_no_amount_as_text(amount: object) -> None:
    """Strict: an amount parsed to text instead of a number (held-out mutant of session 16,
    ``parse_amount`` returning ``body.replace(",", "")``) is refused, not coerced."""
    with pytest.raises(ValidationError, match="amount"):
        _proposal(amount)  # type: ignore[arg-type]


@pytest.mark.parametrize("amount", [59, 59.0, 0])
def test_a_proposal_takes_an_amount_as_a_number(amount: float) -> None:
    assert _proposal(amount).amount == amount


def _raises(_: Proposal) -> bool:
    raise RuntimeError("approver down")


@pytest.mark.parametrize(
    ("approver", "limit", "amount", "expected"),
    [
        (lambda p: True, None, 59.0, ("approved", "approver", True)),
        (lambda p: False, None, 59.0, ("rejected", "approver", True)),
        (lambda p: False, 100.0, 59.0, ("approved", "auto", False)),
        (lambda p: True, 50.0, 59.0, ("approved", "approver", True)),
        (lambda p: False, 59.0, 59.0, ("rejected", "approver", True)),
        (None, None, 59.0, ("rejected", "fail_closed", False)),
        (None, 50.0, 59.0, ("rejected", "fail_closed", False)),
        (_raises, None, 59.0, ("rejected", "fail_closed", True)),
        # Silent: no answer in time is nobody deciding, not a human "no".
        (lambda p: None, None, 59.0, ("rejected", "fail_closed", True)),
        (lambda p: None, 50.0, 59.0, ("rejected", "fail_closed", True)),
        (None, 60.0, 59.0, ("approved", "auto", False)),
        (lambda p: False, 0.0, 0.0, ("rejected", "approver", True)),
    ],
)
def test_gate_decisions(
    approver: Approver | None,
    limit: float | None,
    amount: float,
    expected: tuple[str, str, bool],
) -> None:
    status, decided_by, asked = expected
    store = build_world()
    calls: list[Proposal] = []

    def recording(p: Proposal) -> bool:
        calls.append(p)
        assert approver is not None
        return approver(p)

    gate = ApprovalGate(store, recording if approver else None, auto_approve_below=limit)
    approval = gate.decide(_proposal(amount))
    assert (approval.status, approval.decided_by) == (status, decided_by)
    assert bool(calls) == asked
    assert approval.auto_approve_below == limit
    assert store.get_approval(approval.id) == approval


def test_default_gate_always_asks_the_approver() -> None:
    asked: list[float] = []
    gate = ApprovalGate(build_world(), lambda p: asked.append(p.amount) is None)
    gate.decide(_proposal(0.0))
    assert asked == [0.0]
