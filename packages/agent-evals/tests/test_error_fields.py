"""The fields an error text names, read by their place (agent_evals.error_fields), and the
``errors_match_their_records`` invariant on runs built by hand: the swapped texts of the
held-out mutants fail, the same fields in other words pass."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_evals import error_fields
from agent_evals.error_fields import argument_path_problems, label_problems, leading_subject
from agent_evals.invariants import AuditCall, audit_field_problems, errors_match_their_records
from evals.model.case import Case
from evals.model.run import Run

ROLE, TOOL = "order_agent", "kb__search"


def _audit(reason: str, status: str = "refused", **given: Any) -> AuditCall:
    return AuditCall(
        role=given.pop("role", ROLE),
        tool=given.pop("tool", TOOL),
        kind="read",
        allowed=status != "refused",
        status=status,
        reason=reason,
        args=json.dumps(given.pop("args", {}), ensure_ascii=False),
    )


@pytest.mark.parametrize(
    ("reason", "wrong"),
    [
        # The formats of docs/invariants.md, and rewordings with the fields in place.
        (f"refused: unauthorized: role {ROLE!r} may not call {TOOL!r}", False),
        (f"refused: unauthorized: {TOOL!r} may not be called by role {ROLE!r}", False),
        (f"refused: unauthorized: tool {TOOL!r} is outside role {ROLE!r}'s allowlist", False),
        (f"refused: role {ROLE!r} called unknown tool {TOOL!r}", False),
        (f"refused: unknown tool {TOOL!r} (called by role {ROLE!r})", False),
        # ToolRefusedError(name, role), UnknownToolError(name, role).
        (f"refused: unauthorized: role {TOOL!r} may not call {ROLE!r}", True),
        (f"refused: role {TOOL!r} called unknown tool {ROLE!r}", True),
        # The role where the tool belongs, though the role label is right.
        (f"refused: unauthorized: role {ROLE!r} may not call {ROLE!r}", True),
        # No tool at all.
        (f"refused: unauthorized: role {ROLE!r} may not call it", True),
    ],
)
def test_a_refusal_names_its_role_and_tool_in_their_places(reason: str, wrong: bool) -> None:
    assert bool(audit_field_problems([_audit(reason)], None, {})) is wrong


ORDER = {"order_id": "A1001"}
TICKET = {"order_id": "A1001", "sku": "SKU-TEE-01", "approval_id": "t-0:approval"}


@pytest.mark.parametrize(
    ("reason", "tool", "args", "customer", "wrong"),
    [
        (
            "refused: 'logistics__track': order 'A1001' does not belong to customer '张女士'",
            "logistics__track",
            ORDER,
            "张女士",
            False,
        ),
        # NotCustomersOrderError with the order and the customer swapped.
        (
            "refused: 'logistics__track': order '张女士' does not belong to customer 'A1001'",
            "logistics__track",
            ORDER,
            "张女士",
            True,
        ),
        # An order id as typed and as the store holds it are the same order.
        (
            "refused: 'logistics__track': order 'A1001' does not belong to customer '张女士'",
            "logistics__track",
            {"order_id": "a1001"},
            "张女士",
            False,
        ),
    ],
)
def test_an_ownership_refusal_names_the_calls_order_and_the_customer(
    reason: str, tool: str, args: dict[str, Any], customer: str, wrong: bool
) -> None:
    call = _audit(reason, tool=tool, args=args)
    assert bool(audit_field_problems([call], customer, {})) is wrong


CREATE = "support__create_ticket"


@pytest.mark.parametrize(
    ("reason", "wrong"),
    [
        (f"{CREATE!r} failed: ticket refused: approval 't-0:approval' is missing", False),
        (f"{CREATE!r} failed: sku 'SKU-TEE-01' is out of stock (available: 0)", False),
        (f"{CREATE!r}: acknowledgement lost; the write may have landed", False),
        # ApprovalRequiredError(approval_id, kind), OutOfStockError(0, sku).
        (f"{CREATE!r} failed: t-0:approval refused: approval 'ticket' is missing", True),
        (f"{CREATE!r} failed: sku 0 is out of stock (available: 'SKU-TEE-01')", True),
        # ToolFailedError(detail, tool).
        ("'ticket refused' failed: support__create_ticket", True),
    ],
)
def test_a_failure_names_its_own_calls_values(reason: str, wrong: bool) -> None:
    call = _audit(reason, status="error", tool=CREATE, role="orchestrator", args=TICKET)
    assert bool(audit_field_problems([call], None, {})) is wrong


def test_the_worlds_own_error_text_is_not_read() -> None:
    """A world's injected text may say anything, labels included: it is the case's."""
    text = "order 'Z9' of role 'nobody' failed"
    world = {"tool_errors": {"logistics__track": text}}
    call = _audit(f"'logistics__track' failed: {text}", status="error", tool="logistics__track")
    assert audit_field_problems([call], None, world) == []
    table = {"table_errors": {"orders": text}}
    broken = f"'orders__get_order' failed: table 'orders' failed: {text}"
    assert (
        audit_field_problems([_audit(broken, "error", tool="orders__get_order")], None, table) == []
    )
    # A table the world does not break, named by the store: another table's failure.
    wrong = f"'orders__get_order' failed: table 'stock' failed: {text}"
    assert audit_field_problems([_audit(wrong, "error", tool="orders__get_order")], None, table)


@pytest.mark.parametrize(
    ("tool", "args", "detail", "problems"),
    [
        ("stock__check", {"sku": "S" * 65}, "sku: 'SSS' is too long", 0),
        # The argument's path replaced by <root>: both directions are wrong.
        ("stock__check", {"sku": "S" * 65}, "<root>: 'SSS' is too long", 2),
        ("stock__check", {"sku": ""}, "sku: '' should be non-empty", 0),
        ("stock__check", {"sku": 5}, "sku: 5 is not of type 'string'", 0),
        ("orders__get_order", {}, "<root>: 'order_id' is a required property", 0),
        ("orders__get_order", {}, "order_id: 'order_id' is a required property", 1),
        (
            "orders__get_order",
            {"x": "1"},
            "<root>: 'order_id' is a required property; <root>: Additional properties are "
            "not allowed ('x' was unexpected)",
            0,
        ),
        ("kb__search", {"query": "q", "include_superseded": "true"}, "include_superseded: x", 0),
        ("kb__search", {"query": "q", "include_superseded": "true"}, "<root>: x", 2),
        ("support__find_write", {"idempotency_key": "k:refund"}, "idempotency_key: no", 0),
        ("support__find_write", [], "<root>: [] is not of type 'object'", 0),
        # A tool the spec does not know: not judged.
        ("orders__refund_order", {"a": 1}, "<root>: x", 0),
    ],
)
def test_an_argument_error_names_each_wrong_arguments_path(
    tool: str, args: object, detail: str, problems: int
) -> None:
    reason = f"invalid arguments for {tool!r}: {detail}"
    assert len(argument_path_problems(tool, args, reason)) == problems


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        (
            "'order_agent' gave no usable output: no final answer within 6 model calls",
            "order_agent",
        ),
        ("'no final answer within 6 model calls' gave no usable output: order_agent", "no final"),
        ("InjectedCrashError: injected fault 'crash': 'order_agent' brain crashed", None),
        ("InjectedCrashError: 'order_agent' brain crashed", "order_agent"),
        ("output does not match the claim schema: 'x'", None),
        ("no answer within 0.05s", None),
    ],
)
def test_what_a_failure_begins_with(text: str, lead: str | None) -> None:
    found = leading_subject(text)
    assert (found.value[: len(lead)] if found else None) == lead


def test_labels_name_the_fields_they_label() -> None:
    fields = {"fault": lambda v: v == "crash", "role": lambda v: v == ROLE}
    assert label_problems("injected fault 'crash': 'order_agent' brain crashed", fields) == []
    assert label_problems("injected fault 'order_agent': 'crash' brain crashed", fields) == [
        "names fault 'order_agent'"
    ]
    # A number or None where a labelled value belongs is read as that value.
    assert label_problems("role None failed", fields) == ["names role None"]
    # A value in double quotes (one holding a quote) is read as Python reads it.
    named = error_fields.named_values("""order "it's" not found""")
    assert [(n.label, n.value) for n in named] == [("order", "it's")]


def _run(bus: list[dict[str, Any]], audit: list[AuditCall], role_errors: dict[str, str]) -> Run:
    env = {"stock_after": {}, "orders": {}, "tickets": [], "replies": [], "approvals": []}
    return Run.model_validate(
        {
            "case_id": "t",
            "trial": 0,
            "outcome": "escalate",
            "role_errors": role_errors,
            "detail": {
                "environment": env,
                "bus": bus,
                "audit": [a.model_dump() for a in audit],
            },
        }
    )


def _result(role: str, status: str, error: str) -> dict[str, Any]:
    payload = {"role": role, "status": status, "error": error, "task_seq": 1}
    return {
        "seq": 2,
        "kind": "result",
        "sender": role,
        "recipient": "orchestrator",
        "status": "delivered",
        "payload": payload,
    }


CASE = Case.model_validate(
    {
        "id": "t",
        "split": "dev",
        "input": {"goal": "g", "order_id": "A1001"},
        "faults": {"order_agent": "crash"},
        "expect": {},
    }
)
REFUSAL = "refused: unauthorized: role 'logistics_agent' may not call 'support__create_ticket'"


@pytest.mark.parametrize(
    ("role", "status", "error", "wrong"),
    [
        (
            "order_agent",
            "error",
            "InjectedCrashError: injected fault 'crash': 'order_agent' brain crashed",
            False,
        ),
        # InjectedCrashError(fault, role).
        (
            "order_agent",
            "error",
            "InjectedCrashError: injected fault 'order_agent': 'crash' brain crashed",
            True,
        ),
        # Another role's name where its own belongs.
        ("order_agent", "error", "InjectedCrashError: 'policy_agent' brain crashed", True),
        ("logistics_agent", "refused", REFUSAL, False),
        # A refusal the audit log does not hold for the role (another one's, reworded).
        ("logistics_agent", "refused", REFUSAL.replace("may not", "must not"), True),
        ("order_agent", "invalid_output", "'order_agent' gave no usable output: x", False),
        ("order_agent", "invalid_output", "'x' gave no usable output: order_agent", True),
    ],
)
def test_a_specialists_failure_names_its_own_role_and_fault(
    role: str, status: str, error: str, wrong: bool
) -> None:
    audit = [
        _audit(REFUSAL, role="logistics_agent", tool="support__create_ticket"),
    ]
    run = _run([_result(role, status, error)], audit, {role: error})
    verdict = errors_match_their_records(CASE, run)
    assert (verdict is not True) is wrong, verdict


def test_an_argument_error_in_the_audit_log_is_read_for_its_paths() -> None:
    """The invariant reads an ``invalid_arguments`` row's paths, not only its tool."""
    given = {"sku": "S" * 65}
    root = _audit(
        "invalid arguments for 'stock__check': <root>: 'SSS' is too long",
        status="invalid_arguments",
        tool="stock__check",
        args=given,
    )
    path = _audit(
        "invalid arguments for 'stock__check': sku: 'SSS' is too long",
        status="invalid_arguments",
        tool="stock__check",
        args=given,
    )
    assert audit_field_problems([path], None, {}) == []
    assert "does not name the path 'sku'" in " ".join(audit_field_problems([root], None, {}))
