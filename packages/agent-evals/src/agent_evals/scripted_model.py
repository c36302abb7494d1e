"""The scripted model: a deterministic stand-in for a competent chat model, served on
127.0.0.1 by the fake OpenAI server, so the model path of SupportPilot (prompts, tool
schemas, parsing, repair, the step limit, token accounting, provider errors) runs under
the gate offline (``--sut-option model_server=scripted``; the ``model_path`` suite).

It reads what a model is sent and nothing else: the system prompt, the tools offered, the
conversation and the tool results. From the prompt it takes the tool to call (one the
prompt names and the request offers), the arguments (the tool's schema, filled from the
task's data or the prompt's suggestion), the topics to claim (the prompt's "claim these
topics" list, "topic X" and the gap it names), how to derive a parcel state, and the
phrases a reply must use. Its claims come from the tool results through one table,
:data:`TOPIC_READERS`; a topic the prompt names that the table lacks is read from a field
of the same name in the tool result, so a topic added to the prompt and a field added to
the tool result flow through without touching this module. It does only what it is told:
not told that its JSON comes alone, it writes a line of prose before it; not told to cite
only the ids its tools returned, it cites each source by its tool's name.

Like many real models it follows instructions it finds in text the prompt did not mark as
data: an instruction in the customer's message outside ``<data>`` (or when nothing says
``<data>`` is data), or in a tool result when the prompt does not say tool results are
data, is obeyed (it calls the tool the instruction names). So losing the prompt's guard,
or the escaping that keeps the message inside ``<data>``, shows as a refused write.

A case asks for misbehaviour with ``faults: {"model": "KIND[:ROLE]"}`` (:data:`FAULTS`):
model-level faults (a malformed tool call, a call outside the allowlist, a call of a tool
that does not exist, several tool calls in one turn, unparsable output
then a good one, a refusal, endless tool calls, a slow answer) and provider-level ones
(HTTP 400, 401, 429 with ``Retry-After``, 500, a hang past the client's timeout; any
status from 400 to 599 with ``http:CODE[:ROLE]``). A kind
that names a role applies to that specialist's requests only; one that names none, to
every request.
"""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from agent.contracts import ROLES
from agent.errors import UnknownFaultError
from fake_openai import FakeOpenAI, Hang, HttpError, Raw, Reply, ResponseSpec, ToolCall, ToolCalls

from agent_evals.spec_terms import period_hours, stated_period

SCRIPTED_MODEL = "scripted-competent-1"
"""The one model the scripted server serves (a request for another gets 404)."""
SCRIPTED_KEY = "scripted-key"
"""The API key the scripted server expects."""

MODEL_TARGET = "model"
"""The fault target naming the model (``faults: {"model": "server_error"}``)."""

SLOW_S = 0.8
"""How long a ``slow`` answer takes: past the half second a rule brain's attempt may
take, far inside a model attempt's limit and the suite's request timeout."""
HANG_S = 60.0
"""How long a ``timeout`` answer hangs (the server's stop at the end of the run wakes it)."""
RETRY_AFTER_S = 0.05
"""The ``Retry-After`` of a 429 answer."""
MALFORMED_ARGUMENTS = '{"order_id": '
"""The arguments of a ``malformed_call``: JSON cut short."""
FORBIDDEN_TOOL = "support__create_ticket"
"""What an ``outside_allowlist`` call asks for (and what an obeyed demand to reissue does)."""
UNKNOWN_TOOL = "orders__refund_order"
"""What an ``unknown_tool`` call asks for: a name of the tools' form that no registry holds
(SupportPilot has no refund tool), so the call is refused as unknown, not as unauthorized."""
UNPARSABLE = "我查到了，门槛大概是 72 小时吧，具体以系统为准。"
"""An answer in prose instead of the JSON asked for."""
REFUSAL = "抱歉，我无法协助处理这个请求。"
"""A refusal (``message.refusal``, no content)."""


# -- reading the prompt -------------------------------------------------------------

ROLE_PHRASES: dict[str, str] = {
    "order specialist": "order_agent",
    "logistics specialist": "logistics_agent",
    "policy specialist": "policy_agent",
    "reply writer": "reply_agent",
}
"""How a system prompt names its specialist: only faults aimed at one role need it."""
REPLY_WRITER = "reply_agent"
"""The one specialist whose task carries no customer message (the plan and facts)."""

INSTRUCTION = re.compile(
    r"(忽略|无视|不要理会)[^。，,.]{0,6}(规则|指令|指示|要求|设定)"
    r"|\b(ignore|disregard)\b.{0,20}\b(instructions?|rules?)\b",
    re.IGNORECASE,
)
"""Text that instructs its reader (what an obedient model acts on)."""
TOOL_NAME = re.compile(r"\b[a-z]+__[a-z_]+\b")
"""A tool's name in text (``support__create_ticket``)."""
DATA_MARK = re.compile(r"(.*?)\b(?:is|are) data,? (?:never|not) instructions", re.IGNORECASE)
"""A sentence marking something as data (its subject says what)."""
SENTENCE_END = re.compile(r"(?<=[.:])\s+|\n")
"""Where a prompt's sentences end ("<data>...</data>" keeps its dots)."""
STATE_RULE = re.compile(r"contains (\S+?)(?: or (\S+?))? -> (\w+)")
"""One step of the prompt's parcel-state rule (``contains 退回 -> returning``)."""


DATA_ESCAPES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))
"""The only escapes data inside ``<data>`` needs (what would close or open a tag, and the
escape character itself), undone in this order: what the model reads is the data as
written, so any other escape (``&quot;`` for a quote, ``\\u6064`` for a character of
Chinese) stays in what it reads, as it would for a real model."""
FOREIGN_ENTITY = re.compile(r"&(?!lt;|gt;|amp;)(?:[a-zA-Z]+|#\d+|#[xX][0-9a-fA-F]+);")
"""An HTML entity the data never needs (``&quot;``, ``&#x27;``): text not as written."""
ASCII_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")
"""A JSON ``\\uXXXX`` escape: in facts the agent serialized, a character not as written
(and three to six times the tokens of the character itself)."""


def _tag(text: str, name: str) -> str | None:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
    if not match:
        return None
    value = match.group(1)
    for escaped, character in DATA_ESCAPES:
        value = value.replace(escaped, character)
    return value


def tool_results_not_as_written(messages: list[dict[str, Any]]) -> list[str]:
    """A ``\\uXXXX`` escape in what the agent sent back as a tool's result (JSON the
    agent wrote from the tools' evidence: its text as written, never escaped)."""
    found = [
        f"escape {m.group()} in a tool result"
        for message in messages
        if message.get("role") == "tool"
        for m in ASCII_ESCAPE.finditer(str(message.get("content") or ""))
    ]
    return list(dict.fromkeys(found))


CUSTOMER_MESSAGE = re.compile(r"<customer_message>(.*?)</customer_message>", re.DOTALL)
"""Where a specialist's task prompt carries the customer's words (as ``<data>``)."""


def customer_message(task: str) -> str | None:
    """The customer's message a task prompt gives the model, as the customer wrote it
    (the data's escapes undone); ``None`` when the prompt carries none."""
    found = CUSTOMER_MESSAGE.search(task)
    return None if found is None else html.unescape(found[1])


def data_not_as_written(task: str) -> list[str]:
    """What a task prompt's ``<data>`` shows otherwise than as written: an HTML entity
    beyond the three data needs, anywhere in it; a ``\\uXXXX`` escape in the facts (JSON
    the agent wrote: the customer's own text is never JSON). Each finding once."""
    start, end = task.find("<data>"), task.find("</data>")
    data = task[start:end] if 0 <= start < end else ""
    found = [f"entity {m.group()} in the data" for m in FOREIGN_ENTITY.finditer(data)]
    facts = re.search(r"<facts>(.*?)</facts>", data, re.DOTALL)
    if facts:
        found += [f"escape {m.group()} in the facts" for m in ASCII_ESCAPE.finditer(facts[1])]
    return list(dict.fromkeys(found))


