"""``evals review``: the cases that passed every run of the baselines given."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.cli.main import main
from evals.gating.baseline import build_baseline, write_baseline
from evals.log.traces import RunMeta
from helpers import result


def baseline_file(tmp_path: Path, name: str, runs: dict[str, list[bool]], **meta: object) -> Path:
    """A baseline of ``runs`` (case -> the success of each trial) written to ``name``."""
    results = [
        result(case, trial=trial, ok=ok)
        for case, oks in runs.items()
        for trial, ok in enumerate(oks)
    ]
    trials = max(len(oks) for oks in runs.values())
    baseline = build_baseline(results, RunMeta(suites=["all"], trials=trials, **meta), [])  # type: ignore[arg-type]
    path = tmp_path / name
    write_baseline(path, baseline)
    return path


@pytest.mark.parametrize(
    ("histories", "listed", "head"),
    [
        ([{"a": [True], "b": [False]}], ["a"], "1 of 2 case(s) passed every run of 1 baseline(s)"),
        (  # b passes now but failed in the older baseline: not always passing
            [{"a": [True], "b": [True]}, {"a": [True], "b": [False]}],
            ["a"],
            "1 of 2 case(s) passed every run of 2 baseline(s)",
        ),
        (  # one failed trial of three is a failure of the case
            [{"a": [True, True, True], "b": [True, False, True]}],
            ["a"],
            "1 of 2 case(s) passed every run of 1 baseline(s)",
        ),
        (  # c is new: it has no history in the older baseline
            [{"a": [True], "c": [True]}, {"a": [True]}],
            ["a"],
            "1 of 1 case(s) passed every run of 2 baseline(s); 1 case(s) not in every",
        ),
        ([{"a": [False]}], [], "0 of 1 case(s) passed every run of 1 baseline(s)"),
    ],
)
def test_review_lists_the_cases_that_passed_every_run_of_every_baseline(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    histories: list[dict[str, list[bool]]],
    listed: list[str],
    head: str,
) -> None:
    paths = [baseline_file(tmp_path, f"b{i}.json", h) for i, h in enumerate(histories)]
    assert main(["review", *map(str, paths)]) == 0
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith(f"review: {head}")
    assert [line.strip() for line in rest] == listed


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "no baseline"),
        ("{", "b.json"),
        ("majority", "case_verdict: 'majority'"),
    ],
)
def test_an_unusable_baseline_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, fragment: str
) -> None:
    path = tmp_path / "b.json"
    if content == "majority":
        path = baseline_file(tmp_path, "b.json", {"a": [True, True, False]})
        path.write_text(
            path.read_text().replace('"case_verdict": "all"', '"case_verdict": "majority"')
        )
    elif content is not None:
        path.write_text(content)
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and fragment in err and "Traceback" not in err
