"""examples/otel_agents: two agents on real frameworks — pydantic-ai (GenAI spans) and the
OpenAI Agents SDK (OpenInference spans) — each talking to the fake OpenAI server, graded
from the framework's own OpenTelemetry spans with ``evals.otel`` and nothing else.

Each passes its gate against its committed baseline; a broken variant of each is blocked
(a tool that reads the wrong order; a desk that lost its tool). Each runs in its own
process: the frameworks' instrumentation is global.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import user_code_lines

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "otel_agents"
FRAMEWORKS = ("pydantic_ai", "openai_agents")

SCRIPT = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
import grade
import desk_{framework} as desk
{variant}
if sys.argv[2] == "gate":
    raise SystemExit(grade.main("{framework}", desk.ask))
from evals.checks import Case
case = Case.model_validate({{"id": "shipped", "split": "test", "expect": {{}},
                            "input": {{"question": "A1 到哪了？"}},
                            "world": {{"orders": {{"A1": "已发货"}}}}}})
run = asyncio.run(grade.trial_of(desk.ask)(case, 0))
print(run.model_dump_json())
"""

WRONG_ORDER = """
real = desk.desk
def careless(orders, base_url):  # every order reads as the first one
    first = next(iter(orders.values()))
    return real({k: first for k in orders}, base_url)
desk.desk = careless
"""
NO_TOOL = """
real = desk.desk
def toolless(orders, base_url):  # the tool was dropped from the desk
    agent = real(orders, base_url)
    {drop}
    return agent
desk.desk = toolless
"""
DROP_TOOL = {
    "pydantic_ai": "agent._function_toolset.tools.clear()",
    "openai_agents": "agent.tools = []",
}


def grade(
    framework: str, variant: str = "", mode: str = "gate"
) -> subprocess.CompletedProcess[str]:
    script = SCRIPT.format(framework=framework, variant=variant)
    return subprocess.run(
        [sys.executable, "-c", script, str(EXAMPLE), mode],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=EXAMPLE,
    )


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_each_desk_passes_its_own_gate(framework: str) -> None:
    done = grade(framework)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Gate: PASS" in done.stdout
    assert re.search(r"^success +5/5 ", done.stdout, re.MULTILINE), done.stdout


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_record_is_the_transcript_the_spans_tell(framework: str) -> None:
    done = grade(framework, mode="run")
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout.strip().splitlines()[-1])
    steps = [(s["role"], s["kind"], s["status"]) for s in run["steps"]]
    assert steps == [
        ("desk", "model_call", "ok"),
        ("lookup_order", "tool_call", "ok"),
        ("desk", "model_call", "ok"),
    ]
    tool = run["steps"][1]
    assert tool["arguments"] == {"order_id": "A1"}
    assert tool["result"] == "已发货"
    assert run["steps"][0]["result"] == "calls lookup_order"
    assert run["reply"] == "您的订单状态：已发货"
    assert run["usage"]["prompt_tokens"] > 0 and run["usage"]["completion_tokens"] > 0
    assert run["chars_returned"] == len("已发货")
    assert len(run["trace_id"]) == 32 and run["latency_ms"] > 0


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_tool_reading_the_wrong_order_is_blocked(framework: str) -> None:
    done = grade(framework, WRONG_ORDER)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Gate: FAIL" in done.stdout
    assert "the-one-asked" in done.stdout
    assert "reply_contains" in done.stdout


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_desk_that_lost_its_tool_is_blocked(framework: str) -> None:
    done = grade(framework, NO_TOOL.format(drop=DROP_TOOL[framework]))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Gate: FAIL" in done.stdout
    assert "missing ['lookup_order']" in done.stdout


@pytest.mark.parametrize(
    ("name", "most"),
    [("grade.py", 30), ("desk_pydantic_ai.py", 20), ("desk_openai_agents.py", 25)],
)
def test_the_user_code_stays_short_and_imports_nothing_of_supportpilot(
    name: str, most: int
) -> None:
    source = (EXAMPLE / name).read_text(encoding="utf-8")
    lines = user_code_lines(source)
    assert len(lines) <= most, "\n".join(lines)
    for package in ("agent", "agent_evals", "domain", "tools", "judge"):
        assert f"import {package}\n" not in source and f"from {package} " not in source
