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

Six more came when every mutant of the first nine had been sampled (session 15): a held-out
figure needs mutants no earlier sample holds, and each is again a slip a person makes:

- ``evals/RemoveBooleanOperand``: one operand of ``and`` / ``or`` is dropped (a condition
  of a guard forgotten, ``x or default`` without its default);
- ``evals/RemoveElseBranch``: one ``elif`` or the ``else`` of an ``if`` is dropped (a case
  forgotten: it falls to the next branch, or to nothing);
- ``evals/RemoveExceptHandler``: one ``except`` clause of a ``try`` holding two or more is
  dropped (an error class no longer handled there);
- ``evals/RemoveNormalisation``: a call that rewrites a value is left out, the value used
  as it came: ``int(s)`` -> ``s``, ``sorted(xs)`` -> ``xs`` for the conversions of
  :data:`CONVERSIONS`, and ``s.strip()`` -> ``s`` for the string and copy methods that
  return a value of the receiver's kind (:data:`NORMALISING_METHODS`);
- ``evals/RemoveSlice``: a slice ``x[a:b]`` is dropped, ``x`` whole (a truncation or a
  window forgotten);
- ``evals/RemoveRebinding``: ``name = …name…`` (a name rebound from its own value,
  ``text = text.strip()``) becomes ``pass`` (a step of a pipeline forgotten; the name keeps
  its earlier value, so nothing is unbound);
- ``evals/RemoveNot``: ``not x`` -> ``x`` (a condition read the wrong way round);
- ``evals/RemoveFormattedValue``: one ``{…}`` field of an f-string is dropped (a fact a
  message, a reply or a key forgets);
- ``evals/ReplaceFirstWithLast``: ``x[0]`` <-> ``x[-1]`` (the first taken for the last:
  the oldest version for the newest, the first match for the last);
- ``evals/RemoveGetDefault``: ``m.get(k, d)`` -> ``m.get(k)`` (a default forgotten: ``None``
  where ``d`` was meant).

Three more came when the held-out 300 of session 16 had left 164 mutants no sample held
(session 17), each a slip of another kind than leaving a step out:

- ``evals/BroadenExceptHandler``: ``except X`` -> ``except Exception`` (a handler catching
  what it should let through: a bug read as an expected failure);
- ``evals/SwapArguments``: ``f(a, b)`` -> ``f(b, a)`` for two positional arguments of
  different code (arguments given in the wrong order);
- ``evals/BreakAfterFirstPass``: a ``break`` after the last statement of a ``for`` loop's
  block (a loop that stops after its first item: the first match taken for all; loops
  whose block ends in ``return``, ``raise``, ``continue`` or ``break`` are left alone).

Six more came when session 19's held-out sample had taken every fresh candidate (session
20), slips of a value or a context rather than of a step:

- ``evals/EmptyStringLiteral``: a string literal -> ``""`` (a key, a status, a message
  lost; docstrings, annotations, assert messages, ``__all__`` and typing names left alone);
- ``evals/ReplaceNoneCheckWithTruth``: ``x is None`` -> ``(not x)``, ``x is not None`` ->
  ``bool(x)`` (an empty value taken for a missing one);
- ``evals/ReplaceAugmentedWithAssignment``: ``n += x`` -> ``n = x`` (an accumulation
  forgotten);
- ``evals/RemoveWithStatement``: one context of a ``with`` dropped (a transaction, a lock
  or a scope forgotten);
- ``evals/SwapQuantifier``: ``any`` <-> ``all``, ``min`` <-> ``max``;
- ``evals/RemoveContinue``: ``continue`` -> ``pass`` (an item that should be skipped goes
  on through the loop).

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
from parso.python.tree import Keyword, String
from parso.python.tree import Operator as Operator_

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


def _operands(node: Any) -> list[Any]:
    """The operands of an ``and`` / ``or`` chain (``and_test`` / ``or_test``), or none."""
    if node.type not in ("and_test", "or_test"):
        return []
    return [c for c in node.children if not (c.type == "keyword" and c.value in ("and", "or"))]


