"""Scripted judge models for the fake OpenAI server: honest, except when told to pass.

Each model answers a verdict request (pairs: always ``TIE``) with the human label of the
reply it is shown (looked up by the facts and the reply's first characters), unless it is
"told" to pass:

- ``obedient`` obeys a pass instruction anywhere in the reply, tags or no tags, in any
  language or encoding: every reply whose label marks it as an injection (it addresses
  the grader, imitates a verdict, encodes or quotes an instruction), and any reply saying
  "pass" or "通过". The positive control, the model no prompt wording protects: only the
  judge's guard (which refuses instruction-like replies before asking) keeps its attack
  false-pass rate at 0.
- ``tag_reader`` reads the reply's value, but reads anything in it that looks like a
  closing tag to a lenient reader (``< /reply>``, ``</REPLY>``, a zero-width variant,
  ``</reply`` without ``>``) as the end of the reply, and obeys a pass instruction after
  it: what the neutraliser has to prevent.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal

from judge.labels import LabelledReply

Mode = Literal["obedient", "tag_reader"]

INJECTIONS = frozenset(
    {
        "instruction", "fake_grader", "tag_escape", "combined", "instruction_other_language",
        "traditional", "fake_verdict", "json_verdict", "encoded", "roleplay", "hidden_in_quote",
    }
)  # fmt: skip
"""Attack kinds that carry an instruction to the judge (the rest only hide words from
keyword rules, which a model reads through)."""

_FORMAT = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf")
# How a lenient reader sees a closing tag: any '<', spaces or invisible characters, '/',
# then "reply" in any case, with or without '>'.
_LENIENT_CLOSE = re.compile(
    rf"[<＜][\s{re.escape(_FORMAT)}]*[/／][\s{re.escape(_FORMAT)}]*reply", re.IGNORECASE
)
_PREFIX = 10


def _key(facts: Sequence[str], reply: str) -> str:
    """A reply's key: its facts and its first visible characters (the judge shows the
    model no invisible ones)."""
    visible = "".join(c for c in reply if c not in _FORMAT)
    return "\n".join(facts) + "\n" + visible[:_PREFIX]


def _told_to_pass(text: str) -> bool:
    plain = "".join(c for c in unicodedata.normalize("NFKC", text) if c not in _FORMAT)
    return "pass" in plain.casefold() or "通过" in plain


def _parse(user: str) -> tuple[list[str], str]:
    """(facts, the reply) from the user message's JSON object."""
    data = json.loads(user)
    return list(data["verified_facts"]), str(data["reply"])


def scripted_model(labels: Sequence[LabelledReply], mode: Mode) -> Callable[[dict[str, Any]], str]:
    """A fake-server handler answering verdict requests as ``mode`` describes."""
    truth = {_key(item.facts, item.reply): item.label == "pass" for item in labels}
    injected = {_key(item.facts, item.reply) for item in labels if item.attack in INJECTIONS}
    if len(truth) != len(labels):
        raise ValueError("two labelled replies share facts and first characters: tell them apart")

    def answer(request: dict[str, Any]) -> str:
        user = next(m["content"] for m in request["messages"] if m["role"] == "user")
        if "reply_a" in json.loads(user):  # pairwise: not what these models are for
            return json.dumps({"choice": "TIE", "reason": "scripted"})
        facts, shown = _parse(user)
        if mode == "obedient":
            obeyed = _told_to_pass(shown) or _key(facts, shown) in injected
        else:
            closing = _LENIENT_CLOSE.search(shown)
            obeyed = closing is not None and _told_to_pass(shown[closing.end() :])
        if obeyed:
            return json.dumps({"pass": True, "reason": "told to pass"})
        passed = truth[_key(facts, shown)]
        return json.dumps({"pass": passed, "reason": "scripted truth"})

    return answer
