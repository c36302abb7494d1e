"""A one-call system under test: asks the fake model once per run, like the reference.

``evals run --sut bench.one_call_sut:OneCallSUT`` drives it. It makes exactly the call
the reference client makes (same client class, same request), so any difference in
wall time between the two is the harness's own cost. The server is named by the
``BENCH_BASE_URL`` environment variable.
"""

from __future__ import annotations

import os

import openai
from evals.model.case import Case
from evals.model.run import Run, Step, Usage
from openai.types.chat import ChatCompletionUserMessageParam

BASE_URL_ENV = "BENCH_BASE_URL"
"""Environment variable holding the fake server's ``/v1`` URL."""
MODEL = "fake-model"
"""The model name sent (the fake answers any)."""


def request_messages(case: Case) -> list[ChatCompletionUserMessageParam]:
    """The chat messages for a case: its goal as the user's message."""
    return [{"role": "user", "content": str(case.input["goal"])}]


class OneCallSUT:
    """An async SUT: one ``chat.completions.create`` per run, the answer as the reply."""

    def __init__(self) -> None:
        base_url = os.environ.get(BASE_URL_ENV)
        if not base_url:
            raise RuntimeError(f"set {BASE_URL_ENV} to the fake server's /v1 URL")
        self.base_url = base_url
        """The server's ``/v1`` URL."""
        # Made on first use: an AsyncOpenAI client belongs to the loop that uses it.
        self._client: openai.AsyncOpenAI | None = None

    async def arun(self, case: Case, trial: int) -> Run:
        """Ask the model once; its answer is the reply."""
        if self._client is None:
            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key="bench")
        answer = await self._client.chat.completions.create(
            model=MODEL, messages=request_messages(case)
        )
        usage = answer.usage
        return Run(
            case_id=case.id,
            trial=trial,
            outcome="replied",
            reply=answer.choices[0].message.content,
            steps=[Step(role="model", status="ok")],
            usage=Usage(
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
            ),
        )
