"""The pytest plugin, run by pytester as a user's project would run it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]

SUT = '''
from evals.model.run import Run, Step, Write


class Desk:
    """Answers as the case's expected outcome says, except for cases named in BROKEN,
    dispatching the roles the case expects. Its mood (moods joined by "+") breaks one kind
    of check each: grumpy the outcome, reckless safety (an unapproved write), detour the
    trajectory (an extra role), busy the cost (three tasks counted)."""

    BROKEN = {"c2"}

    def __init__(self, mood: str = "fine") -> None:
        self.moods = set(mood.split("+"))

    def check_case(self, case):
        return [f"world.{k}: unknown key {k!r}" for k in case.world]

    def run(self, case, trial):
        outcome = "escalate" if case.id in self.BROKEN else case.expect.outcome
        if "grumpy" in self.moods:
            outcome = "escalate"
        roles = list(case.expect.dispatched or [])
        steps = [Step(role=role, status="ok", seq=2 * i) for i, role in enumerate(roles)]
        if "detour" in self.moods:
            steps.append(Step(role="detour_agent", status="ok", seq=99))
        writes = []
        if "reckless" in self.moods:
            writes.append(Write(kind="ticket", idempotency_key=f"{case.id}:ticket"))
        tasks = 3 if "busy" in self.moods else None
        return Run(
            case_id=case.id, trial=trial, outcome=outcome, steps=steps, writes=writes, tasks=tasks
        )


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
            "    expected: replied",
            "    got: escalate",
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


# --- which failed checks fail a test: the gate's hard kinds by default -------------------

PROCESS = (
    '{"id": "p1", "split": "dev", "input": {"goal": "g"}, "expect": {"outcome": "replied",'
    ' "dispatched": ["order_agent"], "max_tasks": 2}}'
)
"""One case whose every check passes for a Desk in a fine mood."""

DISPATCHED = "  dispatched (trajectory): expected roles ['order_agent'], dispatched"
UNAPPROVED = "  no_write_without_approval (safety): no write without approval: "
TASKS = "  max_tasks (cost): dispatched 3 tasks, budget is 2"
OUTCOME = "  outcome (outcome): expected outcome 'replied', got 'escalate'"
ALSO = "also failed (kinds that do not fail a test, see --evals-fail-on):"

FAIL_ON = [
    # (mood, flags, failed, lines in the output): each broken kind shown able to fail …
    ("fine", [], False, []),
    ("detour", [], True, ["case p1 trial 0 failed:", DISPATCHED]),
    ("reckless", [], True, [UNAPPROVED]),
    ("grumpy", [], True, [OUTCOME]),
    # … cost is soft by default, as in the gate, until a flag or the gate config says …
    ("busy", [], False, []),
    ("busy", ["--evals-fail-on", "outcome,cost"], True, [TASKS]),
    ("detour+busy", [], True, [DISPATCHED, ALSO, TASKS]),
    # … and relaxed on purpose: a run's success, or the outcome alone.
    ("detour", ["--evals-fail-on", "success"], False, []),
    ("reckless", ["--evals-fail-on", "success"], True, [UNAPPROVED]),
    ("reckless", ["--evals-fail-on", "outcome"], False, []),
    ("grumpy", ["--evals-fail-on", "outcome"], True, [OUTCOME]),
    ("detour", ["--evals-fail-on", "trajectory"], True, [DISPATCHED]),
    ("detour", ["--evals-fail-on", " outcome , trajectory "], True, [DISPATCHED]),
]


@pytest.mark.parametrize(("mood", "flags", "failed", "lines"), FAIL_ON)
def test_a_test_fails_for_every_check_kind_the_gate_treats_as_hard(
    project: pytest.Pytester, mood: str, flags: list[str], failed: bool, lines: list[str]
) -> None:
    project.makefile(".jsonl", process=PROCESS)
    result = project.runpytest(
        "process.jsonl", "--evals-sut", "desk:Desk", "--evals-sut-option", f"mood={mood}", *flags
    )
    result.assert_outcomes(**{"failed" if failed else "passed": 1})
    out = result.stdout.lines
    found = [next((i for i, got in enumerate(out) if got.startswith(line)), -1) for line in lines]
    assert -1 not in found and found == sorted(found), (lines, out)  # each, in order
    assert any(ALSO in got for got in out) is (ALSO in lines)


def test_the_ini_option_relaxes_it_and_the_flag_wins(project: pytest.Pytester) -> None:
    project.makefile(".jsonl", process=PROCESS)
    project.makeini("[pytest]\nevals_fail_on = success\n")
    args = ["process.jsonl", "--evals-sut", "desk:Desk", "--evals-sut-option", "mood=detour"]
    project.runpytest(*args).assert_outcomes(passed=1)
    project.runpytest(*args, "--evals-fail-on", "gate").assert_outcomes(failed=1)


GATE_CONFIGS = [
    # (newly_failing_checks_max of the project's gate.json, mood, failed)
    ({"outcome": 0, "safety": 0, "trajectory": 0, "cost": 0}, "busy", True),
    ({"outcome": 0, "safety": 0, "trajectory": 0}, "busy", False),
    ({"outcome": 0, "safety": 0}, "detour", False),
    ({"outcome": 0, "safety": 0}, "reckless", True),
]


@pytest.mark.parametrize(("hard", "mood", "failed"), GATE_CONFIGS)
def test_the_gate_config_says_which_kinds_are_hard(
    project: pytest.Pytester, hard: dict[str, int], mood: str, failed: bool
) -> None:
    project.makefile(".jsonl", process=PROCESS)
    project.makepyprojecttoml('[tool.evals]\ncases_dir = "cases"\n')
    config = {"schema_version": 2, "hard": {"newly_failing_checks_max": hard}}
    project.mkdir("cases").joinpath("gate.json").write_text(json.dumps(config), "utf-8")
    result = project.runpytest(
        "process.jsonl", "--evals-sut", "desk:Desk", "--evals-sut-option", f"mood={mood}"
    )
    result.assert_outcomes(**{"failed" if failed else "passed": 1})


def test_a_soft_failure_of_a_passing_test_reaches_the_junit_xml(
    project: pytest.Pytester,
) -> None:
    project.makefile(".jsonl", process=PROCESS)
    result = project.runpytest(
        "process.jsonl",
        "--evals-sut",
        "desk:Desk",
        "--evals-sut-option",
        "mood=busy",
        "--junitxml=out.xml",
    )
    result.assert_outcomes(passed=1)
    root = ET.parse(project.path / "out.xml").getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["soft_failures"] == TASKS.strip()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("outcomes", "--evals-fail-on 'outcomes': expected 'gate', 'success' or check kinds"),
        ("", "--evals-fail-on"),
    ],
)
def test_a_bad_fail_on_is_a_usage_error(project: pytest.Pytester, value: str, message: str) -> None:
    project.makeini(f"[pytest]\nevals_fail_on = {value}\n")
    result = project.runpytest("faq.jsonl", "--evals-sut", "desk:Desk")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_a_broken_gate_config_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyprojecttoml('[tool.evals]\ncases_dir = "cases"\n')
    project.mkdir("cases").joinpath("gate.json").write_text('{"hard": {"x": 1}}', "utf-8")
    result = project.runpytest("faq.jsonl", "--evals-sut", "desk:Desk")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--evals-fail-on gate: *gate.json*"])
