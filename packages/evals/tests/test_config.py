"""[tool.evals] discovery and the git revision."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from evals.config import ConfigError, git_revision, load_config


def test_nearest_pyproject_with_tool_evals_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.evals]\nsut = "pkg.mod:SUT"\ncases_dir = "data/cases"\nreports_dir = "out"\n',
        encoding="utf-8",
    )
    member = tmp_path / "packages" / "x"
    member.mkdir(parents=True)
    # A member's own pyproject without [tool.evals] is skipped on the way up.
    (member / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "data" / "cases").mkdir(parents=True)
    for suite in ("write", "read"):
        (tmp_path / "data" / "cases" / f"{suite}.jsonl").write_text("", encoding="utf-8")
    config = load_config(member)
    assert config.root == tmp_path.resolve()
    assert config.sut == "pkg.mod:SUT"
    assert config.cases_dir == tmp_path.resolve() / "data" / "cases"
    assert config.reports_dir == tmp_path.resolve() / "out"
    assert config.traces_dir == tmp_path.resolve() / "traces"
    assert config.suites() == ["read", "write"]
    assert config.suite_path("read") == config.cases_dir / "read.jsonl"
    assert config.gate_config_path == config.cases_dir / "gate.json"
    assert config.baseline_path == config.reports_dir / "baseline.json"


def test_defaults_without_any_pyproject(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.sut is None
    assert config.cases_dir == tmp_path.resolve() / "cases"
    assert config.suites() == []


def test_wrong_type_in_tool_evals_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.evals]\ncases_dir = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cases_dir"):
        load_config(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")
@pytest.mark.parametrize(
    ("special", "words"), [("fifo", "is a FIFO (named pipe)"), ("device", "is a device")]
)
def test_a_special_pyproject_is_refused_never_skipped_for_another(
    tmp_path: Path, special: str, words: str
) -> None:
    # Bug found (issue 24, `reliability.py hostile`): a pyproject.toml that was a FIFO or a
    # link to /dev/zero was passed over in silence, and the search went on upward: the
    # configuration of a folder above (or none) was read instead, with no word about it.
    (tmp_path / "pyproject.toml").write_text('[tool.evals]\nsut = "up:SUT"\n', encoding="utf-8")
    member = tmp_path / "member"
    member.mkdir()
    path = member / "pyproject.toml"
    if special == "fifo":
        os.mkfifo(path)  # nobody writes to it: reading it would block for ever
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(ConfigError) as info:
        load_config(member)
    assert str(info.value) == f"{path}: [tool.evals]: {words}, not a TOML file; not read"
    with pytest.raises(ConfigError, match="not a TOML file"):
        load_config(file=path)


def test_git_revision_is_unknown_outside_git(tmp_path: Path) -> None:
    assert git_revision(tmp_path) == "unknown"


def test_git_revision_names_the_commit(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    git("init", "-q")
    (tmp_path / "f").write_text("x", encoding="utf-8")
    git("add", "f")
    git("commit", "-q", "-m", "x")
    full = git("rev-parse", "HEAD")
    revision = git_revision(tmp_path)
    assert revision != "unknown"
    assert full.startswith(revision)
