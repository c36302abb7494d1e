"""The tool-argument limits of docs/models.md ("Tool arguments") are the tools' schemas,
and the scripted model's :data:`ARGUMENT_LIMITS` (what the model-path cases m34–m39 stretch
an argument to) is that table, read from the docs rather than from the schema under test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from agent_evals.scripted_model import ARGUMENT_LIMITS, stretched
from tools.catalog import READ_TOOLS
from tools.outbox import FIND_WRITE, WRITE_TOOLS

ROOT = Path(__file__).resolve().parents[3]


def documented_limits() -> dict[tuple[str, str], int]:
    """(tool, argument) -> its longest length, from the docs table."""
    doc = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    section = doc.split("## Tool arguments", 1)[1].split("\n## ", 1)[0]
    found: dict[tuple[str, str], int] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[2].isdigit():
            for argument in re.findall(r"`(\w+)`", cells[1]):
                found[(cells[0].strip("`"), argument)] = int(cells[2])
    return found


def schema_limits() -> dict[tuple[str, str], int]:
    """(tool, argument) -> the ``maxLength`` its schema holds, for every string argument."""
    return {
        (tool.name, name): int(prop["maxLength"])
        for tool in [*READ_TOOLS, FIND_WRITE, *WRITE_TOOLS]
        for name, prop in tool.parameters["properties"].items()
        if prop.get("type") == "string"
    }


def test_the_tools_schemas_hold_the_documented_limits() -> None:
    documented = documented_limits()
    assert len(documented) >= 14
    assert schema_limits() == documented


def test_the_scripted_model_stretches_to_the_documented_limits() -> None:
    documented = documented_limits()
    for tool, (argument, limit) in ARGUMENT_LIMITS.items():
        assert documented[(tool, argument)] == limit, tool
    # Every read tool a model brain is offered has its case pair.
    assert set(ARGUMENT_LIMITS) == {"orders__get_order", "logistics__track", "kb__search"}


@pytest.mark.parametrize(
    ("tool", "loosened"),
    [("kb__search", 201), ("orders__get_order", 65), ("support__create_ticket", 2001)],
)
def test_a_loosened_schema_limit_is_caught(
    monkeypatch: pytest.MonkeyPatch, tool: str, loosened: int
) -> None:
    """The positive control: a schema one character looser than the docs fails the
    comparison."""
    target = next(t for t in [*READ_TOOLS, *WRITE_TOOLS] if t.name == tool)
    argument = {"kb__search": "query", "support__create_ticket": "summary"}.get(tool, "order_id")
    changed = {**target.parameters["properties"][argument], "maxLength": loosened}
    monkeypatch.setitem(target.parameters["properties"], argument, changed)
    assert schema_limits() != documented_limits()


@pytest.mark.parametrize(("value", "length"), [("A1001", 64), ("补发 物流 停滞", 201), ("", 3)])
def test_stretched_is_exactly_as_long(value: str, length: int) -> None:
    text = stretched(value, length)
    assert len(text) == length and text.startswith(value)
