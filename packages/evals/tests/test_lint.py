"""Lint: every rule fires on the data it is about, and the reference set is clean."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from evals.cases.lint import Finding, lint, lint_paths
from evals.cases.vocabulary import CaseRules
from evals.checks import registered_expect_keys
from evals.model.case import Case
from support_rules import REQUIRED_TAGS, SUPPORT_EXPECT_KEYS, SUPPORT_RULES, RulesSUT


def support_keys() -> frozenset[str]:
    """The expect keys SupportPilot's cases may use: the registered checks' and its own."""
    return registered_expect_keys() | SUPPORT_EXPECT_KEYS


def slint(cases: Any, **options: Any) -> list[Finding]:
    """Lint with the stand-in of SupportPilot's vocabulary (its SUT declares it) and its
    checks' expect keys."""
    return lint(cases, rules=SUPPORT_RULES, **{"expect_keys": support_keys(), **options})


def raw(cases: dict[str, Case]) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json", exclude_defaults=True) for c in cases.values()]


def by_rule(findings: list[Finding], rule: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule]


def test_reference_cases_lint_clean(reference_cases: dict[str, Case]) -> None:
    assert slint(list(reference_cases.values())) == []


def test_reference_files_lint_clean(suite_files: list[Path]) -> None:
    assert lint_paths(suite_files, sut=RulesSUT(), expect_keys=support_keys()) == []


def find(data: list[dict[str, Any]], case_id: str) -> dict[str, Any]:
    return next(d for d in data if d["id"] == case_id)


def set_split(data: list[dict[str, Any]]) -> None:
    find(data, "d02")["split"] = "staging"


def drop_outcome(data: list[dict[str, Any]]) -> None:
    del find(data, "d02")["expect"]["outcome"]


def bad_outcome(data: list[dict[str, Any]]) -> None:
    find(data, "d02")["expect"]["outcome"] = "refund"


def unknown_role(data: list[dict[str, Any]]) -> None:
    find(data, "d11")["faults"] = {"billing_agent": "crash"}


def unknown_kind(data: list[dict[str, Any]]) -> None:
    find(data, "d11")["faults"] = {"logistics_agent": "Melt down"}


def expect_typo(data: list[dict[str, Any]]) -> None:
    find(data, "d03")["expect"]["tikets"] = 0


def no_tags(data: list[dict[str, Any]]) -> None:
    find(data, "d08")["tags"] = []


def duplicate(data: list[dict[str, Any]]) -> None:
    find(data, "t06")["id"] = "d02"


@pytest.mark.parametrize(
    ("breakage", "rule", "case_id", "words"),
    [
        (set_split, "unknown_split", "d02", "unknown split 'staging'"),
        (drop_outcome, "missing_outcome", "d02", "no expected outcome"),
        (bad_outcome, "unknown_outcome", "d02", "unknown expected outcome 'refund'"),
        (unknown_role, "unknown_fault_role", "d11", "unknown role 'billing_agent'"),
        (unknown_kind, "unknown_fault_kind", "d11", "unknown fault kind 'Melt down'"),
        (
            expect_typo,
            "unknown_expect_key",
            "d03",
            "unknown expectation 'tikets'; no check reads it (did you mean 'tickets'?)",
        ),
        (no_tags, "no_tags", "d08", "no tags"),
        (duplicate, "duplicate_id", "d02", "id 'd02' already used"),
    ],
)
def test_each_case_rule_fires_and_names_the_case(
    reference_cases: dict[str, Case],
    breakage: Callable[[list[dict[str, Any]]], None],
    rule: str,
    case_id: str,
    words: str,
) -> None:
    data = raw(reference_cases)
    breakage(data)
    findings = slint(data)
    assert [(f.rule, f.case_id) for f in findings] == [(rule, case_id)], findings
    assert words in findings[0].message
    assert f"case '{case_id}': {rule}: " in findings[0].render()


def test_duplicate_ids_are_found_in_loaded_cases(reference_cases: dict[str, Case]) -> None:
    cases = list(reference_cases.values())
    twin = cases[0].model_copy(update={"title": "a second case with the same id"})
    findings = by_rule(slint([*cases, twin]), "duplicate_id")
    assert [f.case_id for f in findings] == [cases[0].id]


def test_leakage_between_splits_is_found(reference_cases: dict[str, Case]) -> None:
    data = raw(reference_cases)
    leaked = copy.deepcopy(find(data, "d01"))
    leaked.update(id="t99", split="test", title="a test case that is really d01")
    findings = slint([*data, leaked])
    leaks = by_rule(findings, "leakage")
    assert sorted(f.case_id or "" for f in leaks) == ["d01", "t99"]
    assert "t99 (test)" in next(f.message for f in leaks if f.case_id == "d01")
    assert findings == leaks


