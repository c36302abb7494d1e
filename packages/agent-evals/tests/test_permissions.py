"""The permissions suite (cases/permissions.jsonl): generated from the tool registry and
the allowlists, in sync with its generator, passing on SupportPilot, and failing when an
allowlist is widened or the ownership check is removed or overdone."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import tools.catalog
from agent.brain import ToolBox
from agent.contracts import ROLES
from agent.faults import write_tools
from agent_evals import permissions_suite as gen
from agent_evals.sut import SupportPilotSUT
from evals.cases.generate import render, stale_lines
from evals.checks import grade
from evals.cli.main import main
from evals.model.case import Case
from evals.model.result import success
from evals.model.run import Run
from tools import ToolResult
from tools.allowlist import ALLOWLISTS
from tools.errors import NotCustomersOrderError

from .conftest import ROOT, load_cases

SPEC = "agent_evals.permissions_suite:GENERATOR"
OUTPUT = ROOT / "cases" / "permissions.jsonl"
CASES = load_cases(("permissions",))
BY_ID = {case.id: case for case in CASES}
PAIRS = [(role, tool) for role in ROLES for tool in write_tools()]
CROSS = sorted(case_id for case_id in BY_ID if case_id.startswith("p-cross-"))
OWN = sorted(case_id for case_id in BY_ID if case_id.startswith("p-own-"))


def _graded(case: Case) -> tuple[Run, bool, list[str]]:
    """The run of ``case``, whether it succeeded, and its failed checks' reasons."""
    run = SupportPilotSUT().run(case, 0)
    results = grade(case, run)
    return run, success(results), [f"{r.name}: {r.reason}" for r in results if not r.passed]


def test_committed_file_is_the_generators_output(monkeypatch: pytest.MonkeyPatch) -> None:
    committed = OUTPUT.read_text(encoding="utf-8")
    assert committed == render(gen.GENERATOR.cases(), gen.GENERATOR.header)
    assert stale_lines(gen.GENERATOR, OUTPUT) == []
    monkeypatch.chdir(ROOT)
    assert main(["generate", SPEC, "--check"]) == 0


def test_check_reports_a_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "cases" / "permissions.jsonl"
    stale.parent.mkdir()
    shutil.copy(OUTPUT, stale)
    stale.write_text(
        stale.read_text(encoding="utf-8").replace("p-own-A1001", "p-own-X"), encoding="utf-8"
    )
    assert main(["generate", SPEC, "--out", str(stale), "--check"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"{stale}: p-own-X: not generated any more",
        f"{stale}: p-own-A1001: missing (safety permissions must_pass actor:customer"
        " attempt:own_A1001)",
    ]
    assert f"generate: {stale} is stale (2 problem(s))" in captured.err
    assert main(["generate", SPEC, "--out", str(stale)]) == 0
    assert stale.read_bytes() == OUTPUT.read_bytes()


def test_every_specialist_and_write_tool_has_a_case() -> None:
    attempts = {
        (role, fault.partition(":")[2])
        for case in CASES
        for role, fault in case.faults.items()
        if fault.startswith("write_attempt:")
    }
    assert attempts == set(PAIRS)
    hidden = {
        (role, fault.partition(":")[2])
        for case in CASES
        for role, fault in case.faults.items()
        if fault.startswith("hidden_write_attempt:")
    }
    assert hidden == set(PAIRS)
    assert {f"p-{role}-{tool}_hidden" for role, tool in PAIRS} <= set(BY_ID)
    assert len(PAIRS) == 8
    assert {f"p-{role}-{tool}" for role, tool in PAIRS} <= set(BY_ID)
    assert all(
        case.split == "test" and {"safety", "permissions", "must_pass"} <= set(case.tags)
        for case in CASES
    )


@pytest.mark.parametrize(("role", "tool"), [("policy_agent", "support__send_reply")])
def test_generator_refuses_a_specialist_that_may_write(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], role: str, tool: str
) -> None:
    monkeypatch.setitem(ALLOWLISTS, role, ALLOWLISTS[role] | {tool})
    assert main(["generate", SPEC, "--out", str(OUTPUT), "--check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"evals: error: {SPEC}: ") and len(err.splitlines()) == 1
    assert f"specialist {role!r} may call write tool(s) {tool}" in err


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_suite_passes_on_supportpilot(case_id: str) -> None:
    case = BY_ID[case_id]
    run, passed, failed = _graded(case)
    assert passed and not failed, failed
    if case.expect.outcome != "replied":
        assert run.writes == []  # 0 rows changed: no ticket, no reply


@pytest.mark.parametrize(("role", "tool"), PAIRS, ids=[f"{r}-{t}" for r, t in PAIRS])
def test_a_widened_allowlist_fails_its_case(
    monkeypatch: pytest.MonkeyPatch, role: str, tool: str
) -> None:
    monkeypatch.setitem(ALLOWLISTS, role, ALLOWLISTS[role] | {tool})
    _, passed, failed = _graded(BY_ID[f"p-{role}-{tool}"])
    assert not passed
    assert any(f.startswith("blocked_attempts: expected 1") for f in failed), failed


@pytest.mark.parametrize(("role", "tool"), PAIRS, ids=[f"{r}-{t}" for r, t in PAIRS])
def test_a_tool_box_that_forgets_refusals_fails_the_hidden_case(
    monkeypatch: pytest.MonkeyPatch, role: str, tool: str
) -> None:
    """The positive control of the hidden cases: a tool box that does not remember a
    refused call lets a brain that hid it pass as ``ok`` (the raised case still holds)."""

    def forgetful(box: ToolBox, name: str, args: dict[str, Any]) -> ToolResult:
        result = box.gateway.call(box.role, name, args)  # a refusal raised, not remembered
        for item in result.evidence:
            box.evidence[item.id] = item
        box.chars_read += result.chars_read
        return result

    monkeypatch.setattr(ToolBox, "call", forgetful)
    _, passed, failed = _graded(BY_ID[f"p-{role}-{tool}_hidden"])
    assert not passed
    assert any(f.startswith("statuses:") for f in failed), failed
    assert _graded(BY_ID[f"p-{role}-{tool}"])[1]


@pytest.mark.parametrize("case_id", CROSS)
def test_without_the_ownership_check_cross_customer_cases_fail(
    monkeypatch: pytest.MonkeyPatch, case_id: str
) -> None:
    monkeypatch.setattr(tools.catalog, "_check_owner", lambda *args: None)
    _, passed, failed = _graded(BY_ID[case_id])
    assert not passed
    assert any(f.startswith("blocked_attempts: expected 2") for f in failed), failed


@pytest.mark.parametrize("case_id", OWN)
def test_an_ownership_check_refusing_the_owner_fails_the_control(
    monkeypatch: pytest.MonkeyPatch, case_id: str
) -> None:
    def refuse_everyone(ctx: object, tool: str, order_id: str, owner: str) -> None:
        raise NotCustomersOrderError(tool, order_id, "someone")

    monkeypatch.setattr(tools.catalog, "_check_owner", refuse_everyone)
    _, passed, failed = _graded(BY_ID[case_id])
    assert not passed
    assert any(f.startswith("outcome: expected outcome 'replied'") for f in failed), failed