class RemoveBooleanOperand(Operator):  # type: ignore[misc]
    """One operand of an ``and`` / ``or`` chain, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for operand in _operands(node):
            yield (operand.start_pos, operand.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        kept = [o for i, o in enumerate(_operands(node)) if i != index]
        joiner = " and " if node.type == "and_test" else " or "
        return _in_place_of(node, joiner.join(o.get_code(include_prefix=False) for o in kept))

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = a and b\n", "y = b\n"),
            Example("y = a and b and not c\n", "y = a and not c\n", occurrence=1),
            Example("y = x or d\n", "y = x\n", occurrence=1),
            Example("if (a or\n        b):\n    f()\n", "if (b):\n    f()\n"),
        )


def _branches(node: Any) -> list[int]:
    """Where each ``elif`` / ``else`` clause of an ``if`` starts among its children."""
    if node.type != "if_stmt":
        return []
    return [
        i
        for i, c in enumerate(node.children)
        if c.type == "keyword" and c.value in ("elif", "else")
    ]


def _clause_end(children: list[Any], start: int) -> int:
    """The index after the clause starting at ``start`` (its block is its last child)."""
    end = start + 1
    while children[end].type not in ("suite", "simple_stmt"):
        end += 1
    return end + 1


class _ClauseToDrop(Operator):  # type: ignore[misc]
    """A clause of a compound statement (from its keyword to its block) the subclass
    finds with :meth:`clauses`, dropped (one mutant per clause)."""

    def clauses(self, node: Any) -> list[int]:
        """Where each clause this operator drops starts among ``node``'s children."""
        raise NotImplementedError

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        # The children as they are now: cosmic-ray may mutate the node (which replaces its
        # list of children) before it asks for the next position.
        children = getattr(node, "children", [])
        for start in self.clauses(node):
            end = children[_clause_end(children, start) - 1]
            yield (children[start].start_pos, end.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        start = self.clauses(node)[index]
        end = _clause_end(node.children, start)
        node.children = node.children[:start] + node.children[end:]
        return node


class RemoveElseBranch(_ClauseToDrop):
    """One ``elif`` clause or the ``else`` clause of an ``if``, dropped."""

    def clauses(self, node: Any) -> list[int]:
        return _branches(node)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "if a:\n    f()\nelse:\n    g()\nh()\n",
                "if a:\n    f()\nh()\n",
            ),
            Example(
                "if a:\n    f()\nelif b:\n    g()\nelse:\n    h()\n",
                "if a:\n    f()\nelse:\n    h()\n",
            ),
            Example(
                "if a:\n    f()\nelif b:\n    g()\nelse:\n    h()\n",
                "if a:\n    f()\nelif b:\n    g()\n",
                occurrence=1,
            ),
        )


def _handlers(node: Any) -> list[int]:
    """Where each ``except`` clause of a ``try`` holding two or more starts."""
    if node.type != "try_stmt":
        return []
    found = [
        i
        for i, c in enumerate(node.children)
        if c.type == "except_clause" or (c.type == "keyword" and c.value == "except")
    ]
    return found if len(found) >= 2 else []


class RemoveExceptHandler(_ClauseToDrop):
    """One ``except`` clause of a ``try`` with two or more, dropped."""

    def clauses(self, node: Any) -> list[int]:
        return _handlers(node)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "try:\n    f()\nexcept A:\n    g()\nexcept B as e:\n    h(e)\n",
                "try:\n    f()\nexcept B as e:\n    h(e)\n",
            ),
            Example(
                "try:\n    f()\nexcept A:\n    g()\nexcept:\n    h()\nfinally:\n    k()\n",
                "try:\n    f()\nexcept A:\n    g()\nfinally:\n    k()\n",
                occurrence=1,
            ),
        )


NORMALISING_METHODS = frozenset(
    {
        "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title",
        "replace", "removeprefix", "removesuffix", "expandtabs", "copy",
    }
)  # fmt: skip
"""Methods whose result is a value of the receiver's kind, rewritten: leaving one out is a
normalisation forgotten, not a type error."""

CONVERSIONS = frozenset(
    {
        "str", "int", "float", "bool", "Decimal", "abs", "round",
        "sorted", "list", "tuple", "set", "frozenset", "dict",
    }
)  # fmt: skip
"""Builtins (and ``Decimal``) that give their argument back converted, sorted or copied:
leaving one out is a conversion forgotten. A project's own functions of one argument are
left alone: whether one rewrites its argument or computes something else cannot be told
from the call."""


def _value_used(node: Any) -> bool:
    return node.parent is not None and node.parent.type != "simple_stmt"