def test_leakage_compares_input_world_and_faults(reference_cases: dict[str, Case]) -> None:
    data = raw(reference_cases)
    near = copy.deepcopy(find(data, "d01"))
    near.update(id="t98", split="test", faults={"policy_agent": "crash"})
    assert slint([*data, near]) == []
    # same input+world+faults within one split is not leakage
    same_split = copy.deepcopy(find(data, "d01"))
    same_split.update(id="d98", title="same split")
    assert by_rule(slint([*data, same_split]), "leakage") == []


def test_leakage_treats_a_missing_world_like_an_empty_one(reference_cases: dict[str, Case]) -> None:
    data = raw(reference_cases)
    twin = copy.deepcopy(find(data, "d01"))
    twin.update(id="r99", split="regression", world={}, faults={})
    assert {f.case_id for f in by_rule(slint([*data, twin]), "leakage")} == {"d01", "r99"}


def test_small_split_names_its_cases(reference_cases: dict[str, Case]) -> None:
    cases = [c for c in reference_cases.values() if c.split != "regression" or c.id == "r01"]
    findings = slint(cases)
    assert [f.rule for f in findings] == ["small_split"]
    assert "split 'regression' has 1 case(s) (r01); the minimum is 3" in findings[0].message
    assert slint(cases, min_split_size=1) == []


def test_minimum_split_size_is_a_parameter(reference_cases: dict[str, Case]) -> None:
    findings = slint(list(reference_cases.values()), min_split_size=5)
    assert [(f.rule, f.message.split(" has")[0]) for f in findings] == [
        ("small_split", "split 'regression'")
    ]


@pytest.mark.parametrize("tag", REQUIRED_TAGS)
def test_every_required_tag_must_be_covered(reference_cases: dict[str, Case], tag: str) -> None:
    data = raw(reference_cases)
    for item in data:
        item["tags"] = [t for t in item["tags"] if t != tag] or ["other"]
    findings = by_rule(slint(data), "missing_tag")
    assert [f.message for f in findings] == [f"no case covers required tag {tag!r}"]


def test_required_tags_are_a_parameter(reference_cases: dict[str, Case]) -> None:
    findings = slint(list(reference_cases.values()), required_tags=("happy", "multilingual"))
    assert [f.message for f in findings] == ["no case covers required tag 'multilingual'"]


def test_known_roles_extend_the_declared_fault_targets(
    reference_cases: dict[str, Case],
) -> None:
    data = raw(reference_cases)
    unknown_role(data)
    assert by_rule(slint(data, known_roles=["billing_agent"]), "unknown_fault_role") == []


def test_without_declared_targets_the_roles_seen_in_expectations_are_known(
    reference_cases: dict[str, Case],
) -> None:
    data = raw(reference_cases)
    unknown_role(data)
    assert [f.case_id for f in by_rule(lint(data), "unknown_fault_role")] == ["d11"]
    find(data, "d11")["faults"] = {"logistics_agent": "crash"}
    assert by_rule(lint(data), "unknown_fault_role") == []


FAQ_CASES: list[dict[str, Any]] = [
    {
        "id": f"faq{i}",
        "split": split,
        "tags": ["hours"],
        "input": {"question": f"When do you open on day {i}?"},
        "expect": {"contains": "9"},
    }
    for i, split in enumerate(["train", "train", "train", "holdout", "holdout", "holdout"])
]
"""A FAQ agent's cases: its own splits, no outcome, an input of its own shape."""


def test_the_neutral_core_lints_another_project_s_cases_clean() -> None:
    assert lint(FAQ_CASES, expect_keys={"contains"}) == []


@pytest.mark.parametrize(
    ("change", "rule", "words"),
    [
        ({"split": ""}, "unknown_split", "unknown split ''"),
        ({"split": 3}, "unknown_split", "unknown split 3"),
        ({"expect": {"contains": "9", "outcome": ""}}, "unknown_outcome", "outcome ''"),
        ({"expect": {"contains": "9", "outcome": ["x"]}}, "unknown_outcome", "outcome ['x']"),
    ],
)
def test_the_neutral_core_still_wants_named_splits_and_outcomes(
    change: dict[str, Any], rule: str, words: str
) -> None:
    data = [{**FAQ_CASES[0], **change}, *FAQ_CASES[1:]]
    findings = lint(data, expect_keys={"contains", "outcome"})
    assert [(f.rule, f.case_id) for f in findings if f.rule == rule] == [(rule, "faq0")]
    assert words in next(f.message for f in findings if f.rule == rule)


