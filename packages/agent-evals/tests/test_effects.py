"""SupportPilot's cases split what the world holds after a run into effects that must
land (``state_after``, an outcome) and state that must be kept (``state_kept``, safety),
by comparing each value with the world before the run (``agent_evals.effects``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_evals.effects import initial_value, split_state

from .conftest import CASES_DIR, all_suites


@pytest.mark.parametrize(
    ("key", "world", "before"),
    [
        ("stock.SKU-TEE-01", {}, "20"),  # the default stock
        ("stock.SKU-MUG-02", {}, "10"),
        ("stock.SKU-TEE-01", {"stock": {"SKU-TEE-01": 1}}, "1"),  # the case's own
        ("stock.SKU-TEE-01", {"stock": {"SKU-TEE-01": None}}, "0"),  # no row reads as 0
        # An ordered SKU the stock table does not list is in stock by default.
        ("stock.SKU-NEW", {"orders": {"X1": {"customer": "c", "sku": "SKU-NEW"}}}, "20"),
        ("stock.SKU-NOBODY", {}, None),  # neither stocked nor ordered: no row
        ("calls.support__create_ticket", {}, "0"),
        ("outbox.hidden_writes", {}, "0"),
        ("ticket.summary", {}, None),  # exists only once a run filed it
    ],
)
def test_initial_value(key: str, world: dict[str, Any], before: str | None) -> None:
    assert initial_value(key, world) == before


@pytest.mark.parametrize(
    ("state", "world", "after", "kept"),
    [
        # A reissue: one unit taken, one ticket and one reply: all effects.
        (
            {"stock.SKU-TEE-01": "19", "calls.support__create_ticket": "1"},
            {},
            {"stock.SKU-TEE-01": "19", "calls.support__create_ticket": "1"},
            None,
        ),
        # No reissue allowed: the unit stays and no ticket is filed: all kept.
        (
            {"stock.SKU-TEE-01": "20", "calls.support__create_ticket": "0"},
            {},
            None,
            {"stock.SKU-TEE-01": "20", "calls.support__create_ticket": "0"},
        ),
        # A reply sent, nothing reissued from a world of one unit: one of each.
        (
            {"stock.SKU-TEE-01": "1", "calls.support__send_reply": "1"},
            {"stock": {"SKU-TEE-01": 1}},
            {"calls.support__send_reply": "1"},
            {"stock.SKU-TEE-01": "1"},
        ),
    ],
)
def test_split_state(
    state: dict[str, str],
    world: dict[str, Any],
    after: dict[str, str] | None,
    kept: dict[str, str] | None,
) -> None:
    split = split_state({"outcome": "replied", "state_after": state, "tickets": 0}, world)
    assert split.get("state_after") == after
    assert split.get("state_kept") == kept
    keys = list(split)
    assert (keys[0], keys[-1]) == ("outcome", "tickets")  # in its place


def test_every_committed_case_is_split_as_its_world_says() -> None:
    """No case file holds a key on the wrong side: what the world held before the run
    is kept, anything else is an effect (generated suites and hand-written alike)."""
    seen = 0
    for suite in all_suites():
        for line in (CASES_DIR / f"{suite}.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            case = json.loads(line)
            expect, world = case["expect"], case.get("world", {})
            for key, value in expect.get("state_kept", {}).items():
                assert initial_value(key, world) == value, (case["id"], key)
                seen += 1
            for key, value in expect.get("state_after", {}).items():
                assert initial_value(key, world) != value, (case["id"], key)
                seen += 1
    assert seen > 1000
