"""The premises of equivalence entries, and how each kind is checked.

A premise is a table ``{kind = "...", ...}``. Most kinds are checked here, from the
project's source (parsed, never imported) and its gated cases; ``probe`` names a check
the project's own tests run (evals cannot know its world model); ``claim`` is a judgment
nothing checks, counted as such in the report.

- ``literal`` (``file``, ``name``, ``values``; optional ``compare``, ``constant``,
  ``reaching``): ``name`` (``Alias`` or ``Class.field``) is a ``Literal[...]`` of exactly
  ``values`` in ``file``; with ``compare`` ([original, mutated] operators), both agree
  against ``constant`` on every value of ``reaching`` (default: all values; ``is`` reads
  as ``==``, the values being interned literals).
- ``keyword_always`` (``callable``, ``keyword``): every call passes ``keyword=``, and
  there is one (a call that also passes ``**kwargs`` counts only when it names
  ``keyword=`` itself: Python refuses a keyword given twice).
- ``no_keyword`` (``callable``, ``parameters``): no call passes one of ``parameters`` by
  name, and there is one.
- ``never_called`` (``callable``): nothing calls it.
- ``called_only_in`` (``callable``, ``functions``): every call sits inside a function (or
  method) of one of these names, and there is one.
- ``attribute_never_read`` (``attribute``): no code reads ``x.attribute``.
- ``never_assigned`` (``file``, ``class``): no code assigns to a field of ``class`` after
  it is built. Hashing is not checked: a mutant that breaks it crashes, and the report
  flags a listed mutant the gate killed.
- ``key_never_read`` (``key``): no code reads ``x["key"]`` or ``x.get("key")``.
- ``error_attribute_never_read`` (``file``, ``class``, ``attribute``): no ``except`` clause
  that can catch ``class`` (it, a base or a subclass, ``Exception``, ``BaseException``)
  reads ``e.attribute`` (or ``getattr(e, "attribute")``), and none hands the caught
  exception on: its name may only be formatted (``str``, ``repr``, an f-string), tested
  (``type``, ``isinstance``), read for another attribute, or raised again. ``within``
  (folders) limits the handlers counted to the code that can name the class (say why in
  the entry: a package that never imports it sees the exception only as an exception).
- ``source_has`` (``file``, ``pattern``): the regular expression matches the file's text.
- ``default_is`` (``file``, ``callable``, ``parameter``, ``value``): in ``file``, the
  parameter of ``callable`` (a function, ``Class.method``, or a class's field: pydantic or
  dataclass, ``name: T = v`` or ``Field(v)`` / ``Field(default=v)``) has the default
  ``value``, a Python literal written as source (``'""'``, ``"None"``, ``"0"``): a call
  that passes exactly that literal for it passes what leaving it out passes. A default
  made by a factory or an expression is never taken for a literal.
- ``gated_cases`` (``field``, dotted, and one of ``never_matches``, a regular expression
  on the value's JSON, ``max_items`` or ``max_length`` of a string): every gated case
  satisfies it (a case without the field does).
- ``probe`` (``name``, ``claim``): the project's tests check it (reported as such).
- ``claim`` (``claim``): unchecked.

Calls are found by the callable's last name (``Store.get_approval`` -> any
``….get_approval(…)``), in the files of the power configuration's ``call_sites``: more
callers than the real ones can only make a premise fail, never hold wrongly. A premise that
scans code may name files to ``ignore`` (a test harness the product never imports, an XML
element's ``.text``): the entry says so where everyone reads it.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from evals.power.equivalents import COMPARE, Equivalent, Premise

Verdict = Literal["holds", "fails", "probe", "unchecked"]
"""``holds``/``fails``: checked here; ``probe``: checked by the project's tests;
``unchecked``: a ``claim``."""


@dataclass(frozen=True)
class Checked:
    """One premise's verdict."""

    verdict: Verdict
    """See :data:`Verdict`."""
    detail: str
    """Why (the first counter-example when it fails)."""


