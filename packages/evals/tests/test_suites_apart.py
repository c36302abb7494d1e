"""Suites apart: a suite that runs with SUT options of its own (``[tool.evals.suite_options]``)
is an evaluation of its own, with its own baseline, never run with options not its own;
and what the SUT says it really runs (its ``describe()`` hook) heads every report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli.main import main  # noqa: E402
from evals.config import load_config  # noqa: E402
from evals.model.sut import sut_description  # noqa: E402
from helpers import make_project  # noqa: E402

GAMMA = [
    {
        "id": f"g0{i}",
        "split": "dev",
        "tags": ["happy"],
        "input": {"goal": "包裹一直没到", "order_id": f"A-g0{i}"},
        "world": {"needs": "special"},
        "expect": {"outcome": "ask_user", "dispatched": []},
    }
    for i in (1, 2)
]
APART = '[tool.evals.suite_options.gamma]\nmode = "special"\n'


def write_project(root: Path, extra: str = APART) -> Path:
    make_project(root, sut="fake_suts:DescribedSUT")
    lines = [json.dumps(case, ensure_ascii=False) for case in GAMMA]
    (root / "cases" / "gamma.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("\n" + extra)
    return root


@pytest.fixture
def apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    return root


def report(root: Path, label: str) -> dict[str, object]:
    return json.loads((root / "reports" / f"{label}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_every_suite_leaves_the_suite_apart_out_and_says_so(
    apart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--label", "all"]) == 0
    out, err = capsys.readouterr()
    assert "suites: alpha, beta |" in out
    assert "note: suite(s) gamma run apart" in err and "--suite" in err
    meta = report(apart, "all")["meta"]
    assert meta["suites"] == ["alpha", "beta"]  # type: ignore[index]


def test_the_suite_apart_runs_with_its_own_options_and_says_what_ran(
    apart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--suite", "gamma"]) == 0
    out, err = capsys.readouterr()
    assert "SUT: fake_suts:DescribedSUT (mode=special)" in out
    assert "system: mode=special\nsystem: mode=special (given)\n" in out
    assert "note:" not in err
    data = report(apart, "gamma")
    assert data["runs"] == 2 and data["successes"] == 2
    assert data["meta"]["sut_description"] == ["mode=special", "mode=special (given)"]  # type: ignore[index]
    markdown = (apart / "reports" / "gamma.md").read_text(encoding="utf-8")
    assert "- system: mode=special (given)" in markdown
    assert "system: mode=special (given)" in (apart / "reports" / "gamma.html").read_text()


def test_without_its_options_the_suite_apart_is_refused_by_the_sut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The positive control of the whole mechanism: the same suite, not declared apart,
    # runs with the default options and its cases cannot run.
    monkeypatch.chdir(write_project(tmp_path / "proj", extra=""))
    assert main(["run", "--suite", "gamma"]) == 2
    assert "world.needs: this case needs mode=special" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--suite", "gamma", "--suite", "alpha"], "evaluate it apart from 'alpha'"),
        (["--cases", "cases/gamma.jsonl"], "is suite 'gamma', which runs with SUT options"),
        (["--suite", "gamma", "--sut-option", "mode=plain"], "contradicts suite 'gamma'"),
    ],
    ids=["beside-others", "as-cases", "contradicting-option"],
)
def test_options_not_its_own_are_refused_in_one_line(
    apart: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    assert main(["run", *args]) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (apart / "traces").exists() or not any((apart / "traces").iterdir())


def test_a_repeated_or_added_option_is_applied(
    apart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--suite", "gamma", "--sut-option", "mode=special", "--sut-option", "x=1"]
    assert main(args) == 0
    assert "system: mode=special (given), x=1 (given)" in capsys.readouterr().out


def test_the_suite_apart_has_its_own_baseline(
    apart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["baseline", "--suite", "gamma"]) == 0
    assert main(["baseline"]) == 0
    capsys.readouterr()
    own = json.loads((apart / "reports" / "baseline-gamma.json").read_text(encoding="utf-8"))
    default = json.loads((apart / "reports" / "baseline.json").read_text(encoding="utf-8"))
    assert sorted(own["case_success"]) == ["g01", "g02"] and own["suites"] == ["gamma"]
    assert "g01" not in default["case_success"] and default["suites"] == ["alpha", "beta"]
    assert main(["gate", "--suite", "gamma"]) == 0
    out = capsys.readouterr().out
    assert "Gate: PASS (0 hard, 0 soft)" in out and "not run" not in out
    assert main(["gate"]) == 0
    assert "In the baseline, not run" not in capsys.readouterr().out


def test_the_suite_apart_s_gate_judges_its_own_runs(
    apart: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["baseline", "--suite", "gamma"]) == 0
    monkeypatch.setenv("FAKE_SUT_FAIL", "g02")
    capsys.readouterr()
    assert main(["gate", "--suite", "gamma"]) == 1
    assert "1 case newly failing: g02" in capsys.readouterr().out


@pytest.mark.parametrize("extra", ["", APART], ids=["not-apart", "apart"])
def test_lint_asks_each_case_s_own_sut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], extra: str
) -> None:
    monkeypatch.chdir(write_project(tmp_path / "proj", extra=extra))
    main(["lint"])
    out = capsys.readouterr().out
    flagged = [line for line in out.splitlines() if "world.needs" in line]
    assert len(flagged) == (0 if extra else 2), out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('[tool.evals.suite_options.delta]\nmode = "x"\n', "names suite 'delta'"),
        ('[tool.evals.suite_options.gamma]\n"bad key" = "x"\n', "must be an identifier"),
        ("[tool.evals.suite_options.gamma]\nmode = 3\n", "suite_options.gamma.mode"),
    ],
    ids=["missing-suite", "bad-name", "not-a-string"],
)
def test_a_bad_suite_options_table_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: str,
    fragment: str,
) -> None:
    monkeypatch.chdir(write_project(tmp_path / "proj", extra=extra))
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_the_configuration_knows_the_suites_apart(apart: Path) -> None:
    config = load_config()
    assert config.suites() == ["alpha", "beta", "gamma"]
    assert config.default_suites() == ["alpha", "beta"] and config.suites_apart() == ["gamma"]
    assert config.baseline_for(["gamma"]).name == "baseline-gamma.json"
    assert config.baseline_for(["alpha", "beta"]) == config.baseline_path


@pytest.mark.parametrize(
    ("how", "line"),
    [
        ("raise", "(its describe() raised RuntimeError: no settings)"),
        ("junk", "(its describe() returned dict, not a list of strings)"),
    ],
)
def test_a_misbehaving_describe_hook_is_one_line(how: str, line: str) -> None:
    from fake_suts import DescribedSUT

    assert sut_description(DescribedSUT(describe=how)) == [line]


def test_a_sut_without_the_hook_describes_nothing() -> None:
    from fake_suts import EchoSUT

    assert sut_description(EchoSUT()) == []


def test_a_resumed_evaluation_refuses_a_sut_that_now_runs_something_else(
    apart: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["run", "--suite", "gamma", "--label", "g"]) == 0
    [folder] = [p for p in (apart / "traces").iterdir() if p.is_dir()]
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta.update(complete=False, finished=None)
    meta["sut_description"] = ["mode=special", "mode=special (from the environment)"]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--resume", folder.name]) == 2
    assert "what the SUT says it runs is" in capsys.readouterr().err
