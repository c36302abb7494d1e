"""The model path's HTTP status edges (agent_evals.status_cases): the committed family is
what its table makes, the table is the documented one, and every status it names has both
neighbours under the gate. (The gate catching a moved status: test_model_path's controls.)"""

from __future__ import annotations

import json

from .conftest import CASES_DIR, MODEL_PATH

ROOT = CASES_DIR.parent


def test_the_status_edges_are_what_their_table_makes() -> None:
    """cases/model_path.jsonl holds exactly the family agent_evals.status_cases makes, after
    the hand-written cases (regenerate: uv run python -m agent_evals.status_cases)."""
    from agent_evals.status_cases import rewritten

    path = CASES_DIR / f"{MODEL_PATH}.jsonl"
    text = path.read_text(encoding="utf-8")
    assert rewritten(text) == text, "run: uv run python -m agent_evals.status_cases"


def test_every_named_status_has_both_neighbours_under_the_gate() -> None:
    """The class the family is for: each status the table names (and the first 5xx) has a
    case one below and one above it, generated or hand-written, to every request or not."""
    from agent_evals.status_cases import PROVIDER_STATUSES, SERVER_ERRORS

    lines = (CASES_DIR / f"{MODEL_PATH}.jsonl").read_text("utf-8").splitlines()
    faults = [json.loads(line).get("faults", {}).get("model", "") for line in lines]
    statuses = {int(f.split(":")[1]) for f in faults if f.startswith("http:")}
    statuses |= {401, 429, 500}  # the named faults unauthorized, rate_limited, server_error
    for status in [*PROVIDER_STATUSES, SERVER_ERRORS.start]:
        assert {status - 1, status, status + 1} <= statuses, status


def test_the_status_table_is_the_documented_one() -> None:
    """agent_evals.status_cases.PROVIDER_STATUSES is docs/models.md's "Provider statuses"."""
    from agent_evals.status_cases import PROVIDER_STATUSES, SERVER_ERRORS

    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    after = text.split("### Provider statuses", 1)[1]
    section = next(chunk for chunk in after.split("\n\n") if chunk.startswith("| status"))
    documented: dict[int, str] = {}
    span = None
    for row in section.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        kind = cells[1].strip("`")
        if "–" in cells[0]:
            low, high = cells[0].split("–")
            span = (int(low), int(high), kind)
        elif kind.startswith("—"):
            continue
        else:
            documented.update({int(s): kind for s in cells[0].split(", ")})
    assert documented == PROVIDER_STATUSES
    assert span == (SERVER_ERRORS.start, SERVER_ERRORS.stop - 1, "server_error")
