"""Where things live: ``[tool.evals]`` of the root ``pyproject.toml``, and the git revision.

The nearest ``pyproject.toml`` holding a ``[tool.evals]`` table, searching upward from the
working directory, is the root; every relative path in it is relative to that file. With
no such file the working directory is the root and the defaults apply.
"""

from __future__ import annotations

import subprocess
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from evals.errors import ConfigError, UsageError
from evals.io.files import not_regular

GATE_CONFIG_NAME = "gate.json"
BASELINE_NAME = "baseline.json"


class ToolEvals(BaseModel):
    """The ``[tool.evals]`` table as written."""

    model_config = ConfigDict(extra="forbid")

    sut: str | None = None
    """Default SUT import path (``package.module:attr``)."""
    cases_dir: str = "cases"
    """Folder of suites (``<suite>.jsonl``) and of ``gate.json``."""
    reports_dir: str = "reports"
    """Folder for reports and ``baseline.json``."""
    traces_dir: str = "traces"
    """Folder for run traces (``<run-id>/runs.jsonl``)."""
    fault_targets: list[str] = []
    """Fault targets besides the roles cases expect dispatched (a component such as an
    outbox); ``evals lint`` knows them."""
    executor: Literal["local", "ray"] = "local"
    """Where runs execute unless ``--executor`` says otherwise: ``local`` (this
    process's event loop) or ``ray`` (a Ray cluster; needs ``supportpilot-evals[ray]``)."""
    power: dict[str, Any] = {}
    """``[tool.evals.power]``: what ``evals power`` mutates and how it judges a mutant
    (validated by :mod:`evals.power.config`, only when that command runs)."""
    suite_options: dict[str, dict[str, StrictStr]] = {}
    """Suite -> the SUT options it runs with (``KEY = "VALUE"``, as ``--sut-option``
    passes them): such a suite is an evaluation of its own (see
    :meth:`EvalsConfig.suites_apart`)."""
    expect_defaults: dict[str, Any] = {}
    """``[tool.evals.expect_defaults]``: expectations every case holds unless it says
    otherwise, such as a budget (``max_tasks = 5``); the core sets none. Read by the
    harness, never by the code under test."""


class EvalsConfig(BaseModel):
    """The resolved configuration: absolute folders and the default SUT."""

    root: Path
    """The folder of the ``pyproject.toml`` read (or the working directory)."""
    sut: str | None
    """Default SUT import path; ``None`` when none is configured."""
    cases_dir: Path
    """Folder of suites."""
    reports_dir: Path
    """Folder of reports."""
    traces_dir: Path
    """Folder of traces."""
    fault_targets: list[str] = []
    """Fault targets besides the dispatched roles, known to ``evals lint``."""
    executor: Literal["local", "ray"] = "local"
    """The default executor (``[tool.evals] executor``)."""
    power: dict[str, Any] = {}
    """``[tool.evals.power]`` as written."""
    source: Path | None = None
    """The file the configuration was read from (``None``: none, the defaults)."""
    suite_options: dict[str, dict[str, str]] = {}
    """Suite -> the SUT options it runs with (``[tool.evals.suite_options]``)."""
    expect_defaults: dict[str, Any] = {}
    """Expectations every case holds unless it says otherwise
    (``[tool.evals.expect_defaults]``; :func:`evals.cases.loader.with_expect_defaults`)."""

    def suite_path(self, suite: str) -> Path:
        """The case file of a suite: ``<cases_dir>/<suite>.jsonl``."""
        return self.cases_dir / f"{suite}.jsonl"

    def suites(self) -> list[str]:
        """Every suite in ``cases_dir``, sorted by name."""
        if not self.cases_dir.is_dir():
            return []
        return sorted(p.stem for p in self.cases_dir.glob("*.jsonl"))

    def suites_apart(self) -> list[str]:
        """The suites that run with SUT options of their own (another brain, a model
        server …), sorted: each is an evaluation apart, never part of "every suite", run
        only when named (``--suite``), with its own baseline (:meth:`baseline_for`)."""
        return sorted(self.suite_options)

    def default_suites(self) -> list[str]:
        """What "every suite" means: the suites in ``cases_dir`` but those apart."""
        return [s for s in self.suites() if s not in self.suite_options]

    def baseline_for(self, suites: list[str]) -> Path:
        """The baseline of an evaluation of ``suites``: ``baseline.json``, or for suites
        apart ``baseline-<suite>.json`` (their options make them another system, whose
        verdicts the others' baseline does not hold)."""
        apart = sorted(s for s in dict.fromkeys(suites) if s in self.suite_options)
        if not apart:
            return self.baseline_path
        return self.reports_dir / f"baseline-{'-'.join(apart)}.json"

    @property
    def gate_config_path(self) -> Path:
        """The committed gate configuration, ``<cases_dir>/gate.json``."""
        return self.cases_dir / GATE_CONFIG_NAME

    @property
    def baseline_path(self) -> Path:
        """The committed baseline, ``<reports_dir>/baseline.json``."""
        return self.reports_dir / BASELINE_NAME


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has ``[tool.evals]``; one
    that is not a regular file (a FIFO, a device) is refused, never skipped for another."""
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        _refuse_special(candidate)
        if candidate.is_file() and _tool_evals(candidate) is not None:
            return candidate
    return None


def _refuse_special(path: Path) -> None:
    """:class:`ConfigError` when ``path`` exists and is not a regular file: a FIFO would
    block the read for ever, a device never end it, and skipping it would read another."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # not there (or unreachable): the search goes on
    problem = not_regular(mode, "a TOML file")
    if problem is not None:
        raise ConfigError(path, problem)


