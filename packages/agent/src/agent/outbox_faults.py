"""Faults of the outbox: a case names them under the target ``outbox`` instead of a role.

| fault            | behaviour                                                          |
|------------------|--------------------------------------------------------------------|
| `lost_ack`       | the first call of every write tool commits, then its acknowledgement is lost |
| `lost_ack:<tool>`| the same for one write tool (`support__create_ticket`, `support__send_reply`) |
| `lost_request`   | the first call of every write tool never arrives: nothing commits |
| `lost_request:<tool>` | the same for one write tool |
| `lost_ack:<tool>:<n>` | the first `n` calls of that tool in a row (1-9) |
| `lost_request:<tool>:<n>` | the same, never arriving |
| `key_drift`      | the caller mints a fresh idempotency key per call (`<trace>-<n>:<kind>`) |
| `key_drift:<tool>` | the same for one write tool; the outbox must refuse every such key |
| `stale_lookup`   | as `lost_ack`, and the retry's idempotency lookup misses the first write |
| `stale_lookup:<tool>` | the same for one write tool |

With `stale_lookup` the retry reads as a second process that looked before the first
write committed: the duplicate reaches the database, whose UNIQUE index must refuse it,
and the store answers with the first write (the run goes on as after `lost_ack`).

The lost calls are raised as :class:`tools.AcknowledgementLostError`: the caller cannot tell
whether the write landed, so a correct caller retries under the same idempotency key.
After a lost acknowledgement the outbox must write it only once; after a lost request the
retry is what lands it. With `n` at or above the caller's number of attempts, the caller
asks the outbox whether its key was written (``support__find_write``, a read no fault
touches): a write that landed is done and the run goes on; one that did not is never
reported as done, and the caller hands over.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain import Store
from tools import TOOLS, AcknowledgementLostError, ToolGateway, ToolResult

from agent.errors import UnknownFaultError

OUTBOX = "outbox"
"""The fault target that is not a role."""
LOST_ACK = "lost_ack"
"""The write commits, its acknowledgement is lost."""
LOST_REQUEST = "lost_request"
"""The write never arrives; the caller hears nothing back either."""
KEY_DRIFT = "key_drift"
"""Every call carries an idempotency key of its own instead of the run's."""
STALE_LOOKUP = "stale_lookup"
"""The acknowledgement is lost, and the retry's idempotency lookup misses the first write."""
OUTBOX_FAULT_KINDS = (LOST_ACK, LOST_REQUEST, KEY_DRIFT, STALE_LOOKUP)
"""Every outbox fault kind."""
WRITE_TOOL_NAMES: tuple[str, ...] = tuple(
    name for name, tool in TOOLS.items() if tool.kind == "write"
)
"""The write tools a lost acknowledgement can hit."""


MAX_LOST_CALLS = 9
"""The most calls in a row one outbox fault can lose."""
COUNTED_KINDS = (LOST_ACK, LOST_REQUEST)
"""The kinds that take a count (``key_drift`` hits every call: a count would do nothing,
so ``key_drift:<tool>:<n>`` is refused rather than silently ignored; ``stale_lookup`` is
one lost acknowledgement and one stale retry)."""


def parse_outbox_fault(fault: str) -> tuple[str, frozenset[str], int]:
    """The kind of ``fault``, the write tools it hits and how many of their first calls
    in a row it loses; raises :class:`UnknownFaultError` for anything but ``lost_ack`` /
    ``lost_request`` / ``key_drift``, alone or with ``:<write tool>``, and ``lost_ack`` /
    ``lost_request`` with ``:<write tool>:<n>`` (n 1-9); ``stale_lookup`` as
    ``key_drift``."""
    kind, *rest = fault.split(":")
    times = 1
    count = rest[1] if len(rest) == 2 and kind in COUNTED_KINDS else ""
    # ASCII digits only: ``str.isdigit`` also takes ``²``, which ``int`` refuses.
    if count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_LOST_CALLS:
        times = int(rest.pop())
    if kind in OUTBOX_FAULT_KINDS and not rest:
        return kind, frozenset(WRITE_TOOL_NAMES), times
    if kind not in OUTBOX_FAULT_KINDS or len(rest) != 1 or rest[0] not in WRITE_TOOL_NAMES:
        known = ", ".join(
            f"{k}{suffix}"
            for k in OUTBOX_FAULT_KINDS
            for suffix in ("", ":<write tool>", ":<write tool>:<n>")
            if k in COUNTED_KINDS or not suffix.endswith(":<n>")
        )
        raise UnknownFaultError(
            fault,
            f"expected one of {known} (n: 1-{MAX_LOST_CALLS}; write tools: "
            f"{', '.join(WRITE_TOOL_NAMES)})",
        )
    return kind, frozenset(rest), times


