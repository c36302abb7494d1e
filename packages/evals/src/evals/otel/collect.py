"""Gather the spans of one (case, trial) while the agent runs.

:class:`SpanCollector` is an OpenTelemetry span processor. :meth:`SpanCollector.install`
adds it to the tracer provider the agent's framework writes to (the global one by
default; an SDK provider is set up when there is none yet), and :meth:`SpanCollector.run`
opens an ``evals.run`` span around one trial: every span the framework starts inside it
belongs to that span's trace, so runs in flight at once keep their spans apart. When the
``with`` block ends, the trace's spans (its own span left out) are in
:attr:`Collected.spans` and no longer held by the collector.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

RUN_SPAN = "evals.run"
"""The name of the span a run's spans are collected under."""


@dataclass
class Collected:
    """The spans of one run, filled in when its :meth:`SpanCollector.run` block ends."""

    case_id: str
    """The case the run is a trial of."""
    trial: int
    """The trial."""
    spans: list[ReadableSpan] = field(default_factory=list)
    """The run's spans, in the order they ended (empty until the block ends)."""


class SpanCollector(SpanProcessor):
    """A span processor keeping the spans of the traces :meth:`run` opened, and no other."""

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        """The tracer provider it is added to (the framework must write to it)."""
        self._lock = threading.Lock()
        self._open: dict[int, list[ReadableSpan]] = {}

    @classmethod
    def install(cls, provider: TracerProvider | None = None) -> SpanCollector:
        """A collector added to ``provider``, or to the global tracer provider (made an
        SDK one first when none is set)."""
        if provider is None:
            current = trace.get_tracer_provider()
            if not isinstance(current, TracerProvider):
                trace.set_tracer_provider(TracerProvider())
                current = trace.get_tracer_provider()
            if not isinstance(current, TracerProvider):
                raise TypeError(f"the global tracer provider is not the SDK's: {current!r}")
            provider = current
        collector = cls(provider)
        provider.add_span_processor(collector)
        return collector

    @contextmanager
    def run(self, case_id: str, trial: int = 0) -> Iterator[Collected]:
        """Collect the spans started inside the block (see the module docstring)."""
        collected = Collected(case_id, trial)
        tracer = self.provider.get_tracer("evals.otel")
        attributes: dict[str, str | int] = {"evals.case_id": case_id, "evals.trial": trial}
        span = tracer.start_span(RUN_SPAN, attributes=attributes)
        own = span.get_span_context()
        with self._lock:
            self._open[own.trace_id] = []
        try:
            with trace.use_span(span, end_on_exit=True):
                yield collected
        finally:
            with self._lock:
                spans = self._open.pop(own.trace_id, [])
            collected.spans = [
                s for s in spans if s.context is None or s.context.span_id != own.span_id
            ]

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if context is None:
            return
        with self._lock:
            held = self._open.get(context.trace_id)
            if held is not None:
                held.append(span)

    def shutdown(self) -> None:
        with self._lock:
            self._open.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True
