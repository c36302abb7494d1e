"""The one reader of ``runs.jsonl`` (issue 23, item 2): resume, report, compare and the
HTML page all read a trace folder through :func:`evals.log.traces.trace_lines`, so they
agree on what a finished run is: a whole line; a torn last line (a kill mid-write) is
none, a blank line is skipped, and a file that is no regular file is refused, not read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from evals.errors import TraceError
from evals.log.traces import RUNS_FILE, trace_lines

# (the file's bytes, (line number, text) of each line read, the end of the last)
READS = [
    (b"", [], None),
    (b"a\n", [(1, b"a\n")], 2),
    (b"a\nb", [(1, b"a\n")], 2),  # b is torn: never finished
    (b"a\n\n  \nb\n", [(1, b"a\n"), (4, b"b\n")], 8),
    (b"\n\n", [], None),
    (b"a\nb\nc", [(1, b"a\n"), (2, b"b\n")], 4),
]


@pytest.mark.parametrize(("data", "lines", "end"), READS)
def test_whole_lines_are_read_and_a_torn_tail_is_not(
    tmp_path: Path, data: bytes, lines: list[tuple[int, bytes]], end: int | None
) -> None:
    (tmp_path / RUNS_FILE).write_bytes(data)
    read = list(trace_lines(tmp_path))
    assert [(line.number, line.text) for line in read] == lines
    assert (read[-1].end if read else None) == end


def test_a_folder_without_runs_yet_has_no_lines(tmp_path: Path) -> None:
    assert list(trace_lines(tmp_path)) == []


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs")
def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / RUNS_FILE)
    with pytest.raises(TraceError, match="not a regular file"):
        list(trace_lines(tmp_path))


def test_a_folder_in_its_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / RUNS_FILE).mkdir()
    with pytest.raises(TraceError, match="not a regular file"):
        list(trace_lines(tmp_path))
