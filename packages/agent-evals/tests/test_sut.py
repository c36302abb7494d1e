"""The SUT adapter: fresh worlds, faults, approver, run records from the environment."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agent_evals.supportpilot_run import SupportPilotRun
from agent_evals.sut import DB_DIR_ENV, SupportPilotSUT
from evals.model.case import Case

from .conftest import load_cases

BY_ID = {case.id: case for case in load_cases()}


def _case(world: dict[str, Any] | None = None, **fields: Any) -> Case:
    data: dict[str, Any] = {
        "id": "x1",
        "split": "dev",
        "input": {"goal": "包裹一直没到，要求马上补发", "order_id": "A1001"},
        "world": world or {},
        "expect": {"outcome": "replied"},
    }
    data.update(fields)
    return Case.model_validate(data)


@pytest.mark.parametrize(
    ("case_id", "role"),
    [("t03", "policy_agent"), ("t10", "order_agent"), ("r03", "logistics_agent")],
)
def test_blocked_attempts_come_from_the_audit_log(case_id: str, role: str) -> None:
    run = SupportPilotSUT().run(BY_ID[case_id], 0)
    [blocked] = run.blocked_attempts
    assert (blocked.role, blocked.tool) == (role, "support__create_ticket")
    assert "unauthorized" in blocked.reason
    refused = [e for e in run.detail["audit"] if not e["allowed"]]
    assert [(e["role"], e["tool"]) for e in refused] == [(blocked.role, blocked.tool)]
    assert run.writes == []
    assert run.approver_approved is None


@pytest.mark.parametrize(
    ("world", "outcome", "approver_approved", "tickets"),
    [
        ({}, "replied", True, 1),
        ({"approve": False}, "awaiting_approval_rejected", False, 0),
        ({"approver": "missing"}, "awaiting_approval_rejected", None, 0),
        ({"approve": False, "auto_approve_below": 100}, "replied", None, 1),
        ({"approve": False, "auto_approve_below": 50}, "awaiting_approval_rejected", False, 0),
    ],
)
def test_approval_paths(
    world: dict[str, Any], outcome: str, approver_approved: bool | None, tickets: int
) -> None:
    run = SupportPilotSUT().run(_case(world), 0)
    assert run.outcome == outcome
    assert run.approver_approved is approver_approved
    assert sum(w.kind == "ticket" for w in run.writes) == tickets
    assert (run.reply is not None) == (outcome == "replied")
    assert SupportPilotRun.of(run).draft


def test_rejected_run_keeps_the_draft_and_writes_nothing() -> None:
    run = SupportPilotSUT().run(BY_ID["d07"], 0)
    assert run.writes == [] and run.reply is None
    assert "提交补发申请" in (SupportPilotRun.of(run).draft or "")


@pytest.mark.parametrize(
    ("case", "error"),
    [
        (_case({"planet": "mars"}), "InvalidWorldError"),
        (_case(faults={"billing_agent": "crash"}), "UnknownRoleError"),
    ],
)
def test_sut_crash_becomes_sut_error(case: Case, error: str) -> None:
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome == "sut_error"
    assert run.error is not None and run.error.startswith(error)


def test_orchestrator_crash_becomes_sut_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.orchestrator import Orchestrator

    async def boom(self: Orchestrator, order_id: str | None, goal: str) -> None:
        raise RuntimeError("orchestrator down")

    monkeypatch.setattr(Orchestrator, "handle", boom)
    run = SupportPilotSUT().run(_case(), 0)
    assert (run.outcome, run.error) == ("sut_error", "RuntimeError: orchestrator down")


def test_worlds_go_to_files_in_db_dir(tmp_path: Path) -> None:
    sut = SupportPilotSUT(db_dir=tmp_path)
    first = sut.run(_case(), 0)
    second = sut.run(_case(), 0)
    paths = {first.detail["db_path"], second.detail["db_path"]}
    assert len(paths) == 2
    assert all(Path(p).parent == tmp_path and Path(p).exists() for p in paths)
    assert sum(w.kind == "ticket" for w in second.writes) == 1


def test_db_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DB_DIR_ENV, str(tmp_path))
    run = SupportPilotSUT().run(_case(), 0)
    assert Path(run.detail["db_path"]).parent == tmp_path


def test_in_memory_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DB_DIR_ENV, raising=False)
    assert SupportPilotSUT().run(_case(), 0).detail["db_path"] is None


def test_runs_are_isolated_and_concurrent_runs_agree() -> None:
    sut = SupportPilotSUT()

    async def many() -> list[Any]:
        return await asyncio.gather(*(sut.arun(BY_ID["d01"], t) for t in range(10)))

    runs = asyncio.run(many())
    assert all(sum(w.kind == "ticket" for w in r.writes) == 1 for r in runs)
    assert {r.outcome for r in runs} == {"replied"}


def test_run_record_trajectory_fields() -> None:
    run = SupportPilotSUT().run(BY_ID["d01"], 0)
    assert [s.role for s in run.steps] == [
        "order_agent",
        "logistics_agent",
        "policy_agent",
        "reply_agent",
    ]
    assert all(s.status == "ok" for s in run.steps)
    record = SupportPilotRun.of(run)
    assert run.tasks == 4 and record.rejected_messages == 0
    assert record.evidence_complete_seq == 6 and record.reply_task_seq == 7
    assert record.chars_read > 0 and run.chars_returned > 0
    assert [m["seq"] for m in run.detail["bus"]] == list(range(1, 9))
    kinds = {(w.kind, w.idempotency_key) for w in run.writes}
    assert kinds == {("ticket", "d01-0:ticket"), ("reply", "d01-0:reply")}


@pytest.mark.parametrize(("case_id", "role"), [("d12", "policy_agent"), ("t07", "order_agent")])
def test_timeout_fault_reports_timeout(case_id: str, role: str) -> None:
    run = SupportPilotSUT().run(BY_ID[case_id], 0)
    assert run.outcome == "escalate"
    assert [s.status for s in run.steps if s.role == role] == ["timeout"]


def test_out_of_stock_escalates_without_writing() -> None:
    from agent_evals.sut import SupportPilotSUT
    from evals.model.case import Case

    case = Case.model_validate(
        {
            "id": "x1",
            "split": "dev",
            "input": {"goal": "补发", "order_id": "A1001"},
            "world": {"stock": {"SKU-TEE-01": 0}},
            "expect": {"outcome": "escalate"},
        }
    )
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome == "escalate"
    assert run.writes == []
    assert run.detail["handover"]["reason"] == "out_of_stock"
    assert run.approver_approved is None


@pytest.mark.parametrize("on_disk", [False, True], ids=["in_memory", "db_dir"])
@pytest.mark.parametrize("close_kept", [True, False], ids=["closed", "close_dropped"])
def test_a_run_that_leaves_its_world_database_open_fails_resources_released(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, on_disk: bool, close_kept: bool
) -> None:
    """Positive control of resources_released: Store.close doing nothing leaves every
    run's connection open, which the record names (and the adapter then closes)."""
    from agent_evals.checks import resources_released
    from domain import Store

    if not close_kept:
        monkeypatch.setattr(Store, "close", lambda self: None)
    sut = SupportPilotSUT(db_dir=tmp_path if on_disk else None)
    run = sut.run(_case(), 0)
    left = run.detail["unreleased"]
    verdict = resources_released(_case(), run)
    if close_kept:
        assert (left, verdict) == ([], True)
        return
    [where] = left
    assert where == (run.detail["db_path"] if on_disk else ":memory:")
    assert verdict == (False, f"the run left 1 world database(s) open: {where}")


def test_resources_released_is_not_judged_without_the_adapters_account() -> None:
    from agent_evals.checks import resources_released
    from evals.model.run import Run

    run = Run(case_id="x1", trial=0, outcome="replied")
    assert resources_released(_case(), run) is None
