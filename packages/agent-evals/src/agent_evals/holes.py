"""A value left out of a composed text: what a template field dropped leaves behind.

Used by the ``composed_texts_whole`` and ``errors_name_their_cause`` invariants (the texts
of a run) and the ``model_texts_whole`` check (the texts sent to a model). A module of its
own, registering no check, so importing it changes no check's place in the registry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from evals.model.case import Case

_HOLE = re.compile(
    r"「」|“”|《》"  # a quotation with nothing quoted
    r"|[(（]\s*[,，:：;；)）]"  # a bracket opened on nothing
    r"|[,，:：;；]\s*[)）]"  # a list or a label whose last value went
    r"|[:：]\s*[:：]"  # a label whose value went, before the next one
    r"|[^\s(（\[] [)）]"  # a space left before a closing bracket
    r"|\S [,，:：;；。.]"  # a space left before a punctuation mark
    r"|[(（] "  # a space left after an opening one
    r"|\S {2,}\S"  # two spaces where a word went
    r"|^[ ,，:：;；)）]"  # a text beginning where its first value went
    r"|[:：] *$"  # a label ending the text: its value went
    r"|\S[ \u3000]+$"  # spaces ending the text: its last value went (or was blank)
    r"|：\s"  # a space after a full-width colon, where its value went
)
"""A value left out of a composed text: what an f-string field dropped leaves
(``订单 ：仅回复``, ``物流状态「」``, ``（订单 A1001，）``, ``at character )``,
``approval  is missing``, ``' gave no usable output``, ``订单系统报错：``, ``库存 SKU-1： 件``,
``unknown recipient ``, ``商品 \u3000``: a value of only spaces is as good as gone).
Chinese typography puts no space after a full-width colon."""


def hole_in(text: str, data: Iterable[str] = ()) -> str | None:
    """The first hole of ``text`` (:data:`_HOLE`), ``data`` (strings the case gave: the
    customer's words, the world's values) masked first, so a hole the data itself holds
    is no hole of the text's."""
    masked = text
    for value in sorted({d for d in data if d.strip()}, key=len, reverse=True):
        masked = masked.replace(value, "■")
    found = _HOLE.search(masked)
    return None if found is None else found.group(0)


def case_strings(case: Case) -> list[str]:
    """Every string the case gives the agent: its input's and its world's, at any depth
    (keys of the world's mappings too: order ids, SKUs)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(case.input)
    walk(case.world)
    return found
