"""Reading the JSON files the CLI depends on (baseline, gate config, reports, trace
metas) as pydantic models, every problem turned into the one-line error of that file's
kind.

Every one goes through :func:`read_json_text`, which treats the file as hostile: only a
regular file is opened (a FIFO would hang the reader, ``/dev/zero`` fill its memory), at
most :data:`MAX_JSON_BYTES`, strict JSON only (no ``NaN``/``Infinity``), no key twice in
one object (a lax second ``"hard"`` section left by a bad merge would win silently), and
nesting at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from evals.errors import FileError
from evals.io.files import not_regular

M = TypeVar("M", bound=BaseModel)


def first_problem(error: ValidationError, model: type[BaseModel] | None = None) -> str:
    """The first validation problem as ``field.path: message`` (``(file)`` at the top).
    An unknown key comes first: a typo (``case_sucess``) also makes the real key
    "missing", and the typo is what the reader must fix; with the ``model`` read, the
    key it most resembles is suggested (``hardd: … (did you mean 'hard'?)``)."""
    errors = error.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    where = ".".join(str(p) for p in first["loc"]) or "(file)"
    message = str(first["msg"]).removeprefix("Value error, ")  # our own validators' words
    if first["type"] == "extra_forbidden" and model is not None and first["loc"]:
        known = _keys_at(model, first["loc"][:-1])
        close = difflib.get_close_matches(str(first["loc"][-1]), known, n=1, cutoff=0.6)
        if close:
            message += f" (did you mean {close[0]!r}?)"
    return f"{where}: {message}"


def _keys_at(model: type[BaseModel], loc: Sequence[int | str]) -> list[str]:
    """The keys the model takes at ``loc``: a part names a field of a model, or a key or
    index of the map or list the previous field holds."""
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = None if field is None else _inner(field.annotation, optional_only=True)
        else:  # a map's key or a list's index: the item's type
            current = _inner(current, optional_only=False)
    if isinstance(current, type) and issubclass(current, BaseModel):
        fields = current.model_fields
        return [*fields, *(f.alias for f in fields.values() if f.alias)]
    return []


def _inner(annotation: Any, *, optional_only: bool) -> Any:
    """``X | None`` -> ``X``; with ``optional_only`` off, also ``list[X]`` / ``dict[K, X]``
    -> ``X`` (one level)."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    origin = get_origin(annotation)
    if origin is None or not args:
        return annotation
    if origin in (list, dict, tuple, set, frozenset):
        return annotation if optional_only else args[-1]
    return args[0] if len(args) == 1 else annotation


MAX_JSON_BYTES = 256 * 1024 * 1024
"""The largest JSON file read (a baseline of 20,000 cases is a few megabytes)."""
MAX_DEPTH = 64
"""The deepest nesting of objects and arrays accepted (the files written here nest < 10)."""


def read_bytes(
    path: Path, error: Callable[[Path, str], FileError], missing: str, limit: int, what: str
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; ``error(path, …)``
    when it is missing (saying ``missing``), not a regular file, larger, or unreadable.
    Opened without blocking, so a FIFO is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError as e:
        raise error(path, missing) from e
    except OSError as e:
        raise error(path, f"cannot read: {e.strerror or e}") from e
    try:
        info = os.fstat(fd)
        refused = not_regular(info.st_mode, what)
        if refused is not None:
            raise error(path, refused)
        if info.st_size > limit:
            raise error(path, f"larger than {limit // (1024 * 1024)} MiB: not read")
        with os.fdopen(fd, "rb", closefd=False) as f:
            # Sized by the file, not by the limit: read(limit + 1) allocates the whole
            # limit up front (256 MiB for a baseline of 2 MiB); one byte more than the size
            # shows a file that grew meanwhile, read on then up to the limit.
            data = f.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += f.read(limit + 1 - len(data))
    except OSError as e:
        raise error(path, f"cannot read: {e.strerror or e}") from e
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise error(path, f"larger than {limit // (1024 * 1024)} MiB: not read")
    return data


def read_json_text(
    path: Path,
    error: Callable[[Path, str], FileError],
    missing: str,
    *,
    limit: int = MAX_JSON_BYTES,
    what: str = "a JSON file",
) -> tuple[str, Any]:
    """The text of the JSON file ``path`` and its value, read as hostile input (see the
    module); ``error(path, …)`` naming what is wrong otherwise."""
    try:
        text = read_bytes(path, error, missing, limit, what).decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(path, f"not UTF-8 text (byte {e.start})") from e
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except _RefusedError as e:
        raise error(path, str(e)) from e
    except json.JSONDecodeError as e:
        raise error(path, f"(file): not JSON: {e.msg} at line {e.lineno} column {e.colno}") from e
    except ValueError as e:  # an integer of more digits than int() converts (4,300)
        raise error(path, "(file): a number too long to read (over 4300 digits)") from e
    except RecursionError as e:
        raise error(path, f"(file): nested deeper than {MAX_DEPTH} levels: not read") from e
    problem = _walk(value)
    if problem is not None:
        raise error(path, problem)
    return text, value


class _RefusedError(ValueError):
    """What strict JSON refuses that the json module accepts."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _RefusedError(
                f"(file): key {key!r} appears twice in one object (which one holds?)"
            )
        seen[key] = value
    return seen


def _walk(value: Any) -> str | None:
    """The first ``field.path: problem`` of a parsed value: nesting deeper than
    :data:`MAX_DEPTH`, or ``NaN``/``Infinity`` (the json module reads them; strict JSON
    has none). Iterative: no recursion limit here."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, where = stack.pop()
        if len(where) >= MAX_DEPTH:
            return f"{'.'.join(where[:3])}.…: nested deeper than {MAX_DEPTH} levels: not read"
        if isinstance(item, float) and not math.isfinite(item):
            name = "NaN" if math.isnan(item) else "Infinity"
            return f"{'.'.join(where) or '(file)'}: {name} is not JSON (finite numbers only)"
        if isinstance(item, dict):
            stack.extend((child, (*where, str(key))) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, (*where, str(i))) for i, child in enumerate(item))
    return None


def read_model(path: Path, model: type[M], error: type[FileError], missing: str) -> M:
    """Read ``path`` as ``model``; raise ``error(path, …)`` when it is missing (saying
    ``missing``), not a regular file, too large, not strict JSON, or invalid."""
    text, _ = read_json_text(path, error, missing)
    try:
        return model.model_validate_json(text)
    except ValidationError as e:
        raise error(path, first_problem(e, model)) from e