def _normalised(node: Any) -> Any:
    """What ``node`` is once its normalising call is left out, or ``None``."""
    if node.type not in ("atom_expr", "power") or not _value_used(node):
        return None
    children = node.children
    if children[0].type == "keyword":  # await
        return None
    call = children[-1]
    if call.type != "trailer" or call.children[0].value != "(":
        return None
    if len(children) == 2 and children[0].type == "name":
        if children[0].value not in CONVERSIONS or len(call.children) != 3:
            return None
        argument = call.children[1]
        if argument.type in ("arglist", "argument") or argument.type == "star_expr":
            return None  # several arguments, a keyword, or an unpacking
        return argument
    if len(children) >= 3:
        method = children[-2]
        if (
            method.type == "trailer"
            and method.children[0].value == "."
            and method.children[1].value in NORMALISING_METHODS
        ):
            receiver = children[:-2]
            if (
                len(receiver) == 1
                and receiver[0].type == "name"
                and receiver[0].value
                in (
                    "self",
                    "cls",
                )
            ):
                return None
            return receiver
    return None


class RemoveNormalisation(Operator):  # type: ignore[misc]
    """``int(x)`` -> ``x``; ``s.strip()`` -> ``s`` (:data:`CONVERSIONS`,
    :data:`NORMALISING_METHODS`)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _normalised(node) is not None:
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        kept = _normalised(node)
        if isinstance(kept, list):
            code = "".join(k.get_code(include_prefix=False) for k in kept)
        else:
            code = kept.get_code(include_prefix=False)
        if "\n" in code or _kept_needs_parentheses(node):
            code = "(" + code + ")"
        return _in_place_of(node, code)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = int(s)\n", "y = s\n"),
            Example("y = sorted(a + b)\n", "y = (a + b)\n"),
            Example("y = s.strip().lower()\n", "y = s.strip()\n"),
            Example("y = row['id'].strip()\n", "y = row['id']\n"),
            Example("y = s.replace('a', 'b') + t\n", "y = s + t\n"),
        )


def _kept_needs_parentheses(node: Any) -> bool:
    """Whether the argument kept in ``node``'s place must be parenthesised: anything but
    a name, a number, a string or an atom with trailers."""
    kept = _normalised(node)
    if isinstance(kept, list):
        return False
    return kept.type not in ("name", "number", "string", "atom", "atom_expr", "power", "strings")


def _slices(node: Any) -> list[int]:
    """Where each slice trailer ``[a:b]`` of an atom with trailers sits among its children."""
    if node.type not in ("atom_expr", "power"):
        return []
    return [
        i
        for i, c in enumerate(node.children)
        if c.type == "trailer"
        and c.children[0].value == "["
        and c.children[1].type == "subscript"  # `a[i:j]`; `a[i]` holds the key itself
    ]


class RemoveSlice(Operator):  # type: ignore[misc]
    """A slice ``x[a:b]`` dropped: ``x`` whole."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for i in _slices(node):
            yield (node.children[i].start_pos, node.children[i].end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        drop = _slices(node)[index]
        kept = [c for i, c in enumerate(node.children) if i != drop]
        return _in_place_of(node, "".join(k.get_code(include_prefix=False) for k in kept))

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = text[:200]\n", "y = text\n"),
            Example("y = parts[-3:].copy()\n", "y = parts.copy()\n"),
            Example("y = a[1:][::2]\n", "y = a[1:]\n", occurrence=1),
        )


def _names_in(node: Any) -> set[str]:
    if node.type == "name":
        return {node.value}
    return set().union(*(_names_in(c) for c in getattr(node, "children", [])))


class RemoveRebinding(_StatementToPass):
    """``name = …name…`` -> ``pass``."""

    def removes(self, node: Any) -> bool:
        if node.type != "expr_stmt" or len(node.children) != 3:
            return False
        target, op, value = node.children
        return bool(
            target.type == "name"
            and op.type == "operator"
            and op.value == "="
            and target.value in _names_in(value)
        )

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "def f(text):\n    text = text.strip()\n    return text\n",
                "def f(text):\n    pass\n    return text\n",
            ),
        )


