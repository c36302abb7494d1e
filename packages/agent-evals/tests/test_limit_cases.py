"""The limits suite (cases/limits.jsonl): in sync with its generator, each case at exactly
the limit it names (measured on the real run's bus log, not on the generator's own
arithmetic), and its expectations failing on a SUT whose limit moved by one."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import agent.bus
import agent.faults
import agent.worker
import agent_evals.sut
import pytest
from agent.contracts import Claim
from agent.errors import UnknownFaultError
from agent.faults import parse_fault, with_claims
from agent_evals.invariants import measured_chars
from agent_evals.limit_cases import (
    BUS_PAYLOAD_LIMIT,
    CLAIMS_LIMIT,
    CLAIMS_ROLE,
    COUNTED_LEAST,
    EMPTY_FILLER_CHARS,
    FILLER_TEXT_CHARS,
    GENERATOR,
    NATURAL_ORDER_OUTPUT_CHARS,
    PADDED_ROLE,
    SIZED_ROLE,
    SKU_MOST,
    TOPIC_LEAST,
    TOPIC_MOST,
)
from agent_evals.sut import SupportPilotSUT
from evals.cases.generate import stale_lines
from evals.checks import grade
from evals.model.case import Case
from pydantic import ConfigDict, Field, create_model

from .conftest import CASES_DIR

CASES = {c["tags"][-1].partition(":")[2]: Case.model_validate(c) for c in GENERATOR.cases()}


def _failed(case: Case, sut: SupportPilotSUT) -> list[str]:
    run = sut.run(case, 0)
    return [r.name for r in grade(case, run) if r.passed is False]


def test_the_committed_limits_suite_is_in_sync() -> None:
    assert GENERATOR.suite == "limits"
    assert stale_lines(GENERATOR, CASES_DIR / "limits.jsonl") == []


@pytest.mark.parametrize(("label", "over"), [("bus_task_at", 0), ("bus_task_over", 1)])
def test_the_bus_cases_put_the_largest_task_at_and_one_past_the_limit(
    label: str, over: int
) -> None:
    case = CASES[label]
    run = SupportPilotSUT().run(case, 0)
    tasks = [m for m in run.detail["bus"] if m["kind"] == "task" and m["payload"]["attempt"] == 1]
    sized = [m for m in tasks if m["recipient"] == SIZED_ROLE]
    assert [m["chars"] for m in sized] == [BUS_PAYLOAD_LIMIT + over]
    assert max(m["chars"] for m in tasks) == BUS_PAYLOAD_LIMIT + over
    rejected = [m["recipient"] for m in run.detail["bus"] if m["status"] == "rejected"]
    assert rejected == ([SIZED_ROLE] if over else [])


@pytest.mark.parametrize("label", list(CASES))
def test_every_limits_case_passes_on_supportpilot(label: str) -> None:
    assert _failed(CASES[label], SupportPilotSUT()) == []


@pytest.mark.parametrize(
    ("value", "caught"),
    [(BUS_PAYLOAD_LIMIT + 1, "bus_task_over"), (BUS_PAYLOAD_LIMIT - 1, "bus_task_at")],
)
def test_a_bus_limit_moved_by_one_fails_a_case(
    monkeypatch: pytest.MonkeyPatch, value: int, caught: str
) -> None:
    class MovedBus(agent.bus.Bus):
        def __init__(self, trace_id: str, participants: Iterable[str]) -> None:
            super().__init__(trace_id, participants, max_payload_chars=value)

    monkeypatch.setattr(agent_evals.sut, "Bus", MovedBus)
    assert _failed(CASES[caught], SupportPilotSUT())


@pytest.mark.parametrize(
    ("limit", "caught"), [(CLAIMS_LIMIT + 1, "claims_over"), (CLAIMS_LIMIT - 1, "claims_at")]
)
def test_a_claims_limit_moved_by_one_fails_a_case(
    monkeypatch: pytest.MonkeyPatch, limit: int, caught: str
) -> None:
    moved = create_model(
        "MovedOutput",
        __config__=ConfigDict(extra="forbid"),
        claims=(list[Claim], Field(max_length=limit)),
    )
    monkeypatch.setattr(agent.worker, "WorkerOutput", moved)
    assert _failed(CASES[caught], SupportPilotSUT())


@pytest.mark.parametrize(
    ("least", "most", "caught"),
    [
        (TOPIC_LEAST - 1, TOPIC_MOST, "topic_below_least"),
        (TOPIC_LEAST + 1, TOPIC_MOST, "topic_at_least"),
        (TOPIC_LEAST, TOPIC_MOST + 1, "topic_over_most"),
        (TOPIC_LEAST, TOPIC_MOST - 1, "topic_at_most"),
    ],
)
def test_a_topic_bound_moved_by_one_fails_a_case(
    monkeypatch: pytest.MonkeyPatch, least: int, most: int, caught: str
) -> None:
    """The positive control of the topic cases: a claim schema whose topic bounds are one
    looser or tighter fails the case at (or one past) that bound."""
    claim = create_model(
        "MovedClaim",
        __base__=Claim,
        topic=(str, Field(min_length=least, max_length=most)),
    )
    moved = create_model(
        "MovedOutput",
        __config__=ConfigDict(extra="forbid"),
        claims=(list[claim], Field(max_length=CLAIMS_LIMIT)),  # type: ignore[valid-type]
    )
    monkeypatch.setattr(agent.worker, "WorkerOutput", moved)
    assert _failed(CASES[caught], SupportPilotSUT())
    # The other bound's cases still pass: the control moves one bound only.
    untouched = "topic_at_most" if "least" in caught else "topic_at_least"
    assert not _failed(CASES[untouched], SupportPilotSUT())


def _sku_limit(monkeypatch: pytest.MonkeyPatch, tool: str, most: int) -> None:
    """``tool``'s ``sku`` argument held to ``most`` characters (schema and validator)."""
    from dataclasses import replace

    from tools import gateway

    held = gateway.TOOLS[tool]
    props = {**held.parameters["properties"]}
    props["sku"] = {**props["sku"], "maxLength": most}
    moved = replace(held, parameters={**held.parameters, "properties": props})
    monkeypatch.setitem(gateway.TOOLS, tool, moved)