def load_config(start: Path | None = None, *, file: Path | None = None) -> EvalsConfig:
    """Read ``[tool.evals]`` upward from ``start`` (default: the working directory), or
    from ``file`` when given (any TOML file with a ``[tool.evals]`` table: its folder is
    the root)."""
    start = (start or Path.cwd()).resolve()
    if file is not None:
        file = file.resolve()
        _refuse_special(file)
        if not file.is_file():
            raise ConfigError(file, "no such file")
        if _tool_evals(file) is None:
            raise ConfigError(file, "no [tool.evals] table")
    pyproject = file or find_pyproject(start)
    if pyproject is None:
        table, root = ToolEvals(), start
    else:
        raw = _tool_evals(pyproject) or {}
        try:
            table = ToolEvals.model_validate(raw)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "table"
            raise ConfigError(pyproject, f"{where}: {first['msg']}") from e
        root = pyproject.parent
        for suite, options in table.suite_options.items():
            bad = next((key for key in options if not key.isidentifier()), None)
            if bad is not None:
                raise ConfigError(
                    pyproject,
                    f"suite_options.{suite}: option name must be an identifier, got {bad!r}",
                )
    return EvalsConfig(
        root=root,
        sut=table.sut,
        cases_dir=root / table.cases_dir,
        reports_dir=root / table.reports_dir,
        traces_dir=root / table.traces_dir,
        fault_targets=table.fault_targets,
        executor=table.executor,
        power=table.power,
        source=pyproject,
        suite_options=table.suite_options,
        expect_defaults=table.expect_defaults,
    )


def _tool_evals(pyproject: Path) -> dict[str, object] | None:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(pyproject, f"cannot read: {e}") from e
    tool = data.get("tool", {})
    table = tool.get("evals") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def ensure_writable_folder(folder: Path, what: str) -> None:
    """Create ``folder`` if needed and prove a file can be written in it, before any run.

    ``what`` names it in the message ("reports", "traces"). Raises :class:`UsageError`,
    one line naming the folder, when it cannot be created or written to.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A real write, not os.access: that says yes to root even on a read-only mount.
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise UsageError(f"cannot write to the {what} folder {str(folder)!r}: {reason}") from e


def git_revision(cwd: Path | None = None) -> str:
    """The short git revision (``git rev-parse``) of the checkout holding ``cwd``.

    Called once per invocation, never per run; ``"unknown"`` outside a git checkout or
    without git. (No dirty check: it would touch the index, racing other git users.)
    """
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"
