"""The mutation operators ``evals power`` adds to cosmic-ray's own: the regressions a
person makes by leaving something out.

cosmic-ray's core operators change what is there (an operator, a number, a comparison, a
boolean, an exception class); none removes a step. These do, one thing each:

- ``evals/ReplaceReturnValueWithNone``: ``return x`` becomes ``return None`` (a function
  that forgot its result);
- ``evals/RemoveCallStatement``: a call whose value is dropped (``audit.append(…)``,
  ``await bus.publish(…)``) becomes ``pass`` (a side effect forgotten);
- ``evals/RemoveStateUpdate``: an assignment to an attribute or an item, or an augmented
  assignment (``self.count += 1``, ``row["status"] = s``), becomes ``pass`` (a state not
  updated; plain name bindings are left alone: dropping them is a ``NameError``, not a
  regression anyone ships);
- ``evals/RemoveKeywordArgument``: one ``name=value`` of a call is dropped (a setting not
  passed on: the callee's default runs instead);
- ``evals/RemoveRaise``: ``raise …`` becomes ``pass`` (a refusal or a validation lost);
- ``evals/RemoveComprehensionFilter``: a comprehension's ``if`` clause is dropped (a filter
  forgotten);
- ``evals/RemoveDictEntry``: one ``key: value`` of a dict display is dropped (a field a
  payload, a row or a schema forgets);
- ``evals/RemoveCollectionElement``: one element of a list, set or tuple display is dropped
  (an allowlist entry, a status or a column forgotten; ``__all__`` left alone: it only
  changes ``import *``);
- ``evals/RemoveIfStatement``: an ``if`` without ``elif`` or ``else`` becomes ``pass`` (a
  branch or a guard forgotten; ``if TYPE_CHECKING:`` and ``if __name__ == "__main__":``
  left alone: neither runs in the system).

They are registered with cosmic-ray's provider table by :func:`register`, in the process
of ``evals power`` only (no entry point): a project that also runs cosmic-ray itself keeps
its own operator set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import parso
from cosmic_ray import plugins  # type: ignore[import-untyped]
from cosmic_ray.operators.operator import Example, Operator  # type: ignore[import-untyped]
from parso.python.tree import Keyword

PROVIDER = "evals"
"""The provider name: these operators are ``evals/<Name>``."""

Position = tuple[tuple[int, int], tuple[int, int]]


def _pass_for(node: Any) -> Any:
    """A ``pass`` keyword taking ``node``'s place (and its leading whitespace)."""
    return Keyword("pass", node.start_pos, prefix=node.get_first_leaf().prefix)


def _is_call(node: Any) -> bool:
    """``f(…)``, ``a.b(…)`` or ``await f(…)``: an atom with trailers, the last one a call."""
    if node.type not in ("atom_expr", "power"):
        return False
    last = node.children[-1]
    return bool(last.type == "trailer" and last.children[0].value == "(")


class ReplaceReturnValueWithNone(Operator):  # type: ignore[misc]
    """``return x`` -> ``return None``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if node.type == "return_stmt" and len(node.children) == 2:
            value = node.children[1]
            if not (value.type == "keyword" and value.value == "None"):
                yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        value = node.children[1]
        node.children[1] = Keyword("None", value.start_pos, prefix=value.get_first_leaf().prefix)
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("def f():\n    return x + 1\n", "def f():\n    return None\n"),
            Example("def f():\n    return (a,\n            b)\n", "def f():\n    return None\n"),
        )


class _StatementToPass(Operator):  # type: ignore[misc]
    """A statement the subclass :meth:`removes` -> ``pass`` (one mutant per statement)."""

    def removes(self, node: Any) -> bool:
        """Whether ``node`` is a statement this operator removes."""
        raise NotImplementedError

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if self.removes(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        return _pass_for(node)


class RemoveCallStatement(_StatementToPass):
    """A call statement (its value unused) -> ``pass``."""

    def removes(self, node: Any) -> bool:
        return node.parent is not None and node.parent.type == "simple_stmt" and _is_call(node)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("def f():\n    log.append(x)\n", "def f():\n    pass\n"),
            Example("async def f():\n    await bus.put(x)\n", "async def f():\n    pass\n"),
        )


def _assigned_to_state(node: Any) -> bool:
    """``a.b = …``, ``a[k] = …`` or any augmented assignment (``n += 1``)."""
    if node.type != "expr_stmt" or len(node.children) < 3:
        return False
    op = node.children[1]
    if op.type == "operator" and op.value != "=" and op.value.endswith("="):
        return True  # augmented: +=, -=, |=, …
    if node.children[1].type == "annassign":
        return False  # `x: int = 1` declares as well as binds
    targets = node.children[:-1:2]
    return all(
        t.type in ("atom_expr", "power")
        and t.children[-1].type == "trailer"
        and t.children[-1].children[0].value in (".", "[")
        for t in targets
    )


class RemoveStateUpdate(_StatementToPass):
    """An assignment to an attribute or item, or an augmented assignment -> ``pass``."""

    def removes(self, node: Any) -> bool:
        return _assigned_to_state(node)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("def f(self):\n    self.n += 1\n", "def f(self):\n    pass\n"),
            Example("def f(row):\n    row['s'] = 1\n", "def f(row):\n    pass\n"),
            Example("def f(o):\n    o.a = o.b = 2\n", "def f(o):\n    pass\n"),
        )


def _keyword_arguments(trailer: Any) -> list[Any]:
    """The ``name=value`` arguments of a call's trailer, in order."""
    if trailer.type != "trailer" or trailer.children[0].value != "(":
        return []
    inner = trailer.children[1] if len(trailer.children) == 3 else None
    if inner is None:
        return []
    args = inner.children if inner.type == "arglist" else [inner]
    return [
        a
        for a in args
        if a.type == "argument" and len(a.children) == 3 and a.children[1].value == "="
    ]


