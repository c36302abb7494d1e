"""What Python itself says of the code under test before it runs: the warnings its
compiler raises.

The compiler knows a few classes of mistake no run need reach: an identity test
against a literal (``status is "ok"``, true or false by the accident of interning), an
``assert`` of a tuple (always true), a call of a literal (``"text"()``), an escape
sequence Python does not define. Each is a ``SyntaxWarning`` or a ``DeprecationWarning``
raised while a module is compiled, whether or not any case runs its line. The gate's
``source`` section (``cases/gate.json``) names the folders of the code under test;
every warning their modules raise is a hard finding (``hard.source_warnings_max``).

The modules are compiled from their text, never imported or executed: the code under
review cannot run here, and a stale ``.pyc`` cannot hide a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evals.errors import GateConfigError


@dataclass(frozen=True)
class SourceWarning:
    """One warning the compiler raised for one line of the code under test."""

    path: str
    """The module, relative to the project root."""
    line: int
    """The line it names."""
    category: str
    """``SyntaxWarning``, ``DeprecationWarning``, …"""
    message: str
    """The compiler's own words."""

    def render(self) -> str:
        """``path:line: Category: message``, as Python prints it."""
        return f"{self.path}:{self.line}: {self.category}: {self.message}"


def python_files(paths: Iterable[str], root: Path, gate_config: Path) -> list[Path]:
    """Every ``.py`` module under ``paths`` (folders or modules relative to ``root``),
    sorted; :class:`GateConfigError` naming ``source.paths`` for a path that does not
    exist or holds no module (a typo must not leave the code unchecked)."""
    found: list[Path] = []
    for index, name in enumerate(paths):
        where = root / name
        if where.is_file() and where.suffix == ".py":
            modules = [where]
        elif where.is_dir():
            modules = sorted(p for p in where.rglob("*.py") if p.is_file())
        else:
            modules = []
        if not modules:
            raise GateConfigError(
                gate_config,
                f"source.paths[{index}]: {name!r} is no Python module or folder of them"
                f" under {root}",
            )
        found += modules
    return sorted(dict.fromkeys(found))


def compile_warnings(modules: Iterable[Path], root: Path) -> list[SourceWarning]:
    """The warnings compiling each module raises, in module and line order. A module
    that does not compile at all is a finding too (``SyntaxError``): the gate would
    otherwise judge a system that cannot load."""
    found: list[SourceWarning] = []
    for module in modules:
        shown = _relative(module, root)
        source = module.read_bytes()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                compile(source, str(module), "exec", dont_inherit=True)
            except SyntaxError as e:
                found.append(SourceWarning(shown, e.lineno or 0, "SyntaxError", e.msg))
        for w in caught:
            line = w.lineno if isinstance(w.lineno, int) else 0
            found.append(SourceWarning(shown, line, w.category.__name__, str(w.message)))
    return sorted(found, key=lambda w: (w.path, w.line, w.category, w.message))


def check_sources(paths: Iterable[str], root: Path, gate_config: Path) -> list[SourceWarning]:
    """:func:`compile_warnings` of every module under ``paths``."""
    return compile_warnings(python_files(paths, root, gate_config), root)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
