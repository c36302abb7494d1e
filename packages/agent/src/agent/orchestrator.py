"""The orchestrator: dispatch, aggregate, decide, draft, ask for approval, write."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from domain import ApprovalGate, Proposal
from tools import AcknowledgementLostError, ToolError, ToolGateway, idempotency_key

from agent.aggregate import Aggregate, aggregate
from agent.amounts import parse_amount
from agent.brain import Plan, Task
from agent.bus import ORCHESTRATOR, Bus
from agent.contracts import EVIDENCE_ROLES, REPLY_ROLE
from agent.decision import Escalation, Proceed, decide
from agent.obedient import REFUND_PROMISE, Demands, demands, leak_line
from agent.order_ids import normalize_order_id
from agent.outcome import Budget, Handover, Outcome
from agent.replies import ASK_ORDER_ID, draft_problems
from agent.worker import Worker, WorkerResult

TOOL_CRASHED = "tool_crashed"
"""The hand-over reason of a turn whose own tool call (the stock check, a write) raised an
error the tool layer does not know."""

MAX_ATTEMPTS = 2
"""One try plus exactly one retry, and only after ``invalid_output``."""
MAX_WRITE_ATTEMPTS = 2
"""A write whose acknowledgement was lost is tried once more under the same idempotency
key (the outbox writes a key once); any other write failure is not retried."""

T = TypeVar("T")


async def _all_or_nothing(coroutines: list[Coroutine[Any, Any, T]]) -> list[T]:
    """Run ``coroutines`` concurrently; when one raises (a provider failure), cancel the
    others and re-raise, so nothing keeps running against a world about to be closed."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class Orchestrator:
    """Handles one customer message for one trace."""

    def __init__(
        self,
        workers: Mapping[str, Worker],
        gateway: ToolGateway,
        gate: ApprovalGate,
        bus: Bus | None = None,
        *,
        obedient: bool = False,
    ) -> None:
        self.workers = dict(workers)
        self.obedient = obedient
        """Honour instructions found in claims (only with ``screen=off``; see
        :mod:`agent.obedient`)."""
        self.gateway = gateway
        self.gate = gate
        self.trace_id = gateway.trace_id
        self.bus = bus or Bus(self.trace_id, self.workers)
        self.results: dict[str, WorkerResult] = {}
        self.chars_read = 0

    # Dispatch ---------------------------------------------------------------------

    async def _dispatch(self, task: Task) -> WorkerResult:
        role = task.role
        result = WorkerResult(role=role, status="error", error="never dispatched")
        for attempt in range(1, MAX_ATTEMPTS + 1):
            sent = task.model_copy(update={"attempt": attempt})
            message = self.bus.send("task", ORCHESTRATOR, role, sent.model_dump(mode="json"))
            worker = self.workers.get(role)
            if message.status == "rejected" or worker is None:
                result = WorkerResult(role=role, status="error", error=message.reason)
                break
            result = await worker.perform(sent)
            self.chars_read += result.chars_read
            back = self.bus.send("result", role, ORCHESTRATOR, result.payload(message.seq))
            if back.status == "rejected":
                result = WorkerResult(role=role, status="invalid_output", error=back.reason)
            if result.status != "invalid_output":
                break
        self.results[role] = result
        return result

    # Outcomes ---------------------------------------------------------------------

    def _budget(self) -> Budget:
        delivered = [m for m in self.bus.log if m.status == "delivered"]
        return Budget(
            tasks=sum(1 for m in self.bus.log if m.kind == "task"),
            chars_read=self.chars_read,
            chars_returned=sum(m.chars for m in delivered if m.kind == "result"),
        )

    def _outcome(self, agg: Aggregate, **fields: object) -> Outcome:
        errors: dict[str, str] = {}
        for message in self.bus.log:
            error = message.payload.get("error") if message.kind == "result" else None
            if error and message.sender not in errors:
                errors[message.sender] = str(error)
        return Outcome(
            trace_id=self.trace_id,
            aggregate=agg,
            budget=self._budget(),
            statuses={role: r.status for role, r in self.results.items()},
            role_errors=errors,
            **fields,  # type: ignore[arg-type]
        )

    def _escalate(self, agg: Aggregate, reason: str, suggestion: str, **fields: object) -> Outcome:
        handover = Handover(reason=reason, suggestion=suggestion, facts=agg.agreed)
        return self._outcome(agg, decision="escalate", handover=handover, **fields)

    def _crashed(self, agg: Aggregate, crash: str, **fields: object) -> Outcome:
        """Escalate a turn whose own tool call crashed the tool layer (an error it does not
        know, as a database refusing a table; ``crash``: its class and text): nothing is
        concluded from it, and the error is named to the human (the audit log records the
        crashed call)."""
        suggestion = f"工具层出错（{crash}），未据此作任何判断，请人工处理。"
        return self._escalate(agg, TOOL_CRASHED, suggestion, **fields)

    # The decision -----------------------------------------------------------------

    async def handle(self, order_id: str | None, goal: str) -> Outcome:
        """Handle one customer message: ``goal`` about order ``order_id``.

        A :class:`~agent.errors.ProviderError` from any specialist ends the turn: it is
        raised to the caller (nothing is written), never turned into an escalation.
        """
        order_id = normalize_order_id(order_id)
        if not order_id:
            return self._outcome(Aggregate(), decision="ask_user", draft=ASK_ORDER_ID)
        tasks = [
            Task(trace_id=self.trace_id, role=role, order_id=order_id, goal=goal)
            for role in EVIDENCE_ROLES
        ]
        results = await _all_or_nothing([self._dispatch(task) for task in tasks])
        agg = aggregate(results)
        verdict = decide(agg, {r.role: r.status for r in results})
        wanted = self._demands(order_id, results)
        if isinstance(verdict, Escalation) and not wanted.any:
            return self._escalate(agg, verdict.reason, verdict.suggestion)
        if isinstance(verdict, Escalation):  # the obedient path answers as told
            verdict = Proceed(plan="wait", stale_hours=0, threshold_hours=0)
        if wanted.reissue:
            verdict = verdict.model_copy(update={"plan": "reissue"})
        return await self._answer(order_id, agg, verdict, wanted)

    def _demands(self, order_id: str, results: list[WorkerResult]) -> Demands:
        if not self.obedient:
            return Demands()
        return demands((claim for r in results for claim in r.claims), order_id)

    def _obey(self, draft: str, wanted: Demands) -> str:
        """``draft`` with what the instructions demanded added (the obedient path)."""
        if wanted.refund:
            draft += REFUND_PROMISE
        for other in wanted.orders:
            # The model uses the order specialist's tool, as an obedient model would.
            try:
                found = self.gateway.call("order_agent", "orders__get_order", {"order_id": other})
            except ToolError:
                continue
            self.chars_read += found.chars_read  # read with the order specialist's tool
            if found.data.get("found"):
                draft += leak_line(other, str(found.data["order"]["customer"]))
        return draft

    async def _answer(
        self, order_id: str, agg: Aggregate, verdict: Proceed, wanted: Demands
    ) -> Outcome:
        plan = verdict.plan
        sku = agg.agreed.get("sku", "")
        if plan == "reissue":
            # A SKU of only whitespace names no product either: nothing to reissue.
            if not sku.strip():
                return self._escalate(
                    agg, "out_of_stock", "订单上没有商品编号，无法确定补发商品，请人工核实后处理。"
                )
            try:
                in_stock = self._in_stock(sku)
            except ToolError as e:
                # A stock check the tool refuses (a SKU past its argument limit) or fails (a
                # broken stock table) confirms no stock: the reissue waits for a human.
                return self._escalate(
                    agg, "out_of_stock", f"补发商品 {sku} 的库存无法查询（{e}），请人工核实后处理。"
                )
            except Exception as e:
                return self._crashed(agg, f"{type(e).__name__}: {e}")
            if not in_stock:
                return self._escalate(agg, "out_of_stock", f"补发商品 {sku} 无库存，请人工处理。")
        amount = 0.0
        if plan == "reissue":
            paid = parse_amount(agg.agreed.get("paid"))
            # An unreadable amount must never become 0 and pass under an auto-approval limit.
            if paid is None:
                return self._escalate(
                    agg, "amount_unreadable", "订单实付金额无法识别，不能提交审批，请人工核实。"
                )
            amount = paid
        draft_task = Task(
            trace_id=self.trace_id, role=REPLY_ROLE, order_id=order_id, plan=plan, facts=agg.agreed
        )
        drafted = await self._dispatch(draft_task)
        draft = next((c.value for c in drafted.claims if c.topic == "reply"), None)
        # A draft of spaces and line breaks is none: nothing a customer could read.
        if drafted.status != "ok" or not draft or not draft.strip():
            return self._escalate(agg, "specialist_failed", "回复草稿未能生成，请人工回复。")
        draft = self._obey(draft, wanted)
        problems = draft_problems(draft, plan)
        if problems:
            return self._escalate(agg, "unsafe_draft", "；".join(problems), draft=draft)
        approval = self.gate.decide(
            Proposal(
                trace_id=self.trace_id,
                action=plan if plan == "reissue" else "reply",
                order_id=order_id,
                amount=amount,
                summary=f"{_ticket_summary(order_id, agg, plan)}\n回复：{draft}",
            )
        )
        if approval.status != "approved":
            return self._outcome(
                agg, decision="awaiting_approval_rejected", draft=draft, approval_id=approval.id
            )
        try:
            self._write(order_id, agg, plan, draft, approval.id)
        except ToolError as e:
            return self._escalate(
                agg, "write_failed", f"写入失败：{e}", draft=draft, approval_id=approval.id
            )
        except Exception as e:
            crash = f"{type(e).__name__}: {e}"
            return self._crashed(agg, crash, draft=draft, approval_id=approval.id)
        return self._outcome(
            agg, decision="replied", reply=draft, draft=draft, approval_id=approval.id
        )

    def _in_stock(self, sku: str) -> bool:
        result = self.gateway.call(ORCHESTRATOR, "stock__check", {"sku": sku})
        return int(result.data["qty"]) > 0

    def _write_once(self, tool: str, args: dict[str, Any]) -> None:
        """Call write ``tool``; retry it (same arguments, same idempotency key) when only
        its acknowledgement was lost, at most :data:`MAX_WRITE_ATTEMPTS` calls in all.
        When every acknowledgement was lost, ask the outbox whether the key was written:
        a write that landed is done; one that did not is re-raised (never reported as
        done)."""
        for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
            try:
                self.gateway.call(ORCHESTRATOR, tool, args)
                return
            except AcknowledgementLostError:
                if attempt == MAX_WRITE_ATTEMPTS:
                    if self._landed(args["idempotency_key"]):
                        return
                    raise

    def _landed(self, key: str) -> bool:
        """Whether the outbox wrote something under ``key``."""
        found = self.gateway.call(ORCHESTRATOR, "support__find_write", {"idempotency_key": key})
        return bool(found.data["found"])

    def _write(
        self, order_id: str, agg: Aggregate, plan: Plan, draft: str, approval_id: str
    ) -> None:
        if plan == "reissue":
            self._write_once(
                "support__create_ticket",
                {
                    "order_id": order_id,
                    "sku": agg.agreed["sku"],
                    "approval_id": approval_id,
                    "idempotency_key": idempotency_key(self.trace_id, "ticket"),
                    "summary": _ticket_summary(order_id, agg, plan),
                },
            )
        self._write_once(
            "support__send_reply",
            {
                "order_id": order_id,
                "text": draft,
                "approval_id": approval_id,
                "idempotency_key": idempotency_key(self.trace_id, "reply"),
            },
        )


def _ticket_summary(order_id: str, agg: Aggregate, plan: Plan) -> str:
    if plan != "reissue":
        return f"订单 {order_id}：仅回复，不补发"
    return (
        f"订单 {order_id} 补发 {agg.agreed.get('sku', '?')}：物流停滞 "
        f"{agg.agreed.get('stale_hours', '?')} 小时，达到 "
        f"{agg.agreed.get('reissue_threshold_hours', '?')} 小时门槛"
    )
