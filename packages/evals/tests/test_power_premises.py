"""evals power: the equivalents file and the premises of its entries. Every premise kind is
shown holding on code where it is true and failing on code where it is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evals.power.equivalents import Equivalent, Premise, parse_equivalents, validate_premise
from evals.power.mutants import PowerError
from evals.power.premises import Project, check, check_all, load_gated_cases

# --- The equivalents file ---------------------------------------------------------------

ANCHOR = "src/bus.py core/NumberReplacer #0: LIMIT = 64000"
FIELDS = {
    "path": '"src/bus.py"',
    "operator": '"core/NumberReplacer"',
    "code": '"LIMIT = 64000"',
    "class": '"equivalent"',
    "reason": '"dead branch"',
    "premise": '{ kind = "claim", claim = "x" }',
}


def toml_entry(**changes: str | None) -> str:
    """One ``[[mutant]]`` of :data:`FIELDS` with ``changes`` (``None`` leaves a key out)."""
    fields = {**FIELDS, **changes}
    return "[[mutant]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items() if v is not None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (toml_entry(), None),
        (toml_entry(**{"class": '"unreachable"'}), None),
        ("# nothing judged yet\n", None),
        (toml_entry(reason='"  "'), "'reason' must be a non-empty"),
        (toml_entry(**{"class": '"maybe"'}), "'class' must be one of"),
        (toml_entry(**{"class": None}), "'class' must be one of"),
        (toml_entry(premise=None), "'premise' must be a table"),
        (toml_entry(premise='{ kind = "claim", text = "x" }'), "claim: unknown field 'text'"),
        (toml_entry(premise='{ kind = "hunch" }'), "unknown kind 'hunch'"),
        (toml_entry(why="1"), "unknown key 'why'"),
        (toml_entry(nth="-1"), "'nth' must be a whole number"),
        (toml_entry(nth="true"), "'nth' must be a whole number"),
        (toml_entry() + toml_entry(), "entry 2: duplicate mutant"),
        (toml_entry(reason='"""a\nb"""'), "must be one line"),
        ('mutant = "x"\n', "array of tables"),
        ("[equivalent]\n", "unknown table 'equivalent'"),
        ("[[mutant]\n", "not valid TOML"),
    ],
)
def test_parse_equivalents(text: str, problem: str | None) -> None:
    if problem is None:
        found = parse_equivalents(text, "eq.toml")
        assert all(e.anchor == ANCHOR and e.reason and e.premise.kind == "claim" for e in found)
        return
    with pytest.raises(PowerError, match=problem) as raised:
        parse_equivalents(text, "eq.toml")
    assert str(raised.value).startswith("eq.toml")
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("premise", "problem"),
    [
        ({"kind": "literal", "file": "a.py", "name": "S", "values": ["a"]}, None),
        ({"kind": "literal", "file": "a.py", "name": "S"}, "missing field 'values'"),
        ({"kind": "literal", "file": "a.py", "name": "S", "values": "a"}, "wrong type"),
        (
            {
                "kind": "literal",
                "file": "a.py",
                "name": "S",
                "values": ["a"],
                "compare": ["==", ">="],
            },
            "needs 'constant'",
        ),
        (
            {
                "kind": "literal",
                "file": "a.py",
                "name": "S",
                "values": ["a"],
                "compare": ["==", "~"],
                "constant": "a",
            },
            "two of",
        ),
        ({"kind": "gated_cases", "field": "faults"}, "exactly one of"),
        (
            {"kind": "gated_cases", "field": "faults", "never_matches": "x", "max_items": 2},
            "exactly one of",
        ),
        ({"kind": "gated_cases", "field": "faults", "never_matches": "("}, "no regular expression"),
        ({"kind": "gated_cases", "field": "faults", "max_items": True}, "wrong type"),
        ({"kind": "source_has", "file": "a.py", "pattern": "["}, "no regular expression"),
        ({"kind": "claim", "claim": "  "}, "is empty"),
        ({"kind": "probe", "name": "p"}, "missing field 'claim'"),
    ],
)
def test_validate_premise(premise: dict[str, Any], problem: str | None) -> None:
    found = validate_premise(premise)
    assert found is None if problem is None else problem in (found or "")


# --- Premises, each kind holding and failing -----------------------------------------------

KINDS_PY = """\
from typing import Literal
Status = Literal["delivered", "rejected"]
Plan = Literal["reissue", "wait"]


