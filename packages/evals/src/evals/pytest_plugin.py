"""A pytest plugin: every (case, trial) of a case file becomes a test item.

Installed with ``supportpilot-evals`` (a ``pytest11`` entry point) and inert until a SUT
is named::

    pytest cases/faq.jsonl --evals-sut my_agent:FaqSUT
    pytest cases/ --evals-sut my_agent:FaqSUT --evals-trials 3 --evals-sut-option model=x

With ``--evals-sut`` (or ``[tool.evals] sut`` plus ``--evals``), pytest collects
``*.jsonl`` files as case files; each item runs the SUT once on one case and trial,
grades the run with every registered check (built-ins and your own, registered on
import of the SUT's module), and fails with the failed checks' reasons. Case files are
validated on collection, with the SUT's ``check_case`` hook: a problem is a collection
error naming the file and line. Items are named ``<case id>#<trial>`` and carry the
case's split and tags in ``user_properties`` (JUnit XML shows them).

Which failed checks fail an item is the gate's choice by default: a check of a kind the
gate treats as hard (the kinds ``hard.newly_failing_checks_max`` of the project's
``gate.json`` lists; without one, outcome, safety and trajectory), so a trajectory
regression the gate blocks is a failed test here too. ``--evals-fail-on`` (or the ini
option ``evals_fail_on``) says otherwise: ``success`` (outcome and safety: a run's
success), or check kinds separated by commas (``outcome``). A failed check of another
kind does not fail the item; it is listed with the failure, or, on an item that passed,
in its ``user_properties`` (``soft_failures``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from evals._text import printable
from evals.cases.configuration import Configurations, SutRecipe, is_configuration, plan_problems
from evals.cases.loader import load_cases_with_sources
from evals.cases.validation import screen_cases
from evals.cases.vocabulary import rules_of
from evals.checks import grade
from evals.config import load_config
from evals.errors import CaseFileError, FileError, SutLoadError
from evals.gating.rules import GateConfig, load_gate_config
from evals.model.case import Case
from evals.model.result import SUCCESS_KINDS, CheckKind, CheckResult, comparison_lines
from evals.model.run import Run
from evals.model.sut import AnySUT, AsyncSUT, load_sut

_SUT = pytest.StashKey[AnySUT]()
_CONFIGURATIONS = pytest.StashKey[Configurations]()
_FAIL_ON = pytest.StashKey[tuple[CheckKind, ...]]()

KINDS: tuple[CheckKind, ...] = get_args(CheckKind)
FAIL_ON_GATE = "gate"
"""``--evals-fail-on gate`` (the default): the check kinds the gate treats as hard."""
FAIL_ON_SUCCESS = "success"
"""``--evals-fail-on success``: outcome and safety, the kinds that decide a run's success."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options (group ``evals``)."""
    group = parser.getgroup("evals", "evaluate an agent on case files (supportpilot-evals)")
    group.addoption(
        "--evals-sut",
        metavar="MODULE:ATTR",
        help="the system under test; collects *.jsonl case files as tests",
    )
    group.addoption(
        "--evals",
        action="store_true",
        help="collect case files with the SUT of [tool.evals] sut in pyproject.toml",
    )
    group.addoption(
        "--evals-sut-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument for the SUT (repeatable)",
    )
    group.addoption(
        "--evals-trials", type=int, default=1, metavar="N", help="trials per case (default 1)"
    )
    fail_on = (
        "which failed checks fail a test: 'gate' (the check kinds the gate treats as hard:"
        " hard.newly_failing_checks_max of the project's gate.json, else outcome, safety and"
        " trajectory), 'success' (outcome and safety only), or kinds separated by commas"
        " (e.g. 'outcome')"
    )
    group.addoption(
        "--evals-fail-on",
        metavar="KINDS",
        default=None,
        help=f"{fail_on}; default: the ini option evals_fail_on, else 'gate'",
    )
    parser.addini("evals_fail_on", help=fail_on, default=FAIL_ON_GATE)


def _sut_spec(config: pytest.Config) -> str | None:
    spec: str | None = config.getoption("--evals-sut")
    if spec or not config.getoption("--evals"):
        return spec
    found = load_config().sut
    if not found:
        raise pytest.UsageError("--evals: no [tool.evals] sut in pyproject.toml; pass --evals-sut")
    return found


def pytest_configure(config: pytest.Config) -> None:
    """Load the SUT once, when the plugin is on."""
    spec = _sut_spec(config)
    if spec is None:
        return
    if config.getoption("--evals-trials") < 1:
        raise pytest.UsageError("--evals-trials must be at least 1")
    options: dict[str, str] = {}
    for item in config.getoption("--evals-sut-option"):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise pytest.UsageError(f"--evals-sut-option {item!r}: expected KEY=VALUE")
        options[key] = value
    config.stash[_FAIL_ON] = failing_kinds(
        config.getoption("--evals-fail-on") or str(config.getini("evals_fail_on"))
    )
    # The folder pytest was started in is importable, as for `evals --sut` (and for
    # `python -m pytest`): `pytest cases.jsonl --evals-sut my_agent:MySUT` finds my_agent.py.
    here = str(config.invocation_params.dir)
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        config.stash[_SUT] = load_sut(spec, options)
    except SutLoadError as e:  # a usage error: one line, never an INTERNALERROR traceback
        named = "--evals-sut" if config.getoption("--evals-sut") else "[tool.evals] sut"
        raise pytest.UsageError(f"{named}: {e}") from None
    # Configuration cases: their SUT built again with their options, never run.
    config.stash[_CONFIGURATIONS] = Configurations(config.stash[_SUT], SutRecipe(spec, options))


