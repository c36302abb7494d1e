"""The baseline file: per-case results, flaky cases left out, refused when malformed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.baseline import (
    BaselineError,
    build_baseline,
    load_baseline,
    write_baseline,
)
from evals.traces import RunMeta
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
    assert data["schema_version"] == 1
    assert data["case_success"] == {"d01": True, "d02": False, "r01": True}
    assert load_baseline(path) == baseline


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (None, "no baseline; create it with `nox -s baseline`"),
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
    with pytest.raises(BaselineError, match="schema_version 99"):
        load_baseline(path)
