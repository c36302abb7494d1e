"""Spans into the run record: steps in the order they started, tokens, latency, reply.

A tool span is a step whose ``role`` is the tool (so ``expect.dispatched`` names the tools
an agent must call, as for any tool-using agent) with its ``arguments``, ``result``,
status (``ok`` or ``error``) and times; a model span is a step whose ``role`` is the
agent that spoke (the span's own ``gen_ai.agent.name``, else its nearest agent span's
name, else ``model``) and whose ``name`` is the model. Other spans are no step. Times are
milliseconds since the first span started.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evals.model.run import Run, Step, Usage
from evals.otel.conventions import SpanFacts, facts_of

OK = "ok"
"""A step's status when its span did not fail."""
ERROR = "error"
"""A step's status when its span failed (its error is the role's ``role_errors`` entry)."""
MODEL_ROLE = "model"
"""The role of a model call no agent span claims."""
_NS_PER_MS = 1_000_000


def _ids(span: Any) -> tuple[int | None, int | None]:
    """(the span's id, its parent's id)."""
    context = getattr(span, "context", None)
    parent = getattr(span, "parent", None)
    return getattr(context, "span_id", None), getattr(parent, "span_id", None)


def _ordered(spans: Iterable[Any]) -> list[Any]:
    return sorted(
        spans, key=lambda s: (getattr(s, "start_time", 0) or 0, getattr(s, "end_time", 0) or 0)
    )


def _agent_of(
    span: Any, facts: dict[int | None, SpanFacts], parents: dict[int | None, int | None]
) -> str:
    """Who spoke in a model span: its own agent, else its nearest agent span's name."""
    span_id, parent = _ids(span)
    own = facts[span_id].agent
    if own:
        return own
    seen: set[int | None] = set()
    while parent is not None and parent not in seen:
        seen.add(parent)
        found = facts.get(parent)
        if found is not None and found.kind == "agent":
            return found.name
        parent = parents.get(parent)
    return MODEL_ROLE


def steps_from_spans(spans: Iterable[Any], *, model_calls: bool = True) -> list[Step]:
    """The steps of ``spans`` (module docstring); ``model_calls=False`` leaves the model
    calls out, keeping the tool calls alone."""
    ordered = _ordered(spans)
    if not ordered:
        return []
    facts = {_ids(s)[0]: facts_of(s) for s in ordered}
    parents = dict(_ids(s) for s in ordered)
    start = min(getattr(s, "start_time", 0) or 0 for s in ordered)
    steps: list[Step] = []
    for span in ordered:
        f = facts[_ids(span)[0]]
        if f.kind == "tool":
            role, kind, name, arguments = f.name, "tool_call", f.name, f.arguments
        elif f.kind == "model" and model_calls:
            role, kind, name, arguments = (
                _agent_of(span, facts, parents),
                "model_call",
                f.name,
                None,
            )
        else:
            continue
        began, ended = getattr(span, "start_time", None), getattr(span, "end_time", None)
        steps.append(
            Step(
                role=role,
                kind=kind,
                name=name,
                arguments=arguments,
                result=f.error if f.error is not None and f.result is None else f.result,
                status=ERROR if f.error is not None else OK,
                started_ms=None if began is None else (began - start) / _NS_PER_MS,
                ended_ms=None if ended is None else (ended - start) / _NS_PER_MS,
            )
        )
    return steps


def _returned(tool: SpanFacts) -> str:
    """What a tool call put into the agent's context: its result, else its error."""
    return tool.result if tool.result is not None else (tool.error or "")


def run_from_spans(
    spans: Iterable[Any],
    *,
    case_id: str,
    outcome: str,
    trial: int = 0,
    reply: str | None = None,
    model_calls: bool = True,
    **fields: Any,
) -> Run:
    """The run record of one (case, trial) from its spans.

    ``outcome`` is the agent's word for how the run ended (``answered``); ``reply``
    defaults to the last model call's text; ``fields`` are any other :class:`Run`
    fields the SUT knows from elsewhere (``writes``, ``approvals``, ``ground_truth`` read
    from its database: safety facts come from the environment, never from the spans the
    agent emits). ``role_errors`` holds each role's first error, ``usage`` the model
    calls' tokens, ``chars_returned`` the characters of the tool results (what the tools
    put into the agent's context; ``expect.max_chars`` judges it), ``latency_ms`` the
    time from the first span's start to the last one's end, ``trace_id`` the spans'
    trace (32 hex digits).
    """
    ordered = _ordered(spans)
    every = [facts_of(s) for s in ordered]
    steps = steps_from_spans(ordered, model_calls=model_calls)
    role_errors: dict[str, str] = {}
    for step, f in zip(
        steps,
        (f for f in every if f.kind == "tool" or (f.kind == "model" and model_calls)),
        strict=True,
    ):
        if f.error is not None:
            role_errors.setdefault(step.role, f.error)
    models = [f for f in every if f.kind == "model"]
    said = [f.said for f in models if f.said is not None]
    starts = [s.start_time for s in ordered if getattr(s, "start_time", None) is not None]
    ends = [s.end_time for s in ordered if getattr(s, "end_time", None) is not None]
    trace = getattr(getattr(ordered[0], "context", None), "trace_id", None) if ordered else None
    defaults: dict[str, Any] = {
        "reply": reply if reply is not None else (said[-1] if said else None),
        "steps": steps,
        "role_errors": role_errors,
        "usage": Usage(
            prompt_tokens=sum(f.input_tokens for f in models),
            completion_tokens=sum(f.output_tokens for f in models),
        ),
        "chars_returned": sum(len(_returned(f)) for f in every if f.kind == "tool"),
        "latency_ms": (max(ends) - min(starts)) / _NS_PER_MS if starts and ends else 0.0,
        "trace_id": f"{trace:032x}" if isinstance(trace, int) else None,
    }
    return Run(case_id=case_id, trial=trial, outcome=outcome, **{**defaults, **fields})
