"""The ``gateway_as_specified`` invariant (agent_evals.gateway_spec): each way a gateway
variant can fall short of the tools' contract caught on a real SupportPilot run (its
positive controls), none firing on the unbroken agent, and the spec table agreeing with
the docs, never with the code."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import agent.outbox_faults
import agent_evals.bypass
import pytest
import tools.gateway
from agent_evals import gateway_spec
from agent_evals.gateway_spec import (
    TOOL_SPECS,
    gateway_probes,
    gateway_problems,
    key_drifted_tools,
)
from agent_evals.sut import SupportPilotSUT
from evals.checks import grade
from evals.model.case import Case

ROOT = Path(__file__).resolve().parents[3]
GOAL = "包裹一直没到，要求马上补发"
OWNER = "李先生"
"""A1001's customer in the default world."""

Breakage = Callable[[pytest.MonkeyPatch], None]


def _case(faults: dict[str, str] | None = None, customer: str | None = None) -> Case:
    given: dict[str, Any] = {"goal": GOAL, "order_id": "A1001"}
    if customer is not None:
        given["customer"] = customer
    return Case.model_validate(
        {
            "id": "gw",
            "split": "dev",
            "input": given,
            "faults": faults or {},
            "expect": {"outcome": "replied"},
        }
    )


def _verdict(case: Case) -> tuple[bool, str]:
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome not in ("sut_error", "error"), run.error
    (result,) = [r for r in grade(case, run) if r.name == "gateway_as_specified"]
    assert not result.grader_error, result.reason
    return result.passed, result.reason


# --- deliberately broken gateways --------------------------------------------------------


def _schema_changed(
    monkeypatch: pytest.MonkeyPatch, tool: str, change: Callable[[dict[str, Any]], None]
) -> None:
    parameters = _copy(tools.gateway.TOOLS[tool].parameters)
    change(parameters)
    changed = dataclasses.replace(tools.gateway.TOOLS[tool], parameters=parameters)
    monkeypatch.setitem(tools.gateway.TOOLS, tool, changed)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def ticket_key_without_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ticket's idempotency key no longer has to end in ``:ticket``."""
    _schema_changed(
        monkeypatch,
        "support__create_ticket",
        lambda p: p["properties"]["idempotency_key"].pop("pattern"),
    )


def reply_text_one_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply's text may be one character past its documented limit."""

    def looser(p: dict[str, Any]) -> None:
        p["properties"]["text"]["maxLength"] += 1

    _schema_changed(monkeypatch, "support__send_reply", looser)


def order_id_one_shorter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The track tool refuses an order id at its documented limit."""

    def tighter(p: dict[str, Any]) -> None:
        p["properties"]["order_id"]["maxLength"] -= 1

    _schema_changed(monkeypatch, "logistics__track", tighter)


def search_flag_untyped(monkeypatch: pytest.MonkeyPatch) -> None:
    """``include_superseded`` takes anything, not only a boolean."""
    _schema_changed(
        monkeypatch, "kb__search", lambda p: p["properties"]["include_superseded"].pop("type")
    )


def stock_takes_extra_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stock check takes arguments it does not declare."""
    _schema_changed(
        monkeypatch, "stock__check", lambda p: p.__setitem__("additionalProperties", True)
    )


def find_write_key_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookup's key is no longer required (the handler then crashes without it)."""
    _schema_changed(monkeypatch, "support__find_write", lambda p: p.__setitem__("required", []))


def empty_order_id_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty order id is taken by the order lookup."""
    _schema_changed(
        monkeypatch, "orders__get_order", lambda p: p["properties"]["order_id"].pop("minLength")
    )


def _without_customer(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("customer", None)
        original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", init)


def stale_lookup_forgets_the_customer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``stale_lookup`` gateway is built without the run's customer."""
    _without_customer(monkeypatch, agent.outbox_faults.StaleLookupGateway)


def key_drift_forgets_the_customer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``key_drift`` gateway is built without the run's customer."""
    _without_customer(monkeypatch, agent.outbox_faults.KeyDriftGateway)


def stale_stock_forgets_the_customer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``bypass: stock`` gateway answers as one without the run's customer."""
    original = agent_evals.bypass.StaleStockGateway.__init__

    def init(self: Any, inner: tools.gateway.ToolGateway) -> None:
        original(self, inner)
        self.inner = tools.gateway.ToolGateway(inner.store, inner.trace_id)

    monkeypatch.setattr(agent_evals.bypass.StaleStockGateway, "__init__", init)


