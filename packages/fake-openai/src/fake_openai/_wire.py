"""Turning response specs into HTTP status, headers and body bytes (no I/O here)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from fake_openai.responses import HttpError, Malformed, Raw, Reply, ToolCalls, Usage


@dataclass(frozen=True)
class WireResponse:
    """One HTTP response ready to write."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    content_type: str = "application/json"


def json_response(
    status: int, body: Any, headers: tuple[tuple[str, str], ...] = ()
) -> WireResponse:
    """Encode ``body`` as UTF-8 JSON."""
    return WireResponse(status, json.dumps(body, ensure_ascii=False).encode(), headers)


def error_response(
    status: int, message: str, *, kind: str = "fake_error", retry: bool | None = None
) -> WireResponse:
    """An OpenAI-style error body; ``retry`` sets ``x-should-retry`` when not ``None``."""
    headers: tuple[tuple[str, str], ...] = ()
    if retry is not None:
        headers = (("x-should-retry", "true" if retry else "false"),)
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return json_response(status, body, headers)


def estimate_tokens(text: str) -> int:
    """Roughly one token per four characters, at least one for any text."""
    return (len(text) + 3) // 4 if text else 0


def _prompt_text(request: Any) -> str:
    """All message text of a chat request, for the prompt-token estimate."""
    if not isinstance(request, dict):
        return ""
    messages = request.get("messages")
    if not isinstance(messages, list):
        return ""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, dict):
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "".join(parts)


def completion_response(
    spec: Reply | ToolCalls, request: Any, *, completion_id: str, first_call: int, model: str
) -> WireResponse:
    """A valid ``chat.completion`` body for ``spec``, with ``usage``."""
    message: dict[str, Any] = {"role": "assistant", "content": spec.content}
    completion_text = spec.content or ""
    if isinstance(spec, ToolCalls):
        calls = []
        for offset, call in enumerate(spec.calls):
            arguments = call.arguments_json()
            completion_text += call.name + arguments
            calls.append(
                {
                    "id": call.id or f"call_{first_call + offset}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments},
                }
            )
        message["tool_calls"] = calls
        finish_reason = "tool_calls"
    else:
        finish_reason = spec.finish_reason
    usage = spec.usage or Usage(
        estimate_tokens(_prompt_text(request)), estimate_tokens(completion_text)
    )
    body = {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.total_tokens,
        },
    }
    return json_response(200, body)


def http_error_response(spec: HttpError) -> WireResponse:
    """The error body for ``spec``, with ``Retry-After`` headers when asked for."""
    response = error_response(spec.status, spec.message)
    if spec.retry_after is None:
        return response
    headers = (
        ("Retry-After", f"{spec.retry_after:g}"),
        # The openai client prefers the millisecond header, which allows sub-second waits.
        ("retry-after-ms", f"{spec.retry_after * 1000:g}"),
    )
    return WireResponse(response.status, response.body, headers)


def malformed_response(spec: Malformed) -> WireResponse:
    """A 200 whose body is not JSON although it claims to be."""
    return WireResponse(200, spec.body.encode())


def raw_response(spec: Raw) -> WireResponse:
    """``spec.body`` as JSON with ``spec.status``."""
    return json_response(spec.status, spec.body)
