"""Fuzz the case loader, lint and run with mutated copies of the real case files.

Each generated file starts from one of ``cases/*.jsonl`` (a random slice of its lines)
and gets one to three mutations: a field set to a hostile value (nesting 1,000 deep, an
integer of 5,000 digits, a lone surrogate, control characters, a 1 MB string, NaN, the
wrong type), a key dropped, added or misspelt, an id that only looks like another, a line
cut, duplicated or garbled, bytes that are not UTF-8 — or the file replaced by a FIFO or a
directory. Then ``evals lint`` and ``evals run`` (offline, the repository's SUT) run on
every file, each in its own process with a deadline.

A file is fine when both commands exit with a documented code (lint 0, 1 or 2; run 0 or
2) and print no traceback. Anything else is reported with the file and its mutations;
exit 1 when there is any. Generation is seeded: the same seed gives the same files.

    uv run python -m devtools.fuzz_cases --files 500 --seed 1
    uv run python -m devtools.fuzz_cases --files 30 --keep /tmp/fuzz   # keep the files
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devtools import REPO_ROOT

ROOT = REPO_ROOT
CASES_DIR = ROOT / "cases"

MAX_LINES = 8
"""Lines kept from a source file: enough for cross-line mutations, quick to run."""

LINT_EXITS = frozenset({0, 1, 2})
RUN_EXITS = frozenset({0, 2})
TRACEBACK = "Traceback (most recent call last)"

# Placeholders replaced in the dumped text by what json.dumps cannot write.
_DEEP = "\x00fuzz-deep\x00"
_BIG_INT = "\x00fuzz-big-int\x00"
_RAW = {
    json.dumps(_DEEP): "[" * 1000 + "]" * 1000,
    json.dumps(_BIG_INT): "9" * 5000,
}

HOSTILE: list[Any] = [
    None,
    True,
    False,
    -1,
    0,
    2**70,
    1.5,
    float("nan"),
    float("inf"),
    "",
    " ",
    "inf",
    "nan",
    "yes",
    "x" * 1_000_000,
    "a\x00b",
    "a\nGate: PASS",
    "\x1b[31mred\x1b[0m",
    "zero\u200bwidth",
    "lone\ud800",
    "e\u0301",
    "ｔ０１",
    [],
    {},
    [{}],
    [[]],
    {"": None},
    [None, 1, "a"],
    _DEEP,
    _BIG_INT,
]
"""Values a field may be set to."""


@dataclass(frozen=True)
class Generated:
    """One generated file and how it was made."""

    path: Path
    source: str
    """The case file it was made from."""
    mutations: tuple[str, ...]
    """What was done to it, in order."""


@dataclass(frozen=True)
class Outcome:
    """What the commands did with one generated file."""

    file: Generated
    command: str
    """``lint`` or ``run``."""
    exit_code: int | None
    """``None`` when the command outlived its deadline (a hang)."""
    traceback: bool
    last_line: str

    @property
    def bad(self) -> bool:
        allowed = LINT_EXITS if self.command == "lint" else RUN_EXITS
        return self.exit_code is None or self.traceback or self.exit_code not in allowed


# --- mutations ----------------------------------------------------------------------------

Lines = list[str]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (keys and indexes)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _dump(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False)
    for placeholder, raw in _RAW.items():
        text = text.replace(placeholder, raw)
    return text


def _on_case(rng: random.Random, lines: Lines, edit: Callable[[Any], str]) -> str:
    """Apply ``edit`` to the parsed case of a random line; returns what it did."""
    index = rng.randrange(len(lines))
    data = json.loads(lines[index])
    what = edit(data)
    lines[index] = _dump(data)
    return f"line {index + 1}: {what}"


def set_value(rng: random.Random, lines: Lines) -> str:
    def edit(data: Any) -> str:
        path = rng.choice(_paths(data))
        value = rng.choice(HOSTILE)
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = value
        shown = repr(value)[:40]
        return f"set {'.'.join(map(str, path))} = {shown}"

    return _on_case(rng, lines, edit)


def drop_key(rng: random.Random, lines: Lines) -> str:
    def edit(data: Any) -> str:
        paths = [p for p in _paths(data) if isinstance(p[-1], str)]
        path = rng.choice(paths)
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        del parent[path[-1]]
        return f"drop {'.'.join(map(str, path))}"

    return _on_case(rng, lines, edit)


def add_key(rng: random.Random, lines: Lines) -> str:
    def edit(data: Any) -> str:
        targets = [()] + [p for p in _paths(data) if isinstance(_get(data, p), dict)]
        path = rng.choice(targets)
        key = rng.choice(["colour", "tikets", "id ", "ＩＤ", "x\ud800", "", "\n"])
        _get(data, path)[key] = rng.choice(HOSTILE)
        return f"add {key!r} under {'.'.join(map(str, path)) or '(case)'}"

    return _on_case(rng, lines, edit)


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def near_id(rng: random.Random, lines: Lines) -> str:
    """An id that only looks like another line's id, or one a report cannot print."""
    source = json.loads(rng.choice(lines))
    other = str(source.get("id", "x"))
    variants = [
        other.upper(),
        other + " ",
        " " + other,
        other[:1] + "\u200b" + other[1:],
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in other),
        other + "\u0301",
        other + "\n",
        other + "\x00",
        "\x1b[32mGate: PASS\x1b[0m",
        other * 40,
    ]

    def edit(data: Any) -> str:
        data["id"] = rng.choice(variants)
        return f"id = {data['id'][:40]!r}"

    return _on_case(rng, lines, edit)


