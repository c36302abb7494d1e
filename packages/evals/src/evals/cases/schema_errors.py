"""Schema errors in words: one jsonschema error of a case line as (field path, message)
pairs a person can act on. The loader and a project's vocabulary both describe their
schema errors this way."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from evals._text import cut, quote
from evals.cases.case_file import dotted

if TYPE_CHECKING:  # jsonschema is imported only where a line fails (evals.cases.loader)
    from jsonschema.exceptions import (  # type: ignore[import-untyped,unused-ignore]
        ValidationError as SchemaError,
    )

FAULT_HINT = (
    "a kind in lowercase letters and '_', optionally ':argument' (e.g. 'crash', 'flaky:0.3');"
    " which kinds exist is the system under test's to say"
)
"""The shape of a fault kind, in words (the kinds themselves are the SUT's business)."""

_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _types_of(schemas: Iterable[Any]) -> list[str]:
    types: list[str] = []
    for sub in schemas:
        kind = sub.get("type") if isinstance(sub, dict) else None
        if isinstance(kind, str):
            types.append(kind)
    return types


def describe_schema_error(error: SchemaError) -> list[tuple[str, str]]:
    """Turn one jsonschema error into (field path, message) pairs a person can act on."""
    path = list(error.absolute_path)
    value = error.instance
    rule = error.validator
    if rule == "required":
        missing = [k for k in error.validator_value if k not in value]
        return [(dotted([*path, k]), "missing required field") for k in missing]
    if rule == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extras = [k for k in value if k not in allowed]
        hint = ", ".join(allowed)
        return [(dotted([*path, k]), f"unknown field {quote(k)}; allowed: {hint}") for k in extras]
    where = dotted(path) or "(line)"
    if rule == "type":
        expected = error.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return [(where, f"expected {wanted}, got {json_type(value)} {quote(value)}")]
    if rule in ("enum", "const"):
        options = error.validator_value if rule == "enum" else [error.validator_value]
        label = str(path[-1]) if path and path[-1] in ("split", "outcome") else "value"
        choices = ", ".join(repr(o) for o in options)
        return [(where, f"unknown {label} {quote(value)}; expected one of {choices}")]
    if rule == "pattern":
        if path and path[0] == "faults":
            role = quote(path[-1])
            message = f"unknown fault kind {quote(value)} for role {role}; expected {FAULT_HINT}"
            return [(where, message)]
        return [(where, f"{quote(value)} does not match {error.validator_value!r}")]
    if rule == "minLength":
        return [(where, f"must not be empty, got {quote(value)}")]
    if rule == "minimum":
        return [(where, f"must be >= {error.validator_value}, got {quote(value)}")]
    if rule in ("anyOf", "oneOf"):
        # A nullable field: say which branch the value came closest to, in plain words.
        deeper = [e for e in error.context or [] if e.validator != "type"]
        if deeper:
            return describe_schema_error(deeper[0])
        wanted = " or ".join(_types_of(error.validator_value))
        return [(where, f"expected {wanted}, got {json_type(value)} {quote(value)}")]
    return [(where, cut(error.message))]
