"""Pydantic validation errors as short one-line problems a case author can act on.

Pydantic's own text spans several lines and ends in a documentation URL; a case author
needs the field path, what was expected and what was given:
``world.orders.A1.paid: expected a number, got 'lots'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

_EXPECTED: dict[str, str] = {
    "float_type": "a number",
    "finite_number": "a finite number",
    "int_type": "an integer",
    "bool_type": "true or false",
    "string_type": "a string",
    "dict_type": "an object",
    "model_type": "an object",
    "list_type": "an array",
}
"""Pydantic error type -> what the field wanted, in words: the types a *strict* model
(every world model is one) reports for a JSON value. Lax-mode types (``int_parsing``,
``float_parsing``, ``bool_parsing``, ``int_from_float``) and ``model_attributes_type``
(``from_attributes``) never occur; were a model made lax, they would read as pydantic's
own one-line message, still followed by the value given."""


def _model_at(root: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model holding the value at ``loc`` below ``root`` (``None`` if not a model)."""
    current: Any = root
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return None
            current = field.annotation
        elif get_origin(current) is dict:
            current = get_args(current)[1]
        elif get_origin(current) is list:
            current = get_args(current)[0]
        else:
            return None
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current
    return None


def _quote(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to about ``limit`` characters (a 2 MB value must not fill the
    line)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested too deep, an integer too long to print
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


class _Quoted:
    """A value whose ``!r`` is :func:`_quote`'s."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return _quote(self.value)


def _bound(value: Any) -> str:
    """A constraint's bound as the case author wrote it: ``0`` for pydantic's ``0.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _message(root: type[BaseModel], error: ErrorDetails) -> str:
    kind = error["type"]
    loc = error["loc"]
    given = _Quoted(error.get("input"))
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        model = _model_at(root, loc[:-1])
        known = f" (known: {', '.join(model.model_fields)})" if model is not None else ""
        return f"unknown key {str(loc[-1])!r}{known}"
    if kind == "missing":
        return "missing required field"
    if kind == "literal_error":
        return f"expected {ctx.get('expected')}, got {given!r}"
    if kind == "greater_than_equal":
        return f"must be >= {_bound(ctx.get('ge'))}, got {given!r}"
    if kind == "less_than_equal":
        return f"must be <= {_bound(ctx.get('le'))}, got {given!r}"
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return f"must not be empty, got {given!r}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {given!r}"
    return f"{error['msg']}, got {given!r}"


def describe_validation_error(
    error: ValidationError, root: type[BaseModel], prefix: str
) -> list[str]:
    """One line per error of ``error`` (raised validating ``root``), each
    ``<prefix>.<field path>: <message>``, never pydantic's URL."""
    lines: list[str] = []
    for details in error.errors(include_url=False):
        path = ".".join([prefix, *(str(part) for part in details["loc"])])
        lines.append(f"{path}: {_message(root, details)}")
    return list(dict.fromkeys(lines))  # one mistake can be reported twice by unions