class RemoveNot(Operator):  # type: ignore[misc]
    """``not x`` -> ``x``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if node.type == "not_test":
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        return _in_place_of(node, node.children[1].get_code(include_prefix=False))

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = not a\n", "y = a\n"),
            Example("if a and not (b or c):\n    f()\n", "if a and (b or c):\n    f()\n"),
        )


def _fields(node: Any) -> list[Any]:
    """The replacement fields ``{…}`` of an f-string (not those nested in a format spec)."""
    if node.type != "fstring":
        return []
    return [c for c in node.children if c.type == "fstring_expr"]


class RemoveFormattedValue(Operator):  # type: ignore[misc]
    """One ``{…}`` field of an f-string, dropped."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for f in _fields(node):
            yield (f.start_pos, f.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        dropped = _fields(node)[index]
        node.children = [c for c in node.children if c is not dropped]
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example('y = f"order {oid}: {state}"\n', 'y = f"order : {state}"\n'),
            Example('y = f"{a!r} {b:>3}"\n', 'y = f"{a!r} "\n', occurrence=1),
        )


def _ends(node: Any) -> list[Any]:
    """The ``[0]`` / ``[-1]`` subscripts of an atom with trailers."""
    if node.type not in ("atom_expr", "power"):
        return []
    found = []
    for c in node.children:
        if c.type != "trailer" or c.children[0].value != "[" or len(c.children) != 3:
            continue
        index = c.children[1].get_code(include_prefix=False)
        if index in ("0", "-1"):
            found.append(c)
    return found


class ReplaceFirstWithLast(Operator):  # type: ignore[misc]
    """``x[0]`` -> ``x[-1]`` and ``x[-1]`` -> ``x[0]``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for t in _ends(node):
            yield (t.start_pos, t.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        chosen = _ends(node)[index]
        was = chosen.children[1].get_code(include_prefix=False)
        swapped = "-1" if was == "0" else "0"
        code = "".join(
            ("[" + swapped + "]") if c is chosen else c.get_code(include_prefix=False)
            for c in node.children
        )
        return _in_place_of(node, code)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = rows[0]\n", "y = rows[-1]\n"),
            Example("y = rows[-1].id\n", "y = rows[0].id\n"),
            Example("y = m[0][-1]\n", "y = m[0][0]\n", occurrence=1),
        )


def _get_with_default(node: Any) -> bool:
    """Whether ``node`` is ``….get(key, default)``: a ``get`` attribute then a call of two
    positional arguments."""
    if node.type not in ("atom_expr", "power") or len(node.children) < 3:
        return False
    name, call = node.children[-2], node.children[-1]
    if not (
        name.type == "trailer"
        and name.children[0].value == "."
        and name.children[1].value == "get"
        and call.type == "trailer"
        and call.children[0].value == "("
        and len(call.children) == 3
        and call.children[1].type == "arglist"
    ):
        return False
    args = [a for a in call.children[1].children if a.type != "operator"]
    return len(args) == 2 and all(a.type not in ("argument", "star_expr") for a in args)


class RemoveGetDefault(Operator):  # type: ignore[misc]
    """``m.get(k, d)`` -> ``m.get(k)``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _get_with_default(node):
            yield (node.children[-1].start_pos, node.children[-1].end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        key = node.children[-1].children[1].children[0]
        code = "".join(c.get_code(include_prefix=False) for c in node.children[:-1])
        return _in_place_of(node, code + "(" + key.get_code(include_prefix=False) + ")")

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = d.get(k, 0)\n", "y = d.get(k)\n"),
            Example("y = a.b.get('x', [])\n", "y = a.b.get('x')\n"),
        )


def _caught(node: Any) -> Any:
    """What an ``except X`` / ``except X as e`` clause catches, when it is narrower than
    every exception (not ``Exception``, not ``BaseException``, not ``except*``), or
    ``None``."""
    if node.type != "except_clause" or len(node.children) < 2:
        return None
    caught = node.children[1]
    if caught.type == "operator" or caught.get_code(include_prefix=False) in (
        "Exception",
        "BaseException",
    ):
        return None
    return caught


