"""Tool definitions: name, read/write kind, JSON Schema of the arguments, handler."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain import Store, ToolKind
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from pydantic import BaseModel, Field

from tools.evidence import Evidence


@dataclass(frozen=True)
class ToolContext:
    """What a handler may use: the world's store, the run's trace id and the customer
    the conversation is authenticated as (``None``: the channel gave none, so no
    ownership check applies)."""

    store: Store
    trace_id: str
    customer: str | None = None
    counters: dict[str, int] = field(default_factory=dict)

    def next_id(self, prefix: str) -> str:
        """The next evidence id for ``prefix`` in this run (``order#1``, ``order#2`` …)."""
        self.counters[prefix] = self.counters.get(prefix, 0) + 1
        return f"{prefix}#{self.counters[prefix]}"


class ToolResult(BaseModel):
    """What a tool call returns."""

    tool: str
    """The tool called."""
    evidence: list[Evidence] = Field(default_factory=list)
    """Evidence items (read tools)."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Structured values (what was found, what was written)."""

    @property
    def chars_read(self) -> int:
        """Characters of evidence returned, for the budget."""
        return sum(len(item.excerpt) for item in self.evidence)


Handler = Callable[[ToolContext, dict[str, Any]], ToolResult]
"""A tool's implementation over the domain store; runs only on validated arguments."""


@dataclass(frozen=True)
class Tool:
    """One tool of the registry."""

    name: str
    kind: ToolKind
    description: str
    parameters: dict[str, Any]
    handler: Handler
    validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        Draft202012Validator.check_schema(self.parameters)
        object.__setattr__(self, "validator", Draft202012Validator(self.parameters))

    def argument_errors(self, args: object) -> list[str]:
        """Every way ``args`` violates the schema (empty: valid)."""
        return [
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in self.validator.iter_errors(args)
        ]


def string(max_length: int = 64, pattern: str | None = None) -> dict[str, Any]:
    """A JSON Schema for a non-empty string."""
    schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": max_length}
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def object_schema(
    properties: dict[str, dict[str, Any]], required: list[str] | None = None
) -> dict[str, Any]:
    """A JSON Schema for an object with exactly these properties."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }
