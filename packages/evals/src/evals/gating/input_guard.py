"""The files a gate reads, held against the code under test.

In CI the system under test is the code under review, and it runs while the gate waits:
it could rewrite the baseline, loosen ``gate.json`` or change a case file, so that this
verdict or the next one says what it wants. :class:`InputGuard` reads every such file
before the run; afterwards a file that changed is put back as it was read, and the gate
exits 2 naming it (never a verdict computed beside a tampered input).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evals.io.files import write_atomic_bytes


@dataclass
class InputGuard:
    """The bytes of each guarded file as the gate read them (``None``: it did not exist)."""

    read: dict[Path, bytes | None] = field(default_factory=dict)

    @classmethod
    def of(cls, paths: Iterable[Path]) -> InputGuard:
        """Read ``paths`` now (before any SUT code runs)."""
        guard = cls()
        for path in paths:
            guard.read[path] = _bytes(path)
        return guard

    def changed(self) -> list[Path]:
        """The guarded files whose bytes differ from what was read, in order."""
        return [path for path, was in self.read.items() if _bytes(path) != was]

    def put_back(self) -> list[str]:
        """Restore every changed file as it was read; one line each, saying so."""
        lines: list[str] = []
        for path in self.changed():
            was = self.read[path]
            if was is None:
                path.unlink(missing_ok=True)
                lines.append(f"{path}: appeared during the run; removed")
            else:
                write_atomic_bytes(path, was)
                lines.append(f"{path}: changed during the run; put back as the gate read it")
        return lines


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None