class BroadenExceptHandler(Operator):  # type: ignore[misc]
    """``except X`` -> ``except Exception``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        caught = _caught(node)
        if caught is not None:
            yield (caught.start_pos, caught.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        caught = _caught(node)
        node.children[1] = _in_place_of(caught, "Exception")
        node.children[1].parent = node
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "try:\n    f()\nexcept KeyError:\n    g()\n",
                "try:\n    f()\nexcept Exception:\n    g()\n",
            ),
            Example(
                "try:\n    f()\nexcept (TypeError, ValueError) as e:\n    g(e)\n",
                "try:\n    f()\nexcept Exception as e:\n    g(e)\n",
            ),
        )


def _two_arguments(node: Any) -> list[Any]:
    """The two positional arguments of a call trailer ``(a, b)`` whose codes differ (no
    keyword, no unpacking), or none."""
    if node.type != "trailer" or node.children[0].value != "(" or len(node.children) != 3:
        return []
    arglist = node.children[1]
    if arglist.type != "arglist":
        return []
    args = [c for c in arglist.children if not (c.type == "operator" and c.value == ",")]
    if len(args) != 2 or any(a.type in ("argument", "star_expr") for a in args):
        return []
    first, second = (a.get_code(include_prefix=False) for a in args)
    return args if first != second else []


class SwapArguments(Operator):  # type: ignore[misc]
    """``f(a, b)`` -> ``f(b, a)``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _two_arguments(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        first, second = _two_arguments(node)
        arglist = node.children[1]
        swapped = {
            id(first): _in_place_of(first, second.get_code(include_prefix=False)),
            id(second): _in_place_of(second, first.get_code(include_prefix=False)),
        }
        arglist.children = [swapped.get(id(c), c) for c in arglist.children]
        for c in arglist.children:
            c.parent = arglist
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("y = f(a, b)\n", "y = f(b, a)\n"),
            Example("y = o.m(x[0], 'k')\n", "y = o.m('k', x[0])\n"),
        )


_FLOW = ("return_stmt", "raise_stmt", "continue_stmt", "break_stmt")


def _loop_body(node: Any) -> Any:
    """The indented block of a ``for`` loop whose last statement lets the loop go on (no
    ``return``, ``raise``, ``continue`` or ``break``: a ``break`` after one would never
    run), or ``None``."""
    if node.type != "for_stmt" or len(node.children) < 6 or node.children[5].type != "suite":
        return None
    last = node.children[5].children[-1]
    inner = last.children[0] if last.type == "simple_stmt" else last
    bare = inner.type == "keyword" and inner.value in ("return", "raise", "continue", "break")
    return None if inner.type in _FLOW or bare else node.children[5]


