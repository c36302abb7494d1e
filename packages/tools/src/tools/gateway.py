"""The gateway every tool call goes through: allowlist, argument schema, handler, and an
audit row for every call whatever its fate."""

from __future__ import annotations

import json
from typing import Any

from domain import AuditEntry, DomainError, Store

from tools.allowlist import is_allowed
from tools.catalog import READ_TOOLS
from tools.errors import (
    InvalidArgumentsError,
    ToolError,
    ToolFailedError,
    ToolRefusedError,
    UnknownToolError,
)
from tools.outbox import FIND_WRITE, WRITE_TOOLS
from tools.registry import Tool, ToolContext, ToolResult

TOOLS: dict[str, Tool] = {tool.name: tool for tool in [*READ_TOOLS, FIND_WRITE, *WRITE_TOOLS]}
"""The registry: tool name -> tool."""

MAX_AUDIT_ARGS_CHARS = 16000
CRASHED = "crashed"
"""The audit status of a call whose handler raised what the tool layer does not know."""
REPLAYED = "replayed: this idempotency key was already written; nothing new was written"
"""The audit reason of a write call the outbox answered from an earlier write (its result's
``created`` flag is false): an operator reading the audit log tells a retry from a write."""


def _args_json(args: object) -> str:
    return json.dumps(args, ensure_ascii=False, default=repr)[:MAX_AUDIT_ARGS_CHARS]


class ToolGateway:
    """Calls tools for one run (one trace) against one world, on behalf of ``customer``
    when the channel authenticated one (``None``: no ownership check applies)."""

    def __init__(self, store: Store, trace_id: str, *, customer: str | None = None) -> None:
        self.store = store
        self.context = ToolContext(store=store, trace_id=trace_id, customer=customer)

    @property
    def trace_id(self) -> str:
        """The run this gateway serves."""
        return self.context.trace_id

    def _audit(
        self,
        role: str,
        name: str,
        args: object,
        *,
        status: str,
        reason: str = "",
        chars_read: int = 0,
    ) -> None:
        tool = TOOLS.get(name)
        self.store.record_audit(
            AuditEntry(
                trace_id=self.trace_id,
                role=role,
                tool=name,
                kind=tool.kind if tool else "unknown",
                allowed=status != "refused",
                status=status,
                reason=reason,
                args=_args_json(args),
                chars_read=chars_read,
            )
        )

    def _checked(self, role: str, name: str, args: object) -> Tool:
        tool = TOOLS.get(name)
        if tool is None:
            raise UnknownToolError(role, name)
        if not is_allowed(role, name):
            raise ToolRefusedError(role, name)
        problems = tool.argument_errors(args)
        if problems:
            raise InvalidArgumentsError(name, "; ".join(problems))
        return tool

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role``.

        Raises :class:`UnknownToolError` / :class:`ToolRefusedError` (the handler is never
        reached), :class:`InvalidArgumentsError` (schema violation, handler not run) or
        :class:`ToolFailedError`; anything else the handler raised is raised as it is
        (audited ``crashed``). Every call is audited, whatever its fate.
        """
        try:
            tool = self._checked(role, name, args)
            injected = self.store.tool_errors.get(name)
            if injected is not None:
                # The case's world makes this tool fail with its own error text.
                raise ToolFailedError(name, injected)
            try:
                result = tool.handler(self.context, args)
            except DomainError as e:
                raise ToolFailedError(name, str(e)) from e
        except ToolError as e:
            self._audit(role, name, args, status=e.status, reason=str(e))
            raise
        except Exception as e:
            # A failure the tool layer does not know (a handler's bug, an error of the
            # database the store does not translate) is no tool failure: audited as a
            # crash, naming it, and raised as it is, for the caller to stop on.
            reason = f"tool {name!r} crashed: {type(e).__name__}: {e}"
            self._audit(role, name, args, status=CRASHED, reason=reason)
            raise
        # A write answered from an earlier one under its key says so in the audit log.
        replayed = tool.kind == "write" and result.data.get("created") is False
        reason = REPLAYED if replayed else ""
        self._audit(role, name, args, status="ok", reason=reason, chars_read=result.chars_read)
        return result
