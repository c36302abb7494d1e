"""A small FAQ agent that is not SupportPilot: it answers questions about a shop's
opening hours, refunds and shipping by calling one tool, a knowledge-base lookup.

It knows nothing about ``evals``; ``grade.py`` grades it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

KB: dict[str, str] = {
    "hours": "We open at 9:00 and close at 18:00, Monday to Saturday.",
    "refund": "Refunds reach your account within 5 working days.",
    "shipping": "Shipping is free for orders above 50 euros.",
}
"""The knowledge base the lookup tool reads."""

TOPICS: dict[str, tuple[str, ...]] = {
    # "closing" holds no "close": the generated suite found it (generated.jsonl).
    "hours": ("open", "close", "closing", "hours"),
    "refund": ("refund", "money back"),
    "shipping": ("shipping", "delivery", "deliver"),
}
"""Which words point to which topic."""

REFUSAL = "Sorry, I can only answer questions about opening hours, refunds and shipping."


@dataclass
class Answer:
    """What the agent did with one question."""

    status: str
    """``answered`` or ``refused``."""
    text: str
    """The answer the user reads."""
    tool_calls: list[str] = field(default_factory=list)
    """The tool calls made, in order (``lookup:<topic>``)."""


class FaqAgent:
    """Finds the question's topic, looks it up with the tool, answers from what it read."""

    def __init__(self, kb: Mapping[str, str] = KB) -> None:
        self.kb = kb

    def lookup(self, topic: str) -> str | None:
        """The tool: the knowledge-base entry of ``topic``, if any."""
        return self.kb.get(topic)

    def answer(self, question: str) -> Answer:
        """Answer ``question``, or refuse when it is off topic."""
        words = question.lower()
        topic = next((t for t, keys in TOPICS.items() if any(k in words for k in keys)), None)
        if topic is None:
            return Answer("refused", REFUSAL)
        found = self.lookup(topic)
        calls = [f"lookup:{topic}"]
        if found is None:
            return Answer("refused", REFUSAL, calls)
        return Answer("answered", found, calls)