@dataclass
class Project:
    """What premises are checked against: the project's source and its gated cases."""

    root: Path
    """The project root (premise files are relative to it)."""
    call_sites: Sequence[Path]
    """Every Python file whose calls and assignments count."""
    gated_cases: Sequence[Mapping[str, Any]] = ()
    """The cases the gate runs, as plain JSON objects."""
    _trees: dict[Path, ast.Module | None] = field(default_factory=dict)

    def tree(self, path: Path) -> ast.Module | None:
        """The parsed module (``None`` when it cannot be read or parsed)."""
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, SyntaxError):
                self._trees[path] = None
        return self._trees[path]

    @cached_property
    def calls(self) -> list[tuple[Path, ast.Call, str, str | None]]:
        """Every call in the call-site files: (file, node, the callee's last name, the
        innermost function it sits in)."""
        found: list[tuple[Path, ast.Call, str, str | None]] = []

        def visit(path: Path, node: ast.AST, func: str | None) -> None:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                func = node.name
            if isinstance(node, ast.Call):
                name = _last_name(node.func)
                if name is not None:
                    found.append((path, node, name, func))
            for child in ast.iter_child_nodes(node):
                visit(path, child, func)

        for path in self.call_sites:
            tree = self.tree(path)
            if tree is not None:
                visit(path, tree, None)
        return found

    def ignored(self, f: Mapping[str, Any]) -> set[Path]:
        """The files a premise's ``ignore`` names."""
        return {(self.root / name).resolve() for name in f.get("ignore", [])}

    def where(self, path: Path, node: ast.AST) -> str:
        """``file:line`` for messages."""
        relative = path.relative_to(self.root) if path.is_relative_to(self.root) else path
        return f"{relative.as_posix()}:{getattr(node, 'lineno', 0)}"


def _last_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def check(premise: Premise, project: Project) -> Checked:
    """The verdict of one premise (see the module docstring)."""
    f = premise.fields
    try:
        return _CHECKS[premise.kind](f, project)
    except KeyError:
        return Checked("fails", f"unknown premise kind {premise.kind!r}")


def _literal(f: Mapping[str, Any], project: Project) -> Checked:
    path = project.root / f["file"]
    tree = project.tree(path)
    if tree is None:
        return Checked("fails", f"{f['file']}: cannot be read as Python")
    found = _literal_values(tree, f["name"])
    if found is None:
        return Checked("fails", f"{f['file']}: no Literal[...] named {f['name']}")
    values = list(f["values"])
    if sorted(map(repr, found)) != sorted(map(repr, values)):
        return Checked("fails", f"{f['name']} is Literal{found!r}, not {values!r}")
    if "compare" not in f:
        return Checked("holds", f"{f['name']} is Literal{found!r}")
    reaching = list(f.get("reaching", values))
    outside = [v for v in reaching if v not in values]
    if outside:
        return Checked("fails", f"'reaching' holds {outside[0]!r}, not a value of {f['name']}")
    original, mutated = (COMPARE[op] for op in f["compare"])
    constant = f["constant"]
    for value in reaching:
        try:
            same = original(value, constant) == mutated(value, constant)
        except TypeError:
            same = False
        if not same:
            return Checked(
                "fails",
                f"{value!r} {f['compare'][0]} {constant!r} and {value!r} {f['compare'][1]}"
                f" {constant!r} disagree",
            )
    return Checked(
        "holds",
        f"{f['name']} is Literal{found!r}; {f['compare'][0]} and {f['compare'][1]} agree"
        f" against {constant!r} on {reaching!r}",
    )


def _literal_values(tree: ast.Module, name: str) -> list[Any] | None:
    """The values of ``Literal[...]`` assigned to ``name`` (``Alias`` at module level, or
    ``Class.field`` annotated in a class body)."""
    owner, _, attr = name.rpartition(".")
    body: Iterable[ast.stmt] = tree.body
    if owner:
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner]
        if not classes:
            return None
        body = classes[0].body
    for node in body:
        expr: ast.expr | None = None
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == attr for t in node.targets
        ):
            expr = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == attr
        ):
            expr = node.annotation if owner else (node.value or node.annotation)
        if expr is not None:
            return _literal_of(expr)
    return None


