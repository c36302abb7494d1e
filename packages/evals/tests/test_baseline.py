"""The baseline file: per-case results, flaky cases left out, refused when malformed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.gating.baseline import (
    BaselineError,
    build_baseline,
    case_fingerprint,
    load_baseline,
    write_baseline,
)
from evals.log.traces import RunMeta
from evals.model.case import Case
from helpers import result

META = RunMeta(suites=["read", "write"], sut="pkg:SUT", trials=1, git_revision="abc123")


def _results() -> list:
    return [
        result("d01", tags=("must_pass",)),
        result("d02", ok=False, chars=300, latency_ms=40.0),
        result("r01", split="regression", tags=("regression",), trajectory_ok=False),
        result("r04", split="regression", tags=("regression", "flaky"), ok=False),
    ]


def test_baseline_holds_per_case_success_without_flaky_cases() -> None:
    baseline = build_baseline(_results(), META, ["flaky"])
    assert baseline.case_success == {"d01": True, "d02": False, "r01": True}
    assert baseline.runs == 3 and baseline.cases == 3
    assert baseline.success_rate == pytest.approx(2 / 3)
    assert baseline.step_accuracy == pytest.approx(2 / 3)
    assert baseline.returned_chars_p95 == 300
    assert baseline.latency_ms_p95 == 100
    assert baseline.unauthorized_rate == 0
    assert baseline.exclude_tags == ["flaky"]
    assert (baseline.suites, baseline.sut, baseline.git_revision) == (
        ["read", "write"],
        "pkg:SUT",
        "abc123",
    )


def test_written_baseline_round_trips_with_every_case(tmp_path: Path) -> None:
    path = tmp_path / "reports" / "baseline.json"
    baseline = build_baseline(_results(), META, ["flaky"])
    write_baseline(path, baseline)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema_version"] == 3
    assert data["case_success"] == {"d01": True, "d02": False, "r01": True}
    assert data["case_checks"]["d02"] == {
        "dispatched": "1/1",
        "no_write_without_approval": "1/1",
        "outcome": "0/1",
    }
    assert data["check_kinds"] == {
        "dispatched": "trajectory",
        "no_write_without_approval": "safety",
        "outcome": "outcome",
    }
    assert load_baseline(path) == baseline


def test_per_check_verdicts_count_passes_over_trials() -> None:
    results = [
        result("d01", trial=0),
        result("d01", trial=1, ok=False),
        result("d01", trial=2, trajectory_ok=False),
        result("d01", trial=3, errored=True),  # a provider failure says nothing
    ]
    baseline = build_baseline(results, META.model_copy(update={"trials": 4}), [])
    assert baseline.case_checks == {
        "d01": {"dispatched": "2/3", "no_write_without_approval": "3/3", "outcome": "2/3"}
    }
    tally = baseline.tallies()["d01"]["outcome"]
    assert (tally.kind, tally.passed, tally.judged, tally.all_passed) == ("outcome", 2, 3, False)


def _good() -> dict:
    return json.loads(build_baseline(_results(), META, ["flaky"]).model_dump_json())


def _set(path: str, value: object) -> dict:
    data = _good()
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    target[last] = value
    return data


def _drop(key: str) -> dict:
    data = _good()
    del data[key]
    return data


# Corrupted baselines that used to be read as a weaker gate: each is refused, naming the key.
CORRUPTED = [
    ("nan-rate", _set("success_rate", float("nan")), "success_rate"),
    ("rate-above-1", _set("success_rate", 5.0), "success_rate"),
    ("rate-as-string", _set("success_rate", "1.0"), "success_rate"),
    ("negative-p95", _set("latency_ms_p95", -1.0), "latency_ms_p95"),
    ("infinite-p95", _set("returned_chars_p95", float("inf")), "returned_chars_p95"),
    ("empty-case-success", _set("case_success", {}), "case_success"),
    ("case-success-string", _set("case_success", "true"), "case_success"),
    ("case-pass-as-string", _set("case_success.d01", "true"), "case_success.d01"),
    ("typo-key", {**_drop("case_success"), "case_sucess": {"d01": True}}, "case_sucess"),
    ("unknown-key", {**_good(), "extra": 1}, "extra"),
    ("bad-verdict", _set("case_checks.d01.outcome", "2/1"), "d01.outcome"),
    ("verdict-zero-runs", _set("case_checks.d01.outcome", "0/0"), "d01.outcome"),
    ("verdict-number", _set("case_checks.d01.outcome", 1), "case_checks.d01.outcome"),
    ("unknown-kind", _set("check_kinds.outcome", "style"), "check_kinds.outcome"),
    ("kind-missing", _set("check_kinds", {}), "no kind for check"),
    ("cases-disagree", _set("case_checks", {"d01": {}}), "name different cases"),
    ("runs-negative", _set("runs", -3), "runs"),
    ("trials-zero", _set("trials", 0), "trials"),
    ("runs-bool", _set("runs", True), "runs"),
    ("old-version", _set("schema_version", 2), "2 is not 3"),
    ("fingerprint-short", _set("case_fingerprints", {"d01": "abc"}), "case_fingerprints.d01"),
    ("fingerprint-upper", _set("case_fingerprints", {"d01": "0123456789ABCDEF"}), "d01"),
    ("fingerprint-stranger", _set("case_fingerprints", {"zz": "0" * 16}), "not in case_success"),
]


@pytest.mark.parametrize(
    ("data", "fragment"), [c[1:] for c in CORRUPTED], ids=[c[0] for c in CORRUPTED]
)
def test_a_corrupted_baseline_is_refused_naming_the_key(
    tmp_path: Path, data: dict, fragment: str
) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BaselineError) as info:
        load_baseline(path)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_a_metrics_report_copied_over_the_baseline_is_refused(tmp_path: Path) -> None:
    from evals.metrics.summary import compute

    path = tmp_path / "baseline.json"
    path.write_text(compute(_results()).model_dump_json(), encoding="utf-8")
    with pytest.raises(BaselineError):
        load_baseline(path)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (None, "no baseline; create it with `evals baseline`"),
        ("not json", "(file)"),
        ('{"runs": 1}', "cases"),
    ],
)
def test_bad_baseline_is_one_line(tmp_path: Path, text: str | None, fragment: str) -> None:
    path = tmp_path / "baseline.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError) as info:
        load_baseline(path)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_baseline_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    baseline = build_baseline(_results(), META, ["flaky"]).model_copy(update={"schema_version": 99})
    write_baseline(path, baseline)
    with pytest.raises(BaselineError, match=r"schema_version: .*99 is not 3"):
        load_baseline(path)


def _case(case_id: str, **changes: object) -> Case:
    data: dict[str, object] = {
        "id": case_id,
        "split": "dev",
        "input": {"goal": "包裹没到", "order_id": "A1"},
        "expect": {"outcome": "ask_user"},
    }
    data.update(changes)
    return Case.model_validate(data)


@pytest.mark.parametrize(
    ("now", "unchanged"),
    [
        (_case("d01"), True),
        (_case("d01", title="edited"), False),
        (_case("d01", faults={"order_agent": "crash"}), False),
        (_case("d01", input={"goal": "包裹没到", "order_id": "A2"}), False),
        (_case("d99"), False),  # never in the baseline
        (_case("r04", split="regression"), False),  # flaky: left out, no fingerprint
    ],
)
def test_the_baseline_knows_which_cases_it_ran_unchanged(now: Case, unchanged: bool) -> None:
    ran = [_case("d01"), _case("d02"), _case("r01"), _case("r04", split="regression")]
    baseline = build_baseline(_results(), META, ["flaky"], ran)
    assert set(baseline.case_fingerprints) == {"d01", "d02", "r01"}
    assert baseline.case_fingerprints["d01"] == case_fingerprint(_case("d01"))
    assert baseline.unchanged(now) is unchanged


def test_a_fingerprint_hashes_the_whole_case() -> None:
    assert case_fingerprint(_case("d01")) != case_fingerprint(_case("d02"))
    assert case_fingerprint(_case("d01")) == case_fingerprint(_case("d01"))
    assert len(case_fingerprint(_case("d01"))) == 16


@pytest.mark.parametrize(
    ("changes", "same"),
    [
        ({}, True),
        ({"sut_options": {}}, True),
        ({"sut_env": {}}, True),
        ({"sut_options": {"brain": "rule"}}, False),
        ({"sut_env": {"X": "1"}}, False),
        ({"expect": {"outcome": "completed", "refused": []}}, False),
        ({"expect": {"outcome": "completed", "described": ["a"]}}, False),
    ],
)
def test_a_later_field_changes_a_fingerprint_only_when_a_case_uses_it(
    changes: dict, same: bool
) -> None:
    base = _case("d01").model_dump(mode="json")
    case = Case.model_validate({**base, **changes})
    assert (case_fingerprint(case) == case_fingerprint(_case("d01"))) is same


@pytest.mark.parametrize(
    ("expect", "fingerprint"),
    [  # as the core made them while `conflicts` was a field of its Expect (main, 95cb1ea)
        ({"outcome": "escalate"}, "81c9b7f016e0fd19"),
        ({"outcome": "escalate", "conflicts": ["parcel_state"]}, "7469904c87d2e446"),
        ({"outcome": "escalate", "conflicts": []}, "a3bf38f2c683719a"),
    ],
)
def test_a_key_that_left_the_core_keeps_its_cases_fingerprints(
    expect: dict, fingerprint: str
) -> None:
    """``expect.conflicts`` is SupportPilot's check's key now, not a field of the core's
    model: every baseline made before still knows its cases."""
    base = {"id": "c1", "split": "dev", "input": {"goal": "包裹没到"}, "expect": expect}
    assert case_fingerprint(Case.model_validate(base)) == fingerprint