class BreakAfterFirstPass(Operator):  # type: ignore[misc]
    """``for x in xs: body`` -> ``for x in xs: body; break``."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _loop_body(node) is not None:
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        body = _loop_body(node)
        indent = body.children[1].get_first_leaf().prefix.rsplit("\n", 1)[-1]
        loop = parso.parse(f"for _ in _:\n{indent}break\n")  # type: ignore[no-untyped-call]
        stop = loop.children[0].children[5].children[-1]
        stop.parent = body
        body.children.append(stop)
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "for x in xs:\n    f(x)\ng()\n",
                "for x in xs:\n    f(x)\n    break\ng()\n",
            ),
            Example(
                "def f(xs):\n    for x in xs:\n        # one\n        if x:\n"
                "            g(x)\n    h()\n",
                "def f(xs):\n    for x in xs:\n        # one\n        if x:\n            g(x)\n"
                "        break\n    h()\n",
            ),
        )


# --- session 20: slips of a value or a context (written before any of their mutants ran) ---

_TYPING_CALLS = frozenset({"TypeVar", "NewType", "ParamSpec", "TypeVarTuple", "cast"})
"""Calls whose string argument names a type for the type checker: emptying it breaks the
import (``TypeVar("")``) or changes nothing at run time (``cast``)."""


def _statement_child(node: Any, kinds: tuple[str, ...]) -> tuple[Any, Any] | None:
    """The nearest ancestor of ``node`` of one of ``kinds`` and the child of it that holds
    ``node``, or ``None`` when a statement boundary comes first."""
    child = node
    while child.parent is not None:
        parent = child.parent
        if parent.type in kinds:
            return parent, child
        if parent.type in ("simple_stmt", "suite", "file_input"):
            return None
        child = parent
    return None


def _after(parent: Any, child: Any, value: str) -> bool:
    """Whether ``child`` of ``parent`` comes after the first operator ``value`` in it."""
    seen = False
    for c in parent.children:
        if c is child:
            return seen
        seen = seen or (c.type == "operator" and c.value == value)
    return False


def _in_annotation(node: Any) -> bool:
    """Whether ``node`` is part of an annotation (a parameter's, a return's, an annotated
    assignment's): with postponed evaluation none runs."""
    found = _statement_child(node, ("tfpdef", "annassign", "funcdef"))
    if found is None:
        return False
    parent, child = found
    if parent.type == "tfpdef":
        return True
    if parent.type == "annassign":
        return not _after(parent, child, "=")
    return _after(parent, child, "->") and child.type != "suite"


def _emptiable(node: Any) -> bool:
    """Whether string literal ``node`` holds text whose loss is a regression: not empty,
    not a docstring (a string alone in its statement), not in an annotation, an assert's
    message, ``__all__``, a typing call or a comparison with ``__name__``."""
    if node.type != "string":
        return False
    body = node.value.lstrip("rRbBuU")
    if (body[:3] in ('"""', "'''") and len(body) == 6) or len(body) == 2:
        return False
    held = node.parent if node.parent.type == "strings" else node
    if held.parent is not None and held.parent.type == "simple_stmt":
        return False  # a docstring, or a string statement that does nothing
    if _in_annotation(node):
        return False
    asserted = _statement_child(node, ("assert_stmt",))
    if asserted is not None and _after(asserted[0], asserted[1], ","):
        return False
    stmt = _statement_child(node, ("expr_stmt",))
    if stmt is not None and _all_names(stmt[0].children[-1]):
        return False
    trailer = held.parent
    if trailer is not None and trailer.type in ("trailer", "arglist"):
        call = trailer if trailer.type == "trailer" else trailer.parent
        owner = call.parent if call is not None else None
        if owner is not None and owner.type in ("atom_expr", "power"):
            head = owner.children[0]
            if head.type == "name" and head.value in _TYPING_CALLS:
                return False
    comparison = held.parent
    if comparison is not None and comparison.type == "comparison":
        names = {c.value for c in comparison.children if c.type == "name"}
        if "__name__" in names:
            return False
    return True


class EmptyStringLiteral(Operator):  # type: ignore[misc]
    """``"text"`` -> ``""`` (a key, a status, a message or a word of a reply lost)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _emptiable(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        letters = node.value[: len(node.value) - len(node.value.lstrip("rRbBuU"))]
        quote = node.value[len(letters)]
        return String(letters + quote * 2, node.start_pos, prefix=node.prefix)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example('y = {"status": s}\n', 'y = {"": s}\n'),
            Example("y = f(b'ab', r'\\d')\n", "y = f(b'', r'\\d')\n"),
            Example("y = f(b'ab', r'\\d')\n", "y = f(b'ab', r'')\n", occurrence=1),
            Example('y = ("a"\n     "b")\n', 'y = ("a"\n     "")\n', occurrence=1),
        )


def _none_check(node: Any) -> str | None:
    """``is`` or ``is not`` for a comparison ``x is None`` / ``x is not None``, else
    ``None``."""
    if node.type != "comparison" or len(node.children) != 3:
        return None
    op, right = node.children[1], node.children[2]
    if not (right.type == "keyword" and right.value == "None"):
        return None
    if op.type == "keyword" and op.value == "is":
        return "is"
    if op.type == "comp_op" and [c.value for c in op.children] == ["is", "not"]:
        return "is not"
    return None


class ReplaceNoneCheckWithTruth(Operator):  # type: ignore[misc]
    """``x is None`` -> ``not x``; ``x is not None`` -> ``bool(x)`` (an empty value taken
    for a missing one: ``0``, ``""`` or ``[]`` read as "not given")."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _none_check(node) is not None:
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        left = node.children[0].get_code(include_prefix=False)
        code = f"(not {left})" if _none_check(node) == "is" else f"bool({left})"
        return _in_place_of(node, code)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("if x is None:\n    f()\n", "if (not x):\n    f()\n"),
            Example("y = a.b is not None and c\n", "y = bool(a.b) and c\n"),
        )


