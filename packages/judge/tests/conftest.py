from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[3]
LABELS = ROOT / "cases" / "judge" / "labels.jsonl"
PAIRS = ROOT / "cases" / "judge" / "pairs.jsonl"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def labels_path() -> Path:
    """The committed labels file."""
    return LABELS


@pytest.fixture
def pairs_path() -> Path:
    """The committed pairs file."""
    return PAIRS
