"""``SupportPilotSUT.check_case``: world and fault mistakes found before any run, in one
line each; and run-time errors recorded without pydantic's URL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_evals.sut import SupportPilotSUT
from evals.cases.loader import load_cases_with_sources
from evals.cases.validation import check_cases
from evals.model.case import Case
from pydantic import BaseModel, ValidationError

from .conftest import EXPECT_DEFAULTS, MODEL_PATH, default_suites, load_cases, scripted_sut

WORLD_KEYS = (
    "orders, logistics, kb, stock, approve, approver, auto_approve_below, policies, tool_errors,"
    " table_errors, denied_tables"
)
READ_TOOLS = "orders__get_order, logistics__track, kb__search, stock__check"
ROLES = "order_agent, logistics_agent, policy_agent, reply_agent; outbox; screen; bypass; or model"
OUTBOX_FAULTS = (
    "lost_ack, lost_ack:<write tool>, lost_ack:<write tool>:<n>, lost_request,"
    " lost_request:<write tool>, lost_request:<write tool>:<n>, key_drift,"
    " key_drift:<write tool>, stale_lookup, stale_lookup:<write tool>"
    " (n: 1-9; write tools: support__create_ticket, support__send_reply)"
)


def _case(
    world: dict[str, Any] | None = None,
    faults: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Case:
    return Case.model_validate(
        {
            "id": "x1",
            "split": "dev",
            "input": {"goal": "包裹一直没到，要求马上补发", "order_id": "A1001", **(extra or {})},
            "world": world or {},
            "faults": faults or {},
            "expect": {"outcome": "replied"},
        }
    )


@pytest.mark.parametrize(
    ("world", "faults", "problems"),
    [
        ({}, {}, []),
        ({"approve": False, "auto_approve_below": 50, "kb": "empty"}, {"order_agent": "crash"}, []),
        (
            {"stok": {"SKU-TEE-01": 0}},
            {},
            [f"world.stok: unknown key 'stok' (known: {WORLD_KEYS})"],
        ),
        ({"kb": "full"}, {}, ["world.kb: expected 'default' or 'empty', got 'full'"]),
        (
            {"orders": {"A1": {"paid": "lots"}}},
            {},
            ["world.orders.A1.paid: expected a number, got 'lots'"],
        ),
        ({"stock": {"SKU-TEE-01": -2}}, {}, ["world.stock.SKU-TEE-01: must be >= 0, got -2"]),
        (
            {
                "tool_errors": {"logistics__track": "接口超时"},
                "policies": [{"title": "t", "body": "b"}],
            },
            {},
            [],
        ),
        (
            {"tool_errors": {"logistics__trak": "接口超时"}},
            {},
            [
                "world.tool_errors.logistics__trak: unknown read tool 'logistics__trak'"
                f" (known: {READ_TOOLS})"
            ],
        ),
        (
            {"tool_errors": {"support__create_ticket": "x"}},
            {},
            [
                "world.tool_errors.support__create_ticket: unknown read tool"
                f" 'support__create_ticket' (known: {READ_TOOLS})"
            ],
        ),
        (
            {"policies": [{"title": "补充说明"}]},
            {},
            ["world.policies.0.body: missing required field"],
        ),
        (
            {"policies": [{"title": "t", "body": "b", "author": "x"}]},
            {},
            [
                "world.policies.0.author: unknown key 'author' (known: title, body, keywords,"
                " version, effective_date, superseded)"
            ],
        ),
        (
            {"tool_errors": {"kb__search": ""}},
            {},
            ["world.tool_errors.kb__search: must not be empty, got ''"],
        ),
        (
            {},
            {"ordr_agent": "crash"},
            [f"faults.ordr_agent: unknown role 'ordr_agent' (known: {ROLES})"],
        ),
        (
            {"approver": "silent", "auto_approve_below": 100},
            {"outbox": "lost_ack", "order_agent": "amount_format:symbol"},
            [],
        ),
        ({}, {"outbox": "lost_ack:support__send_reply"}, []),
        (
            {},
            {"outbox": "lost_ack:kb__search"},
            [
                "faults.outbox: unknown fault 'lost_ack:kb__search': "
                f"expected one of {OUTBOX_FAULTS}"
            ],
        ),
        (
            {},
            {"outbox": "crash"},
            [f"faults.outbox: unknown fault 'crash': expected one of {OUTBOX_FAULTS}"],
        ),
        (
            {},
            {"order_agent": "amount_format:roman"},
            [
                "faults.order_agent: unknown fault 'amount_format:roman': amount_format:<style>"
                " needs one of symbol, yuan, grouped, words, fullwidth, rmb, cny, rmb_after,"
                " cny_after, yuan_before, two_after, padded, got 'roman'"
            ],
        ),
        (
            {"kb": "full"},
            {"billing_agent": "timeout", "policy_agent": "inject"},
            [
                "world.kb: expected 'default' or 'empty', got 'full'",
                f"faults.billing_agent: unknown role 'billing_agent' (known: {ROLES})",
            ],
        ),
    ],
)
def test_check_case_names_each_mistake_on_one_line(
    world: dict[str, Any], faults: dict[str, str], problems: list[str]
) -> None:
    assert SupportPilotSUT().check_case(_case(world, faults)) == problems


@pytest.mark.parametrize(
    ("faults", "extra", "problems"),
    [
        ({"reply_agent": "write_attempt:support__send_reply"}, {"customer": "李先生"}, []),
        ({}, {"customer": None}, []),
        (
            {"order_agent": "write_attempt:kb__search"},
            {},
            [
                "faults.order_agent: unknown fault 'write_attempt:kb__search': 'kb__search' is "
                "not a write tool (write tools: support__create_ticket, support__send_reply)"
            ],
        ),
        (
            {},
            {"customer": " "},
            [
                "input.customer: expected the authenticated customer's name (a non-empty "
                "string), got ' '"
            ],
        ),
        (
            {},
            {"customer": 7},
            [
                "input.customer: expected the authenticated customer's name (a non-empty "
                "string), got 7"
            ],
        ),
    ],
)
def test_check_case_refuses_bad_write_attempts_and_customers(
    faults: dict[str, str], extra: dict[str, Any], problems: list[str]
) -> None:
    assert SupportPilotSUT().check_case(_case(faults=faults, extra=extra)) == problems


def test_a_blank_customer_at_run_time_is_a_sut_error_not_an_open_door() -> None:
    run = SupportPilotSUT().run(_case(extra={"customer": ""}), 0)
    assert run.outcome == "sut_error"
    assert run.writes == []


def test_every_committed_case_can_run() -> None:
    sut = SupportPilotSUT()
    # Configuration cases are built, never run; some must be refused (the settings suite).
    cases = [
        case
        for case in load_cases(default_suites())
        if case.expect.refused is None and case.expect.described is None
    ]
    assert len(cases) > 500
    assert {case.id: sut.check_case(case) for case in cases} == {case.id: [] for case in cases}
    scripted = scripted_sut()
    model = load_cases((MODEL_PATH,))
    assert {case.id: scripted.check_case(case) for case in model} == {c.id: [] for c in model}


def test_check_case_writes_no_database_file(tmp_path: Path) -> None:
    SupportPilotSUT(db_dir=tmp_path).check_case(_case({"kb": "empty"}))
    assert list(tmp_path.iterdir()) == []


def test_the_evals_hook_locates_problems_at_the_case_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    good, bad = _case(), _case({"stok": 1}, {"ordr_agent": "crash"})
    bad = bad.model_copy(update={"id": "x2"})
    path.write_text(
        "\n".join(json.dumps(c.model_dump(mode="json"), ensure_ascii=False) for c in (good, bad)),
        encoding="utf-8",
    )
    cases, sources = load_cases_with_sources([path], expect_defaults=EXPECT_DEFAULTS)
    assert [p.render() for p in check_cases(SupportPilotSUT(), cases, sources)] == [
        f"{path}:2: world.stok: unknown key 'stok' (known: {WORLD_KEYS})",
        f"{path}:2: faults.ordr_agent: unknown role 'ordr_agent' (known: {ROLES})",
    ]


def test_a_bad_world_at_run_time_is_one_short_line() -> None:
    """Bug found by a newcomer: the sut_error ended in pydantic's URL, over many lines."""
    run = SupportPilotSUT().run(_case({"orders": {"A1": {"paid": "lots"}}}), 0)
    assert run.outcome == "sut_error"
    assert run.error == (
        "InvalidWorldError: invalid world override: "
        "world.orders.A1.paid: expected a number, got 'lots'"
    )


def test_any_pydantic_error_at_run_time_loses_its_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.orchestrator import Orchestrator

    class Claim(BaseModel):
        confidence: float

    async def invalid(self: Orchestrator, order_id: str | None, goal: str) -> None:
        Claim.model_validate({"confidence": "high"})

    monkeypatch.setattr(Orchestrator, "handle", invalid)
    with pytest.raises(ValidationError) as raised:
        Claim.model_validate({"confidence": "high"})
    assert "errors.pydantic.dev" in str(raised.value)  # what would have leaked
    run = SupportPilotSUT().run(_case(), 0)
    assert run.outcome == "sut_error" and run.error is not None
    assert run.error.startswith("ValidationError: 1 validation error for Claim; confidence; ")
    assert "pydantic.dev" not in run.error and "\n" not in run.error