class RemoveKeywordArgument(Operator):  # type: ignore[misc]
    """One ``name=value`` argument of a call, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for argument in _keyword_arguments(node):
            yield (argument.start_pos, argument.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        dropped = _keyword_arguments(node)[index]
        inner = node.children[1]
        args = inner.children if inner.type == "arglist" else [inner]
        kept = [
            a for a in args if a is not dropped and not (a.type == "operator" and a.value == ",")
        ]
        code = "(" + ", ".join(a.get_code(include_prefix=False) for a in kept) + ")"
        module = parso.parse("_" + code)  # type: ignore[no-untyped-call]
        trailer = module.children[0].children[1]
        trailer.children[0].prefix = node.children[0].prefix
        trailer.parent = node.parent
        return trailer

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("f(a, b=1)\n", "f(a)\n"),
            Example("f(b=1, c=2)\n", "f(c=2)\n"),
            Example("f(b=1, c=2)\n", "f(b=1)\n", occurrence=1),
            Example("f(b=1)\n", "f()\n"),
        )


class RemoveRaise(_StatementToPass):
    """``raise …`` -> ``pass``."""

    def removes(self, node: Any) -> bool:
        bare = node.type == "keyword" and node.value == "raise"  # `raise` alone
        return bool(node.type == "raise_stmt" or (bare and node.parent.type == "simple_stmt"))

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "def f(x):\n    if x:\n        raise E(x)\n", "def f(x):\n    if x:\n        pass\n"
            ),
            Example(
                "try:\n    g()\nexcept E:\n    raise\n", "try:\n    g()\nexcept E:\n    pass\n"
            ),
        )


def _filters(node: Any) -> list[Any]:
    """The ``if`` clauses of a comprehension node (``comp_if``)."""
    if node.type not in ("comp_for", "sync_comp_for"):
        return []
    return [c for c in node.children if c.type == "comp_if"]


class RemoveComprehensionFilter(Operator):  # type: ignore[misc]
    """A comprehension's ``if`` clause, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for clause in _filters(node):
            yield (clause.start_pos, clause.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        dropped = _filters(node)[index]
        node.children = [c for c in node.children if c is not dropped]
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = [a for a in b if a]\n", "y = [a for a in b]\n"),
            Example("y = {a for a in b if a > 1}\n", "y = {a for a in b}\n"),
        )


def _redisplayed(node: Any, kept: list[Any], opener: str, closer: str, tuple_: bool) -> Any:
    """A display of ``kept`` elements (their code without comments) in ``node``'s place,
    parsed by parso so the tree stays one."""
    body = ", ".join(k.get_code(include_prefix=False) for k in kept)
    if tuple_ and len(kept) == 1:
        body += ","
    return _in_place_of(node, opener + body + closer)


def _in_place_of(node: Any, code: str) -> Any:
    """The expression ``code``, parsed by parso, ready to take ``node``'s place."""
    module = parso.parse("_ = " + code)  # type: ignore[no-untyped-call]
    stmt = module.children[0]
    if stmt.type == "simple_stmt":
        stmt = stmt.children[0]
    expression = stmt.children[2]
    expression.get_first_leaf().prefix = node.get_first_leaf().prefix
    expression.parent = node.parent
    return expression


def _dict_entries(node: Any) -> list[tuple[Any, ...]]:
    """The ``key: value`` entries of a dict display ``{…}`` (not a comprehension, not a
    ``**mapping``), each as its (key, colon, value) nodes."""
    if node.type != "atom" or node.children[0].value != "{" or len(node.children) != 3:
        return []
    inner = node.children[1]
    if inner.type != "dictorsetmaker":
        return []
    items = inner.children
    if any(c.type in ("comp_for", "sync_comp_for") for c in items):
        return []
    entries: list[tuple[Any, ...]] = []
    i = 0
    while i < len(items):
        if getattr(items[i], "value", None) == "**":
            i += 3  # `**d` and its comma
            continue
        if i + 2 < len(items) and getattr(items[i + 1], "value", None) == ":":
            entries.append((items[i], items[i + 1], items[i + 2]))
            i += 4
            continue
        return []  # a set display
    return entries


