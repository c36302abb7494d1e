"""The outbox: the only way to write. A write needs an approved approval and the run's
idempotency key (``<trace_id>:ticket`` / ``<trace_id>:reply``); a repeated key writes
nothing new, and ``support__find_write`` says whether a key was written (a writer that
lost the acknowledgements learns whether its write landed)."""

from __future__ import annotations

from typing import Any, Literal

from domain import ApprovalRequiredError, OutOfStockError

from tools.errors import ToolFailedError
from tools.evidence import MAX_EXCERPT_CHARS
from tools.registry import Tool, ToolContext, ToolResult, object_schema, string


def idempotency_key(trace_id: str, kind: str) -> str:
    """The key a run writes its ``ticket`` or ``reply`` under."""
    return f"{trace_id}:{kind}"


def _check_key(ctx: ToolContext, tool: str, kind: str, key: str) -> None:
    expected = idempotency_key(ctx.trace_id, kind)
    if key != expected:
        raise ToolFailedError(tool, f"idempotency key {key!r} is not {expected!r}")


def create_ticket(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """File a reissue ticket (reserving one unit) under an approved approval."""
    tool = "support__create_ticket"
    _check_key(ctx, tool, "ticket", args["idempotency_key"])
    try:
        ticket, created = ctx.store.create_ticket(
            trace_id=ctx.trace_id,
            order_id=args["order_id"],
            sku=args["sku"],
            approval_id=args["approval_id"],
            idempotency_key=args["idempotency_key"],
            summary=args["summary"],
        )
    except (ApprovalRequiredError, OutOfStockError) as e:
        raise ToolFailedError(tool, str(e)) from e
    return ToolResult(tool=tool, data={"ticket_id": ticket.id, "created": created})


def send_reply(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Send the reply to the customer under an approved approval."""
    tool = "support__send_reply"
    _check_key(ctx, tool, "reply", args["idempotency_key"])
    try:
        reply, created = ctx.store.send_reply(
            trace_id=ctx.trace_id,
            order_id=args["order_id"],
            text=args["text"],
            approval_id=args["approval_id"],
            idempotency_key=args["idempotency_key"],
        )
    except ApprovalRequiredError as e:
        raise ToolFailedError(tool, str(e)) from e
    return ToolResult(tool=tool, data={"reply_id": reply.id, "created": created})


def find_write(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Look up what the outbox wrote under this run's own idempotency key: after its
    acknowledgements were lost, the one way a writer learns whether its write landed."""
    tool = "support__find_write"
    key = args["idempotency_key"]
    kind: Literal["ticket", "reply"] = "ticket" if key.endswith(":ticket") else "reply"
    _check_key(ctx, tool, kind, key)
    written = ctx.store.written(kind, key)
    return ToolResult(tool=tool, data={"kind": kind, "found": written is not None, "id": written})


FIND_WRITE = Tool(
    name="support__find_write",
    kind="read",
    description="Whether this run's ticket or reply was written, by its idempotency key"
    " (after a lost acknowledgement).",
    parameters=object_schema({"idempotency_key": string(200, pattern=r":(ticket|reply)$")}),
    handler=find_write,
)
"""The outbox's one read: a write looked up by the run's idempotency key."""

WRITE_TOOLS = [
    Tool(
        name="support__create_ticket",
        kind="write",
        description="File a reissue ticket. Needs an approved approval id and an idempotency key.",
        parameters=object_schema(
            {
                "order_id": string(),
                "sku": string(),
                "approval_id": string(200),
                "idempotency_key": string(200, pattern=r":ticket$"),
                "summary": string(2000),
            }
        ),
        handler=create_ticket,
    ),
    Tool(
        name="support__send_reply",
        kind="write",
        description="Send the reply to the customer. Needs an approved approval id and an "
        "idempotency key.",
        parameters=object_schema(
            {
                "order_id": string(),
                "text": string(MAX_EXCERPT_CHARS),
                "approval_id": string(200),
                "idempotency_key": string(200, pattern=r":reply$"),
            }
        ),
        handler=send_reply,
    ),
]
