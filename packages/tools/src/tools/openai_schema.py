"""OpenAI function-calling schemas, generated from the same tool definitions."""

from __future__ import annotations

from typing import Any

from tools.allowlist import allowed_tools
from tools.gateway import TOOLS


def openai_schemas(role: str) -> list[dict[str, Any]]:
    """The ``tools`` parameter of a chat completion for ``role``: only its allowlist,
    in a stable (alphabetical) order."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for name in sorted(allowed_tools(role))
        for tool in [TOOLS[name]]
    ]
