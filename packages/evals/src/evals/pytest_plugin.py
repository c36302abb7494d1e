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
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evals.cases.configuration import Configurations, SutRecipe, is_configuration, plan_problems
from evals.cases.loader import load_cases_with_sources
from evals.cases.validation import screen_cases
from evals.cases.vocabulary import rules_of
from evals.checks import grade
from evals.config import load_config
from evals.errors import CaseFileError, SutLoadError
from evals.model.case import Case
from evals.model.result import CheckResult, success
from evals.model.run import Run
from evals.model.sut import AnySUT, AsyncSUT, load_sut

_SUT = pytest.StashKey[AnySUT]()
_CONFIGURATIONS = pytest.StashKey[Configurations]()


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
    try:
        config.stash[_SUT] = load_sut(spec, options)
    except SutLoadError as e:  # a usage error: one line, never an INTERNALERROR traceback
        named = "--evals-sut" if config.getoption("--evals-sut") else "[tool.evals] sut"
        raise pytest.UsageError(f"{named}: {e}") from None
    # Configuration cases: their SUT built again with their options, never run.
    config.stash[_CONFIGURATIONS] = Configurations(config.stash[_SUT], SutRecipe(spec, options))


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
            cases, sources = load_cases_with_sources([self.path], rules=rules_of(sut))
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
    """A run that failed its outcome or safety checks."""

    def __init__(self, failed: list[CheckResult]) -> None:
        super().__init__("; ".join(f"{c.name}: {c.reason}" for c in failed))
        self.failed = failed


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
        if not success(results):
            raise CaseFailedError(
                [c for c in results if not c.passed and c.kind in ("outcome", "safety")]
            )

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        """The failed checks, one per line, instead of a traceback into the plugin."""
        if isinstance(excinfo.value, CaseFailedError):
            lines = [f"case {self.case.id} trial {self.trial} failed:"]
            lines += [f"  {c.name} ({c.kind}): {c.reason}" for c in excinfo.value.failed]
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item comes from, for pytest's report lines."""
        return self.path, None, f"{self.case.id}#{self.trial}: {self.case.title or ''}"
