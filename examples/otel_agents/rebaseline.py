"""Rewrite a framework's baseline from the desk as it is (after a change you mean to keep).

python rebaseline.py pydantic_ai    # or openai_agents
"""

import importlib
import sys
from pathlib import Path

import evals
from evals.gating.baseline import write_baseline
from grade import trial_of

HERE = Path(__file__).parent

if __name__ == "__main__":
    framework = sys.argv[1]
    ask = importlib.import_module(f"desk_{framework}").ask
    report = evals.evaluate(HERE / "cases.jsonl", trial_of(ask), progress=False)
    write_baseline(HERE / f"baseline-{framework}.json", evals.make_baseline(report))
