"""What every tool gateway a run is given must enforce, written from the spec
(docs/models.md, "Tool arguments"; docs/invariants.md, "The gateway a run is given"),
never read from ``tools``: each tool's argument constraints and the ownership check.

The spec: every tool takes a JSON object with exactly its arguments; each is a required
non-empty string of at most the documented number of characters, but ``kb__search``'s
optional boolean ``include_superseded``; an idempotency key ends in the run's kind
(``:ticket`` for a ticket, ``:reply`` for a reply, either for ``support__find_write``).
A call that breaks any of these is refused as invalid arguments before the tool runs.
When the conversation is authenticated as a customer, the order and logistics tools
refuse another customer's order; without a customer no ownership check applies.

:func:`gateway_probes` turns that into calls: per constraint one call just outside it
(expected ``invalid``) and one just inside (expected ``accepted``: the tool ran, whatever
it then answered), and the ownership calls. The SUT adapter makes them on a twin of the
run's gateway (built as the run's is: its outbox or bypass fault, its customer) over a
scratch world (:func:`scratch_world`), never the run's own, and records each call's
audited status as ``run.detail["gateway"]``; the ``gateway_as_specified`` invariant
(:mod:`agent_evals.invariants`) compares it with :func:`gateway_problems`. So a gateway
variant that drops a constraint or the ownership check fails every run that uses it.

This module imports nothing of ``domain``, ``agent`` or ``tools``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

GATEWAY = "gateway"
"""The ``run.detail`` key of the probe's statuses (probe id -> audited status)."""

Expect = Literal["invalid", "accepted", "refused"]

STATUS_OF: dict[Expect, frozenset[str]] = {
    "invalid": frozenset({"invalid_arguments"}),
    # The tool ran: it answered, or failed on the scratch world (no approval, a key
    # that is not the run's), which says the arguments were taken.
    "accepted": frozenset({"ok", "error"}),
    "refused": frozenset({"refused"}),
}
"""What each expectation accepts as the audited status."""
NEVER_ARRIVED = "lost_ack"
"""The status of a call an outbox fault lost before it arrived (``lost_request``): the
gateway never saw it, so nothing is judged."""


@dataclass(frozen=True)
class Argument:
    """One argument of a tool: a string of at most ``most`` characters (ending in one of
    ``suffixes`` when given), or a boolean; required unless ``optional``."""

    name: str
    most: int = 0
    suffixes: tuple[str, ...] = ()
    boolean: bool = False
    optional: bool = False

    def valid(self) -> Any:
        """A value the spec takes."""
        if self.boolean:
            return True
        return f"probe{self.suffixes[0]}" if self.suffixes else "PROBE"


@dataclass(frozen=True)
class ToolSpec:
    """A tool: the role that may call it and its arguments."""

    role: str
    arguments: tuple[Argument, ...]


ORDER_ID = Argument("order_id", 64)
TOOL_SPECS: dict[str, ToolSpec] = {
    "orders__get_order": ToolSpec("order_agent", (ORDER_ID,)),
    "logistics__track": ToolSpec("logistics_agent", (ORDER_ID,)),
    "kb__search": ToolSpec(
        "policy_agent",
        (Argument("query", 200), Argument("include_superseded", boolean=True, optional=True)),
    ),
    "stock__check": ToolSpec("order_agent", (Argument("sku", 64),)),
    "support__create_ticket": ToolSpec(
        "orchestrator",
        (
            ORDER_ID,
            Argument("sku", 64),
            Argument("approval_id", 200),
            Argument("idempotency_key", 200, suffixes=(":ticket",)),
            Argument("summary", 2000),
        ),
    ),
    "support__send_reply": ToolSpec(
        "orchestrator",
        (
            ORDER_ID,
            Argument("text", 16000),
            Argument("approval_id", 200),
            Argument("idempotency_key", 200, suffixes=(":reply",)),
        ),
    ),
    "support__find_write": ToolSpec(
        "orchestrator", (Argument("idempotency_key", 200, suffixes=(":ticket", ":reply")),)
    ),
}
"""Tool -> the role that calls it and its arguments (docs/models.md, "Tool arguments")."""

WRITE_TOOLS = ("support__create_ticket", "support__send_reply")
OWNED_TOOLS = ("orders__get_order", "logistics__track")
"""The tools that answer only about the authenticated customer's orders."""
MINE, THEIRS = "PROBE-MINE", "PROBE-THEIRS"
"""The scratch world's two orders: the asker's own and another customer's."""
PROBE_OWNER = "probe-owner"
"""Whose PROBE-MINE is when the run names no customer."""


@dataclass(frozen=True)
class Probe:
    """One call and what the spec says of it."""

    id: str
    role: str
    tool: str
    args: dict[str, Any]
    expect: Expect
    argument: str | None = None
    """The argument the call is about (``None``: the call as a whole)."""


def _valid_args(spec: ToolSpec) -> dict[str, Any]:
    return {a.name: a.valid() for a in spec.arguments if not a.optional}