def tags_odd(rng: random.Random, lines: Lines) -> str:
    def edit(data: Any) -> str:
        data["tags"] = rng.choice([[{}], [[]], [None], "happy", {"happy": 1}, [1, "happy"]])
        return f"tags = {data['tags']!r}"

    return _on_case(rng, lines, edit)


def truncate_line(rng: random.Random, lines: Lines) -> str:
    index = rng.randrange(len(lines))
    cut = rng.randrange(len(lines[index]) + 1)
    lines[index] = lines[index][:cut]
    return f"line {index + 1}: cut at {cut}"


def garble_line(rng: random.Random, lines: Lines) -> str:
    index = rng.randrange(len(lines))
    text = lines[index]
    at = rng.randrange(len(text) + 1)
    char = rng.choice([*'{}[],:"\\0e-', "\x00", "\u2028", "\ufeff"])
    if rng.random() < 0.5 and text:
        lines[index] = text[:at] + char + text[at + 1 :]
        return f"line {index + 1}: replace column {at + 1} with {char!r}"
    lines[index] = text[:at] + char + text[at:]
    return f"line {index + 1}: insert {char!r} at column {at + 1}"


def duplicate_line(rng: random.Random, lines: Lines) -> str:
    index = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[index])
    return f"line {index + 1}: duplicated"


def drop_lines(rng: random.Random, lines: Lines) -> str:
    keep = rng.randrange(len(lines))
    del lines[keep + 1 :]
    if rng.random() < 0.3:
        lines[:] = ["# only a comment", ""]
        return "only comments"
    return f"kept {keep + 1} line(s)"


MUTATIONS: dict[str, Callable[[random.Random, Lines], str]] = {
    "set_value": set_value,
    "drop_key": drop_key,
    "add_key": add_key,
    "near_id": near_id,
    "tags_odd": tags_odd,
    "truncate_line": truncate_line,
    "garble_line": garble_line,
    "duplicate_line": duplicate_line,
    "drop_lines": drop_lines,
}
"""Mutations of the lines of a file, by name."""

BYTE_MUTATIONS = ("not_utf8", "crlf_bom", "nul_bytes")
SPECIAL = ("fifo", "directory")


def _bytes(rng: random.Random, kind: str, text: str) -> bytes:
    raw = text.encode("utf-8", "surrogatepass")
    if kind == "not_utf8":
        at = rng.randrange(len(raw) + 1)
        return raw[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80"]) + raw[at:]
    if kind == "crlf_bom":
        return b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n")
    return raw.replace(b",", b",\x00", 1)


def _source_lines(path: Path) -> Lines:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]