def _literal_of(expr: ast.expr) -> list[Any] | None:
    if not (isinstance(expr, ast.Subscript) and _last_name(expr.value) == "Literal"):
        return None
    items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    if not all(isinstance(i, ast.Constant) for i in items):
        return None
    return [i.value for i in items if isinstance(i, ast.Constant)]


def _calls_of(f: Mapping[str, Any], project: Project) -> list[tuple[Path, ast.Call]]:
    return [(path, node) for path, node, _ in _calls_in(f, project)]


def _calls_in(f: Mapping[str, Any], project: Project) -> list[tuple[Path, ast.Call, str | None]]:
    name = str(f["callable"]).rpartition(".")[2]
    ignored = project.ignored(f)
    return [
        (path, node, func)
        for path, node, callee, func in project.calls
        if callee == name and path.resolve() not in ignored
    ]


def _keyword_always(f: Mapping[str, Any], project: Project) -> Checked:
    calls = _calls_of(f, project)
    if not calls:
        return Checked("fails", f"nothing calls {f['callable']}")
    for path, node in calls:
        keywords = {k.arg for k in node.keywords}
        if f["keyword"] not in keywords and None not in keywords:
            return Checked(
                "fails",
                f"{project.where(path, node)} calls {f['callable']} without {f['keyword']}=",
            )
        if None in keywords and f["keyword"] not in keywords:
            return Checked("fails", f"{project.where(path, node)} passes **kwargs: cannot tell")
    return Checked("holds", f"all {len(calls)} call(s) of {f['callable']} pass {f['keyword']}=")


def _no_keyword(f: Mapping[str, Any], project: Project) -> Checked:
    calls = _calls_of(f, project)
    if not calls:
        return Checked("fails", f"nothing calls {f['callable']}")
    banned = set(f["parameters"])
    for path, node in calls:
        named = {k.arg for k in node.keywords}
        hit = sorted(n for n in named & banned if n is not None)
        if hit or None in named:
            what = f"{hit[0]}=" if hit else "**kwargs"
            return Checked("fails", f"{project.where(path, node)} passes {what}")
    return Checked(
        "holds", f"none of {len(calls)} call(s) of {f['callable']} names {sorted(banned)}"
    )


def _never_called(f: Mapping[str, Any], project: Project) -> Checked:
    calls = _calls_of(f, project)
    if calls:
        path, node = calls[0]
        return Checked("fails", f"{project.where(path, node)} calls {f['callable']}")
    return Checked("holds", f"no call of {f['callable']} in {len(project.call_sites)} file(s)")


def _called_only_in(f: Mapping[str, Any], project: Project) -> Checked:
    calls = _calls_in(f, project)
    if not calls:
        return Checked("fails", f"nothing calls {f['callable']}")
    allowed = set(f["functions"])
    for path, node, func in calls:
        if func not in allowed:
            return Checked(
                "fails", f"{project.where(path, node)} calls {f['callable']} in {func or 'module'}"
            )
    return Checked("holds", f"all {len(calls)} call(s) of {f['callable']} are in {sorted(allowed)}")


def _attribute_never_read(f: Mapping[str, Any], project: Project) -> Checked:
    ignored = project.ignored(f)
    for path in project.call_sites:
        tree = project.tree(path) if path.resolve() not in ignored else None
        if tree is None:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == f["attribute"]
                and isinstance(node.ctx, ast.Load)
            ):
                return Checked("fails", f"{project.where(path, node)} reads .{f['attribute']}")
    return Checked("holds", f"no read of .{f['attribute']} in {len(project.call_sites)} file(s)")


