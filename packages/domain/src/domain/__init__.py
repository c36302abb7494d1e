"""The SupportPilot domain: orders, shipments, stock, tickets, approvals, the policy KB on
SQLite (through sqlite-utils), the default world and case-world overrides."""

from domain.approval import ApprovalGate, Approver, Proposal
from domain.errors import (
    ApprovalRequiredError,
    DomainError,
    InvalidWorldError,
    OrderNotFoundError,
    OutOfStockError,
    ShipmentNotFoundError,
    StoreFailedError,
)
from domain.models import (
    Approval,
    ApprovalStatus,
    AuditEntry,
    Order,
    PolicyDoc,
    SentReply,
    Shipment,
    Ticket,
    ToolKind,
)
from domain.parcel import OrderClosure, ParcelState, order_closure, parcel_state
from domain.store import BREAKABLE_TABLES, DENIED_TABLES, Store
from domain.world import DEFAULT_SKU, WORLD_KEYS, World, build_world, parse_world

__all__ = [
    "BREAKABLE_TABLES",
    "DEFAULT_SKU",
    "DENIED_TABLES",
    "WORLD_KEYS",
    "Approval",
    "ApprovalGate",
    "ApprovalRequiredError",
    "ApprovalStatus",
    "Approver",
    "AuditEntry",
    "DomainError",
    "InvalidWorldError",
    "Order",
    "OrderClosure",
    "OrderNotFoundError",
    "OutOfStockError",
    "ParcelState",
    "PolicyDoc",
    "Proposal",
    "SentReply",
    "Shipment",
    "ShipmentNotFoundError",
    "Store",
    "StoreFailedError",
    "Ticket",
    "ToolKind",
    "World",
    "build_world",
    "order_closure",
    "parcel_state",
    "parse_world",
]
