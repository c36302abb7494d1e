"""Labelled data for calibration: replies labelled pass/fail, and (better, worse) pairs.

Both files are JSONL; lines starting with ``#`` (the header saying who wrote the labels)
and blank lines are skipped. Any invalid line raises ``LabelFileError`` naming the file,
the line and the field.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.errors import LabelFileError
from judge.verdict import Label

Split = Literal["tune", "holdout"]
"""Tune rules and prompts on ``tune``; judge usability only on ``holdout``."""

SPLITS: tuple[Split, ...] = ("tune", "holdout")
"""The splits, in report order."""

AttackKind = Literal[
    "instruction", "fake_grader", "tag_escape", "zero_width", "homoglyph", "pinyin", "combined",
    "instruction_other_language", "traditional", "fake_verdict", "json_verdict", "encoded",
    "split_words", "pinyin_english", "roleplay", "hidden_in_quote", "lookalike",
]  # fmt: skip
"""How a labelled reply attacks the judge: it instructs the judge (``instruction``; in
another language or script, ``instruction_other_language``, ``traditional``), poses as a
system or grader message (``fake_grader``, ``roleplay``), imitates the judge's verdict
(``fake_verdict``, ``json_verdict``), encodes its instruction (``encoded``), hides it in a
quoted message or tool output (``hidden_in_quote``), closes the reply tag to speak outside
it (``tag_escape``), or hides its words from keyword rules with zero-width characters,
look-alike characters, separators inside words, pinyin or English (``zero_width``,
``homoglyph``, ``split_words``, ``pinyin``, ``pinyin_english``); ``combined`` mixes
several. ``lookalike`` marks a harmless reply an over-eager defence might flag (labelled
``pass``)."""

ATTACK_KINDS: tuple[AttackKind, ...] = get_args(AttackKind)
"""Every attack kind."""


class LabelledReply(BaseModel):
    """One reply with its human label."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Unique id, e.g. ``tune-07``."""
    split: Split
    """``tune`` or ``holdout``."""
    label: Label
    """The human verdict."""
    reply: str
    """The support reply being judged (may be empty: empty replies fail)."""
    facts: list[str] = Field(default_factory=list)
    """The verified facts the reply must agree with."""
    note: str = ""
    """Why the labeller chose the label."""
    attack: AttackKind | None = None
    """How the reply attacks the judge (``None``: an ordinary reply). Attacks are scored
    apart: the agreement figures cover ordinary replies, the attack figures these."""


class LabelledPair(BaseModel):
    """Two replies to the same situation, one known to be better."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    """Unique id, e.g. ``pair-03``."""
    better: str
    """The reply a good judge prefers."""
    worse: str
    """The reply a good judge rejects."""
    facts: list[str] = Field(default_factory=list)
    """The verified facts both replies answer."""
    note: str = ""
    """Why ``better`` is better."""


_Model = TypeVar("_Model", LabelledReply, LabelledPair)


MAX_LABEL_FILE_BYTES = 64 * 1024 * 1024
"""The largest labels file read (the committed ones are a few kilobytes)."""


def _read_text(path: Path) -> str:
    """The text of a regular file: a FIFO is refused unread (opened without blocking), a
    device or a file past :data:`MAX_LABEL_FILE_BYTES` too."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise LabelFileError(str(path), 0, "-", f"cannot read file: {e.strerror or e}") from e
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LabelFileError(
                str(path), 0, "-", "not a regular file (a FIFO, a device or a folder): not read"
            )
        if info.st_size > MAX_LABEL_FILE_BYTES:
            raise LabelFileError(str(path), 0, "-", "larger than 64 MiB: not read")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_LABEL_FILE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LabelFileError(str(path), 0, "-", f"not UTF-8 (byte {e.start})") from e


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"key {key!r} appears twice (which one holds?)")
        seen[key] = value
    return seen


def _load(path: Path, model: type[_Model]) -> list[_Model]:
    text = _read_text(path)
    items: list[_Model] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line, object_pairs_hook=_no_duplicate_keys)
        except json.JSONDecodeError as e:
            raise LabelFileError(str(path), number, "-", f"not JSON: {e.msg}") from e
        except RecursionError as e:
            raise LabelFileError(str(path), number, "-", "not JSON: nested too deep") from e
        except ValueError as e:  # a key twice, or a number past int()'s 4,300 digits
            raise LabelFileError(str(path), number, "-", str(e)) from e
        try:
            item = model.model_validate(data)
        except ValidationError as e:
            error = e.errors()[0]
            field = ".".join(str(part) for part in error["loc"]) or "-"
            raise LabelFileError(str(path), number, field, error["msg"]) from e
        if item.id in seen:
            raise LabelFileError(str(path), number, "id", f"duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def load_labels(path: str | Path) -> list[LabelledReply]:
    """Read a labels JSONL file (``cases/judge/labels.jsonl``)."""
    return _load(Path(path), LabelledReply)


def load_pairs(path: str | Path) -> list[LabelledPair]:
    """Read a pairs JSONL file (``cases/judge/pairs.jsonl``)."""
    return _load(Path(path), LabelledPair)
