"""OpenTelemetry in: a run record built from the spans an agent framework already emits.

Agent frameworks trace a run as OpenTelemetry spans: one per model call, one per tool
call, one around the agent. :func:`run_from_spans` reads such spans — the GenAI semantic
conventions (``gen_ai.*``, as pydantic-ai writes them) and OpenInference's
(``openinference.span.kind``, as its instrumentors of the OpenAI Agents SDK, LangChain
and others write them) — into a :class:`~evals.model.run.Run`: each tool call a step
with its arguments, result, status and times, each model call a step of the agent that
spoke, the tokens, the latency and the final answer. :class:`SpanCollector` gathers the
spans of one (case, trial) while the agent runs, even when several run at once.

Reading spans needs nothing but the spans; collecting them needs the OpenTelemetry SDK,
the extra ``supportpilot-evals[otel]`` (without it, importing ``SpanCollector`` is one
line saying so). docs/otel.md shows two framework agents graded.
"""

from typing import Any

from evals.errors import EvalsError
from evals.otel.conventions import SpanFacts, facts_of
from evals.otel.record import run_from_spans, steps_from_spans

__all__ = [
    "Collected",
    "SpanCollector",
    "SpanFacts",
    "facts_of",
    "run_from_spans",
    "steps_from_spans",
]

_NEEDS_SDK = ("Collected", "SpanCollector")


def __getattr__(name: str) -> Any:
    if name in _NEEDS_SDK:
        try:
            from evals.otel import collect  # noqa: PLC0415 (the SDK is optional)
        except ImportError as e:
            raise EvalsError(
                "collecting spans needs the OpenTelemetry SDK: install supportpilot-evals[otel]"
                f" ({e})"
            ) from None
        return getattr(collect, name)
    raise AttributeError(f"module 'evals.otel' has no attribute {name!r}")
