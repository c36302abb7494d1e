"""Pydantic models of the domain records (one per table row)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ApprovalStatus = Literal["approved", "rejected"]
"""The two decisions an approval row can record."""

DecidedBy = Literal["approver", "auto", "fail_closed"]
"""Who decided: the human approver, the auto-approval limit, or nobody (fail closed)."""

ToolKind = Literal["read", "write"]
"""Whether a tool only reads or changes the world."""


class Order(BaseModel):
    """A customer order."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Order number, e.g. ``A1001``."""
    customer: str
    """Customer name."""
    sku: str
    """The stock-keeping unit ordered (one unit)."""
    status: str
    """Order status text from the shop system (Chinese)."""
    paid: float
    """Amount paid, in yuan."""


class Shipment(BaseModel):
    """The logistics record of an order's parcel."""

    model_config = ConfigDict(frozen=True)

    order_id: str
    """The order this parcel belongs to."""
    carrier: str
    """Carrier name."""
    state: str
    """Shipment state text from the carrier (Chinese)."""
    last_event: str
    """Where the last tracking event happened."""
    stale_hours: int
    """Hours since the last tracking event."""


class PolicyDoc(BaseModel):
    """A policy document of the knowledge base."""

    model_config = ConfigDict(frozen=True)

    id: int
    """Document id (evidence id ``kb#<id>``)."""
    title: str
    """Title (Chinese)."""
    body: str
    """Policy text (Chinese)."""
    version: str
    """Version label, e.g. ``v2``."""
    effective_date: str
    """ISO date from which the version applies."""
    superseded: bool
    """True when a newer version replaces this one."""


class Approval(BaseModel):
    """A recorded approval decision on a proposal."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Approval id, cited by the writes it allows."""
    trace_id: str
    """The run that asked."""
    action: str
    """What was proposed (``reissue`` or ``reply``)."""
    order_id: str
    """The order concerned."""
    amount: float
    """Money at stake, in yuan."""
    summary: str
    """What the approver was shown."""
    status: ApprovalStatus
    """The decision."""
    decided_by: DecidedBy
    """Who decided."""
    auto_approve_below: float | None = None
    """The auto-approval limit in force when it was decided (strictly below it nobody is
    asked); ``None`` when there was none."""


class Ticket(BaseModel):
    """A reissue ticket written through the outbox."""

    model_config = ConfigDict(frozen=True)

    id: int
    """Row id."""
    trace_id: str
    """The run that wrote it."""
    order_id: str
    """The order to reissue."""
    sku: str
    """The unit reserved for the reissue."""
    approval_id: str
    """The approved approval the ticket cites."""
    idempotency_key: str
    """Unique key (``<trace_id>:ticket``)."""
    summary: str
    """What the ticket asks for."""


class SentReply(BaseModel):
    """A reply sent to the customer through the outbox."""

    model_config = ConfigDict(frozen=True)

    id: int
    """Row id."""
    trace_id: str
    """The run that sent it."""
    order_id: str
    """The order concerned."""
    text: str
    """The reply text (Chinese)."""
    approval_id: str
    """The approved approval the reply cites."""
    idempotency_key: str
    """Unique key (``<trace_id>:reply``)."""


class AuditEntry(BaseModel):
    """One tool call as the audit log recorded it."""

    model_config = ConfigDict(frozen=True)

    id: int = 0
    """Row id (0 before it is stored)."""
    trace_id: str
    """The run the call belongs to."""
    role: str
    """Who called."""
    tool: str
    """The tool called."""
    kind: str
    """``read``, ``write`` or ``unknown`` (no such tool)."""
    allowed: bool
    """False when the allowlist refused the call."""
    status: str
    """``ok``, ``refused``, ``invalid_arguments``, ``error``, ``lost_ack`` or ``crashed``
    (the handler raised what the tool layer does not know)."""
    reason: str = ""
    """Why it was refused or failed."""
    args: str = "{}"
    """The arguments, as JSON."""
    chars_read: int = 0
    """Characters of evidence the call returned."""