def _dict_parts(node: Any) -> list[tuple[Any, ...]]:
    """Every part of a dict display: ``(key, colon, value)`` or ``(**, mapping)``."""
    items = node.children[1].children
    parts: list[tuple[Any, ...]] = []
    i = 0
    while i < len(items):
        if getattr(items[i], "value", None) == "**":
            parts.append((items[i], items[i + 1]))
            i += 3
        else:
            parts.append((items[i], items[i + 1], items[i + 2]))
            i += 4
    return parts


def _spaced(leaf_or_node: Any) -> str:
    """A part's code without its prefix; a colon followed by a space."""
    code: str = leaf_or_node.get_code(include_prefix=False)
    return code + " " if leaf_or_node.type == "operator" and code == ":" else code


class RemoveDictEntry(Operator):  # type: ignore[misc]
    """One ``key: value`` entry of a dict display, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for key, _, value in _dict_entries(node):
            yield (key.start_pos, value.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        dropped = _dict_entries(node)[index]
        kept = [p for p in _dict_parts(node) if p[0] is not dropped[0]]
        body = ", ".join("".join(_spaced(n) for n in part) for part in kept)
        return _in_place_of(node, "{" + body + "}")

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("x = {'a': 1, 'b': 2}\n", "x = {'b': 2}\n"),
            Example("x = {'a': 1, 'b': 2}\n", "x = {'a': 1}\n", occurrence=1),
            Example("x = {**d, 'a': 1}\n", "x = {**d}\n"),
            Example("x = {'a': 1}\n", "x = {}\n"),
        )


def _all_names(node: Any) -> bool:
    """Whether ``node`` is the value of an ``__all__ = …`` assignment."""
    parent = node.parent
    return bool(
        parent is not None
        and parent.type == "expr_stmt"
        and parent.children[0].type == "name"
        and parent.children[0].value == "__all__"
    )


def _elements(node: Any) -> list[Any]:
    """The elements of a list, set or parenthesised tuple display of two or more (no
    comprehension, no starred element), or none."""
    if node.type != "atom" or len(node.children) != 3:
        return []
    opener, inner = node.children[0].value, node.children[1]
    if opener not in ("[", "(", "{") or _all_names(node):
        return []
    if opener == "{" and inner.type != "dictorsetmaker":
        return []
    if opener != "{" and inner.type != "testlist_comp":
        return []
    items = inner.children
    if any(c.type in ("comp_for", "sync_comp_for", "star_expr") for c in items):
        return []
    if any(getattr(c, "value", None) in (":", "**") for c in items):
        return []  # a dict display
    elements = [c for c in items if not (c.type == "operator" and c.value == ",")]
    return elements if len(elements) >= 2 else []


class RemoveCollectionElement(Operator):  # type: ignore[misc]
    """One element of a list, set or tuple display, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for element in _elements(node):
            yield (element.start_pos, element.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        elements = _elements(node)
        kept = [e for i, e in enumerate(elements) if i != index]
        opener = node.children[0].value
        closer = {"[": "]", "(": ")", "{": "}"}[opener]
        return _redisplayed(node, kept, opener, closer, tuple_=opener == "(")

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("x = ['a', 'b', 'c']\n", "x = ['b', 'c']\n"),
            Example("x = ('a', 'b')\n", "x = ('a',)\n", occurrence=1),
            Example("x = {1, 2}\n", "x = {2}\n"),
        )


_NEVER_RUN = ("TYPE_CHECKING", "__name__")


class RemoveIfStatement(Operator):  # type: ignore[misc]
    """An ``if`` without ``elif`` or ``else`` -> ``pass``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if node.type != "if_stmt" or len(node.children) != 4:
            return
        condition = node.children[1].get_code(include_prefix=False)
        if any(word in condition for word in _NEVER_RUN):
            return
        yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        module = parso.parse("pass\n")  # type: ignore[no-untyped-call]
        stmt = module.children[0]
        stmt.children[0].prefix = node.get_first_leaf().prefix
        stmt.parent = node.parent
        return stmt

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "def f(x):\n    if x:\n        g()\n        h()\n    return x\n",
                "def f(x):\n    pass\n    return x\n",
            ),
            Example("if a: b()\nc()\n", "pass\nc()\n"),
        )


OPERATORS: dict[str, type[Operator]] = {
    op.__name__: op
    for op in (
        ReplaceReturnValueWithNone,
        RemoveCallStatement,
        RemoveStateUpdate,
        RemoveKeywordArgument,
        RemoveRaise,
        RemoveComprehensionFilter,
        RemoveDictEntry,
        RemoveCollectionElement,
        RemoveIfStatement,
    )
}


class OperatorProvider:
    """cosmic-ray's provider protocol: iterate names, look one up."""

    def __iter__(self) -> Iterator[str]:
        return iter(OPERATORS)

    def __getitem__(self, name: str) -> type[Operator]:
        return OPERATORS[name]


def register() -> None:
    """Add these operators to cosmic-ray's table in this process (idempotent)."""
    plugins.OPERATOR_PROVIDERS.setdefault(PROVIDER, OperatorProvider())