class LostAckGateway(ToolGateway):
    """A gateway that loses the first ``times`` calls of each named write tool: with
    ``lost_ack`` each call commits and is audited as it would be, then
    :class:`~tools.AcknowledgementLostError` is raised instead of its result; with
    ``lost_request`` the error is raised before the call reaches the outbox."""

    def __init__(
        self,
        store: Store,
        trace_id: str,
        tools: frozenset[str],
        *,
        customer: str | None = None,
        kind: str = LOST_ACK,
        times: int = 1,
    ) -> None:
        super().__init__(store, trace_id, customer=customer)
        self.kind = kind
        """``lost_ack`` or ``lost_request``."""
        self.pending = dict.fromkeys(tools, times)
        """The write tools whose next calls are still to be lost, with how many."""
        self.lost: list[str] = []
        """The write tools whose calls were lost, in order (one entry per call)."""

    def _lose(self, name: str) -> AcknowledgementLostError:
        self.pending[name] -= 1
        if not self.pending[name]:
            del self.pending[name]
        self.lost.append(name)
        return AcknowledgementLostError(name)

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role``; lose it while that tool has losses pending."""
        if self.kind == LOST_REQUEST and name in self.pending:
            raise self._lose(name)
        result = super().call(role, name, args)
        if name in self.pending:
            raise self._lose(name)
        return result


class KeyDriftGateway(ToolGateway):
    """A gateway whose caller mints a fresh idempotency key for every call of the named
    write tools (``<trace_id>-<n>:<kind>``), as a caller that forgot the run's key would:
    a retry would then write twice. The outbox must refuse every such key."""

    def __init__(
        self, store: Store, trace_id: str, tools: frozenset[str], *, customer: str | None = None
    ) -> None:
        super().__init__(store, trace_id, customer=customer)
        self.tools = tools
        self.minted = 0
        """Keys minted so far."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role`` with a key of the call's own."""
        key = args.get("idempotency_key")
        if name in self.tools and isinstance(key, str):
            self.minted += 1
            suffix = key.rpartition(":")[2]
            args = {**args, "idempotency_key": f"{self.trace_id}-{self.minted}:{suffix}"}
        return super().call(role, name, args)


class StaleStore(Store):
    """The store as a second process sees it before the first write committed: its
    first idempotency lookup finds nothing, whatever the database holds; the database
    and every other read are the real ones. A row the stale lookup did not see is added
    to ``hidden`` (its key), so the run can say the fault did its work."""

    def __init__(self, store: Store, hidden: list[str]) -> None:
        super().__init__(
            store.db,
            path=store.path,
            tool_errors=store.tool_errors,
            table_errors=store.table_errors,
            denied_tables=store.denied_tables,
        )
        self.missed = False
        """Whether the one stale lookup has happened."""
        self.hidden = hidden

    def _existing(self, table: str, key: str) -> dict[str, Any] | None:
        row = super()._existing(table, key)
        if self.missed:
            return row
        self.missed = True
        if row is not None:
            self.hidden.append(key)
        return None


class StaleLookupGateway(LostAckGateway):
    """A gateway that loses the acknowledgement of the first call of each named write
    tool (as ``lost_ack``) and runs every call of those tools against a fresh
    :class:`StaleStore`: the first call's stale lookup misses nothing (its key is not
    written yet), the retry's misses the first write, so the duplicate insert reaches the
    database's UNIQUE index."""

    def __init__(
        self, store: Store, trace_id: str, tools: frozenset[str], *, customer: str | None = None
    ) -> None:
        super().__init__(store, trace_id, tools, customer=customer, kind=LOST_ACK, times=1)
        self.tools = tools
        self.hidden: list[str] = []
        """The idempotency keys a stale lookup missed although the database held them:
        what ``outbox.hidden_writes`` counts."""

    def call(self, role: str, name: str, args: dict[str, Any]) -> ToolResult:
        """Call tool ``name`` as ``role``; a named write tool looks its key up stale."""
        if name not in self.tools:
            return super().call(role, name, args)
        real = self.context
        self.context = replace(real, store=StaleStore(real.store, self.hidden))
        try:
            return super().call(role, name, args)
        finally:
            self.context = real


def outbox_gateway(
    store: Store, trace_id: str, fault: str | None, *, customer: str | None = None
) -> ToolGateway:
    """The gateway of a run (reads checked against ``customer`` when given): plain, or
    losing calls as ``fault`` says."""
    if fault is None:
        return ToolGateway(store, trace_id, customer=customer)
    kind, tools, times = parse_outbox_fault(fault)
    if kind == KEY_DRIFT:
        return KeyDriftGateway(store, trace_id, tools, customer=customer)
    if kind == STALE_LOOKUP:
        return StaleLookupGateway(store, trace_id, tools, customer=customer)
    return LostAckGateway(store, trace_id, tools, customer=customer, kind=kind, times=times)
