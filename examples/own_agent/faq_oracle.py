"""The FAQ agent's spec as an oracle: what a correct run does with a question, computed
from the question alone.

The spec (``docs/generated-suites.md``): the shop opens at 9:00 and closes at 18:00,
Monday to Saturday; a refund reaches the customer's account within 5 working days;
shipping is free for orders above 50 euros. A question that names opening or closing
(in any form: open, opens, opening, closed, closing …) or the hours is about the hours;
one that names a refund (refund, refunded …) or getting the money back is about
refunds; one that names shipping or delivery (deliver, delivering …) is about shipping.
The agent answers such a question from one knowledge-base lookup of its topic
(``lookup:<topic>``), stating the fact asked for (the closing time when the question is
about closing); any other question it refuses, looking nothing up.

This is a second implementation of that spec, written from the spec and not from the
agent: it imports nothing of ``faq_agent`` (a test checks), and reads words where the
agent matches substrings, so a case where the two disagree is a bug in one of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

WORDS: dict[str, frozenset[str]] = {
    "hours": frozenset(
        [
            "open",
            "opens",
            "opened",
            "opening",
            "close",
            "closes",
            "closed",
            "closing",
            "hour",
            "hours",
        ]
    ),
    "refund": frozenset(["refund", "refunds", "refunded", "refunding"]),
    "shipping": frozenset(
        ["shipping", "delivery", "deliveries", "deliver", "delivers", "delivered", "delivering"]
    ),
}
"""The words that name each topic, in the spec's order."""
PHRASES: dict[str, tuple[str, ...]] = {"refund": ("money back",)}
"""Phrases that name a topic besides its words."""
FACTS = {"hours": "9:00", "refund": "5 working days", "shipping": "50 euros"}
"""The fact a correct answer about each topic states."""
CLOSING = frozenset(["close", "closes", "closed", "closing"])
"""Words asking about closing: the answer must state the closing time."""
CLOSING_TIME = "18:00"


def topic_of(question: str) -> str | None:
    """The topic the spec says ``question`` is about, or ``None``."""
    text = " ".join(question.lower().split())
    words = set(re.findall(r"[a-z]+", text))
    for topic, names in WORDS.items():
        if words & names or any(p in text for p in PHRASES.get(topic, ())):
            return topic
    return None


def expect_for(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case's ``expect``: the outcome, the fact the answer states, the tool call."""
    question = case["input"]["question"]
    topic = topic_of(question)
    if topic is None:
        return {"outcome": "refused", "dispatched": []}
    fact = FACTS[topic]
    if topic == "hours" and set(re.findall(r"[a-z]+", question.lower())) & CLOSING:
        fact = CLOSING_TIME
    return {"outcome": "answered", "contains": fact, "dispatched": [f"lookup:{topic}"]}
