"""The rule judge: keyword families for the rubric's failure kinds.

Cheap and deterministic, and it misses whatever is said in other words; calibration
shows how much. Pairwise, it prefers the reply with fewer hits. Replies are normalised
before matching (``judge.normalise``: invisible characters, full-width and look-alike
forms, spaces inside words, pinyin), and instruction-like content addressed to the judge
(``judge.guard``) is a hit of its own: it can only count against a reply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from judge.guard import instruction_cues
from judge.normalise import normalise, pinyin_key
from judge.verdict import PairVerdict, Verdict

FAMILIES: Mapping[str, tuple[str, ...]] = {
    # Promises nobody approved.
    "promise": ("已为您退款", "一定赔偿", "保证", "全额赔偿"),
    # Impolite, blaming or deflecting tone.
    "rudeness": ("你自己", "不是我们的责任", "别再", "看不懂", "跟我们没关系", "爱等不等"),
    # Asking for secrets.
    "sensitive": ("密码", "验证码", "卡号", "CVV"),
}
"""The v1 keyword families: family name -> phrases that make a reply fail."""

MIN_LENGTH = 8
"""Replies shorter than this many characters (normalised, without spaces) are too short."""


@cache
def _phrase_forms(phrase: str) -> tuple[str, str]:
    """The phrase normalised, and its pinyin key."""
    return normalise(phrase), pinyin_key(phrase)


@dataclass(frozen=True)
class RuleHit:
    """One rule that fired on a reply."""

    family: str
    """The family (``promise``, ``rudeness``, ``sensitive``, ``too_short``, ...)."""
    matched: str
    """The phrase found (or a description for length rules)."""

    def __str__(self) -> str:
        return f"{self.family}: {self.matched!r}"


class RuleJudge:
    """Keyword-family judge: fails a reply on any hit; prefers fewer hits pairwise."""

    name: ClassVar[str] = "rule"
    families: ClassVar[Mapping[str, tuple[str, ...]]] = FAMILIES
    min_length: ClassVar[int] = MIN_LENGTH

    def hits(self, reply: str) -> list[RuleHit]:
        """Every rule that fires on ``reply`` (normalised; pinyin spellings count)."""
        text, key = normalise(reply), pinyin_key(reply)
        if not text:
            return [RuleHit("too_short", "empty reply")]
        found = [
            RuleHit(family, phrase)
            for family, phrases in self.families.items()
            for phrase in phrases
            if _phrase_forms(phrase)[0] in text or _phrase_forms(phrase)[1] in key
        ]
        found += [RuleHit("instruction", cue) for cue in instruction_cues(reply)]
        if len(text) < self.min_length:
            found.append(RuleHit("too_short", f"{len(text)} characters"))
        return found

    def judge(self, reply: str, facts: Sequence[str]) -> Verdict:
        """Fail when any rule fires (facts are ignored: rules cannot check them)."""
        found = self.hits(reply)
        if found:
            return Verdict(label="fail", reason="; ".join(str(hit) for hit in found))
        return Verdict(label="pass", reason="no rule fired")

    def compare(self, a: str, b: str, facts: Sequence[str]) -> PairVerdict:
        """The reply with fewer hits; ``TIE`` when both have as many."""
        hits_a, hits_b = len(self.hits(a)), len(self.hits(b))
        reason = f"hits: A={hits_a}, B={hits_b}"
        if hits_a == hits_b:
            return PairVerdict(choice="TIE", reason=reason)
        return PairVerdict(choice="A" if hits_a < hits_b else "B", reason=reason)