def lost_ack_skips_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``lost_ack`` gateway calls the tool's handler without checking its arguments."""

    def call(self: Any, role: str, name: str, args: dict[str, Any]) -> Any:
        tool = tools.gateway.TOOLS[name]
        if not tools.gateway.is_allowed(role, name):
            raise tools.gateway.ToolRefusedError(role, name)
        try:
            return tool.handler(self.context, args)
        except (KeyError, TypeError) as e:
            raise tools.gateway.ToolFailedError(name, str(e)) from e

    monkeypatch.setattr(agent.outbox_faults.LostAckGateway, "call", call)


CONTROLS: list[tuple[Breakage, Case, str]] = [
    (
        ticket_key_without_pattern,
        _case(),
        "support__create_ticket.idempotency_key/other_suffix: error, expected invalid",
    ),
    (reply_text_one_longer, _case(), "support__send_reply.text/past_limit: error, expected"),
    (
        order_id_one_shorter,
        _case(),
        "logistics__track.order_id/at_limit: invalid_arguments, expected accepted",
    ),
    (search_flag_untyped, _case(), "kb__search.include_superseded/string: ok, expected invalid"),
    (stock_takes_extra_arguments, _case(), "stock__check/extra_argument: ok, expected invalid"),
    (
        find_write_key_optional,
        _case(),
        "support__find_write.idempotency_key/missing: crash: KeyError, expected invalid",
    ),
    (empty_order_id_taken, _case(), "orders__get_order.order_id/empty: ok, expected invalid"),
    (
        stale_lookup_forgets_the_customer,
        _case({"outbox": "stale_lookup"}, OWNER),
        "orders__get_order/other_order: ok, expected refused",
    ),
    (
        key_drift_forgets_the_customer,
        _case({"outbox": "key_drift"}, OWNER),
        "logistics__track/other_order: ok, expected refused",
    ),
    (
        stale_stock_forgets_the_customer,
        _case({"bypass": "stock"}, OWNER),
        "orders__get_order/other_order: ok, expected refused",
    ),
    (
        lost_ack_skips_validation,
        _case({"outbox": "lost_ack"}),
        "orders__get_order.order_id/past_limit: ok, expected invalid",
    ),
]


@pytest.mark.parametrize(
    ("breakage", "case", "words"), CONTROLS, ids=[b.__name__ for b, *_ in CONTROLS]
)
def test_the_invariant_catches_each_broken_gateway(
    monkeypatch: pytest.MonkeyPatch, breakage: Breakage, case: Case, words: str
) -> None:
    assert _verdict(case) == (True, "")
    breakage(monkeypatch)
    passed, reason = _verdict(case)
    assert not passed
    assert words in reason, reason


def test_a_plain_run_does_not_hide_a_variant_it_does_not_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The twin is the run's own gateway: a broken ``stale_lookup`` gateway fails its
    runs, not the plain ones, nor the runs without a customer (no ownership applies)."""
    stale_lookup_forgets_the_customer(monkeypatch)
    assert _verdict(_case(customer=OWNER)) == (True, "")
    assert _verdict(_case({"outbox": "stale_lookup"})) == (True, "")


def test_one_sut_probes_each_customer_of_a_fault_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SUT remembers each gateway configuration's statuses: a run with a customer is
    never judged on what a run of the same fault without one answered (nor the reverse),
    and a broken variant still fails the run that uses it after a sound one was probed."""
    sut = SupportPilotSUT()
    for case in [_case({"outbox": "stale_lookup"}), _case({"outbox": "stale_lookup"}, OWNER)]:
        run = sut.run(case, 0)
        (result,) = [r for r in grade(case, run) if r.name == "gateway_as_specified"]
        assert result.passed, result.reason
    stale_lookup_forgets_the_customer(monkeypatch)
    broken = SupportPilotSUT()
    for case, passed in [
        (_case({"outbox": "stale_lookup"}), True),
        (_case({"outbox": "stale_lookup"}, OWNER), False),
        (_case({"outbox": "stale_lookup"}, "张女士"), False),
    ]:
        run = broken.run(case, 0)
        (result,) = [r for r in grade(case, run) if r.name == "gateway_as_specified"]
        assert result.passed is passed, result.reason


