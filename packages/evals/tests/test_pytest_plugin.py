"""The pytest plugin, run by pytester as a user's project would run it."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SUT = '''
from evals.model.run import Run


class Desk:
    """Answers as the case's expected outcome says, except for cases named in BROKEN."""

    BROKEN = {"c2"}

    def __init__(self, mood: str = "fine") -> None:
        self.mood = mood

    def check_case(self, case):
        return [f"world.{k}: unknown key {k!r}" for k in case.world]

    def run(self, case, trial):
        outcome = "escalate" if case.id in self.BROKEN else case.expect.outcome
        if self.mood == "grumpy":
            outcome = "escalate"
        return Run(case_id=case.id, trial=trial, outcome=outcome)


class AsyncDesk(Desk):
    async def arun(self, case, trial):
        return self.run(case, trial)
'''

CASES = "\n".join(
    [
        '{"id": "c1", "split": "dev", "tags": ["happy"], "input": {"goal": "g"}, '
        '"expect": {"outcome": "replied"}}',
        '{"id": "c2", "split": "dev", "input": {"goal": "g"}, "expect": {"outcome": "replied"}}',
    ]
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(desk=SUT)
    pytester.makefile(".jsonl", faq=CASES)
    pytester.syspathinsert()
    return pytester


@pytest.mark.parametrize("sut", ["desk:Desk", "desk:AsyncDesk"])
def test_each_case_and_trial_is_a_test_failing_with_the_checks_reasons(
    project: pytest.Pytester, sut: str
) -> None:
    result = project.runpytest("faq.jsonl", "--evals-sut", sut, "--evals-trials", "2", "-v")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*faq.jsonl::c1#0 PASSED*",
            "*faq.jsonl::c2#1 FAILED*",
            "*case c2 trial 0 failed:*",
            "*outcome (outcome): expected outcome 'replied', got 'escalate'*",
        ]
    )


def test_sut_options_reach_the_sut(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "faq.jsonl", "--evals-sut", "desk:Desk", "--evals-sut-option", "mood=grumpy"
    )
    result.assert_outcomes(failed=2)


def test_a_case_the_sut_refuses_is_a_collection_error_naming_file_and_line(
    project: pytest.Pytester,
) -> None:
    project.makefile(
        ".jsonl",
        bad='{"id": "w1", "split": "dev", "input": {"goal": "g"}, "world": {"stok": 1}, '
        '"expect": {"outcome": "replied"}}',
    )
    result = project.runpytest("bad.jsonl", "--evals-sut", "desk:Desk")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*bad.jsonl:1*world.stok: unknown key 'stok'*"])


def test_without_a_sut_the_plugin_collects_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = project.runpytest()
    result.assert_outcomes(passed=1)  # faq.jsonl is not collected, and nothing breaks


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--evals-trials", "0"], "--evals-trials must be at least 1"),
        (["--evals-sut-option", "mood"], "expected KEY=VALUE"),
    ],
)
def test_bad_options_are_one_usage_error(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    result = project.runpytest("faq.jsonl", "--evals-sut", "desk:Desk", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


CONFIGURATION_CASES = "\n".join(
    [
        '{"id": "k1", "split": "dev", "input": {}, "world": {"x": 1},'
        ' "expect": {"refused": ["world.x: unknown key \'x\'"]}}',
        '{"id": "k2", "split": "dev", "input": {}, "sut_options": {"mood": "grumpy"},'
        ' "expect": {"refused": ["no"]}}',
    ]
)


def test_configuration_cases_are_asked_not_run(project: pytest.Pytester) -> None:
    project.makefile(".jsonl", conf=CONFIGURATION_CASES)
    result = project.runpytest("conf.jsonl", "--evals-sut", "desk:Desk", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*refused (outcome): the SUT accepted the case*"])
