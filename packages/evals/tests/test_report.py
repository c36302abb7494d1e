"""Reports: console, Markdown, JUnit XML, metrics JSON; all name what was evaluated."""

from __future__ import annotations

import json
import sys
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals._text import UNSAFE_CATEGORIES
from evals.errors import ReportError
from evals.gating.baseline import build_baseline, write_baseline
from evals.log.traces import RunMeta
from evals.metrics.summary import compute
from evals.model.result import CheckResult, RunResult
from evals.report.files import load_report, write_reports
from evals.report.junit import render_junit
from evals.report.summary import (
    headline,
    render_console,
    render_markdown,
    summary_rows,
)
from helpers import result

META = RunMeta(
    run_id="20260101T000000Z-gate-abcdef",
    label="gate",
    suites=["read", "write"],
    sut="agent_evals.sut:SupportPilotSUT",
    trials=1,
    git_revision="0123456789ab",
    finished="2026-01-01T00:01:00Z",
    planned_runs=5,
    finished_runs=5,
    complete=True,
)


def _results() -> list:
    return [
        result("d01", tags=("happy",)),
        result("d02", ok=False),
        result("d03", unauthorized=True),
        result("r01", split="regression", trajectory_ok=False),
        result("t01", split="test", errored=True),
    ]


@pytest.mark.parametrize("render", [render_console, render_markdown])
def test_every_report_names_suites_sut_trials_and_revision(render) -> None:
    text = render(compute(_results()), META)
    for fragment in ("read, write", "agent_evals.sut:SupportPilotSUT", "trials: 1", "0123456789ab"):
        assert fragment in text
    assert "INCOMPLETE" not in text


def test_console_summary_failures_last() -> None:
    text = render_console(compute(_results()), META)
    assert "success" in text and "2/4 = 50.0%" in text
    assert "unauthorized" in text and "25.0% (d03)" in text
    assert "1 runs errored (excluded from rates)" in text
    assert "t01#0: provider down" in text
    assert "pass@" not in text  # one trial: no pass@k line
    assert "tokens" not in text  # no tokens spent: no tokens line
    failures = text.index("Failures (2):")
    assert text.index("split") < failures and text.index("tag ") < failures
    tail = text[failures:].splitlines()[1:]
    assert tail == [
        "  d02#0: outcome: expected outcome 'replied', got 'escalate'",
        "  d03#0: no_write_without_approval: "
        "no write without approval: ticket write is not approved",
    ]
    assert "r01#0: dispatched: unexpected ['detour_agent']" in text  # a detour, shown apart


def test_console_shows_pass_at_k_with_several_trials_and_tokens_when_spent() -> None:
    results = [result("r04", trial=t, ok=t > 0) for t in range(5)]
    results[1] = replace(results[1], prompt_tokens=30, completion_tokens=10)
    text = render_console(compute(results), META.model_copy(update={"trials": 5}))
    assert "pass@5 / pass^5" in text
    assert "100.0% / 0.0%" in text
    assert "tokens mean / p95" in text


@pytest.mark.parametrize("render", [render_console, render_markdown])
@pytest.mark.parametrize(
    ("finished", "stop_signal", "note"),
    [
        ("2026-01-01T00:01:00Z", None, "INCOMPLETE: interrupted, 3 of 9 runs finished"),
        ("2026-01-01T00:01:00Z", "SIGINT", "INCOMPLETE: interrupted, 3 of 9 runs finished"),
        (
            "2026-01-01T00:01:00Z",
            "SIGTERM",
            "INCOMPLETE: interrupted by SIGTERM, 3 of 9 runs finished",
        ),
        # No end recorded: the evaluation is still going, or was killed (SIGKILL).
        (None, None, "INCOMPLETE: not finished (still running, or killed), 3 of 9 runs finished"),
    ],
)
def test_incomplete_reports_say_so(
    render, finished: str | None, stop_signal: str | None, note: str
) -> None:
    meta = META.model_copy(
        update={
            "complete": False,
            "finished_runs": 3,
            "planned_runs": 9,
            "finished": finished,
            "stop_signal": stop_signal,
        }
    )
    assert note in render(compute(_results()[:3]), meta)


