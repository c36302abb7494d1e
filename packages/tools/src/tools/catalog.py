"""The read tools: orders, logistics, policy KB, stock.

When the conversation is authenticated as a customer (``ToolContext.customer``), the
order and logistics tools answer only about that customer's orders: another customer's
order is refused (:class:`NotCustomersOrderError`, audited as refused). Without a customer
no ownership check applies: authenticating the customer is the channel's job.
"""

from __future__ import annotations

from typing import Any

from domain import OrderNotFoundError, ShipmentNotFoundError

from tools.errors import NotCustomersOrderError
from tools.evidence import Evidence, build_excerpt
from tools.registry import Tool, ToolContext, ToolResult, object_schema, string


def _check_owner(ctx: ToolContext, tool: str, order_id: str, owner: str) -> None:
    """Refuse when the conversation's customer is known and is not ``owner``."""
    if ctx.customer is not None and owner != ctx.customer:
        raise NotCustomersOrderError(tool, order_id, ctx.customer)


NO_SKU = "（未登记）"
"""How an order's evidence names a SKU the order lacks."""


def get_order(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """The order with its status, amount and SKU; ``found: false`` when it does not exist;
    refused when it is another customer's."""
    try:
        order = ctx.store.get_order(args["order_id"])
    except OrderNotFoundError:
        return ToolResult(tool="orders__get_order", data={"found": False})
    _check_owner(ctx, "orders__get_order", order.id, order.customer)
    # An order without a SKU says so: an empty field would leave the reader a hole.
    sku = order.sku if order.sku.strip() else NO_SKU
    text = f"订单 {order.id}：状态「{order.status}」，实付 {order.paid:.2f} 元，商品 {sku}"
    item = Evidence(
        id=ctx.next_id("order"), source="orders", kind="order", excerpt=build_excerpt(text)
    )
    return ToolResult(
        tool="orders__get_order",
        evidence=[item],
        data={"found": True, "order": order.model_dump()},
    )


def track(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """The order's shipment; ``found: false`` when there is no shipment record (or, for
    an authenticated customer, no order to prove it is theirs); refused when the order is
    another customer's."""
    if ctx.customer is not None:
        try:
            order = ctx.store.get_order(args["order_id"])
        except OrderNotFoundError:
            return ToolResult(tool="logistics__track", data={"found": False})
        _check_owner(ctx, "logistics__track", order.id, order.customer)
    try:
        ship = ctx.store.get_shipment(args["order_id"])
    except ShipmentNotFoundError:
        return ToolResult(tool="logistics__track", data={"found": False})
    text = (
        f"运单（订单 {ship.order_id}，{ship.carrier}）：{ship.state}，"
        f"最后节点 {ship.last_event}，已 {ship.stale_hours} 小时无更新"
    )
    item = Evidence(
        id=ctx.next_id("ship"), source="logistics", kind="shipment", excerpt=build_excerpt(text)
    )
    return ToolResult(
        tool="logistics__track",
        evidence=[item],
        data={"found": True, "shipment": ship.model_dump()},
    )


def search_kb(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Policy documents matching the query, current versions only unless asked."""
    docs = ctx.store.search_policies(
        args["query"], include_superseded=args.get("include_superseded", False)
    )
    items = [
        Evidence(
            id=f"kb#{doc.id}",
            source="kb",
            kind="policy",
            excerpt=build_excerpt(f"《{doc.title}》{doc.body}"),
            version=f"{doc.version} ({doc.effective_date}{', 已废止' if doc.superseded else ''})",
        )
        for doc in docs
    ]
    return ToolResult(
        tool="kb__search",
        evidence=items,
        data={"documents": [doc.model_dump() for doc in docs]},
    )


def check_stock(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Units of a SKU in stock."""
    qty = ctx.store.stock_level(args["sku"])
    text = f"库存 {args['sku']}：{qty} 件"
    item = Evidence(
        id=ctx.next_id("stock"), source="stock", kind="stock", excerpt=build_excerpt(text)
    )
    return ToolResult(tool="stock__check", evidence=[item], data={"sku": args["sku"], "qty": qty})


READ_TOOLS = [
    Tool(
        name="orders__get_order",
        kind="read",
        description="Look up an order: status, amount paid, SKU.",
        parameters=object_schema({"order_id": string()}),
        handler=get_order,
    ),
    Tool(
        name="logistics__track",
        kind="read",
        description="Track an order's parcel: carrier state, last event, hours without update.",
        parameters=object_schema({"order_id": string()}),
        handler=track,
    ),
    Tool(
        name="kb__search",
        kind="read",
        description="Full-text search of the policy knowledge base (current versions).",
        parameters=object_schema(
            {"query": string(200), "include_superseded": {"type": "boolean"}},
            required=["query"],
        ),
        handler=search_kb,
    ),
    Tool(
        name="stock__check",
        kind="read",
        description="Units of a SKU in stock.",
        parameters=object_schema({"sku": string()}),
        handler=check_stock,
    ),
]
