"""The JSON Schema of a case, generated from the :class:`~evals.model.case.Case` model.

``case.schema.json`` is committed next to this module (package data) so editors can
validate case files, and the loader validates every line against it with jsonschema
before pydantic builds the model. Regenerate it after changing the models::

    python -m evals.model.schema          # rewrite the committed file
    python -m evals.model.schema --check  # exit 1 when the committed file is out of date
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import sys
import textwrap
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evals.model.case import Case, Expect

SCHEMA_FILE = "case.schema.json"
"""The schema's file name inside the ``evals`` package."""

SCHEMA_ID = "https://supportpilot.invalid/evals/case.schema.json"
"""A stable identifier for the schema (not fetched from anywhere)."""


def attribute_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field of ``model`` with the docstring written under it (cleaned as
    ``inspect.cleandoc`` does), read from the class's source."""
    body = ast.parse(textwrap.dedent(inspect.getsource(model))).body[0]
    if not isinstance(body, ast.ClassDef):
        raise TypeError(f"{model.__name__}: its source is no class")
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body.body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _describe(properties: dict[str, Any], model: type[BaseModel]) -> None:
    """Give each property of ``model`` without a description its field's docstring,
    keys in the sorted order pydantic writes them."""
    for name, doc in attribute_docs(model).items():
        prop = properties.get(name)
        if isinstance(prop, dict) and "description" not in prop:
            properties[name] = dict(sorted({**prop, "description": doc}.items()))


def build_schema() -> dict[str, Any]:
    """The case JSON Schema as generated from the current models, each field described
    by its docstring."""
    schema = Case.model_json_schema()
    _describe(schema["properties"], Case)
    _describe(schema["$defs"]["Expect"]["properties"], Expect)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }


def render_schema() -> str:
    """The schema as committed: indented, UTF-8, keys in model order, final newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def schema_path() -> Path:
    """Where the committed schema lives in the source tree."""
    return Path(__file__).with_name(SCHEMA_FILE)


@cache
def load_schema() -> dict[str, Any]:
    """The committed schema, read once from the installed package data."""
    text = resources.files("evals.model").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the committed schema, or with ``--check`` report whether it is stale."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = schema_path()
    wanted = render_schema()
    if "--check" in args:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != wanted:
            print(f"{path}: out of date; run `python -m evals.model.schema`", file=sys.stderr)
            return 1
        return 0
    path.write_text(wanted, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