class Box:
    size: int
    kind: Literal["a", "b"] = "a"
"""

CODE_PY = """\
def f(a, b, *, c=1):
    return a


def outer():
    f(1, 2, c=3)
    helper()


def helper():
    return 1


class Frozen:
    x: int
    y: str

    def __init__(self):
        self.x = 1


class Other:
    def __init__(self):
        self.y = "other's own y"


def read(d, v):
    d["kept"] = v.size
    return d.get("other")


MAX = 2


class Refused(Exception):
    def __init__(self, role, why):
        super().__init__(f"{role}: {why}")
        self.role = role
        self.why = why


class Denied(Refused):
    pass


def handle():
    try:
        g()
    except (KeyError, Denied) as e:
        print(str(e), repr(e), f"{e}", type(e), isinstance(e, Denied), e.role)
        raise RuntimeError("no") from e
    except Exception as e:
        getattr(e, "role", None)
        raise
"""

BROKEN_PY = """\
def f(a, b, *, c=1):
    return a


def outer():
    f(a=1, b=2)
    helper()


def helper():
    return 1


def elsewhere():
    helper()
    get_approval()


class Frozen:
    x: int
    y: str


def touch(o, d, v):
    o.y = "changed"
    setattr(o, "x", 2)
    return d["kept"], v.threshold


class Refused(Exception):
    def __init__(self, role, why):
        super().__init__(f"{role}: {why}")
        self.why = why


class Denied(Refused):
    pass


def reads():
    try:
        helper()
    except Denied as e:
        return e.why


def reads_by_name():
    try:
        helper()
    except Exception as e:
        return getattr(e, "why")


def hands_on(log):
    try:
        helper()
    except Refused as e:
        log.append(e)
