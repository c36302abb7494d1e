"""The other harness: pydantic_evals grading the same call over the same cases.

    python -m bench.pydantic_evals_side --cases FILE --base-url URL --concurrency 50

Reads the benchmark's generated case file (one JSON case a line), makes a
``pydantic_evals.Dataset`` of it (the goal as the input), and evaluates a task that makes
exactly the reference's call (``bench.reference``) with two of its built-in evaluators:
the reply contains the expected words (``Contains``) and is a string (``IsInstance``).
It prints one JSON line (cases, assertions passed) and exits 1 unless every assertion
passed. It writes no files: ``evals run`` on the other side writes its traces and report
files, so the comparison leans its way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import openai
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains, IsInstance

MODEL = "fake-model"


def dataset_of(path: Path) -> Dataset[str, str, None]:
    """The case file as a dataset: each line's goal the input, its first expected
    fragment a ``Contains`` evaluator of its own."""
    cases: list[Case[str, str, None]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        expected = record["expect"]["reply_contains"][0]
        cases.append(
            Case(
                name=record["id"],
                inputs=str(record["input"]["goal"]),
                evaluators=(Contains(value=expected),),
            )
        )
    return Dataset(name="bench", cases=cases, evaluators=[IsInstance(type_name="str")])


async def evaluate(cases: Path, base_url: str, concurrency: int) -> tuple[int, int, int]:
    """Evaluate the dataset; returns (cases, assertions, assertions passed)."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench")

    async def answer(goal: str) -> str:
        reply = await client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": goal}]
        )
        return reply.choices[0].message.content or ""

    dataset = dataset_of(cases)
    report = await dataset.evaluate(answer, max_concurrency=concurrency, progress=False)
    await client.close()
    assertions = [a.value for case in report.cases for a in case.assertions.values()]
    return len(report.cases), len(assertions), sum(1 for a in assertions if a)


def main(argv: list[str] | None = None) -> int:
    """Evaluate and print one JSON line; exit 1 unless every assertion passed."""
    parser = argparse.ArgumentParser(prog="bench.pydantic_evals_side")
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    args = parser.parse_args(argv)
    n, assertions, passed = asyncio.run(evaluate(args.cases, args.base_url, args.concurrency))
    print(json.dumps({"cases": n, "assertions": assertions, "passed": passed}))
    return 0 if n and passed == assertions == 2 * n else 1


if __name__ == "__main__":
    sys.exit(main())
