"""The gate's evaluation in a child process: the verdict is reached in a process the code
under test never ran in.

In CI the system under test is the code under review. Built in the gate's own process, it
could replace the function that reaches the verdict, or register an exit hook that turns
any exit status into 0. So ``evals gate`` runs the evaluation (building the SUT, running
and grading every case, writing the trace) in a child process, ``evals gate
--harness-result FILE``, and judges in the parent, which imports nothing of the SUT:

- the child is started in a session of its own, with its stdout sent to the parent's
  stderr (nothing it prints can pass for the verdict); the parent forwards Ctrl-C and
  SIGTERM to it and waits for it to end;
- the child names its trace folder in ``FILE`` (or says the SUT cannot be built); the
  parent accepts only a folder of its traces directory that did not exist before the
  child started, whose meta records the very evaluation the flags ask for (suites, case
  files, split, tags, excluded tags, trials, label, and the planned runs of the cases the
  parent itself selects from the files it guards);
- the parent reads the runs back from that trace (:func:`evals.execution.resume.rebuild`),
  computes the metrics, judges them against the baseline it read before the child
  started, writes the reports and prints the verdict. The child's exit status only says
  whether it was stopped.

What this does not cover: the runs and their checks' verdicts are still produced in the
process that built the SUT (the child, or its workers), so a SUT that rewrites the checks
themselves is not caught here.
"""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO

from evals.errors import EvalsError, TraceError, UsageError
from evals.io.json_files import read_json_text
from evals.log.traces import RunMeta

RESULT_FLAG = "--harness-result"
"""The hidden flag that makes ``evals gate`` the child: evaluate, trace, name the trace."""
FORWARDED = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class ChildSaid:
    """What the child wrote in its result file."""

    trace: str | None = None
    """The name of its trace folder (under the traces directory)."""
    unbuildable: str | None = None
    """Why the committed SUT could not be built (then nothing ran)."""


def child_env() -> dict[str, str]:
    """The parent's environment, with ``PYTHONPATH`` led by the parent's own import path:
    the child imports the same ``evals`` and the same SUT modules the parent would."""
    env = dict(os.environ)
    paths = [p for p in sys.path if p and Path(p).is_dir()]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def run_child(argv: Sequence[str], result: Path) -> int:
    """Run ``evals <argv> --harness-result <result>`` to its end; its exit status.

    Ctrl-C and SIGTERM reaching this process are passed on to the child (once each: the
    child stops, keeps its finished runs in its trace, and exits); this process waits."""
    command = [sys.executable, "-m", "evals", *argv, RESULT_FLAG, str(result)]
    sys.stdout.flush()
    sys.stderr.flush()
    fd = _stderr_fd()
    # On a real stderr the child writes there itself (its progress line stays live);
    # otherwise (stderr captured in Python) its output is relayed into sys.stderr.
    out = fd if fd is not None else subprocess.PIPE
    err = fd if fd is not None else subprocess.STDOUT
    child = subprocess.Popen(  # our own interpreter, our own command line
        command, env=child_env(), stdout=out, stderr=err, start_new_session=True
    )
    relay = None
    if child.stdout is not None:
        relay = threading.Thread(target=_relay, args=(child.stdout,), daemon=True)
        relay.start()
    sent: set[int] = set()

    def forward(signum: int, _frame: FrameType | None) -> None:
        if signum not in sent and child.poll() is None:
            sent.add(signum)
            child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        while True:
            try:
                code = child.wait()
                if relay is not None:
                    relay.join()
                return code
            except KeyboardInterrupt:  # a handler installed before ours raised
                forward(signal.SIGINT, None)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if sent:
            # Ignored until the caller has written the partial report (as in-process).
            for s in FORWARDED:
                signal.signal(s, signal.SIG_IGN)


def _stderr_fd() -> int | None:
    """The file descriptor behind ``sys.stderr``, if it has one."""
    try:
        return sys.stderr.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _relay(stream: IO[bytes]) -> None:
    """Copy the child's output into ``sys.stderr`` as it comes."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := os.read(stream.fileno(), 65536):
        sys.stderr.write(decoder.decode(chunk))
        sys.stderr.flush()
    sys.stderr.write(decoder.decode(b"", final=True))


def stop_signal(code: int) -> str | None:
    """The signal a child's exit status names (130: SIGINT, 143: SIGTERM, or killed)."""
    for s in FORWARDED:
        if code in (128 + s.value, -s.value):
            return s.name
    return None


def write_result(path: Path, said: ChildSaid) -> None:
    """The child's side: name the trace folder (or why nothing ran)."""
    import json  # noqa: PLC0415

    data = {k: v for k, v in (("trace", said.trace), ("unbuildable", said.unbuildable)) if v}
    path.write_text(json.dumps(data), encoding="utf-8")


def read_result(path: Path) -> ChildSaid | None:
    """The parent's side: what the child said, or ``None`` when it said nothing usable."""
    if not path.exists():
        return None
    try:
        _, data = read_json_text(path, TraceError, "no result", limit=64 * 1024)
    except EvalsError:
        return None
    if not isinstance(data, dict) or set(data) - {"trace", "unbuildable"}:
        return None
    trace, unbuildable = data.get("trace"), data.get("unbuildable")
    if not isinstance(trace, str | None) or not isinstance(unbuildable, str | None):
        return None
    if (trace is None) == (unbuildable is None):
        return None
    return ChildSaid(trace=trace, unbuildable=unbuildable)


def folders(traces_dir: Path) -> set[str]:
    """The trace folders there now (before the child starts)."""
    try:
        return {p.name for p in traces_dir.iterdir()}
    except OSError:
        return set()


@dataclass(frozen=True)
class Asked:
    """The evaluation the flags ask for, as its trace meta must record it."""

    command: str
    label: str
    suites: list[str]
    case_files: list[str]
    split: str | None
    tags: list[str]
    exclude_tags: list[str]
    trials: int

    def differences(self, meta: RunMeta) -> list[str]:
        """Every field the meta records otherwise, ``name: asked X, traced Y``."""
        wrong: list[str] = []
        for name in ("label", "suites", "case_files", "split", "tags", "exclude_tags", "trials"):
            asked, traced = getattr(self, name), getattr(meta, name)
            if asked != traced:
                wrong.append(f"{name}: asked {asked!r}, traced {traced!r}")
        if meta.command != self.command:
            wrong.append(f"command: asked {self.command!r}, traced {meta.command!r}")
        return wrong


def the_new_trace(traces_dir: Path, name: str, before: set[str]) -> Path:
    """The folder the child named, if it is one it made now, in ``traces_dir``;
    :class:`UsageError` otherwise (one line)."""
    folder = traces_dir / name
    if Path(name).name != name or name in ("", ".", ".."):
        raise UsageError(f"the evaluation named a trace {name!r} outside {str(traces_dir)!r}")
    if name in before:
        raise UsageError(
            f"the evaluation named the trace {str(folder)!r}, which existed before it started"
        )
    if folder.is_symlink() or not folder.is_dir():
        raise UsageError(f"the evaluation named the trace {str(folder)!r}, which is no folder")
    return folder
