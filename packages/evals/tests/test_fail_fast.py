"""``evals gate --fail-fast``: the evaluation stops once more cases the baseline saw pass
have failed than the gate allows, the verdict is reached from the runs that finished, and
a stop those runs do not bear out is never a pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli.main import main  # noqa: E402
from evals.gating.baseline import Baseline  # noqa: E402
from evals.gating.fail_fast import STOPPED_EARLY, FailFast  # noqa: E402
from evals.gating.rules import GateConfig  # noqa: E402
from helpers import make_project, result  # noqa: E402

PASSING = frozenset({"a", "b", "c"})


def _rule(trials: int = 1, rule: str = "all", allowed: int = 0) -> FailFast:
    return FailFast(
        passing=PASSING,
        trials=trials,
        rule=rule,  # type: ignore[arg-type]
        allowed=allowed,
        excluded=frozenset({"flaky"}),
    )


@pytest.mark.parametrize(
    ("what", "rule", "runs", "stops_at"),
    [
        ("a passing case that fails", _rule(), [("a", False)], 0),
        ("passes first, then one fails", _rule(), [("a", True), ("b", False)], 1),
        ("a case the baseline saw fail", _rule(), [("x", False), ("a", True)], None),
        ("an excluded tag", _rule(), [("a", False, ("flaky",))], None),
        ("an errored run judges nothing", _rule(), [("a", None)], None),
        ("one more than allowed", _rule(allowed=1), [("a", False), ("b", False)], 1),
        ("as many as allowed", _rule(allowed=1), [("a", False), ("b", True)], None),
        ("all: one failed trial of three", _rule(3), [("a", True), ("a", True), ("a", False)], 2),
        ("all: waits for the last trial", _rule(3), [("a", False), ("a", True)], None),
        (
            "majority: 2 of 3 pass",
            _rule(3, "majority"),
            [("a", False), ("a", True), ("a", True)],
            None,
        ),
        (
            "majority: 1 of 3 passes",
            _rule(3, "majority"),
            [("a", False), ("a", True), ("a", False)],
            2,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_when_the_rule_stops(
    what: str, rule: FailFast, runs: list[tuple], stops_at: int | None
) -> None:
    said = []
    for i, (case, ok, *tags) in enumerate(runs):
        run = result(case, trial=i, ok=bool(ok), errored=ok is None, tags=tags[0] if tags else ())
        said.append(rule(run))
    stopped = [i for i, reason in enumerate(said) if reason is not None]
    assert (stopped[0] if stopped else None) == stops_at, said
    if stops_at is not None:
        assert said[stops_at].startswith(STOPPED_EARLY)  # type: ignore[union-attr]


def test_the_rule_reads_the_baseline_and_the_gate_config() -> None:
    baseline = Baseline.model_construct(case_success={"a": True, "b": False})
    config = GateConfig.model_validate({"case_verdict": "majority", "exclude_tags": ["slow"]})
    rule = FailFast.of(baseline, config, trials=3, exclude_tags=["wip"])
    assert rule.passing == {"a"}
    assert (rule.trials, rule.rule, rule.allowed) == (3, "majority", 0)
    assert rule.excluded == {"slow", "wip"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    assert main(["baseline"]) == 0
    return root


def _verdict(out: str) -> list[str]:
    return out[out.index("Gate: ") :].splitlines()


def test_a_broken_sut_stops_at_its_first_failing_case(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SUT_FAIL", "d01,t01")
    capsys.readouterr()
    assert main(["gate", "--fail-fast", "--concurrency", "1", "--label", "ff"]) == 1
    verdict = _verdict(capsys.readouterr().out)
    assert verdict[0].startswith("Gate: FAIL")
    assert "Pass -> fail: d01" in verdict
    stop = next(line for line in verdict if line.startswith("In the baseline, not run:"))
    assert stop.startswith("In the baseline, not run: 7 case(s): stopped early (--fail-fast)")
    # Without the flag, the same change runs to the end and fails the same way.
    assert main(["gate", "--concurrency", "1", "--label", "full"]) == 1
    full = _verdict(capsys.readouterr().out)
    assert full[0].startswith("Gate: FAIL")
    assert "Pass -> fail: d01, t01" in full


def test_a_sound_sut_runs_to_the_end_and_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["gate", "--fail-fast"]) == 0
    verdict = _verdict(capsys.readouterr().out)
    assert verdict[0] == "Gate: PASS (0 hard, 0 soft)"
    assert not any(line.startswith("In the baseline, not run") for line in verdict)


def test_a_stop_the_finished_runs_do_not_bear_out_is_not_judged(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluation that says it stopped early though no case newly failed (a SUT that
    reached the rule, a bug in it) is never a pass."""
    monkeypatch.setattr(FailFast, "__call__", lambda self, run: f"{STOPPED_EARLY}: no reason")
    capsys.readouterr()
    assert main(["gate", "--fail-fast", "--in-process"]) == 2
    out = capsys.readouterr().out
    assert "Gate: not judged" in out
    assert "the finished runs do not fail the gate" in out
