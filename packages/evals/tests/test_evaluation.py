"""The library entry point: evals.evaluate and evals.gate, as a user's script calls them."""

from __future__ import annotations

import io
import json
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

import evals
import fake_suts
from evals.checks import CheckOutput
from evals.errors import CaseFileError, SutLoadError
from evals.gating.baseline import build_baseline, write_baseline
from evals.log.traces import RunMeta
from evals.model.case import Case
from evals.model.run import Run

CASES = Path(__file__).parent / "fixtures" / "cases"


class OnlyReplies:
    """A check passed to evaluate directly, registered nowhere."""

    name = "only_replies"
    kind = "outcome"

    def __call__(self, case: Case, run: Run) -> CheckOutput:
        return run.outcome == "replied" or (False, f"outcome {run.outcome}")


def test_evaluate_grades_with_the_checks_given_and_nothing_else(tmp_path: Path) -> None:
    report = evals.evaluate(CASES / "alpha.jsonl", fake_suts.EchoSUT(), checks=[OnlyReplies()])
    assert report.complete and len(report.results) == report.meta.planned_runs
    assert {c.name for r in report.results for c in r.checks} == {"only_replies"}
    replied = [r.case_id for r in report.results if r.outcome == "replied"]
    assert sorted(r.case_id for r in report.results if r.success) == sorted(replied)
    out = io.StringIO()
    report.print(out)
    assert out.getvalue().startswith("Evals report: evaluate")
    paths = report.write(tmp_path / "reports")
    assert [p.name for p in paths] == [
        "evaluate.json",
        "evaluate.md",
        "evaluate.junit.xml",
        "evaluate.html",
    ]
    assert json.loads(paths[0].read_text())["graded_runs"] == len(report.results)


def test_evaluate_takes_loaded_cases_a_sut_spec_and_trials() -> None:
    cases = evals.load_cases([CASES / "alpha.jsonl"])[:2]
    report = evals.evaluate(cases, "fake_suts:EchoSUT", trials=3, label="mine")
    assert [r.label for r in report.results] == [f"{c.id}#{t}" for c in cases for t in range(3)]
    assert report.meta.label == "mine" and report.meta.sut == "fake_suts:EchoSUT"


def test_evaluate_refuses_what_the_sut_cannot_run_before_any_run() -> None:
    fake_suts.CheckingSUT.runs = 0
    bad = Case.model_validate(
        {
            "id": "w1",
            "split": "dev",
            "input": {"goal": "g"},
            "world": {"stok": 1},
            "expect": {"outcome": "replied"},
        }
    )
    with pytest.raises(CaseFileError, match=r"world\.stok"):
        evals.evaluate([bad], fake_suts.CheckingSUT())
    assert fake_suts.CheckingSUT.runs == 0


def test_gate_a_report_against_its_own_baseline_and_a_broken_run(tmp_path: Path) -> None:
    report = evals.evaluate(CASES / "alpha.jsonl", fake_suts.EchoSUT())
    baseline = build_baseline(report.results, RunMeta(label="base"), exclude_tags=["flaky"])
    path = tmp_path / "baseline.json"
    write_baseline(path, baseline)
    assert evals.gate(report, path).passed
    broken = evals.evaluate(CASES / "alpha.jsonl", fake_suts.RaisingSUT())
    verdict = evals.gate(broken, baseline)
    assert not verdict.passed and verdict.newly_failing
    assert verdict.render().startswith("Gate: FAIL")


def test_evaluate_with_a_baseline_fails_the_cases_it_ran_that_the_sut_now_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = evals.load_cases([CASES / "alpha.jsonl"])
    report = evals.evaluate(cases, fake_suts.EchoSUT())
    baseline = build_baseline(report.results, RunMeta(label="base"), ["flaky"], cases)
    refused = next(c.id for c in cases if c.id in baseline.case_success)
    monkeypatch.setenv("FAKE_SUT_REFUSE", refused)
    with pytest.raises(CaseFileError, match="unknown fault"):  # no baseline: the case's fault
        evals.evaluate(cases, fake_suts.RefusingSUT())
    now = evals.evaluate(cases, fake_suts.RefusingSUT(), baseline=baseline)
    failed = {r.case_id for r in now.results if not r.success}
    assert failed == {refused}
    verdict = evals.gate(now, baseline)
    assert not verdict.passed and refused in verdict.render()


