"""The fields an error text names, read by their place in it, for the
``errors_match_their_records`` invariant (:mod:`agent_evals.invariants`).

An error text SupportPilot records names its values quoted, as Python's ``repr`` gives
them (docs/invariants.md, "Error texts: the operator contract"). Two places say which
field a value is, whatever the words around it:

- a **label**: the word just before the value (``role 'order_agent'``, ``tool 'x'``,
  ``fault 'crash'``, ``order 'A1001'``, ``customer '张女士'``, ``approval 's01-0:approval'``,
  ``sku 'SKU-TEE-01'``, ``table 'orders'``); a label's value may also be a number or
  ``None`` (``sku 0``), which is how a value of the wrong field shows;
- the **subject**: the first quoted value no label names (``'logistics__track' failed:``,
  ``refused: unauthorized: role 'r' may not call 't'`` -> ``'t'``).

So a message may be reworded freely (``may not call`` -> ``is not allowed to call``)
as long as a role stays labelled ``role``, and so on; what it may not do is put one
field's value in another's place. An argument error's paths are read by their place too:
``invalid arguments for '<tool>': <path>: <message>; <path>: <message>``.

A module of its own, registering no check, importing nothing of ``domain``, ``agent`` or
``tools``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_evals.gateway_spec import TOOL_SPECS, Argument

LABELS = ("role", "tool", "fault", "order", "customer", "approval", "sku", "table")
"""The words that label the value after them."""

_STRING = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""
_VALUE = re.compile(
    rf"\b(?P<label>{'|'.join(LABELS)}) (?P<labelled>{_STRING}|-?\d+(?:\.\d+)?\b|None\b)"
    rf"|(?P<quoted>{_STRING})"
)
_EXCEPTION_PREFIX = re.compile(r"^[A-Z]\w*(?:Error|Exception): ")
ROOT = "<root>"
"""The path of an argument error about the call's arguments as a whole."""


@dataclass(frozen=True)
class Named:
    """One value an error text names: its label (``None``: unlabelled), its ``repr`` as
    written, and the value it reads as."""

    label: str | None
    written: str
    value: Any


def _read(written: str) -> Any:
    try:
        return ast.literal_eval(written)
    except (ValueError, SyntaxError):
        return written


def named_values(text: str) -> list[Named]:
    """Every quoted value of ``text`` and every labelled one, in order."""
    found: list[Named] = []
    for m in _VALUE.finditer(text):
        written = m.group("labelled") or m.group("quoted")
        found.append(Named(m.group("label"), written, _read(written)))
    return found


def subject(text: str) -> Named | None:
    """The first value of ``text`` no label names (``None``: every value is labelled)."""
    return next((n for n in named_values(text) if n.label is None), None)


def leading_subject(text: str) -> Named | None:
    """The quoted value a text begins with, after an exception's class name
    (``'order_agent' gave no usable output: …``); ``None`` when it begins otherwise."""
    rest = _EXCEPTION_PREFIX.sub("", text.strip(), count=1)
    first = re.match(_STRING, rest)
    return None if first is None else Named(None, first.group(0), _read(first.group(0)))


Same = Callable[[Any], bool]
"""Whether a value is the one a field holds."""


def label_problems(text: str, fields: Mapping[str, Same]) -> list[str]:
    """Each labelled value of ``text`` that is not its field's, as ``fields`` (label ->
    test) knows them; a label ``fields`` does not know is not judged."""
    problems: list[str] = []
    for n in named_values(text):
        same = fields.get(n.label) if n.label is not None else None
        if same is not None and not same(n.value):
            problems.append(f"names {n.label} {n.written}")
    return problems


def trim_given(text: str, given: Sequence[str]) -> str:
    """``text`` without the case's own error text ending it (an injected tool or table
    error is the case's words, not a field of the record)."""
    for words in sorted({g for g in given if g}, key=len, reverse=True):
        if text.endswith(words):
            return text[: -len(words)]
    return text


# --- an argument error's paths ------------------------------------------------------------


def _fits(argument: Argument, value: object) -> bool:
    """Whether ``value`` is what the spec takes for ``argument`` (a plain reading of
    docs/models.md, "Tool arguments")."""
    if argument.boolean:
        return isinstance(value, bool)
    if not isinstance(value, str) or not 1 <= len(value) <= argument.most:
        return False
    return not argument.suffixes or value.endswith(argument.suffixes)


def _named_path(detail: str, path: str) -> bool:
    return re.search(rf"(?:^|; ){re.escape(path)}: ", detail) is not None


def argument_path_problems(tool: str, args: object, reason: str) -> list[str]:
    """What an ``invalid_arguments`` reason misstates about where the arguments are
    wrong, from the spec (:data:`~agent_evals.gateway_spec.TOOL_SPECS`): each argument the
    call gives whose value the spec refuses is named by its path (``order_id: …``), and
    ``<root>`` is named exactly when the call as a whole is wrong (an argument missing,
    one no schema names, not an object). A tool the spec does not know is not judged."""
    spec = TOOL_SPECS.get(tool)
    detail = reason.partition(f"{tool!r}: ")[2]
    if spec is None or not detail:
        return []
    if isinstance(args, dict):
        names = {a.name for a in spec.arguments}
        whole = any(k not in names for k in args) or any(
            not a.optional and a.name not in args for a in spec.arguments
        )
        wrong = [a.name for a in spec.arguments if a.name in args and not _fits(a, args[a.name])]
    else:
        whole, wrong = True, []
    problems = [
        f"does not name the path {name!r}, whose value the spec refuses"
        for name in wrong
        if not _named_path(detail, name)
    ]
    if whole and not _named_path(detail, ROOT):
        problems.append(f"does not name {ROOT}, though the call as a whole is wrong")
    if not whole and _named_path(detail, ROOT):
        problems.append(
            f"names {ROOT}, though the call gives every argument and no other: an"
            " argument's own error names its path"
        )
    return problems
