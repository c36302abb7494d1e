"""The decision table on the model path: a family of model-path cases drawn from the
generated worlds (:mod:`agent_evals.generated_worlds`), so every row of the table and every
value of every dimension is decided with the model brains too, not only with the rule
brains the generated suite runs.

The model path suite (``cases/model_path.jsonl``) is written case by case around the model
(its faults, prompts, provider errors); the rows the decision table adds (a closed order,
no stock, a refused approval, a failed or crashed write …) were never put to it. This
family takes the fewest generated cases that hold every tag value of the generated suite
and every outcome and reason it expects (a greedy cover, in the suite's order, so it is
deterministic), with the oracle's expectation unchanged: the table does not depend on which
brains run.

The cases live in ``cases/model_path.jsonl`` (tag ``model_world``, ids ``mw-<generated
id>``), after the hand-written ones and before the status edges; a test holds them to
:func:`model_world_cases`::

    uv run python -m agent_evals.model_path_worlds     # rewrite them in the suite file
"""

from __future__ import annotations

from typing import Any

from agent_evals import case_family
from agent_evals.generated_worlds import GENERATOR
from agent_evals.status_cases import TAG as STATUS_TAG

TAG = "model_world"
"""The tag of every case of the family."""
PREFIX = "mw-"


def _values(case: dict[str, Any]) -> set[str]:
    """What a case puts to the model path: its value of every dimension, and the row of
    the table it ends on (a value held only where an earlier row ends the run is covered
    but never decided, so the rows count apart)."""
    expect = case.get("expect", {})
    row = f"row:{expect.get('outcome')}/{expect.get('outcome_reason', '')}"
    return {t for t in case.get("tags", []) if ":" in t} | {row}


def model_world_cases() -> list[dict[str, Any]]:
    """The fewest generated cases, greedily, that hold every tag value (``dimension:value``)
    and every row of the table (outcome and reason) the generated suite holds, each renamed
    into the family."""
    cases = GENERATOR.cases()
    wanted = set().union(*(_values(c) for c in cases))
    chosen: list[dict[str, Any]] = []
    while wanted:
        best = max(cases, key=lambda c: len(_values(c) & wanted))
        wanted -= _values(best)
        chosen.append(best)
    chosen.sort(key=lambda c: str(c["id"]))
    family = []
    for case in chosen:
        copy = dict(case)
        copy["id"] = PREFIX + str(case["id"]).removeprefix("g-")
        copy["tags"] = [*case.get("tags", []), "model", TAG]
        family.append(copy)
    return family


def rewritten(text: str) -> str:
    """The suite file's ``text`` with the family's lines replaced by
    :func:`model_world_cases`, placed before the status edges (which stay last)."""
    return case_family.rewritten(text, TAG, model_world_cases(), before=STATUS_TAG)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the family in ``cases/model_path.jsonl`` (or the file given)."""
    return case_family.main(argv, rewritten, len(model_world_cases()), "model-world")


if __name__ == "__main__":
    raise SystemExit(main())