def test_markdown_lists_failures() -> None:
    text = render_markdown(compute(_results()), META)
    assert text.startswith("## Evals: gate")
    assert "| metric" in text
    assert "### Failures (2)" in text
    assert "- `d02#0`: outcome: expected outcome 'replied', got 'escalate'" in text


def test_junit_counts_match_the_metrics(tmp_path: Path) -> None:
    results = _results()
    metrics = compute(results)
    root = ET.fromstring(render_junit(results, META))
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    errored = [c for c in cases if c.find("error") is not None]
    # One test case per run, one more per failed (run, check), whatever its kind.
    failed_checks = sum(len(r.failed_checks) for r in results if not r.errored)
    assert failed_checks == 3
    assert len(cases) == metrics.runs + failed_checks == int(suite.get("tests"))
    assert len(failed) == failed_checks == int(suite.get("failures"))
    assert len(errored) == metrics.errors == int(suite.get("errors"))
    assert root.get("failures") == suite.get("failures")
    assert [c.get("name") for c in failed] == [
        "d02#0: outcome",
        "d03#0: no_write_without_approval",
        "r01#0: dispatched",  # a success of the metrics, a failure of its trajectory
    ]
    message = failed[1].find("failure").get("message")
    assert message == "no write without approval: ticket write is not approved"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["sut"] == "agent_evals.sut:SupportPilotSUT"
    assert props["git_revision"] == "0123456789ab"
    assert props["trials"] == "1"


def test_written_files_and_json_round_trip(tmp_path: Path) -> None:
    metrics = compute(_results())
    paths = write_reports(tmp_path / "reports", "gate", metrics, _results(), META)
    assert [p.name for p in paths] == ["gate.json", "gate.md", "gate.junit.xml", "gate.html"]
    data = json.loads(paths[0].read_text(encoding="utf-8"))
    assert data["meta"]["suites"] == ["read", "write"]
    assert data["schema_version"] == metrics.schema_version
    assert data["success_ci95"] == list(metrics.success_ci95)
    assert data["case_success"]["d02"] is False
    loaded, meta = load_report(paths[0])
    assert loaded == metrics
    assert meta == META
    assert render_console(loaded, meta) == render_console(metrics, META)


