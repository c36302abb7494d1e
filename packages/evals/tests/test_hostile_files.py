"""Every JSON file the CLI reads (baseline, gate config, report, trace meta) is hostile
input: a FIFO, a device, nesting 100,000 deep, a key twice, NaN, a number of 5,000 digits
— each is exit 2 with one line naming the file, never a hang, a traceback or a silent
choice between two copies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from evals.cli.main import main
from helpers import subprocess_pythonpath

GOOD_GATE = {"schema_version": 2, "hard": {"unauthorized_rate_max": 0.0}}

HOSTILE: dict[str, str] = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "nested_70": '{"a": ' * 70 + "1" + "}" * 70,
    "twice": '{"schema_version": 2, "hard": {"must_pass_success_min": 1.0},'
    ' "hard": {"must_pass_success_min": 0.0}}',
    "nan": '{"schema_version": 2, "soft": {"success_drop_points": NaN}}',
    "digits": '{"schema_version": ' + "9" * 5000 + "}",
    "not_utf8": '{"x": "\udcff"}',
    "not_json": "{",
}
WORDS = {
    "deep": "nested deeper",
    "nested_70": "a.a.a.…: nested deeper than 64 levels",
    "twice": "key 'hard' appears twice in one object",
    "nan": "soft.success_drop_points: NaN is not JSON",
    "digits": "a number too long to read",
    "not_utf8": "not UTF-8",
    "not_json": "not JSON",
}


def _argv(where: str, path: Path) -> list[str]:
    """A command that reads ``path`` as the input ``where`` names, before any run."""
    return {
        "baseline": ["gate", "--suite", "alpha", "--baseline", str(path)],
        "gate_config": ["gate", "--suite", "alpha", "--gate-config", str(path)],
        "report": ["report", str(path)],
        "compare": ["compare", str(path), str(path)],
        "review": ["review", str(path)],
    }[where]


def _write(path: Path, kind: str) -> None:
    if kind == "not_utf8":
        path.write_bytes(b'{"x": "\xff"}')
    else:
        path.write_text(HOSTILE[kind], encoding="utf-8")


WHERE = ["baseline", "gate_config", "report", "compare", "review"]


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("where", WHERE)
def test_a_hostile_json_file_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], where: str, kind: str
) -> None:
    path = project / "hostile.json"
    _write(path, kind)
    capsys.readouterr()
    assert main(_argv(where, path)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert str(path) in err and WORDS[kind] in err, err


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")
@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "folder"])
@pytest.mark.parametrize("where", WHERE)
def test_a_special_file_is_refused_unread_never_waited_on(
    project: Path, where: str, special: str
) -> None:
    if special == "fifo":
        path = project / "pipe.json"
        os.mkfifo(path)
    elif special == "folder":
        path = project / "folder.json"
        path.mkdir()
        if where in ("report", "compare"):  # a folder there is a trace folder
            pytest.skip("a folder is read as a trace folder there")
    else:
        path = Path(special)
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath()}
    done = subprocess.run(
        [sys.executable, "-m", "evals", *_argv(where, path)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO opened for reading would block here forever
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "not read" in done.stderr or "directory" in done.stderr, done.stderr


def test_a_good_gate_config_still_loads(project: Path) -> None:
    path = project / "gate2.json"
    path.write_text(json.dumps(GOOD_GATE), encoding="utf-8")
    assert main(["baseline", "--suite", "alpha"]) == 0
    assert main(["gate", "--suite", "alpha", "--gate-config", str(path)]) == 0
