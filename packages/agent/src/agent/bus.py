"""The message bus: every task and result passes through it and lands in its log."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

MessageKind = Literal["task", "result"]
MessageStatus = Literal["delivered", "rejected"]

ORCHESTRATOR = "orchestrator"
DEFAULT_MAX_PAYLOAD_CHARS = 64000


class Message(BaseModel):
    """One logged message."""

    model_config = ConfigDict(frozen=True)

    seq: int
    """Position in the trace's log, from 1."""
    trace_id: str
    """The run."""
    kind: MessageKind
    """``task`` (orchestrator → specialist) or ``result`` (back)."""
    sender: str
    """Who sent it."""
    recipient: str
    """Who it is for."""
    status: MessageStatus
    """``rejected``: unknown recipient or oversized payload; not delivered."""
    payload: dict[str, Any]
    """The task or the result."""
    reason: str = ""
    """Why it was rejected."""
    chars: int = 0
    """Size of the payload as JSON characters."""


def payload_chars(payload: dict[str, Any]) -> int:
    """Characters of ``payload`` serialized as JSON (non-ASCII kept as is)."""
    return len(json.dumps(payload, ensure_ascii=False))


class Bus:
    """Routes messages between the orchestrator and the specialists of one trace."""

    def __init__(
        self,
        trace_id: str,
        participants: Iterable[str],
        max_payload_chars: int = DEFAULT_MAX_PAYLOAD_CHARS,
    ) -> None:
        self.trace_id = trace_id
        self.participants = {ORCHESTRATOR, *participants}
        self.max_payload_chars = max_payload_chars
        self.log: list[Message] = []
        """Every message, in order."""

    def send(
        self, kind: MessageKind, sender: str, recipient: str, payload: dict[str, Any]
    ) -> Message:
        """Log a message and say whether it was delivered."""
        chars = payload_chars(payload)
        reason = ""
        if recipient not in self.participants:
            reason = f"unknown recipient {recipient!r}"
        elif chars > self.max_payload_chars:
            reason = f"payload of {chars} characters exceeds {self.max_payload_chars}"
        message = Message(
            seq=len(self.log) + 1,
            trace_id=self.trace_id,
            kind=kind,
            sender=sender,
            recipient=recipient,
            status="rejected" if reason else "delivered",
            payload=payload,
            reason=reason,
            chars=chars,
        )
        self.log.append(message)
        return message
