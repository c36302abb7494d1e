"""Counting model tokens over a whole run: every call of every specialist, retries and
repair rounds included."""

from __future__ import annotations

from typing import Protocol


class ReportedUsage(Protocol):
    """What a provider reports for one completion (``openai`` ``CompletionUsage``)."""

    prompt_tokens: int
    completion_tokens: int


class TokenMeter:
    """Sums the tokens of every model call made during one run."""

    def __init__(self) -> None:
        self.prompt_tokens = 0
        """Tokens sent to the model, summed."""
        self.completion_tokens = 0
        """Tokens the model produced, summed."""
        self.calls = 0
        """Completions received."""

    def add(self, usage: ReportedUsage | None) -> None:
        """Count one completion (a provider that reports no usage counts as zero tokens)."""
        self.calls += 1
        if usage is not None:
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