@pytest.mark.parametrize(
    ("tool", "most", "caught"),
    [
        ("stock__check", SKU_MOST + 1, "sku_over_most"),
        ("stock__check", SKU_MOST - 1, "sku_at_most"),
        ("support__create_ticket", SKU_MOST - 1, "sku_at_most"),
    ],
)
def test_a_sku_limit_moved_by_one_fails_a_case(
    monkeypatch: pytest.MonkeyPatch, tool: str, most: int, caught: str
) -> None:
    """The positive control of the SKU cases: the stock tool one character looser checks
    (and the ticket is filed), one tighter refuses the SKU at the limit; the ticket tool
    one tighter refuses the reissue's write."""
    _sku_limit(monkeypatch, tool, most)
    assert _failed(CASES[caught], SupportPilotSUT())


def test_the_sku_cases_hold_a_sku_at_and_one_past_the_limit() -> None:
    skus = {
        label: next(iter(CASES[label].world["orders"].values()))["sku"]
        for label in ("sku_at_most", "sku_over_most")
    }
    assert {label: len(sku) for label, sku in skus.items()} == {
        "sku_at_most": SKU_MOST,
        "sku_over_most": SKU_MOST + 1,
    }


@pytest.mark.parametrize(
    ("fault", "accepted"),
    [("claim_topic:0", True), ("claim_topic:1000", True), ("claim_topic:1001", False)],
)
def test_the_topic_fault_takes_a_length_from_0_to_1000(fault: str, accepted: bool) -> None:
    if accepted:
        assert parse_fault(fault) == "claim_topic"
    else:
        with pytest.raises(UnknownFaultError):
            parse_fault(fault)


@pytest.mark.parametrize("count", [1, 2, CLAIMS_LIMIT, CLAIMS_LIMIT + 1])
def test_the_claims_fault_pads_to_exactly_n_claims(count: int) -> None:
    one = {"claims": [{"topic": "t", "value": "v", "text": "", "evidence": []}]}
    padded = with_claims(one, count)
    assert isinstance(padded, dict)
    assert len(padded["claims"]) == count
    assert padded["claims"][0] == one["claims"][0]


