"""OpenTelemetry in: spans of both conventions read into the run record, built with the
real OpenTelemetry SDK (every span here is one its tracer really made)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the OpenTelemetry SDK (supportpilot-evals[otel])")

from evals.checks import Mismatch
from evals.checks.cost import max_chars
from evals.model.case import Case, Expect
from evals.otel import SpanCollector, facts_of, run_from_spans, steps_from_spans
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode


class Tracing:
    """A tracer provider of the SDK's own, its finished spans kept in memory."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("test")

    @contextmanager
    def span(self, name: str, error: str | None = None, **attributes: Any) -> Iterator[Any]:
        with self.tracer.start_as_current_span(
            name, attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as span:
            yield span
            if error is not None:
                span.set_status(Status(StatusCode.ERROR, error))

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())


def genai_chat(
    t: Tracing, text: str | None = None, calls: tuple[str, ...] = (), **extra: Any
) -> None:
    parts: list[dict[str, Any]] = [
        {"type": "tool_call", "name": c, "arguments": "{}"} for c in calls
    ]
    if text is not None:
        parts.append({"type": "text", "content": text})
    with t.span(
        "chat fake-model",
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "fake-model",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 3,
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            **extra,
        },
    ):
        pass


def genai_tool(
    t: Tracing, name: str, arguments: str, result: str, error: str | None = None
) -> None:
    with t.span(
        f"execute_tool {name}",
        error=error,
        **{
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": arguments,
            "gen_ai.tool.call.result": result,
        },
    ):
        pass


def a_genai_run(t: Tracing, tool_error: str | None = None) -> None:
    """pydantic-ai's shape: an agent span around two model calls and a tool call."""
    with t.span(
        "invoke_agent desk",
        **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
    ):
        genai_chat(t, calls=("lookup_order",))
        genai_tool(t, "lookup_order", '{"order_id": "A1"}', "A1: shipped", error=tool_error)
        genai_chat(t, text="Your order A1 is shipped.")


CALLED = "llm.output_messages.0.message.tool_calls.0.tool_call.function.name"


def an_openinference_run(t: Tracing) -> None:
    """The OpenAI Agents SDK's shape through OpenInference: workflow, agent, turns."""
    with (
        t.span("Agent workflow", **{"openinference.span.kind": "CHAIN"}),
        t.span("desk", **{"openinference.span.kind": "AGENT", "agent.name": "desk"}),
    ):
        with t.span("turn", **{"openinference.span.kind": "CHAIN"}):
            with t.span(
                "generation",
                **{
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "fake-model",
                    "llm.token_count.prompt": 7,
                    "llm.token_count.completion": 5,
                    "llm.output_messages.0.message.role": "assistant",
                    CALLED: "lookup_order",
                },
            ):
                pass
            with t.span(
                "lookup_order",
                **{
                    "openinference.span.kind": "TOOL",
                    "tool.name": "lookup_order",
                    "input.value": '{"order_id": "A1"}',
                    "output.value": "A1: shipped",
                },
            ):
                pass
        with (
            t.span("turn", **{"openinference.span.kind": "CHAIN"}),
            t.span(
                "generation",
                **{
                    "openinference.span.kind": "LLM",
                    "llm.model_name": "fake-model",
                    "llm.token_count.prompt": 9,
                    "llm.token_count.completion": 6,
                    "llm.output_messages.0.message.content": "Your order A1 is shipped.",
                },
            ),
        ):
            pass


@pytest.mark.parametrize(
    "make", [a_genai_run, an_openinference_run], ids=["genai", "openinference"]
)
def test_both_conventions_make_the_same_transcript(make: Any) -> None:
    t = Tracing()
    make(t)
    run = run_from_spans(t.spans(), case_id="c1", trial=2, outcome="answered")
    assert [(s.role, s.kind, s.name, s.status) for s in run.steps] == [
        ("desk", "model_call", "fake-model", "ok"),
        ("lookup_order", "tool_call", "lookup_order", "ok"),
        ("desk", "model_call", "fake-model", "ok"),
    ]
    assert run.steps[0].result == "calls lookup_order"
    assert run.steps[1].arguments == {"order_id": "A1"}
    assert run.steps[1].result == "A1: shipped"
    assert run.reply == "Your order A1 is shipped."
    assert (run.case_id, run.trial, run.outcome) == ("c1", 2, "answered")
    assert run.dispatched == ["desk", "lookup_order"]
    assert run.usage.total_tokens > 0
    assert run.chars_returned == len("A1: shipped")  # the tool's result, not the answers
    assert run.trace_id is not None and len(run.trace_id) == 32
    times = [(s.started_ms, s.ended_ms) for s in run.steps]
    assert all(a is not None and b is not None and 0 <= a <= b <= run.latency_ms for a, b in times)
    assert [a for a, _ in times] == sorted(a for a, _ in times)


def test_tokens_are_the_model_calls_own_not_an_aggregate() -> None:
    t = Tracing()
    with t.span(
        "invoke_agent desk",
        **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk",
           "gen_ai.aggregated_usage.input_tokens": 20, "gen_ai.usage.input_tokens": 20},
    ):  # fmt: skip
        genai_chat(t, text="a")
        genai_chat(t, text="b")
    run = run_from_spans(t.spans(), case_id="c", outcome="answered")
    assert (run.usage.prompt_tokens, run.usage.completion_tokens) == (20, 6)
    assert run.reply == "b"


