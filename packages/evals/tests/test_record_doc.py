"""docs/record.md lists every field of the run record, each under its model's heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from evals.model import run as record
from pydantic import BaseModel

DOC = Path(__file__).resolve().parents[3] / "docs" / "record.md"
MODELS = [
    record.Run,
    record.Step,
    record.Write,
    record.ApprovalRecord,
    record.BlockedAttempt,
    record.Usage,
]


def _sections() -> dict[str, set[str]]:
    fields: dict[str, set[str]] = {}
    current = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = re.fullmatch(r"### `(\w+)`", line)
        if heading:
            current = heading.group(1)
            fields[current] = set()
        row = re.match(r"\| `(\w+)` \|", line)
        if row and current is not None:
            fields[current].add(row.group(1))
    return fields


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_of_the_record_is_documented(model: type[BaseModel]) -> None:
    documented = _sections().get(model.__name__)
    assert documented is not None, f"docs/record.md has no section for {model.__name__}"
    assert documented == set(model.model_fields)
