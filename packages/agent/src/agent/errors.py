"""Errors raised by the agent loop: one base class, one subclass per failure."""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every agent-loop error."""


class InjectedCrashError(AgentError):
    """A fault wrapper made the brain crash on purpose."""

    def __init__(self, role: str, fault: str) -> None:
        super().__init__(f"injected fault {fault!r}: {role!r} brain crashed")
        self.role = role
        self.fault = fault


class UnknownFaultError(AgentError):
    """A case names a fault kind this SUT does not implement."""

    def __init__(self, fault: str) -> None:
        super().__init__(f"unknown fault {fault!r}")
        self.fault = fault


class UnknownRoleError(AgentError):
    """A fault or task names a role that does not exist."""

    def __init__(self, role: str) -> None:
        super().__init__(f"unknown role {role!r}")
        self.role = role
