"""The baseline: the committed metrics the gate compares with.

``reports/baseline.json`` holds what the gate needs (success rate, step accuracy,
returned-characters p95, latency p95, unauthorized rate …) and the success of every case
not excluded from the gate (flaky cases are excluded). Only ``evals baseline`` (``nox -s
baseline``) writes it; every other command only reads it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from evals._json_files import read_model
from evals.errors import BaselineError
from evals.metrics import Metrics, compute
from evals.result import RunResult
from evals.traces import RunMeta

BASELINE_SCHEMA_VERSION = 1


class Baseline(BaseModel):
    """What the gate compares with: summary metrics and per-case success."""

    schema_version: int = BASELINE_SCHEMA_VERSION
    """Version of this file's layout; a different version is refused, not guessed at."""
    suites: list[str] = Field(default_factory=list)
    """The suites the baseline was made from."""
    sut: str = ""
    """The SUT import path."""
    trials: int = 1
    """Trials per case."""
    git_revision: str = "unknown"
    """The code revision the baseline was made at."""
    exclude_tags: list[str] = Field(default_factory=list)
    """Tags left out (flaky)."""
    runs: int
    """Runs counted."""
    cases: int
    """Cases counted."""
    success_rate: float
    """Share of runs that succeeded (0..1)."""
    step_accuracy: float
    """Share of trajectory checks passed (0..1)."""
    unauthorized_rate: float
    """Share of runs with an unauthorized write (0..1)."""
    returned_chars_p95: float
    """Characters returned by workers, 95th percentile."""
    latency_ms_p95: float
    """Run wall time, 95th percentile, in milliseconds."""
    case_success: dict[str, bool]
    """Every gated case -> whether it passed."""


def excluding(results: Iterable[RunResult], exclude_tags: Iterable[str]) -> list[RunResult]:
    """The results whose case carries none of ``exclude_tags``."""
    excluded = set(exclude_tags)
    return [r for r in results if not excluded.intersection(r.tags)]


def from_metrics(metrics: Metrics, meta: RunMeta, exclude_tags: Iterable[str]) -> Baseline:
    """A baseline from metrics already computed without the excluded cases."""
    return Baseline(
        suites=list(meta.suites),
        sut=meta.sut,
        trials=meta.trials,
        git_revision=meta.git_revision,
        exclude_tags=sorted(set(exclude_tags)),
        runs=metrics.runs,
        cases=metrics.cases,
        success_rate=metrics.success_rate,
        step_accuracy=metrics.step_accuracy,
        unauthorized_rate=metrics.unauthorized_rate,
        returned_chars_p95=metrics.returned_chars_p95,
        latency_ms_p95=metrics.latency_ms_p95,
        case_success=dict(sorted(metrics.case_success.items())),
    )


def build_baseline(
    results: Iterable[RunResult], meta: RunMeta, exclude_tags: Iterable[str]
) -> Baseline:
    """A baseline from graded runs, leaving out cases with an excluded tag."""
    tags = list(exclude_tags)
    return from_metrics(compute(excluding(results, tags)), meta, tags)


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write the baseline atomically, stable key order, for a readable git diff."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(baseline.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_baseline(path: Path) -> Baseline:
    """Read a baseline; :class:`BaselineError` (one line) when missing or malformed."""
    baseline = read_model(
        path, Baseline, BaselineError, "no baseline; create it with `nox -s baseline`"
    )
    if baseline.schema_version != BASELINE_SCHEMA_VERSION:
        raise BaselineError(
            path,
            f"schema_version {baseline.schema_version!r} is not {BASELINE_SCHEMA_VERSION!r};"
            " regenerate it with `nox -s baseline`",
        )
    return baseline
