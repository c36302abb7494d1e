"""The generated worlds (cases/generated.jsonl): the committed suite is what its
generator makes now, and ``evals generate --check`` says so (and says when it is not)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agent_evals.generated_worlds import GENERATOR
from agent_evals.spec_terms import FINAL_ORDER_MARKERS
from agent_evals.sut import SupportPilotSUT
from domain import parcel
from evals.cases.generate import stale_lines
from evals.checks import grade, success
from evals.cli.main import main

from .conftest import CASES_DIR, ROOT, load_cases

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


def _first_marker(status: str) -> str | None:
    found = [(status.find(word), word) for _, word in FINAL_ORDER_MARKERS if word in status]
    return min(found)[1] if found else None


def test_every_closing_word_of_the_spec_is_stated_first_by_some_order_status() -> None:
    """Each word that closes an order (spec_terms) is the first closing word of some value
    of the order-status dimension, so an agent that no longer knows that one word is
    judged by the oracle on it (the class of a vocabulary word no case said alone)."""
    (dimension,) = [d for d in GENERATOR.dimensions if d.name == "order_status"]
    firsts = {_first_marker(status) for status in dimension.values.values()}
    assert {word for _, word in FINAL_ORDER_MARKERS} <= firsts


GENERATED = {case.id: case for case in load_cases(("generated",))}


@pytest.mark.parametrize(
    ("state", "word"), FINAL_ORDER_MARKERS, ids=[w for _, w in FINAL_ORDER_MARKERS]
)
def test_an_agent_that_forgets_one_closing_word_fails_the_generated_suite(
    monkeypatch: pytest.MonkeyPatch, state: str, word: str
) -> None:
    """The positive control of that dimension: the agent's own list without ``word``."""
    cases = [c for c in GENERATED.values() if _first_marker(str(c.world)) == word]
    assert cases, word
    assert all(success(grade(c, SupportPilotSUT().run(c, 0))) for c in cases[:3])
    words = dict(parcel.CLOSED_STATUS_WORDS)
    words[state] = tuple(w for w in words[state] if w != word)  # type: ignore[index]
    monkeypatch.setattr(parcel, "CLOSED_STATUS_WORDS", words)
    assert not all(success(grade(c, SupportPilotSUT().run(c, 0))) for c in cases)
