"""SupportPilot tools: a JSON-Schema'd registry, per-role allowlists, the outbox and the
audit log."""

from tools.allowlist import ALLOWLISTS, allowed_tools, is_allowed
from tools.catalog import READ_TOOLS
from tools.errors import (
    AcknowledgementLostError,
    InvalidArgumentsError,
    NotCustomersOrderError,
    ToolError,
    ToolFailedError,
    ToolRefusedError,
    UnknownToolError,
)
from tools.evidence import MAX_EXCERPT_CHARS, Evidence, build_excerpt
from tools.gateway import TOOLS, ToolGateway
from tools.openai_schema import openai_schemas
from tools.outbox import FIND_WRITE, idempotency_key
from tools.registry import Tool, ToolContext, ToolResult

__all__ = [
    "ALLOWLISTS",
    "FIND_WRITE",
    "MAX_EXCERPT_CHARS",
    "READ_TOOLS",
    "TOOLS",
    "AcknowledgementLostError",
    "Evidence",
    "InvalidArgumentsError",
    "NotCustomersOrderError",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolFailedError",
    "ToolGateway",
    "ToolRefusedError",
    "ToolResult",
    "UnknownToolError",
    "allowed_tools",
    "build_excerpt",
    "idempotency_key",
    "is_allowed",
    "openai_schemas",
]
