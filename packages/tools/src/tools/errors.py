"""Errors raised by the tool layer: one base class, one subclass per failure."""

from __future__ import annotations


class ToolError(Exception):
    """Base class of every tool-layer error. ``status`` is what the audit log records."""

    status = "error"


class UnknownToolError(ToolError):
    """No tool of that name exists; the call was refused."""

    status = "refused"

    def __init__(self, role: str, tool: str) -> None:
        super().__init__(f"refused: role {role!r} called unknown tool {tool!r}")
        self.role = role
        self.tool = tool


class ToolRefusedError(ToolError):
    """The caller's allowlist does not include the tool: unauthorized, never executed."""

    status = "refused"

    def __init__(self, role: str, tool: str) -> None:
        super().__init__(f"refused: unauthorized: role {role!r} may not call {tool!r}")
        self.role = role
        self.tool = tool


class NotCustomersOrderError(ToolError):
    """The order belongs to another customer than the one the conversation is
    authenticated as: refused, nothing about the order is returned."""

    status = "refused"

    def __init__(self, tool: str, order_id: str, customer: str) -> None:
        super().__init__(
            f"refused: {tool!r}: order {order_id!r} does not belong to customer {customer!r}"
        )
        self.tool = tool
        self.order_id = order_id
        self.customer = customer


class InvalidArgumentsError(ToolError):
    """The arguments do not match the tool's JSON Schema; the handler did not run."""

    status = "invalid_arguments"

    def __init__(self, tool: str, detail: str) -> None:
        super().__init__(f"invalid arguments for {tool!r}: {detail}")
        self.tool = tool
        self.detail = detail


class ToolFailedError(ToolError):
    """The handler ran and failed (e.g. a write without approval, out of stock)."""

    status = "error"

    def __init__(self, tool: str, detail: str) -> None:
        super().__init__(f"{tool!r} failed: {detail}")
        self.tool = tool
        self.detail = detail


class AcknowledgementLostError(ToolError):
    """A write's acknowledgement never reached the caller: the write may or may not have
    landed. Retrying it under the same idempotency key is safe (the outbox writes a
    repeated key once)."""

    status = "lost_ack"

    def __init__(self, tool: str) -> None:
        super().__init__(f"{tool!r}: acknowledgement lost; the write may have landed")
        self.tool = tool