"""


def project(tmp_path: Path, code: str, cases: list[dict[str, Any]] | None = None) -> Project:
    (tmp_path / "src").mkdir(exist_ok=True)
    (tmp_path / "src" / "kinds.py").write_text(KINDS_PY, encoding="utf-8")
    (tmp_path / "src" / "code.py").write_text(code, encoding="utf-8")
    (tmp_path / "src" / "harness.py").write_text("def t():\n    f(a=1, b=2)\n", encoding="utf-8")
    files = sorted((tmp_path / "src").glob("*.py"))
    return Project(tmp_path, files, cases or [])


GATED = [
    {
        "id": "c1",
        "faults": {"order_agent": "inject"},
        "input": {"goal": "短"},
        "world": {"policies": [1, 2]},
    },
    {"id": "c2", "input": {"goal": "x" * 50}},
]
UNGATED_TOO = [
    *GATED,
    {
        "id": "c3",
        "faults": {"r": "flaky:0.3"},
        "input": {"goal": "y" * 500},
        "world": {"policies": [1, 2, 3, 4, 5]},
    },
]

HARNESS = ["src/harness.py"]
TABLE: list[tuple[str, dict[str, Any], str]] = [
    # (sources: "good" or "broken", premise, verdict on the good code; broken code fails)
    (
        "literal",
        {
            "kind": "literal",
            "file": "src/kinds.py",
            "name": "Status",
            "values": ["rejected", "delivered"],
        },
        "holds",
    ),
    (
        "literal-compare",
        {
            "kind": "literal",
            "file": "src/kinds.py",
            "name": "Status",
            "values": ["delivered", "rejected"],
            "compare": ["==", ">="],
            "constant": "rejected",
        },
        "holds",
    ),
    (
        "literal-reaching",
        {
            "kind": "literal",
            "file": "src/kinds.py",
            "name": "Plan",
            "values": ["reissue", "wait"],
            "compare": ["!=", ">"],
            "constant": "reissue",
        },
        "holds",
    ),
    (
        "literal-field",
        {"kind": "literal", "file": "src/kinds.py", "name": "Box.kind", "values": ["a", "b"]},
        "holds",
    ),
    (
        "keyword_always",
        {"kind": "keyword_always", "callable": "f", "keyword": "c", "ignore": HARNESS},
        "holds",
    ),
    (
        "no_keyword",
        {"kind": "no_keyword", "callable": "mod.f", "parameters": ["a", "b"], "ignore": HARNESS},
        "holds",
    ),
    ("never_called", {"kind": "never_called", "callable": "Store.get_approval"}, "holds"),
    (
        "called_only_in",
        {"kind": "called_only_in", "callable": "helper", "functions": ["outer"]},
        "holds",
    ),
    ("attribute_never_read", {"kind": "attribute_never_read", "attribute": "threshold"}, "holds"),
    (
        "never_assigned",
        {"kind": "never_assigned", "file": "src/code.py", "class": "Frozen"},
        "holds",
    ),
    ("key_never_read", {"kind": "key_never_read", "key": "kept"}, "holds"),
    (
        "error_attribute_never_read",
        {
            "kind": "error_attribute_never_read",
            "file": "src/code.py",
            "class": "Refused",
            "attribute": "why",
        },
        "holds",
    ),
    (
        "error_attribute_never_read-within",
        {
            "kind": "error_attribute_never_read",
            "file": "src/code.py",
            "class": "Refused",
            "attribute": "role",
            "within": ["elsewhere"],
        },
        "holds",
    ),
    (
        "source_has",
        {"kind": "source_has", "file": "src/code.py", "pattern": r"\nMAX = 2\n"},
        "holds",
    ),
]


@pytest.mark.parametrize(("name", "premise", "verdict"), TABLE, ids=[t[0] for t in TABLE])
def test_a_premise_holds_on_code_where_it_is_true(
    tmp_path: Path, name: str, premise: dict[str, Any], verdict: str
) -> None:
    assert validate_premise(premise) is None
    kind, fields = premise["kind"], {k: v for k, v in premise.items() if k != "kind"}
    found = check(Premise(kind, fields), project(tmp_path, CODE_PY))
    assert found.verdict == verdict, found.detail


BROKEN: list[tuple[str, dict[str, Any], str]] = [
    (
        "literal-values",
        {"kind": "literal", "file": "src/kinds.py", "name": "Status", "values": ["delivered"]},
        "not ['delivered']",
    ),
    (
        "literal-missing",
        {"kind": "literal", "file": "src/kinds.py", "name": "Nope", "values": ["a"]},
        "no Literal",
    ),
    (
        "literal-compare",
        {
            "kind": "literal",
            "file": "src/kinds.py",
            "name": "Plan",
            "values": ["reissue", "wait"],
            "compare": ["!=", "<"],
            "constant": "reissue",
        },
        "disagree",
    ),
    (
        "literal-reaching",
        {
            "kind": "literal",
            "file": "src/kinds.py",
            "name": "Plan",
            "values": ["reissue", "wait"],
            "compare": ["==", ">="],
            "constant": "reissue",
            "reaching": ["lost"],
        },
        "not a value",
    ),
    ("keyword_always", {"kind": "keyword_always", "callable": "f", "keyword": "c"}, "without c="),
    ("no_keyword", {"kind": "no_keyword", "callable": "f", "parameters": ["a", "b"]}, "passes a="),
    ("never_called", {"kind": "never_called", "callable": "get_approval"}, "calls get_approval"),
    (
        "called_only_in",
        {"kind": "called_only_in", "callable": "helper", "functions": ["outer"]},
        "in elsewhere",
    ),
    (
        "never_called-nothing",
        {"kind": "keyword_always", "callable": "nobody", "keyword": "c"},
        "nothing calls",
    ),
    (
        "attribute_never_read",
        {"kind": "attribute_never_read", "attribute": "threshold"},
        "reads .threshold",
    ),
    (
        "never_assigned",
        {"kind": "never_assigned", "file": "src/code.py", "class": "Frozen"},
        "assigns .y",
    ),
    ("key_never_read", {"kind": "key_never_read", "key": "kept"}, "reads 'kept'"),
    (
        "error_attribute_never_read",
        {
            "kind": "error_attribute_never_read",
            "file": "src/code.py",
            "class": "Refused",
            "attribute": "why",
        },
        "reads .why",
    ),
    (
        "source_has",
        {"kind": "source_has", "file": "src/code.py", "pattern": r"\nMAX = 2\n"},
        "nothing matches",
    ),
]


@pytest.mark.parametrize(
    ("handler", "detail"),
    [
        ("except Denied as e:\n        return e.why", "reads .why"),
        ("except Refused as e:\n        return e.why", "reads .why"),
        ("except (OSError, Exception) as e:\n        return e.why", "reads .why"),
        ("except BaseException as e:\n        return getattr(e, 'why')", "by getattr"),
        ("except OSError:\n        pass\n    except Refused as e:\n        x = [e]", "hands"),
        ("except Refused as e:\n        log(e)", "hands the exception on"),
        ("except Refused as e:\n        return e", "hands the exception on"),
    ],
)
def test_an_error_attribute_read_or_handed_on_is_found(
    tmp_path: Path, handler: str, detail: str
) -> None:
    """Every way of reaching the attribute: the class, its subclass, ``Exception``,
    ``BaseException``, ``getattr``, and the exception handed to other code."""
    code = (
        "class Refused(Exception):\n    pass\n\n\nclass Denied(Refused):\n    pass\n\n\n"
        f"def f():\n    try:\n        g()\n    {handler}\n"
    )
    premise = {"file": "src/code.py", "class": "Refused", "attribute": "why"}
    found = check(Premise("error_attribute_never_read", premise), project(tmp_path, code))
    assert found.verdict == "fails"
    assert detail in found.detail


@pytest.mark.parametrize(
    ("call", "verdict"),
    [("f(1, 2, c=3, **more)", "holds"), ("f(1, 2, **more)", "fails"), ("f(1, 2)", "fails")],
)
def test_keyword_always_with_kwargs(tmp_path: Path, call: str, verdict: str) -> None:
    """``**kwargs`` beside the keyword itself cannot hold it again; alone, it may or not."""
    code = f"def f(a, b, *, c=1, **rest):\n    return a\n\n\ndef g(more):\n    {call}\n"
    premise = {"callable": "f", "keyword": "c", "ignore": HARNESS}
    found = check(Premise("keyword_always", premise), project(tmp_path, code))
    assert found.verdict == verdict, found.detail


def test_an_error_attribute_of_a_class_not_defined_fails(tmp_path: Path) -> None:
    premise = {"file": "src/code.py", "class": "Nowhere", "attribute": "why"}
    found = check(Premise("error_attribute_never_read", premise), project(tmp_path, CODE_PY))
    assert (found.verdict, found.detail) == ("fails", "src/code.py: no class Nowhere")


@pytest.mark.parametrize(("name", "premise", "detail"), BROKEN, ids=[t[0] for t in BROKEN])
def test_a_premise_fails_on_code_where_it_is_false(
    tmp_path: Path, name: str, premise: dict[str, Any], detail: str
) -> None:
    """The positive controls: each check catches the code that breaks its premise."""
    kind, fields = premise["kind"], {k: v for k, v in premise.items() if k != "kind"}
    found = check(Premise(kind, fields), project(tmp_path, BROKEN_PY))
    assert found.verdict == "fails"
    assert detail in found.detail


@pytest.mark.parametrize(
    ("kind", "extra"),
    [("keyword_always", {"keyword": "c"}), ("no_keyword", {"parameters": ["a"]})],
)
def test_a_call_in_a_file_not_ignored_counts(
    tmp_path: Path, kind: str, extra: dict[str, Any]
) -> None:
    """Without ``ignore``, the harness's own call of f breaks the premise (what ignore is for)."""
    found = check(Premise(kind, {"callable": "f", **extra}), project(tmp_path, CODE_PY))
    assert found.verdict == "fails"
    assert "src/harness.py:2" in found.detail


