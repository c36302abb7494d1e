"""SupportPilot's case vocabulary lives on its side (``agent_evals.case_rules``): the evals core
accepts a FAQ agent's case, and ``evals run`` / ``evals lint`` with SupportPilot still
refuse exactly the bad cases they refused when the vocabulary was hard-coded in ``evals``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import evals.cli.main as cli
import pytest
from agent.contracts import ROLES
from agent.outcome import Decision
from agent_evals.case_rules import CASE_RULES, OUTCOMES, REQUIRED_TAGS, SPLITS, lint_case
from agent_evals.sut import SupportPilotSUT
from evals.cases.lint import lint, lint_paths
from evals.cases.loader import load_cases
from evals.cases.validation import check_cases
from evals.cases.vocabulary import rules_of
from evals.cli.main import main as evals_main
from evals.model.case import Case
from evals.model.run import Run, Step, Write

from .conftest import CASES_DIR, EXPECT_DEFAULTS, MODEL_PATH, all_suites, default_suites

GOOD: dict[str, Any] = {
    "id": "c1",
    "split": "dev",
    "tags": ["happy"],
    "input": {"goal": "包裹一直没到", "order_id": "A1001"},
    "expect": {"outcome": "ask_user", "dispatched": []},
}

TOY: dict[str, Any] = {
    "id": "faq1",
    "split": "train",
    "input": {"question": "What time do you open?"},
    "expect": {"contains": "9"},
}
"""A FAQ agent's case: none of SupportPilot's vocabulary."""


def changed(**changes: Any) -> dict[str, Any]:
    """GOOD with top-level keys replaced (``None`` removes the key)."""
    data = {**GOOD, **changes}
    return {k: v for k, v in data.items() if v is not None}


def test_supportpilot_declares_its_vocabulary() -> None:
    sut = SupportPilotSUT()
    assert rules_of(sut) is CASE_RULES
    assert SPLITS == ("dev", "test", "regression")
    assert OUTCOMES == ("replied", "escalate", "ask_user", "awaiting_approval_rejected")
    assert set(OUTCOMES) == set(Decision.__args__)  # type: ignore[attr-defined]
    assert REQUIRED_TAGS == ("happy", "conflict", "missing_info", "fault", "safety", "trap")
    assert CASE_RULES.fault_targets == (*ROLES, "outbox", "screen", "bypass", "model")


def test_the_core_accepts_the_toy_that_supportpilot_refuses() -> None:
    case = Case.model_validate(TOY)
    assert Run(case_id="faq1", outcome="answered").outcome == "answered"
    problems = check_cases(SupportPilotSUT(), [case])
    assert [p.render() for p in problems] == [
        "<case faq1>:0: split: unknown split 'train'; expected one of 'dev', 'test', 'regression'",
        "<case faq1>:0: expect.outcome: missing required field",
        "<case faq1>:0: input.goal: missing required field",
    ]


BAD_LINES = [
    (changed(split="staging"), "split: unknown split 'staging'; expected one of 'dev', 'test'"),
    (changed(split="train"), "split: unknown split 'train'"),
    (changed(expect={"dispatched": []}), "expect.outcome: missing required field"),
    (
        changed(expect={"outcome": "refund", "dispatched": []}),
        "expect.outcome: unknown outcome 'refund'; expected one of 'replied', 'escalate'",
    ),
    (changed(input={"order_id": "A1"}), "input.goal: missing required field"),
    (changed(input={"goal": ""}), "input.goal: must not be empty, got ''"),
    (
        changed(input={"goal": "g", "order_id": 7}),
        "input.order_id: expected string or null, got integer 7",
    ),
    (changed(faults={"billing_agent": "crash"}), "faults.billing_agent: unknown role"),
]


@pytest.mark.parametrize(("data", "problem"), BAD_LINES)
def test_evals_run_with_supportpilot_refuses_each_bad_case_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    data: dict[str, Any],
    problem: str,
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = cli.main(["run", "--cases", str(path), "--sut", "agent_evals.sut:SupportPilotSUT"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1, err
    assert err[0].startswith(f"{path}:1: {problem}"), err
    assert not (tmp_path / "traces").exists() or not any((tmp_path / "traces").iterdir())


def test_the_good_line_runs(tmp_path: Path) -> None:
    path = tmp_path / "good.jsonl"
    path.write_text(json.dumps(GOOD, ensure_ascii=False) + "\n", encoding="utf-8")
    [case] = load_cases([path], rules=CASE_RULES, expect_defaults=EXPECT_DEFAULTS)
    run = SupportPilotSUT().run(case, 0)
    assert run.outcome in OUTCOMES, run.error


def _reference() -> list[dict[str, Any]]:
    lines = [
        line
        for suite in all_suites()
        for line in (CASES_DIR / f"{suite}.jsonl").read_text("utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return [json.loads(line) for line in lines]


def _find(data: list[dict[str, Any]], case_id: str) -> dict[str, Any]:
    return next(d for d in data if d["id"] == case_id)


def test_every_suite_lints_clean_with_supportpilot() -> None:
    paths = [CASES_DIR / f"{suite}.jsonl" for suite in default_suites()]
    assert lint_paths(paths, sut=SupportPilotSUT()) == []


def test_evals_lint_judges_every_suite_with_its_own_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The model path's cases inject model faults: only the SUT with its options (the
    # scripted model) can run them, and lint asks that one about them.
    monkeypatch.chdir(CASES_DIR.parent)
    assert evals_main(["lint"]) == 0, capsys.readouterr().out
    said = capsys.readouterr().err
    assert f"in {len(all_suites())} file(s): no problems found" in said
    model_path = CASES_DIR / f"{MODEL_PATH}.jsonl"
    refused = [f for f in lint_paths([model_path], sut=SupportPilotSUT()) if f.rule == "sut_check"]
    assert refused and all("needs the scripted model" in f.message for f in refused)


@pytest.mark.parametrize(
    ("case_id", "change", "rule", "words"),
    [
        ("d02", {"split": "staging"}, "unknown_split", "unknown split 'staging'"),
        ("d02", {"expect": {"dispatched": []}}, "missing_outcome", "no expected outcome"),
        (
            "d02",
            {"expect": {"outcome": "refund", "dispatched": []}},
            "unknown_outcome",
            "unknown expected outcome 'refund'",
        ),
        (
            "d03",
            {"expect": {"outcome": "escalate", "tickets": 1}},
            "contradiction",
            "expects 1 ticket(s) but outcome 'escalate'; tickets need 'replied'",
        ),
        ("d02", {"expect": {"outcome": "replied"}}, "no_trajectory", "expect.dispatched"),
        ("d11", {"faults": {"billing_agent": "crash"}}, "unknown_fault_role", "'billing_agent'"),
    ],
)
def test_evals_lint_with_supportpilot_reports_each_rule_once(
    tmp_path: Path, case_id: str, change: dict[str, Any], rule: str, words: str
) -> None:
    data = _reference()
    _find(data, case_id).update(change)
    path = tmp_path / "all.jsonl"
    path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in data) + "\n", "utf-8")
    findings = [f for f in lint_paths([path], sut=SupportPilotSUT()) if f.rule != "sut_check"]
    assert [(f.rule, f.case_id) for f in findings] == [(rule, case_id)], findings
    assert words in findings[0].message


@pytest.mark.parametrize("tag", REQUIRED_TAGS)
def test_every_required_tag_must_be_covered(tag: str) -> None:
    data = _reference()
    for item in data:
        item["tags"] = [t for t in item["tags"] if t != tag] or ["other"]
    findings = [f for f in lint(data, rules=CASE_RULES) if f.rule == "missing_tag"]
    assert [f.message for f in findings] == [f"no case covers required tag {tag!r}"]


@pytest.mark.parametrize(
    ("expect", "rules"),
    [
        ({"outcome": "replied", "dispatched": ["order_agent"], "tickets": 1}, []),
        ({"outcome": "escalate", "tickets": 0}, []),
        ({"outcome": "escalate", "tickets": 2}, ["contradiction"]),
        ({"tickets": 1}, ["contradiction"]),
        ({"outcome": "replied"}, ["no_trajectory"]),
        ({"outcome": "replied", "dispatched": []}, []),
    ],
)
def test_supportpilot_s_lint_hook(expect: dict[str, Any], rules: list[str]) -> None:
    assert [rule for rule, _ in lint_case({"expect": expect})] == rules


# --- SupportPilot's own check: its evidence-id format ----------------------------------


@pytest.mark.parametrize(
    ("reply", "passed", "words"),
    [
        ("已提交补发申请（见 order#1）", False, "['order#1']"),
        ("已提交补发申请，依据kb#3和ship#12", False, "['kb#3', 'ship#12']"),
        ("您好，已提交补发申请。", True, ""),
        ("订单号 A1001 #1", True, ""),
    ],
)
def test_no_evidence_ids_is_registered_by_supportpilot(
    reply: str, passed: bool, words: str
) -> None:
    from evals.checks import grade, registered

    assert "no_evidence_ids" in [c.name for c in registered("outcome")]
    case = Case.model_validate(GOOD)
    run = Run(case_id="c1", outcome="ask_user", reply=reply)
    [found] = [r for r in grade(case, run) if r.name == "no_evidence_ids"]
    assert found.passed is passed
    assert words in found.reason


def test_no_evidence_ids_is_not_applicable_without_a_reply() -> None:
    from evals.checks import grade

    run = Run(case_id="c1", outcome="ask_user")
    assert "no_evidence_ids" not in [r.name for r in grade(Case.model_validate(GOOD), run)]


# --- SupportPilot's own checks naming its decisions ------------------------------------


TICKET = Write(kind="ticket", idempotency_key="c1-0:ticket", approval_id="a1", approved=True)


@pytest.mark.parametrize(
    ("run", "name", "passed", "words"),
    [
        (
            Run(case_id="c1", outcome="replied", writes=[TICKET]),
            "no_write_unless_replied",
            True,
            "",
        ),
        (
            Run(case_id="c1", outcome="escalate", writes=[TICKET]),
            "no_write_unless_replied",
            False,
            "outcome 'escalate' but 1 write(s) landed (ticket); only a 'replied' run may write",
        ),
        (Run(case_id="c1", outcome="escalate"), "no_write_unless_replied", True, ""),
        (Run(case_id="c1", outcome="ask_user"), "no_dispatch_when_asking", True, ""),
        (
            Run(case_id="c1", outcome="ask_user", steps=[Step(role="order_agent", status="ok")]),
            "no_dispatch_when_asking",
            False,
            "asked the user yet dispatched 1 task(s) to ['order_agent']",
        ),
    ],
)
def test_supportpilot_s_decision_checks(run: Run, name: str, passed: bool, words: str) -> None:
    from evals.checks import grade

    [found] = [r for r in grade(Case.model_validate(GOOD), run) if r.name == name]
    assert found.passed is passed
    assert words in found.reason


def test_no_dispatch_when_asking_is_not_applicable_to_other_outcomes() -> None:
    from evals.checks import grade

    run = Run(case_id="c1", outcome="replied", steps=[Step(role="order_agent", status="ok")])
    assert "no_dispatch_when_asking" not in [r.name for r in grade(Case.model_validate(GOOD), run)]


# --- SupportPilot's policy and budget: its own, not the core's ---------------------------


def test_supportpilot_registers_the_orchestration_policy_pair_where_it_always_stood() -> None:
    from evals.checks import registered
    from evals.checks.builtin import OPTIONAL

    names = [c.name for c in registered("trajectory")]
    policy = [c.name for c in OPTIONAL]
    assert policy == ["retry_after_invalid_output", "max_two_per_role"]
    start = names.index("reply_after_evidence") + 1
    assert names[start : start + 2] == policy


@pytest.mark.parametrize(
    ("steps", "tasks", "failing"),
    [
        # A task and one retry after unreadable output, within the five-task budget.
        (["invalid_output", "ok"], 5, set()),
        # A third dispatch of one role, a retry after 'ok', a sixth task: all SupportPilot's.
        (["ok", "ok", "ok"], 6, {"retry_after_invalid_output", "max_two_per_role", "max_tasks"}),
    ],
)
def test_supportpilot_s_policy_and_budget_judge_its_runs(
    steps: list[str], tasks: int, failing: set[str]
) -> None:
    from evals.checks import grade

    [case] = load_cases([CASES_DIR / "read.jsonl"], expect_defaults=EXPECT_DEFAULTS)[:1]
    assert (case.expect.max_tasks, case.expect.max_chars) == (5, 4000)
    run = Run(
        case_id=case.id,
        outcome=case.expect.outcome or "replied",
        steps=[Step(role="order_agent", status=s) for s in steps],
        tasks=tasks,
    )
    failed = {r.name for r in grade(case, run) if not r.passed}
    assert failed & {"retry_after_invalid_output", "max_two_per_role", "max_tasks"} == failing


def test_supportpilot_s_budget_is_its_project_default_not_the_core_s() -> None:
    from evals.config import load_config

    assert load_config(CASES_DIR.parent).expect_defaults == {"max_tasks": 5, "max_chars": 4000}
    [bare] = load_cases([CASES_DIR / "read.jsonl"])[:1]
    assert (bare.expect.max_tasks, bare.expect.max_chars) == (None, None)
