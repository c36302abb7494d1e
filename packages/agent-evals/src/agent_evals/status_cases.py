"""The model path's HTTP status edges: a family of model-path cases generated from the
documented table of provider statuses (docs/models.md, "Provider statuses").

Which statuses are the provider's failure (an errored run of a kind) and which are the
agent's own (the worker fails, the case escalates) is a table of a few numbers: 401 and
403 (``auth``), 404 (``not_found``), 408 and 409 (retried by the client, then
``server_error``), 429 (``rate_limit``), every 5xx (``server_error``); any other 4xx is the
agent's. A table of numbers is wrong by one as easily as by anything: so beside the
hand-written cases for the statuses it names (m13, m15, m16, m24–m33), every status one
away from a named one (or from the 5xx range) that no hand-written case already puts to
every request gets a case here, its expectation computed from :data:`PROVIDER_STATUSES`
(written from the docs; this module imports nothing of ``agent``). A status added to or
dropped from the agent's table, or a bound moved by one, fails one of them.

The cases live in ``cases/model_path.jsonl`` (tag ``status_edge``, ids ``ms-<status>``),
after the hand-written ones; a test holds them to :func:`status_cases`::

    uv run python -m agent_evals.status_cases          # rewrite them in the suite file
"""

from __future__ import annotations

from typing import Any

from agent_evals import case_family

PROVIDER_STATUSES: dict[int, str] = {
    401: "auth",
    403: "auth",
    404: "not_found",
    408: "server_error",
    409: "server_error",
    429: "rate_limit",
}
"""The 4xx statuses that are the provider's failure, and the kind each ends as
(docs/models.md, "Provider statuses")."""
SERVER_ERRORS = range(500, 600)
"""Every 5xx: the provider's ``server_error`` (the client retries it first)."""
CLIENT_ERRORS = range(400, 500)
"""Every other 4xx is the agent's own failure (a request it got wrong)."""
HAND_WRITTEN: dict[int, str] = {400: "m33"}
"""Edge statuses a hand-written case already answers to every request (no twin here)."""
TAG = "status_edge"
"""The tag of every case of the family."""
GOAL = "包裹好几天没有物流更新了，能给我补发吗"
ORDER = "A1001"


def provider_kind(status: int) -> str | None:
    """The kind of provider failure ``status`` is, or ``None``: the agent's own."""
    if status in SERVER_ERRORS:
        return "server_error"
    return PROVIDER_STATUSES.get(status)


def edge_statuses() -> list[int]:
    """Every status one away from a named one or from the 5xx range's first, that is not
    named itself and that no hand-written case holds, in order."""
    named = set(PROVIDER_STATUSES) | {SERVER_ERRORS.start}
    near = {s + d for s in named for d in (-1, 1)}
    valid = set(CLIENT_ERRORS) | set(SERVER_ERRORS)
    return sorted(s for s in near & valid if s not in PROVIDER_STATUSES and s not in HAND_WRITTEN)


def expect_for(status: int) -> dict[str, Any]:
    """What a run answered ``status`` to every request must end as."""
    kind = provider_kind(status)
    if kind is not None:
        return {"outcome": "error", "provider_failure": kind, "tickets": 0}
    return {
        "outcome": "escalate",
        "outcome_reason": "specialist_failed",
        "tickets": 0,
        "provider_failure": None,
    }


def _title(status: int) -> str:
    kind = provider_kind(status)
    if kind is None:
        return f"服务商对每个请求都回 {status}：不在服务商故障之列，是智能体自己的错，转人工"
    return f"服务商对每个请求都回 {status}：记为服务商故障（{kind}），不是智能体的失败"


def status_cases() -> list[dict[str, Any]]:
    """The family, one case per edge status."""
    cases = []
    for status in edge_statuses():
        tags = ["model", "fault", "status", TAG]
        if provider_kind(status) is not None:
            tags.append("outage")
        cases.append(
            {
                "id": f"ms-{status}",
                "split": "test",
                "tags": tags,
                "title": _title(status),
                "input": {"goal": GOAL, "order_id": ORDER},
                "faults": {"model": f"http:{status}"},
                "expect": expect_for(status),
            }
        )
    return cases


def rewritten(text: str) -> str:
    """The suite file's ``text`` with the family's lines replaced by :func:`status_cases`
    (at the end, after every other line)."""
    return case_family.rewritten(text, TAG, status_cases())


def main(argv: list[str] | None = None) -> int:
    """Rewrite the family in ``cases/model_path.jsonl`` (or the file given)."""
    return case_family.main(argv, rewritten, len(status_cases()), "status-edge")


if __name__ == "__main__":
    raise SystemExit(main())