@pytest.mark.parametrize(
    ("premise", "cases", "verdict", "detail"),
    [
        ({"field": "faults", "never_matches": "flaky:"}, GATED, "holds", "2 gated"),
        ({"field": "faults", "never_matches": "flaky:"}, UNGATED_TOO, "fails", "gated case c3"),
        ({"field": "world.policies", "max_items": 4}, GATED, "holds", "2 gated"),
        ({"field": "world.policies", "max_items": 4}, UNGATED_TOO, "fails", "more than 4 items"),
        ({"field": "input.goal", "max_length": 100}, GATED, "holds", "2 gated"),
        ({"field": "input.goal", "max_length": 100}, UNGATED_TOO, "fails", "longer than 100"),
        ({"field": "input.goal", "max_length": 100}, [], "fails", "no gated case"),
    ],
)
def test_gated_cases(
    tmp_path: Path, premise: dict[str, Any], cases: list[dict[str, Any]], verdict: str, detail: str
) -> None:
    found = check(Premise("gated_cases", premise), project(tmp_path, CODE_PY, cases))
    assert found.verdict == verdict
    assert detail in found.detail


@pytest.mark.parametrize(("kind", "verdict"), [("probe", "probe"), ("claim", "unchecked")])
def test_probes_and_claims_are_not_checked_here(tmp_path: Path, kind: str, verdict: str) -> None:
    fields = {"claim": "c", **({"name": "p"} if kind == "probe" else {})}
    assert check(Premise(kind, fields), project(tmp_path, CODE_PY)).verdict == verdict