def test_the_context_a_tool_filled_is_counted_whole_and_held_to_its_budget() -> None:
    t = Tracing()
    with t.span("invoke_agent desk", **{"gen_ai.operation.name": "invoke_agent"}):
        genai_tool(t, "search", "{}", "x" * 5000)
        genai_tool(t, "lookup_order", "{}", "A1: shipped")
        genai_tool(t, "ping", "{}", "")
        genai_chat(t, text="y" * 900)
    run = run_from_spans(t.spans(), case_id="c", outcome="answered")
    assert run.chars_returned == 5000 + len("A1: shipped")  # cut in the step, not here
    assert run.steps[0].result is not None and len(run.steps[0].result) < 5000
    case = Case(id="c", split="tune", input={}, expect=Expect(max_chars=5000))
    assert max_chars(case, run) == Mismatch(
        "returned 5011 characters into the agent's context, budget is 5000", "at most 5000", 5011
    )
    assert max_chars(case.model_copy(update={"expect": Expect(max_chars=5011)}), run) is True


def test_a_failed_tool_is_an_error_step_and_its_roles_first_error() -> None:
    t = Tracing()
    a_genai_run(t, tool_error="order database unavailable")
    run = run_from_spans(t.spans(), case_id="c", outcome="answered")
    tool = run.steps[1]
    assert (tool.role, tool.status) == ("lookup_order", "error")
    assert run.role_errors == {"lookup_order": "order database unavailable"}


def test_an_exception_event_names_the_error() -> None:
    t = Tracing()
    with t.tracer.start_as_current_span(
        "execute_tool refund",
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "refund"},
    ) as span:
        span.record_exception(ValueError("amount over the limit"))
        span.set_status(Status(StatusCode.ERROR))
    (step,) = steps_from_spans(t.spans())
    assert step.status == "error"
    assert step.result == "ValueError: amount over the limit"


@pytest.mark.parametrize(
    ("attributes", "kind", "name"),
    [
        ({"gen_ai.operation.name": "chat", "gen_ai.request.model": "m1"}, "model", "m1"),
        (
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "m1",
                "gen_ai.response.model": "m1-2026",
            },
            "model",
            "m1-2026",
        ),
        ({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"}, "tool", "t"),
        ({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "a"}, "agent", "a"),
        ({"openinference.span.kind": "LLM", "llm.model_name": "m2"}, "model", "m2"),
        ({"openinference.span.kind": "TOOL", "tool.name": "t2"}, "tool", "t2"),
        ({"openinference.span.kind": "AGENT", "agent.name": "a2"}, "agent", "a2"),
        ({"openinference.span.kind": "CHAIN"}, None, "span"),
        ({"db.system": "sqlite"}, None, "span"),
        ({"gen_ai.operation.name": "embeddings"}, None, "span"),
    ],
)
def test_what_a_span_is(attributes: dict[str, Any], kind: str | None, name: str) -> None:
    t = Tracing()
    with t.span("span", **attributes):
        pass
    facts = facts_of(t.spans()[0])
    assert (facts.kind, facts.name) == (kind, name)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"order_id": "A1"}', {"order_id": "A1"}),
        ("A1", {"input": "A1"}),  # not JSON
        ("[1, 2]", {"input": [1, 2]}),  # JSON, not an object
    ],
)
def test_tool_arguments(value: str, expected: dict[str, Any]) -> None:
    t = Tracing()
    genai_tool(t, "t", value, "r")
    assert facts_of(t.spans()[0]).arguments == expected


@pytest.mark.parametrize("tokens", [-5, "12", True, 1.5e3])
def test_a_token_count_that_is_not_one_counts_nothing_wrong(tokens: Any) -> None:
    t = Tracing()
    with t.span("chat", **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": tokens}):
        pass
    got = facts_of(t.spans()[0]).input_tokens
    assert got == (1500 if tokens == 1.5e3 else 0)


def test_model_calls_can_be_left_out() -> None:
    t = Tracing()
    a_genai_run(t)
    run = run_from_spans(t.spans(), case_id="c", outcome="answered", model_calls=False)
    assert [s.role for s in run.steps] == ["lookup_order"]
    assert run.reply == "Your order A1 is shipped."  # still the last model call's text


def test_fields_from_the_environment_win_and_an_empty_trace_is_an_empty_run() -> None:
    run = run_from_spans(
        [], case_id="c", outcome="no_answer", reply="given", ground_truth={"x": "1"}
    )
    assert (run.steps, run.reply, run.latency_ms, run.trace_id) == ([], "given", 0.0, None)
    assert run.ground_truth == {"x": "1"}


def test_the_collector_keeps_each_runs_spans_apart_even_at_once() -> None:
    t = Tracing()
    collector = SpanCollector.install(t.provider)
    results: dict[str, Any] = {}
    barrier = threading.Barrier(2)

    def trial(case_id: str, tool: str) -> None:
        with collector.run(case_id, 0) as got:
            barrier.wait()
            genai_tool(t, tool, "{}", "done")
            barrier.wait()
        results[case_id] = got

    threads = [threading.Thread(target=trial, args=(c, f"tool_{c}")) for c in ("a", "b")]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    genai_tool(t, "outside", "{}", "x")  # no run open: not kept
    for case_id in ("a", "b"):
        got = results[case_id]
        assert [s.name for s in got.spans] == [f"execute_tool tool_{case_id}"]
        assert run_from_spans(got.spans, case_id=case_id, outcome="ok").dispatched == [
            f"tool_{case_id}"
        ]
    assert collector._open == {}