def _never_assigned(f: Mapping[str, Any], project: Project) -> Checked:
    tree = project.tree(project.root / f["file"])
    classes = (
        [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == f["class"]]
        if tree
        else []
    )
    if not classes:
        return Checked("fails", f"{f['file']}: no class {f['class']}")
    fields = {
        n.target.id
        for n in classes[0].body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    ignored = project.ignored(f)
    for path in project.call_sites:
        module = project.tree(path) if path.resolve() not in ignored else None
        if module is None:
            continue
        problem = _assignment_to(module, fields, str(f["class"]))
        if problem is not None:
            node, attr = problem
            return Checked("fails", f"{project.where(path, node)} assigns .{attr}")
    return Checked("holds", f"no assignment to the {len(fields)} field(s) of {f['class']}")


def _assignment_to(module: ast.Module, fields: set[str], owner: str) -> tuple[ast.AST, str] | None:
    """The first assignment to one of ``fields`` outside ``owner``'s constructors:
    ``x.f = …``, ``x.f += …``, ``setattr(x, "f", …)``, ``object.__setattr__(x, "f", …)``.
    ``self.f = …`` in another class assigns that class's attribute and is not counted."""

    def visit(node: ast.AST, cls: str | None, func: str | None) -> tuple[ast.AST, str] | None:
        if isinstance(node, ast.ClassDef):
            cls = node.name
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            func = node.name
        constructor = cls == owner and func in ("__init__", "__post_init__")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in fields:
                on_self = isinstance(target.value, ast.Name) and target.value.id == "self"
                if not (on_self and (cls != owner or constructor)):
                    return node, target.attr
        if (
            isinstance(node, ast.Call)
            and _last_name(node.func) in ("setattr", "__setattr__")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in fields
            and not constructor
        ):
            return node, str(node.args[1].value)
        for child in ast.iter_child_nodes(node):
            found = visit(child, cls, func)
            if found is not None:
                return found
        return None

    return visit(module, None, None)


def _key_never_read(f: Mapping[str, Any], project: Project) -> Checked:
    key = f["key"]
    ignored = project.ignored(f)
    for path in project.call_sites:
        tree = project.tree(path) if path.resolve() not in ignored else None
        if tree is None:
            continue
        for node in ast.walk(tree):
            read = (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == key
            ) or (
                isinstance(node, ast.Call)
                and _last_name(node.func) in ("get", "pop")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == key
            )
            if read:
                return Checked("fails", f"{project.where(path, node)} reads {key!r}")
    return Checked("holds", f"no read of {key!r} in {len(project.call_sites)} file(s)")


_ERROR_NAME_USES = frozenset({"str", "repr", "type", "isinstance"})
"""Calls that may take a caught exception without handing it on."""


def _error_family(f: Mapping[str, Any], project: Project) -> set[str] | None:
    """The names of the exception classes whose handlers can receive a ``class`` instance:
    the class, its bases (in its file) and its subclasses (in any call-site file)."""
    tree = project.tree(project.root / f["file"])
    defined = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)} if tree else {}
    if f["class"] not in defined:
        return None
    family = {"Exception", "BaseException"}
    todo = [str(f["class"])]
    while todo:
        name = todo.pop()
        if name in family:
            continue
        family.add(name)
        if name in defined:
            todo.extend(b for b in map(_last_name, defined[name].bases) if b is not None)
    subclasses = {str(f["class"])}
    grew = True
    while grew:
        grew = False
        for path in project.call_sites:
            for node in ast.walk(project.tree(path) or ast.Module(body=[], type_ignores=[])):
                if (
                    isinstance(node, ast.ClassDef)
                    and node.name not in subclasses
                    and any(_last_name(b) in subclasses for b in node.bases)
                ):
                    subclasses.add(node.name)
                    grew = True
    return family | subclasses


def _caught_names(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"BaseException"}
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {n for n in map(_last_name, kinds) if n is not None}


