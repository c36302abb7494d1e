"""``[tool.evals.power]``: what ``evals power`` mutates and how it judges one mutant.

It lives in the project's ``pyproject.toml`` next to the rest of ``[tool.evals]`` (or in
any TOML file given with ``--config``, whose folder is then the root). Every path is
relative to the root::

    [tool.evals.power]
    paths = ["src/mypkg"]                    # folders or modules to mutate (required)
    test_command = ["{python}", "-m", "evals", "gate", "--label", "power-{job}"]
    pythonpath = ["src"]                     # globs put first on PYTHONPATH in each copy
    scratch_env = ["MYPKG_DB_DIR"]           # variables set to a folder emptied per mutant
    call_sites = ["src"]                     # where premises look for callers (default: paths)
    equivalents = "power/equivalent.toml"
    ledger = "power/samples.json"
    timeout_s = 60
    label = "power"                          # reports/<label>.md, .json, .sqlite

    [tool.evals.power.exclude]               # left out of the figure, each with why
    "src/mypkg/testing.py" = "a test harness the product never imports"

The test command runs in a copy of the project (its git-tracked and untracked-but-not-
ignored files), once per mutant; it must end as ``evals gate`` does: exit 0 with a
``Gate: PASS`` line, exit 1 with ``Gate: FAIL``. ``{python}`` is this interpreter,
``{job}`` the mutant's job id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from evals.config import EvalsConfig
from evals.power.mutants import PowerError
from evals.power.sampling import Scope

DEFAULT_TEST_COMMAND = ("{python}", "-m", "evals", "gate", "--label", "power-{job}")
PLACEHOLDERS = ("{python}", "{job}")


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paths: list[str] = Field(min_length=1)
    exclude: dict[str, str] = {}
    test_command: list[str] = Field(default=list(DEFAULT_TEST_COMMAND), min_length=1)
    pythonpath: list[str] = []
    scratch_env: list[str] = []
    call_sites: list[str] | None = None
    equivalents: str = "power/equivalent.toml"
    ledger: str = "power/samples.json"
    timeout_s: float = Field(default=60.0, gt=0)
    label: str = Field(default="power", pattern=r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")

    @field_validator("paths", "pythonpath", "call_sites", "scratch_env")
    @classmethod
    def _no_empty(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not v.strip() for v in value):
            raise ValueError("holds an empty string")
        return value

    @field_validator("exclude")
    @classmethod
    def _reasons(cls, value: dict[str, str]) -> dict[str, str]:
        for path, why in value.items():
            if not why.strip() or "\n" in why:
                raise ValueError(f"{path!r}: the reason must be one non-empty line")
        return value


@dataclass(frozen=True)
class PowerConfig:
    """The resolved ``[tool.evals.power]``."""

    root: Path
    """The project root."""
    source: Path
    """The file it was read from."""
    scope: Scope
    """What is mutated (paths and exclusions relative to the root)."""
    test_command: tuple[str, ...]
    """The test command, placeholders unexpanded."""
    pythonpath: tuple[str, ...]
    """Globs, relative to a copy's root, put first on its PYTHONPATH."""
    scratch_env: tuple[str, ...]
    """Variables set to a per-worker folder emptied after each mutant."""
    call_sites: tuple[str, ...]
    """Folders or files where premises look for callers."""
    equivalents: Path
    """The equivalents file."""
    ledger: Path
    """The ledger of samples drawn."""
    timeout_s: float
    """Default seconds per test-command run."""
    label: str
    """Report file name (``<label>.md``, ``.json``, ``.sqlite``)."""
    reports_dir: Path
    """``[tool.evals] reports_dir``: the default report folder."""
    cases_dir: Path
    """``[tool.evals] cases_dir``: the gated cases premises are checked against."""

    def call_site_files(self) -> list[Path]:
        """Every ``.py`` file under :attr:`call_sites`."""
        found: set[Path] = set()
        for entry in self.call_sites:
            for base in sorted(self.root.glob(entry)) if _globby(entry) else [self.root / entry]:
                if base.is_file() and base.suffix == ".py":
                    found.add(base)
                elif base.is_dir():
                    found.update(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)
        return sorted(found)


def _globby(text: str) -> bool:
    return any(c in text for c in "*?[")


def power_config(config: EvalsConfig) -> PowerConfig:
    """The ``[tool.evals.power]`` of ``config``; :class:`PowerError` (one line naming the
    file and the field) when it is missing or malformed, or names a path that is not
    there."""
    source = config.source
    if source is None or not config.power:
        where = source or (config.root / "pyproject.toml")
        raise PowerError(f"{where}: no [tool.evals.power] table: say what to mutate (paths = …)")
    try:
        table = _Table.model_validate(config.power)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "table"
        raise PowerError(f"{source}: [tool.evals.power] {field}: {first['msg']}") from e
    root = config.root
    for path in table.paths:
        if not (root / path).exists():
            raise PowerError(f"{source}: [tool.evals.power] paths: no {path!r} under {root}")
    scope = Scope(
        tuple(_posix(p) for p in table.paths), {_posix(k): v for k, v in table.exclude.items()}
    )
    for path in scope.exclude:
        if not scope.covers(path):
            raise PowerError(
                f"{source}: [tool.evals.power] exclude: {path!r} is under none of the paths"
            )
        if not (root / path).exists():
            raise PowerError(f"{source}: [tool.evals.power] exclude: no {path!r} under {root}")
    unknown = _unknown_placeholders(table.test_command)
    if unknown:
        raise PowerError(
            f"{source}: [tool.evals.power] test_command: unknown placeholder {unknown!r}"
            f" (known: {', '.join(PLACEHOLDERS)})"
        )
    return PowerConfig(
        root=root,
        source=source,
        scope=scope,
        test_command=tuple(table.test_command),
        pythonpath=tuple(table.pythonpath),
        scratch_env=tuple(table.scratch_env),
        call_sites=tuple(table.call_sites if table.call_sites is not None else table.paths),
        equivalents=root / table.equivalents,
        ledger=root / table.ledger,
        timeout_s=table.timeout_s,
        label=table.label,
        reports_dir=config.reports_dir,
        cases_dir=config.cases_dir,
    )


def _posix(path: str) -> str:
    return Path(path).as_posix().rstrip("/")


def _unknown_placeholders(command: list[str]) -> str | None:
    for part in command:
        rest = part
        for known in PLACEHOLDERS:
            rest = rest.replace(known, "")
        if "{" in rest or "}" in rest:
            return part
    return None


def expand(command: tuple[str, ...], values: dict[str, str]) -> list[str]:
    """The test command with its placeholders filled in."""
    out: list[str] = []
    for part in command:
        text = part
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        out.append(text)
    return out


def describe(config: PowerConfig) -> dict[str, Any]:
    """The configuration as the report records it."""
    return {
        "source": str(config.source),
        "paths": list(config.scope.paths),
        "exclude": dict(config.scope.exclude),
        "scope_hash": config.scope.hash,
        "test_command": " ".join(config.test_command),
        "pythonpath": list(config.pythonpath),
        "scratch_env": list(config.scratch_env),
    }
