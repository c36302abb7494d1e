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

    def __init__(self, fault: str, detail: str = "") -> None:
        super().__init__(f"unknown fault {fault!r}" + (f": {detail}" if detail else ""))
        self.fault = fault
        self.detail = detail


class InvalidCustomerError(AgentError):
    """A case's ``input.customer`` (the authenticated customer) is not a non-empty string."""

    def __init__(self, value: object) -> None:
        super().__init__(
            f"input.customer: expected the authenticated customer's name (a non-empty "
            f"string), got {value!r}"
        )
        self.value = value


class UnknownRoleError(AgentError):
    """A fault or task names a role that does not exist."""

    def __init__(self, role: str) -> None:
        super().__init__(f"unknown role {role!r}")
        self.role = role


class ProviderError(AgentError):
    """The model provider failed after the client's retries (connection refused, timeout,
    repeated 429/5xx). Not the agent's fault: workers let it through, the orchestrator
    aborts the turn, and the SUT records the run as ``error`` (excluded from rates)."""

    def __init__(self, role: str, kind: str, cause: BaseException) -> None:
        super().__init__(f"provider failed for {role!r} ({kind}): {type(cause).__name__}: {cause}")
        self.role = role
        self.kind = kind
        self.cause = cause


class UnusableOutputError(AgentError):
    """A brain ended without usable output (unparsable after its repair round, or no
    final answer within its step limit): the worker reports ``invalid_output``."""

    def __init__(self, role: str, problem: str) -> None:
        super().__init__(f"{role!r} gave no usable output: {problem}")
        self.role = role
        self.problem = problem


class BrainConfigError(AgentError):
    """The brain configuration cannot work (unknown brain, missing model or key …)."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"brain configuration: {problem}")
        self.problem = problem