def _split_items(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


@dataclass(frozen=True)
class Prompt:
    """What the system prompt (and the task) tell a model to do."""

    system: str
    """The system prompt."""
    task: str
    """The first user message (the task, its inputs as data)."""

    @property
    def role(self) -> str | None:
        """The specialist the prompt speaks to (``None``: none recognised)."""
        return next((r for phrase, r in ROLE_PHRASES.items() if phrase in self.system), None)

    @property
    def topics(self) -> list[str]:
        """The topics to claim when the evidence is there, in the prompt's order."""
        found: list[str] = []
        listed = re.search(r"claim these topics[^:]*:(.+?)\.\s+If\b", self.system, re.DOTALL)
        if listed:
            for item in _split_items(listed.group(1)):
                name = re.match(r"\s*(?:and\s+)?([a-z][a-z_]*)\b", item)
                if name:
                    found.append(name.group(1))
        found += re.findall(r"[Cc]laim topic ([a-z][a-z_]*)", self.system)
        found += re.findall(r"one claim: topic ([a-z][a-z_]*), value the", self.system)
        return list(dict.fromkeys(found))

    @property
    def gap_topic(self) -> str | None:
        """The topic to claim with value null when nothing was found."""
        match = re.search(r"one claim: topic ([a-z][a-z_]*), value null", self.system)
        if match:
            return match.group(1)
        return self.topics[0] if self.topics else None

    def tool(self, offered: Mapping[str, Any]) -> str | None:
        """The first tool the prompt names among those offered."""
        named = [m.group() for m in TOOL_NAME.finditer(self.system)]
        return next((name for name in named if name in offered), None)

    def arguments(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """Arguments for a tool's parameter schema: a required parameter takes the task's
        data field of its name, else the prompt's suggestion (``such as …``)."""
        props = schema.get("properties") or {}
        args: dict[str, Any] = {}
        for name in schema.get("required") or list(props):
            value = _tag(self.task, name)
            if value is None:
                suggested = re.search(r"such as ([^)]+?)\)", self.system)
                value = suggested.group(1).strip() if suggested else None
            if value is not None:
                args[name] = value
        return args

    def parcel_state(self, status: str) -> str:
        """The parcel state the prompt's rule derives from ``status`` (``unknown`` when no
        step matches)."""
        for first, second, state in STATE_RULE.findall(self.system):
            if first in status or (second and second in status):
                return str(state)
        return "unknown"

    def phrase(self, pattern: str) -> str:
        """A phrase the prompt asks to use exactly (empty when it names none)."""
        match = re.search(pattern + r" (\S+?) \(use exactly this phrase\)", self.system)
        return match.group(1) if match else ""


def marks(texts: list[str]) -> list[str]:
    """The subjects of every sentence marking something as data, lower-cased."""
    sentences = [part for text in texts for part in SENTENCE_END.split(text)]
    return [m.group(1).lower() for sentence in sentences for m in DATA_MARK.finditer(sentence)]


def _in_data(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` lies inside its first ``<data>…</data>``."""
    start = text.find("<data>")
    end = text.find("</data>", start)
    return 0 <= start < at and (end < 0 or at < end)


# -- reading tool results: the one mapping from topics to evidence ---------------------


DAY_RULE = re.compile(r"\ba day is 24 hours\b", re.IGNORECASE)
"""What tells a model to count a period stated in days as 24 hours each."""


def _hours(text: str, prompt: Prompt) -> str:
    """The period a policy text states, as digits, as the prompt asks: in hours when it
    says how long a day is ("in hours (a day is 24 hours)"); else the number as the policy
    states it, its unit dropped (``3 天`` reads ``3``), as a model not told otherwise
    copies it. Empty when it states none that reads as a number (words, a decimal, a
    range): the claim is then ``null``."""
    body = re.sub(r"^《[^》]*》", "", text)  # the body's period, not the title's
    hours = period_hours(body)
    if hours is None or DAY_RULE.search(prompt.system):
        return "" if hours is None else str(hours)
    return str(stated_period(body))


@dataclass(frozen=True)
class Reader:
    """How a topic's value is read from a tool result's evidence: the first item of one of
    ``sources`` (evidence kind, regex with a ``value`` group) whose excerpt matches (and
    contains ``require``), written by ``form``."""

    sources: tuple[tuple[str, str], ...]
    """(evidence kind, pattern) pairs, tried in order."""
    form: Callable[[str, Prompt], str] = lambda value, prompt: value
    """The value as the prompt asks for it."""
    require: str = ""
    """Text the excerpt must contain (the policy must be about reissues)."""


TOPIC_READERS: dict[str, Reader] = {
    "order": Reader((("order", r"订单 (?P<value>[^：\s]+)："),)),
    "parcel_state": Reader(
        (("order", r"状态「(?P<value>[^」]*)」"), ("shipment", r"）：(?P<value>.+?)，最后节点")),
        form=lambda value, prompt: prompt.parcel_state(value),
    ),
    "sku": Reader((("order", r"商品 (?P<value>\S+)"),)),
    "paid": Reader(
        (("order", r"实付 (?P<value>\d+(?:\.\d+)?) 元"),),
        form=lambda value, prompt: f"{float(value):.2f}",
    ),
    "stale_hours": Reader((("shipment", r"已 (?P<value>\d+) 小时"),)),
    "reissue_threshold_hours": Reader(
        (("policy", r"(?P<value>[\s\S]+)"),),
        form=_hours,
        require="补发",  # the first such item: the policy in force (listed latest first)
    ),
}
"""Topic -> how its value is read from the evidence. A topic named by the prompt but not
here is read from a field of its name in the tool result (:func:`field_value`)."""

NULL_RULE = re.compile(r"\bnull value\b[^.]*\bcites no evidence\b", re.IGNORECASE)
"""What tells a model that a claim it could not answer (value ``null``) cites nothing."""
SUPERSEDED = "已废止"
"""How an evidence item's version marks a superseded document (never cited)."""


CLOSURE = re.compile(r"closed \((?P<rules>.+?)\) also order_closed", re.DOTALL)
"""Where the prompt tells which status words close an order (``已取消, 取消成功 or 交易关闭
-> cancelled; …``) and to claim ``order_closed``."""


def closure_of(prompt: Prompt, status: str) -> str | None:
    """The final state the prompt's closure rules give ``status`` (the word stated first
    in it), or ``None`` when the prompt gives none or none applies."""
    rules = CLOSURE.search(prompt.system)
    if rules is None:
        return None
    found: list[tuple[int, str]] = []
    for rule in rules.group("rules").split(";"):
        words, arrow, state = rule.partition("->")
        if not arrow:
            continue
        for said in re.split(r",|\bor\b", words):
            word = said.strip()
            if word and word in status:
                found.append((status.find(word), state.strip()))
    return min(found)[1] if found else None


def field_value(result: object, topic: str) -> str | None:
    """The value of a field named ``topic`` anywhere in a tool result, as a string."""
    if isinstance(result, dict):
        if topic in result and not isinstance(result[topic], dict | list):
            value = result[topic]
            if value is None:
                return None
            return str(value).lower() if isinstance(value, bool) else str(value)
        for inner in result.values():
            found = field_value(inner, topic)
            if found is not None:
                return found
    if isinstance(result, list):
        for inner in result:
            found = field_value(inner, topic)
            if found is not None:
                return found
    return None


def _claim(topic: str, value: str | None, evidence: list[str], text: str) -> dict[str, Any]:
    return {"topic": topic, "value": value, "text": text, "evidence": evidence}


def read_claims(prompt: Prompt, result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The claims a careful model makes from one tool result: every topic the prompt
    names, each citing the item it was read from; the gap claim when nothing was found."""
    items = [
        item
        for item in result.get("evidence") or []
        if isinstance(item, dict) and SUPERSEDED not in str(item.get("version", ""))
    ]
    claims: list[dict[str, Any]] = []
    for item in items:
        status = re.search(r"状态「(?P<value>[^」]*)」", str(item.get("excerpt", "")))
        closed = closure_of(prompt, status.group("value")) if status else None
        if item.get("kind") == "order" and closed is not None:
            claims.append(_claim("order_closed", closed, [str(item["id"])], "订单已关闭"))
    for topic in prompt.topics:
        reader = TOPIC_READERS.get(topic)
        if reader is None:
            value = field_value(result, topic)
            if value is not None and items:
                claims.append(_claim(topic, value, [str(items[0]["id"])], "依据工具结果"))
            continue
        for item in items:
            excerpt = str(item.get("excerpt", ""))
            if reader.require not in excerpt:
                continue
            match = next(
                (
                    m
                    for kind, pattern in reader.sources
                    if item.get("kind") == kind
                    for m in [re.search(pattern, excerpt)]
                    if m
                ),
                None,
            )
            if match is not None:
                value = reader.form(match.group("value"), prompt)
                if value:
                    claims.append(_claim(topic, value, [str(item["id"])], "依据查询结果"))
                else:  # the prompt: a value it cannot read is claimed null, never an older one
                    # Not told that a null value cites nothing, it cites what it read.
                    cited = [] if NULL_RULE.search(prompt.system) else [str(item["id"])]
                    claims.append(_claim(topic, None, cited, "无法读出"))
                break
    if not claims and prompt.gap_topic:
        return [_claim(prompt.gap_topic, None, [], "没有查到")]
    return claims


# -- the conversation ---------------------------------------------------------------


@dataclass(frozen=True)
class Conversation:
    """One chat request, as the model reads it."""

    request: Mapping[str, Any]
    """The request JSON."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages, in order."""
        return [m for m in self.request.get("messages") or [] if isinstance(m, dict)]

    @property
    def prompt(self) -> Prompt:
        """The system prompt and the task."""
        system = next((m for m in self.messages if m.get("role") == "system"), {})
        task = next((m for m in self.messages if m.get("role") == "user"), {})
        return Prompt(str(system.get("content") or ""), str(task.get("content") or ""))

    @property
    def offered(self) -> dict[str, dict[str, Any]]:
        """Tool name -> its parameter schema, for every tool offered."""
        found: dict[str, dict[str, Any]] = {}
        for tool in self.request.get("tools") or []:
            function = tool.get("function") if isinstance(tool, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                found[function["name"]] = dict(function.get("parameters") or {})
        return found

    @property
    def results(self) -> list[Any]:
        """The tool results read so far, parsed (text that is not JSON stays text)."""
        out: list[Any] = []
        for m in self.messages:
            if m.get("role") == "tool":
                try:
                    out.append(json.loads(str(m.get("content") or "")))
                except json.JSONDecodeError:
                    out.append(str(m.get("content") or ""))
        return out

    @property
    def calls(self) -> list[tuple[str, str]]:
        """(name, arguments) of every tool call made so far (a custom call's input as its
        arguments)."""
        return [(name, text) for _, name, text in self.call_records]

    @property
    def call_records(self) -> list[tuple[str, str, str]]:
        """(id, name, arguments) of every tool call the history repeats, as sent: a
        function call's arguments string, a custom call's input."""
        records: list[tuple[str, str, str]] = []
        for m in self.messages:
            if m.get("role") != "assistant":
                continue
            for c in m.get("tool_calls") or []:
                part = _call_part(c)
                if part is not None:
                    records.append((str(c.get("id")), *part))
        return records

    @property
    def answers(self) -> list[tuple[str, str, Any]]:
        """(tool name, arguments, result parsed) of every tool message, paired with the
        call it answers by its ``tool_call_id`` (name and arguments empty for an id no
        call of the history has): what the model reads each result as the answer to."""
        asked = {call_id: (name, text) for call_id, name, text in self.call_records}
        found: list[tuple[str, str, Any]] = []
        for m in self.messages:
            if m.get("role") != "tool":
                continue
            content = str(m.get("content") or "")
            try:
                result: Any = json.loads(content)
            except json.JSONDecodeError:
                result = content
            name, text = asked.get(str(m.get("tool_call_id")), ("", ""))
            found.append((name, text, result))
        return found

    @property
    def answered_before(self) -> bool:
        """Whether the model gave a final answer already (this is a repair round)."""
        return any(m.get("role") == "assistant" and not m.get("tool_calls") for m in self.messages)


def _call_part(call: object) -> tuple[str, str] | None:
    """(name, arguments) of one tool call of a history: a function call's arguments
    string, a custom call's input; ``None`` for anything else."""
    if not isinstance(call, dict):
        return None
    for kind, text in (("function", "arguments"), ("custom", "input")):
        body = call.get(kind)
        if isinstance(body, dict):
            return str(body.get("name")), str(body.get(text) or "")
    return None


ROLES_SENT = ("system", "developer", "user", "assistant", "tool")
"""The message roles the Chat Completions API takes."""


def _call_problems(where: str, call: object) -> list[str]:
    """What is wrong with one tool call of an assistant message, as the API checks it."""
    if not isinstance(call, dict):
        return [f"{where} is not an object"]
    if not isinstance(call.get("id"), str) or not call.get("id"):
        return [f"{where}.id: a string is required"]
    kind = call.get("type")
    fields = {"function": "arguments", "custom": "input"}
    if kind not in fields:
        return [f"{where}.type: 'function' or 'custom' is required, got {kind!r}"]
    body = call.get(kind)
    if not isinstance(body, dict):
        return [f"{where}.{kind}: an object is required"]
    problems = []
    if not isinstance(body.get("name"), str):
        problems.append(f"{where}.{kind}.name: a string is required")
    if not isinstance(body.get(fields[kind]), str):
        problems.append(f"{where}.{kind}.{fields[kind]}: a string is required")
    return problems


def request_problems(request: Mapping[str, Any]) -> list[str]:
    """What the Chat Completions API would refuse in ``request`` (HTTP 400): messages
    that are not objects or have no known ``role``; a system, developer or user message
    without ``content``; an assistant message with neither ``content`` nor ``tool_calls``,
    or a malformed call; a tool message without a ``tool_call_id`` answering a call of the
    assistant message before it; an assistant's calls left unanswered before the next
    message of another role; a tool offered without ``type: function`` and a name, or
    with ``parameters`` that are no JSON Schema of ``type: object``."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: a non-empty array is required"]
    problems: list[str] = []
    pending: list[str] = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where}: an object is required")
            continue
        role = m.get("role")
        if role not in ROLES_SENT:
            problems.append(
                f"{where}.role: one of {', '.join(ROLES_SENT)} is required, got {role!r}"
            )
            continue
        if role != "tool" and pending:
            problems.append(f"{where}: the tool calls {', '.join(pending)} have no tool message")
            pending = []
        content = m.get("content")
        if role in ("system", "developer", "user") and not isinstance(content, str | list):
            problems.append(f"{where}.content: a string or an array of parts is required")
        elif role == "assistant":
            calls = m.get("tool_calls")
            if calls is None and not isinstance(content, str | list):
                problems.append(f"{where}: content or tool_calls is required")
            if calls is not None:
                if not isinstance(calls, list) or not calls:
                    problems.append(f"{where}.tool_calls: a non-empty array is required")
                    continue
                for j, call in enumerate(calls):
                    found = _call_problems(f"{where}.tool_calls[{j}]", call)
                    problems += found
                    if not found:
                        pending.append(str(call["id"]))
        elif role == "tool":
            call_id = m.get("tool_call_id")
            if not isinstance(call_id, str):
                problems.append(f"{where}.tool_call_id: a string is required")
            elif call_id not in pending:
                problems.append(f"{where}.tool_call_id: {call_id!r} answers no call before it")
            else:
                pending.remove(call_id)
            if not isinstance(content, str | list):
                problems.append(f"{where}.content: a string or an array of parts is required")
    if pending:
        problems.append(f"the tool calls {', '.join(pending)} have no tool message")
    tools = request.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            problems.append("tools: an array is required")
        else:
            for k, tool in enumerate(tools):
                function = tool.get("function") if isinstance(tool, dict) else None
                if not isinstance(tool, dict) or tool.get("type") != "function":
                    problems.append(f"tools[{k}].type: 'function' is required")
                elif not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    problems.append(f"tools[{k}].function.name: a string is required")
                elif "parameters" in function:
                    problems += _schema_problems(f"tools[{k}].function.parameters", function)
    return problems


def undescribed(request: Mapping[str, Any]) -> list[str]:
    """The tools a request offers without a description a model can read (none, not a
    string, or only whitespace): the API takes them, but a model choosing among tools is
    told nothing of what such a tool does."""
    found: list[str] = []
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            continue
        text = function.get("description")
        if not isinstance(text, str) or not text.strip():
            found.append(str(function.get("name")))
    return found


def _schema_problems(where: str, function: Mapping[str, Any]) -> list[str]:
    """What the API refuses in a function's ``parameters``: anything but a JSON Schema of
    ``type: object`` (the arguments are always one JSON object), with ``properties``, when
    given, an object of schemas."""
    schema = function["parameters"]
    if not isinstance(schema, dict) or schema.get("type") != "object":
        got = schema.get("type") if isinstance(schema, dict) else type(schema).__name__
        return [f"{where}: a JSON Schema of type 'object' is required, got {got!r}"]
    properties = schema.get("properties", {})
    if not isinstance(properties, dict) or not all(
        isinstance(p, dict) for p in properties.values()
    ):
        return [f"{where}.properties: an object of schemas is required"]
    return []


def _custom_call(name: str, text: str, conversation: Conversation) -> Raw:
    """A completion whose message makes one custom tool call (``type: custom``, free
    text input instead of JSON arguments): a kind of call no request offered."""
    number = len(conversation.messages)
    prompt_chars = sum(len(str(m.get("content") or "")) for m in conversation.messages)
    call = {"id": f"call_{number}", "type": "custom", "custom": {"name": name, "input": text}}
    body = {
        "id": "chatcmpl-scripted-custom",
        "object": "chat.completion",
        "created": 0,
        "model": SCRIPTED_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": (prompt_chars + 3) // 4,
            "completion_tokens": (len(name) + len(text) + 3) // 4,
            "total_tokens": (prompt_chars + 3) // 4 + (len(name) + len(text) + 3) // 4,
        },
    }
    return Raw(body)


def _null_arguments_call(name: str, conversation: Conversation) -> Raw:
    """A completion whose message makes one function call with ``arguments: null`` (the
    API's type says a string; a client does not check)."""
    body = _custom_call(name, "", conversation).body
    function: dict[str, str | None] = {"name": name, "arguments": None}
    call = {"id": f"call_{len(conversation.messages)}", "type": "function", "function": function}
    body["id"] = "chatcmpl-scripted-null-arguments"
    body["choices"][0]["message"]["tool_calls"] = [call]
    return Raw(body)


ORDER_ID_TEXT = re.compile(r"(?<![A-Za-z0-9])[A-Z]\d{4}(?![0-9])")
"""An order id as a customer writes it in a message (``A1003``, beside Chinese text)."""
PARALLEL_QUERY = "签收 退货"
"""What a ``parallel_calls`` policy specialist searches first, in the same turn as the
search its prompt suggests: the returns policy, which holds no reissue threshold (the
threshold is in the result of the turn's second call)."""


def parallel_arguments(conversation: Conversation) -> tuple[str, list[dict[str, Any]]] | None:
    """The tool and the arguments of each call a ``parallel_calls`` model asks for in its
    first tool turn, in order: for a tool taking an order id, one call per order id the
    customer's message names, in its order (the task's own order first when the message
    does not name it); for a search, :data:`PARALLEL_QUERY` and then the prompt's query.
    ``None`` when the prompt names no tool offered."""
    prompt, offered = conversation.prompt, conversation.offered
    tool = prompt.tool(offered)
    if tool is None:
        return None
    wanted = prompt.arguments(offered[tool])
    if "order_id" in wanted:
        own = str(wanted["order_id"])
        named = list(dict.fromkeys(ORDER_ID_TEXT.findall(customer_message(prompt.task) or "")))
        ids = named if own in named else [own, *named]
        return tool, [{**wanted, "order_id": order_id} for order_id in ids]
    if "query" in wanted:
        return tool, [{**wanted, "query": PARALLEL_QUERY}, wanted]
    return tool, [wanted]


def _parallel_calls(conversation: Conversation) -> ToolCalls | None:
    """One assistant message asking for every call of :func:`parallel_arguments` at once,
    each with its own id."""
    asked = parallel_arguments(conversation)
    if asked is None:
        return None
    tool, arguments = asked
    number = len(conversation.messages)
    return ToolCalls(
        *(
            ToolCall(tool, args, id=f"call_{number}_{k}")
            for k, args in enumerate(arguments, start=1)
        )
    )


def _parallel_answer(conversation: Conversation) -> Reply | None:
    """The answer after a parallel turn: the claims read from the results of the calls
    about the task (the calls of the prompt's tool for the task's order id; for a tool
    taking none, every call of it), their evidence together in call order. Each result is
    read as the answer to the call its ``tool_call_id`` names, never by position, so a
    result sent back under another call's id reads as that call's. ``None`` when no such
    result came back usable (an error: the competent model's way with it then)."""
    prompt, offered = conversation.prompt, conversation.offered
    tool = prompt.tool(offered)
    if tool is None:
        return None
    own = prompt.arguments(offered[tool]).get("order_id")
    about: list[dict[str, Any]] = []
    for name, text, result in conversation.answers:
        try:
            args = json.loads(text)
        except json.JSONDecodeError:
            continue
        if name == tool and isinstance(args, dict) and args.get("order_id") == own:
            if not isinstance(result, dict) or "error" in result:
                return None
            about.append(result)
    if not about:
        return None
    merged: dict[str, Any] = {}
    evidence: list[Any] = []
    for result in about:
        merged.update(result)
        evidence += [item for item in result.get("evidence") or [] if item not in evidence]
    merged["evidence"] = evidence
    return _answer(read_claims(prompt, merged), conversation)


def _call(name: str, arguments: dict[str, Any] | str, conversation: Conversation) -> ToolCalls:
    # Ids numbered by the conversation, not by the server: the same run, the same prompts.
    number = len(conversation.messages)
    return ToolCalls(ToolCall(name, arguments, id=f"call_{number}"))


ANSWER_FORMAT = re.compile(r'\{"(\w+)": \[\{(.*?)\}\]\}', re.DOTALL)
"""The answer object a prompt spells out (``{"claims": [{"topic": …, …}]}``)."""


def answer_format(texts: list[str]) -> tuple[str, list[str]] | None:
    """The answer object the prompt asks for: its list's key and the keys of an item
    (``("claims", ["topic", "value", "text", "evidence"])``); ``None`` when no message
    spells one out."""
    for text in texts:
        match = ANSWER_FORMAT.search(text)
        if match:
            return match.group(1), re.findall(r'"(\w+)":', match.group(2))
    return None


JSON_ONLY = re.compile(r"\bnothing else\b|\bno other text\b|\bonly the JSON\b", re.IGNORECASE)
"""What tells a model its answer is the JSON alone (the output format's "and nothing
else", a repair request's "only the JSON object … no other text")."""
PREFACE = "好的，以下是查询结果：\n"
"""What a model not told to answer with the JSON alone writes before it, as chat models do."""
CITE_RULE = re.compile(r"\bcite only evidence ids\b[^.]*\btools? returned\b", re.IGNORECASE)
"""What tells a model which ids it may cite: only those its tools returned."""


def instructions(conversation: Conversation) -> list[str]:
    """What the agent itself told the model: the system prompt and the user messages
    after the task (repair requests). The task's data is the customer's, not the agent's:
    a rule the customer writes binds nothing."""
    said = [str(m.get("content") or "") for m in conversation.messages if m.get("role") == "system"]
    users = [str(m.get("content") or "") for m in conversation.messages if m.get("role") == "user"]
    return said + users[1:]


def _uncited(claims: list[dict[str, Any]], conversation: Conversation) -> list[dict[str, Any]]:
    """``claims`` as a model cites when nothing limits it to the ids its tools returned:
    each source by the tool it came from (``orders__get_order``), an id no tool returned."""
    if any(CITE_RULE.search(text) for text in instructions(conversation)):
        return claims
    called = [name for name, _ in conversation.calls] or ["tools"]
    return [{**c, "evidence": [called[-1]]} if c.get("evidence") else c for c in claims]


REPEAT_RULE = re.compile(r"\bdo not repeat it\b", re.IGNORECASE)
"""What tells a model not to repeat an instruction it finds in data."""
QUOTED_CHARS = 40
"""How much of an instruction found in data a model repeats."""


def instruction_in_data(conversation: Conversation) -> str | None:
    """The first instruction in what the model was given to read (the task's data, the
    tool results), as written from where it starts; ``None``: none."""
    texts = [conversation.prompt.task]
    texts += [
        r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in conversation.results
    ]
    for text in texts:
        found = INSTRUCTION.search(text)
        if found:
            return text[found.start() :]
    return None


def _repeated(claims: list[dict[str, Any]], conversation: Conversation) -> list[dict[str, Any]]:
    """``claims`` as a model writes them when nothing tells it not to repeat what data asks
    for: each explanation quotes the instruction it read (the agent's hygiene then drops
    those claims as carrying instructions)."""
    if any(REPEAT_RULE.search(text) for text in instructions(conversation)):
        return claims
    demand = instruction_in_data(conversation)
    if demand is None:
        return claims
    note = f"（其中写着：{demand[:QUOTED_CHARS]}）"
    return [{**c, "text": f"{c.get('text') or ''}{note}"} for c in claims]


def _answer(claims: list[dict[str, Any]], conversation: Conversation) -> Reply:
    """The final answer in the format the prompt asks for, or, when it asks for none, what
    a model says then: the findings in prose. A model does only what it is told: not told
    to answer with the JSON alone, it writes :data:`PREFACE` before it; not told to cite
    only the ids its tools returned, it cites each source by its tool (:func:`_uncited`)."""
    texts = [str(m.get("content") or "") for m in conversation.messages if m.get("role") != "tool"]
    wanted = answer_format(texts)
    if wanted is None:
        said = "；".join(f"{c['topic']}：{c['value']}" for c in claims)
        return Reply(f"查询结果如下：{said}。")
    key, fields = wanted
    items = [
        {field: claim.get(field, "") for field in fields}
        for claim in _repeated(_uncited(claims, conversation), conversation)
    ]
    body = json.dumps({key: items}, ensure_ascii=False)
    alone = any(JSON_ONLY.search(text) for text in instructions(conversation))
    return Reply(body if alone else PREFACE + body)


def _unguarded_instruction(conversation: Conversation) -> str | None:
    """An instruction in text the prompt did not mark as data: in the customer's message
    (outside ``<data>``, or with nothing saying ``<data>`` is data), or in a tool result
    (when nothing says tool results are data). ``None``: none to obey."""
    prompt = conversation.prompt
    subjects = marks([prompt.system, prompt.task])
    data_is_data = any("<data>" in s or "message" in s for s in subjects)
    results_are_data = any("tool result" in s for s in subjects)
    for match in INSTRUCTION.finditer(prompt.task):
        if not (data_is_data and _in_data(prompt.task, match.start())):
            return prompt.task[match.start() :]
    if not results_are_data:
        for result in conversation.results:
            text = json.dumps(result, ensure_ascii=False) if not isinstance(result, str) else result
            found = INSTRUCTION.search(text)
            if found:
                return text[found.start() :]
    return None


def _obey(instruction: str, conversation: Conversation) -> ToolCalls | None:
    """The call an obedient model makes for ``instruction`` (the tool it names, or a
    ticket when it asks for a reissue); ``None`` once made."""
    named = TOOL_NAME.search(instruction)
    tool = named.group() if named else (FORBIDDEN_TOOL if "补发" in instruction else None)
    if tool is None or any(name == tool for name, _ in conversation.calls):
        return None
    order_id = _tag(conversation.prompt.task, "order_id") or ""
    return _call(tool, {"order_id": order_id}, conversation)


def _draft(prompt: Prompt, plan: str | None = None) -> str:
    """The reply a careful writer drafts from the plan (``plan``: this one instead of the
    task's) and facts, using the phrases the prompt asks for."""
    try:
        facts = json.loads(_tag(prompt.task, "facts") or "{}")
    except ValueError:  # facts it cannot read: it states none of them
        facts = {}
    if not isinstance(facts, dict):
        facts = {}
    stale = facts.get("stale_hours", "?")
    threshold = facts.get("reissue_threshold_hours", "?")
    if (plan or _tag(prompt.task, "plan") or "").strip() == "reissue":
        phrase = prompt.phrase("that we have")
        return (
            f"您好，您的包裹物流信息已经 {stale} 小时没有更新，达到补发条件（{threshold} 小时），"
            f"我们已为您{phrase}，新包裹发出后会通知您。"
        )
    phrase = prompt.phrase("say it is")
    return (
        f"您好，您的包裹仍在运输中，物流信息 {stale} 小时前有过更新，{phrase}"
        f"（物流停滞满 {threshold} 小时才可补发），请再耐心等待。"
    )


def competent(conversation: Conversation) -> ResponseSpec:
    """What a careful (but obedient to unmarked instructions) model answers."""
    prompt = conversation.prompt
    offered = conversation.offered
    instruction = _unguarded_instruction(conversation)
    if instruction is not None:
        obeyed = _obey(instruction, conversation)
        if obeyed is not None:
            return obeyed
    if not offered:  # the reply writer: no tools, one claim
        topic = prompt.topics[0] if prompt.topics else "reply"
        return _answer([_claim(topic, _draft(prompt), [], "回复草稿")], conversation)
    tool = prompt.tool(offered)
    if tool is None:
        return _answer(
            [_claim(prompt.gap_topic or "answer", None, [], "没有可用的工具")], conversation
        )
    wanted = json.dumps(prompt.arguments(offered[tool]), ensure_ascii=False)
    results = conversation.results
    if not results:
        return _call(tool, prompt.arguments(offered[tool]), conversation)
    last = results[-1]
    if isinstance(last, dict) and "error" in last:
        # A call of ours was rejected: make the well-formed one, once.
        if (tool, wanted) not in conversation.calls:
            return _call(tool, prompt.arguments(offered[tool]), conversation)
        return _answer([_claim(prompt.gap_topic or tool, None, [], "工具报错")], conversation)
    return _answer(read_claims(prompt, last if isinstance(last, dict) else {}), conversation)


def tool_results(bodies: list[dict[str, Any]]) -> list[list[str | None]]:
    """Each distinct tool result the requests carried, as ``[tool name, its JSON object's
    keys joined by commas]`` (``None``: not a JSON object; the name ``?`` when no call in
    the request has the result's id), sorted: what the model was told, by tool."""
    seen: set[tuple[str, str | None]] = set()
    for body in bodies:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        names = {
            str(c.get("id")): str(c["function"].get("name"))
            for m in messages
            if m.get("role") == "assistant"
            for c in m.get("tool_calls") or []
            if isinstance(c, dict) and isinstance(c.get("function"), dict)
        }
        for m in messages:
            if m.get("role") != "tool":
                continue
            try:
                parsed = json.loads(str(m.get("content") or ""))
            except json.JSONDecodeError:
                parsed = None
            keys = ",".join(sorted(parsed)) if isinstance(parsed, dict) else None
            seen.add((names.get(str(m.get("tool_call_id")), "?"), keys))
    return [[name, keys] for name, keys in sorted(seen, key=lambda pair: (pair[0], pair[1] or ""))]


# -- faults -------------------------------------------------------------------------

EXTRA_CLAIMS: tuple[dict[str, Any], ...] = (
    {"topic": "confidence", "value": "高", "text": "我对以上结论很有把握", "evidence": []},
    {"topic": "summary", "value": "已完成", "text": "处理摘要", "evidence": []},
)
"""What an ``extra_claims`` answer puts before the claims asked for: topics no prompt
names, one sorting before every topic of the specialists' prompts (``confidence`` <
``last_event``, ``order``, ``paid``, ``reply`` …) and one after every one (``summary`` >
``stale_hours``, ``sku`` …), so an agent that picks a claim by anything but its exact
topic picks one of these."""

CITED_EVIDENCE = "order#1"
"""What a ``cited_draft`` reply cites: an evidence id, which a customer must never read."""
BLANK_DRAFT = " \u3000\n "
"""What a ``blank_draft`` reply writer drafts: an ASCII and an ideographic space, a line
break and a space, nothing a customer could read."""

NUMERALS = str.maketrans("0123456789.", "〇一二三四五六七八九点")
"""Digit (and decimal point) -> its Chinese word (what a ``numbers_in_words`` answer
writes)."""
WRITTEN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
"""A value a ``numbers_in_words`` answer rewrites: ASCII digits, at most one decimal point
(an amount paid, ``59.00``, as much as a count of hours)."""

QUERY_SYNTAX = '"补发 (政策* OR NEAR) title:^x - "'
"""What a ``query_syntax`` search adds around its words: FTS5's quote, parentheses,
prefix star, OR and NEAR, a column filter, a start anchor and a minus, and a quote
left open. Read as words, the search finds what the plain one finds."""


FAULTS: dict[str, tuple[bool, str]] = {
    "malformed_call": (True, "its first tool call carries arguments that are not JSON"),
    "outside_allowlist": (True, f"its first call asks for {FORBIDDEN_TOOL} (not allowlisted)"),
    "unknown_tool": (True, f"its first call asks for {UNKNOWN_TOOL} (no such tool)"),
    "empty_arguments": (
        True,
        "its first tool call carries an empty arguments string (as some providers send a"
        " call they give no arguments): read as no arguments, refused for the missing"
        " ones, and remade",
    ),
    "null_arguments": (
        True,
        "its first tool call's arguments are JSON null instead of a string: read as no"
        " arguments, refused for the missing ones, and remade",
    ),
    "custom_call": (
        True,
        "its first tool call is a custom one (type custom, the tool's name, plain text input"
        " instead of JSON arguments): a kind of call no request offers",
    ),
    "parallel_calls": (
        True,
        "its first tool turn asks for every call it wants at once, several tool calls in one"
        " assistant message: its tool for each order the customer's message names (the"
        " task's own among them) or two knowledge-base searches (the returns policy, then"
        " the reissue policy); it reads each result as the answer to the call its id names"
        " and claims from those about the task's order",
    ),
    "unparsable_once": (True, "its first final answer is prose, its repaired one is good"),
    "refusal": (True, "it refuses every final answer (message.refusal, no content)"),
    "no_choices": (
        True,
        "every final answer comes as a completion with no choices (an empty choices list,"
        " usage counted): a response the API may send, holding no message",
    ),
    "endless_tools": (True, "it never stops calling its tool (the step limit ends it)"),
    "slow": (True, f"every answer takes {SLOW_S:g} s"),
    "fenced": (
        True,
        "its final answers come in a Markdown code fence (```json … ```), after a blank line"
        " and followed by a newline, as chat models write them",
    ),
    "two_mistakes": (
        True,
        "its final answers carry two schema mistakes; it mends those a repair names",
    ),
    "at_limit": (True, "its first tool call's text argument is exactly as long as the limit"),
    "past_limit": (True, "its first tool call's text argument is one character past the limit"),
    "extra_argument": (True, "its first tool call carries an argument no tool's schema names"),
    "query_syntax": (
        True,
        "its first knowledge-base search wraps its words in the search engine's own syntax"
        f" ({QUERY_SYNTAX!r} around them): text the tool must keep inert",
    ),
    "long_mistake": (
        True,
        "its first final answer carries an unknown key of 1,000 characters; its repaired one"
        " is good",
    ),
    "extra_key": (
        True,
        "its first final answer carries, beside its claims, a top-level key the output"
        " schema does not name (confidence); its repaired one is good",
    ),
    "bare_list_once": (
        True,
        "its first final answer is its claims list alone (a JSON array, not the object"
        " holding it); its repaired one is good",
    ),
    "last_topic_left_out": (
        True,
        "its final answers leave out the claim of the last topic its prompt asks for (the"
        " logistics specialist's stale_hours, the policy specialist's"
        " reissue_threshold_hours): a fact the agent must then treat as unknown",
    ),
    "extra_claims": (
        True,
        "its final answers carry, before the claims asked for, two it was never asked for:"
        f" {EXTRA_CLAIMS[0]['topic']} (a topic sorting before every topic asked for) and"
        f" {EXTRA_CLAIMS[1]['topic']} (one sorting after every one)",
    ),
    "bare_claims": (
        False,
        "its final answers hold, of each claim, only the fields the claim schema requires"
        " (topic, value) and the evidence of a claim that cites some: no text, no empty"
        " evidence list",
    ),
    "numbers_in_words": (
        True,
        "its final answers state every value written in digits alone in Chinese numerals,"
        " digit by digit (72 -> 七二): a number the agent may not read",
    ),
    "false_promise": (
        False,
        "the reply writer drafts the reissue reply whatever the plan (it says a reissue was"
        " filed when none is planned)",
    ),
    "blank_draft": (
        False,
        f"the reply writer's draft is blank ({BLANK_DRAFT!r}: spaces and a line break)",
    ),
    "cited_draft": (
        False,
        f"the reply writer's draft ends citing an evidence id ({CITED_EVIDENCE})",
    ),
    "no_usage": (
        False,
        "every completion comes without its usage (no usage field at all), as some"
        " OpenAI-compatible servers send one: a call the agent must still count, with no"
        " tokens",
    ),
    "lone_outage": (
        True,
        f"the role's requests are answered 401 at once, every other role's after that and"
        f" {SLOW_S:g} s late: the outage ends the turn while the others are still at work",
    ),
    "bad_request": (True, "every request is answered 400 (a request the agent got wrong)"),
    "rate_limited_once": (True, "the first request is answered 429 with Retry-After"),
    "unauthorized": (False, "every request is answered 401 (the key is refused)"),
    "rate_limited": (False, "every request is answered 429 with Retry-After"),
    "server_error": (False, "every request is answered 500"),
    "timeout": (False, "every request hangs past the client's timeout"),
}
"""Kind -> (whether it names a role, what the model then does)."""

ARGUMENT_LIMITS: dict[str, tuple[str, int]] = {
    "orders__get_order": ("order_id", 64),
    "logistics__track": ("order_id", 64),
    "kb__search": ("query", 200),
}
"""Tool -> the text argument an ``at_limit``/``past_limit`` fault stretches and its
longest length, from docs/models.md ("Tool arguments"), never from the schema the request
offers: a limit the tools loosen or tighten is then a different run (a test holds this
table to the docs)."""


EXTRA_ARGUMENT = ("priority", "urgent")
"""What an ``extra_argument`` call adds to its arguments: a name no tool's schema holds
(every tool takes exactly its arguments, docs/models.md "Tool arguments"), so the gateway
must refuse the call as invalid arguments and the model make the well-formed one."""


LONG_KEY = "k" * 1000
"""The unknown key a ``long_mistake`` answer puts in its first claim: its location alone
makes the problem far longer than a repair request quotes (docs/models.md: the problems
cut to their first 300 characters)."""
EXTRA_KEY = ("confidence", "高")
"""What an ``extra_key`` answer adds beside its ``claims``: a top-level key the output
schema does not name (docs/models.md, "The claim schema": an object holding ``claims``
alone), so the agent must refuse the answer and ask for a repair."""
REPAIR_QUOTE = re.compile(r"could not be used: (.*?)\. Answer again with only", re.DOTALL)
"""Where a repair request quotes the problem (the prompt's wording, agent.prompts)."""


def repair_quote(conversation: Conversation) -> int | None:
    """How many characters of the problem the request quotes when it is a repair request
    (the last message a user's, after a final answer); ``None`` otherwise, or -1 when it
    is one but quotes in no form the model knows."""
    messages = conversation.messages
    if not messages or messages[-1].get("role") != "user" or not conversation.answered_before:
        return None
    found = REPAIR_QUOTE.search(str(messages[-1].get("content") or ""))
    return len(found.group(1)) if found else -1


def stretched(value: str, length: int) -> str:
    """``value`` repeated (space-separated) and cut to exactly ``length`` characters."""
    text = value or "x"
    while len(text) < length:
        text += " " + (value or "x")
    return text[:length]


MISTAKES: dict[str, Callable[[dict[str, Any]], None]] = {
    "claims.0.confidence": lambda claim: claim.update(confidence="高"),
    "claims.0.value": lambda claim: claim.pop("value", None),
}
"""Location of a ``two_mistakes`` answer's schema mistake -> how its first claim makes it
(an unknown key; the required value left out)."""


def mistaken(content: str, repair: str) -> str:
    """``content`` (a claims answer) with each of :data:`MISTAKES` that ``repair`` (the
    repair request, empty on the first answer) does not name: like a model that mends
    what it is told and nothing else."""
    try:
        data = json.loads(content)
        claim = data["claims"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return content
    for where, make in MISTAKES.items():
        if where not in repair:
            make(claim)
    return json.dumps(data, ensure_ascii=False)


def with_extra_claims(content: str) -> str:
    """``content`` (a claims answer) with :data:`EXTRA_CLAIMS` before its claims, each
    holding only the fields the answer's claims hold."""
    try:
        data = json.loads(content)
        claims = data["claims"]
        if not (isinstance(claims, list) and all(isinstance(c, dict) for c in claims)):
            return content
        fields = list(claims[0]) if claims else list(EXTRA_CLAIMS[0])
        extra = [{f: claim.get(f, "") for f in fields} for claim in EXTRA_CLAIMS]
        data["claims"] = [*extra, *claims]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return content
    return json.dumps(data, ensure_ascii=False)


CLAIM_REQUIRED: tuple[str, ...] = ("topic", "value")
"""The fields the claim schema requires, as docs/models.md ("The claim schema") lists them,
never read from ``agent.contracts``: every other field may be left out."""
EVIDENCE = "evidence"
"""The optional field a ``bare_claims`` answer keeps when it is not empty: a claim that
cites nothing then says so by leaving it out, one that cites something still cites it."""


def bare(content: str) -> str:
    """``content`` (a claims answer) with every claim holding only the schema's required
    fields (:data:`CLAIM_REQUIRED`) and its evidence when it cites some: every optional
    field left out where leaving it out says the same."""
    try:
        data = json.loads(content)
        claims = data["claims"]
        if not (isinstance(claims, list) and all(isinstance(c, dict) for c in claims)):
            return content
        data["claims"] = [
            {k: v for k, v in claim.items() if k in CLAIM_REQUIRED or (k == EVIDENCE and v)}
            for claim in claims
        ]
    except (ValueError, KeyError, TypeError):
        return content
    return json.dumps(data, ensure_ascii=False)


def in_words(content: str) -> str:
    """``content`` (a claims answer) with every claim value that is a number written in
    ASCII digits, with or without one decimal point, written in Chinese numerals digit by
    digit (``120`` -> ``一二〇``, ``59.00`` -> ``五九点〇〇``); other values as they are."""
    try:
        data = json.loads(content)
        for claim in data["claims"]:
            value = claim.get("value")
            if isinstance(value, str) and WRITTEN_NUMBER.fullmatch(value):
                claim["value"] = value.translate(NUMERALS)
    except (ValueError, KeyError, TypeError, AttributeError):
        return content
    return json.dumps(data, ensure_ascii=False)


def with_long_key(content: str) -> str:
    """``content`` (a claims answer) with :data:`LONG_KEY` added to its first claim."""
    try:
        data = json.loads(content)
        data["claims"][0][LONG_KEY] = ""
    except (ValueError, KeyError, IndexError, TypeError):
        return content
    return json.dumps(data, ensure_ascii=False)


def as_bare_list(content: str) -> str:
    """``content`` (a claims answer) as its claims list alone: valid JSON of the wrong
    kind, a problem of the answer as a whole (no field to name)."""
    try:
        claims = json.loads(content)["claims"]
    except (ValueError, TypeError, KeyError):
        return content
    return json.dumps(claims, ensure_ascii=False)


def with_extra_key(content: str) -> str:
    """``content`` (a claims answer) with :data:`EXTRA_KEY` beside its claims."""
    try:
        data = json.loads(content)
        name, value = EXTRA_KEY
        data[name] = value
    except (ValueError, TypeError):
        return content
    return json.dumps(data, ensure_ascii=False)


def without_topic(content: str, topic: str) -> str:
    """``content`` (a claims answer) without its claims of ``topic``."""
    try:
        data = json.loads(content)
        claims = data["claims"]
        data["claims"] = [
            c for c in claims if not (isinstance(c, dict) and c.get("topic") == topic)
        ]
    except (ValueError, KeyError, TypeError):
        return content
    return json.dumps(data, ensure_ascii=False)


PARALLEL_CALLS = "parallel_calls"
"""``parallel_calls:ROLE``: several tool calls in one assistant message, as real models
make them (:func:`parallel_arguments`); the API takes the next request only when every
call has its tool message (:func:`request_problems`)."""

LONE_OUTAGE = "lone_outage"
"""``lone_outage:ROLE``: the one fault that names a role and acts on every request (the
role's fail, the others' are slowed), so the outage lands while the others still work."""
OUTAGE_WAIT_S = 1.0
"""How long another role's request of a ``lone_outage`` run waits for the outage at most
(it is answered :data:`SLOW_S` late after it)."""

HTTP = "http"
"""``http:CODE`` (every request) or ``http:CODE:ROLE`` (that specialist's requests): the
request is answered with HTTP status CODE, 400 to 599, so every status class of the
provider's can be put to the agent (:data:`FAULTS` names the common ones)."""
HTTP_CODES = range(400, 600)
"""The statuses an ``http`` fault may answer with: the client's and the server's errors."""


@dataclass(frozen=True)
class ModelFault:
    """A misbehaviour of the scripted model a case asks for."""

    kind: str
    """One of :data:`FAULTS`."""
    role: str | None = None
    """The specialist whose requests it applies to (``None``: every request)."""
    status: int | None = None
    """The HTTP status of an ``http`` fault (``None`` for every other kind)."""

    def applies(self, conversation: Conversation) -> bool:
        """Whether it applies to this request."""
        if self.kind == LONE_OUTAGE:  # the role's requests fail, the others' are slowed
            return True
        return self.role is None or conversation.prompt.role == self.role


def parse_model_fault(text: str) -> ModelFault:
    """``KIND`` or ``KIND:ROLE`` as a :class:`ModelFault`; raises
    :class:`~agent.errors.UnknownFaultError` naming what is wrong."""
    kind, _, role = text.partition(":")
    if kind == HTTP:
        return _http_fault(text, role)
    if kind not in FAULTS:
        raise UnknownFaultError(text, f"known model faults: {', '.join(FAULTS)}")
    needs_role, _ = FAULTS[kind]
    if needs_role and role not in ROLES:
        raise UnknownFaultError(
            text, f"{kind} needs a role: {kind}:ROLE, ROLE one of {', '.join(ROLES)}"
        )
    if not needs_role and role:
        raise UnknownFaultError(text, f"{kind} applies to every request and names no role")
    return ModelFault(kind, role or None)


def _http_fault(text: str, argument: str) -> ModelFault:
    """``http:CODE`` or ``http:CODE:ROLE`` (``argument`` is what follows ``http:``)."""
    code, _, role = argument.partition(":")
    if not (len(code) == 3 and code.isascii() and code.isdigit()) or int(code) not in HTTP_CODES:
        raise UnknownFaultError(
            text,
            f"{HTTP} takes a status from {HTTP_CODES.start} to {HTTP_CODES.stop - 1}:"
            f" {HTTP}:CODE or {HTTP}:CODE:ROLE, got {code!r}",
        )
    if role and role not in ROLES:
        raise UnknownFaultError(text, f"no role {role!r} (roles: {', '.join(ROLES)})")
    return ModelFault(HTTP, role or None, int(code))


def _refusal(request: Mapping[str, Any]) -> Raw:
    """A completion whose message refuses (``refusal`` set, no content), with usage."""
    prompt_chars = sum(len(str(m.get("content") or "")) for m in request.get("messages") or [])
    body = {
        "id": "chatcmpl-scripted-refusal",
        "object": "chat.completion",
        "created": 0,
        "model": SCRIPTED_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": REFUSAL},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": (prompt_chars + 3) // 4,
            "completion_tokens": (len(REFUSAL) + 3) // 4,
            "total_tokens": (prompt_chars + 3) // 4 + (len(REFUSAL) + 3) // 4,
        },
    }
    return Raw(body)


def _no_choices(request: Mapping[str, Any]) -> Raw:
    """A completion with an empty ``choices`` list (no message at all), with usage."""
    prompt_tokens = (
        sum(len(str(m.get("content") or "")) for m in request.get("messages") or []) + 3
    ) // 4
    body = {
        "id": "chatcmpl-scripted-no-choices",
        "object": "chat.completion",
        "created": 0,
        "model": SCRIPTED_MODEL,
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 0,
            "total_tokens": prompt_tokens,
        },
    }
    return Raw(body)


class ScriptedModel:
    """The handler of the scripted server: the competent model, misbehaving as its fault
    says. Deterministic; the only state is which roles had their first request (for
    ``rate_limited_once``)."""

    def __init__(self, fault: ModelFault | None = None) -> None:
        self.fault = fault
        self._lock = threading.Lock()
        self._seen: set[str | None] = set()
        self._served_calls: set[tuple[str, str, str]] = set()
        self.unwritten: list[str] = []
        """What the requests' data showed otherwise than as written
        (:func:`data_not_as_written`), each finding once."""
        self.repair_quotes: list[int] = []
        """Per repair request, how many characters of the problem it quoted."""
        self.told: dict[str, list[str | None]] = {}
        """Per evidence specialist, each distinct customer message its requests' task
        carried (``None``: a request that carried none), in the order seen."""
        self.altered_calls: list[str] = []
        """Tool calls of its own that a request's history repeated otherwise than it made
        them (another name or arguments string under the id it gave), or that it never
        made: the history an agent sends back must repeat the model's calls verbatim."""
        self.invalid_requests: list[str] = []
        """Per request the API would refuse (:func:`request_problems`), its first problem:
        such a request is answered 400, as the real API answers it."""
        self._outage = threading.Event()
        """Set once a ``lone_outage`` role's request was answered with its failure."""
        self.texts_sent: dict[str, str] = {}
        """Every distinct system prompt and repair request the agent sent, text -> where
        (``<role>: system prompt`` / ``<role>: repair request``): texts an agent composes
        for the model, judged whole by the checks (a value left out shows there)."""
        self.unordered_tools: list[str] = []
        """Requests that offered their tools out of name order (docs/models.md: a run
        sends the same request every time), each finding once."""
        self.undescribed_tools: list[str] = []
        """Tools offered with no description (``<role>: <tool>``, each once): a model
        picks a tool by what it is told it does, and is told nothing."""

    def _check_history(self, conversation: Conversation) -> None:
        with self._lock:
            for call_id, name, arguments in conversation.call_records:
                if (call_id, name, arguments) not in self._served_calls:
                    self.altered_calls.append(
                        f"{call_id}: {name}({arguments}) is not a call the model made"
                    )

    def _record_calls(self, answer: ResponseSpec) -> None:
        if isinstance(answer, ToolCalls):
            with self._lock:
                for call in answer.calls:
                    self._served_calls.add((str(call.id), call.name, call.arguments_json()))
        elif isinstance(answer, Raw) and isinstance(answer.body, dict):
            for choice in answer.body.get("choices") or []:
                for call in (choice.get("message") or {}).get("tool_calls") or []:
                    part = _call_part(call)
                    if part is not None:
                        with self._lock:
                            self._served_calls.add((str(call.get("id")), *part))

    def _first(self, role: str | None) -> bool:
        with self._lock:
            first = role not in self._seen
            self._seen.add(role)
            return first

    def __call__(self, request: Any) -> ResponseSpec:
        """Answer one chat request."""
        conversation = Conversation(request if isinstance(request, dict) else {})
        if conversation.request.get("model") != SCRIPTED_MODEL:
            return HttpError(404, f"model {conversation.request.get('model')!r} does not exist")
        refused = request_problems(conversation.request)
        if refused:
            with self._lock:
                self.invalid_requests.append(refused[0])
            return HttpError(400, f"scripted: invalid request: {refused[0]}")
        self._check_history(conversation)
        role = conversation.prompt.role
        sent = [(f"{role}: system prompt", conversation.prompt.system)]
        if conversation.answered_before and conversation.messages:
            last = conversation.messages[-1]
            if last.get("role") == "user":
                sent.append((f"{role}: repair request", str(last.get("content") or "")))
        with self._lock:
            for where, text in sent:
                self.texts_sent.setdefault(text, where)
        for name in undescribed(conversation.request):
            finding = f"{role}: {name}"
            with self._lock:
                if finding not in self.undescribed_tools:
                    self.undescribed_tools.append(finding)
        offered = list(conversation.offered)
        if offered != sorted(offered):
            finding = f"{role}: {offered}"
            with self._lock:
                if finding not in self.unordered_tools:
                    self.unordered_tools.append(finding)
        if role is not None and role != REPLY_WRITER:
            told = customer_message(conversation.prompt.task)
            with self._lock:
                seen = self.told.setdefault(role, [])
                if told not in seen:
                    seen.append(told)
        unwritten = data_not_as_written(conversation.prompt.task)
        unwritten += tool_results_not_as_written(conversation.messages)
        if unwritten:
            with self._lock:
                self.unwritten = list(dict.fromkeys([*self.unwritten, *unwritten]))
        quoted = repair_quote(conversation)
        if quoted is not None:
            with self._lock:
                self.repair_quotes.append(quoted)
        fault = self.fault
        if fault is None or not fault.applies(conversation):
            answer = competent(conversation)
        else:
            answer = self._faulty(fault, conversation)
        self._record_calls(answer)
        return answer

    def _faulty(self, fault: ModelFault, conversation: Conversation) -> ResponseSpec:
        kind = fault.kind
        if kind == HTTP and fault.status is not None:
            retry_after = RETRY_AFTER_S if fault.status == 429 else None
            return HttpError(
                fault.status, f"scripted: status {fault.status}", retry_after=retry_after
            )
        if kind == LONE_OUTAGE:
            if conversation.prompt.role == fault.role:
                self._outage.set()
                return HttpError(401, "scripted: invalid api key")
            # Whatever order the requests arrive in, the others answer only after the
            # outage, and late: the agent must cancel them in that time.
            self._outage.wait(OUTAGE_WAIT_S)
            return _slowed(competent(conversation))
        if kind == "bad_request":
            return HttpError(400, "scripted: the request is malformed")
        if kind == "unauthorized":
            return HttpError(401, "scripted: invalid api key")
        if kind == "server_error":
            return HttpError(500, "scripted: internal error")
        if kind == "rate_limited":
            return HttpError(429, "scripted: rate limited", retry_after=RETRY_AFTER_S)
        if kind == "timeout":
            return Hang(seconds=HANG_S)
        if kind == "rate_limited_once" and self._first(fault.role):
            return HttpError(429, "scripted: rate limited", retry_after=RETRY_AFTER_S)
        answer = competent(conversation)
        calling = isinstance(answer, ToolCalls)
        if kind == "slow":
            return _slowed(answer)
        if kind == "malformed_call" and isinstance(answer, ToolCalls) and not conversation.calls:
            return _call(answer.calls[0].name, MALFORMED_ARGUMENTS, conversation)
        if kind == "outside_allowlist" and not conversation.calls:
            order_id = _tag(conversation.prompt.task, "order_id") or ""
            return _call(FORBIDDEN_TOOL, {"order_id": order_id}, conversation)
        if kind == "empty_arguments" and isinstance(answer, ToolCalls) and not conversation.calls:
            return _call(answer.calls[0].name, "", conversation)
        if kind == "null_arguments" and isinstance(answer, ToolCalls) and not conversation.calls:
            return _null_arguments_call(answer.calls[0].name, conversation)
        if kind == "custom_call" and isinstance(answer, ToolCalls) and not conversation.calls:
            call = answer.calls[0]
            given = call.arguments if isinstance(call.arguments, dict) else {}
            text = " ".join(str(v) for v in given.values())  # plain text, not JSON
            return _custom_call(call.name, text, conversation)
        if kind == PARALLEL_CALLS and isinstance(answer, ToolCalls) and not conversation.calls:
            return _parallel_calls(conversation) or answer
        if kind == PARALLEL_CALLS and isinstance(answer, Reply) and conversation.calls:
            return _parallel_answer(conversation) or answer
        if kind == "unknown_tool" and not conversation.calls:
            order_id = _tag(conversation.prompt.task, "order_id") or ""
            return _call(UNKNOWN_TOOL, {"order_id": order_id}, conversation)
        if kind == "endless_tools" and conversation.offered:
            tool = conversation.prompt.tool(conversation.offered) or next(
                iter(conversation.offered)
            )
            return _call(
                tool, conversation.prompt.arguments(conversation.offered[tool]), conversation
            )
        if kind == "unparsable_once" and not calling and not conversation.answered_before:
            return Reply(UNPARSABLE)
        if kind == "refusal" and not calling:
            return _refusal(conversation.request)
        if kind == "no_choices" and not calling:
            return _no_choices(conversation.request)
        if kind in ("at_limit", "past_limit") and isinstance(answer, ToolCalls):
            call = answer.calls[0]
            limit = ARGUMENT_LIMITS.get(call.name)
            if limit is not None and not conversation.calls and isinstance(call.arguments, dict):
                name, length = limit
                length += 1 if kind == "past_limit" else 0
                arguments = {**call.arguments, name: stretched(str(call.arguments[name]), length)}
                return _call(call.name, arguments, conversation)
        if kind == "query_syntax" and isinstance(answer, ToolCalls) and not conversation.calls:
            call = answer.calls[0]
            if call.name == "kb__search" and isinstance(call.arguments, dict):
                query = f"{QUERY_SYNTAX} {call.arguments.get('query', '')}"
                return _call(call.name, {**call.arguments, "query": query}, conversation)
        if kind == "extra_argument" and isinstance(answer, ToolCalls) and not conversation.calls:
            call = answer.calls[0]
            if isinstance(call.arguments, dict):
                name, value = EXTRA_ARGUMENT
                return _call(call.name, {**call.arguments, name: value}, conversation)
        if (
            kind == "long_mistake"
            and isinstance(answer, Reply)
            and not conversation.answered_before
        ):
            return replace(answer, content=with_long_key(answer.content))
        if kind == "extra_key" and isinstance(answer, Reply) and not conversation.answered_before:
            return replace(answer, content=with_extra_key(answer.content))
        if (
            kind == "bare_list_once"
            and isinstance(answer, Reply)
            and not conversation.answered_before
        ):
            return replace(answer, content=as_bare_list(answer.content))
        topics = conversation.prompt.topics
        if kind == "last_topic_left_out" and isinstance(answer, Reply) and topics:
            return replace(answer, content=without_topic(answer.content, topics[-1]))
        if kind == "two_mistakes" and isinstance(answer, Reply):
            repair = conversation.messages[-1] if conversation.answered_before else {}
            return replace(answer, content=mistaken(answer.content, str(repair.get("content", ""))))
        if kind == "extra_claims" and isinstance(answer, Reply):
            return replace(answer, content=with_extra_claims(answer.content))
        if kind == "bare_claims" and isinstance(answer, Reply):
            return replace(answer, content=bare(answer.content))
        if kind == "numbers_in_words" and isinstance(answer, Reply):
            return replace(answer, content=in_words(answer.content))
        drafting = isinstance(answer, Reply) and not conversation.offered
        if kind in ("false_promise", "cited_draft", "blank_draft") and drafting:
            topic = conversation.prompt.topics[0] if conversation.prompt.topics else "reply"
            if kind == "false_promise":
                draft = _draft(conversation.prompt, plan="reissue")
            elif kind == "blank_draft":
                draft = BLANK_DRAFT
            else:
                draft = f"{_draft(conversation.prompt)}（依据 {CITED_EVIDENCE}）"
            return _answer([_claim(topic, draft, [], "回复草稿")], conversation)
        if kind == "fenced" and isinstance(answer, Reply):
            return replace(answer, content=f"\n```json\n{answer.content}\n```\n")
        if kind == "no_usage" and isinstance(answer, Reply | ToolCalls):
            return _without_usage(answer, conversation)
        return answer


def _without_usage(answer: Reply | ToolCalls, conversation: Conversation) -> Raw:
    """``answer`` as a whole completion whose body holds no ``usage`` field."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.content}
    finish = "stop"
    if isinstance(answer, ToolCalls):
        number = len(conversation.messages)
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{number}_{k}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for k, call in enumerate(answer.calls, start=1)
        ]
        finish = "tool_calls"
    else:
        finish = answer.finish_reason
    body = {
        "id": "chatcmpl-scripted-no-usage",
        "object": "chat.completion",
        "created": 0,
        "model": SCRIPTED_MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
    }
    return Raw(body)


def _slowed(answer: ResponseSpec) -> ResponseSpec:
    """``answer``, sent :data:`SLOW_S` seconds late."""
    if isinstance(answer, ToolCalls):
        return ToolCalls(*answer.calls, content=answer.content, delay=SLOW_S, usage=answer.usage)
    if isinstance(answer, Reply):
        return replace(answer, delay=SLOW_S)
    return answer


# -- the server, one per run --------------------------------------------------------


class ScriptedServer:
    """The scripted model behind a fake OpenAI server on 127.0.0.1 for one run; after
    :meth:`stop`, :meth:`ledger` is the server's side of the account."""

    def __init__(self, fault: ModelFault | None = None) -> None:
        self.model = ScriptedModel(fault)
        self.fake = FakeOpenAI(handler=self.model, models=(SCRIPTED_MODEL,), api_key=SCRIPTED_KEY)

    def start(self) -> ScriptedServer:
        """Serve on a free port."""
        self.fake.start()
        return self

    def stop(self) -> None:
        """Stop serving (hanging answers are dropped, never served)."""
        self.fake.stop()

    @property
    def base_url(self) -> str:
        """Where the client points."""
        return self.fake.base_url

    def ledger(self) -> dict[str, Any]:
        """What the server saw and answered: requests, answers by status, the tokens it
        reported, the models asked for, the sampling asked for (each distinct
        ``[temperature, seed]`` pair, ``None`` where a request sent none), its own problems
        (a scripted model that raised)."""
        served = self.fake.served
        statuses: dict[str, int] = {}
        for answer in served:
            statuses[str(answer.status)] = statuses.get(str(answer.status), 0) + 1
        tokens = self.fake.tokens_served
        bodies = [r.json for r in self.fake.chat_requests if isinstance(r.json, dict)]
        asked = {str(body.get("model")) for body in bodies}
        # What sampling each request asked for (None: the request sent none).
        sampling = sorted(
            {json.dumps([body.get("temperature"), body.get("seed")]) for body in bodies}
        )
        return {
            "model": SCRIPTED_MODEL,
            "fault": None if self.model.fault is None else _fault_text(self.model.fault),
            "requests": len(self.fake.chat_requests),
            "answers": dict(sorted(statuses.items())),
            "prompt_tokens": tokens.prompt_tokens,
            "completion_tokens": tokens.completion_tokens,
            "models_asked": sorted(asked),
            "sampling_asked": [json.loads(pair) for pair in sampling],
            "problems": self.fake.errors,
            "altered_calls": list(self.model.altered_calls),
            "unordered_tools": list(self.model.unordered_tools),
            "undescribed_tools": list(self.model.undescribed_tools),
            "texts_sent": [[where, text] for text, where in self.model.texts_sent.items()],
            "invalid_requests": list(self.model.invalid_requests),
            "customer_messages": {role: list(told) for role, told in self.model.told.items()},
            "repair_quotes": list(self.model.repair_quotes),
            "data_not_as_written": list(self.model.unwritten),
            "tool_results": tool_results(bodies),
        }


def _fault_text(fault: ModelFault) -> str:
    return fault.kind if fault.role is None else f"{fault.kind}:{fault.role}"
