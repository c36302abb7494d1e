"""The import graph: no circle in any package, and `evals` in layers that show its
pipeline (cases -> run -> checks -> metrics -> report -> gate), each importing only from
the layers below it.

Every import counts: top-level, inside functions (lazy), under ``TYPE_CHECKING``, and
``importlib.import_module("…")`` with a literal name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(ROOT.glob("packages/*/src"))

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_text",),
    ("errors",),
    ("io",),
    ("config",),
    ("model",),
    ("otel",),
    ("checks",),
    ("metrics",),
    ("cases",),
    ("log",),
    ("execution",),
    ("gating",),
    ("report",),
    ("evaluation", "pytest_plugin"),
    ("__init__",),
    ("power",),
    ("cli",),
    ("__main__",),
)
"""``evals``' layers, lowest first: the first dotted part below ``evals`` (``__init__`` is
the façade). A module imports from its own layer or lower ones."""
TOP_LEVEL_MAX = 7
"""Modules directly in ``evals/``: the façade, ``__main__``, and a handful of base ones."""


def modules(src: Path) -> dict[str, Path]:
    """Every module under a ``src`` folder, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in src.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The known modules ``name`` imports, however it imports them."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in known else base)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets.add(node.args[0].value)
    return {t for t in targets if t in known and t != name}


def graph(sources: Iterable[Path]) -> dict[str, set[str]]:
    """Module -> the modules it imports, over every ``src`` folder."""
    known: dict[str, Path] = {}
    for src in sources:
        known.update(modules(src))
    return {name: imported(name, path, known) for name, path in known.items()}


def circles(g: Mapping[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(found)


def layer_of(module: str, root: str = "evals") -> str | None:
    """The layer name of a module of ``root`` (``None``: another package)."""
    parts = module.split(".")
    if parts[0] != root:
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def upward(g: Mapping[str, set[str]], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """Every import from a lower layer to a higher one, or from an unplaced module."""
    rank = {name: i for i, names in enumerate(layers) for name in names}
    wrong: list[str] = []
    for module, targets in sorted(g.items()):
        mine = layer_of(module)
        if mine is None:
            continue
        if mine not in rank:
            wrong.append(f"{module}: in no layer")
            continue
        for target in sorted(targets):
            theirs = layer_of(target)
            if theirs is not None and theirs in rank and rank[theirs] > rank[mine]:
                wrong.append(f"{module} ({mine}) imports {target} ({theirs})")
    return wrong


GRAPH = graph(SOURCES)


def test_no_circle_in_any_package() -> None:
    assert circles(GRAPH) == []


def test_evals_imports_only_downwards() -> None:
    assert upward(GRAPH, LAYERS) == []


def test_every_module_of_evals_is_in_a_layer_and_few_at_the_top() -> None:
    evals_modules = {m for m in GRAPH if layer_of(m) is not None}
    placed = {name for names in LAYERS for name in names}
    assert {layer_of(m) for m in evals_modules} == placed
    top = sorted(p.name for p in (ROOT / "packages/evals/src/evals").glob("*.py"))
    assert len(top) <= TOP_LEVEL_MAX, top


# --- Positive controls: the checks above can fail ---------------------------------------


def _tree(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"p/__init__.py": "", "p/a.py": "import p.b\n", "p/b.py": "from p import a\n"}, 1),
        (  # lazy, inside a function
            {
                "p/__init__.py": "",
                "p/a.py": "from p.b import x\n",
                "p/b.py": "def f():\n    from p.a import y\n",
            },
            1,
        ),
        (  # under TYPE_CHECKING, relative
            {
                "p/__init__.py": "",
                "p/a.py": "from .b import x\n",
                "p/b.py": "if TYPE_CHECKING:\n    from .a import y\n",
            },
            1,
        ),
        (  # by name
            {
                "p/__init__.py": "",
                "p/a.py": "import p.b\n",
                "p/b.py": "import importlib\nimportlib.import_module('p.a')\n",
            },
            1,
        ),
        ({"p/__init__.py": "", "p/a.py": "import p.b\n", "p/b.py": "import json\n"}, 0),
    ],
)
def test_a_circle_is_found(tmp_path: Path, files: Mapping[str, str], expected: int) -> None:
    assert len(circles(graph([_tree(tmp_path, files)]))) == expected


@pytest.mark.parametrize(
    ("files", "wrong"),
    [
        (
            {
                "evals/__init__.py": "",
                "evals/model/__init__.py": "",
                "evals/model/case.py": "from evals.report import x\n",
                "evals/report/__init__.py": "",
            },
            1,
        ),
        (
            {
                "evals/__init__.py": "",
                "evals/model/__init__.py": "",
                "evals/report/__init__.py": "",
                "evals/report/html.py": "from evals.model import case\n",
            },
            0,
        ),
        ({"evals/__init__.py": "", "evals/stray.py": ""}, 1),
    ],
)
def test_an_upward_import_is_found(tmp_path: Path, files: Mapping[str, str], wrong: int) -> None:
    assert len(upward(graph([_tree(tmp_path, files)]), LAYERS)) == wrong