class ReplaceAugmentedWithAssignment(Operator):  # type: ignore[misc]
    """``n += x`` -> ``n = x`` (an accumulation forgotten: only the last item counted)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if node.type == "expr_stmt" and len(node.children) == 3:
            op = node.children[1]
            if op.type == "operator" and op.value.endswith("=") and op.value not in ("=", "=="):
                yield (op.start_pos, op.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        op = node.children[1]
        node.children[1] = Operator_("=", op.start_pos, prefix=op.prefix)
        node.children[1].parent = node
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("n += len(x)\n", "n = len(x)\n"),
            Example("self.seen |= {k}\n", "self.seen = {k}\n"),
        )


def _with_items(node: Any) -> list[Any]:
    """The context expressions of a ``with`` none of whose items binds a name (dropping a
    bound one is a ``NameError``), outside ``async with``; ``[]`` otherwise."""
    if node.type != "with_stmt" or (node.parent is not None and node.parent.type == "async_stmt"):
        return []
    items = [c for c in node.children[1:-2] if not (c.type == "operator" and c.value == ",")]
    if any(i.type == "with_item" for i in items):
        return []
    return items


class RemoveWithStatement(Operator):  # type: ignore[misc]
    """One context of a ``with`` dropped: ``with a, b:`` -> ``with b:``, ``with a:`` ->
    ``if True:`` (a transaction, a lock or a scope forgotten; the block runs bare)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        for item in _with_items(node):
            yield (item.start_pos, item.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        items = _with_items(node)
        kept = [i for n, i in enumerate(items) if n != index]
        head = (
            "with " + ", ".join(k.get_code(include_prefix=False) for k in kept)
            if kept
            else "if True"
        )
        suite = node.children[-1].get_code(include_prefix=True)
        block = parso.parse(head + ":" + suite)  # type: ignore[no-untyped-call]
        stmt = block.children[0]
        stmt.get_first_leaf().prefix = node.get_first_leaf().prefix
        stmt.parent = node.parent
        return stmt

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("with lock:\n    f()\ng()\n", "if True:\n    f()\ng()\n"),
            Example(
                "def f():\n    with a(), b:\n        g()\n",
                "def f():\n    with b:\n        g()\n",
            ),
            Example(
                "def f():\n    with a(), b:\n        g()\n",
                "def f():\n    with a():\n        g()\n",
                occurrence=1,
            ),
        )


_SWAPPED_CALLS = {"any": "all", "all": "any", "min": "max", "max": "min"}


def _swappable_call(node: Any) -> Any:
    """The name leaf of a call ``any(…)``, ``all(…)``, ``min(…)`` or ``max(…)``, or
    ``None``."""
    if node.type not in ("atom_expr", "power") or len(node.children) != 2:
        return None
    name, call = node.children
    if name.type != "name" or name.value not in _SWAPPED_CALLS:
        return None
    return name if call.type == "trailer" and call.children[0].value == "(" else None


class SwapQuantifier(Operator):  # type: ignore[misc]
    """``any`` <-> ``all``, ``min`` <-> ``max`` (one taken for all, the least for the
    most)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        name = _swappable_call(node)
        if name is not None:
            yield (name.start_pos, name.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        name, call = _swappable_call(node), node.children[1]
        swapped = _SWAPPED_CALLS[name.value] + call.get_code(include_prefix=False)
        return _in_place_of(node, swapped)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("ok = any(x > 0 for x in xs)\n", "ok = all(x > 0 for x in xs)\n"),
            Example("n = max(a, b)\n", "n = min(a, b)\n"),
        )


def _skip(node: Any) -> bool:
    """Whether ``node`` is a ``continue`` that skips something: not the last statement of
    its loop's own block (there it changes nothing)."""
    if not (node.type == "keyword" and node.value == "continue"):
        return False
    stmt = node.parent
    block = stmt.parent if stmt is not None else None
    if block is None or block.type != "suite" or block.children[-1] is not stmt:
        return True
    return block.parent is None or block.parent.type not in ("for_stmt", "while_stmt")


class RemoveContinue(Operator):  # type: ignore[misc]
    """``continue`` -> ``pass`` (an item that should be skipped goes on through the loop's
    block)."""

    def mutation_positions(self, node: Any) -> Iterator[Position]:
        if _skip(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node: Any, index: int) -> Any:
        assert index == 0
        return _pass_for(node)

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example(
                "for x in xs:\n    if not x:\n        continue\n    f(x)\n",
                "for x in xs:\n    if not x:\n        pass\n    f(x)\n",
            ),
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
        RemoveBooleanOperand,
        RemoveElseBranch,
        RemoveExceptHandler,
        RemoveNormalisation,
        RemoveSlice,
        RemoveRebinding,
        RemoveNot,
        RemoveFormattedValue,
        ReplaceFirstWithLast,
        RemoveGetDefault,
        BroadenExceptHandler,
        SwapArguments,
        BreakAfterFirstPass,
        EmptyStringLiteral,
        ReplaceNoneCheckWithTruth,
        ReplaceAugmentedWithAssignment,
        RemoveWithStatement,
        SwapQuantifier,
        RemoveContinue,
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
