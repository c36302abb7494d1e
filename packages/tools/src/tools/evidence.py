"""Evidence items: what a read tool hands back, and the one place excerpts are built."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

MAX_EXCERPT_CHARS = 16000
"""Upper bound of one excerpt: generous, so longer excerpts never break anything."""


class Evidence(BaseModel):
    """One piece of evidence a read tool returned."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Evidence id, e.g. ``order#1``, ``ship#1``, ``kb#3``."""
    source: str
    """The system it came from (``orders``, ``logistics``, ``kb``, ``stock``)."""
    kind: str
    """What it is (``order``, ``shipment``, ``policy``, ``stock``)."""
    excerpt: str
    """The text read (Chinese)."""
    version: str = ""
    """Document version, for policies (e.g. ``v2 (2024-07-01)``)."""


def build_excerpt(text: str) -> str:
    """The excerpt of an evidence item: every read tool builds its excerpts here."""
    return text[:MAX_EXCERPT_CHARS]
