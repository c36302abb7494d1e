"""What a gated evaluation holds in memory, measured inside one process with
``tracemalloc`` (``python -m bench.gate_memory --trials K``; run by the gate scenario).

Every suite, ``K`` trials, offline SupportPilot, through the library entry points
``evals.evaluate`` and ``evals.gate``; prints one JSON line:

- ``results_mib``: the deep size of ``report.results`` (every object reachable from it,
  each counted once; classes, modules and functions not counted), as stored;
- ``gate_peak_mib``: the most the gate allocated while judging (``tracemalloc``, started
  after the evaluation, so the runs themselves are not slowed);
- ``runs`` and the gate's verdict.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tracemalloc
import types
from collections.abc import Sequence

import evals
from evals.config import load_config

MIB = 1024 * 1024


SKIPPED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
"""Shared by the whole process, not held by the results."""


def deep_size(root: object) -> int:
    """Bytes of every object reachable from ``root``, each counted once."""
    seen: set[int] = set()
    todo = [root]
    total = 0
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, SKIPPED):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total


def stored(results: object) -> object:
    """What a result sequence really stores: a lazy sequence's backing list."""
    return getattr(results, "summaries", results)


def main(argv: Sequence[str] | None = None) -> int:
    """Evaluate and gate; print the figures as one JSON line."""
    parser = argparse.ArgumentParser(prog="bench.gate_memory")
    parser.add_argument("--trials", type=int, required=True)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    config = load_config()
    # Every suite `evals gate` gates together: the suites apart run with options of their
    # own (the scripted model) and are gated on their own.
    files = [
        config.suite_path(suite) for suite in config.suites() if suite not in config.suite_options
    ]
    sut = "agent_evals.sut:SupportPilotSUT"
    report = evals.evaluate(files, sut, trials=args.trials, concurrency=args.concurrency)
    results_size = deep_size(stored(report.results))
    gc.collect()
    tracemalloc.start()
    verdict = evals.gate(report, config.baseline_path, config.gate_config_path)
    _, gate_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures = {
        "runs": len(report.results),
        "results_mib": results_size / MIB,
        "gate_peak_mib": gate_peak / MIB,
        "passed": verdict.passed,
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
