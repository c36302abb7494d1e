"""The probes of power/equivalent.toml: premises of equivalence entries that only
SupportPilot's own code and models can check (``premise = {kind = "probe", name = …}``).
``evals power`` reports such a premise as checked by the project's tests: these, each with
a positive control showing it can fail. tests/test_power.py checks that every probe the
file names is one of :data:`PROBES`."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Literal, get_args

import pytest
from agent.brain import Task
from agent.contracts import WorkerStatus, default_contracts
from agent.faults import CLAIM_TEXT_LIMIT
from agent.worker import Worker, WorkerResult
from domain.world import World
from pydantic import BaseModel

AGENT = Path(__file__).resolve().parents[2] / "agent" / "src" / "agent"


def claims_outside_ok(source: str) -> list[str]:
    """Every way ``source`` gives a WorkerResult claims without it being ``ok``: a
    ``WorkerResult(...)`` call passing ``claims=`` without ``status="ok"`` (or with
    ``**kwargs``), a ``model_copy(update=…)`` naming claims, an assignment to ``.claims``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            keywords = {k.arg: k.value for k in node.keywords}
            if name == "WorkerResult" and ("claims" in keywords or None in keywords):
                status = keywords.get("status")
                if not (isinstance(status, ast.Constant) and status.value == "ok"):
                    found.append(f"line {node.lineno}: WorkerResult with claims, not ok")
            if name == "model_copy" and "update" in keywords:
                update = keywords["update"]
                named = [
                    k.value for k in getattr(update, "keys", []) if isinstance(k, ast.Constant)
                ]
                if "claims" in named or not isinstance(update, ast.Dict):
                    found.append(f"line {node.lineno}: model_copy may set claims")
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "claims" for t in targets):
                found.append(f"line {node.lineno}: assigns .claims")
    return found


def non_ok_results_carry_no_claims() -> list[str]:
    """Premise: only an ``ok`` WorkerResult carries claims (in the agent's code)."""
    return [
        f"{path.name}: {problem}"
        for path in sorted(AGENT.glob("*.py"))
        for problem in claims_outside_ok(path.read_text(encoding="utf-8"))
    ]


def pydantic_literals_are_interned() -> list[str]:
    """Premise: pydantic validates a Literal field to the Literal's own (interned) object,
    whatever string object came in, so ``is`` and ``==`` agree on it."""
    problems = []
    built = "".join(["de", "fault"])  # equal to 'default', but not the same object
    if World.model_validate({"kb": built}).kb is not World.model_fields["kb"].default:
        problems.append("World.kb is not the Literal's own object")
    if World.model_validate_json('{"kb": "default"}').kb is not World.model_fields["kb"].default:
        problems.append("World.kb from JSON is not the Literal's own object")
    ok = get_args(WorkerStatus)[0]
    if WorkerResult(role="r", status="".join(["o", "k"])).status is not ok:
        problems.append("WorkerResult.status is not the Literal's own object")
    return problems


def refused_alike(lengths: tuple[int, ...]) -> list[str]:
    """Whether outputs whose one claim text is each of ``lengths`` characters long get
    one and the same result from the worker (its status and error)."""
    contract = default_contracts()["logistics_agent"]
    seen: dict[tuple[str, str | None], int] = {}
    for n in lengths:
        output = {"claims": [{"topic": "parcel_state", "value": "在途", "text": "。" * n}]}
        worker = Worker(_Answering(output), contract, None)  # type: ignore[arg-type]
        result = asyncio.run(worker.perform(Task(trace_id="t", role="r", order_id="A1001")))
        seen.setdefault((result.status, result.error), n)
    if len(seen) > 1:
        return [f"texts of {sorted(seen.values())} characters are refused differently"]
    return []


class _Answering:
    """A brain that answers ``output`` without calling a tool."""

    def __init__(self, output: object) -> None:
        self.output = output

    async def think(self, task: Task, tools: object) -> object:
        return self.output


def overlong_claims_are_refused_alike() -> list[str]:
    """Premise: the ``garble`` fault's second answer is refused alike whether its claim
    text is one character over the schema's limit or twice the limit."""
    return refused_alike((CLAIM_TEXT_LIMIT + 1, CLAIM_TEXT_LIMIT << 1))


PROBES: dict[str, Callable[[], list[str]]] = {
    "non_ok_results_carry_no_claims": non_ok_results_carry_no_claims,
    "pydantic_literals_are_interned": pydantic_literals_are_interned,
    "overlong_claims_are_refused_alike": overlong_claims_are_refused_alike,
}
"""Every probe power/equivalent.toml may name: each returns its premise's violations."""


@pytest.mark.parametrize("name", sorted(PROBES))
def test_the_probe_holds(name: str) -> None:
    assert PROBES[name]() == []


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ('WorkerResult(role=r, status="ok", claims=kept)', None),
        ('WorkerResult(role=r, status="error", error=e)', None),
        ('WorkerResult(role=r, status="error", claims=kept)', "not ok"),
        ("WorkerResult(role=r, status=s, claims=kept)", "not ok"),
        ("WorkerResult(**fields)", "not ok"),
        ('r.model_copy(update={"claims": kept})', "may set claims"),
        ("r.model_copy(update=changes)", "may set claims"),
        ('r.model_copy(update={"dropped": d})', None),
        ("r.claims = kept", "assigns .claims"),
    ],
)
def test_the_claims_probe_catches_claims_outside_ok(source: str, problem: str | None) -> None:
    """The positive control of ``non_ok_results_carry_no_claims``."""
    found = claims_outside_ok(source)
    assert (found == []) if problem is None else any(problem in f for f in found)


def test_the_interning_probe_tells_a_plain_string_field() -> None:
    """The positive control of ``pydantic_literals_are_interned``: a ``str`` field keeps the
    object it was given, so the same test of identity would fail there."""

    class Plain(BaseModel):
        kb: str
        lit: Literal["default"] = "default"

    built = "".join(["de", "fault"])
    assert Plain(kb=built).kb is built
    assert Plain(kb=built).kb is not Plain(kb=built, lit=built).lit


@pytest.mark.parametrize(
    ("lengths", "alike"),
    [
        ((CLAIM_TEXT_LIMIT + 1, CLAIM_TEXT_LIMIT << 1), True),
        ((CLAIM_TEXT_LIMIT, CLAIM_TEXT_LIMIT + 1), False),  # at the limit it is accepted
    ],
)
def test_the_overlong_probe_tells_refusals_apart(lengths: tuple[int, ...], alike: bool) -> None:
    """The positive control of ``overlong_claims_are_refused_alike``."""
    assert (refused_alike(lengths) == []) is alike
