"""The refusal suite (``cases/refusals.jsonl``): every way a SupportPilot case can be
invalid, each a configuration case whose ``expect.refused`` lists the problem lines
``SupportPilotSUT.check_case`` must give, plus the boundary values just inside each
rule (``expect.refused: []``: the SUT must accept them).

The expected lines are computed here from the written spec of the messages
(``docs/cases.md``, "Problem messages"), never by calling the code that prints them:
this module imports nothing of ``domain``, ``agent`` or ``tools`` (a test checks it), so
a mutant of ``domain.problems``, the world model or a fault parser disagrees with it.
The vocabulary below (the keys of each world record, the roles, the tools, the fault
forms) is copied from that spec for the same reason.

It is one dimension, ``mistake``, of :mod:`evals.cases.generate` (a single dimension is
enumerated in full): each label is one mistake; its tags name the field
(``field:world.stock``), the kind of wrongness (``wrong:below_min``) and for faults the
kind (``kind:flaky``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any

from evals.cases.generate import CaseGenerator, Dimension, values_in

# -- the vocabulary of the spec (docs/cases.md) --------------------------------------

WORLD_KEYS = (
    "orders",
    "logistics",
    "kb",
    "stock",
    "approve",
    "approver",
    "auto_approve_below",
    "policies",
    "tool_errors",
    "table_errors",
    "denied_tables",
)
ORDER_KEYS = ("customer", "sku", "status", "paid")
SHIPMENT_KEYS = ("carrier", "state", "last_event", "stale_hours")
POLICY_KEYS = ("title", "body", "keywords", "version", "effective_date", "superseded")
KB_VALUES = ("default", "empty")
APPROVER_VALUES = ("human", "missing", "silent", "broken")
TABLES = ("orders", "shipments", "policies", "stock")
"""The tables a world can make fail (``world.table_errors``)."""
DENIED_TABLES = ("orders", "shipments", "policies", "stock", "tickets", "replies")
"""The tables a world can make SQLite refuse (``world.denied_tables``)."""
DENIALS = ("read", "write")
READ_TOOLS = ("orders__get_order", "logistics__track", "kb__search", "stock__check")
WRITE_TOOLS = ("support__create_ticket", "support__send_reply")
ROLES = ("order_agent", "logistics_agent", "policy_agent", "reply_agent")
SIMPLE_FAULTS = (
    "crash",
    "timeout",
    "inject",
    "fabricate",
    "write_attempt",
    "garble",
    "garble_once",
)
AMOUNT_STYLES = (
    "symbol",
    "yuan",
    "grouped",
    "words",
    "fullwidth",
    "rmb",
    "cny",
    "rmb_after",
    "cny_after",
    "yuan_before",
    "two_after",
    "padded",
)
MAX_COUNT = 2**63 - 1
MAX_OVERSIZE = 100_000
MAX_CLAIM_COUNT = 1000
MAX_TOPIC_CHARS = 1000
MAX_LOST_CALLS = 9
MODEL_FAULTS: dict[str, bool] = {
    "malformed_call": True,
    "outside_allowlist": True,
    "unknown_tool": True,
    "empty_arguments": True,
    "null_arguments": True,
    "custom_call": True,
    "parallel_calls": True,
    "unparsable_once": True,
    "refusal": True,
    "no_choices": True,
    "endless_tools": True,
    "slow": True,
    "fenced": True,
    "two_mistakes": True,
    "at_limit": True,
    "past_limit": True,
    "extra_argument": True,
    "query_syntax": True,
    "long_mistake": True,
    "extra_key": True,
    "bare_list_once": True,
    "last_topic_left_out": True,
    "extra_claims": True,
    "bare_claims": False,
    "numbers_in_words": True,
    "false_promise": False,
    "blank_draft": False,
    "cited_draft": False,
    "no_usage": False,
    "lone_outage": True,
    "bad_request": True,
    "rate_limited_once": True,
    "unauthorized": False,
    "rate_limited": False,
    "server_error": False,
    "timeout": False,
}
"""Model fault kind -> whether it names a role, in the scripted model's order."""
SCRIPTED_OPTIONS = {"brain": "openai", "model_server": "scripted"}
"""The SUT options under which model faults apply."""

GOAL = "包裹一直没到，要求马上补发"
ORDER_ID = "A1001"
TITLE_REFUSED = "无效的用例配置：运行前就须逐条指出问题"
TITLE_ACCEPTED = "边界内的用例配置：须被接受"

# -- the messages of the spec -----------------------------------------------------------

QUOTE_LIMIT = 200


