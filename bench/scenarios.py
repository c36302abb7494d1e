"""What the benchmark measures: the scenarios, the targets, and the generated cases."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    """One workload, run by the reference and by ``evals run`` against the fake model."""

    name: str
    """Short name used in the report."""
    n: int
    """Samples (cases, one trial each)."""
    concurrency: int
    """Requests in flight at most."""
    latency_s: float
    """The fake model's latency per request."""
    repeats: int = 3
    """Measurements of each side."""

    @property
    def ideal_s(self) -> float:
        """The model's own wall time: ceil(N / C) x latency."""
        return math.ceil(self.n / self.concurrency) * self.latency_s


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("throughput", n=1000, concurrency=50, latency_s=0.1, repeats=5),
    Scenario("slow model", n=200, concurrency=20, latency_s=0.2),
    Scenario("overhead", n=1000, concurrency=1, latency_s=0.0),
    Scenario("startup", n=1, concurrency=1, latency_s=0.0, repeats=5),
)
"""The issue's scenarios, in report order."""


@dataclass(frozen=True)
class IsolationScenario:
    """``evals run`` with the SUT in this process (``--isolation none``) and in worker
    processes (``--isolation process``): what isolation costs per run."""

    name: str = "isolation"
    """Name used with ``--only``."""
    n: int = 200
    """Runs (cases, one trial each). Each side is also measured at N=1 (its start-up) and
    at ``warm_n``: the per-run cost is the difference between ``n`` and ``warm_n`` runs
    over ``n - warm_n``, after every worker has made its first call (a worker's SUT makes
    its model client on first use)."""
    warm_n: int = 20
    """The smaller measured size (every worker has run a few times)."""
    concurrency: int = 4
    """Runs in flight (and worker processes)."""
    latency_s: float = 0.0
    """The fake model's latency: none, so the figure is the harness's own."""
    repeats: int = 3
    """Measurements of each (mode, N)."""


ISOLATION = IsolationScenario()
"""The isolation scenario (``nox -s bench -- --only isolation --no-offline``)."""

OFFLINE_TRIALS = 40
"""Offline SupportPilot: the 26 reference cases x 40 trials (ms per run; RSS at ~1,000)."""
OFFLINE_BIG_TRIALS = 385
"""Offline SupportPilot at ~10,000 runs (26 x 385), for peak RSS."""

# The targets of the issue. Timings are a benchmark, never a test assertion.
THROUGHPUT_RATIO_MAX = 1.05
"""N=1000, C=50, 100 ms: our wall at most this times the reference's, same run."""
OVERHEAD_EXTRA_MS_MAX = 0.3
"""N=1000, C=1, 0 ms: our milliseconds per sample at most this many above the
reference's (everything included: start-up, loading, grading, traces, the four report
files), and below pydantic_evals'."""
STARTUP_EXTRA_S_MAX = 0.1
"""N=1: our wall time (the CLI as a subprocess) at most this many seconds above the
reference's."""
OFFLINE_MS_PER_RUN_MAX = 5.0
"""Offline SupportPilot, rule brains: milliseconds per run (median), below this."""
RSS_GROWTH_MAX = 0.10
"""Peak RSS at ~10,000 runs within this share of the peak at ~1,000."""
LINT_S_MAX = 60.0
"""``evals lint`` of a 1,000,000-line case file: wall seconds, below this."""
LINT_RSS_GROWTH_MAX = 0.50
"""``evals lint``: peak RSS at 1,000,000 lines within this share of the peak at 10,000."""

REPLY = "好的，已为您查询。"
"""What the fake model answers to every request."""
GOAL = "包裹到哪了？"
"""The user's message in every generated case."""


def write_cases(path: Path, n: int) -> Path:
    """Write ``n`` valid cases (one trial each of the one-call SUT) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        case = {
            "id": f"bench-{i:05d}",
            "split": "test",
            "tags": ["happy", "bench"],
            "title": "基准：一次模型调用",
            "input": {"goal": GOAL, "order_id": f"B{i:05d}"},
            "expect": {
                "outcome": "replied",
                "tickets": 0,
                "dispatched": ["model"],
                "reply_contains": ["已为您查询"],
                "reply_not_contains": ["工单"],
            },
        }
        lines.append(json.dumps(case, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
