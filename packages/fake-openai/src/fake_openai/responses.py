"""Response specs: what the fake server answers to one chat-completion request.

A spec is one of the small frozen dataclasses below, or a plain ``str`` (shorthand for
``Reply(str)``). Every spec has ``delay``: extra seconds slept before answering, on top
of the server's default latency.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Usage:
    """Token counts reported in ``usage``; when a spec gives none the server estimates them."""

    prompt_tokens: int
    """Tokens in the request."""
    completion_tokens: int
    """Tokens in the answer."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Reply:
    """A valid completion whose assistant message is ``content``."""

    content: str
    """The assistant's text."""
    delay: float = 0.0
    """Extra seconds slept before answering."""
    usage: Usage | None = None
    """Token counts to report (``None``: estimated from the text)."""
    finish_reason: str = "stop"
    """The choice's ``finish_reason``."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call in OpenAI format; ``arguments`` is sent as a JSON string."""

    name: str
    """The function's name."""
    arguments: dict[str, Any] | str = field(default_factory=dict)
    """The arguments: a dict is JSON-encoded, a string is sent as is (even if invalid JSON)."""
    id: str | None = None
    """The call id (``None``: ``call_<n>`` numbered by the server)."""

    def arguments_json(self) -> str:
        """The arguments as the JSON string OpenAI sends."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class ToolCalls:
    """A valid completion whose assistant message calls tools."""

    calls: tuple[ToolCall, ...]
    """The calls, in order."""
    content: str | None = None
    """Optional text sent alongside the calls."""
    delay: float = 0.0
    """Extra seconds slept before answering."""
    usage: Usage | None = None
    """Token counts to report (``None``: estimated)."""

    def __init__(
        self,
        *calls: ToolCall,
        content: str | None = None,
        delay: float = 0.0,
        usage: Usage | None = None,
    ) -> None:
        # A custom __init__ so callers write ToolCalls(ToolCall(...), ToolCall(...)).
        object.__setattr__(self, "calls", tuple(calls))
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "delay", delay)
        object.__setattr__(self, "usage", usage)


@dataclass(frozen=True)
class HttpError:
    """An HTTP error with an OpenAI-style error body (429, 500, 401, ...)."""

    status: int
    """The HTTP status code."""
    message: str = "fake error"
    """The error message in the body."""
    retry_after: float | None = None
    """Seconds sent as ``Retry-After`` and ``retry-after-ms`` (``None``: no header)."""
    delay: float = 0.0
    """Extra seconds slept before answering."""


@dataclass(frozen=True)
class Malformed:
    """A 200 response whose body is not JSON."""

    body: str = "this is not json {"
    """The raw body sent."""
    delay: float = 0.0
    """Extra seconds slept before answering."""


@dataclass(frozen=True)
class Hang:
    """Sleep ``seconds`` (longer than the client's timeout), then answer like ``then``.

    The sleep ends early when the server stops, so a hang never blocks shutdown.
    """

    seconds: float = 30.0
    """How long to hang."""
    then: str = "too late"
    """The content answered if the client is still there."""
    delay: float = 0.0
    """Extra seconds slept before hanging (kept for symmetry with the other specs)."""


@dataclass(frozen=True)
class Raw:
    """Any JSON body with any status, for shapes the other specs do not cover."""

    body: Any
    """The JSON-serialisable body."""
    status: int = 200
    """The HTTP status code."""
    delay: float = 0.0
    """Extra seconds slept before answering."""


ResponseSpec: TypeAlias = Reply | ToolCalls | HttpError | Malformed | Hang | Raw | str
"""Anything the script or the handler may give the server."""

SPEC_TYPES = (Reply, ToolCalls, HttpError, Malformed, Hang, Raw, str)
"""The runtime classes of ``ResponseSpec`` (for isinstance checks)."""
