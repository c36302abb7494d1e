"""Reply facts: the numbers (and names) a reply states, compared with the world.

``expect.reply_facts`` names facts of ``run.ground_truth`` (what the system under test
read from its environment after the run, never the agent's claims) that the reply must
state correctly. Two forms:

- a list of fact keys: each value must appear in the reply, a number as a whole token
  (120 does not match 1200, 72 does not match 172 or 72.5);
- a mapping fact key -> anchor phrase: the first number after the anchor must equal the
  value (a text value must follow the anchor). Only this form catches swapped numbers
  (both numbers still appear, each after the other's anchor).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from pydantic import TypeAdapter, ValidationError

from evals.checks.registry import CheckOutput, define, mismatch
from evals.model.case import Case
from evals.model.result import CheckResult
from evals.model.run import Run

REPLY_FACTS = "reply_facts"
"""The ``expect`` key this module reads."""

NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""A number as a reply writes it (``72``, ``59.00``)."""

_SPEC: TypeAdapter[list[str] | dict[str, str]] = TypeAdapter(list[str] | dict[str, str])


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text) if NUMBER.fullmatch(text) else None
    except InvalidOperation:
        return None


def _token(value: str) -> re.Pattern[str]:
    """``value`` as a whole number token: no digit (or decimal part) glued to it."""
    return re.compile(rf"(?<![\d.]){re.escape(value)}(?!\d|\.\d)")


def _stated_anywhere(reply: str, key: str, value: str) -> str:
    """Why the reply fails to state ``value`` anywhere (empty: it does)."""
    found = _token(value).search(reply) if _number(value) is not None else value in reply
    if found:
        return ""
    how = "as a whole number" if _number(value) is not None else ""
    return f"the reply does not state {key} = {value!r}{' ' + how if how else ''}: {reply!r}"


def _stated_after(reply: str, key: str, value: str, anchor: str) -> str:
    """Why the reply fails to state ``value`` right after ``anchor`` (empty: it does)."""
    at = reply.find(anchor)
    if at < 0:
        return f"the reply has no {anchor!r}, after which it should state {key} = {value!r}"
    rest = reply[at + len(anchor) :]
    wanted = _number(value)
    if wanted is None:
        if rest.lstrip().startswith(value):
            return ""
        return f"after {anchor!r} the reply does not state {key} = {value!r}: {reply!r}"
    match = NUMBER.search(rest)
    if match is None:
        return f"no number follows {anchor!r} in the reply; the world says {key} = {value!r}"
    if Decimal(match.group()) == wanted:
        return ""
    return f"the reply states {match.group()!r} after {anchor!r}; the world says {key} = {value!r}"


@define(kind="outcome", name=REPLY_FACTS, expect_keys=(REPLY_FACTS,))
def reply_facts(case: Case, run: Run) -> CheckOutput:
    """The reply states each named world fact correctly (one result per fact), read from
    ``run.ground_truth``; not applicable when the case names none."""
    raw = (case.expect.model_extra or {}).get(REPLY_FACTS)
    if raw is None:
        return None
    try:
        spec = _SPEC.validate_python(raw)
    except ValidationError:
        return False, (
            f"expect.{REPLY_FACTS} must be a list of fact keys or an object fact key -> "
            f"anchor phrase, got {raw!r}"
        )
    anchors = dict.fromkeys(spec, "") if isinstance(spec, list) else spec
    results: list[CheckResult] = []
    for key, anchor in anchors.items():
        value = run.ground_truth.get(key)
        if value is None:
            known = ", ".join(sorted(run.ground_truth)) or "none"
            reason = f"fact {key!r} is not in the run's ground truth (known: {known})"
        elif run.reply is None:
            reason = f"no reply was sent; expected it to state {key} = {value!r}"
        elif anchor:
            reason = _stated_after(run.reply, key, value, anchor)
        else:
            reason = _stated_anywhere(run.reply, key, value)
        name = f"{REPLY_FACTS}:{key}"
        if not reason:
            results.append(CheckResult(name=name, kind="outcome", passed=True))
        elif value is None:
            results.append(CheckResult(name=name, kind="outcome", passed=False, reason=reason))
        else:
            wanted = f"{value} after {anchor!r}" if anchor else value
            results.append(mismatch(name, "outcome", reason, wanted, run.reply))
    return results or None
