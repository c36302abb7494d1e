"""Merging the specialists' claims by topic: agreed facts, conflicts, gaps."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent.worker import WorkerResult

REQUIRED_TOPICS = ("parcel_state", "stale_hours", "reissue_threshold_hours")
"""Topics the decision needs; one nobody answered is a gap."""


class Aggregate(BaseModel):
    """What the specialists' claims add up to."""

    agreed: dict[str, str] = Field(default_factory=dict)
    """Topic -> the one value every source gave (a single source counts as agreed)."""
    conflicts: dict[str, dict[str, str]] = Field(default_factory=dict)
    """Topic -> source role -> value, where sources disagree."""
    gaps: list[str] = Field(default_factory=list)
    """Topics no source could answer, in a stable order."""


def aggregate(results: Sequence[WorkerResult]) -> Aggregate:
    """Merge the claims of the ``ok`` results."""
    values: dict[str, dict[str, str]] = {}
    unanswered: list[str] = []
    for result in results:
        if result.status != "ok":
            continue
        for claim in result.claims:
            if claim.value is None:
                unanswered.append(claim.topic)
            else:
                values.setdefault(claim.topic, {})[result.role] = claim.value
    agreed: dict[str, str] = {}
    conflicts: dict[str, dict[str, str]] = {}
    for topic, by_role in values.items():
        distinct = set(by_role.values())
        if len(distinct) == 1:
            agreed[topic] = distinct.pop()
        else:
            conflicts[topic] = by_role
    # A topic answered with a value by any source is no gap, even if another said None.
    gaps = list(dict.fromkeys(t for t in [*unanswered, *REQUIRED_TOPICS] if t not in values))
    return Aggregate(agreed=agreed, conflicts=conflicts, gaps=gaps)