def test_small_split_judges_the_splits_cases_name_when_none_are_declared() -> None:
    findings = lint(FAQ_CASES[:4], expect_keys={"contains"})
    assert [f.message for f in findings] == [
        "split 'holdout' has 1 case(s) (faq3); the minimum is 3"
    ]


def test_a_project_s_vocabulary_drives_the_rules() -> None:
    rules = CaseRules(
        splits=("train", "holdout"),
        outcomes=("answered", "refused"),
        outcome_required=True,
        required_tags=("hours", "refund"),
    )
    data = [dict(c, expect={"contains": "9", "outcome": "answered"}) for c in FAQ_CASES]
    data[0] = {**data[0], "split": "dev", "expect": {"contains": "9"}}
    data[1] = {**data[1], "expect": {"outcome": "replied"}}
    findings = lint(data, expect_keys={"contains", "outcome"}, rules=rules)
    assert [(f.rule, f.case_id) for f in findings] == [
        ("unknown_split", "faq0"),
        ("missing_outcome", "faq0"),
        ("unknown_outcome", "faq1"),
        ("small_split", None),
        ("missing_tag", None),
    ]
    assert findings[-1].message == "no case covers required tag 'refund'"


def test_a_project_s_lint_hook_adds_its_own_rules() -> None:
    def hook(data: Any) -> list[tuple[str, str]]:
        return [("long_question", "question too long")] if data["id"] == "faq2" else []

    def broken(data: Any) -> list[tuple[str, str]]:
        raise KeyError("oops")

    found = lint(FAQ_CASES, expect_keys={"contains"}, rules=CaseRules(lint=hook))
    assert [(f.rule, f.case_id, f.message) for f in found] == [
        ("long_question", "faq2", "question too long")
    ]
    found = lint(FAQ_CASES[:1], expect_keys={"contains"}, rules=CaseRules(lint=broken))
    assert found[0].rule == "lint_hook"
    assert "raised KeyError" in found[0].message


def test_lint_paths_reaches_rules_the_loader_would_stop(
    tmp_path: Path, suite_files: list[Path]
) -> None:
    lines = [
        line for p in suite_files for line in p.read_text("utf-8").splitlines() if line.strip()
    ]
    broken = [json.loads(text) for text in lines]
    broken[0]["split"] = "staging"
    del broken[1]["expect"]["outcome"]
    path = tmp_path / "all.jsonl"
    body = [json.dumps(d, ensure_ascii=False) for d in broken] + ["{not json"]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    findings = lint_paths([path], sut=RulesSUT(), expect_keys=support_keys())
    rendered = [f.render() for f in findings]
    assert [f.rule for f in findings] == ["unreadable", "unknown_split", "missing_outcome"]
    assert rendered[0].startswith(f"{path}:27: unreadable: (json): bad JSON")
    assert rendered[1].startswith(f"{path}:1: case '{broken[0]['id']}': unknown_split: ")
    assert rendered[2].startswith(f"{path}:2: case '{broken[1]['id']}': missing_outcome: ")


def test_expect_keys_extend_the_known_expectations(reference_cases: dict[str, Case]) -> None:
    data = raw(reference_cases)
    find(data, "d03")["expect"]["max_refunds"] = 1
    assert [f.rule for f in slint(data)] == ["unknown_expect_key"]
    known = support_keys() | {"max_refunds"}
    assert by_rule(slint(data, expect_keys=known), "unknown_expect_key") == []


@pytest.mark.parametrize(
    ("refused", "flagged"),
    [(None, True), ([], True), (["faults.billing_agent: unknown role"], False)],
    ids=["run case", "must be accepted", "must be refused"],
)
def test_a_case_the_sut_must_refuse_may_name_an_unknown_role(
    reference_cases: dict[str, Case], refused: list[str] | None, flagged: bool
) -> None:
    data = raw(reference_cases)
    unknown_role(data)
    if refused is not None:
        d11 = find(data, "d11")
        d11["expect"] = {"refused": refused}
        d11["id"] = "d11-config"
    found = [f.case_id for f in by_rule(slint(data), "unknown_fault_role")]
    assert found == (["d11-config" if refused is not None else "d11"] if flagged else [])


@pytest.mark.parametrize("configuration", [False, True])
def test_a_configuration_case_never_leaks_into_a_run_case(
    reference_cases: dict[str, Case], configuration: bool
) -> None:
    data = raw(reference_cases)
    twin = copy.deepcopy(find(data, "d01"))
    twin["id"], twin["split"] = "d01-twin", "regression"
    if configuration:
        twin["expect"] = {"refused": []}
    data.append(twin)
    leaks = {f.case_id for f in by_rule(slint(data), "leakage")}
    assert ("d01-twin" in leaks) is not configuration