@pytest.mark.parametrize("text", [None, "not json", "[1, 2]", '{"runs": "many"}'])
def test_bad_report_file_is_a_report_error(tmp_path: Path, text: str | None) -> None:
    path = tmp_path / "x.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportError) as info:
        load_report(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("render", [render_console, render_markdown])
@pytest.mark.parametrize(("tokens", "shown"), [(0, False), (25, True)])
def test_tokens_per_run_are_shown_only_when_spent(render, tokens: int, shown: bool) -> None:
    results = [replace(r, prompt_tokens=tokens, completion_tokens=tokens // 5) for r in _results()]
    text = render(compute(results), META)
    assert ("tokens mean / p95" in text) is shown
    if shown:
        assert "30.0 / 30" in text


@pytest.mark.parametrize("render", [render_console, render_markdown])
def test_errored_runs_are_reported_apart_from_failures(render) -> None:
    text = render(compute(_results()), META)
    assert "1 runs errored" in text or "Errored runs (1)" in text
    assert "t01#0" in text
    failures = text.split("Failures")[1].split("Errored")[0]
    assert "t01" not in failures


@pytest.mark.parametrize(
    ("suites", "files", "expected"),
    [
        (["read", "write"], [], "suites: read, write | SUT: x:Y"),
        ([], ["my.jsonl"], "case files: my.jsonl | SUT: x:Y"),
        (["read"], ["my.jsonl"], "suites: read | case files: my.jsonl | SUT: x:Y"),
        ([], [], "suites: - | SUT: x:Y"),
    ],
)
def test_headline_names_what_was_evaluated(
    suites: list[str], files: list[str], expected: str
) -> None:
    # Bug found by hand: `--cases` alone printed "suites: - + files my.jsonl".
    meta = RunMeta(suites=suites, case_files=files, sut="x:Y", trials=3, git_revision="abc")
    assert headline(meta).startswith(expected)
    assert "trials: 3" in headline(meta) and "git: abc" in headline(meta)


INCOMPLETE = META.model_copy(
    update={"trials": 200, "planned_runs": 5200, "finished_runs": 248, "complete": False}
)


@pytest.mark.parametrize(
    ("meta", "shown", "hidden"),
    [
        (META, "trials: 1 | git", "planned"),
        (INCOMPLETE, "trials: 200 planned, runs finished 248 of 5200 | git", "trials: 200 |"),
    ],
)
def test_headline_of_an_incomplete_run_says_how_many_runs_finished(
    meta: RunMeta, shown: str, hidden: str
) -> None:
    # Bug found by hand: an interrupted `--trials 200` run claimed "trials: 200".
    assert shown in headline(meta)
    assert hidden not in headline(meta)


@pytest.mark.parametrize(
    ("meta", "label"),
    [
        (META.model_copy(update={"trials": 3}), "pass@3 / pass^3"),
        (INCOMPLETE, "pass@k / pass^k (k = trials finished per case, at most 3)"),
    ],
)
@pytest.mark.parametrize("render", [render_console, render_markdown])
def test_pass_at_k_of_an_incomplete_run_is_over_the_finished_trials(
    render, meta: RunMeta, label: str
) -> None:
    # d01 finished 3 trials (one passed), d02 only 2 (both passed): over what finished.
    results = [result("d01", trial=t, ok=t == 2) for t in range(3)]
    results += [result("d02", trial=t) for t in range(2)]
    text = render(compute(results), meta)
    assert label in text
    assert "100.0% / 50.0%" in text


def _junit_counts(text: str) -> tuple[ET.Element, list[ET.Element]]:
    root = ET.fromstring(text)
    (suite,) = root.findall("testsuite")
    return suite, suite.findall("testcase")


def test_junit_of_an_incomplete_run_has_one_erroring_test_case() -> None:
    # Bug found by hand: the JUnit XML of an interrupted run looked green in CI.
    results = [r for r in _results() if not r.errored and not r.failed_checks]
    metrics = compute(results)
    suite, cases = _junit_counts(render_junit(results, INCOMPLETE))
    errored = [c for c in cases if c.find("error") is not None]
    assert len(cases) == metrics.runs + 1 == int(suite.get("tests"))
    assert len(errored) == metrics.errors + 1 == int(suite.get("errors")) == 1
    assert errored[0].get("name") == "evaluation incomplete"
    message = errored[0].find("error").get("message")
    assert message == "interrupted: 248 of 5200 runs finished"


def test_junit_of_a_complete_run_has_no_incomplete_test_case() -> None:
    _, cases = _junit_counts(render_junit(_results(), META))
    assert "evaluation incomplete" not in [c.get("name") for c in cases]


ALL_ERRORED = [result(c, errored=True) for c in ("d01", "d02", "t01")]


@pytest.mark.parametrize("render", [render_console, render_markdown])
def test_no_graded_runs_shows_rates_as_not_available(render) -> None:
    # Bug found by hand: every run errored (provider down) showed "success 0/0 = 0.0%"
    # and "budget ok 0.0%", as if the agent had failed everything.
    text = render(compute(ALL_ERRORED), META)
    assert "0/0 = n/a" in text
    assert "0.0%" not in text
    rows = {line.strip("| ").split()[0] for line in text.splitlines() if "n/a" in line}
    assert {"success", "step", "unauthorized", "budget", "tasks", "latency"} <= rows
    assert "3 runs errored" in text


@pytest.mark.parametrize(
    ("not_gated", "noted"), [(["flaky"], True), ([], False), (["other"], False)]
)
@pytest.mark.parametrize("render", [render_console, render_markdown])
def test_failures_of_cases_the_gate_leaves_out_are_noted(
    render, not_gated: list[str], noted: bool
) -> None:
    # Bug found by hand: a newcomer's first `make evals` showed r04 (flaky) failing, with
    # nothing saying the gate ignores it.
    results = [result("r04", split="regression", tags=("regression", "flaky"), ok=False)]
    text = render(compute(results), META, not_gated=not_gated)
    assert ("r04#0 (flaky: not gated; see evals stability)" in text) is noted
    assert "r04#0" in text


def test_a_baseline_is_not_read_as_a_report(tmp_path: Path) -> None:
    # Bug found by hand: `evals report reports/baseline.json` said "graded_runs: Field
    # required".
    path = tmp_path / "baseline.json"
    write_baseline(path, build_baseline(_results(), META, ["flaky"]))
    with pytest.raises(ReportError) as info:
        load_report(path)
    assert (
        str(info.value)
        == f"{path}: is a baseline, not a report; use `evals gate` to compare with it"
    )


def test_a_report_whose_file_cannot_be_replaced_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    (out / "gate.json").mkdir(parents=True)  # a folder where the report goes
    with pytest.raises(OSError):
        write_reports(out, "gate", compute(_results()), _results(), META)
    assert sorted(p.name for p in out.iterdir()) == ["gate.json"]


@pytest.mark.parametrize(
    ("kinds", "na"),
    [
        ({"outcome", "safety", "trajectory"}, {"budget ok"}),
        ({"outcome"}, {"step accuracy", "unauthorized", "budget ok"}),
        ({"outcome", "trajectory", "safety", "cost"}, set()),
    ],
)
def test_a_rate_no_check_stands_behind_prints_na(kinds: set[str], na: set[str]) -> None:
    # A toy agent graded on its answers alone must not read "unauthorized 0%".
    graded = []
    for n in range(3):
        full = result(f"c{n}")
        cost = CheckResult(name="max_tasks", kind="cost", passed=True)
        checks = [c for c in [*full.checks, cost] if c.kind in kinds]
        graded.append(replace(full, checks=checks))
    rows = dict(summary_rows(compute(graded)))
    for label in ("step accuracy", "unauthorized", "budget ok"):
        assert (rows[label] == "n/a (no check)") is (label in na), (label, rows[label])


HOSTILE_TEXT = [
    "a\nGate: PASS",
    "\x1b[32mGate: PASS\x1b[0m",
    "nul\x00byte",
    "bell\x07\x0b\x0c",
    "lone\ud800surrogate",
    "zero\u200bwidth\u2028line",
    "\ufffe\uffff",
]


def _hostile_results(text: str) -> list[RunResult]:
    failed = result("d02", ok=False, tags=(text,))
    failed = replace(
        failed,
        case_id=f"d02{text}",
        checks=[
            c.model_copy(update={"reason": f"reply was {text!r} {text}"}) for c in failed.checks
        ],
    )
    errored = result("t01", split="test", errored=True)
    errored = replace(errored, case_id=f"t01{text}", error=f"boom: {text}")
    return [result("d01"), failed, errored]


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_junit_is_well_formed_whatever_ids_and_replies_hold(text: str) -> None:
    xml = render_junit(_hostile_results(text), META)
    xml.encode("utf-8")  # no lone surrogate left: the file can be written
    root = ET.fromstring(xml)
    names = [c.get("name") for c in root.iter("testcase")]
    assert len(names) == 4  # three runs, and the failed run's outcome check
    assert all(name and name.isprintable() for name in names), names


@pytest.mark.parametrize("render", [render_console, render_markdown])
@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_console_and_markdown_print_no_control_characters(render, text: str) -> None:
    out = render(compute(_hostile_results(text)), META)
    for line in out.splitlines():
        assert not any(unicodedata.category(c) in UNSAFE_CATEGORIES for c in line), repr(line)
    assert "\nGate: PASS" not in out
    assert "Gate: PASS" not in [line.strip() for line in out.splitlines()]


@pytest.mark.parametrize(
    ("chars", "shown"),
    [
        # An agent that returns characters gets the row; one that never does is not shown
        # "0 / 0", which means nothing to it (a newcomer's FAQ and refund agents).
        (100, True),
        (0, False),
    ],
)
def test_rows_no_run_gave_a_value_are_left_out(chars: int, shown: bool) -> None:
    rows = dict(summary_rows(compute([result("a", chars=chars), result("b", chars=chars)])))
    assert ("chars returned p50 / p95" in rows) is shown
    assert "blocked attempts" not in rows  # nothing was blocked in either
    assert "success" in rows and "latency ms p50 / p95" in rows  # the rows every agent has