def _sized(argument: Argument, length: int) -> str:
    suffix = argument.suffixes[0] if argument.suffixes else ""
    return "P" * (length - len(suffix)) + suffix


def _argument_probes(tool: str, spec: ToolSpec, argument: Argument) -> list[Probe]:
    base = _valid_args(spec)
    name = argument.name

    def probe(label: str, value: Any, expect: Expect, *, drop: bool = False) -> Probe:
        args = {k: v for k, v in base.items() if k != name}
        if not drop:
            args[name] = value
        return Probe(f"{tool}.{name}/{label}", spec.role, tool, args, expect, name)

    probes = [probe("missing", None, "accepted" if argument.optional else "invalid", drop=True)]
    if argument.boolean:
        return [*probes, probe("true", True, "accepted"), probe("string", "true", "invalid")]
    probes += [
        probe("number", 1, "invalid"),
        probe("empty", "", "invalid"),
        # The shortest a plain string may be (one character); a key is never that short.
        *([] if argument.suffixes else [probe("one_char", "P", "accepted")]),
        probe("at_limit", _sized(argument, argument.most), "accepted"),
        probe("past_limit", _sized(argument, argument.most + 1), "invalid"),
    ]
    for suffix in argument.suffixes:
        probes.append(probe(f"ends{suffix}", f"probe{suffix}", "accepted"))
    if argument.suffixes:
        probes += [
            probe("other_suffix", "probe:refund", "invalid"),
            probe("suffix_inside", f"probe{argument.suffixes[0]}-x", "invalid"),
            probe("no_suffix", "probe", "invalid"),
        ]
    return probes


def gateway_probes(customer: str | None) -> list[Probe]:
    """Every call the twin gateway is given, in order: per tool an extra argument
    (refused), then per argument each constraint just outside and just inside; then the
    ownership calls on :data:`MINE` and :data:`THEIRS` (another customer's order is
    refused only when the run names a ``customer``)."""
    probes: list[Probe] = []
    for tool, spec in TOOL_SPECS.items():
        extra = {**_valid_args(spec), "probe_extra": "x"}
        probes.append(Probe(f"{tool}/extra_argument", spec.role, tool, extra, "invalid"))
        for argument in spec.arguments:
            probes += _argument_probes(tool, spec, argument)
    for tool in OWNED_TOOLS:
        role = TOOL_SPECS[tool].role
        probes.append(Probe(f"{tool}/own_order", role, tool, {"order_id": MINE}, "accepted"))
        theirs: Expect = "refused" if customer is not None else "accepted"
        probes.append(Probe(f"{tool}/other_order", role, tool, {"order_id": THEIRS}, theirs))
    return probes


def scratch_world(customer: str | None) -> dict[str, Any]:
    """The world the twin gateway runs on (a case world, the default world under it):
    :data:`MINE`, the asker's (or :data:`PROBE_OWNER`'s), and :data:`THEIRS`, another
    customer's, each with a shipment record."""
    owner = customer if customer is not None else PROBE_OWNER
    other = "probe-other" if owner != "probe-other" else "probe-other-2"
    order = {"sku": "SKU-TEE-01", "status": "已发货，运输中", "paid": 59.0}
    shipment = {
        "carrier": "顺丰",
        "state": "运输中",
        "last_event": "杭州转运中心",
        "stale_hours": 1,
    }
    return {
        "orders": {MINE: {**order, "customer": owner}, THEIRS: {**order, "customer": other}},
        "logistics": {MINE: shipment, THEIRS: shipment},
    }


def key_drifted_tools(outbox_fault: str | None) -> frozenset[str]:
    """The write tools whose idempotency key the run's caller replaces (``key_drift`` or
    ``key_drift:<tool>``, docs/cases.md): their key's probes are not the caller's key."""
    if not outbox_fault:
        return frozenset()
    kind, _, tool = outbox_fault.partition(":")
    if kind != "key_drift":
        return frozenset()
    return frozenset({tool}) if tool else frozenset(WRITE_TOOLS)


def gateway_problems(
    statuses: Mapping[str, object], customer: str | None, outbox_fault: str | None
) -> list[str]:
    """Every probe whose recorded status (``statuses``: probe id -> audited status) is
    not what the spec says, one line each in the probes' order; a probe missing from the
    record is one too. A call lost before it arrived is not judged, nor the key of a
    write tool whose caller replaces it (``key_drift``)."""
    drifted = key_drifted_tools(outbox_fault)
    problems: list[str] = []
    for probe in gateway_probes(customer):
        if probe.tool in drifted and probe.argument == "idempotency_key":
            continue
        status = statuses.get(probe.id)
        if status is None:
            problems.append(f"{probe.id}: not probed")
            continue
        if status == NEVER_ARRIVED or status in STATUS_OF[probe.expect]:
            continue
        problems.append(f"{probe.id}: {status}, expected {probe.expect}")
    return problems
