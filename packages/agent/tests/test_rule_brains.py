"""The rule brains quote outside text (the customer's words, statuses, tool errors) at a
bounded length, so a long message cannot break the claim schema and crash a specialist."""

from __future__ import annotations

import pytest
from agent.contracts import Claim
from agent.rule_brains import QUOTE_CHARS, quoted


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("包裹没到", "包裹没到"),
        ("长" * QUOTE_CHARS, "长" * QUOTE_CHARS),  # exactly the limit: kept whole
        ("长" * (QUOTE_CHARS + 1), "长" * QUOTE_CHARS + "…"),
        (404, "404"),
    ],
)
def test_quoted(text: object, expected: str) -> None:
    assert quoted(text) == expected


def test_a_quote_of_any_length_fits_a_claims_explanation() -> None:
    Claim(topic="request", value="resend", text=f"客户原话：{quoted('话' * 50_000)}")