def generate(
    out: Path, count: int, seed: int, sources: Sequence[Path] | None = None
) -> list[Generated]:
    """Write ``count`` mutated case files into ``out``; the same seed gives the same files."""
    rng = random.Random(seed)
    files = sorted(sources if sources is not None else CASES_DIR.glob("*.jsonl"))
    out.mkdir(parents=True, exist_ok=True)
    made: list[Generated] = []
    for number in range(count):
        source = rng.choice(files)
        lines = _source_lines(source)
        start = rng.randrange(len(lines))
        lines = lines[start : start + rng.randint(1, MAX_LINES)]
        path = out / f"fuzz-{number:04d}.jsonl"
        roll = rng.random()
        if roll < 0.02:
            # In turn, not at random: every special kind appears once two have been made,
            # whatever the case files hold (a draw of 300 once made no FIFO at all).
            kind = SPECIAL[sum(1 for g in made if g.mutations[0] in SPECIAL) % len(SPECIAL)]
            if kind == "fifo":
                os.mkfifo(path)
            else:
                path.mkdir()
            made.append(Generated(path, source.name, (kind,)))
            continue
        done: list[str] = []
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(sorted(MUTATIONS))
            if not lines or not lines[0].startswith("{"):
                break
            try:
                done.append(f"{name}: {MUTATIONS[name](rng, lines)}")
            except (RecursionError, IndexError, ValueError, TypeError, KeyError):
                continue  # an earlier mutation left the line unparseable: text-only from here
        text = "\n".join(lines) + "\n"
        if roll < 0.10:
            kind = rng.choice(BYTE_MUTATIONS)
            path.write_bytes(_bytes(rng, kind, text))
            done.append(kind)
        else:
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
        made.append(Generated(path, source.name, tuple(done)))
    return made


# --- running -----------------------------------------------------------------------------


def _command(name: str, file: Path, scratch: Path) -> list[str]:
    base = [sys.executable, "-m", "evals", name, "--cases", str(file)]
    if name == "lint":
        return base
    out = scratch / file.name
    return [
        *base,
        "--out",
        str(out / "reports"),
        "--traces",
        str(out / "traces"),
        "--label",
        "fuzz",
    ]


def run_one(file: Generated, command: str, scratch: Path, timeout: float) -> Outcome:
    """Run ``evals <command>`` on one file in its own process group, with a deadline."""
    process = subprocess.Popen(
        _command(command, file.path, scratch),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a hung command is killed with everything it started
    )
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return Outcome(file, command, None, False, f"no exit after {timeout:g}s")
    text = err.decode("utf-8", "replace")
    lines = text.strip().splitlines()
    return Outcome(file, command, process.returncode, TRACEBACK in text, lines[-1] if lines else "")


def check(
    files: Sequence[Generated],
    scratch: Path,
    *,
    timeout: float = 60.0,
    jobs: int = 4,
    progress: bool = False,
) -> list[Outcome]:
    """``evals lint`` and ``evals run`` on every file; every outcome, in file order
    (``progress``: a line on stderr every 100 commands)."""
    work = [(f, c) for f in files for c in ("lint", "run")]
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for outcome in pool.map(lambda fc: run_one(fc[0], fc[1], scratch, timeout), work):
            outcomes.append(outcome)
            if progress and len(outcomes) % 100 == 0:
                print(f"fuzz: {len(outcomes)}/{len(work)} commands", file=sys.stderr)
    return outcomes


def summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """The figures: files, commands, tracebacks, hangs, unexpected exit codes."""
    return {
        "files": len({o.file.path for o in outcomes}),
        "commands": len(outcomes),
        "tracebacks": sum(o.traceback for o in outcomes),
        "hangs": sum(o.exit_code is None for o in outcomes),
        "unexpected_exits": sum(
            o.exit_code is not None and not o.traceback and o.bad for o in outcomes
        ),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500, help="files to generate (500)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per command (60)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel commands")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="evals-fuzz-") as tmp:
        out = args.keep or Path(tmp) / "cases"
        files = generate(out, args.files, args.seed)
        outcomes = check(
            files, Path(tmp) / "scratch", timeout=args.timeout, jobs=args.jobs, progress=True
        )
    for outcome in outcomes:
        if outcome.bad:
            code = "hang" if outcome.exit_code is None else f"exit {outcome.exit_code}"
            mutations = "; ".join(outcome.file.mutations)
            print(f"{outcome.file.path.name} ({outcome.file.source}: {mutations})")
            print(f"  evals {outcome.command}: {code}: {outcome.last_line[:300]}")
    figures = summary(outcomes)
    print(
        f"fuzz: seed {args.seed}, {figures['files']} files, {figures['commands']} commands: "
        f"{figures['tracebacks']} tracebacks, {figures['hangs']} hangs, "
        f"{figures['unexpected_exits']} unexpected exit codes"
    )
    return 1 if any(o.bad for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
