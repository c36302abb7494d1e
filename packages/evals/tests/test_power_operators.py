"""evals power's own mutation operators: what each removes, where it finds nothing to
remove, and that a session holds them beside cosmic-ray's."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray", reason="cosmic-ray is not installed (supportpilot-evals[power])")

from cosmic_ray import plugins
from cosmic_ray.mutating import mutate_code
from evals.power import operators, session
from evals.power.sampling import Scope

EXAMPLES = [
    (name, ex.pre_mutation_code, ex.post_mutation_code, ex.occurrence)
    for name, op in operators.OPERATORS.items()
    for ex in op.examples()
]


@pytest.mark.parametrize(("name", "before", "after", "occurrence"), EXAMPLES)
def test_each_example_mutates_as_stated(
    name: str, before: str, after: str, occurrence: int
) -> None:
    assert mutate_code(before, operators.OPERATORS[name](), occurrence) == after


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("ReplaceReturnValueWithNone", "def f():\n    return None\n"),
        ("ReplaceReturnValueWithNone", "def f():\n    return\n"),
        ("RemoveCallStatement", "y = f(x)\n"),  # the value is used
        ("RemoveCallStatement", "f\n"),  # not a call
        ("RemoveCallStatement", "a.b\n"),  # an attribute, not a call
        ("RemoveCallStatement", "x[0]\n"),  # an item, not a call
        ("RemoveStateUpdate", "x = 1\n"),  # a name binding: dropping it is a NameError
        ("RemoveStateUpdate", "x: int = 1\n"),
        ("RemoveStateUpdate", "f(x).a == 1\n"),  # a comparison, not an assignment
        ("RemoveKeywordArgument", "f(a, *b, **c)\n"),
        ("RemoveKeywordArgument", "f()\n"),
        ("RemoveKeywordArgument", "x = d[k]\n"),
        ("RemoveRaise", "def f():\n    return 1\n"),
        ("RemoveComprehensionFilter", "y = [a for a in b]\n"),
        ("RemoveDictEntry", "y = {**d}\n"),  # an unpacking, not an entry
        ("RemoveDictEntry", "y = {k: v for k, v in d}\n"),
        ("RemoveDictEntry", "y = {a, b}\n"),  # a set
        ("RemoveCollectionElement", "y = [a]\n"),  # one element: nothing left to tell
        ("RemoveCollectionElement", "y = (a)\n"),  # parentheses, not a tuple
        ("RemoveCollectionElement", "y = [a for a in b]\n"),
        ("RemoveCollectionElement", "y = [*a, b]\n"),
        ("RemoveCollectionElement", "__all__ = ['a', 'b']\n"),  # only `import *` reads it
        ("RemoveCollectionElement", "y = {'a': 1, 'b': 2}\n"),  # a dict
        ("RemoveIfStatement", "if a:\n    b()\nelse:\n    c()\n"),
        ("RemoveIfStatement", "if a:\n    b()\nelif c:\n    d()\n"),
        ("RemoveIfStatement", "if TYPE_CHECKING:\n    import x\n"),
        ("RemoveIfStatement", "if __name__ == '__main__':\n    main()\n"),
        ("RemoveBooleanOperand", "y = a & b\n"),  # bitwise, not boolean
        ("RemoveElseBranch", "if a:\n    b()\n"),
        ("RemoveElseBranch", "for a in b:\n    c()\nelse:\n    d()\n"),  # a loop's else
        ("RemoveExceptHandler", "try:\n    f()\nexcept A:\n    g()\n"),  # the only one
        ("RemoveNormalisation", "int(s)\n"),  # a statement: its value is unused
        ("RemoveNormalisation", "y = len(s)\n"),  # a count, not s converted
        ("RemoveNormalisation", "y = normalise(s)\n"),  # the project's own: cannot tell
        ("RemoveNormalisation", "y = int(s, 16)\n"),  # two arguments
        ("RemoveNormalisation", "y = str(*a)\n"),
        ("RemoveNormalisation", "y = sorted(a, key=k)\n"),
        ("RemoveNormalisation", "y = self.strip()\n"),
        ("RemoveNormalisation", "y = s.split()\n"),  # a list, not s rewritten
        ("RemoveNormalisation", "y = await s.strip()\n"),
        ("RemoveSlice", "y = a[0]\n"),  # an index, not a slice
        ("RemoveSlice", "y = d['a:b']\n"),  # a key with a colon in it
        ("RemoveRebinding", "x = y + 1\n"),  # not rebound from itself
        ("RemoveRebinding", "x += 1\n"),  # augmented: RemoveStateUpdate's
        ("RemoveRebinding", "a.x = a.x + 1\n"),  # an attribute: RemoveStateUpdate's
        ("RemoveNot", "y = a is not None\n"),  # a comparison (core operators change it)
        ("RemoveNot", "y = a not in b\n"),
        ("RemoveFormattedValue", "y = 'a{b}'\n"),  # not an f-string
        ("RemoveFormattedValue", "y = f'plain'\n"),
        ("ReplaceFirstWithLast", "y = a[1]\n"),
        ("ReplaceFirstWithLast", "y = a[0:1]\n"),
        ("RemoveGetDefault", "y = d.get(k)\n"),
        ("RemoveGetDefault", "y = d.get(k, default=0)\n"),
        ("RemoveGetDefault", "y = d.pop(k, 0)\n"),
        ("RemoveGetDefault", "y = get(k, 0)\n"),
        ("BroadenExceptHandler", "try:\n    f()\nexcept Exception:\n    g()\n"),  # as broad
        ("BroadenExceptHandler", "try:\n    f()\nexcept BaseException:\n    g()\n"),
        ("BroadenExceptHandler", "try:\n    f()\nexcept:\n    g()\n"),  # bare
        ("SwapArguments", "y = f(a, a)\n"),  # the same code either way
        ("SwapArguments", "y = f(a, b=1)\n"),  # a keyword
        ("SwapArguments", "y = f(*a, b)\n"),
        ("SwapArguments", "y = f(a)\n"),
        ("SwapArguments", "y = f(a, b, c)\n"),
        ("SwapArguments", "y = d[a, b]\n"),  # an index, not a call
        ("BreakAfterFirstPass", "def f(xs):\n    for x in xs:\n        return x\n"),
        ("BreakAfterFirstPass", "for x in xs:\n    if x:\n        f()\n    continue\n"),
        ("BreakAfterFirstPass", "for x in xs:\n    raise E(x)\n"),
        ("BreakAfterFirstPass", "for x in xs: f(x)\n"),  # no block of its own
        ("BreakAfterFirstPass", "while a:\n    f()\n"),  # not a for loop
        ("BreakAfterFirstPass", "y = [f(x) for x in xs]\n"),
        ("EmptyStringLiteral", 'y = ""\n'),  # nothing to lose
        ("EmptyStringLiteral", "y = b''\n"),
        ("EmptyStringLiteral", '"""A docstring."""\n'),
        ("EmptyStringLiteral", 'def f():\n    """Doc."""\n    "also nothing"\n'),
        ("EmptyStringLiteral", 'def f(x: "int") -> "str":\n    pass\n'),  # annotations
        ("EmptyStringLiteral", 'x: Literal["a"] = 1\n'),
        ("EmptyStringLiteral", 'assert x, "why"\n'),  # an assert's message
        ("EmptyStringLiteral", '__all__ = ["a", "b"]\n'),
        ("EmptyStringLiteral", 'T = TypeVar("T")\n'),
        ("EmptyStringLiteral", 'if __name__ == "__main__":\n    main()\n'),
        ("EmptyStringLiteral", 'y = f"{a}"\n'),  # an f-string: RemoveFormattedValue's
        ("ReplaceNoneCheckWithTruth", "y = x is y\n"),
        ("ReplaceNoneCheckWithTruth", "y = x == None\n"),
        ("ReplaceNoneCheckWithTruth", "y = a is None is b\n"),  # a chain
        ("ReplaceAugmentedWithAssignment", "x = 1\n"),
        ("ReplaceAugmentedWithAssignment", "x: int = 1\n"),
        ("ReplaceAugmentedWithAssignment", "y = x == 1\n"),
        ("RemoveWithStatement", "with open(p) as f:\n    g(f)\n"),  # binds a name
        ("RemoveWithStatement", "with a, b as c:\n    g(c)\n"),
        ("RemoveWithStatement", "async def f():\n    async with a:\n        g()\n"),
        ("SwapQuantifier", "y = any\n"),  # not a call
        ("SwapQuantifier", "y = m.max(a)\n"),  # a method, not the builtin
        ("SwapQuantifier", "y = sum(a)\n"),
        ("RemoveContinue", "for x in xs:\n    f(x)\n    continue\n"),  # changes nothing
        ("RemoveContinue", "while a:\n    continue\n"),
    ],
)
def test_nothing_to_remove(name: str, code: str) -> None:
    assert mutate_code(code, operators.OPERATORS[name](), 0) is None


@pytest.mark.parametrize(
    ("name", "code", "count"),
    [
        ("RemoveKeywordArgument", "f(a=1, b=2, c=3)\ng(d=4)\n", 4),
        ("RemoveCallStatement", "f()\ng()\nx = h()\n", 2),
        ("RemoveStateUpdate", "a.x = 1\nb[0] = 2\nn += 1\nm = 3\n", 3),
        ("RemoveRaise", "try:\n    f()\nexcept E:\n    raise\nraise F\n", 2),
        ("ReplaceReturnValueWithNone", "def f():\n    return 1\n    return None\n", 1),
        ("RemoveBooleanOperand", "y = a and b or c\n", 4),  # (a and b) or c: 2 + 2
        ("RemoveElseBranch", "if a:\n    f()\nelif b:\n    g()\nelif c:\n    h()\n", 2),
        ("RemoveFormattedValue", "y = f'{a}{b:{w}}'\n", 2),  # the nested {w} is not one
        ("ReplaceFirstWithLast", "y = a[0] + b[-1]\n", 2),
        ("BroadenExceptHandler", "try:\n    f()\nexcept A:\n    g()\nexcept (B, C):\n    h()\n", 2),
        ("SwapArguments", "y = f(a, g(b, c))\n", 2),
        ("BreakAfterFirstPass", "for a in b:\n    for c in a:\n        f(c)\n    g()\n", 2),
        ("EmptyStringLiteral", 'y = {"a": "b", "c": f("d" "e")}\n', 5),
        ("ReplaceNoneCheckWithTruth", "y = a is None or b is not None\n", 2),
        ("ReplaceAugmentedWithAssignment", "n += 1\nm -= 2\nk = 3\n", 2),
        ("RemoveWithStatement", "with a, b, c:\n    f()\n", 3),
        ("SwapQuantifier", "y = max(any(a), all(b), min(c))\n", 4),
        ("RemoveContinue", "for x in xs:\n    if x:\n        continue\n    f()\n", 1),
    ],
)
def test_one_mutant_per_thing_removed(name: str, code: str, count: int) -> None:
    op = operators.OPERATORS[name]()
    mutants = [mutate_code(code, op, i) for i in range(count + 1)]
    assert all(m is not None and m != code for m in mutants[:count])
    assert mutants[count] is None
    assert len(set(mutants[:count])) == count


def test_a_dropped_argument_keeps_a_multi_line_call_valid() -> None:
    code = "x = f(\n    a,\n    b=g(1,\n          2),  # why\n    c=3,\n)\n"
    got = mutate_code(code, operators.OPERATORS["RemoveKeywordArgument"](), 0)
    assert got is not None
    compile(got, "m.py", "exec")
    assert "b=" not in got and "c=3" in got and "a" in got


@pytest.mark.parametrize(
    ("name", "code"),
    [
        (
            "RemoveDictEntry",
            "x = {\n    'a': 1,  # why\n    **d,\n    'b': [\n        2,\n    ],\n}\n",
        ),
        ("RemoveCollectionElement", "x = (\n    'a',  # one\n    'b',\n)\n"),
        ("RemoveIfStatement", "def f(x):\n    if x:\n        g()\n\n    # later\n    h()\n"),
        ("RemoveBooleanOperand", "y = (\n    a  # first\n    and b\n    and c\n)\n"),
        (
            "RemoveElseBranch",
            "def f(x):\n    if x:\n        g()\n    elif y:  # why\n        h()\n"
            "    else:\n        k()\n    return x\n",
        ),
        (
            "RemoveExceptHandler",
            "def f():\n    try:\n        g()\n    except (A, B):\n        h()\n"
            "    except C as e:  # why\n        k(e)\n    finally:\n        m()\n",
        ),
        ("RemoveNormalisation", "y = sorted(\n    a\n    + b\n)\n"),
        ("RemoveNormalisation", "y = (\n    s.strip()\n    .lower()\n)\n"),
        ("RemoveNot", "if not (\n    a\n    or b\n):\n    f()\n"),
        ("RemoveGetDefault", "y = d.get(\n    'k',\n    [],  # none yet\n)\n"),
    ],
)
def test_every_mutant_of_a_multi_line_display_or_block_compiles(name: str, code: str) -> None:
    op = operators.OPERATORS[name]()
    got = [mutate_code(code, op, i) for i in range(4)]
    made = [g for g in got if g is not None]
    assert made and len(set(made)) == len(made)
    for g in made:
        compile(g, "m.py", "exec")
        assert g != code


def test_registered_beside_cosmic_rays_own_and_used_by_a_session(tmp_path: Path) -> None:
    operators.register()
    operators.register()  # idempotent
    names = plugins.operator_names()
    assert {f"evals/{n}" for n in operators.OPERATORS} <= set(names)
    assert any(n.startswith("core/") for n in names)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "def f(o):\n    o.n += 1\n    log(o, end='')\n    return o\n", encoding="utf-8"
    )
    from cosmic_ray.work_db import use_db

    with use_db(str(tmp_path / "s.sqlite")) as db:
        session.init_session(db, tmp_path, Scope(("pkg",)))
        pop = session.population(db, tmp_path, Scope(("pkg",)), lambda _: None)
    ours = sorted(m.operator for m in pop.candidates if m.operator.startswith("evals/"))
    assert ours == [
        "evals/RemoveCallStatement",
        "evals/RemoveKeywordArgument",
        "evals/RemoveStateUpdate",
        "evals/ReplaceAugmentedWithAssignment",
        "evals/ReplaceReturnValueWithNone",
    ]
