"""Rewrite ``baseline.json`` from the agent as it is (after a change you mean to keep)."""

from pathlib import Path

import evals
from evals.gating.baseline import write_baseline
from grade import RefundSUT

HERE = Path(__file__).parent

if __name__ == "__main__":
    report = evals.evaluate(HERE / "cases.jsonl", RefundSUT(), progress=False)
    write_baseline(HERE / "baseline.json", evals.make_baseline(report))
