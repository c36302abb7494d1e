"""What one span says, read by the semantic conventions agent frameworks follow.

Two conventions are read, the first that applies winning:

- **OpenTelemetry GenAI** (``gen_ai.operation.name``): ``chat`` (and the other model
  operations) is a model call, ``execute_tool`` a tool call, ``invoke_agent`` an agent;
  ``gen_ai.tool.name``, ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``,
  ``gen_ai.usage.input_tokens``/``output_tokens``, ``gen_ai.output.messages``,
  ``gen_ai.agent.name``;
- **OpenInference** (``openinference.span.kind``): ``LLM``, ``TOOL``, ``AGENT``;
  ``tool.name``, ``input.value``, ``output.value``, ``llm.token_count.prompt``/
  ``completion``, ``llm.output_messages.<i>.message.content``, ``agent.name``.

A span that follows neither (a framework's own ``turn`` or ``workflow`` span, a database
call) has kind ``None`` and is no step. Spans are read by duck typing (``name``,
``attributes``, ``status``, ``events``, times in nanoseconds): the OpenTelemetry SDK's
``ReadableSpan`` or anything shaped like it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

SpanKind = Literal["model", "tool", "agent"]
"""What a span stands for, as far as the run record cares."""

MODEL_OPERATIONS = frozenset(
    {"chat", "text_completion", "generate_content", "completion", "responses"}
)
"""GenAI ``gen_ai.operation.name`` values of a model call."""
TOOL_OPERATIONS = frozenset({"execute_tool"})
"""GenAI ``gen_ai.operation.name`` values of a tool call."""
AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent"})
"""GenAI ``gen_ai.operation.name`` values of an agent."""
OPENINFERENCE_KINDS: dict[str, SpanKind] = {"LLM": "model", "TOOL": "tool", "AGENT": "agent"}
"""OpenInference ``openinference.span.kind`` values read; the others (``CHAIN``,
``RETRIEVER`` …) are no step."""


@dataclass(frozen=True)
class SpanFacts:
    """What one span says: its kind, who or what it names, and what came of it."""

    kind: SpanKind | None
    """A model call, a tool call, an agent, or ``None``: no convention applies."""
    name: str
    """The tool's name, the agent's, or the model's (the span's name when none is given)."""
    agent: str | None = None
    """The agent the span says it belongs to, when it says."""
    arguments: dict[str, Any] | None = None
    """A tool call's arguments (a text that is not a JSON object is kept as ``{"input":
    text}``)."""
    result: str | None = None
    """A tool call's result, or a model call's answer, as text (a model call that only
    calls tools: ``calls <tool>, <tool>``)."""
    said: str | None = None
    """A model call's text alone (``None`` when it only called tools): what a final
    answer is taken from."""
    error: str | None = None
    """Why the span failed (its status's description, its exception, ``error.type``);
    ``None`` when it did not."""
    input_tokens: int = 0
    """A model call's prompt tokens."""
    output_tokens: int = 0
    """A model call's completion tokens."""


def _attributes(span: Any) -> dict[str, Any]:
    return dict(getattr(span, "attributes", None) or {})


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _arguments(value: Any) -> dict[str, Any] | None:
    """A tool's arguments: a mapping, or a JSON object's text."""
    if value is None:
        return None
    if isinstance(value, dict):
        return dict(value)
    text = str(value)
    try:
        parsed = json.loads(text)
    except ValueError:
        return {"input": text}
    return parsed if isinstance(parsed, dict) else {"input": parsed}


def _tokens(value: Any) -> int:
    """A token count as an attribute gives it; anything that is not a count is 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return 0
    return int(value)


def _error(span: Any, attributes: dict[str, Any]) -> str | None:
    """Why the span failed, or ``None``."""
    status = getattr(span, "status", None)
    code = getattr(getattr(status, "status_code", None), "name", None)
    failed = code == "ERROR" or "error.type" in attributes
    if not failed:
        return None
    for event in getattr(span, "events", None) or ():
        if getattr(event, "name", "") == "exception":
            event_attributes = dict(getattr(event, "attributes", None) or {})
            kind = event_attributes.get("exception.type", "")
            message = event_attributes.get("exception.message", "")
            if kind or message:
                return f"{kind}: {message}".strip(": ")
    description = getattr(status, "description", None)
    return str(description or attributes.get("error.type") or "failed")


def _answer(texts: list[str], calls: list[str]) -> tuple[str | None, str | None]:
    """(result, said) of a model call from its text parts and the tools it called."""
    said = "\n".join(texts) if texts else None
    if said is not None:
        return said, said
    return (f"calls {', '.join(calls)}" if calls else None), None


def _genai_answer(value: Any) -> tuple[str | None, str | None]:
    """The text parts of ``gen_ai.output.messages`` and the tools called."""
    if value is None:
        return None, None
    try:
        messages = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return str(value), str(value)
    texts: list[str] = []
    calls: list[str] = []
    for message in messages if isinstance(messages, list) else []:
        for part in message.get("parts", []) if isinstance(message, dict) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("content"), str):
                texts.append(part["content"])
            elif part.get("type") == "tool_call":
                calls.append(str(part.get("name", "")))
    return _answer(texts, calls)


def _openinference_answer(attributes: dict[str, Any]) -> tuple[str | None, str | None]:
    """The assistant's text of ``llm.output_messages``, or the tools it called."""
    texts: list[str] = []
    calls: list[str] = []
    for key in sorted(attributes):
        if not key.startswith("llm.output_messages."):
            continue
        if key.endswith(".message.content"):
            texts.append(str(attributes[key]))
        elif key.endswith(".tool_call.function.name"):
            calls.append(str(attributes[key]))
    return _answer(texts, calls)


def facts_of(span: Any) -> SpanFacts:
    """What ``span`` says, by the first convention that applies (module docstring)."""
    attributes = _attributes(span)
    span_name = str(getattr(span, "name", "") or "")
    error = _error(span, attributes)
    operation = attributes.get("gen_ai.operation.name")
    agent = attributes.get("gen_ai.agent.name") or attributes.get("agent.name")
    agent = None if agent is None else str(agent)
    if operation in TOOL_OPERATIONS:
        return SpanFacts(
            kind="tool",
            name=str(attributes.get("gen_ai.tool.name") or span_name),
            agent=agent,
            arguments=_arguments(
                attributes.get("gen_ai.tool.call.arguments", attributes.get("tool_arguments"))
            ),
            result=_text(
                attributes.get("gen_ai.tool.call.result", attributes.get("tool_response"))
            ),
            error=error,
        )
    if operation in MODEL_OPERATIONS:
        result, said = _genai_answer(attributes.get("gen_ai.output.messages"))
        return SpanFacts(
            kind="model",
            name=str(
                attributes.get("gen_ai.response.model")
                or attributes.get("gen_ai.request.model")
                or span_name
            ),
            agent=agent,
            result=result,
            said=said,
            error=error,
            input_tokens=_tokens(
                attributes.get(
                    "gen_ai.usage.input_tokens", attributes.get("gen_ai.usage.prompt_tokens")
                )
            ),
            output_tokens=_tokens(
                attributes.get(
                    "gen_ai.usage.output_tokens", attributes.get("gen_ai.usage.completion_tokens")
                )
            ),
        )
    if operation in AGENT_OPERATIONS:
        return SpanFacts(kind="agent", name=agent or span_name, agent=agent, error=error)
    kind = OPENINFERENCE_KINDS.get(str(attributes.get("openinference.span.kind", "")))
    if kind == "tool":
        return SpanFacts(
            kind="tool",
            name=str(attributes.get("tool.name") or span_name),
            agent=agent,
            arguments=_arguments(attributes.get("input.value")),
            result=_text(attributes.get("output.value")),
            error=error,
        )
    if kind == "model":
        result, said = _openinference_answer(attributes)
        return SpanFacts(
            kind="model",
            name=str(attributes.get("llm.model_name") or span_name),
            agent=agent,
            result=result,
            said=said,
            error=error,
            input_tokens=_tokens(attributes.get("llm.token_count.prompt")),
            output_tokens=_tokens(attributes.get("llm.token_count.completion")),
        )
    if kind == "agent":
        return SpanFacts(kind="agent", name=agent or span_name, agent=agent, error=error)
    return SpanFacts(kind=None, name=span_name, agent=agent, error=error)
