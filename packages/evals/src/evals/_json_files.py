"""Reading the JSON files the gate depends on (baseline, gate config) as pydantic models,
every problem turned into the one-line error of that file's kind."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from evals.errors import FileError

M = TypeVar("M", bound=BaseModel)


def first_problem(error: ValidationError) -> str:
    """The first validation problem as ``field.path: message`` (``(file)`` at the top).
    An unknown key comes first: a typo (``case_sucess``) also makes the real key
    "missing", and the typo is what the reader must fix."""
    errors = error.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    where = ".".join(str(p) for p in first["loc"]) or "(file)"
    message = str(first["msg"]).removeprefix("Value error, ")  # our own validators' words
    return f"{where}: {message}"


def read_model(path: Path, model: type[M], error: type[FileError], missing: str) -> M:
    """Read ``path`` as ``model``; raise ``error(path, …)`` when it is missing (saying
    ``missing``), unreadable or invalid."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise error(path, missing) from e
    except (OSError, UnicodeDecodeError) as e:
        raise error(path, f"cannot read: {e}") from e
    try:
        return model.model_validate_json(text)
    except ValidationError as e:
        raise error(path, first_problem(e)) from e
