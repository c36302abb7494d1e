"""The OpenAI judge: any OpenAI-compatible chat endpoint, through the ``openai`` client.

Strict JSON answers; one repair round on an unparsable answer, then ``JudgeOutputError``
(never a silent pass). HTTP 429/5xx and timeouts are retried by the client itself
(``max_retries``); what still fails becomes ``JudgeCallError``. A reply holding
instruction-like content (``judge.guard``) fails before the model is asked: no prompt
wording stops every model from obeying it, and such text can only count against a reply.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from judge.errors import JudgeCallError, JudgeConfigError, JudgeOutputError
from judge.guard import instruction_cues
from judge.prompts import (
    PAIR_SYSTEM,
    REPAIR,
    VERDICT_SYSTEM,
    pair_user_message,
    verdict_user_message,
)
from judge.verdict import PairChoice, PairVerdict, Verdict

DEFAULT_MODEL = "gpt-4o-mini"
"""The model used when neither ``--model`` nor ``JUDGE_MODEL`` names one."""

_GUARDED = "instruction-like content addressed to the judge"


class OpenAIJudgeConfig(BaseModel):
    """Where and how the OpenAI judge calls its model."""

    model: str = DEFAULT_MODEL
    """The model name."""
    base_url: str | None = None
    """The endpoint (``None``: the client's default, i.e. ``OPENAI_BASE_URL`` or OpenAI)."""
    api_key: str | None = None
    """The API key (``None``: ``OPENAI_API_KEY``)."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds per HTTP request before the client gives up (and maybe retries)."""
    max_retries: int = Field(default=2, ge=0)
    """Client retries on 429, 5xx, timeouts and connection errors."""
    temperature: float = 0.0
    """Sampling temperature (0: as repeatable as the endpoint allows)."""
    json_mode: bool = True
    """Send ``response_format={"type": "json_object"}`` (turn off for endpoints without it)."""
    guard: bool = True
    """Fail a reply holding instruction-like content without asking the model (and prefer
    the other reply pairwise); turn off only to measure what the model does with it."""

    @classmethod
    def from_env(cls, model: str | None = None, **overrides: Any) -> OpenAIJudgeConfig:
        """Read ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``JUDGE_MODEL``; ``model`` wins."""
        values: dict[str, Any] = {
            "model": model or os.environ.get("JUDGE_MODEL") or DEFAULT_MODEL,
            "base_url": os.environ.get("OPENAI_BASE_URL") or None,
            "api_key": os.environ.get("OPENAI_API_KEY") or None,
        }
        values.update(overrides)
        return cls(**values)


class TokenUsage(BaseModel):
    """Tokens spent by one judge, summed over its calls."""

    calls: int = 0
    """HTTP calls that returned a completion (repairs count)."""
    prompt_tokens: int = 0
    """Prompt tokens reported by the endpoint."""
    completion_tokens: int = 0
    """Completion tokens reported by the endpoint."""


class _VerdictAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    passed: StrictBool | None = Field(default=None, alias="pass")
    unsure: StrictBool = False
    reason: str = Field(min_length=1)


class _PairAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    choice: PairChoice
    reason: str = Field(min_length=1)


_Answer = TypeVar("_Answer", _VerdictAnswer, _PairAnswer)


def _parse(content: str | None, shape: type[_Answer]) -> _Answer:
    """One JSON object of ``shape`` (a surrounding code fence is tolerated)."""
    if content is None or not content.strip():
        raise ValueError("the answer is empty")
    text = content.strip()
    if text.startswith("```") and text.endswith("```"):
        text = text[3:-3].removeprefix("json").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from e
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    try:
        answer = shape.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "object"
        raise ValueError(f"{where}: {first['msg']}") from e
    if isinstance(answer, _VerdictAnswer) and answer.passed is None and not answer.unsure:
        raise ValueError('neither "pass" nor "unsure" given')
    return answer


class OpenAIJudge:
    """A model judge: rubric + verified facts + the reply as a JSON string value."""

    name: ClassVar[str] = "openai"

    def __init__(self, config: OpenAIJudgeConfig, client: openai.OpenAI | None = None) -> None:
        self.config = config
        """Where and how the model is called."""
        self.usage = TokenUsage()
        """Tokens spent so far."""
        self._lock = threading.Lock()
        if client is None:
            try:
                client = openai.OpenAI(
                    base_url=config.base_url,
                    api_key=config.api_key,
                    timeout=config.timeout,
                    max_retries=config.max_retries,
                )
            except openai.OpenAIError as e:
                raise JudgeConfigError(f"cannot create the OpenAI client: {e}") from e
        self._client = client

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        """Ask the model for ``{"pass": bool, "reason": str}`` (or ``unsure``); a reply the
        guard refuses fails without a call."""
        cues = instruction_cues(reply) if self.config.guard else []
        if cues:
            return Verdict(label="fail", reason=f"{_GUARDED}: {'; '.join(cues)}")
        answer = self._ask(VERDICT_SYSTEM, verdict_user_message(reply, facts), _VerdictAnswer)
        if answer.unsure:
            return Verdict(label="unsure", reason=answer.reason)
        return Verdict(label="pass" if answer.passed else "fail", reason=answer.reason)

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        """Ask the model for ``{"choice": "A" | "B" | "TIE", "reason": str}``; when the
        guard refuses one reply the other wins, when it refuses both it is a ``TIE``,
        without a call."""
        if self.config.guard:
            refused_a, refused_b = bool(instruction_cues(a)), bool(instruction_cues(b))
            if refused_a or refused_b:
                choice: PairChoice = "TIE" if refused_a and refused_b else "B" if refused_a else "A"
                return PairVerdict(choice=choice, reason=_GUARDED)
        answer = self._ask(PAIR_SYSTEM, pair_user_message(a, b, facts), _PairAnswer)
        return PairVerdict(choice=answer.choice, reason=answer.reason)

    def _ask(self, system: str, user: str, shape: type[_Answer]) -> _Answer:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        content = self._complete(messages)
        try:
            return _parse(content, shape)
        except ValueError as first:
            problem = str(first)
        # One repair round: show the model its answer and what was wrong with it.
        messages += [
            {"role": "assistant", "content": content or ""},
            {"role": "user", "content": REPAIR.format(problem=problem)},
        ]
        content = self._complete(messages)
        try:
            return _parse(content, shape)
        except ValueError as second:
            raise JudgeOutputError(content, str(second)) from second

    def _complete(self, messages: list[ChatCompletionMessageParam]) -> str | None:
        extra: dict[str, Any] = {}
        if self.config.json_mode:
            extra["response_format"] = {"type": "json_object"}
        try:
            completion: ChatCompletion = self._client.chat.completions.create(
                model=self.config.model,
                messages=messages,
                temperature=self.config.temperature,
                **extra,
            )
        except openai.APIError as e:
            raise JudgeCallError(f"judge model call failed: {type(e).__name__}: {e}") from e
        except ValueError as e:  # the client could not decode a 200 body
            raise JudgeCallError(f"judge model answered an unreadable body: {e}") from e
        with self._lock:
            self.usage.calls += 1
            if completion.usage is not None:
                self.usage.prompt_tokens += completion.usage.prompt_tokens
                self.usage.completion_tokens += completion.usage.completion_tokens
        if not completion.choices:
            return None
        return completion.choices[0].message.content