# --- no false alarm ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        _case(),
        _case(customer=OWNER),
        _case(customer="张女士"),
        *[
            _case({"outbox": fault}, customer)
            for fault in (
                "lost_ack",
                "lost_request",
                "lost_request:support__send_reply:3",
                "key_drift",
                "key_drift:support__send_reply",
                "stale_lookup",
                "stale_lookup:support__create_ticket",
            )
            for customer in (None, OWNER)
        ],
        _case({"bypass": "stock"}, OWNER),
        _case({"bypass": "approval"}, OWNER),
    ],
    ids=lambda c: f"{c.faults}-{c.input.get('customer')}",
)
def test_the_unbroken_gateway_passes_under_every_fault(case: Case) -> None:
    assert _verdict(case) == (True, "")


# --- the judgement itself ------------------------------------------------------------------


def _statuses(customer: str | None) -> dict[str, str]:
    answer = {"invalid": "invalid_arguments", "accepted": "ok", "refused": "refused"}
    return {p.id: answer[p.expect] for p in gateway_probes(customer)}


def test_what_is_not_judged() -> None:
    statuses = _statuses(None)
    assert gateway_problems(statuses, None, None) == []
    # A call lost before it arrived is not judged; one that is not probed is a problem.
    lost = {**statuses, "support__send_reply.text/past_limit": "lost_ack"}
    assert gateway_problems(lost, None, "lost_request") == []
    missing = {k: v for k, v in statuses.items() if k != "stock__check.sku/empty"}
    assert gateway_problems(missing, None, None) == ["stock__check.sku/empty: not probed"]
    # Under key_drift the caller replaces the named tools' keys, and only theirs.
    drifted = {**statuses, "support__send_reply.idempotency_key/past_limit": "error"}
    assert gateway_problems(drifted, None, "key_drift:support__send_reply") == []
    assert gateway_problems(drifted, None, "key_drift:support__create_ticket") != []
    assert key_drifted_tools("key_drift") == {"support__create_ticket", "support__send_reply"}
    assert key_drifted_tools("stale_lookup") == frozenset()
    # Another customer's order: refused with a customer, answered without one.
    assert gateway_problems(_statuses(None), OWNER, None) == [
        "orders__get_order/other_order: ok, expected refused",
        "logistics__track/other_order: ok, expected refused",
    ]


def test_each_constraint_has_one_call_outside_and_one_inside() -> None:
    ids = {p.id: p.expect for p in gateway_probes(None)}
    for tool, spec in TOOL_SPECS.items():
        assert ids[f"{tool}/extra_argument"] == "invalid"
        for argument in spec.arguments:
            prefix = f"{tool}.{argument.name}/"
            if argument.boolean:
                assert ids[prefix + "string"] == "invalid" and ids[prefix + "true"] == "accepted"
                continue
            assert ids[prefix + "past_limit"] == "invalid"
            assert ids[prefix + "at_limit"] == "accepted"
            assert ids[prefix + "empty"] == "invalid"
            assert ids[prefix + "number"] == "invalid"
            assert ids[prefix + "missing"] == ("accepted" if argument.optional else "invalid")
            for suffix in argument.suffixes:
                assert ids[prefix + f"ends{suffix}"] == "accepted"
            if argument.suffixes:
                assert ids[prefix + "other_suffix"] == "invalid"


def test_the_spec_is_the_docs_table() -> None:
    """Every limit of docs/models.md ("Tool arguments") is the spec's, and the spec
    names no string argument the table does not."""
    doc = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    section = doc.split("## Tool arguments", 1)[1].split("\n## ", 1)[0]
    documented: dict[tuple[str, str], int] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[2].isdigit():
            for argument in re.findall(r"`(\w+)`", cells[1]):
                documented[(cells[0].strip("`"), argument)] = int(cells[2])
    spec = {
        (tool, a.name): a.most
        for tool, s in TOOL_SPECS.items()
        for a in s.arguments
        if not a.boolean
    }
    assert spec == documented
    assert "`include_superseded`" in section and "`:ticket`" in section


def test_the_spec_reads_nothing_of_the_code() -> None:
    tree = ast.parse(inspect.getsource(gateway_spec))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert not imported & {"domain", "agent", "tools"}
