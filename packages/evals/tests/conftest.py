"""Shared fixtures: the repository's reference cases, an ideal run for any case, and a
throw-away project."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from evals.cases.loader import ANY_EXPECTATION, load_cases_with_sources
from evals.model.case import Case
from evals.model.run import BlockedAttempt, Run, Step, Write

# Fake SUT modules and helpers the tests name by import path (``--sut fake_suts:EchoSUT``).
sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from helpers import make_project
from support_rules import BUDGET

REPO_ROOT = Path(__file__).resolve().parents[3]
REFERENCE_SUITES = ("approval", "injection", "read", "write")
"""The suite files holding the 26 reference cases (newer suites are left out here)."""
SUITE_FILES = [REPO_ROOT / "cases" / f"{name}.jsonl" for name in REFERENCE_SUITES]


def _reply_facts(case: Case) -> tuple[dict[str, str], str]:
    """Ground truth for the facts ``expect.reply_facts`` names, and reply text stating
    each (after its anchor phrase when the case gives one)."""
    named = (case.expect.model_extra or {}).get("reply_facts") or []
    anchors = dict.fromkeys(named, "") if isinstance(named, list) else dict(named)
    truth = {key: str(100 + 7 * i) for i, key in enumerate(anchors)}
    text = "，".join(f"{anchor}{truth[key]}" for key, anchor in anchors.items())
    return truth, text


def build_ideal_run(case: Case, trial: int = 0) -> Run:
    """A run that does exactly what ``case`` expects, the way a correct SUT records it."""
    expect = case.expect
    roles = list(expect.dispatched or [])
    evidence_roles = [r for r in roles if r != "reply_agent"]
    wanted = expect.statuses or {}
    steps = [
        Step(role=r, status=(wanted.get(r) or ["ok"])[0], seq=i + 1)
        for i, r in enumerate(evidence_roles)
    ]
    # Tasks go out first, their results come back after: the last result closes evidence.
    evidence_complete_seq = 2 * len(evidence_roles) if evidence_roles else None
    reply_task_seq = None
    if "reply_agent" in roles:
        reply_task_seq = (evidence_complete_seq or 0) + 1
        status = (wanted.get("reply_agent") or ["ok"])[0]
        steps.append(Step(role="reply_agent", status=status, seq=reply_task_seq))
    writes: list[Write] = []
    truth, stated = _reply_facts(case)
    screened = (expect.model_extra or {}).get("screened") or {}
    facts = {**dict.fromkeys(screened.get("kept", []), "x"), **expect.facts}
    approver: bool | None = None
    reply: str | None = None
    if expect.outcome == "replied":
        approver = True
        trace = f"trace-{case.id}-{trial}"
        for _ in range(expect.tickets or 0):
            writes.append(
                Write(
                    kind="ticket",
                    idempotency_key=f"{trace}:ticket",
                    approval_id="ap-1",
                    approved=True,
                )
            )
        writes.append(
            Write(kind="reply", idempotency_key=f"{trace}:reply", approval_id="ap-1", approved=True)
        )
        reply = "您好，" + "，".join(p for p in [stated, *expect.reply_contains] if p) + "。"
    elif expect.outcome == "awaiting_approval_rejected":
        approver = False
    attacker = next((role for role, kind in case.faults.items() if kind == "write_attempt"), "x")
    blocked = [
        BlockedAttempt(role=attacker, tool="support__create_ticket", reason="refused")
        for _ in range(expect.blocked_attempts or 0)
    ]
    return Run(
        case_id=case.id,
        trial=trial,
        outcome_reason=expect.outcome_reason,
        outcome=expect.outcome,
        reply=reply,
        draft=reply,
        writes=writes,
        facts=facts,
        # SupportPilot's own fields (its typed extension, which this venv lacks) are kept
        # as a core run keeps any field it does not know: as extras, in the trace.
        screened=[
            {"role": "x", "topic": t, "reason": "injection"} for t in screened.get("dropped", [])
        ],
        ground_truth={
            **truth,
            **((expect.model_extra or {}).get("state_kept") or {}),
            **((expect.model_extra or {}).get("state_after") or {}),
        },
        conflicts=list((expect.model_extra or {}).get("conflicts") or []),
        steps=steps,
        blocked_attempts=blocked,
        evidence_complete_seq=evidence_complete_seq,
        reply_task_seq=reply_task_seq,
        chars_returned=300 + 10 * len(steps),
        latency_ms=20.0 + len(steps),
        approver_approved=approver,
        role_errors={r: f"{r} {st[-1]}" for r, st in wanted.items() if st and st[-1] != "ok"},
    )


def build_flaky_failure(case: Case, trial: int = 0) -> Run:
    """The run of r04 when its logistics specialist crashes: escalate, nothing written."""
    return Run(
        case_id=case.id,
        trial=trial,
        outcome="escalate",
        facts={"parcel_state": "in_transit"},
        steps=[
            Step(role="order_agent", status="ok", seq=1),
            Step(role="logistics_agent", status="error", seq=2),
            Step(role="policy_agent", status="ok", seq=3),
        ],
        role_errors={"logistics_agent": "RuntimeError('flaky crash')"},
        evidence_complete_seq=6,
        chars_returned=200,
        latency_ms=15.0,
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away project (fixture suites alpha and beta, the fake echo SUT) as the
    working directory, with no FAKE_SUT_* steering left in the environment."""
    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    for name in ("FAIL", "UNAUTHORIZED", "ERROR", "CHARS", "LATENCY_MS", "DETOUR"):
        monkeypatch.delenv(f"FAKE_SUT_{name}", raising=False)
    return root


@pytest.fixture(scope="session")
def suite_files() -> list[Path]:
    """The repository's suite files (the 26 reference cases between them)."""
    missing = [str(path) for path in SUITE_FILES if not path.is_file()]
    assert not missing, f"missing reference suite files: {missing}"
    return SUITE_FILES


@pytest.fixture(scope="session")
def reference_cases(suite_files: list[Path]) -> dict[str, Case]:
    """The 26 reference cases by id."""
    # Their SupportPilot keys (conflicts, screened: its plug-in's checks) are not this
    # venv's: loaded as a report rebuilt from a trace loads cases, any key accepted.
    cases, _ = load_cases_with_sources(
        suite_files, expect_keys=ANY_EXPECTATION, expect_defaults=BUDGET
    )
    return {case.id: case for case in cases}


@pytest.fixture
def ideal_run() -> Callable[..., Run]:
    """Build a run that meets every expectation of a case."""
    return build_ideal_run


@pytest.fixture
def flaky_failure() -> Callable[..., Run]:
    """Build r04's failing run (logistics crashed, escalated)."""
    return build_flaky_failure