def _error_use(handler: ast.ExceptHandler, attribute: str) -> tuple[ast.AST, str] | None:
    """The first use of the caught exception that reads ``attribute`` or hands it on."""
    parents: dict[ast.AST, ast.AST] = {}
    for statement in handler.body:
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    for statement in handler.body:
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Name) and node.id == handler.name):
                continue
            parent = parents.get(node)
            if isinstance(node.ctx, ast.Store | ast.Del):
                continue
            if isinstance(parent, ast.Attribute):
                if parent.attr == attribute:
                    return parent, f"reads .{attribute}"
                continue
            if isinstance(parent, ast.FormattedValue) or (
                isinstance(parent, ast.Raise) and node in (parent.exc, parent.cause)
            ):
                continue
            if isinstance(parent, ast.Call) and node in parent.args:
                callee = _last_name(parent.func)
                if callee in _ERROR_NAME_USES:
                    continue
                second = parent.args[1] if len(parent.args) > 1 else None
                if callee == "getattr" and node is parent.args[0]:
                    if isinstance(second, ast.Constant) and second.value != attribute:
                        continue
                    return parent, f"reads .{attribute} by getattr"
            return node, "hands the exception on"
    return None


def _error_attribute_never_read(f: Mapping[str, Any], project: Project) -> Checked:
    family = _error_family(f, project)
    if family is None:
        return Checked("fails", f"{f['file']}: no class {f['class']}")
    ignored = project.ignored(f)
    within = [(project.root / folder).resolve() for folder in f.get("within", [])]
    handlers = 0
    for path in project.call_sites:
        counted = not within or any(path.resolve().is_relative_to(w) for w in within)
        tree = project.tree(path) if counted and path.resolve() not in ignored else None
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ExceptHandler) or not _caught_names(node) & family:
                continue
            handlers += 1
            if node.name is None:
                continue
            use = _error_use(node, str(f["attribute"]))
            if use is not None:
                where, what = use
                return Checked("fails", f"{project.where(path, where)} {what}")
    return Checked(
        "holds", f"no handler of the {handlers} that can catch {f['class']} reads .{f['attribute']}"
    )


def _source_has(f: Mapping[str, Any], project: Project) -> Checked:
    try:
        text = (project.root / f["file"]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Checked("fails", f"{f['file']}: cannot be read")
    if re.search(f["pattern"], text) is None:
        return Checked("fails", f"{f['file']}: nothing matches {f['pattern']!r}")
    return Checked("holds", f"{f['file']} matches {f['pattern']!r}")


_NO_DEFAULT = object()
_NO_PARAMETER = object()


def _default_is(f: Mapping[str, Any], project: Project) -> Checked:
    try:
        wanted = ast.literal_eval(f["value"])
    except (ValueError, SyntaxError):
        return Checked("fails", f"value {f['value']!r} is not a Python literal")
    tree = project.tree(project.root / f["file"])
    if tree is None:
        return Checked("fails", f"{f['file']}: cannot be read as Python")
    owner, _, name = f["callable"].rpartition(".")
    scope: Sequence[ast.stmt] = tree.body
    if owner:
        owners = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == owner]
        if not owners:
            return Checked("fails", f"{f['file']}: no class {owner}")
        scope = owners[0].body
    found = [
        n
        for n in scope
        if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
    ]
    if not found:
        return Checked("fails", f"{f['file']}: no function or class {f['callable']}")
    node = found[0]
    default = (
        _field_default(node, f["parameter"])
        if isinstance(node, ast.ClassDef)
        else _parameter_default(node, f["parameter"])
    )
    if default is _NO_PARAMETER:
        return Checked("fails", f"{f['callable']} has no parameter or field {f['parameter']!r}")
    if default is _NO_DEFAULT:
        return Checked("fails", f"{f['callable']}.{f['parameter']} has no literal default")
    if type(default) is not type(wanted) or default != wanted:
        return Checked("fails", f"{f['callable']}.{f['parameter']} defaults to {default!r}")
    return Checked("holds", f"{f['callable']}.{f['parameter']} defaults to {default!r}")


def _literal_default(node: ast.expr | None) -> object:
    if node is None:
        return _NO_DEFAULT
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NO_DEFAULT