def test_check_all_keys_by_anchor(tmp_path: Path) -> None:
    entries = [
        Equivalent("a", "r", Premise("claim", {"claim": "c"})),
        Equivalent("b", "r", Premise("never_called", {"callable": "get_approval"})),
    ]
    found = check_all(entries, project(tmp_path, BROKEN_PY))
    assert {k: v.verdict for k, v in found.items()} == {"a": "unchecked", "b": "fails"}


def test_the_gated_cases_leave_out_the_gate_s_excluded_tags(tmp_path: Path) -> None:
    (tmp_path / "gate.json").write_text(json.dumps({"exclude_tags": ["flaky"]}), encoding="utf-8")
    lines = [
        {"id": "a", "tags": ["x"]},
        {"id": "b", "tags": ["flaky"]},
        {"id": "c"},
    ]
    text = "\n".join(json.dumps(c) for c in lines) + "\nnot json\n\n"
    (tmp_path / "s.jsonl").write_text(text, encoding="utf-8")
    assert [c["id"] for c in load_gated_cases(tmp_path)] == ["a", "c"]
    assert load_gated_cases(tmp_path / "none") == []


# --- default_is: a keyword that passes what its default passes ---------------------------

DEFAULTS_PY = """\
from pydantic import BaseModel, Field


class Claim(BaseModel):
    topic: str
    text: str = Field(default="", max_length=40)
    value: str | None = Field(None)
    size: int = 0
    tags: list[str] = Field(default_factory=list)
    needed: str = Field(..., min_length=1)
    shout: bool = not True

    def render(self, sep=", ", *, upper=False):
        return sep


def build(a, b="x", /, c=None, *, d=1.5):
    return a
"""


@pytest.mark.parametrize(
    ("callable_", "parameter", "value", "expected"),
    [
        ("Claim", "text", '""', ("holds", "defaults to ''")),
        ("Claim", "value", "None", ("holds", "defaults to None")),
        ("Claim", "size", "0", ("holds", "defaults to 0")),
        ("Claim.render", "sep", '", "', ("holds", "defaults to ', '")),
        ("Claim.render", "upper", "False", ("holds", "defaults to False")),
        ("build", "b", "'x'", ("holds", "defaults to 'x'")),
        ("build", "c", "None", ("holds", "defaults to None")),
        ("build", "d", "1.5", ("holds", "defaults to 1.5")),
        ("Claim", "text", '"x"', ("fails", "defaults to ''")),
        ("Claim", "size", "False", ("fails", "defaults to 0")),  # equal, not the same type
        ("Claim", "value", '""', ("fails", "defaults to None")),
        ("Claim", "tags", "[]", ("fails", "no literal default")),
        ("Claim", "needed", '""', ("fails", "no literal default")),
        ("Claim", "topic", '""', ("fails", "no literal default")),
        ("Claim", "shout", "False", ("fails", "no literal default")),
        ("Claim", "nope", '""', ("fails", "no parameter or field")),
        ("build", "a", "None", ("fails", "no literal default")),
        ("Missing", "a", "None", ("fails", "no function or class")),
        ("Missing.render", "a", "None", ("fails", "no class Missing")),
        ("Claim", "text", "str()", ("fails", "not a Python literal")),
    ],
)
def test_default_is(
    tmp_path: Path, callable_: str, parameter: str, value: str, expected: tuple[str, str]
) -> None:
    verdict, detail = expected
    premise = {
        "kind": "default_is",
        "file": "src/code.py",
        "callable": callable_,
        "parameter": parameter,
        "value": value,
    }
    assert validate_premise(premise) is None
    fields = {k: v for k, v in premise.items() if k != "kind"}
    found = check(Premise("default_is", fields), project(tmp_path, DEFAULTS_PY))
    assert (found.verdict, detail in found.detail) == (verdict, True), found.detail
