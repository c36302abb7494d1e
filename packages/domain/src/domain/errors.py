"""Errors raised by the domain: one base class, one subclass per failure."""

from __future__ import annotations

from collections.abc import Sequence


class DomainError(Exception):
    """Base class of every error the domain raises."""


class OrderNotFoundError(DomainError):
    """No order with this id exists."""

    def __init__(self, order_id: str) -> None:
        super().__init__(f"order {order_id!r} not found")
        self.order_id = order_id


class ShipmentNotFoundError(DomainError):
    """The order has no shipment record."""

    def __init__(self, order_id: str) -> None:
        super().__init__(f"no shipment record for order {order_id!r}")
        self.order_id = order_id


class StoreFailedError(DomainError):
    """A table of the world database failed to answer (a broken or locked table): the
    read did not happen. Never to be taken for "not found"."""

    def __init__(self, table: str, detail: str) -> None:
        super().__init__(f"table {table!r} failed: {detail}")
        self.table = table
        self.detail = detail


class OutOfStockError(DomainError):
    """A reservation would take stock below zero; nothing was changed."""

    def __init__(self, sku: str, available: int) -> None:
        super().__init__(f"sku {sku!r} is out of stock (available: {available!r})")
        self.sku = sku
        self.available = available


class ApprovalRequiredError(DomainError):
    """A ticket or reply was written without citing an approved approval."""

    def __init__(self, kind: str, approval_id: str | None) -> None:
        super().__init__(f"{kind} refused: approval {approval_id!r} is missing or not approved")
        self.kind = kind
        self.approval_id = approval_id


class InvalidWorldError(DomainError):
    """A world override could not be applied; ``problems`` lists each mistake as one
    line ``world.field.path: message`` (empty when the database refused the world)."""

    def __init__(self, detail: str, problems: Sequence[str] = ()) -> None:
        super().__init__(f"invalid world override: {detail}")
        self.detail = detail
        self.problems: list[str] = list(problems)
