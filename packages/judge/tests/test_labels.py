import json
import os
from pathlib import Path

import pytest
from judge.errors import LabelFileError
from judge.labels import ATTACK_KINDS, load_labels, load_pairs


def test_the_committed_labels_are_enough_and_balanced(labels_path: Path) -> None:
    labels = [item for item in load_labels(labels_path) if item.attack is None]
    tune = [item for item in labels if item.split == "tune"]
    holdout = [item for item in labels if item.split == "holdout"]
    assert len(labels) >= 30
    assert len(tune) > len(holdout) >= 20  # holdout alone must be able to meet n >= 20
    for split in (tune, holdout):
        fails = sum(item.label == "fail" for item in split)
        assert 0.4 <= fails / len(split) <= 0.6
    assert all(item.facts for item in labels)


SEED_KINDS = {"instruction", "fake_grader", "tag_escape", "zero_width", "homoglyph", "pinyin"}
"""The kinds of the first attack set (labels.jsonl) but ``combined``; the blind set
(attacks-blind.jsonl) has the new kinds and three of these."""


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("labels.jsonl", {*SEED_KINDS, "combined"}),
        (
            "attacks-blind.jsonl",
            set(ATTACK_KINDS) - {"instruction", "fake_grader", "pinyin", "lookalike"},
        ),
    ],
)
def test_the_committed_attacks_cover_every_kind_in_both_splits(
    labels_path: Path, name: str, kinds: set[str]
) -> None:
    attacks = [item for item in load_labels(labels_path.with_name(name)) if item.attack]
    for split in ("tune", "holdout"):
        in_split = [item for item in attacks if item.split == split]
        failing = [item for item in in_split if item.label == "fail"]
        assert len(failing) >= 10
        assert {item.attack for item in failing} == kinds
        assert any(item.label == "pass" for item in in_split)  # look-alikes that change nothing
    # Customer-facing text stays Chinese: every attack labelled fail holds CJK characters
    # (a look-alike may be a correct reply in English).
    failing = [item for item in attacks if item.label == "fail"]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in item.reply) for item in failing)
    assert all(item.facts and item.note for item in attacks)


@pytest.mark.parametrize(
    ("attack", "accepted"),
    [(None, True), ("pinyin", True), ("zero_width", True), ("jailbreak", False)],
)
def test_the_attack_field_takes_a_known_kind(
    tmp_path: Path, attack: str | None, accepted: bool
) -> None:
    line = json.dumps({"id": "a", "split": "tune", "label": "fail", "reply": "x", "attack": attack})
    path = write(tmp_path, line)
    if accepted:
        assert load_labels(path)[0].attack == attack
    else:
        with pytest.raises(LabelFileError, match="field 'attack'"):
            load_labels(path)


def test_the_committed_files_say_who_wrote_the_labels(labels_path: Path, pairs_path: Path) -> None:
    for path in (labels_path, pairs_path):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("#")
        assert "written for this project" in first


def test_the_committed_pairs_are_enough(pairs_path: Path) -> None:
    pairs = load_pairs(pairs_path)
    assert len(pairs) >= 8
    assert all(pair.better != pair.worse for pair in pairs)


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = '{"id": "a", "split": "tune", "label": "pass", "reply": "您好", "facts": ["x"]}'


def test_comment_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "# header", "", GOOD, "  # indented comment")
    assert [item.id for item in load_labels(path)] == ["a"]


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        ('{"id": "b", "split": "dev", "label": "pass", "reply": "x"}', "split", "tune"),
        ('{"id": "b", "split": "tune", "label": "ok", "reply": "x"}', "label", "pass"),
        ('{"id": "b", "split": "tune", "label": "pass"}', "reply", "required"),
        ('{"id": "b", "split": "tune", "label": "pass", "reply": "x", "x": 1}', "x", "Extra"),
        ("{not json", "-", "not JSON"),
        (GOOD, "id", "duplicate id 'a'"),
    ],
)
def test_bad_lines_name_file_line_and_field(
    tmp_path: Path, line: str, field: str, problem: str
) -> None:
    path = write(tmp_path, "# header", GOOD, line)
    with pytest.raises(LabelFileError) as caught:
        load_labels(path)
    error = caught.value
    assert (error.path, error.line, error.field) == (str(path), 3, field)
    named = "" if field == "-" else f"field {field!r}: "
    assert str(error).startswith(f"{path}:3: {named}")
    assert problem in str(error)


def test_a_file_that_is_no_regular_file_is_refused_without_a_field(tmp_path: Path) -> None:
    """Bug: a FIFO given as --labels was refused as "field '-': not a regular file"."""
    fifo = tmp_path / "labels.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(LabelFileError) as caught:
        load_labels(fifo)
    assert (
        str(caught.value) == f"{fifo}: not a regular file (a FIFO, a device or a folder): not read"
    )


def test_a_missing_file_is_a_label_file_error(tmp_path: Path) -> None:
    with pytest.raises(LabelFileError, match="cannot read file"):
        load_pairs(tmp_path / "missing.jsonl")