TOY_CASE = {
    "id": "faq1",
    "split": "train",
    "input": {"question": "When do you open?"},
    "expect": {"outcome": "answered"},
}
"""A FAQ agent's case: a split, an input and an outcome of its own words."""


def test_evaluate_takes_a_plain_function_and_another_project_s_vocabulary() -> None:
    def answer(case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="answered", reply="At 9.")

    report = evals.evaluate([Case.model_validate(TOY_CASE)], answer, trials=2)
    assert [r.success for r in report.results] == [True, True]
    assert report.meta.sut == f"{__name__}:{answer.__qualname__}"  # its import path
    assert report.metrics.by_split["train"].n == 2


def test_evaluate_takes_a_coroutine_function() -> None:
    async def answer(case: Case, trial: int) -> Run:
        return Run(case_id=case.id, trial=trial, outcome="refused")

    report = evals.evaluate([Case.model_validate(TOY_CASE)], answer)
    assert [r.success for r in report.results] == [False]
    assert "expected outcome 'answered', got 'refused'" in report.results[0].checks[0].reason


def test_a_declared_vocabulary_refuses_the_toy_before_any_run() -> None:
    calls: list[str] = []

    class Strict:
        case_rules = evals.CaseRules(splits=("dev", "test"), outcomes=("replied",))

        def run(self, case: Case, trial: int) -> Run:
            calls.append(case.id)
            return Run(case_id=case.id, trial=trial, outcome="replied")

    with pytest.raises(CaseFileError) as info:
        evals.evaluate([Case.model_validate(TOY_CASE)], Strict())
    assert info.value.lines() == [
        "<case faq1>:0: split: unknown split 'train'; expected one of 'dev', 'test'",
        "<case faq1>:0: expect.outcome: unknown outcome 'answered'; expected one of 'replied'",
    ]
    assert calls == []


@pytest.mark.parametrize("target", [42, "not a spec", None])
def test_anything_else_is_no_sut(target: object) -> None:
    with pytest.raises((TypeError, SutLoadError)):
        evals.evaluate([Case.model_validate(TOY_CASE)], target)  # type: ignore[arg-type]


STOPS = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture
def handlers() -> Iterator[dict[signal.Signals, object]]:
    """The stop signals' handlers before the test, restored after it whatever happens."""
    before = {s: signal.getsignal(s) for s in STOPS}
    yield before
    for s, handler in before.items():
        signal.signal(s, handler)  # type: ignore[arg-type]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", STOPS)
@pytest.mark.parametrize("hold", [False, True])
def test_a_stop_signal_ends_the_evaluation_with_the_runs_that_finished(
    handlers: dict[signal.Signals, object], signum: signal.Signals, hold: bool, tmp_path: Path
) -> None:
    cases = evals.load_cases([CASES / "alpha.jsonl"])
    sut = fake_suts.RecordingSUT(interrupt_after=3, signum=signum)
    plan = evals.plan(cases, sut, evals.RunOptions(concurrency=1))
    report = evals.execute(plan, hold_signals=hold, traces=tmp_path)
    assert not report.complete and report.meta.stop_signal == signum.name
    assert 0 < len(report.results) < len(cases)
    assert report.traces == tmp_path / report.meta.run_id
    now = {s: signal.getsignal(s) for s in STOPS}
    assert now == ({s: signal.SIG_IGN for s in STOPS} if hold else handlers)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_without_stop_signals_the_signals_are_the_callers(
    handlers: dict[signal.Signals, object],
) -> None:
    caught: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: caught.append(signum))
    cases = evals.load_cases([CASES / "alpha.jsonl"])
    sut = fake_suts.RecordingSUT(interrupt_after=2, signum=signal.SIGTERM)
    report = evals.execute(evals.plan(cases, sut), stop_signals=False)
    assert report.complete and caught == [signal.SIGTERM]


