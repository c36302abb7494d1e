"""The refusal suite (cases/refusals.jsonl): in sync with its generator, written apart from
the code it checks, every case's ``expect.refused`` what ``SupportPilotSUT.check_case``
answers (as a multiset, as the evals compare it), and each deliberate breakage of the
validation caught by some case."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from agent_evals import refusal_cases
from agent_evals.refusal_cases import GENERATOR, ROLES, mistakes
from agent_evals.sut import DB_DIR_ENV, SupportPilotSUT
from evals.cases.generate import stale_lines
from evals.cases.loader import load_cases
from evals.model.case import Case

from .conftest import CASES_DIR, EXPECT_DEFAULTS

SUITE = CASES_DIR / "refusals.jsonl"
CASES = load_cases([SUITE], expect_defaults=EXPECT_DEFAULTS)


@pytest.fixture(autouse=True)
def _no_db_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DB_DIR_ENV, raising=False)


def verdict(case: Case) -> list[str]:
    """What the SUT answers, as the runner will ask it: built with the case's options,
    then its ``check_case`` hook (a construction error is the one refusal line)."""
    try:
        sut = SupportPilotSUT(**case.sut_options)  # type: ignore[arg-type]
    except Exception as e:
        return [" ".join(str(e).split())]
    return sut.check_case(case)


def failing() -> list[str]:
    """The cases whose refusal differs from what the SUT answers now."""
    return [
        case.id for case in CASES if Counter(verdict(case)) != Counter(case.expect.refused or [])
    ]


def test_the_committed_suite_is_in_sync_with_its_generator() -> None:
    assert stale_lines(GENERATOR, SUITE) == []


def test_the_generator_imports_nothing_of_the_code_it_checks() -> None:
    code = (
        "import sys, agent_evals.refusal_cases;"
        "print(sorted(m for m in sys.modules"
        " if m.split('.')[0] in ('domain', 'agent', 'tools')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_case_is_a_configuration_case_that_reaches_the_sut() -> None:
    # Loaded by the evals loader (schema, FAULT_PATTERN): none is refused before the SUT.
    assert len(CASES) == len(mistakes()) >= 100
    assert all(case.expect.refused is not None for case in CASES)
    assert {case.split for case in CASES} <= {"dev", "test", "regression"}
    for case in CASES:
        assert case.expect.model_dump(exclude_defaults=True) == {"refused": case.expect.refused}


def test_the_suite_covers_every_field_and_fault_target() -> None:
    tags = {tag for case in CASES for tag in case.tags}
    fields = {t.removeprefix("field:") for t in tags if t.startswith("field:")}
    records = {
        "world.orders.A1001": refusal_cases.ORDER_KEYS,
        "world.logistics.A7001": refusal_cases.SHIPMENT_KEYS,
        "world.policies.0": refusal_cases.POLICY_KEYS,
    }
    for record, keys in records.items():
        assert record in fields
        assert {f"{record}.{key}" for key in keys} <= fields
    for key in refusal_cases.WORLD_KEYS:
        assert any(f == f"world.{key}" or f.startswith(f"world.{key}.") for f in fields), key
    targets = {f"faults.{t}" for t in (*ROLES, "outbox", "model")}
    assert targets <= fields and "input.customer" in fields
    for role in ROLES:
        assert any(
            f"field:faults.{role}" in c.tags and "wrong:unknown_kind" in c.tags for c in CASES
        )
    wrongs = {t.removeprefix("wrong:") for t in tags if t.startswith("wrong:")}
    assert {"below_min", "above_max", "inside_min", "inside_max", "empty", "unknown_key"} <= wrongs
    assert {"missing", "not_literal", "unknown_role", "no_scripted_model"} <= wrongs
    accepted = [c for c in CASES if c.expect.refused == []]
    several = [c for c in CASES if len(c.expect.refused or []) > 2]
    assert len(accepted) >= 50 and len(CASES) - len(accepted) >= 100 and len(several) >= 3


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_sut_refuses_exactly_as_the_spec_says(case: Case) -> None:
    assert Counter(verdict(case)) == Counter(case.expect.refused or [])


# -- positive controls: each breakage of the validation fails some case ----------------


def _loose_world() -> Any:
    """The world model with ``stock``'s ``ge=0`` dropped (and nothing else)."""
    from domain import world
    from pydantic import Field

    class LooseWorld(world.World):
        stock: dict[str, Annotated[int, Field(le=world.MAX_COUNT)]] = Field(default_factory=dict)

    return LooseWorld


def _orders_take_any_key() -> Any:
    """The world model with an order's unknown keys ignored instead of refused."""
    from domain import world
    from pydantic import ConfigDict, Field

    class LooseOrder(world.OrderOverride):
        model_config = ConfigDict(extra="ignore", strict=True)

    class LooseWorld(world.World):
        orders: dict[str, LooseOrder] = Field(default_factory=dict)

    return LooseWorld


def _blank_customer_allowed(case: Case) -> str | None:
    value = case.input.get("customer")
    if value is None:
        return None
    if not isinstance(value, str) or not value:  # the strip() dropped
        from agent.errors import InvalidCustomerError

        raise InvalidCustomerError(value)
    return value


def _no_known_list(*_: object) -> None:
    return None


BREAKAGES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "problems: a changed type message": lambda m: m.setitem(
        __import__("domain.problems").problems._EXPECTED, "string_type", "text"
    ),
    "problems: the bound printed raw (>= 0.0)": lambda m: m.setattr("domain.problems._bound", str),
    "problems: unknown keys without their known list": lambda m: m.setattr(
        "domain.problems._model_at", _no_known_list
    ),
    "world: stock's ge=0 dropped": lambda m: m.setattr("domain.world.World", _loose_world()),
    "world: an order's unknown key ignored": lambda m: m.setattr(
        "domain.world.World", _orders_take_any_key()
    ),
    "model: a fault without the scripted model accepted": lambda m: m.setattr(
        SupportPilotSUT, "_model_fault_problems", lambda self, fault: []
    ),
    "faults: an unknown kind accepted": lambda m: m.setattr(
        "agent.faults.SIMPLE_FAULTS", {*__import__("agent.faults").faults.SIMPLE_FAULTS, "explode"}
    ),
    "faults: the oversize boundary moved": lambda m: m.setitem(
        __import__("agent.faults").faults.COUNTED_KINDS, "oversize", 99_999
    ),
    "outbox: the count boundary moved": lambda m: m.setattr(
        "agent.outbox_faults.MAX_LOST_CALLS", 10
    ),
    "model: a kind dropped": lambda m: m.delitem(
        __import__("agent_evals.scripted_model").scripted_model.FAULTS, "fenced"
    ),
    "customer: a blank name accepted": lambda m: m.setattr(
        "agent_evals.sut.authenticated_customer", _blank_customer_allowed
    ),
    "tool errors: write tools accepted": lambda m: m.setattr(
        "agent_evals.sut.READ_TOOLS",
        (
            *__import__("tools").READ_TOOLS,
            *[t for t in __import__("tools").TOOLS.values() if t.kind == "write"],
        ),
    ),
}


def test_the_unbroken_sut_fails_no_case() -> None:
    assert failing() == []


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_each_breakage_fails_some_case(breakage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    BREAKAGES[breakage](monkeypatch)
    assert failing() != []