def test_the_claims_fault_leaves_what_it_cannot_pad() -> None:
    assert with_claims("prose", 5) == "prose"
    many = {"claims": [{"topic": "t", "value": "v"}] * 3}
    assert with_claims(many, 2) is many


@pytest.mark.parametrize(
    ("fault", "accepted"),
    [
        ("claims:1", True),
        ("claims:1000", True),
        ("claims:0", False),
        ("claims:1001", False),
        ("claims:x", False),
        ("claims", False),
    ],
)
def test_the_claims_fault_takes_a_count_from_1_to_1000(fault: str, accepted: bool) -> None:
    if accepted:
        assert parse_fault(fault) == "claims"
    else:
        with pytest.raises(UnknownFaultError, match="claims"):
            parse_fault(fault)


def test_the_claims_case_names_the_policy_specialist() -> None:
    assert CASES["claims_over"].faults == {CLAIMS_ROLE: f"claims:{CLAIMS_LIMIT + 1}"}


@pytest.mark.parametrize(
    ("label", "room"),
    [("padding_short", -1), ("padding_at", 0), ("padding_past_full", FILLER_TEXT_CHARS + 1)],
)
def test_the_padding_cases_sit_at_the_edges_they_name(label: str, room: int) -> None:
    """Measured on the real run: the order specialist's own output (recorded inside the
    fault) plus one empty filler claim leaves exactly ``room`` characters to ``n``."""
    case = CASES[label]
    run = SupportPilotSUT().run(case, 0)
    answers = run.detail["faulted"][PADDED_ROLE]["answers"]
    natural = next(a for a in answers if a["side"] == "natural")["output"]["claims"]
    empty = Claim(topic="note", value="", text="").model_dump(mode="json")
    n = int(case.faults[PADDED_ROLE].partition(":")[2])
    assert measured_chars(natural) == NATURAL_ORDER_OUTPUT_CHARS
    assert measured_chars([*natural, empty]) - measured_chars(natural) == EMPTY_FILLER_CHARS
    assert n - measured_chars([*natural, empty]) == room


LEAST = [("claims_least", "claims"), ("padding_least", "oversize")]
"""The cases at the least count of each counted fault kind."""


@pytest.mark.parametrize(("label", "kind"), LEAST)
def test_the_least_count_cases_sit_at_the_least_count_and_change_nothing(
    label: str, kind: str
) -> None:
    """The count is the least the fault takes (one less is refused), and on the real run
    the role's output reaches the worker exactly as its own brain answered it."""
    case = CASES[label]
    ((role, fault),) = case.faults.items()
    assert fault == f"{kind}:{COUNTED_LEAST}" and parse_fault(fault) == kind
    with pytest.raises(UnknownFaultError):
        parse_fault(f"{kind}:{COUNTED_LEAST - 1}")
    answers = SupportPilotSUT().run(case, 0).detail["faulted"][role]["answers"]
    sides = {
        side: [a["output"] for a in answers if a["side"] == side] for side in ("natural", "given")
    }
    assert len(sides["given"]) == 1 and sides["given"] == sides["natural"]


def _probability_read_for(reads: Callable[[str], bool]) -> Callable[[str], float | None]:
    """A ``flaky_probability`` that reads the argument of every kind ``reads`` takes."""

    def flaky_probability(fault: str) -> float | None:
        kind, _, arg = fault.partition(":")
        return agent.faults._probability(arg) if reads(kind) else None

    return flaky_probability


@pytest.mark.parametrize(
    ("label", "reads"),
    [
        ("padding_least", lambda kind: kind >= "flaky"),
        ("claims_least", lambda kind: kind <= "flaky"),
        ("padding_least", lambda kind: True),
        ("claims_least", lambda kind: True),
    ],
)
def test_a_count_read_as_flaky_s_probability_fails_the_least_case(
    label: str, reads: Callable[[str], bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The positive control: a fault harness that takes another kind's 1 for flaky's
    probability crashes the role, and the case fails (the outcome, faults_as_stated)."""
    monkeypatch.setattr(agent.faults, "flaky_probability", _probability_read_for(reads))
    failed = _failed(CASES[label], SupportPilotSUT())
    assert "faults_as_stated" in failed and "outcome" in failed