def test_evaluate_with_traces_keeps_every_run_and_its_page_shows_them(tmp_path: Path) -> None:
    report = evals.evaluate(CASES / "alpha.jsonl", fake_suts.EchoSUT(), traces=tmp_path / "t")
    assert report.traces is not None
    runs = [json.loads(line) for line in (report.traces / "runs.jsonl").read_text().splitlines()]
    assert sorted((r["case_id"], r["trial"]) for r in runs) == sorted(
        (r.case_id, r.trial) for r in report.results
    )
    html = next(p for p in report.write(tmp_path / "reports") if p.suffix == ".html")
    assert "No trace recorded" not in html.read_text(encoding="utf-8")
    untraced = evals.evaluate(CASES / "alpha.jsonl", fake_suts.EchoSUT())
    page = next(p for p in untraced.write(tmp_path / "plain") if p.suffix == ".html")
    assert "No trace recorded" in page.read_text(encoding="utf-8")


def test_make_baseline_keeps_the_fingerprints_of_the_gated_cases_only() -> None:
    files = [CASES / "alpha.jsonl", CASES / "beta.jsonl"]
    report = evals.evaluate(files, fake_suts.EchoSUT())
    base = evals.make_baseline(report, exclude_tags=["flaky"])
    flaky = {c.id for c in report.cases if "flaky" in c.tags}
    assert flaky and len(report.cases) == len(report.results)
    assert set(base.case_fingerprints) == {c.id for c in report.cases} - flaky
    assert all(base.unchanged(c) for c in report.cases if c.id not in flaky)
    assert set(base.case_success) == set(base.case_fingerprints)


PUBLIC = {
    "SUT", "AsyncSUT", "Case", "CaseRules", "Plan", "Report", "Run", "RunOptions",
    "evaluate", "execute", "gate", "load_cases", "make_baseline", "plan",
}  # fmt: skip


def test_the_public_api_is_a_dozen_names_none_shadowing_a_module() -> None:
    import importlib.util

    assert set(evals.__all__) == PUBLIC
    for name in evals.__all__:
        assert getattr(evals, name).__doc__, name
        # `import evals.gate as g` must not give a function: no name is also a module.
        assert importlib.util.find_spec(f"evals.{name}") is None, name


def documented_problems(function: Callable[..., object]) -> list[str]:
    """What the docstring of a façade function leaves out: an ``Args:`` entry for each
    parameter (and none for a parameter it does not have), and a ``Returns:`` section."""
    import inspect
    import re

    doc = inspect.getdoc(function) or ""
    problems = [] if "\nReturns:\n" in doc else ["no Returns section"]
    if "\nArgs:\n" not in doc:
        return [*problems, "no Args section"]
    args = doc.split("\nArgs:\n", 1)[1].split("\n\n", 1)[0]
    named = re.findall(r"^    (\w+):", args, re.MULTILINE)
    wanted = list(inspect.signature(function).parameters)
    problems += [f"{p} not documented" for p in wanted if p not in named]
    problems += [f"{n} is no parameter" for n in named if n not in wanted]
    return problems


@pytest.mark.parametrize(
    "name", ["evaluate", "plan", "execute", "gate", "make_baseline", "load_cases"]
)
def test_each_facade_function_documents_its_arguments_and_result(name: str) -> None:
    assert documented_problems(getattr(evals, name)) == []


def test_the_docstring_check_tells_a_missing_argument() -> None:
    def half(a: int, b: int) -> int:
        """Add.

        Args:
            a: one.
            c: no such.
        """
        return a + b

    assert documented_problems(half) == [
        "no Returns section",
        "b not documented",
        "c is no parameter",
    ]
