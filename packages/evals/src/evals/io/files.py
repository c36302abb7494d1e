"""Replacing a file whole: every report, baseline and trace meta is written this way.

The text goes to a fresh temporary file in the target's own folder, created exclusively
(``tempfile.mkstemp``: ``O_CREAT | O_EXCL``, a random name, so a file or symlink planted
at any name is never opened, let alone followed), and is then renamed over the target
(``os.replace``, atomic on one file system; it replaces a symlink at the target rather
than writing through it). Concurrent writers of the same file therefore never share a
temporary file: a reader sees one writer's whole text, never a mix.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

FILE_MODE = 0o644
"""The permissions of a written file: what a plain ``open(..., "w")`` gives under the
usual umask."""


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Replace ``path`` with ``text`` (UTF-8; a string, or parts written one by one) in
    one step; see the module docstring.

    An ``OSError`` (no space, a folder in the way …) is raised naming ``path`` (see
    :func:`naming`), leaving no temporary file behind."""
    _replace(path, [text] if isinstance(text, str) else text, binary=False)


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """:func:`write_atomic` for bytes as they are (a file put back as it was read)."""
    _replace(path, [data], binary=True)


def _replace(path: Path, chunks: Iterable[str] | Iterable[bytes], *, binary: bool) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, FILE_MODE)  # mkstemp's 0600 would hide reports from CI readers
        # Text mode encodes the parts in the file's buffer, not one by one (a page is
        # hundreds of thousands of template parts); newline="" writes them as they are.
        with (
            os.fdopen(fd, "wb")
            if binary
            else os.fdopen(fd, "w", encoding="utf-8", newline="", buffering=1 << 16)
        ) as f:
            f.writelines(chunks)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise naming(e, path) from e
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def naming(error: OSError, path: Path) -> OSError:
    """``error`` with ``path`` as its file when it names none: a write that runs out of
    space (``ENOSPC``) or quota names no file, and "No space left on device" alone does
    not say which report, trace or baseline was lost."""
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror or str(error) or type(error).__name__, str(path))


def not_regular(mode: int, what: str) -> str | None:
    """Why a file of ``mode`` (``os.stat``'s) is not read as ``what`` ("a case file"), or
    ``None`` for a regular file: a FIFO blocks whoever opens it, a device never ends."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return f"is a directory, not {what}"
    if stat.S_ISFIFO(mode):
        return f"is a FIFO (named pipe), not {what}; not read"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return f"is a device, not {what}; not read"
    return "is not a regular file; not read"
