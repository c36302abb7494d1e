"""The reference: a plain asyncio + ``openai.AsyncOpenAI`` client, a semaphore of C,
one call per sample. What any harness is measured against.

    python -m bench.reference --base-url URL --n 1000 --concurrency 50
    python -m bench.reference --own-server --latency 0.1 --n 1000 --concurrency 50

``--own-server`` starts the fake server inside this process (its threads then compete
for this process's GIL), to show what a separate server process saves.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import openai
from fake_openai import FakeOpenAI

from bench.scenarios import GOAL, REPLY

MODEL = "fake-model"


async def reference(base_url: str, n: int, concurrency: int) -> int:
    """Send ``n`` chat requests, at most ``concurrency`` at once; returns the answers."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench")
    semaphore = asyncio.Semaphore(concurrency)

    async def one() -> str | None:
        async with semaphore:
            answer = await client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": GOAL}]
            )
            return answer.choices[0].message.content

    answers = await asyncio.gather(*(one() for _ in range(n)))
    await client.close()
    return sum(1 for a in answers if a)


def main(argv: list[str] | None = None) -> int:
    """Run the reference and print one JSON line: answers and the server's max in-flight."""
    parser = argparse.ArgumentParser(prog="bench.reference")
    parser.add_argument("--base-url")
    parser.add_argument("--own-server", action="store_true")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    args = parser.parse_args(argv)
    max_in_flight: int | None = None
    if args.own_server:
        with FakeOpenAI(latency=args.latency, default=REPLY) as fake:
            answered = asyncio.run(reference(fake.base_url, args.n, args.concurrency))
            max_in_flight = fake.max_in_flight
    else:
        answered = asyncio.run(reference(args.base_url, args.n, args.concurrency))
    print(json.dumps({"answered": answered, "max_in_flight": max_in_flight}))
    return 0 if answered == args.n else 1


if __name__ == "__main__":
    sys.exit(main())
