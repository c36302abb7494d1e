"""The ``tool_results_read`` check (agent_evals.checks): on the model path, what the model
reads back from each read tool holds what docs/models.md says, read from the scripted
server's side. Its positive controls are model paths that leave a key out; the unbroken
agent passes on the look-ups that find something and on those that find nothing."""

from __future__ import annotations

import json
from typing import Any

import agent.openai_brain
import pytest
from evals.checks import grade
from evals.model.case import Case
from tools import ToolResult

from .conftest import scripted_sut


def _case(order_id: str) -> Case:
    return Case.model_validate(
        {
            "id": "trr",
            "split": "dev",
            "input": {"goal": "包裹一直没到，要求马上补发", "order_id": order_id},
            "expect": {"outcome": "escalate"},
        }
    )


def _verdict(order_id: str) -> tuple[bool, str, list[Any]]:
    case = _case(order_id)
    run = scripted_sut().run(case, 0)
    result = next(r for r in grade(case, run) if r.name == "tool_results_read")
    return result.passed, result.reason, run.detail["model_server"]["tool_results"]


@pytest.mark.parametrize("order_id", ["A1001", "A9999"], ids=["found", "not_found"])
def test_the_agent_tells_the_model_what_each_read_found(order_id: str) -> None:
    passed, reason, read = _verdict(order_id)
    assert passed, reason
    assert ["orders__get_order", "evidence,found"] in read


def _without(key: str, tool: str) -> Any:
    content = agent.openai_brain.tool_content

    def left_out(result: ToolResult) -> str:
        payload = json.loads(content(result))
        if result.tool == tool:
            payload.pop(key, None)
        return json.dumps(payload, ensure_ascii=False)

    return left_out


@pytest.mark.parametrize(
    ("order_id", "key", "tool", "words"),
    [
        ("A9999", "found", "orders__get_order", "a orders__get_order result without found"),
        ("A1001", "found", "logistics__track", "a logistics__track result without found"),
        ("A1001", "evidence", "kb__search", "a kb__search result without evidence"),
    ],
)
def test_a_result_without_a_documented_key_fails(
    monkeypatch: pytest.MonkeyPatch, order_id: str, key: str, tool: str, words: str
) -> None:
    monkeypatch.setattr(agent.openai_brain, "tool_content", _without(key, tool))
    passed, reason, _ = _verdict(order_id)
    assert not passed
    assert words in reason
