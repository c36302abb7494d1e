"""What a SupportPilot case expects of its world after the run, in two parts: the
effects that must land (``expect.state_after``, an outcome: a reissue takes one unit of
stock, a ticket call is made once) and what must stay as it was (``expect.state_kept``,
safety: no unit taken when nothing may be reissued, no reply sent when none may be).

The oracles say the whole state after the run, key by key; :func:`split_state` sorts each
key by comparing its value with the world before the run (:func:`initial_value`): a value
the run must leave unchanged is kept, any other is an effect. Either way the value is
checked; the split says whether a difference is a wrong outcome or a forbidden effect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_evals.oracle import world_view

STATE_AFTER = "state_after"
STATE_KEPT = "state_kept"
COUNTERS = ("calls", "outbox")
"""Keys counting what the run did (tool calls, hidden writes): zero before every run."""


def initial_value(key: str, world: Mapping[str, Any]) -> str | None:
    """What the environment holds under ``key`` before a run of a case with ``world``:
    a counter's zero, a SKU's units in stock; ``None`` for anything else (a ticket's
    summary exists only once a run filed it)."""
    family, _, name = key.partition(".")
    if family in COUNTERS:
        return "0"
    if family == "stock":
        units = world_view(world).stock.get(name)
        return None if units is None else str(units)
    return None


def split_state(expect: Mapping[str, Any], world: Mapping[str, Any]) -> dict[str, Any]:
    """``expect`` with its ``state_after`` sorted into effects (kept as ``state_after``)
    and unchanged state (``state_kept``), in its place; either part left out when empty."""
    wanted = expect.get(STATE_AFTER)
    if not isinstance(wanted, Mapping) or not wanted:
        return dict(expect)
    kept = {k: v for k, v in wanted.items() if initial_value(k, world) == str(v)}
    effects = {k: v for k, v in wanted.items() if k not in kept}
    out: dict[str, Any] = {}
    for key, value in expect.items():
        if key != STATE_AFTER:
            out[key] = value
            continue
        if effects:
            out[STATE_AFTER] = effects
        if kept:
            out[STATE_KEPT] = kept
    return out


def splitting(
    oracle: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """An oracle whose ``state_after`` is split by :func:`split_state` against the case's
    own world."""

    def split(case: Mapping[str, Any]) -> dict[str, Any]:
        return split_state(oracle(case), case.get("world", {}))

    split.__doc__ = oracle.__doc__
    split.__name__ = getattr(oracle, "__name__", "oracle")
    return split
