"""What every read tool answered, as the agent received it, for the
``read_results_as_promised`` invariant.

A read tool's result is the agent's only view of the world: a rule brain reads its
``data``, a model reads it back as JSON (docs/models.md, "What a model reads back"). The
audit log holds what a call cost (``chars_read``), not what it answered, so the SUT
adapter wraps the run's gateway in a :class:`ReadRecorder`, outermost (what the
specialists, the orchestrator and the obedient path are handed), and writes down the
shape of every read result that came back: its tool and role, the id or key it was asked
about, its ``data`` keys, its ``found`` flag as given, how many evidence items and listed
documents it held, and its evidence excerpts (``run.detail["read_results"]``). Calls that
raised (refused, failed) return nothing and are the audit log's business.
"""

from __future__ import annotations

from typing import Any

from tools import TOOLS, ToolGateway, ToolResult

READ_RESULTS = "read_results"
"""The run record's ``detail`` key of the read results' shapes (see :func:`shape`)."""

ASKED_ABOUT = ("order_id", "sku", "idempotency_key")
"""The argument a read is about, recorded with its result (the first one given)."""


def shape(role: str, name: str, args: dict[str, Any], result: ToolResult) -> dict[str, Any]:
    """What the run record keeps of one read result: never the data itself (it repeats
    the evidence), only what the tool's promise is judged on."""
    data = result.data
    about = next((str(args[a]) for a in ASKED_ABOUT if isinstance(args.get(a), str)), None)
    documents = data.get("documents")
    qty = data.get("qty")
    return {
        "role": role,
        "tool": name,
        "about": about,
        "keys": sorted(str(k) for k in data),
        "found": data["found"] if isinstance(data.get("found"), bool) else repr(data.get("found")),
        "evidence": len(result.evidence),
        "documents": len(documents) if isinstance(documents, list) else None,
        "qty": qty if isinstance(qty, int) and not isinstance(qty, bool) else repr(qty),
        "id": data.get("id") if isinstance(data.get("id"), str | None) else repr(data.get("id")),
        "longest_excerpt": max((len(e.excerpt) for e in result.evidence), default=0),
        # The texts a reader is shown, for the composed_texts_whole invariant: a read the
        # orchestrator makes itself (the stock check) reaches no bus message.
        "excerpts": [e.excerpt for e in result.evidence],
    }


class ReadRecorder(ToolGateway):
    """Passes every call to ``inner`` unchanged; writes down the shape of each read
    tool's result (:data:`results`)."""

    def __init__(self, inner: ToolGateway) -> None:
        super().__init__(inner.store, inner.trace_id, customer=inner.context.customer)
        self.inner = inner
        self.results: list[dict[str, Any]] = []
        """One :func:`shape` per read call that returned, in call order."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """The call as ``inner`` answers it, its shape written down when it is a read."""
        result = self.inner.call(role, name, args)
        tool = TOOLS.get(name)
        if tool is not None and tool.kind == "read":
            self.results.append(shape(role, name, args, result))
        return result
