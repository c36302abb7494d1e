"""The generated worlds (cases/generated.jsonl): the committed suite is what its
generator makes now, and ``evals generate --check`` says so (and says when it is not)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agent_evals.generated_worlds import GENERATOR
from evals.cases.generate import stale_lines
from evals.cli.main import main

from .conftest import CASES_DIR, ROOT

SPEC = "agent_evals.generated_worlds:GENERATOR"


def test_the_committed_generated_suite_is_in_sync() -> None:
    assert GENERATOR.suite == "generated"
    assert stale_lines(GENERATOR, CASES_DIR / "generated.jsonl") == []


def test_evals_generate_check_passes_on_the_repository(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["generate", SPEC, "--check"]) == 0
    assert capsys.readouterr().out == "cases/generated.jsonl: in sync\n"


def test_a_hand_edited_copy_is_stale_and_regenerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "generated.jsonl"
    shutil.copy(CASES_DIR / "generated.jsonl", copy)
    lines = copy.read_text(encoding="utf-8").splitlines()
    edited = lines[1].replace('"outcome": "replied"', '"outcome": "escalate"', 1)
    assert edited != lines[1]
    copy.write_text("\n".join([lines[0], edited, *lines[2:]]) + "\n", encoding="utf-8")
    assert main(["generate", SPEC, "--out", str(copy), "--check"]) == 1
    out = capsys.readouterr().out
    assert out.endswith(": differs in expect\n") and len(out.splitlines()) == 1
    assert main(["generate", SPEC, "--out", str(copy)]) == 0
    assert copy.read_bytes() == (CASES_DIR / "generated.jsonl").read_bytes()
