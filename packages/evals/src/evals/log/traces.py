"""Run traces: every finished run, with its checks, on disk as it finishes.

A trace folder ``<traces_dir>/<run-id>/`` holds ``meta.json`` (what was run, by whom,
when, how many runs finished so far, and whether it completed; rewritten at most every
``meta_interval_s`` while runs finish, so it stays current even when the process is
killed) and ``runs.jsonl`` (one :class:`TraceRecord` a line,
appended and flushed as each run finishes). An interrupted evaluation therefore loses
no finished trial, and memory stays flat: full ``Run`` records live here, not in RAM.

Writing is cheap enough for the event loop: each record is serialised by pydantic-core
straight to bytes (the checks part is reused for runs with the very same verdicts) and
handed to the OS in one ``write`` call on an unbuffered file, which is the flush.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, NamedTuple, Self

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    field_validator,
    model_serializer,
    model_validator,
)

from evals.errors import TraceError
from evals.io.files import naming, write_atomic
from evals.io.json_files import read_json_text
from evals.model.options import OPTION_FIELDS, RunOptions
from evals.model.result import CheckResult
from evals.model.run import Run

TRACE_SCHEMA_VERSION = 1
RUNS_FILE = "runs.jsonl"
META_FILE = "meta.json"
META_INTERVAL_S = 1.0
"""How often, at most, ``meta.json`` is rewritten while runs finish: current to within a
second, at no cost worth measuring per run."""


SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
"""A report label or a run id: a plain file name (no folders, not hidden). A trace's
``meta.json`` is read back by ``report`` and ``--resume``, which write under these names:
a crafted one must not reach outside ``reports/`` or ``traces/``."""


def _safe_name(value: str, what: str) -> str:
    if value and not SAFE_NAME.fullmatch(value):
        raise ValueError(
            f"{what} must be a file name of letters, digits, '.', '_' or '-', not starting"
            f" with '.', got {value!r}"
        )
    return value


_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
"""``module.path:attr`` (a trace's meta is untrusted input)."""


def is_import_path(text: str) -> bool:
    """Whether ``text`` is a ``module.path:attr`` a meta records (and a resume rebuilds)."""
    return _IMPORT_PATH.fullmatch(text) is not None


class RunMeta(BaseModel):
    """What an evaluation ran and how; the ``meta`` block of every report."""

    schema_version: int = TRACE_SCHEMA_VERSION
    """Version of this record's layout."""
    run_id: str = ""
    """The trace folder's name."""
    label: str = ""
    """The report label (file names under ``reports/``)."""

    @field_validator("run_id")
    @classmethod
    def _run_id_is_a_name(cls, value: str) -> str:
        return _safe_name(value, "a run id")

    @field_validator("label")
    @classmethod
    def _label_is_a_name(cls, value: str) -> str:
        return _safe_name(value, "a label")

    command: str = ""
    """The CLI command that ran (``run``, ``gate`` …)."""
    suites: list[str] = Field(default_factory=list)
    """The suites selected."""
    case_files: list[str] = Field(default_factory=list)
    """Extra case files selected with ``--cases``."""
    split: str | None = None
    """The split selected, if any."""
    tags: list[str] = Field(default_factory=list)
    """Tags selected (a case needs one of them)."""
    exclude_tags: list[str] = Field(default_factory=list)
    """Tags excluded (the gate excludes ``flaky``)."""
    sut: str = ""
    """The SUT import path."""
    sut_spec: str = ""
    """The SUT's import path as given (``module:attr``), so that ``--resume`` builds the
    same system without ``--sut`` (empty in traces written before it was recorded)."""
    sut_options: dict[str, str | None] = Field(default_factory=dict)
    """The options the SUT was built with, for ``--resume``; a secret's value is not
    kept (``None``: the resume must be given it again)."""

    @field_validator("sut_spec")
    @classmethod
    def _sut_spec_is_an_import_path(cls, value: str) -> str:
        if value and _IMPORT_PATH.fullmatch(value) is None:
            raise ValueError(f"not an import path module:attr: {value[:80]!r}")
        return value

    sut_description: list[str] = Field(default_factory=list)
    """What the SUT said it really runs (its ``describe()`` hook, see
    :func:`evals.model.sut.sut_description`): printed under the headline of every report."""
    options: RunOptions = Field(default_factory=RunOptions)
    """How the cases ran (trials, concurrency, timeout, isolation, memory limit,
    executor), as the evaluation was given them; written as top-level keys."""
    git_revision: str = "unknown"
    """The code revision evaluated."""
    started: str = ""
    """When the evaluation started (UTC, ISO 8601)."""
    finished: str | None = None
    """When it finished (UTC, ISO 8601); ``None`` while running."""
    planned_runs: int = 0
    """Runs selected (cases x trials)."""
    finished_runs: int = 0
    """Runs that finished and were graded."""
    complete: bool = False
    """True when every planned run finished; False for an interrupted evaluation."""
    stop_signal: str | None = None
    """The signal that stopped an interrupted evaluation (``SIGINT``, ``SIGTERM``)."""
    stop_reason: str | None = None
    """Why the runner stopped scheduling by itself (the provider kept failing)."""
    unstopped_runs: list[str] = Field(default_factory=list)
    """Runs (``case#trial``) that timed out and could not be stopped: still running in
    the harness's process when the evaluation ended (recorded as ``sut_error``)."""
    idle_checks: list[str] = Field(default_factory=list)
    """Checks the project set up that judged nothing in this evaluation, each
    ``<name>: <why>`` (a rubric whose calibration does not let it gate):
    :func:`evals.checks.registry.idle_checks` once the SUT and its checks were loaded."""

    @model_validator(mode="before")
    @classmethod
    def _gather_options(cls, data: Any) -> Any:
        # On disk (and as keyword arguments) the options are top-level keys, as they
        # always were: gathered into the one record here.
        if not isinstance(data, dict) or not any(key in data for key in OPTION_FIELDS):
            return data
        data = dict(data)
        given = data.get("options")
        if isinstance(given, RunOptions):
            given = given.model_dump()
        if given is not None and not isinstance(given, dict):
            raise ValueError(f"options: not a mapping of the options ({type(given).__name__})")
        options = dict(given or {})
        for key in OPTION_FIELDS:
            if key in data:
                options[key] = data.pop(key)
        data["options"] = options
        return data

    @model_serializer(mode="wrap")
    def _options_flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        options = data.pop("options", None)
        return {**data, **options} if isinstance(options, dict) else data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update``; an option given by its own name (``trials`` …) is
        changed in the copy's :class:`RunOptions`, as when the meta is read."""
        if update and any(key in OPTION_FIELDS for key in update):
            changes = dict(update)
            options = {key: changes.pop(key) for key in OPTION_FIELDS if key in changes}
            base = changes.get("options", self.options)
            changes["options"] = base.model_copy(update=options)
            update = changes
        return super().model_copy(update=update, deep=deep)

    @property
    def trials(self) -> int:
        """Trials per case (``options.trials``)."""
        return self.options.trials

    @property
    def concurrency(self) -> int:
        """Runs in flight at once (``options.concurrency``)."""
        return self.options.concurrency

    @property
    def timeout_s(self) -> float:
        """Per-run time limit in seconds (``options.timeout_s``)."""
        return self.options.timeout_s

    @property
    def isolation(self) -> str:
        """Where the SUT ran: ``none`` (in the harness's process) or ``process``
        (workers) (``options.isolation``)."""
        return self.options.isolation

    @property
    def memory_limit_mb(self) -> int | None:
        """Each worker process's memory limit in MiB, if any (``options.memory_limit_mb``)."""
        return self.options.memory_limit_mb

    @property
    def executor(self) -> str:
        """Where runs were scheduled: ``local`` or ``ray`` (``options.executor``)."""
        return self.options.executor


_ID_JSON = TypeAdapter(str)
_CHECKS_JSON = TypeAdapter(list[CheckResult])
_CHECKS_CACHE_LIMIT = 1024


class TraceRecord(BaseModel):
    """One line of ``runs.jsonl``: a full run record and its checks."""

    case_id: str
    """The case."""
    trial: int
    """The trial number."""
    success: bool
    """Every outcome and safety check passed."""
    run: Run
    """The full run record the SUT returned."""
    checks: list[CheckResult]
    """Every check's verdict."""


def utc_now() -> str:
    """The current time, UTC, ISO 8601 to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def new_run_id(label: str) -> str:
    """A fresh, sortable trace-folder name: ``<utc time>-<label>-<random>``."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in label) or "run"
    return f"{stamp}-{safe}-{secrets.token_hex(3)}"


class TraceWriter:
    """Appends trace records to ``<traces_dir>/<run-id>/runs.jsonl``.

    The file is opened once; each :meth:`write` appends one line and flushes it to the
    OS (one ``write`` call), and ``meta.json`` is rewritten with the runs finished so far
    when ``meta_interval_s`` has passed since it last was. Use as a context manager, or
    call :meth:`close` with the final meta. ``meta.finished_runs`` counts runs already
    in the folder (a resumed evaluation appends to its own trace).
    """

    def __init__(
        self, traces_dir: Path, meta: RunMeta, *, meta_interval_s: float = META_INTERVAL_S
    ) -> None:
        self.folder = traces_dir / meta.run_id
        self.folder.mkdir(parents=True, exist_ok=True)
        self.meta = meta
        self.finished_runs = meta.finished_runs
        """Runs traced so far."""
        self.meta_interval_s = meta_interval_s
        write_meta(self.folder, meta)
        self._meta_written = time.monotonic()
        # Unbuffered: every write() below reaches the OS at once, so it is the flush.
        self._file: IO[bytes] | None = (self.folder / RUNS_FILE).open("ab", buffering=0)
        # JSON of recently seen check lists, by the identity of their (shared) members;
        # each entry keeps its checks alive so the ids cannot be reused.
        self._checks_json: dict[tuple[int, ...], tuple[Sequence[CheckResult], bytes]] = {}

    def write(
        self,
        run: Run,
        checks: Sequence[CheckResult],
        success: bool,
        *,
        run_json: bytes | None = None,
    ) -> None:
        """Append one finished run (a :class:`TraceRecord` line) and flush it to the OS.

        ``run_json``: the run already serialised (the runner has it), else done here."""
        if self._file is None:
            raise ValueError(f"trace writer for {str(self.folder)!r} is closed")
        # The same JSON as TraceRecord(...).model_dump_json(), without validating a
        # record first: the run and its checks are models already.
        line = b"".join(
            (
                b'{"case_id":',
                _ID_JSON.dump_json(run.case_id),
                b',"trial":',
                str(run.trial).encode(),
                b',"success":true,"run":' if success else b',"success":false,"run":',
                run.__pydantic_serializer__.to_json(run) if run_json is None else run_json,
                b',"checks":',
                self._checks(checks),
                b"}\n",
            )
        )
        view = memoryview(line)
        try:
            while view:  # a raw write may take less than all of it
                view = view[self._file.write(view) or 0 :]
        except OSError as e:  # out of space: say which file lost the run
            raise naming(e, self.folder / RUNS_FILE) from e
        self.finished_runs += 1
        now = time.monotonic()
        if now - self._meta_written >= self.meta_interval_s:
            self._meta_written = now
            current = self.meta.model_copy(update={"finished_runs": self.finished_runs})
            write_meta(self.folder, current)

    def _checks(self, checks: Sequence[CheckResult]) -> bytes:
        key = tuple(map(id, checks))
        cached = self._checks_json.get(key)
        if cached is not None:
            return cached[1]
        data = _CHECKS_JSON.dump_json(list(checks))
        one_off = any(c.expected is not None or c.got is not None for c in checks)
        if not one_off and len(self._checks_json) < _CHECKS_CACHE_LIMIT:
            self._checks_json[key] = (tuple(checks), data)
        return data

    def close(self, meta: RunMeta | None = None) -> None:
        """Close the runs file and rewrite ``meta.json`` with the final meta."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if meta is not None:
            self.meta = meta
            write_meta(self.folder, meta)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def write_meta(folder: Path, meta: RunMeta) -> None:
    """Write ``meta.json`` atomically (a reader never sees half a file)."""
    write_atomic(folder / META_FILE, meta.model_dump_json(indent=2) + "\n")


MAX_META_BYTES = 16 * 1024 * 1024
"""The largest ``meta.json`` read (one is a few kilobytes)."""


def read_meta(folder: Path) -> RunMeta:
    """Read a trace folder's ``meta.json``."""
    path = folder / META_FILE
    text, _ = read_json_text(path, TraceError, "no such file", limit=MAX_META_BYTES)
    return RunMeta.model_validate_json(text)


class TraceLine(NamedTuple):
    """One whole line of ``runs.jsonl``."""

    number: int
    """Its line number, from 1."""
    text: bytes
    """The line, with its newline."""
    end: int
    """Bytes of ``runs.jsonl`` up to the end of this line."""


def trace_lines(folder: Path) -> Iterator[TraceLine]:
    """Every whole, non-blank line of a trace folder's ``runs.jsonl``, in the order the
    runs finished: the one reader of that file (resume, report, compare, the HTML page).

    A torn last line (a kill mid-write) never finished: it is no line. No file yet (killed
    before the first run finished) is no line either. A file that is not a regular file
    (a FIFO would hang the read) and a read that fails are a :class:`TraceError` naming
    the file."""
    path = folder / RUNS_FILE
    if path.exists() and not path.is_file():
        raise TraceError(path, "not a regular file (a folder, a FIFO or a device): not read")
    end = 0
    try:
        with path.open("rb") as f:
            for number, line in enumerate(f, start=1):
                if not line.endswith(b"\n"):
                    return
                end += len(line)
                if line.strip():
                    yield TraceLine(number, line, end)
    except FileNotFoundError:
        return
    except OSError as e:
        raise TraceError(path, f"cannot read: {e}") from e


def read_traces(folder: Path) -> Iterator[TraceRecord]:
    """Yield the trace records of a trace folder, in the order they finished."""
    for line in trace_lines(folder):
        yield TraceRecord.model_validate_json(line.text)
