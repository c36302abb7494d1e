"""SupportPilot as an evals system under test: one fresh world per run, faults applied,
the run record filled from the bus log, the audit log and the database."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from domain import ApprovalGate, Proposal, Store, build_world, parse_world
from evals.case import Case
from evals.run import Run
from tools import ToolGateway

from agent.brain import Brain
from agent.bus import Bus
from agent.contracts import ROLES, default_contracts
from agent.errors import UnknownRoleError
from agent.faults import apply_fault, fault_contract
from agent.orchestrator import Orchestrator
from agent.record import build_run
from agent.rule_brains import rule_brains
from agent.worker import Worker

DB_DIR_ENV = "SUPPORTPILOT_DB_DIR"
"""Environment variable naming a directory for world database files (default: memory)."""


class RecordingApprover:
    """The human approver of a run: answers as the case's world says, remembers it."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.answers: list[bool] = []
        """Every answer given, in order."""

    def __call__(self, proposal: Proposal) -> bool:
        """Answer ``proposal``."""
        self.answers.append(self.answer)
        return self.answer


class SupportPilotSUT:
    """Runs SupportPilot (rule brains) on a case; never raises."""

    def __init__(self, db_dir: str | Path | None = None) -> None:
        env_dir = os.environ.get(DB_DIR_ENV) or None
        self.db_dir: str | Path | None = db_dir if db_dir is not None else env_dir
        """Where world files go (``None``: in memory)."""

    def brains(self) -> dict[str, Brain]:
        """The brain of every specialist (rule brains)."""
        return rule_brains()

    def run(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case`` (blocking)."""
        return asyncio.run(self.arun(case, trial))

    async def arun(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case``; any crash becomes a ``sut_error`` run."""
        started = time.perf_counter()
        store: Store | None = None
        try:
            world = parse_world(case.world)
            store = build_world(world, self.db_dir)
            trace_id = f"{case.id}-{trial}"
            approver = RecordingApprover(world.approve) if world.approver == "human" else None
            gateway = ToolGateway(store, trace_id)
            brains = self.brains()
            contracts = default_contracts()
            for role, fault in case.faults.items():
                if role not in brains:
                    raise UnknownRoleError(role)
                brains[role] = apply_fault(brains[role], fault, role, case.id, trial)
                contracts[role] = fault_contract(contracts[role], fault)
            workers: dict[str, Worker] = {
                role: Worker(brains[role], contracts[role], gateway) for role in ROLES
            }
            bus = Bus(trace_id, workers)
            gate = ApprovalGate(store, approver, auto_approve_below=world.auto_approve_below)
            orchestrator = Orchestrator(workers, gateway, gate, bus)
            outcome = await orchestrator.handle(case.input.order_id, case.input.goal)
            return build_run(
                case_id=case.id,
                trial=trial,
                outcome=outcome,
                log=bus.log,
                store=store,
                approver_answers=approver.answers if approver else [],
                latency_ms=(time.perf_counter() - started) * 1000,
                detail={"db_path": str(store.path) if store.path else None},
            )
        # The harness must never crash because the system under test did.
        except Exception as e:
            return Run(
                case_id=case.id,
                trial=trial,
                outcome="sut_error",
                error=f"{type(e).__name__}: {e}",
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        finally:
            if store is not None:
                store.close()