def given(value: Any) -> str:
    """A given value as the messages show it: its repr, cut after 200 characters."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else f"{text[:QUOTE_LIMIT]}… ({len(text)} characters)"


def either(values: Sequence[str]) -> str:
    """``'a' or 'b'``, ``'a', 'b' or 'c'``."""
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def unknown_key(path: str, key: str, known: Sequence[str]) -> str:
    return f"{path}.{key}: unknown key {key!r} (known: {', '.join(known)})"


def expected(path: str, what: str, value: Any) -> str:
    return f"{path}: expected {what}, got {given(value)}"


def at_least(path: str, value: Any) -> str:
    return f"{path}: must be >= 0, got {given(value)}"


def at_most(path: str, value: Any) -> str:
    return f"{path}: must be <= {MAX_COUNT}, got {given(value)}"


def missing(path: str) -> str:
    return f"{path}: missing required field"


def not_empty(path: str) -> str:
    return f"{path}: must not be empty, got ''"


def unknown_read_tool(name: str) -> str:
    return f"world.tool_errors.{name}: unknown read tool {name!r} (known: {', '.join(READ_TOOLS)})"


def bad_customer(value: Any) -> str:
    return (
        "input.customer: expected the authenticated customer's name (a non-empty string),"
        f" got {given(value)}"
    )


def unknown_role(target: str) -> str:
    known = f"{', '.join(ROLES)}; outbox; screen; bypass; or model"
    return f"faults.{target}: unknown role {target!r} (known: {known})"


ROLE_FAULT_FORMS = (
    "crash, timeout, inject, fabricate, write_attempt, write_attempt:<write tool>,"
    " hidden_write_attempt:<write tool>, flaky:<p>, garble, garble_once,"
    " amount_format:<style>, oversize:<n>, claims:<n>, claim_topic:<n>"
)


def bad_fault(target: str, fault: str, detail: str) -> str:
    return f"faults.{target}: unknown fault {fault!r}: {detail}"


def role_fault_unknown(role: str, fault: str) -> str:
    return bad_fault(role, fault, f"expected one of {ROLE_FAULT_FORMS}")


def role_fault_argument(role: str, fault: str) -> str:
    kind, _, arg = fault.partition(":")
    needs = {
        "flaky": "flaky:<p> needs a probability p from 0 to 1",
        "oversize": f"oversize:<n> needs a whole number n from 1 to {MAX_OVERSIZE}",
        "claims": f"claims:<n> needs a whole number n from 1 to {MAX_CLAIM_COUNT}",
        "claim_topic": f"claim_topic:<n> needs a whole number n from 0 to {MAX_TOPIC_CHARS}",
        "amount_format": f"amount_format:<style> needs one of {', '.join(AMOUNT_STYLES)}",
    }
    if kind in needs:
        return bad_fault(role, fault, f"{needs[kind]}, got {arg!r}")
    return bad_fault(role, fault, f"{kind} takes no argument")


def _bad_argument(
    role: str, fault: str, wrong: str, kind: str, *, regression: bool = False
) -> Mistake:
    """A role fault whose argument is wrong: refused with the one line of
    :func:`role_fault_argument`."""
    return Mistake(
        f"faults.{role}",
        wrong,
        (role_fault_argument(role, fault),),
        faults={role: fault},
        kind=kind,
        note=fault,
        regression=regression,
    )


def write_attempt_problem(role: str, tool: str) -> str:
    fault = f"write_attempt:{tool}"
    known = ", ".join(WRITE_TOOLS)
    if tool in READ_TOOLS:
        return bad_fault(role, fault, f"{tool!r} is not a write tool (write tools: {known})")
    return bad_fault(role, fault, f"no tool {tool!r} (write tools: {known})")


def outbox_problem(fault: str) -> str:
    forms = [
        f"{kind}{suffix}"
        for kind in ("lost_ack", "lost_request", "key_drift", "stale_lookup")
        for suffix in ("", ":<write tool>", ":<write tool>:<n>")
        if kind in ("lost_ack", "lost_request") or not suffix.endswith(":<n>")
    ]
    detail = (
        f"expected one of {', '.join(forms)} (n: 1-{MAX_LOST_CALLS}; write tools:"
        f" {', '.join(WRITE_TOOLS)})"
    )
    return bad_fault("outbox", fault, detail)


def model_problem(fault: str) -> str:
    kind = fault.partition(":")[0]
    if kind not in MODEL_FAULTS:
        return bad_fault("model", fault, f"known model faults: {', '.join(MODEL_FAULTS)}")
    if MODEL_FAULTS[kind]:
        return bad_fault(
            "model", fault, f"{kind} needs a role: {kind}:ROLE, ROLE one of {', '.join(ROLES)}"
        )
    return bad_fault("model", fault, f"{kind} applies to every request and names no role")


NEEDS_SCRIPTED = (
    "faults.model: a model fault needs the scripted model"
    " (--sut-option brain=openai --sut-option model_server=scripted)"
)

# -- the mistakes -----------------------------------------------------------------------

_ABSENT = object()


@dataclass(frozen=True)
class Mistake:
    """One case of the suite: what is wrong (or just inside a rule) and what the SUT says."""

    field: str
    """The field or fault target concerned (tag ``field:<field>``)."""
    wrong: str
    """The kind of wrongness (tag ``wrong:<wrong>``); ``inside_*``/``valid``: accepted."""
    refused: tuple[str, ...]
    """The problem lines expected (empty: the case must be accepted)."""
    world: Mapping[str, Any] = _field(default_factory=dict)
    faults: Mapping[str, str] = _field(default_factory=dict)
    customer: Any = _ABSENT
    sut_options: Mapping[str, str] = _field(default_factory=dict)
    kind: str = ""
    """The fault kind concerned (tag ``kind:<kind>``), if any."""
    note: str = ""
    """What tells this mistake from another of the same field and wrongness."""
    regression: bool = False
    """It pins a bug that was fixed (split ``regression``)."""

    @property
    def label(self) -> str:
        parts = [self.field, self.wrong, *([self.note] if self.note else [])]
        return "/".join(parts).replace(":", "~").replace(" ", "_")


def _at(path: str, value: Any) -> dict[str, Any]:
    """A world holding ``value`` at the dotted ``path`` below ``world`` (digits are list
    indexes only where the path says ``policies``)."""
    parts = path.split(".")[1:]
    root: dict[str, Any] = {}
    node: Any = root
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "policies" and not last:
            index = int(parts[i + 1])
            items: list[Any] = [{"title": "补充说明", "body": "说明文字"} for _ in range(index + 1)]
            node[part] = items
            node = items
            continue
        if isinstance(node, list):
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
            continue
        if last:
            node[part] = value
        else:
            node = node.setdefault(part, {})
    return root


TYPE_WORDS = {
    "str": "a string",
    "money": "a number",
    "count": "an integer",
    "bool": "true or false",
    "object": "an object",
    "array": "an array",
}
WRONG_TYPES: dict[str, tuple[tuple[str, Any], ...]] = {
    "str": (("int", 5), ("bool", True), ("array", ["顺丰"])),
    "money": (("string", "59"), ("bool", True), ("array", [59])),
    "count": (("float", 72.0), ("string", "72"), ("bool", True)),
    "bool": (("int", 1), ("string", "yes")),
    "object": (("array", []), ("string", "x"), ("int", 5)),
    "array": (("object", {}), ("string", "x")),
}
"""Per type, the wrong JSON types tried (a label and a value)."""


def _type_mistakes(path: str, kind: str, *, nullable: bool) -> list[Mistake]:
    found = [
        Mistake(
            path,
            f"type_{label}",
            (expected(path, TYPE_WORDS[kind], value),),
            world=_at(path, value),
        )
        for label, value in WRONG_TYPES[kind]
    ]
    if nullable:
        found.append(Mistake(path, "inside_null", (), world=_at(path, None)))
    else:
        found.append(
            Mistake(
                path, "type_null", (expected(path, TYPE_WORDS[kind], None),), world=_at(path, None)
            )
        )
    return found


def _money(path: str, *, nullable: bool) -> list[Mistake]:
    return [
        *_type_mistakes(path, "money", nullable=nullable),
        Mistake(path, "below_min", (at_least(path, -0.01),), world=_at(path, -0.01)),
        Mistake(path, "below_min", (at_least(path, -1),), world=_at(path, -1), note="int"),
        Mistake(path, "inside_min", (), world=_at(path, 0)),
        Mistake(path, "inside_min", (), world=_at(path, 0.0), note="float"),
        Mistake(path, "inside_max", (), world=_at(path, 1e308)),
        Mistake(
            path,
            "not_finite",
            (expected(path, "a finite number", float("inf")),),
            world=_at(path, float("inf")),
        ),
        # NaN is refused too, but a case holding it never equals itself, so the suite's
        # sync check could not hold it (domain's tests check NaN).
    ]


def _count(path: str, *, nullable: bool) -> list[Mistake]:
    return [
        *_type_mistakes(path, "count", nullable=nullable),
        Mistake(
            path,
            "type_float",
            (expected(path, "an integer", 1.5),),
            world=_at(path, 1.5),
            note="fraction",
        ),
        Mistake(path, "below_min", (at_least(path, -1),), world=_at(path, -1)),
        Mistake(path, "inside_min", (), world=_at(path, 0)),
        Mistake(path, "inside_max", (), world=_at(path, MAX_COUNT)),
        Mistake(
            path,
            "above_max",
            (at_most(path, MAX_COUNT + 1),),
            world=_at(path, MAX_COUNT + 1),
            regression=True,
        ),
    ]


def _text(path: str, *, nullable: bool, required: bool = False) -> list[Mistake]:
    found = _type_mistakes(path, "str", nullable=nullable)
    if required:
        found += [
            Mistake(path, "empty", (not_empty(path),), world=_at(path, "")),
            Mistake(path, "inside_min_length", (), world=_at(path, "说")),
        ]
    return found


def _at_quote_limit(extra: int) -> dict[str, Any]:
    """Values whose repr is ``QUOTE_LIMIT + extra`` characters: a string and a list (each
    of its kind of repr), for the boundary of the cut."""
    text = "很" * (QUOTE_LIMIT - 2 + extra)  # the quotes make two of the characters
    length = QUOTE_LIMIT + extra
    items = [1] * (length // 3)  # [1, 1, …]: three characters per item
    items[0] = 10 ** (length % 3)  # a longer first item makes up the rest
    assert len(repr(text)) == len(repr(items)) == QUOTE_LIMIT + extra
    return {"string": text, "array": items}


def _long_text() -> list[Mistake]:
    """Values shown in full up to the quoting limit, then cut: far over it, exactly at it,
    and one character past it."""
    path = "world.orders.A1001.paid"
    value = "很" * 300
    found = [
        Mistake(
            path,
            "type_string",
            (expected(path, "a number", value),),
            world=_at(path, value),
            note="long_value_cut",
        )
    ]
    for extra, note in ((0, "at_quote_limit"), (1, "past_quote_limit")):
        for label, long_value in _at_quote_limit(extra).items():
            found.append(
                Mistake(
                    path,
                    f"type_{label}",
                    (expected(path, "a number", long_value),),
                    world=_at(path, long_value),
                    note=note,
                )
            )
    return found


def _world_mistakes() -> list[Mistake]:
    order, ship, policy = "world.orders.A1001", "world.logistics.A7001", "world.policies.0"
    found: list[Mistake] = []
    # Containers of the wrong type.
    for key, kind in (
        ("orders", "object"),
        ("logistics", "object"),
        ("stock", "object"),
        ("tool_errors", "object"),
        ("table_errors", "object"),
        ("denied_tables", "object"),
        ("policies", "array"),
    ):
        path = f"world.{key}"
        found += [
            Mistake(
                path,
                f"type_{label}",
                (expected(path, TYPE_WORDS[kind], value),),
                world={key: value},
            )
            for label, value in WRONG_TYPES[kind]
        ]
    # Records of the wrong type (an order, a shipment, a policy).
    for path in (order, ship, policy, "world.policies.1"):
        found += [
            Mistake(
                path, f"type_{label}", (expected(path, "an object", value),), world=_at(path, value)
            )
            for label, value in (("string", "x"), ("array", []), ("null", None))
        ]
    # Unknown keys at every level, each with its known list.
    found += [
        Mistake(
            "world",
            "unknown_key",
            (unknown_key("world", "stok", WORLD_KEYS),),
            world={"stok": {"SKU-TEE-01": 0}},
        ),
        Mistake(
            "world",
            "unknown_key",
            (unknown_key("world", "Orders", WORLD_KEYS),),
            world={"Orders": {}},
            note="case",
        ),
        Mistake(
            order,
            "unknown_key",
            (unknown_key(order, "price", ORDER_KEYS),),
            world={"orders": {"A1001": {"price": 59}}},
        ),
        Mistake(
            ship,
            "unknown_key",
            (unknown_key(ship, "eta", SHIPMENT_KEYS),),
            world={"logistics": {"A7001": {"eta": "明天"}}},
        ),
        Mistake(
            policy,
            "unknown_key",
            (unknown_key(policy, "author", POLICY_KEYS),),
            world={"policies": [{"title": "t", "body": "b", "author": "x"}]},
        ),
    ]
    # Every leaf field.
    for key in ("customer", "sku", "status"):
        found += _text(f"{order}.{key}", nullable=True)
    found += _money(f"{order}.paid", nullable=True)
    for key in ("carrier", "state", "last_event"):
        found += _text(f"{ship}.{key}", nullable=True)
    found += _count(f"{ship}.stale_hours", nullable=True)
    found += _count("world.stock.SKU-NEW-01", nullable=True)
    found += _money("world.auto_approve_below", nullable=True)
    found += _type_mistakes("world.approve", "bool", nullable=False)
    found.append(Mistake("world.approve", "inside_literal", (), world={"approve": False}))
    for key, values in (("kb", KB_VALUES), ("approver", APPROVER_VALUES)):
        path = f"world.{key}"
        for label, value in (
            ("other", "full"),
            ("case", values[0].upper()),
            ("int", 1),
            ("null", None),
        ):
            found.append(
                Mistake(
                    path,
                    "not_literal",
                    (f"{path}: expected {either(values)}, got {given(value)}",),
                    world={key: value},
                    note=label,
                )
            )
        found += [Mistake(path, "inside_literal", (), world={key: v}, note=v) for v in values]
    for key in ("title", "body"):
        path = f"{policy}.{key}"
        found += _text(path, nullable=False, required=True)
        other = "body" if key == "title" else "title"
        found.append(
            Mistake(path, "missing", (missing(path),), world={"policies": [{other: "说明"}]})
        )
    for key in ("keywords", "version", "effective_date"):
        found += _type_mistakes(f"{policy}.{key}", "str", nullable=False)
    found += _type_mistakes(f"{policy}.superseded", "bool", nullable=False)
    found.append(
        Mistake(
            policy,
            "missing",
            (missing(f"{policy}.title"), missing(f"{policy}.body")),
            world={"policies": [{}]},
            note="both",
        )
    )
    found.append(
        Mistake(
            policy,
            "valid",
            (),
            world={
                "policies": [
                    {
                        "title": "补发政策（补充）",
                        "body": "说明",
                        "keywords": "补发",
                        "version": "v3",
                        "effective_date": "2025-01-01",
                        "superseded": True,
                    }
                ]
            },
            note="every_key",
        )
    )
    # Tool errors: values are required text, names must be read tools.
    found += _text("world.tool_errors.kb__search", nullable=False, required=True)
    for tool in READ_TOOLS:
        found.append(
            Mistake(
                "world.tool_errors", "valid", (), world={"tool_errors": {tool: "超时"}}, note=tool
            )
        )
    for name in ("logistics__trak", "support__create_ticket", "KB__SEARCH"):
        found.append(
            Mistake(
                "world.tool_errors",
                "unknown_tool",
                (unknown_read_tool(name),),
                world={"tool_errors": {name: "超时"}},
                note=name,
            )
        )
    found.append(
        Mistake(
            "world.tool_errors",
            "unknown_tool",
            (expected("world.tool_errors.nope", "a string", 3), unknown_read_tool("nope")),
            world={"tool_errors": {"nope": 3}},
            note="and_type",
        )
    )
    # Table errors: values are required text, names must be breakable tables.
    found += _text("world.table_errors.orders", nullable=False, required=True)
    found += [
        Mistake("world.table_errors", "valid", (), world={"table_errors": {t: "锁定"}}, note=t)
        for t in TABLES
    ]
    for name in ("tickets", "audit", "Orders", "shipment"):
        found.append(
            Mistake(
                "world.table_errors",
                "unknown_table",
                (f"world.table_errors.{name}.[key]: expected {either(TABLES)}, got {name!r}",),
                world={"table_errors": {name: "锁定"}},
                note=name,
            )
        )
    # Denied tables: names must be deniable tables, values what is denied.
    found += [
        Mistake(
            "world.denied_tables", "valid", (), world={"denied_tables": {t: d}}, note=f"{t}_{d}"
        )
        for t in DENIED_TABLES
        for d in DENIALS
    ]
    for name in ("approvals", "audit", "Stock"):
        found.append(
            Mistake(
                "world.denied_tables",
                "unknown_table",
                (
                    f"world.denied_tables.{name}.[key]: expected {either(DENIED_TABLES)},"
                    f" got {name!r}",
                ),
                world={"denied_tables": {name: "read"}},
                note=name,
            )
        )
    for value in ("delete", "READ", "", 1, None):
        found.append(
            Mistake(
                "world.denied_tables.stock",
                "unknown_denial",
                (expected("world.denied_tables.stock", either(DENIALS), value),),
                world={"denied_tables": {"stock": value}},
                note=repr(value),
            )
        )
    found += _long_text()
    return found


def _customer_mistakes() -> list[Mistake]:
    path = "input.customer"
    bad: tuple[tuple[str, Any], ...] = (
        ("empty", ""),
        ("blank", "  "),
        ("type_int", 7),
        ("type_bool", True),
        ("type_array", []),
        ("type_object", {}),
    )
    return [
        *(Mistake(path, wrong, (bad_customer(value),), customer=value) for wrong, value in bad),
        Mistake(path, "valid", (), customer="李先生"),
        Mistake(path, "valid", (), customer=" 李先生 ", note="padded"),
        Mistake(path, "inside_null", (), customer=None),
    ]


def _role_fault_mistakes() -> list[Mistake]:
    found: list[Mistake] = []
    for role in ROLES:
        path = f"faults.{role}"
        found.append(
            Mistake(
                path,
                "unknown_kind",
                (role_fault_unknown(role, "explode"),),
                faults={role: "explode"},
                kind="explode",
            )
        )
        found += [
            Mistake(path, "valid", (), faults={role: k}, kind=k, note=k) for k in SIMPLE_FAULTS
        ]
    role, path = "order_agent", "faults.order_agent"
    for simple in SIMPLE_FAULTS:
        if simple == "write_attempt":
            continue
        found.append(_bad_argument(role, f"{simple}:x", "argument_not_taken", simple))
    arguments: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
        "flaky": (
            ("0", "1", "0.5", "1.0", "0.0", "1e-3"),
            (
                ("above_max", "1.5"),
                ("above_max", "1.0000001"),
                ("below_min", "-0.1"),
                ("not_a_number", "abc"),
                ("not_finite", "nan"),
                ("not_finite", "inf"),
                ("not_ascii", "٠.٥"),
            ),
        ),
        "oversize": (
            ("1", "100000", "16000"),
            (
                ("below_min", "0"),
                ("above_max", "100001"),
                ("below_min", "-5"),
                ("not_a_number", "1.5"),
                ("not_a_number", "abc"),
                ("not_ascii", "²"),
            ),
        ),
        "claims": (
            ("1", "1000", "50"),
            (
                ("below_min", "0"),
                ("above_max", "1001"),
                ("not_a_number", "abc"),
            ),
        ),
        "claim_topic": (
            ("0", "1000", "64", "65"),
            (("above_max", "1001"), ("below_min", "-1"), ("not_a_number", "abc")),
        ),
        "amount_format": (
            AMOUNT_STYLES,
            (("not_literal", "roman"), ("not_literal", "Symbol")),
        ),
    }
    # Each kind misspelled just below it and just above it in string order (cut short,
    # made plural): refused as unknown, never as a neighbour's kind.
    for kind in (*sorted(SIMPLE_FAULTS), *arguments):
        argument = f":{arguments[kind][0][0]}" if kind in arguments else ""
        for typo in (kind[:-1], f"{kind}s"):
            fault = f"{typo}{argument}"
            found.append(
                Mistake(
                    path,
                    "misspelled_kind",
                    (role_fault_unknown(role, fault),),
                    faults={role: fault},
                    kind=kind,
                    note=fault,
                )
            )
    for kind, (good, bad) in arguments.items():
        found += [
            Mistake(path, "valid", (), faults={role: f"{kind}:{v}"}, kind=kind, note=f"{kind}:{v}")
            for v in good
        ]
        found += [
            _bad_argument(role, f"{kind}:{value}", wrong, kind, regression=value == "²")
            for wrong, value in bad
        ]
        # A part after a valid argument: the whole rest is the argument, and it is wrong.
        found.append(_bad_argument(role, f"{kind}:{good[0]}:{good[0]}", "extra_part", kind))
        found.append(_bad_argument(role, kind, "missing_argument", kind))
    for tool in WRITE_TOOLS:
        found.append(
            Mistake(
                path,
                "valid",
                (),
                faults={role: f"write_attempt:{tool}"},
                kind="write_attempt",
                note=tool,
            )
        )
    for tool in ("support__drop_table", "kb__search", "orders__get_order"):
        wrong = "not_a_write_tool" if tool in READ_TOOLS else "unknown_tool"
        found.append(
            Mistake(
                path,
                wrong,
                (write_attempt_problem(role, tool),),
                faults={role: f"write_attempt:{tool}"},
                kind="write_attempt",
                note=tool,
            )
        )
    for target in ("ordr_agent", "Order_agent", "billing_agent", "models", "outboxes"):
        found.append(
            Mistake(
                f"faults.{target}",
                "unknown_role",
                (unknown_role(target),),
                faults={target: "crash"},
            )
        )
    return found


def _outbox_mistakes() -> list[Mistake]:
    path = "faults.outbox"
    kinds = ("lost_ack", "lost_request", "key_drift", "stale_lookup")
    good = list(kinds)
    good += [f"{k}:{t}" for k in kinds for t in WRITE_TOOLS]
    good += [
        f"{k}:{t}:{n}"
        for k in ("lost_ack", "lost_request")
        for t in WRITE_TOOLS
        for n in (1, MAX_LOST_CALLS)
    ]
    found = [
        Mistake(path, "valid", (), faults={"outbox": f}, kind=f.partition(":")[0], note=f)
        for f in good
    ]
    bad = (
        ("unknown_kind", "crash", False),
        ("unknown_kind", "lost_acks", False),
        ("not_a_write_tool", "lost_ack:kb__search", False),
        ("unknown_tool", "lost_request:support__drop_table", False),
        ("below_min", "lost_ack:support__create_ticket:0", False),
        ("above_max", "lost_ack:support__create_ticket:10", False),
        ("above_max", "lost_request:support__send_reply:10", False),
        ("not_ascii", "lost_ack:support__send_reply:²", True),
        ("argument_not_taken", "key_drift:support__send_reply:1", True),
        ("argument_not_taken", "stale_lookup:support__create_ticket:1", False),
        ("argument_not_taken", "lost_ack:support__send_reply:1:2", False),
        # A part after a valid count: refused as a whole, whatever the last part is (a
        # parser that took the last part for the count would crash on these).
        ("extra_part", "lost_ack:support__send_reply:1:x", False),
        ("extra_part", "lost_request:support__create_ticket:9:", False),
        ("extra_part", "lost_ack:support__create_ticket:2:²", False),
        ("missing_argument", "lost_ack:1", False),
    )
    found += [
        Mistake(
            path,
            wrong,
            (outbox_problem(f),),
            faults={"outbox": f},
            kind=f.partition(":")[0],
            note=f,
            regression=fixed,
        )
        for wrong, f, fixed in bad
    ]
    return found


def screen_problem(fault: str) -> str:
    return bad_fault(
        "screen", fault, "expected off (the instruction screen turned off for this case)"
    )


def _screen_mistakes() -> list[Mistake]:
    """The screen target takes exactly ``off`` (letter case matters: a fault is no SUT option)."""
    path = "faults.screen"
    found = [Mistake(path, "valid", (), faults={"screen": "off"}, kind="off", note="off")]
    for wrong, fault in (
        ("unknown_kind", "on"),
        ("unknown_kind", "crash"),
        ("unknown_kind", "off_x"),
        ("argument_not_taken", "off:1"),
    ):
        found.append(
            Mistake(
                path,
                wrong,
                (screen_problem(fault),),
                faults={"screen": fault},
                kind=fault.partition(":")[0],
                note=fault,
            )
        )
    return found


BYPASS_KINDS = ("approval", "stock")
"""The bypass faults (docs/cases.md, the fault table), written apart from the code."""


def bypass_problem(fault: str) -> str:
    return bad_fault("bypass", fault, f"expected one of {', '.join(BYPASS_KINDS)}")


def _bypass_mistakes() -> list[Mistake]:
    """The bypass target takes exactly one of its kinds, with no argument."""
    path = "faults.bypass"
    found = [
        Mistake(path, "valid", (), faults={"bypass": kind}, kind=kind, note=kind)
        for kind in BYPASS_KINDS
    ]
    for wrong, fault in (
        ("unknown_kind", "crash"),
        ("unknown_kind", "approvals"),
        ("unknown_kind", "stocks"),
        ("argument_not_taken", "approval:1"),
        ("argument_not_taken", "stock:SKU-TEE-01"),
    ):
        found.append(
            Mistake(
                path,
                wrong,
                (bypass_problem(fault),),
                faults={"bypass": fault},
                kind=fault.partition(":")[0],
                note=fault,
            )
        )
    return found


def _model_mistakes() -> list[Mistake]:
    path = "faults.model"
    found: list[Mistake] = []
    for kind, named in MODEL_FAULTS.items():
        fault = f"{kind}:order_agent" if named else kind
        found.append(
            Mistake(
                path,
                "valid",
                (),
                faults={"model": fault},
                sut_options=SCRIPTED_OPTIONS,
                kind=kind,
                note=fault,
            )
        )
        found.append(
            Mistake(
                path,
                "no_scripted_model",
                (NEEDS_SCRIPTED,),
                faults={"model": fault},
                kind=kind,
                note=fault,
            )
        )
        wrong = f"{kind}:ordr_agent" if named else f"{kind}:order_agent"
        found.append(
            Mistake(
                path,
                "unknown_role" if named else "argument_not_taken",
                (model_problem(wrong),),
                faults={"model": wrong},
                sut_options=SCRIPTED_OPTIONS,
                kind=kind,
                note=wrong,
            )
        )
        if named:
            found.append(
                Mistake(
                    path,
                    "missing_argument",
                    (model_problem(kind),),
                    faults={"model": kind},
                    sut_options=SCRIPTED_OPTIONS,
                    kind=kind,
                    note=kind,
                )
            )
    for role in ROLES[1:]:
        fault = f"slow:{role}"
        found.append(
            Mistake(
                path,
                "valid",
                (),
                faults={"model": fault},
                sut_options=SCRIPTED_OPTIONS,
                kind="slow",
                note=fault,
            )
        )
    for options, note in ((SCRIPTED_OPTIONS, "scripted"), ({}, "rule")):
        found.append(
            Mistake(
                path,
                "unknown_kind",
                (model_problem("explode"),),
                faults={"model": "explode"},
                sut_options=options,
                kind="explode",
                note=note,
            )
        )
    return found


def _several() -> list[Mistake]:
    """Several problems in one case: every one listed, once."""
    return [
        Mistake(
            "several",
            "world_and_faults",
            (
                unknown_key("world.orders.A1001", "x", ORDER_KEYS),
                expected("world.orders.A1001.paid", "a number", "y"),
                f"world.kb: expected {either(KB_VALUES)}, got 3",
                unknown_key("world", "zz", WORLD_KEYS),
                unknown_role("billing_agent"),
                role_fault_argument("policy_agent", "flaky:2"),
            ),
            world={"orders": {"A1001": {"x": 1, "paid": "y"}}, "kb": 3, "zz": 1},
            faults={"billing_agent": "timeout", "policy_agent": "flaky:2"},
        ),
        Mistake(
            "several",
            "every_target",
            (
                role_fault_unknown("order_agent", "explode"),
                outbox_problem("lost_ack:support__create_ticket:0"),
                NEEDS_SCRIPTED,
                bad_customer(" "),
                unknown_read_tool("nope"),
            ),
            world={"tool_errors": {"nope": "超时"}},
            faults={
                "order_agent": "explode",
                "outbox": "lost_ack:support__create_ticket:0",
                "model": "server_error",
            },
            customer=" ",
        ),
        Mistake(
            "several",
            "two_policies",
            (
                not_empty("world.policies.0.title"),
                missing("world.policies.1.body"),
                at_least("world.stock.SKU-TEE-01", -1),
                at_least("world.stock.SKU-MUG-02", -2),
            ),
            world={
                "policies": [{"title": "", "body": "b"}, {"title": "t"}],
                "stock": {"SKU-TEE-01": -1, "SKU-MUG-02": -2},
            },
        ),
        Mistake(
            "several",
            "valid",
            (),
            world={
                "orders": {"A7001": {"customer": "周女士", "paid": 0}},
                "logistics": {"A7001": {"stale_hours": 0}},
                "stock": {"SKU-TEE-01": 0},
                "kb": "empty",
                "approve": False,
                "approver": "silent",
                "auto_approve_below": 0,
                "policies": [{"title": "t", "body": "b"}],
                "tool_errors": {"kb__search": "x"},
            },
            faults={
                "order_agent": "amount_format:words",
                "logistics_agent": "flaky:1",
                "policy_agent": "oversize:100000",
                "reply_agent": "garble_once",
                "outbox": "lost_request:support__send_reply:9",
            },
            customer="周女士",
        ),
    ]


def mistakes() -> list[Mistake]:
    """Every case of the suite, in a fixed order."""
    return [
        *_world_mistakes(),
        *_customer_mistakes(),
        *_role_fault_mistakes(),
        *_outbox_mistakes(),
        *_screen_mistakes(),
        *_bypass_mistakes(),
        *_model_mistakes(),
        *_several(),
    ]


def _dimension() -> Dimension:
    by_label: dict[str, Mistake] = {}
    for mistake in mistakes():
        if mistake.label in by_label:
            raise ValueError(f"two mistakes share the label {mistake.label!r}")
        by_label[mistake.label] = mistake
    return Dimension("mistake", by_label, "one way a case is invalid, or just valid")


DIMENSIONS = (_dimension(),)


def build(values: Mapping[str, Any]) -> dict[str, Any]:
    """A mistake -> its configuration case (no id, tags or expect)."""
    mistake: Mistake = values["mistake"]
    given_input: dict[str, Any] = {"goal": GOAL, "order_id": ORDER_ID}
    if mistake.customer is not _ABSENT:
        given_input["customer"] = mistake.customer
    case: dict[str, Any] = {
        "split": "regression" if mistake.regression else "test",
        "title": TITLE_ACCEPTED if not mistake.refused else TITLE_REFUSED,
        "input": given_input,
    }
    if mistake.world:
        case["world"] = dict(mistake.world)
    if mistake.faults:
        case["faults"] = dict(mistake.faults)
    if mistake.sut_options:
        case["sut_options"] = dict(mistake.sut_options)
    return case


def expect_for(case: Mapping[str, Any]) -> dict[str, Any]:
    """The lines the spec says the SUT gives for the case's mistake."""
    mistake: Mistake = values_in(case, DIMENSIONS)["mistake"]
    return {"refused": list(mistake.refused)}


def extra_tags(labels: Mapping[str, str]) -> list[str]:
    """``field:…``, ``wrong:…`` and, for faults, ``kind:…``; ``accepted`` for the cases
    just inside a rule, ``refused`` for the others."""
    mistake: Mistake = DIMENSIONS[0].values[labels["mistake"]]
    tags = [f"field:{mistake.field}", f"wrong:{mistake.wrong}"]
    if mistake.kind:
        tags.append(f"kind:{mistake.kind}")
    tags.append("refused" if mistake.refused else "accepted")
    return tags


GENERATOR = CaseGenerator(
    prefix="rf",
    dimensions=DIMENSIONS,
    build=build,
    oracle=expect_for,
    tags=("configuration", "refusal"),
    header=(
        "# Generated by agent_evals.refusal_cases from the problem messages of docs/cases.md;"
        " do not edit by hand (regenerate: uv run evals generate"
        " agent_evals.refusal_cases:GENERATOR)."
    ),
    suite="refusals",
    extra_tags=extra_tags,
)