def failing_kinds(value: str) -> tuple[CheckKind, ...]:
    """The check kinds whose failure fails a test, from ``--evals-fail-on``: ``gate``
    (the kinds hard in the project's gate config, or in the defaults when it has none),
    ``success`` (outcome and safety), or kinds separated by commas."""
    value = value.strip()
    if value == FAIL_ON_GATE:
        try:
            path = load_config().gate_config_path
            rules = load_gate_config(path) if path.exists() else GateConfig()
        except FileError as e:  # a broken pyproject.toml or gate.json: one line
            raise pytest.UsageError(f"--evals-fail-on gate: {e}") from None
        return rules.hard.hard_kinds
    if value == FAIL_ON_SUCCESS:
        return tuple(k for k in KINDS if k in SUCCESS_KINDS)
    named = [k.strip() for k in value.split(",")]
    unknown = [k for k in named if k not in KINDS]
    if unknown or not named:
        raise pytest.UsageError(
            f"--evals-fail-on {value!r}: expected {FAIL_ON_GATE!r}, {FAIL_ON_SUCCESS!r} or"
            f" check kinds separated by commas ({', '.join(KINDS)})"
        )
    return tuple(k for k in KINDS if k in named)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    """A ``*.jsonl`` file is a case file while the plugin is on."""
    if file_path.suffix == ".jsonl" and _SUT in parent.config.stash:
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    """One case file: an item per (case, trial)."""

    def collect(self) -> Iterator[pytest.Item]:
        """Validate every case (and the SUT's view of it), then yield the items."""
        sut = self.config.stash[_SUT]
        try:
            defaults = load_config().expect_defaults
            cases, sources = load_cases_with_sources(
                [self.path], rules=rules_of(sut), expect_defaults=defaults
            )
        except CaseFileError as e:
            raise self.CollectError(e.render()) from None
        # What the SUT says about a configuration case is its refusal, judged by its checks.
        runs = [case for case in cases if not is_configuration(case)]
        screening = screen_cases(sut, runs, sources)
        recipe = self.config.stash[_CONFIGURATIONS].recipe
        problems = plan_problems(sut, recipe, cases, sources) + screening.problems
        if problems:
            raise self.CollectError("\n".join(p.render() for p in problems))
        trials: int = self.config.getoption("--evals-trials")
        for case in cases:
            for trial in range(trials):
                item = CaseItem.from_parent(
                    self,
                    name=f"{case.id}#{trial}",
                    case=case,
                    trial=trial,
                    crashed=screening.crashed.get(case.id),
                )
                item.user_properties += [("split", case.split), ("tags", ",".join(case.tags))]
                yield item


class CaseFailedError(Exception):
    """A run that failed a check of a kind that fails the test (``--evals-fail-on``)."""

    def __init__(self, failed: list[CheckResult], soft: list[CheckResult] | None = None) -> None:
        super().__init__("; ".join(f"{c.name}: {c.reason}" for c in failed))
        self.failed = failed
        self.soft = soft or []
        """The run's other failed checks: of kinds that do not fail the test."""


class CaseItem(pytest.Item):
    """One trial of one case."""

    def __init__(self, *, case: Case, trial: int, crashed: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.trial = trial
        self.crashed = crashed
        """How the SUT's ``check_case`` hook failed on this case, if it did."""

    def _run(self) -> Run:
        if is_configuration(self.case):
            return self.config.stash[_CONFIGURATIONS].run(self.case, self.trial)
        sut = self.config.stash[_SUT]
        if isinstance(sut, AsyncSUT):
            return asyncio.run(sut.arun(self.case, self.trial))
        return sut.run(self.case, self.trial)

    def runtest(self) -> None:
        """Run the SUT on the case and grade it; fail with the failed checks' reasons."""
        if self.crashed is not None:
            raise RuntimeError(f"the SUT failed before the run: {self.crashed}")
        run = self._run()
        if not isinstance(run, Run):
            raise TypeError(f"the SUT returned {type(run).__name__}, not a Run")
        if run.case_id != self.case.id or run.trial != self.trial:
            run = run.model_copy(update={"case_id": self.case.id, "trial": self.trial})
        results = grade(self.case, run)
        errors = [c for c in results if c.grader_error]
        if errors:
            raise RuntimeError("; ".join(f"grader error in {c.name}: {c.reason}" for c in errors))
        kinds = self.config.stash[_FAIL_ON]
        failed = [c for c in results if not c.passed]
        hard = [c for c in failed if c.kind in kinds]
        soft = [c for c in failed if c.kind not in kinds]
        if hard:
            raise CaseFailedError(hard, soft)
        if soft:  # shown where --junitxml and report hooks look, without failing the test
            self.user_properties.append(
                ("soft_failures", "; ".join(f"{c.name} ({c.kind}): {c.reason}" for c in soft))
            )

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        """The failed checks, one per line, instead of a traceback into the plugin."""
        if isinstance(excinfo.value, CaseFailedError):
            lines = [f"case {self.case.id} trial {self.trial} failed:"]
            for c in excinfo.value.failed:
                lines.append(f"  {c.name} ({c.kind}): {c.reason}")
                lines += [f"    {printable(line)}" for line in comparison_lines(c)]
            if excinfo.value.soft:
                lines.append("also failed (kinds that do not fail a test, see --evals-fail-on):")
                for c in excinfo.value.soft:
                    lines.append(f"  {c.name} ({c.kind}): {c.reason}")
                    lines += [f"    {printable(line)}" for line in comparison_lines(c)]
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item comes from, for pytest's report lines."""
        return self.path, None, f"{self.case.id}#{self.trial}: {self.case.title or ''}"
