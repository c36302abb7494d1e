"""Report, baseline and trace-meta files are replaced whole, through exclusive temporary
files: concurrent writers never fail or mix their texts, planted symlinks are not followed."""

from __future__ import annotations

import json
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from evals.errors import BaselineError
from evals.gating.baseline import build_baseline, write_baseline
from evals.io.files import write_atomic
from evals.io.json_files import read_json_text
from evals.log.traces import META_FILE, RunMeta, write_meta
from evals.metrics.summary import compute
from evals.report.files import report_paths, write_reports
from helpers import result

WRITERS = 16
ROUNDS = 20


def _meta(n: int) -> RunMeta:
    return RunMeta(run_id=f"run-{n}", label="same", suites=[f"suite{n}"], planned_runs=n + 1)


def _write_report(folder: Path, n: int) -> list[Path]:
    results = [result(f"c{i}", ok=i < n) for i in range(n + 1)]
    meta = _meta(n).model_copy(update={"finished_runs": n + 1, "complete": True})
    return write_reports(folder, "same", compute(results), results, meta)


def _write_baseline(folder: Path, n: int) -> list[Path]:
    path = folder / "baseline.json"
    results = [result(f"c{i}", ok=i < n) for i in range(n + 1)]
    write_baseline(path, build_baseline(results, _meta(n), []))
    return [path]


def _write_meta(folder: Path, n: int) -> list[Path]:
    write_meta(folder, _meta(n))
    return [folder / META_FILE]


@pytest.mark.parametrize("write", [_write_report, _write_baseline, _write_meta])
def test_concurrent_writers_of_one_file_never_fail_nor_mix(
    tmp_path: Path, write: Callable[[Path, int], list[Path]]
) -> None:
    # Bug found (issue 13): one fixed temporary name per file made concurrent writers
    # rename each other's temporary file away (FileNotFoundError) or interleave texts.
    texts: dict[Path, set[str]] = {}
    for n in range(WRITERS):  # every whole text a writer may leave, written alone first
        alone = tmp_path / f"alone{n}"
        alone.mkdir()
        for path in write(alone, n):
            texts.setdefault(path.relative_to(alone), set()).add(path.read_text("utf-8"))
    shared = tmp_path / "shared"
    shared.mkdir()
    errors: list[BaseException] = []
    start = threading.Barrier(WRITERS)

    def writer(n: int) -> None:
        start.wait()
        try:
            for _ in range(ROUNDS):
                write(shared, n)
        except BaseException as e:  # collected: a thread's exception is otherwise lost
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert sorted(p.name for p in shared.iterdir()) == sorted(str(p) for p in texts)
    for name, whole in texts.items():
        assert (shared / name).read_text("utf-8") in whole


@pytest.mark.parametrize("write", [_write_report, _write_baseline, _write_meta])
def test_a_symlink_planted_at_a_temporary_name_is_not_followed(
    tmp_path: Path, write: Callable[[Path, int], list[Path]]
) -> None:
    # Bug found (issue 13): a symlink at the old fixed name '.<name>.tmp' redirected the
    # write to its target, outside the reports folder.
    folder, outside = tmp_path / "reports", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    probe = tmp_path / "probe"
    probe.mkdir()
    names = [p.name for p in write(probe, 1)]
    for name in names:
        (outside / name).write_text("untouched", encoding="utf-8")
        (folder / f".{name}.tmp").symlink_to(outside / name)
    written = write(folder, 1)

    for name in names:
        assert (outside / name).read_text("utf-8") == "untouched"
        planted = folder / f".{name}.tmp"
        assert planted.is_symlink() and planted.resolve() == outside / name
    for path in written:
        assert not path.is_symlink()
        assert path.read_text("utf-8") == (probe / path.name).read_text("utf-8")


def test_a_symlink_at_the_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("untouched", encoding="utf-8")
    target = tmp_path / "gate.json"
    target.symlink_to(outside)
    write_atomic(target, "new")
    assert outside.read_text("utf-8") == "untouched"
    assert not target.is_symlink()
    assert target.read_text("utf-8") == "new"


@pytest.mark.parametrize("text", ["", "one line\n", "ünïcödé\r\nno newline conversion"])
def test_the_text_is_written_exactly_and_readable_by_others(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.md"
    write_atomic(path, text)
    assert path.read_bytes() == text.encode("utf-8")
    assert path.stat().st_mode & 0o044 == 0o044
    assert [p.name for p in tmp_path.iterdir()] == ["x.md"]


def test_report_paths_are_what_write_reports_writes(tmp_path: Path) -> None:
    assert _write_report(tmp_path, 2) == report_paths(tmp_path, "same")


@pytest.mark.parametrize("parts", [["", ""], ["<p>", "好", "</p>\n"], ["x" * 70_000, "y"]])
def test_a_text_in_parts_is_written_as_their_concatenation(
    tmp_path: Path, parts: list[str]
) -> None:
    target = tmp_path / "page.html"
    write_atomic(target, iter(parts))
    assert target.read_text(encoding="utf-8") == "".join(parts)


def test_parts_that_fail_half_way_leave_the_old_file_and_no_temporary_one(
    tmp_path: Path,
) -> None:
    target = tmp_path / "page.html"
    target.write_text("old page", encoding="utf-8")

    def parts() -> Iterator[str]:
        yield "<p>new"
        raise RuntimeError("the template broke")

    with pytest.raises(RuntimeError, match="template broke"):
        write_atomic(target, parts())
    assert target.read_text(encoding="utf-8") == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("text", ["one piece", ["many ", "parts"]], ids=["text", "parts"])
def test_a_disk_full_write_names_the_file_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | list[str]
) -> None:
    """Bug: out of space, "evals: error: No space left on device" named no file. The
    temporary file's descriptor is /dev/full's here: every write fails with ENOSPC."""
    import errno
    import os
    import tempfile

    real_mkstemp = tempfile.mkstemp

    def full_mkstemp(**kwargs: object) -> tuple[int, str]:
        fd, name = real_mkstemp(**kwargs)  # type: ignore[call-overload]
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr(tempfile, "mkstemp", full_mkstemp)
    target = tmp_path / "report.md"
    target.write_text("the old report", encoding="utf-8")
    with pytest.raises(OSError) as caught:
        write_atomic(target, text)
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(target))
    assert target.read_text(encoding="utf-8") == "the old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


@pytest.mark.parametrize("items", [0, 10, 10_000])
def test_a_json_file_is_read_in_memory_of_its_size_not_of_the_limit(
    tmp_path: Path, items: int
) -> None:
    # Every baseline, report and meta is read under a 256 MiB limit; reading must cost
    # what the file holds, not the limit (a 2 MiB baseline once allocated 256 MiB).
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"cases": list(range(items))}), encoding="utf-8")
    tracemalloc.start()
    try:
        _, value = read_json_text(path, BaselineError, "missing")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert value == {"cases": list(range(items))}
    assert peak < 20 * path.stat().st_size + 2**20
