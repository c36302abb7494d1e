"""Judges by name, as the CLI and other packages ask for them."""

from __future__ import annotations

from typing import Literal, get_args

from judge.base import Judge
from judge.broken import LenientJudge, PositionBiasedJudge
from judge.errors import UnknownJudgeError
from judge.openai_judge import OpenAIJudge, OpenAIJudgeConfig
from judge.rules import RuleJudge
from judge.rules_v2 import RuleJudgeV2

JudgeName = Literal["rule", "rule-v2", "lenient", "position-biased", "openai"]
"""Every judge's registry name."""

JUDGE_NAMES: tuple[JudgeName, ...] = get_args(JudgeName)
"""The names, in report order."""

OFFLINE_JUDGES: tuple[JudgeName, ...] = ("rule", "rule-v2", "lenient", "position-biased")
"""The judges that need no network (what ``all-offline`` means)."""

ALL_OFFLINE = "all-offline"
"""The selector naming every offline judge."""


def select_judges(selector: str) -> list[JudgeName]:
    """The judge names a ``--judge`` value stands for."""
    if selector == ALL_OFFLINE:
        return list(OFFLINE_JUDGES)
    for name in JUDGE_NAMES:
        if name == selector:
            return [name]
    raise UnknownJudgeError(selector, [*JUDGE_NAMES, ALL_OFFLINE])


def make_judge(name: str, *, openai_config: OpenAIJudgeConfig | None = None) -> Judge:
    """Build the judge called ``name`` (the OpenAI one from ``openai_config`` or the env)."""
    if name == "rule":
        return RuleJudge()
    if name == "rule-v2":
        return RuleJudgeV2()
    if name == "lenient":
        return LenientJudge()
    if name == "position-biased":
        return PositionBiasedJudge()
    if name == "openai":
        return OpenAIJudge(openai_config or OpenAIJudgeConfig.from_env())
    raise UnknownJudgeError(name, [*JUDGE_NAMES])
