"""A generated family of cases inside a hand-written case file: the lines carrying the
family's tag are the family's, rewritten as a whole from their generator while every other
line stays where it is (``cases/model_path.jsonl`` holds two: the status edges and the
decision table's worlds)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MODEL_PATH_FILE = Path("cases/model_path.jsonl")
"""The suite file the model path's families live in (relative to the project root)."""


def tags_of(line: str) -> list[str]:
    """The tags of one JSONL case line (none when it is not a case object)."""
    try:
        tags = json.loads(line).get("tags", [])
    except (ValueError, AttributeError):
        return []
    return [str(t) for t in tags] if isinstance(tags, list) else []


def rewritten(
    text: str, tag: str, cases: Sequence[dict[str, Any]], *, before: str | None = None
) -> str:
    """``text`` (a JSONL case file) with the lines tagged ``tag`` replaced by ``cases``:
    placed before the first line tagged ``before``, or at the end (``before`` ``None``, or
    no line carries it)."""
    lines = [line for line in text.splitlines() if line.strip() and tag not in tags_of(line)]
    at = len(lines)
    if before is not None:
        at = next((i for i, line in enumerate(lines) if before in tags_of(line)), len(lines))
    family = [json.dumps(case, ensure_ascii=False) for case in cases]
    return "\n".join([*lines[:at], *family, *lines[at:]]) + "\n"


def main(
    argv: list[str] | None,
    rewrite: Callable[[str], str],
    count: int,
    what: str,
) -> int:
    """Rewrite a family in :data:`MODEL_PATH_FILE` (or the file ``argv`` names) with
    ``rewrite``, and say how many ``what`` cases it holds."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else MODEL_PATH_FILE
    path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{path}: {count} {what} cases written")
    return 0
