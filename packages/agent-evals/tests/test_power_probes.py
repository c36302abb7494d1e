"""The probes of power/equivalent.toml: premises of equivalence entries that only
SupportPilot's own code and models can check (``premise = {kind = "probe", name = …}``).
``evals power`` reports such a premise as checked by the project's tests: these, each with
a positive control showing it can fail. tests/test_power.py checks that every probe the
file names is one of :data:`PROBES`."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal, get_args

import pluggy
import pytest
import sqlite_utils.hookspecs
import sqlite_utils.plugins
from agent.contracts import WorkerStatus
from agent.worker import WorkerResult
from domain.world import DEFAULT_POLICIES, FIRST_ADDED_POLICY_ID, World
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


def sqlite_utils_plugins(manager: pluggy.PluginManager | None = None) -> list[str]:
    """Every sqlite-utils plugin installed (an entry point of the ``sqlite_utils`` group)
    or registered with ``manager`` (default: sqlite-utils' own)."""
    installed = [f"installed: {ep.name}" for ep in entry_points(group="sqlite_utils")]
    manager = manager or sqlite_utils.plugins.pm
    registered = [f"registered: {manager.get_name(p)}" for p in manager.get_plugins()]
    return installed + registered


def no_sqlite_utils_plugins() -> list[str]:
    """Premise: no sqlite-utils plugin is installed or registered, so a database opened
    with ``execute_plugins=True`` runs no ``prepare_connection`` hook."""
    sqlite_utils.plugins.ensure_plugins_loaded()
    return sqlite_utils_plugins()


def policy_keys_at_or_below(
    policies: Iterable[Mapping[str, Any]], first_added: int, missing: int = 1
) -> list[str]:
    """Every policy a world can hold whose in-force key (effective date, version, id) is
    not above a missing document's ``('', '', missing)``: a default one, or any added one
    (numbered from ``first_added``, with an empty date and version at worst)."""
    found = [
        f"policy {doc['id']}"
        for doc in policies
        if (str(doc.get("effective_date", "")), str(doc.get("version", "")), int(doc["id"]))
        <= ("", "", missing)
    ]
    if first_added <= missing:
        found.append(f"added policies start at {first_added}")
    return found


def every_policy_key_is_above_a_missing_one() -> list[str]:
    """Premise of the ``_in_force_key`` entries: no document's key ties or falls below the
    key of a missing one, whether that is ``('', '', 0)`` or ``('', '', 1)``."""
    return policy_keys_at_or_below(DEFAULT_POLICIES, FIRST_ADDED_POLICY_ID)


PROBES: dict[str, Callable[[], list[str]]] = {
    "non_ok_results_carry_no_claims": non_ok_results_carry_no_claims,
    "pydantic_literals_are_interned": pydantic_literals_are_interned,
    "no_sqlite_utils_plugins": no_sqlite_utils_plugins,
    "every_policy_key_is_above_a_missing_one": every_policy_key_is_above_a_missing_one,
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


def test_the_plugin_probe_sees_a_registered_plugin() -> None:
    """The positive control of ``no_sqlite_utils_plugins``: a plugin with a
    ``prepare_connection`` hook, registered with a plugin manager, is reported."""

    class Plugin:
        @sqlite_utils.hookspecs.hookimpl
        def prepare_connection(self, conn: object) -> None:
            pass

    manager = pluggy.PluginManager("sqlite_utils")
    manager.add_hookspecs(sqlite_utils.plugins.hookspecs)
    assert sqlite_utils_plugins(manager) == []
    manager.register(Plugin(), name="sneaky")
    assert sqlite_utils_plugins(manager) == ["registered: sneaky"]


@pytest.mark.parametrize(
    ("policies", "first_added", "found"),
    [
        ([{"id": 1, "effective_date": "2024-01-01", "version": "v1"}], 100, []),
        ([{"id": 1, "effective_date": "", "version": ""}], 100, ["policy 1"]),
        ([{"id": 0, "effective_date": "", "version": ""}], 100, ["policy 0"]),
        ([{"id": 2, "effective_date": "", "version": ""}], 100, []),
        ([], 1, ["added policies start at 1"]),
        ([], 2, []),
    ],
)
def test_the_policy_key_probe_catches_a_key_at_a_missing_ones(
    policies: list[dict[str, Any]], first_added: int, found: list[str]
) -> None:
    """The positive control of ``every_policy_key_is_above_a_missing_one``."""
    assert policy_keys_at_or_below(policies, first_added) == found
