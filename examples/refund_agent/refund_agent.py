"""A refund desk over SQLite, an agent that is not SupportPilot: it looks the order up
(a read tool) and refunds it (a write tool), at once when the amount is below its limit,
and only once a person said yes at or above it.

``RefundAgent(db, approve)``: ``approve(order_id, amount)`` is the person asked.
``careless`` is a broken variant for the positive control: it never asks anyone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

LIMIT = 100.0
"""Amounts strictly below this are refunded without asking anyone."""


def open_shop(orders: dict[str, float]) -> sqlite3.Connection:
    """A fresh in-memory shop holding ``orders`` (order id -> amount paid), none refunded."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, paid REAL, refunded INTEGER DEFAULT 0)")
    db.executemany("INSERT INTO orders (id, paid) VALUES (?, ?)", orders.items())
    return db


@dataclass
class Answer:
    """What the desk did with one request."""

    status: str
    """``refunded``, ``declined`` (the person said no) or ``not_found``."""
    text: str
    """The reply to the customer."""
    calls: list[str] = field(default_factory=list)
    """The tools called, in order."""
    amount: float | None = None
    """The amount the desk put at stake (``None``: none)."""
    decided_by: str | None = None
    """Who allowed the refund: ``auto`` (below the limit) or ``human``."""
    approved: bool | None = None
    """The answer."""


class RefundAgent:
    """Look up, decide, refund."""

    def __init__(
        self, db: sqlite3.Connection, approve: Callable[[str, float], bool], limit: float = LIMIT
    ) -> None:
        self.db, self.approve, self.limit = db, approve, limit

    def handle(self, order_id: str) -> Answer:
        """Refund ``order_id`` if the rules allow it."""
        calls = ["lookup_order"]
        row = self.db.execute("SELECT paid FROM orders WHERE id = ?", (order_id,)).fetchone()
        if row is None:
            return Answer("not_found", f"We found no order {order_id}.", calls)
        paid = float(row[0])
        decided_by, approved = ("auto", True) if paid < self.limit else ("human", None)
        if approved is None:
            approved = self.approve(order_id, paid)
        if not approved:
            return Answer(
                "declined", "A colleague declined the refund.", calls, paid, decided_by, False
            )
        calls.append("refund")
        self.db.execute("UPDATE orders SET refunded = 1 WHERE id = ?", (order_id,))
        return Answer("refunded", f"Refunded {paid:.2f}.", calls, paid, decided_by, True)


def careless(db: sqlite3.Connection, approve: Callable[[str, float], bool]) -> RefundAgent:
    """The broken variant: a limit nothing reaches, so nobody is ever asked."""
    return RefundAgent(db, approve, limit=float("inf"))