def _field_default(cls: ast.ClassDef, name: str) -> object:
    """The literal default of a class-body field ``name`` (``_NO_DEFAULT``: required or
    not a literal; ``_NO_PARAMETER``: no such field)."""
    for stmt in cls.body:
        if not (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.target.id == name
        ):
            continue
        value = stmt.value
        if isinstance(value, ast.Call) and _last_name(value.func) == "Field":
            given = [k.value for k in value.keywords if k.arg == "default"]
            if given:
                return _literal_default(given[0])
            if value.args and not (
                isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis
            ):
                return _literal_default(value.args[0])
            return _NO_DEFAULT
        return _literal_default(value)
    return _NO_PARAMETER


def _parameter_default(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> object:
    """The literal default of parameter ``name`` (``_NO_DEFAULT``: none or not a literal;
    ``_NO_PARAMETER``: no such parameter)."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    pairs = list(zip(positional, [*defaults, *args.defaults], strict=True))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    for arg, default in pairs:
        if arg.arg == name:
            return _literal_default(default)
    return _NO_PARAMETER


def _dig(case: Mapping[str, Any], dotted: str) -> tuple[bool, Any]:
    value: Any = case
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _gated_cases(f: Mapping[str, Any], project: Project) -> Checked:
    if not project.gated_cases:
        return Checked("fails", "no gated case found: nothing to check against")
    for case in project.gated_cases:
        present, value = _dig(case, f["field"])
        if not present:
            continue
        case_id = case.get("id", "?")
        if "never_matches" in f:
            text = json.dumps(value, ensure_ascii=False)
            if re.search(f["never_matches"], text):
                return Checked("fails", f"gated case {case_id}: {f['field']} = {text[:80]}")
        elif "max_items" in f and (
            not isinstance(value, list | dict) or len(value) > f["max_items"]
        ):
            return Checked(
                "fails", f"gated case {case_id}: {f['field']} has more than {f['max_items']} items"
            )
        elif "max_length" in f and (not isinstance(value, str) or len(value) > f["max_length"]):
            return Checked(
                "fails",
                f"gated case {case_id}: {f['field']} is longer than {f['max_length']} characters",
            )
    return Checked("holds", f"{len(project.gated_cases)} gated case(s) checked on {f['field']}")


def _probe(f: Mapping[str, Any], project: Project) -> Checked:
    return Checked("probe", f"the project's tests check probe {f['name']!r}: {f['claim']}")


def _claim(f: Mapping[str, Any], project: Project) -> Checked:
    return Checked("unchecked", str(f["claim"]))


_CHECKS: dict[str, Callable[[Mapping[str, Any], Project], Checked]] = {
    "literal": _literal,
    "keyword_always": _keyword_always,
    "no_keyword": _no_keyword,
    "never_called": _never_called,
    "called_only_in": _called_only_in,
    "attribute_never_read": _attribute_never_read,
    "never_assigned": _never_assigned,
    "key_never_read": _key_never_read,
    "error_attribute_never_read": _error_attribute_never_read,
    "source_has": _source_has,
    "default_is": _default_is,
    "gated_cases": _gated_cases,
    "probe": _probe,
    "claim": _claim,
}


def load_gated_cases(cases_dir: Path) -> list[dict[str, Any]]:
    """The cases ``evals gate`` runs: every line of ``<cases_dir>/*.jsonl`` that is a JSON
    object, less those with a tag ``gate.json`` excludes (none when there is no
    ``gate.json``). Lines that do not parse are left to the gate, which refuses them."""
    excluded: set[str] = set()
    gate_file = cases_dir / "gate.json"
    if gate_file.is_file():
        try:
            excluded = set(
                json.loads(gate_file.read_text(encoding="utf-8")).get("exclude_tags", [])
            )
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            excluded = set()
    found: list[dict[str, Any]] = []
    for path in sorted(cases_dir.glob("*.jsonl")) if cases_dir.is_dir() else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                case = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(case, dict) and not excluded & set(case.get("tags") or []):
                found.append(case)
    return found


def check_all(equivalents: Iterable[Equivalent], project: Project) -> dict[str, Checked]:
    """Every entry's verdict, by anchor."""
    return {e.anchor: check(e.premise, project) for e in equivalents}
