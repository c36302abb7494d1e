"""A failed check that compares values says what was expected and what the run gave:
recorded on the result, kept in the traces, shown side by side on the HTML page, in the
JUnit failure text and in the pytest plugin's failure."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from evals.checks import (
    Case,
    CheckResult,
    Mismatch,
    Run,
    check,
    grade,
    mismatch,
    unregister,
)
from evals.checks.registry import as_json
from evals.log.traces import RunMeta, TraceWriter, read_traces
from evals.metrics.summary import compute
from evals.model.result import RunResult, comparison_lines, shared_checks, shared_verdict
from evals.model.run import ApprovalRecord, Step, Usage, Write
from evals.report.html import render_html
from evals.report.junit import render_junit

BASE: dict[str, Any] = {"id": "c1", "split": "dev", "input": {"goal": "包裹一直没到"}}


def _case(expect: dict[str, Any]) -> Case:
    return Case.model_validate({**BASE, "expect": expect})


def _ticket(approved: bool = True) -> Write:
    return Write(kind="ticket", idempotency_key="k1", approval_id="ap-1", approved=approved)


# (expect, the run's changes, the failed result's name, expected, got)
FAILURES: list[tuple[dict[str, Any], dict[str, Any], str, Any, Any]] = [
    ({"outcome": "replied"}, {"outcome": "escalated"}, "outcome", "replied", "escalated"),
    (
        {"outcome_reason": "gap"},
        {"outcome_reason": "conflict"},
        "outcome_reason",
        "gap",
        "conflict",
    ),
    ({"tickets": 1}, {"writes": []}, "tickets", 1, 0),
    ({"facts": {"days": "7"}}, {"facts": {"days": "3"}}, "fact:days", "7", "3"),
    ({"facts": {"days": "7"}}, {"facts": {}}, "fact:days", "7", None),
    (
        {"reply_contains": ["已补发"]},
        {"reply": "请稍候"},
        "reply_contains:已补发",
        "已补发",
        "请稍候",
    ),
    (
        {"reply_not_contains": ["退款"]},
        {"reply": "已退款"},
        "reply_not_contains:退款",
        "no '退款'",
        "已退款",
    ),
    (
        {"state_after": {"stock.SKU-1": "19"}},
        {"ground_truth": {"stock.SKU-1": "20"}},
        "state_after:stock.SKU-1",
        "19",
        "20",
    ),
    (
        {"state_kept": {"refunds.A2": "0"}},
        {"ground_truth": {"refunds.A2": "1"}},
        "state_kept:refunds.A2",
        "0",
        "1",
    ),
    (
        {"reply_facts": {"amount": "金额"}},
        {"ground_truth": {"amount": "59"}, "reply": "金额 60 元"},
        "reply_facts:amount",
        "59 after '金额'",
        "金额 60 元",
    ),
    (
        {"dispatched": ["order_agent"]},
        {"steps": [Step(role="order_agent"), Step(role="policy_agent")]},
        "dispatched",
        ["order_agent"],
        ["order_agent", "policy_agent"],
    ),
    (
        {"statuses": {"order_agent": ["ok"]}},
        {"steps": [Step(seq=1, role="order_agent", status="timeout")]},
        "statuses",
        {"order_agent": ["ok"]},
        {"order_agent": ["timeout"]},
    ),
    (
        {"approval": {"decided_by": "human", "approved": True}},
        {
            "approvals": [
                ApprovalRecord(action="reissue", amount=59.0, decided_by="auto", approved=True)
            ]
        },
        "approval",
        {"approved": True, "decided_by": "human"},
        [{"approved": True, "decided_by": "auto"}],
    ),
    ({"max_tasks": 2}, {"tasks": 5}, "max_tasks", "at most 2", 5),
    ({"max_chars": 10}, {"chars_returned": 11}, "max_chars", "at most 10", 11),
    (
        {"max_tokens": 100},
        {"usage": Usage(prompt_tokens=90, completion_tokens=20)},
        "max_tokens",
        "at most 100",
        110,
    ),
]


@pytest.mark.parametrize(
    ("expect", "changes", "name", "expected", "got"),
    FAILURES,
    ids=[f"{row[2]}-{n}" for n, row in enumerate(FAILURES)],
)
def test_a_failed_comparison_records_expected_and_got(
    expect: dict[str, Any], changes: dict[str, Any], name: str, expected: Any, got: Any
) -> None:
    case = _case(expect)
    run = Run(**{"case_id": "c1", "outcome": "replied", "writes": [_ticket()], **changes})
    found = {r.name: r for r in grade(case, run)}
    assert not found[name].passed
    assert found[name].reason
    assert (found[name].expected, found[name].got) == (expected, got)


@pytest.mark.parametrize(
    ("expect", "run_fields"),
    [
        ({"outcome": "replied"}, {"outcome": "replied"}),
        ({"facts": {"days": "7"}}, {"facts": {"days": "7"}}),
        ({"reply_contains": ["已补发"]}, {"reply": "已补发"}),
        ({"state_after": {"stock.SKU-1": "19"}}, {"ground_truth": {"stock.SKU-1": "19"}}),
        ({"max_tasks": 2}, {"tasks": 2}),
    ],
)
def test_a_passed_check_records_neither(expect: dict[str, Any], run_fields: dict[str, Any]) -> None:
    run = Run(case_id="c1", **{"outcome": "replied", **run_fields})
    results = grade(_case(expect), run)
    assert results and all(r.passed for r in results)
    assert all(r.expected is None and r.got is None for r in results)


def test_a_check_of_another_project_fails_with_a_mismatch() -> None:
    @check(kind="outcome", name="refund_count")
    def refund_count(case: Case, run: Run) -> Any:
        want, got = 2, len(run.writes)
        return want == got or Mismatch(f"expected {want} refunds, got {got}", want, got)

    try:
        results = {r.name: r for r in grade(_case({}), Run(case_id="c1", outcome="x"))}
    finally:
        unregister("refund_count")
    assert results["refund_count"] == CheckResult(
        name="refund_count",
        kind="outcome",
        passed=False,
        reason="expected 2 refunds, got 0",
        expected=2,
        got=0,
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"a": [1, "二"]}, {"a": [1, "二"]}),
        (("x", 1), ["x", 1]),
        ({"b", "a"}, ["a", "b"]),
        (Path("/tmp/x"), repr(Path("/tmp/x"))),
        (object, repr(object)),
        (float("nan"), "nan"),
        (float("-inf"), "-inf"),
        (2.5, 2.5),
        (None, None),
    ],
)
def test_values_that_are_no_json_are_shown_as_their_repr(value: object, shown: object) -> None:
    assert as_json(value) == shown


def test_results_with_values_are_never_shared() -> None:
    plain = CheckResult(name="n", kind="outcome", passed=False, reason="r")
    one = mismatch("n", "outcome", "r", 1, 2)
    other = mismatch("n", "outcome", "r", 3, 4)
    assert shared_verdict(plain) is shared_verdict(
        CheckResult(name="n", kind="outcome", passed=False, reason="r")
    )
    assert shared_verdict(one) is one and shared_verdict(other) is other


def test_traces_keep_the_values_and_leave_out_unset_ones(tmp_path: Path) -> None:
    failed = mismatch("outcome", "outcome", "expected 'replied', got 'x'", "replied", "x")
    passed = CheckResult(name="tickets", kind="outcome", passed=True)
    with TraceWriter(tmp_path, META) as traces:
        traces.write(Run(case_id="c1", outcome="x"), [failed, passed], False)
    line = json.loads((tmp_path / "t" / "runs.jsonl").read_text(encoding="utf-8"))
    assert line["checks"][0]["expected"] == "replied" and line["checks"][0]["got"] == "x"
    assert "expected" not in line["checks"][1] and "got" not in line["checks"][1]
    [record] = list(read_traces(tmp_path / "t"))
    assert record.checks[0] == failed


HOSTILE = "<script>alert(1)</script>"
META = RunMeta(run_id="t", label="t")


def _page(result: RunResult) -> str:
    return render_html(compute([result]), META, [result])


class _Cells(HTMLParser):
    """The text of every ``pre.expected`` and ``pre.got``, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "pre" and ("expected" in classes or "got" in classes):
            self._in = "expected" if "expected" in classes else "got"
            self.found.append((self._in, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            kind, text = self.found[-1]
            self.found[-1] = (kind, text + data)


def _result(*checks: CheckResult) -> RunResult:
    return RunResult(case_id="c1", trial=0, split="dev", outcome="escalated", checks=tuple(checks))


def test_the_page_shows_expected_beside_got_for_failed_checks_only() -> None:
    failed = mismatch("conflicts", "outcome", "spurious", ["eta"], {"got": [HOSTILE, "二"]})
    passed = CheckResult(name="tickets", kind="outcome", passed=True)
    page = _page(_result(failed, passed))
    cells = _Cells()
    cells.feed(page)
    assert cells.found == [
        ("expected", '[\n "eta"\n]'),
        ("got", '{\n "got": [\n  "<script>alert(1)</script>",\n  "二"\n ]\n}'),
    ]
    assert HOSTILE not in page  # shown as text, never as markup


def test_a_failed_check_without_values_shows_no_comparison() -> None:
    failed = CheckResult(name="outcome", kind="outcome", passed=False, reason="r")
    page = _page(_result(failed))
    assert 'class="expected-got"' not in page


@pytest.mark.parametrize(
    ("check_result", "lines"),
    [
        (mismatch("n", "outcome", "r", "replied", "x"), ["expected: replied", "got: x"]),
        (mismatch("n", "outcome", "r", ["a"], None), ['expected: ["a"]', "got: (nothing)"]),
        (CheckResult(name="n", kind="outcome", passed=False, reason="r"), []),
        (CheckResult(name="n", kind="outcome", passed=True), []),
    ],
)
def test_comparison_lines(check_result: CheckResult, lines: list[str]) -> None:
    assert comparison_lines(check_result) == lines


def test_junit_failure_text_holds_expected_and_got() -> None:
    failed = mismatch("outcome", "outcome", "expected 'replied'", "replied", "escalated")
    xml = render_junit([_result(failed)], META)
    assert "expected: replied\ngot: escalated" in xml


def test_statuses_that_agree_but_lack_an_error_record_show_no_comparison() -> None:
    case = _case({"statuses": {"order_agent": ["timeout"]}})
    run = Run(case_id="c1", outcome="escalated", steps=[Step(role="order_agent", status="timeout")])
    [found] = [r for r in grade(case, run) if r.name == "statuses"]
    assert not found.passed and "no error is recorded" in found.reason
    assert (found.expected, found.got) == (None, None)


def test_a_run_s_own_values_are_never_interned_as_a_shared_tuple() -> None:
    from evals.model import result as result_module

    passed = CheckResult(name="tickets", kind="outcome", passed=True)
    one = (mismatch("outcome", "outcome", "r", "a", "b"), passed)
    other = (mismatch("outcome", "outcome", "r", "a", "b"), passed)
    held = len(result_module._VERDICT_TUPLES)
    assert shared_checks(one) is one and shared_checks(other) is other
    assert len(result_module._VERDICT_TUPLES) == held  # no slot taken by a one-off
    plain = (passed,)
    assert shared_checks(plain) is shared_checks((passed,))
