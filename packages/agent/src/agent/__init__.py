"""The SupportPilot agent loop: bus, specialist contracts, rule brains, orchestrator,
fault injection. The evals adapter lives in ``supportpilot-agent-evals``
(``agent_evals.sut.SupportPilotSUT``): the agent needs nothing of the evals."""

from agent.aggregate import Aggregate, aggregate
from agent.brain import Brain, Plan, Task, ToolBox
from agent.bus import Bus, Message
from agent.contracts import (
    EVIDENCE_ROLES,
    REPLY_ROLE,
    ROLES,
    Claim,
    Contract,
    Role,
    WorkerOutput,
    WorkerStatus,
    default_contracts,
)
from agent.decision import Escalation, Proceed, decide
from agent.errors import AgentError, InjectedCrashError, UnknownFaultError, UnknownRoleError
from agent.hygiene import DroppedClaim, carries_instructions, screen
from agent.orchestrator import Orchestrator
from agent.outcome import Budget, Decision, Handover, Outcome
from agent.rule_brains import rule_brains
from agent.worker import Worker, WorkerResult

__all__ = [
    "EVIDENCE_ROLES",
    "REPLY_ROLE",
    "ROLES",
    "AgentError",
    "Aggregate",
    "Brain",
    "Budget",
    "Bus",
    "Claim",
    "Contract",
    "Decision",
    "DroppedClaim",
    "Escalation",
    "Handover",
    "InjectedCrashError",
    "Message",
    "Orchestrator",
    "Outcome",
    "Plan",
    "Proceed",
    "Role",
    "Task",
    "ToolBox",
    "UnknownFaultError",
    "UnknownRoleError",
    "Worker",
    "WorkerOutput",
    "WorkerResult",
    "WorkerStatus",
    "aggregate",
    "carries_instructions",
    "decide",
    "default_contracts",
    "rule_brains",
    "screen",
]
