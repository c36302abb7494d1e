"""A change that breaks the system under test so that its committed spec and options no
longer build it (its constructor raises, its module fails on import) is the change's
failure: the gate says FAIL with the reason, exit 1. Asked for on the command line
(``--sut``, ``--sut-option``), the same failure is a usage error, exit 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))

from evals.cli.main import main  # noqa: E402
from helpers import make_project  # noqa: E402

BOOM = "raise TypeError(\"unsupported operand type(s) for |: 'type' and 'NoneType'\")\n"
"""A module that fails as it is imported (a mutant's ``type | None`` on Python 3.9 rules)."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    assert main(["baseline"]) == 0
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "boom_sut.py").write_text(BOOM, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    return root


def _commit_sut(root: Path, spec: str) -> None:
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    text = text.replace('sut = "fake_suts:EchoSUT"', f'sut = "{spec}"')
    (root / "pyproject.toml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("fake_suts:BrokenInit", "creating it failed: OSError: database missing"),
        ("boom_sut:SUT", "importing 'boom_sut' failed: TypeError: unsupported operand"),
    ],
    ids=["constructor raises", "import fails"],
)
def test_a_committed_sut_that_no_longer_builds_fails_the_gate(
    project: Path, capsys: pytest.CaptureFixture[str], spec: str, reason: str
) -> None:
    _commit_sut(project, spec)
    capsys.readouterr()
    assert main(["gate"]) == 1
    out = capsys.readouterr().out
    verdict = out[out.index("Gate: ") :].splitlines()
    assert verdict[0] == "Gate: FAIL (1 hard, 0 soft)"
    assert verdict[1].startswith("  HARD  the system under test cannot be built")
    assert reason in verdict[1]


@pytest.mark.parametrize(
    "args",
    [["--sut", "fake_suts:BrokenInit"], ["--sut-option", "colour=blue"]],
    ids=["--sut", "--sut-option"],
)
def test_a_sut_the_command_line_asked_for_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    capsys.readouterr()
    assert main(["gate", *args]) == 2
    captured = capsys.readouterr()
    assert "Gate: " not in captured.out
    assert "cannot load SUT" in captured.err


def test_the_committed_sut_that_builds_still_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["gate"]) == 0
    assert "Gate: PASS" in capsys.readouterr().out
