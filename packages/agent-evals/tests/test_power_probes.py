"""The probes of power/equivalent.toml: premises of equivalence entries that only
SupportPilot's own code and models can check (``premise = {kind = "probe", name = …}``).
``evals power`` reports such a premise as checked by the project's tests: these, each with
a positive control showing it can fail. tests/test_power.py checks that every probe the
file names is one of :data:`PROBES`."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib
import inspect
import json
import pkgutil
import random
import sys
import textwrap
import time
import types
import typing
import zlib
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar, Union, get_args, get_origin
from unittest import mock

import agent
import agent.faults as faults_module
import agent.outbox_faults
import agent.settings as settings_module
import agent_evals.sut as sut_module
import domain
import pluggy
import pytest
import sqlite_utils.hookspecs
import sqlite_utils.plugins
import tools
from agent.amount_format import AMOUNT_FORMAT, AMOUNT_STYLES
from agent.brain import Task
from agent.contracts import REPLY_ROLE, ROLES, WorkerStatus, default_contracts
from agent.faults import CLAIM_TOPIC, apply_fault, fault_contract, write_tools
from agent.openai_brain import parse_output
from agent.outbox_faults import (
    KEY_DRIFT,
    LOST_ACK,
    LOST_REQUEST,
    OUTBOX_FAULT_KINDS,
    STALE_LOOKUP,
    WRITE_TOOL_NAMES,
    StaleStore,
    parse_outbox_fault,
)
from agent.settings import BrainConfigError, BrainSettings
from agent.worker import Worker, WorkerResult
from agent_evals.sut import SupportPilotSUT
from domain import DomainError, Store, build_world
from domain.world import DEFAULT_POLICIES, FIRST_ADDED_POLICY_ID, World
from evals.checks import grade
from evals.model.case import Case
from evals.power.premises import load_gated_cases
from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo
from tools import ToolError, ToolGateway
from tools.allowlist import is_allowed
from tools.gateway import TOOLS
from tools.registry import ToolContext
from typing_extensions import TypedDict

from .conftest import default_suites, load_cases

_T = TypeVar("_T")

AGENT = Path(__file__).resolve().parents[2] / "agent" / "src" / "agent"
ROOT = Path(__file__).resolve().parents[3]


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


def reply_role_identity_problems(model: type[BaseModel]) -> list[str]:
    """Where ``model`` (a Task-like model) holds a role equal to REPLY_ROLE that is not
    REPLY_ROLE itself: built from an equal string made at run time, or read from JSON."""
    built = "".join(["reply_", "agent"])  # equal to REPLY_ROLE, but not the same object
    problems = []
    if model(trace_id="t", role=built, order_id="A1001").role is not REPLY_ROLE:
        problems.append(f"{model.__name__}.role built from an equal string is another object")
    raw = json.dumps({"trace_id": "t", "role": REPLY_ROLE, "order_id": "A1001"})
    if model.model_validate_json(raw).role is not REPLY_ROLE:
        problems.append(f"{model.__name__}.role read from JSON is another object")
    return problems


def task_roles_are_the_literals() -> list[str]:
    """Premise: every valid Task's role equal to REPLY_ROLE is REPLY_ROLE itself (Task.role
    is a Role literal, validated to the Literal's own object), so ``is`` and ``==`` agree."""
    return reply_role_identity_problems(Task)


def kinds_out_of_order(kinds: Iterable[str], pivot: str) -> list[str]:
    """The kinds for which ``kind <= pivot`` and ``kind == pivot`` disagree."""
    return [k for k in kinds if (k <= pivot) != (k == pivot)]


OUTBOX_FAULTS = (
    *OUTBOX_FAULT_KINDS,
    *(f"{k}:{t}" for k in OUTBOX_FAULT_KINDS for t in WRITE_TOOL_NAMES),
    *(f"{k}:{t}:{n}" for k in (LOST_ACK, LOST_REQUEST) for t in WRITE_TOOL_NAMES for n in (1, 9)),
)
"""Every form of outbox fault parse_outbox_fault accepts (docs/cases.md)."""


def outbox_kinds_sort_after_key_drift() -> list[str]:
    """Premise: every kind ``parse_outbox_fault`` returns is a known one, and ``<=
    KEY_DRIFT`` holds exactly for KEY_DRIFT (``outbox_gateway``'s choice of gateway)."""
    kinds = [parse_outbox_fault(fault)[0] for fault in OUTBOX_FAULTS]
    unknown = [f"unknown kind {k!r}" for k in kinds if k not in OUTBOX_FAULT_KINDS]
    return unknown + [
        f"{k!r} <= {KEY_DRIFT!r} disagrees with ==" for k in kinds_out_of_order(kinds, KEY_DRIFT)
    ]


def kinds_at_or_after(kinds: Iterable[str], pivot: str) -> list[str]:
    """The kinds for which ``kind >= pivot`` and ``kind == pivot`` disagree."""
    return [k for k in kinds if (k >= pivot) != (k == pivot)]


def outbox_kinds_past_key_drift_sort_before_stale_lookup() -> list[str]:
    """Premise: every kind ``parse_outbox_fault`` returns is a known one, and of those
    ``outbox_gateway`` still has to tell apart after ``KEY_DRIFT`` took its own gateway,
    ``>= STALE_LOOKUP`` holds exactly for STALE_LOOKUP (the lost_* kinds sort before it)."""
    kinds = [parse_outbox_fault(fault)[0] for fault in OUTBOX_FAULTS]
    unknown = [f"unknown kind {k!r}" for k in kinds if k not in OUTBOX_FAULT_KINDS]
    reaching = sorted({k for k in kinds if k != KEY_DRIFT})
    return unknown + [
        f"{k!r} >= {STALE_LOOKUP!r} disagrees with =="
        for k in kinds_at_or_after(reaching, STALE_LOOKUP)
    ]


def statuses_at_or_after(statuses: Mapping[str, str], constant: str) -> list[str]:
    """Every class whose status sorts at or after ``constant`` without being it."""
    return [
        f"{name}.status = {status!r} sorts at or after {constant!r}"
        for name, status in sorted(statuses.items())
        if status != constant and status >= constant
    ]


def tool_error_statuses() -> dict[str, str]:
    """``ToolError`` and every subclass the tools and agent packages define -> its status."""
    for package in (tools, agent):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)
    found: dict[str, str] = {}
    todo: list[type[ToolError]] = [ToolError]
    while todo:
        cls = todo.pop()
        found[f"{cls.__module__}.{cls.__qualname__}"] = str(cls.status)
        todo.extend(cls.__subclasses__())
    return found


def only_refused_sorts_at_refused() -> list[str]:
    """Premise: of the tool-error statuses only ``refused`` is ``>= 'refused'``, so
    ``status == 'refused'`` and ``status >= 'refused'`` agree on every tool error."""
    return statuses_at_or_after(tool_error_statuses(), "refused")


_LEAVES = (str, int, float, bool, type(None))


def _holds_structure(annotation: Any) -> bool:
    """Whether ``annotation`` holds a model, a mapping or a list anywhere inside."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    if get_origin(annotation) in (dict, list):
        return True
    return any(_holds_structure(a) for a in get_args(annotation) if not isinstance(a, FieldInfo))


def schema_shape_problems(root: type[BaseModel]) -> list[str]:
    """Where ``root``'s tree of annotations is more than models, ``dict[str, X]`` (or keyed
    by a ``Literal`` of strings), ``list[X]`` and leaves (a scalar, a ``Literal``, an
    ``Annotated`` scalar, ``leaf | None``): a union holding a model or a container, a
    TypedDict, a dataclass, a tuple."""
    problems: list[str] = []
    seen: set[type[BaseModel]] = set()

    def visit(annotation: Any, path: str) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in seen:
                seen.add(annotation)
                for name, f in annotation.model_fields.items():
                    visit(f.annotation, f"{path}.{name}")
            return
        origin = get_origin(annotation)
        if origin is Annotated:
            visit(get_args(annotation)[0], path)
        elif origin is dict:
            key, value = get_args(annotation)
            named = get_origin(key) is Literal and all(isinstance(a, str) for a in get_args(key))
            if key is not str and not named:  # a Literal of strings is keyed by str too
                problems.append(f"{path}: a mapping keyed by {key!r}")
            visit(value, f"{path}.<key>")
        elif origin is list:
            visit(get_args(annotation)[0], f"{path}.<index>")
        elif origin in (Union, types.UnionType):
            if any(_holds_structure(a) for a in get_args(annotation)):
                problems.append(f"{path}: a union holding a model or a container")
        elif origin is Literal or annotation in _LEAVES:
            return
        else:
            problems.append(f"{path}: {annotation!r} is no model, mapping, list or leaf")

    visit(root, root.__name__)
    return problems


def world_schema_is_plain() -> list[str]:
    """Premise: the World schema is models, ``dict[str, X]``, ``list[X]`` and leaves, with
    no union holding a model or a container. So an unknown key (pydantic's
    ``extra_forbidden``, which only a model raises) always sits in a model that
    ``domain.problems._model_at`` reaches without unwrapping a union: its union branch
    never runs, and the model it ends on is always a model class."""
    return schema_shape_problems(World)


def min_length_problems(root: type[BaseModel]) -> list[str]:
    """Every ``min_length`` in ``root``'s tree that is not 1 on a string."""
    problems: list[str] = []
    seen: set[type[BaseModel]] = set()

    def lengths(metadata: Iterable[Any]) -> list[int]:
        found: list[int] = []
        for item in metadata:
            if isinstance(item, FieldInfo):
                found += lengths(item.metadata)
            elif getattr(item, "min_length", None) is not None:
                found.append(int(item.min_length))
        return found

    def visit(annotation: Any, metadata: list[Any], path: str) -> None:
        for n in lengths(metadata):
            if n != 1 or annotation is not str:
                problems.append(f"{path}: min_length {n} on {annotation!r}")
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in seen:
                seen.add(annotation)
                for name, f in annotation.model_fields.items():
                    visit(f.annotation, list(f.metadata), f"{path}.{name}")
            return
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Annotated:
            visit(args[0], list(args[1:]), path)
        elif origin is dict:
            visit(args[1], [], f"{path}.<key>")
        elif origin is list:
            visit(args[0], [], f"{path}.<index>")
        elif origin in (Union, types.UnionType):
            for a in args:
                visit(a, [], path)

    visit(root, [], root.__name__)
    return problems


def world_min_lengths_are_one_on_text() -> list[str]:
    """Premise: every ``min_length`` of the World schema is 1, on a string. So an error
    carrying ``min_length == 1`` is always pydantic's ``string_too_short`` and every
    ``string_too_short`` has ``min_length == 1``: ``domain.problems``' test ``kind ==
    "string_too_short" and min_length == 1`` agrees with either half alone."""
    return min_length_problems(World)


Resolver = Callable[[Mapping[str, object], Mapping[str, str]], BrainSettings]


def _resolved_without_guard(given: Mapping[str, object], env: Mapping[str, str]) -> BrainSettings:
    with mock.patch.object(settings_module, "_require_applied", lambda *args: None):
        return settings_module.resolve(given, env).settings


def given_values_missed(
    configurations: Iterable[tuple[Mapping[str, str], Mapping[str, str]]],
    resolver: Resolver = _resolved_without_guard,
) -> list[str]:
    """Every setting given (an option, else its variable) whose value, validated alone,
    is not the one ``resolver`` (the resolution, its own guard taken out) puts in the
    settings, over ``configurations``."""
    problems: list[str] = []
    for options, env in configurations:
        try:
            settings = resolver(options, env)
        except BrainConfigError:
            continue
        for name, variable in settings_module.ENV_VARS.items():
            raw = options.get(name)
            if raw is None or not str(raw).strip():
                raw = env.get(variable)
            if raw is None or not str(raw).strip():
                continue
            if settings.brain == "rule" and variable in settings_module.SHARED_ENV_VARS:
                continue  # left unread (the header says so)
            wanted = getattr(BrainSettings.model_validate({name: str(raw).strip()}), name)
            if getattr(settings, name) != wanted:
                problems.append(f"{dict(options)} {dict(env)}: {name} {getattr(settings, name)!r}")
    return problems


def settings_configurations() -> list[tuple[dict[str, str], dict[str, str]]]:
    """The options and environment of every settings case the SUT builds without the
    scripted model (which rewrites the options first)."""
    found = []
    for line in (ROOT / "cases" / "settings.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case = json.loads(line)
        options = {
            k: v
            for k, v in case.get("sut_options", {}).items()
            if k not in ("screen", "model_server")
        }
        if "model_server" not in case.get("sut_options", {}):
            found.append((options, dict(case.get("sut_env", {}))))
    return found


def resolution_keeps_given_values() -> list[str]:
    """Premise: the resolution, its guard ``_require_applied`` taken out, puts every value
    given in the settings as given (over every settings case): so the guard's test never
    holds, whether it reads ``!=`` or ``>``. (Only a second bug in the resolution would
    tell them apart.)"""
    configurations = settings_configurations()
    if len(configurations) < 100:
        return [f"only {len(configurations)} settings configurations found"]
    return given_values_missed(configurations)


def keys_shown_unset(
    resolver: Callable[[Mapping[str, object], Mapping[str, str]], Any] = settings_module.resolve,
) -> list[str]:
    """Every settings case (the scripted model aside: its key replaces the header's) whose
    header, as :func:`agent.settings.describe` states it, shows an ``api_key`` the settings
    do not hold."""
    problems: list[str] = []
    for options, env in settings_configurations():
        try:
            resolved = resolver(options, env)
        except BrainConfigError:
            continue
        lines = settings_module.describe(resolved)
        if any("api_key=" in line for line in lines) and not resolved.settings.api_key:
            problems.append(f"{options} {env}: {lines}")
    return problems


def described_keys_are_set() -> list[str]:
    """Premise of ``describe``'s ``"***" if name == "api_key" and value``: a header shows
    the API key only under ``brain=openai`` (rule brains state the brain and the contract
    timeout alone), and the resolution refuses ``brain=openai`` without a key (a key is at
    least one printable character): the ``and value`` never decides (over every settings
    case)."""
    if len(settings_configurations()) < 100:
        return ["too few settings configurations"]
    return keys_shown_unset()


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


class _Answering:
    """A brain that answers ``output`` without calling a tool."""

    def __init__(self, output: object) -> None:
        self.output = output

    async def think(self, task: Task, tools: object) -> object:
        return self.output


def timeout_outcome(sleep_s: float) -> tuple[str, str | None, float]:
    """How a ``timeout``-faulted worker ends when the fault's brain sleeps ``sleep_s``
    seconds: the result's status and error, and the seconds it took."""
    contract = fault_contract(default_contracts()["logistics_agent"], "timeout")
    brain = apply_fault(_Answering({"claims": []}), "timeout", "logistics_agent", "c", 0)
    worker = Worker(brain, contract, None)  # type: ignore[arg-type]
    task = Task(trace_id="t", role="logistics_agent", order_id="A1001")
    with mock.patch.object(faults_module, "SLEEP_PAST_CONTRACT_S", sleep_s):
        started = time.perf_counter()
        result = asyncio.run(worker.perform(task))
        return result.status, result.error, time.perf_counter() - started


def sleeps_end_alike(sleeps: tuple[float, ...]) -> list[str]:
    """Whether a timeout brain sleeping each of ``sleeps`` seconds ends the attempt
    alike (status and error) and well under a second (the sleep was cut)."""
    seen = {s: timeout_outcome(s) for s in sleeps}
    problems = [f"a sleep of {s} s took {t:.2f} s" for s, (_, _, t) in seen.items() if t >= 1]
    if len({(status, error) for status, error, _ in seen.values()}) > 1:
        problems.append(f"sleeps of {sorted(seen)} s end differently")
    return problems


def timeout_sleep_is_cut_at_the_contract() -> list[str]:
    """Premise of the ``SLEEP_PAST_CONTRACT_S`` entries: 4, 5 or 6 s, the sleep is cut at
    the fault's contract and the attempt ends the same."""
    return sleeps_end_alike((4.0, 5.0, 6.0))


def appended(raw: dict[str, Any], count: int) -> dict[str, Any]:
    """``raw`` with ``count`` filler claims appended, built as ``with_claims`` builds it."""
    output = faults_module._claims(raw)
    filler = {"topic": "note", "value": "", "text": "", "evidence": []}
    return {**output, "claims": [*output["claims"], *([filler] * count)]}


def no_filler_leaves_an_equal_output() -> list[str]:
    """Premise of the ``with_claims`` guard entries (``>=`` -> ``>``, ``==``, ``is``): every
    rule brain's output, with zero or fewer fillers appended the way ``with_claims``
    appends them (``count - len(claims)`` is 0 or negative once the output holds
    ``count`` claims or more), equals the output."""
    outputs = [_rule_output(role) for role in ("order_agent", "logistics_agent", "policy_agent")]
    return [
        f"{o} changes with {k} fillers"
        for o in outputs
        for k in (0, -1, -len(o["claims"]) - 1)
        if appended(o, k) != o
    ]


MODEL_ANSWERS = (
    "",
    "好的，我查到了！包裹应该很快就到。",
    "[]",
    "null",
    '{"claims": null}',
    '{"claims": {}}',
    '{"note": "x"}',
    '{"claims": []}',
    '```json\n{"claims": []}\n```',
    '{"claims": [{"topic": "parcel_state", "value": "在途", "text": "在途", "evidence": []}]}',
)
"""Final answers a model may give: prose, JSON of every shape, a fenced claim list."""


def claim_list_problems(answer: Callable[[str], object], texts: Iterable[str]) -> list[str]:
    """Every text that ``answer`` turns into something other than a dict whose claims are
    a list (raising ``ValueError`` is fine: the brain then repairs or gives up)."""
    problems = []
    for text in texts:
        try:
            out = answer(text)
        except ValueError:
            continue
        if not (isinstance(out, dict) and isinstance(out.get("claims"), list)):
            problems.append(f"{text!r} -> {out!r}")
    return problems


def wrapped_brains_answer_claim_lists() -> list[str]:
    """Premise of the ``with_claims`` ``or`` -> ``and`` entry: what a fault wraps answers
    a dict whose claims are a list, or raises (so ``claims is None`` never holds there):
    each rule brain, and a model brain's parsed answer (``parse_output``, the only value
    ``OpenAIBrain.think`` returns); and at ``count`` or more claims, appending
    ``count - len`` fillers leaves an equal output."""
    problems = claim_list_problems(parse_output, MODEL_ANSWERS)
    for role in ROLES:
        output = _rule_output(role)
        if not isinstance(output.get("claims"), list):
            problems.append(f"the {role} rule brain answered {output!r}")
    return problems + no_filler_leaves_an_equal_output()


def hidden_sorts_first_of_write_attempts() -> list[str]:
    """Premise of the ``hide=self.kind <= HIDDEN_WRITE_ATTEMPT`` entry: of the kinds of the
    faults that name a write tool (the only ones that call ``attempt_write``), only
    hidden_write_attempt is <= it."""
    kinds = [
        faults_module.parse_fault(f)
        for f in FAULT_SAMPLES
        if faults_module.write_attempt_tool(f) is not None
    ]
    out = kinds_out_of_order(kinds, faults_module.HIDDEN_WRITE_ATTEMPT)
    return [f"{k!r} <= 'hidden_write_attempt'" for k in out] + (
        [] if len(set(kinds)) == 2 else [f"write-attempt kinds {sorted(set(kinds))}"]
    )


def kinds_after_oversize_never_decorate() -> list[str]:
    """Premise of the ``self.kind >= OVERSIZE`` entry: the kinds sorting after 'oversize'
    are timeout and write_attempt, and neither reaches the decorating tests: a timeout
    brain is cancelled in its sleep (as ``timeout_sleep_is_cut_at_the_contract``
    checks) and a write attempt is refused (no role may call a write tool)."""
    kinds, _ = fault_kinds()
    after = sorted({k for k in kinds if k > faults_module.OVERSIZE})
    problems = [] if after == ["timeout", "write_attempt"] else [f"after oversize: {after}"]
    for role in ROLES:
        allowed = sorted(set(tools.allowed_tools(role)) & set(write_tools()))
        problems += [f"{role} may call {t}" for t in allowed]
    return problems + timeout_sleep_is_cut_at_the_contract()


DRAW_TRIALS = range(10)
"""The trials a gated case may run (``--trials`` up to 10, as the stability session)."""


def draws_at(probabilities: Iterable[float], case_ids: Iterable[str]) -> list[str]:
    """Every (case, trial) whose seeded flaky draw is exactly one of ``probabilities``
    (where ``random() < p`` and ``random() <= p`` disagree)."""
    ps = set(probabilities)
    return [
        f"{case_id}:{trial}"
        for case_id in case_ids
        for trial in DRAW_TRIALS
        if random.Random(zlib.crc32(f"{case_id}:{trial}".encode())).random() in ps
    ]


def no_draw_sits_on_a_gated_probability() -> list[str]:
    """Premise of the ``random() < p`` -> ``<=`` entry: every faulted role draws (p is 0
    for every kind but flaky:p), and no gated case's draw, trials 0-9, is exactly 0 or
    the p of a flaky fault it names."""
    cases = load_gated_cases(ROOT / "cases")
    ps = {0.0, 1.0}
    for case in cases:
        for fault in (case.get("faults") or {}).values():
            p = faults_module.flaky_probability(str(fault))
            ps |= set() if p is None else {p}
    return draws_at(ps, [str(c.get("id")) for c in cases if c.get("faults")])


FAULT_SAMPLES = (
    *sorted(faults_module.SIMPLE_FAULTS),
    *(f"{k}:{t}" for k in ("write_attempt", "hidden_write_attempt") for t in write_tools()),
    "flaky:0.5",
    *(f"amount_format:{style}" for style in AMOUNT_STYLES),
    "oversize:1",
    "claims:1",
    "claim_topic:0",
)
"""A fault of every form a role's fault takes (docs/cases.md, the fault table)."""


def fault_kinds() -> tuple[list[str], list[str]]:
    """The kind of every fault of :data:`FAULT_SAMPLES`, and every form the refusal of an
    unknown fault lists (``ROLE_FAULT_FORMS``) that none of them is of."""
    kinds = [faults_module.parse_fault(f) for f in FAULT_SAMPLES]
    forms = {f.strip().partition(":")[0] for f in faults_module.ROLE_FAULT_FORMS.split(",")}
    return kinds, sorted(forms - set(kinds))


def decorating_kinds_in_order() -> list[str]:
    """Premise of the ``<=`` entries of ``FaultyBrain.think``'s decorating tests: every
    kind sorts after ``amount_format`` (the first test) but that kind, and after
    ``claim_topic`` but that kind and ``amount_format`` (returned for before it), so
    ``<=`` and ``==`` agree on every kind that reaches each test."""
    kinds, missing = fault_kinds()
    problems = [f"no sample of the form {m!r}" for m in missing]
    problems += [f"{k!r} <= 'amount_format'" for k in kinds_out_of_order(kinds, AMOUNT_FORMAT)]
    reaching = [k for k in kinds if k != AMOUNT_FORMAT]
    problems += [f"{k!r} <= 'claim_topic'" for k in kinds_out_of_order(reaching, CLAIM_TOPIC)]
    return problems


def _rule_output(role: str) -> dict[str, Any]:
    """What ``role``'s rule brain answers in the default world."""
    run = SupportPilotSUT().run(
        Case.model_validate(
            {
                "id": "probe",
                "split": "test",
                "title": "probe",
                "input": {"goal": "包裹一直没到，要求马上补发", "order_id": "A1001"},
                "faults": {role: "claims:1"},
                "expect": {},
            }
        ),
        0,
    )
    answers = run.detail["faulted"][role]["answers"]
    output: dict[str, Any] = next(a for a in answers if a["side"] == "natural")["output"]
    return output


def _holds_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_model(a) for a in get_args(annotation) if not isinstance(a, FieldInfo))


def model_walk_steps(root: type[BaseModel]) -> list[tuple[str, Any]]:
    """Every annotation ``domain.problems._model_at`` can stand on when it walks from
    ``root`` to a model (an unknown key is raised only by a model): the models, and the
    containers and unions on the way to one (never a leaf, which holds no model)."""
    steps: list[tuple[str, Any]] = []
    seen: set[type[BaseModel]] = set()

    def visit(annotation: Any, path: str) -> None:
        if not _holds_model(annotation):
            return
        steps.append((path, annotation))
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in seen:
                seen.add(annotation)
                for name, f in annotation.model_fields.items():
                    visit(f.annotation, f"{path}.{name}")
            return
        for a in get_args(annotation):
            if not isinstance(a, FieldInfo):
                visit(a, f"{path}.<item>")

    visit(root, root.__name__)
    return steps


def walk_step_problems(steps: Iterable[tuple[str, Any]]) -> list[str]:
    """Every step where the walk's tests could read otherwise: ``isinstance(x, type) and
    issubclass(x, BaseModel)`` against ``or`` (which calls ``issubclass`` on what is no
    class), and ``get_origin(x) is list`` / ``is dict`` against ``==``."""
    problems: list[str] = []
    for path, annotation in steps:
        try:
            either = isinstance(annotation, type) or issubclass(annotation, BaseModel)
        except TypeError as e:
            problems.append(f"{path}: issubclass({annotation!r}, BaseModel) raises: {e}")
            either = None
        both = isinstance(annotation, type) and issubclass(annotation, BaseModel)
        if either is not None and either != both:
            problems.append(f"{path}: {annotation!r} is a class but no model")
        origin = get_origin(annotation)
        for container in (list, dict):
            if (origin is container) != (origin == container):
                problems.append(f"{path}: the origin {origin!r} equals {container.__name__}")
    return problems


def world_walk_steps_agree() -> list[str]:
    """Premise: on every step of the walk from World to a model (models, then ``dict[str,
    Model]`` and ``list[Model]``), ``and``/``or`` in ``_model_at``'s model test agree (a
    model class passes both; a container alias is no class, and ``issubclass`` of it is
    false without raising), and its origin is ``list``/``dict`` by ``==`` exactly when by
    ``is``."""
    steps = model_walk_steps(World)
    if len(steps) < 4:
        return [f"only {len(steps)} steps found"]
    return walk_step_problems(steps)


def names_at_or_before(names: Iterable[str], pivot: str) -> list[str]:
    """The names other than ``pivot`` that sort at or before it."""
    return [n for n in names if n != pivot and n <= pivot]


def settings_errors_name_one_later_field() -> list[str]:
    """Premise: a refusal of ``_validated`` names one field of BrainSettings (every field
    is a leaf, the table of variables names exactly the fields, and an unknown setting is
    refused before anything is validated), and every field but ``api_key`` sorts after
    ``'api_key'``: ``where == 'api_key'`` and ``where <= 'api_key'`` agree."""
    fields = BrainSettings.model_fields
    problems = [f"{n} sorts at or before 'api_key'" for n in names_at_or_before(fields, "api_key")]
    problems += [
        f"{n}: {f.annotation!r} is no leaf"
        for n, f in fields.items()
        if _holds_structure(f.annotation)
    ]
    if set(settings_module.ENV_VARS) != set(fields):
        problems.append("the table of variables does not name exactly the fields")
    try:
        settings_module.resolve({"aaa": "1"}, {})
        problems.append("an unknown setting was not refused")
    except BrainConfigError as e:
        if "unknown setting" not in str(e):
            problems.append(f"an unknown setting was refused as: {e}")
    return problems


WRITE_ARGS: dict[str, dict[str, str]] = {
    "support__create_ticket": {
        "order_id": "A1001",
        "sku": "SKU-TEE-01",
        "approval_id": "p:approval",
        "idempotency_key": "p:ticket",
        "summary": "补发",
    },
    "support__send_reply": {
        "order_id": "A1001",
        "text": "您好",
        "approval_id": "p:approval",
        "idempotency_key": "p:reply",
    },
}
"""Arguments for each write tool (a write tool missing here fails the probe)."""


def created_flag_problems(tool: str, flags: list[object]) -> list[str]:
    """Whether a write then its replay said ``created`` True, then False, as booleans."""
    if len(flags) != 2 or flags[0] is not True or flags[1] is not False:
        return [f"{tool}: a write then its replay said created = {flags!r}, not [True, False]"]
    return []


def write_results_flag_created() -> list[str]:
    """Premise: every write tool's result says ``created``, a boolean (True for a write,
    False for its replay), so ``created is False`` and ``created <= False`` agree (and the
    gateway tests it only for a write: ``tool.kind == "write"`` comes first)."""
    problems: list[str] = []
    writes = sorted(name for name, tool in TOOLS.items() if tool.kind == "write")
    if not writes:
        return ["no write tool found"]
    for name in writes:
        if name not in WRITE_ARGS:
            problems.append(f"{name}: a write tool the probe does not know")
            continue
        store = build_world()
        store.record_approval(
            approval_id="p:approval",
            trace_id="p",
            action="reissue",
            order_id="A1001",
            amount=59.0,
            summary="补发",
            status="approved",
            decided_by="approver",
        )
        gateway = ToolGateway(store, "p")
        flags = [gateway.call("orchestrator", name, WRITE_ARGS[name]).data.get("created")]
        flags.append(gateway.call("orchestrator", name, WRITE_ARGS[name]).data.get("created"))
        problems += created_flag_problems(name, flags)
    return problems


READ_ARGS: dict[str, dict[str, Any]] = {
    "orders__get_order": {"order_id": "A1001"},
    "logistics__track": {"order_id": "A1001"},
    "kb__search": {"query": "补发"},
    "stock__check": {"sku": "SKU-TEE-01"},
    "support__find_write": {"idempotency_key": "p:ticket"},
}
"""Arguments for each read tool (a read tool missing here fails the probe)."""


CALLERS = ("orchestrator", "order_agent", "logistics_agent", "policy_agent")
"""The roles a read tool is called as: the first its allowlist lets call it."""


def created_flag_readers(results: Mapping[str, list[Mapping[str, Any]]]) -> list[str]:
    """The read tools (name -> the data of its calls) one of whose results says
    ``created``: only a write may, and only a write's is tested for a replay."""
    return [
        f"{name}: a read whose result says created={data['created']!r}"
        for name, answers in sorted(results.items())
        for data in answers
        if "created" in data
    ]


def read_results_carry_no_created() -> list[str]:
    """Premise: no read tool's result carries ``created`` (each read tool called before
    and after both writes landed), so testing ``created is False`` on reads as well as
    writes (``tool.kind <= "write"``) marks no read as a replay."""
    problems: list[str] = []
    reads = sorted(name for name, tool in TOOLS.items() if tool.kind == "read")
    if not reads:
        return ["no read tool found"]
    store = build_world()
    store.record_approval(
        approval_id="p:approval",
        trace_id="p",
        action="reissue",
        order_id="A1001",
        amount=59.0,
        summary="补发",
        status="approved",
        decided_by="approver",
    )
    gateway = ToolGateway(store, "p")
    results: dict[str, list[Mapping[str, Any]]] = {name: [] for name in reads}
    for phase in ("before", "after"):
        if phase == "after":
            for name, args in WRITE_ARGS.items():
                gateway.call("orchestrator", name, args)
        for name in reads:
            if name not in READ_ARGS:
                problems.append(f"{name}: a read tool the probe does not know")
                continue
            role = next((r for r in CALLERS if is_allowed(r, name)), "orchestrator")
            results[name].append(gateway.call(role, name, READ_ARGS[name]).data)
    return problems + created_flag_readers(results)


def unpaired_stale_lookups(lookups: Mapping[str, list[bool]]) -> list[str]:
    """The idempotency keys whose stale lookups (whether the database held the key, per
    lookup) were not one that found nothing, then one that hid the row."""
    return [
        f"{key}: the stale lookups found {found}, not [False, True]"
        for key, found in sorted(lookups.items())
        if found != [False, True]
    ]


def stale_lookups_pair_up() -> list[str]:
    """Premise: on every gated case with a ``stale_lookup`` fault, each key a stale
    lookup reads is read stale exactly twice: by the first call, before anything holds it,
    then by the retry, which hides the first write. So recording a key when the stale
    lookup found nothing records the same keys, as many times, as recording it when the
    lookup hid a row (``outbox.hidden_writes`` is the same count)."""
    cases = [
        case
        for case in load_cases(default_suites())
        if case.faults.get("outbox", "").partition(":")[0] == STALE_LOOKUP
        and case.expect.refused is None
        and case.expect.described is None
    ]
    if not cases:
        return ["no gated case has a stale_lookup fault"]
    original = StaleStore._existing
    lookups: dict[str, list[bool]] = {}
    """Key -> per stale lookup of it, whether the database held it (keys name the case)."""

    def recording(self: StaleStore, table: str, key: str) -> dict[str, Any] | None:
        if not self.missed:
            lookups.setdefault(key, []).append(Store._existing(self, table, key) is not None)
        return original(self, table, key)

    problems: list[str] = []
    with mock.patch.object(StaleStore, "_existing", recording):
        for case in cases:
            run = SupportPilotSUT().run(case, 0)
            if run.outcome in ("sut_error", "error"):
                problems.append(f"{case.id}: the run did not finish ({run.error})")
    if not lookups:  # a case that escalates before writing looks nothing up
        problems.append("no gated stale_lookup case made a stale lookup")
    return problems + unpaired_stale_lookups(lookups)


def spent_stale_stores() -> list[str]:
    """Premise of the ``self.context = real`` removed entry: on every gated case with a
    ``stale_lookup`` fault, each :class:`StaleStore` a call makes has made its one stale
    lookup by the time the call returns (nothing refuses a named write before the
    idempotency lookup; the calls of the ``gateway_as_specified`` twin, refused earlier
    on purpose, each go through a gateway of their own, so they are not counted). A
    spent stale store reads the database as the real store does, so leaving one in the
    gateway's context after the call changes no later call."""
    cases = [
        case
        for case in load_cases(default_suites())
        if case.faults.get("outbox", "").partition(":")[0] == STALE_LOOKUP
        and case.expect.refused is None
        and case.expect.described is None
    ]
    if not cases:
        return ["no gated case has a stale_lookup fault"]
    made: list[StaleStore] = []
    original = StaleStore.__init__
    probing: list[bool] = []
    probe_gateway = sut_module.probe_gateway

    def recording(self: StaleStore, store: Store, hidden: list[str]) -> None:
        original(self, store, hidden)
        if not probing:
            made.append(self)

    def flagged(*args: Any, **kwargs: Any) -> dict[str, str]:
        # The gateway_as_specified twin: each of its calls has a gateway of its own, so
        # a store left in one's context reaches no other call.
        probing.append(True)
        try:
            return probe_gateway(*args, **kwargs)
        finally:
            probing.pop()

    problems: list[str] = []
    with (
        mock.patch.object(StaleStore, "__init__", recording),
        mock.patch.object(sut_module, "probe_gateway", flagged),
    ):
        for case in cases:
            made.clear()
            run = SupportPilotSUT().run(case, 0)
            if run.outcome in ("sut_error", "error"):
                problems.append(f"{case.id}: the run did not finish ({run.error})")
            unspent = sum(1 for store in made if not store.missed)
            if unspent:
                problems.append(f"{case.id}: {unspent} stale store(s) never looked a key up")
    return problems


JSON_LEAVES = (str, int, bool, type(None))
"""Leaves whose Python dump is their JSON dump (a float is not: pydantic's JSON mode
writes infinity and NaN otherwise)."""


def json_native_problems(root: type[BaseModel]) -> list[str]:
    """Where ``root``'s tree holds anything whose ``model_dump()`` differs from its
    ``model_dump(mode="json")``: beyond :func:`schema_shape_problems`, a float leaf or a
    Literal of anything but strings."""
    problems = schema_shape_problems(root)
    seen: set[type[BaseModel]] = set()

    def visit(annotation: Any, path: str) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in seen:
                seen.add(annotation)
                for name, f in annotation.model_fields.items():
                    visit(f.annotation, f"{path}.{name}")
            return
        origin = get_origin(annotation)
        if origin is Literal:
            if not all(isinstance(v, str) for v in get_args(annotation)):
                problems.append(f"{path}: a Literal of {get_args(annotation)!r}")
        elif origin in (Annotated, dict, list, Union, types.UnionType):
            args = get_args(annotation)
            for a in args[:1] if origin is Annotated else args:
                visit(a, path)
        elif isinstance(annotation, type) and annotation not in JSON_LEAVES:
            problems.append(f"{path}: {annotation.__name__} dumps otherwise in JSON mode")

    visit(root, root.__name__)
    return problems


def agent_dumps_are_json_native() -> list[str]:
    """Premise of the ``model_dump(mode="json")`` -> ``model_dump()`` entries (the
    parsed model answer, the worker's size measure, the result payload, a task sent on the
    bus, a fault's filler claims): every model the agent dumps in JSON mode — a
    specialist's output, a claim, a worker's result, a task — holds strings, integers,
    booleans, None, string Literals, lists, dicts and models of them only, so both dumps
    are the same data."""
    from agent.contracts import Claim, WorkerOutput

    return [
        problem
        for model in (WorkerOutput, Claim, WorkerResult, Task)
        for problem in json_native_problems(model)
    ]


def flaky_kind_is_never_read(brain_type: type[Any] | None = None) -> list[str]:
    """Premise of the ``parse_fault`` entry (``return kind`` -> ``return None`` for
    ``flaky:p``): a faulted brain whose kind reads ``None`` instead of ``flaky`` answers
    and crashes exactly as it does with ``flaky`` (its kind is only ever compared with
    other kinds; whether it crashes is ``flaky_probability``'s alone), on every trial of
    every probability at the edges and inside."""
    kind_of = brain_type or faults_module.FaultyBrain
    task = Task(trace_id="probe", role="order_agent", order_id="A1001")
    problems: list[str] = []

    class Inner:
        async def think(self, task: Task, tools: Any) -> object:
            return {"claims": [{"topic": "order", "value": "A1001", "text": "", "evidence": []}]}

    def outcome(fault: str, trial: int, kind: str | None) -> object:
        brain = kind_of(Inner(), fault, "order_agent", "probe-case", trial)
        brain.kind = kind
        try:
            return asyncio.run(brain.think(task, types.SimpleNamespace(evidence=[])))
        except Exception as e:
            return f"raised {type(e).__name__}: {e}"

    for fault in ("flaky:0", "flaky:1", "flaky:1.0", "flaky:0.5", "flaky:0.01"):
        for trial in range(8):
            flaky, none = outcome(fault, trial, "flaky"), outcome(fault, trial, None)
            if flaky != none:
                problems.append(
                    f"{fault} trial {trial}: {flaky!r} with kind flaky, {none!r} with None"
                )
    return problems


LONGEST_TRIAL_DIGITS = 18
"""The most digits a trial number has in any run that can finish (under 10**18 trials)."""


def write_ids_within(limits: Mapping[str, int], trace_chars: int, slack: int = 1) -> list[str]:
    """Every id a write carries (the approval id the domain records, each idempotency key)
    that, for a trace id ``trace_chars`` long, is not at least ``slack`` + 1 characters
    under its write tools' ``limits`` (argument -> the smallest maxLength of it)."""
    from domain.approval import ApprovalGate, Proposal
    from domain.world import build_world
    from tools.outbox import idempotency_key

    trace = "x" * trace_chars
    store = build_world()
    try:
        approval = ApprovalGate(store, None).decide(
            Proposal(trace_id=trace, action="reply", order_id="A1001", amount=0.0, summary="s")
        )
    finally:
        store.close()
    made = {
        "approval_id": [approval.id],
        "idempotency_key": [idempotency_key(trace, kind) for kind in ("ticket", "reply")],
    }
    return [
        f"{argument} {value[:12]}… is {len(value)} characters, limit {limits[argument]}"
        for argument, values in made.items()
        for value in values
        if len(value) + slack >= limits[argument]
    ]


def write_tool_limits() -> dict[str, int]:
    """Argument -> the smallest maxLength the write tools (and find_write) give it."""
    from tools.outbox import FIND_WRITE, WRITE_TOOLS

    found: dict[str, int] = {}
    for tool in [*WRITE_TOOLS, FIND_WRITE]:
        for name, prop in tool.parameters["properties"].items():
            if name in ("approval_id", "idempotency_key"):
                found[name] = min(found.get(name, prop["maxLength"]), prop["maxLength"])
    return found


def write_ids_fit_with_room() -> list[str]:
    """Premise: every approval id and idempotency key a run writes is at least two
    characters under its write tools' limit, so a limit one looser or one tighter takes
    the same writes. The trace id is ``<case id>-<trial>`` (agent_evals.sut); a case id is
    at most MAX_ID_LENGTH characters (evals._text) and a trial has at most
    LONGEST_TRIAL_DIGITS digits."""
    import inspect

    from agent_evals import sut
    from evals._text import MAX_ID_LENGTH

    problems = []
    if 'trace_id = f"{case.id}-{trial}"' not in inspect.getsource(sut):
        problems.append("agent_evals.sut no longer builds the trace id as <case id>-<trial>")
    longest = MAX_ID_LENGTH + 1 + LONGEST_TRIAL_DIGITS
    return problems + write_ids_within(write_tool_limits(), longest)


SEARCH_ORDER = "superseded, effective_date DESC, version DESC, rank"
"""The order the store's policy search returns documents in (domain.store)."""
PROBE_QUERIES = (("补发",), ("补发", "物流", "停滞"), ("退货",), ("无关词",))
"""Reissue words, a return word and a word no document holds, quoted as the store does."""


def phrase_problems(phrase: str) -> list[str]:
    """Where adding ``phrase`` to an OR query of the policy KB changes what the store's
    search returns (documents or order), or ``phrase`` alone finds something or fails:
    the default world plus two added current reissue policies (one tying the default's
    effective date)."""
    from domain import build_world

    added = [
        {
            "title": "补发政策（修订）",
            "body": "物流信息停滞满 48 小时未更新的，可为客户提交补发申请。",
            "version": "v2",
            "effective_date": "2024-06-01",
        },
        {
            "title": "补发说明",
            "body": "补发前请核对地址。",
            "version": "v9",
            "effective_date": "2025-01-01",
        },
    ]
    store = build_world({"policies": added})
    problems: list[str] = []
    try:
        table = store.db.table("policies")

        def ids(query: str) -> list[int]:
            return [int(r["id"]) for r in table.search(query, order_by=SEARCH_ORDER, limit=5)]

        for words in PROBE_QUERIES:
            plain = " OR ".join(f'"{w}"' for w in words)
            for query in (f"{phrase} OR {plain}", f"{plain} OR {phrase}"):
                try:
                    got = ids(query)
                except Exception as e:  # a syntax error is a difference too
                    problems.append(f"{query!r} fails: {e}")
                    continue
                if got != ids(plain):
                    problems.append(f"{query!r} finds {got}, {plain!r} finds {ids(plain)}")
        try:
            alone = ids(phrase)
        except Exception as e:
            problems.append(f"{phrase!r} alone fails: {e}")
        else:
            if alone:
                problems.append(f"{phrase!r} alone finds {alone}")
    finally:
        store.close()
    return problems


def empty_fts_phrase_matches_nothing() -> list[str]:
    """Premise of the ``_fts_query`` filter entry: the empty phrase ``""`` (what a word of
    only double quotes becomes) matches no document of the policy KB, raises nothing, and
    leaves an OR query's documents and their order as they were; alone it finds nothing,
    as the store's ``return []`` for an empty query does."""
    return phrase_problems('""')


def _domain_errors() -> dict[str, type[DomainError]]:
    """Name -> every DomainError class the domain package exports."""
    return {
        name: value
        for name, value in vars(domain).items()
        if isinstance(value, type) and issubclass(value, DomainError)
    }


def _raised_names(node: ast.AST) -> set[str]:
    """The names of the exceptions ``raise X(...)`` / ``raise X`` statements in ``node``
    raise (anything raised some other way, e.g. ``raise err``, as ``?``)."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Raise) and sub.exc is not None:
            exc = sub.exc.func if isinstance(sub.exc, ast.Call) else sub.exc
            found.add(exc.id if isinstance(exc, ast.Name) else "?")
    return found


def _self_calls(node: ast.AST) -> set[str]:
    """The methods ``node`` calls on ``self`` or ``super()``."""
    return {
        sub.func.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and (
            (isinstance(sub.func.value, ast.Name) and sub.func.value.id == "self")
            or (
                isinstance(sub.func.value, ast.Call)
                and getattr(sub.func.value.func, "id", "") == "super"
            )
        )
    }


def store_raises(classes: Iterable[type]) -> dict[str, set[str]]:
    """Store method -> the names of every DomainError it can raise, itself or through
    the methods it calls on itself (the methods of every class in ``classes`` pooled: a
    subclass's override counts for every caller), read from the source. An exception
    raised otherwise than by its class name counts as every DomainError (``?``)."""
    errors = _domain_errors()
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for cls in classes:
        tree = ast.parse(inspect.getsource(cls))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                raised = _raised_names(node)
                if "?" in raised:
                    raised = (raised - {"?"}) | set(errors)
                direct.setdefault(node.name, set()).update(r for r in raised if r in errors)
                calls.setdefault(node.name, set()).update(_self_calls(node))
    closed = {name: set(raised) for name, raised in direct.items()}
    changed = True
    while changed:
        changed = False
        for name, called in calls.items():
            for other in called:
                extra = closed.get(other, set()) - closed[name]
                if extra:
                    closed[name] |= extra
                    changed = True
    return closed


def _store_calls(function: Callable[..., Any], seen: set[str] | None = None) -> set[str]:
    """The Store methods ``function`` calls as ``ctx.store.<method>``, itself or through
    the functions of its module it calls by name."""
    seen = set() if seen is None else seen
    if function.__name__ in seen:
        return set()
    seen.add(function.__name__)
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    found: set[str] = set()
    module = sys.modules[function.__module__]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Attribute)
            and func.value.attr == "store"
        ):
            found.add(func.attr)
        elif isinstance(func, ast.Name) and callable(getattr(module, func.id, None)):
            helper = getattr(module, func.id)
            if inspect.isfunction(helper) and helper.__module__ == function.__module__:
                found |= _store_calls(helper, seen)
    return found


PROBE_CUSTOMERS = (None, "李先生")
"""The asker each handler is called for: none, and A1001's owner (the track tool looks
the order up first only for an authenticated customer)."""


LEFT_TO_THE_GATEWAY = {"StoreFailedError"}
"""DomainErrors the handlers leave to the gateway by design: a failing table (the world's
``table_errors``) fails the call, which the gateway's ``except DomainError`` turns into a
tool error; no handler may read it as "not found"."""


def escaping_domain_errors(
    registry: Mapping[str, Any], args: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """Every (tool, store method, DomainError) where the tool's handler lets the error
    out when that store method raises it: each method a handler calls (read from its
    source) is made to raise each DomainError the store's source says it can raise, and
    the handler is called (as the plain gateway would, on the default world, without and
    with an authenticated customer). A method a handler calls that no call reached, or a
    tool with no arguments in ``args``, is a problem too."""
    raises = store_raises([Store, *Store.__subclasses__()])
    problems: list[str] = []
    for name, tool in sorted(registry.items()):
        if name not in args:
            problems.append(f"{name}: a tool the probe has no arguments for")
            continue
        for method in sorted(_store_calls(tool.handler)):
            for error_name in sorted(raises.get(method, set()) - LEFT_TO_THE_GATEWAY):
                error = _domain_errors()[error_name]
                reached = False
                for customer in PROBE_CUSTOMERS:
                    store = build_world()
                    original = getattr(store, method)

                    def raising(*a: Any, _e: type = error, **k: Any) -> Any:
                        nonlocal reached
                        reached = True
                        raised = _e.__new__(_e)
                        Exception.__init__(raised, "probe")
                        raise raised

                    setattr(store, method, raising)
                    context = ToolContext(store=store, trace_id="p", customer=customer)
                    try:
                        tool.handler(context, dict(args[name]))
                    except DomainError as e:
                        problems.append(
                            f"{name}: {type(e).__name__} from store.{method} leaves the handler"
                        )
                        break
                    except Exception:  # a refusal of the tool layer: the handler caught it
                        pass
                    finally:
                        setattr(store, method, original)
                        store.close()
                if not reached:
                    problems.append(f"{name}: store.{method} ({error_name}) never reached")
    return problems


def handlers_let_no_domain_error_out() -> list[str]:
    """Every tool handler of the registry turns every DomainError the store methods it
    calls can raise into a result (``found: false``) or a tool error itself, but for a
    failing table (:data:`LEFT_TO_THE_GATEWAY`), which the gateway's ``except DomainError``
    turns into a tool error (since session 19 that ``except`` runs, so the entry that
    rested on this probe is gone)."""
    problems = escaping_domain_errors(TOOLS, {**READ_ARGS, **WRITE_ARGS})
    # Outside the store the domain raises only world-building refusals, before any tool
    # runs (parse_world, build_world); anything else could reach a handler unseen.
    errors = _domain_errors()
    for path in sorted(Path(domain.__file__).parent.glob("*.py")):
        if path.name == "store.py":
            continue
        raised = _raised_names(ast.parse(path.read_text(encoding="utf-8"))) & set(errors)
        allowed = {"InvalidWorldError"} if path.name == "world.py" else set()
        problems += [f"domain/{path.name} raises {name}" for name in sorted(raised - allowed)]
    return problems


def missing_attempt_args(write_tools: Iterable[str], attempt_args: Mapping[str, Any]) -> list[str]:
    """The write tools ``attempt_args`` holds no attempt arguments for."""
    return [f"{name}: no attempt arguments" for name in write_tools if name not in attempt_args]


def write_tools_have_attempt_args() -> list[str]:
    """Premise: every write tool of the registry has the arguments a ``write_attempt`` fault
    passes (so ``write_attempt_tool``'s last refusal never fires)."""
    return missing_attempt_args(faults_module.write_tools(), faults_module.WRITE_ATTEMPT_ARGS)


def _without_trace_ids(
    make: Callable[[Task], dict[str, Any]],
) -> Callable[[Task], dict[str, Any]]:
    """``make`` with the trace id taken out of every text it gives (what the mutants of
    the attempt's ids leave: ``f":approval"``, ``f":ticket"``)."""

    def made(task: Task) -> dict[str, Any]:
        return {
            key: value.replace(task.trace_id, "") if isinstance(value, str) else value
            for key, value in make(task).items()
        }

    return made


def write_attempt_cases() -> list[Case]:
    """One gated case per (role, fault) of the write-attempt kinds."""
    chosen: dict[tuple[str, str], Case] = {}
    kinds = (faults_module.WRITE_ATTEMPT, faults_module.HIDDEN_WRITE_ATTEMPT)
    for case in load_cases(default_suites()):
        if case.expect.refused is not None or case.expect.described is not None:
            continue
        for role, fault in case.faults.items():
            if fault.partition(":")[0] in kinds:
                chosen.setdefault((role, fault), case)
    return list(chosen.values())


def _record_and_verdicts(case: Case) -> tuple[dict[str, Any], list[tuple[str, bool, str]]]:
    """The run's record (its timing and ``detail`` aside) and every registered check's
    verdict on it."""
    run = SupportPilotSUT().run(case, 0)
    verdicts = [(r.name, r.passed, r.reason) for r in grade(case, run)]
    return run.model_dump(mode="json", exclude={"latency_ms", "detail"}), verdicts


def attempt_ids_change_nothing(cases: Iterable[Case] | None = None) -> list[str]:
    """Premise of the entries on the write attempt's ids (``_ticket_attempt``,
    ``_reply_attempt``): a faulted role's write attempt is refused on the allowlist before
    its arguments are read, and a refused call's arguments reach neither the record nor
    any check, so the same attempt without the trace id in its ids leaves every gated
    write-attempt case's record and verdicts as they were."""
    chosen = write_attempt_cases() if cases is None else list(cases)
    if not chosen:
        return ["no gated case has a write attempt fault"]
    blanked = {
        tool: _without_trace_ids(make) for tool, make in faults_module.WRITE_ATTEMPT_ARGS.items()
    }
    problems = []
    for case in chosen:
        before = _record_and_verdicts(case)
        with mock.patch.dict(faults_module.WRITE_ATTEMPT_ARGS, blanked):
            after = _record_and_verdicts(case)
        if before != after:
            problems.append(f"{case.id} ({case.faults}): the record or a verdict changed")
    return problems


HANDLED_KINDS = frozenset(
    {
        "extra_forbidden", "missing", "literal_error", "greater_than_equal",
        "less_than_equal", "string_too_short", "float_type", "finite_number", "int_type",
        "bool_type", "string_type", "dict_type", "model_type", "list_type",
    }
)  # fmt: skip
"""The error kinds ``domain.problems._message`` words itself (its last line, pydantic's
own message, is the fallback)."""


def off_the_table(root: type[BaseModel], errors: Iterable[Mapping[str, Any]]) -> list[str]:
    """The validation errors of ``root`` that leave ``domain.problems``'s table: a kind it
    does not word, a ``min_length`` other than 1, or an unknown key whose location passes
    through anything but a model, a ``dict`` or a ``list`` (a union, a literal, a scalar)."""
    found: list[str] = []
    for error in errors:
        kind, loc, ctx = error["type"], error["loc"], error.get("ctx") or {}
        where = ".".join(str(p) for p in loc)
        if kind not in HANDLED_KINDS:
            found.append(f"{where}: {kind} is worded by pydantic's fallback")
        if "min_length" in ctx and (kind, ctx["min_length"]) != ("string_too_short", 1):
            found.append(f"{where}: {kind} with min_length {ctx['min_length']}")
        if kind != "extra_forbidden":
            continue
        current: Any = root
        for part in loc[:-1]:
            if isinstance(current, type) and issubclass(current, BaseModel):
                current = current.model_fields[str(part)].annotation
            elif get_origin(current) in (dict, list):
                current = get_args(current)[-1]
            else:
                found.append(f"{where}: the way to the unknown key passes {current!r}")
                break
        else:
            if not (isinstance(current, type) and issubclass(current, BaseModel)):
                found.append(f"{where}: the unknown key is held by {current!r}, not a model")
    return found


def world_problems_stay_on_the_table() -> list[str]:
    """Premise of the ``domain.problems`` entries (session 17): every world of the refusal
    cases (every field x every wrong type, unknown keys at each level) fails validation
    only in ways ``_message`` words itself, with ``min_length`` 1, and its unknown keys sit
    in models reached through models, dicts and lists: the type guards of ``_model_at``
    and the ``min_length`` test never decide, and the fallback never runs."""
    found: list[str] = []
    lines = (ROOT / "cases" / "refusals.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines:
        if not line.startswith("{"):
            continue
        world = json.loads(line).get("world")
        if not isinstance(world, dict):
            continue
        try:
            World.model_validate(world)
        except ValidationError as e:
            found += off_the_table(World, e.errors(include_url=False))
    return sorted(set(found))


PROBES: dict[str, Callable[[], list[str]]] = {
    "non_ok_results_carry_no_claims": non_ok_results_carry_no_claims,
    "pydantic_literals_are_interned": pydantic_literals_are_interned,
    "task_roles_are_the_literals": task_roles_are_the_literals,
    "outbox_kinds_sort_after_key_drift": outbox_kinds_sort_after_key_drift,
    "only_refused_sorts_at_refused": only_refused_sorts_at_refused,
    "world_schema_is_plain": world_schema_is_plain,
    "world_min_lengths_are_one_on_text": world_min_lengths_are_one_on_text,
    "resolution_keeps_given_values": resolution_keeps_given_values,
    "described_keys_are_set": described_keys_are_set,
    "no_sqlite_utils_plugins": no_sqlite_utils_plugins,
    "every_policy_key_is_above_a_missing_one": every_policy_key_is_above_a_missing_one,
    "world_walk_steps_agree": world_walk_steps_agree,
    "settings_errors_name_one_later_field": settings_errors_name_one_later_field,
    "write_results_flag_created": write_results_flag_created,
    "read_results_carry_no_created": read_results_carry_no_created,
    "stale_lookups_pair_up": stale_lookups_pair_up,
    "outbox_kinds_past_key_drift_sort_before_stale_lookup": (
        outbox_kinds_past_key_drift_sort_before_stale_lookup
    ),
    "timeout_sleep_is_cut_at_the_contract": timeout_sleep_is_cut_at_the_contract,
    "no_filler_leaves_an_equal_output": no_filler_leaves_an_equal_output,
    "wrapped_brains_answer_claim_lists": wrapped_brains_answer_claim_lists,
    "decorating_kinds_in_order": decorating_kinds_in_order,
    "hidden_sorts_first_of_write_attempts": hidden_sorts_first_of_write_attempts,
    "no_draw_sits_on_a_gated_probability": no_draw_sits_on_a_gated_probability,
    "kinds_after_oversize_never_decorate": kinds_after_oversize_never_decorate,
    "write_ids_fit_with_room": write_ids_fit_with_room,
    "spent_stale_stores": spent_stale_stores,
    "agent_dumps_are_json_native": agent_dumps_are_json_native,
    "flaky_kind_is_never_read": flaky_kind_is_never_read,
    "empty_fts_phrase_matches_nothing": empty_fts_phrase_matches_nothing,
    "handlers_let_no_domain_error_out": handlers_let_no_domain_error_out,
    "write_tools_have_attempt_args": write_tools_have_attempt_args,
    "attempt_ids_change_nothing": attempt_ids_change_nothing,
    "world_problems_stay_on_the_table": world_problems_stay_on_the_table,
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
    ("kinds", "bad"),
    [
        (("lost_ack", "lost_request", "key_drift"), []),
        # A new kind sorting before key_drift would take the key-drift gateway.
        (("lost_ack", "flaky_ack", "key_drift"), ["flaky_ack"]),
        (("drop_ack",), ["drop_ack"]),
    ],
)
def test_the_outbox_order_probe_catches_a_kind_before_key_drift(
    kinds: tuple[str, ...], bad: list[str]
) -> None:
    """The positive control of ``outbox_kinds_sort_after_key_drift``."""
    assert kinds_out_of_order(kinds, KEY_DRIFT) == bad


@pytest.mark.parametrize(
    ("kinds", "bad"),
    [
        (("lost_ack", "lost_request", "stale_lookup"), []),
        # A new kind sorting after stale_lookup would take the stale-lookup gateway.
        (("lost_ack", "timeout_ack", "stale_lookup"), ["timeout_ack"]),
        (("surplus_write",), ["surplus_write"]),
    ],
)
def test_the_stale_lookup_order_probe_catches_a_kind_after_it(
    kinds: tuple[str, ...], bad: list[str]
) -> None:
    """The positive control of ``outbox_kinds_past_key_drift_sort_before_stale_lookup``."""
    assert kinds_at_or_after(kinds, STALE_LOOKUP) == bad


@pytest.mark.parametrize(
    ("results", "bad"),
    [
        ({"orders__get_order": [{"order_id": "A1001"}]}, 0),
        ({"support__find_write": [{"found": True}, {"found": False, "created": False}]}, 1),
        ({"stock__check": [{"created": True}], "kb__search": [{"created": None}]}, 2),
    ],
)
def test_the_read_created_probe_catches_a_read_saying_created(
    results: dict[str, list[Mapping[str, Any]]], bad: int
) -> None:
    """The positive control of ``read_results_carry_no_created``."""
    assert len(created_flag_readers(results)) == bad


@pytest.mark.parametrize(
    ("lookups", "bad"),
    [
        ({"t-0:ticket": [False, True], "t-0:reply": [False, True]}, 0),
        # A write refused after its lookup, never retried: the mutant would count it.
        ({"t-0:ticket": [False]}, 1),
        # A third call, or a key written before the run: the counts could differ.
        ({"t-0:ticket": [False, True, True], "t-0:reply": [True, True]}, 2),
    ],
)
def test_the_stale_pairs_probe_catches_a_lookup_out_of_its_pair(
    lookups: dict[str, list[bool]], bad: int
) -> None:
    """The positive control of ``stale_lookups_pair_up``."""
    assert len(unpaired_stale_lookups(lookups)) == bad


def test_the_status_probe_tells_a_status_after_refused() -> None:
    """The positive control of ``only_refused_sorts_at_refused``: a tool error whose
    status sorts after 'refused' (``timeout``, ``unavailable``) is caught, and the probe
    sees every subclass the packages define."""
    statuses = tool_error_statuses()
    assert set(statuses.values()) >= {"refused", "invalid_arguments", "error", "lost_ack"}
    assert statuses_at_or_after({**statuses, "X": "timeout"}, "refused") == [
        "X.status = 'timeout' sorts at or after 'refused'"
    ]


class _Address(BaseModel):
    city: str


class _Parts(TypedDict):
    city: str


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        (str | None, None),
        (Annotated[int, Field(ge=0)] | None, None),
        (dict[str, _Address], None),
        (list[Literal["a", "b"]], None),
        (_Address | None, "a union holding a model"),
        (dict[str, int] | None, "a union holding a model or a container"),
        (list[_Address | None], "a union holding a model"),
        (_Parts, "no model, mapping, list or leaf"),
        (tuple[str, int], "no model, mapping, list or leaf"),
        (dict[int, str], "a mapping keyed by"),
    ],
)
def test_the_shape_probe_tells_a_union_of_models(annotation: Any, problem: str | None) -> None:
    """The positive control of ``world_schema_is_plain``."""

    class Root(BaseModel):
        field: annotation  # type: ignore[valid-type]

    found = schema_shape_problems(Root)
    assert found == [] if problem is None else any(problem in f for f in found), found


@pytest.mark.parametrize(
    ("annotation", "default", "problem"),
    [
        (str, Field(min_length=1), None),
        (dict[str, Annotated[str, Field(min_length=1)]], Field(default_factory=dict), None),
        (str, Field(min_length=2), "min_length 2"),
        (list[str], Field(min_length=1), "min_length 1 on list"),
        (
            dict[str, Annotated[list[int], Field(min_length=1)]],
            Field(default_factory=dict),
            "on list",
        ),
    ],
)
def test_the_min_length_probe_tells_another_bound(
    annotation: Any, default: Any, problem: str | None
) -> None:
    """The positive control of ``world_min_lengths_are_one_on_text``."""

    class Root(BaseModel):
        field: annotation = default  # type: ignore[valid-type]

    found = min_length_problems(Root)
    assert found == [] if problem is None else any(problem in f for f in found), found


def test_the_resolution_probe_tells_a_dropped_value() -> None:
    """The positive control of ``resolution_keeps_given_values``: a resolution that drops
    the seed, or reads an option's variable instead, is caught on the settings cases."""
    configurations = settings_configurations()

    def drops_seed(given: Mapping[str, object], env: Mapping[str, str]) -> BrainSettings:
        settings = _resolved_without_guard(given, env)
        return settings.model_copy(update={"seed": None})

    def env_first(given: Mapping[str, object], env: Mapping[str, str]) -> BrainSettings:
        variables = {v: k for k, v in settings_module.ENV_VARS.items()}
        from_env = {variables[v]: x for v, x in env.items() if v in variables}
        return _resolved_without_guard({**given, **from_env}, {})

    assert any("seed" in p for p in given_values_missed(configurations, drops_seed))
    assert given_values_missed(configurations, env_first) != []


def test_the_described_key_probe_tells_openai_without_a_key() -> None:
    """The positive control of ``described_keys_are_set``: a resolution that lets
    ``brain=openai`` run without its key shows an ``api_key`` the settings do not hold."""

    def keyless(given: Mapping[str, object], env: Mapping[str, str]) -> Any:
        resolved = settings_module.resolve(given, env)
        settings = resolved.settings.model_copy(update={"api_key": None})
        return dataclasses.replace(resolved, settings=settings)

    assert keys_shown_unset() == []
    assert keys_shown_unset(keyless) != []


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


class _EqualsList(type):
    """A metaclass whose classes say they equal ``list``."""

    def __eq__(cls, other: object) -> bool:
        return other is list or cls is other

    __hash__ = type.__hash__


class _ListLike(Generic[_T], metaclass=_EqualsList):
    pass


@pytest.mark.parametrize(
    ("steps", "problem"),
    [
        ([("x", _Address), ("y", dict[str, _Address]), ("z", list[_Address])], None),
        ([("x", typing.Dict[str, _Address])], "raises"),  # noqa: UP006
        ([("x", str)], "a class but no model"),
        ([("x", _ListLike[_Address])], "equals list"),
    ],
)
def test_the_walk_probe_tells_a_step_that_reads_otherwise(
    steps: list[tuple[str, Any]], problem: str | None
) -> None:
    """The positive control of ``world_walk_steps_agree``: a ``typing.Dict`` on the way
    (``issubclass`` raises on it), a class that is no model, an origin equal to ``list``
    without being it."""
    found = walk_step_problems(steps)
    assert found == [] if problem is None else any(problem in f for f in found), found


def test_the_walk_probe_finds_every_step_to_a_model() -> None:
    """The steps of the World schema: the dict and list of models are among them, the
    leaves are not."""
    paths = {path for path, _ in model_walk_steps(World)}
    assert {"World", "World.orders", "World.orders.<item>", "World.policies.<item>"} <= paths
    assert "World.stock" not in paths and "World.kb" not in paths


@pytest.mark.parametrize(
    ("names", "bad"),
    [(("api_key", "brain", "base_url"), []), (("agent", "api_key", "brain"), ["agent"])],
)
def test_the_settings_order_probe_tells_a_field_before_api_key(
    names: tuple[str, ...], bad: list[str]
) -> None:
    """The positive control of ``settings_errors_name_one_later_field``: a setting named
    before ``api_key`` (``agent``) would have its value hidden."""
    assert names_at_or_before(names, "api_key") == bad


@pytest.mark.parametrize(
    ("flags", "ok"),
    [([True, False], True), ([True, None], False), ([1, 0], False), ([True, True], False)],
)
def test_the_created_probe_tells_a_flag_that_is_no_boolean(flags: list[object], ok: bool) -> None:
    """The positive control of ``write_results_flag_created``: a replay without the flag
    (``None <= False`` raises), a flag that is a number, a replay said to be new."""
    assert (created_flag_problems("t", flags) == []) is ok


def test_the_sleep_probe_tells_a_sleep_shorter_than_the_contract() -> None:
    """The positive control of ``timeout_sleep_is_cut_at_the_contract``: a brain that
    wakes before the 0.05 s deadline answers, which a sleep past it never does."""
    assert sleeps_end_alike((0.0, 5.0))
    assert sleeps_end_alike((5.0, 6.0)) == []


def test_the_filler_probe_tells_an_appended_filler() -> None:
    """The positive control of ``no_filler_leaves_an_equal_output``."""
    raw = {"claims": [{"topic": "t", "value": "v", "text": "", "evidence": []}]}
    assert appended(raw, 0) == raw
    assert appended(raw, -2) == raw
    assert appended(raw, 1) != raw


def test_the_claim_list_probe_tells_an_answer_that_is_no_claim_list() -> None:
    """The positive control of ``wrapped_brains_answer_claim_lists``: a parser that hands
    back what JSON it finds (a list, null, claims null) is caught, one that raises is not."""
    loose = claim_list_problems(json.loads, MODEL_ANSWERS[2:8])
    assert [p.partition(" -> ")[0] for p in loose] == [repr(t) for t in MODEL_ANSWERS[2:7]]
    assert claim_list_problems(parse_output, MODEL_ANSWERS) == []


@pytest.mark.parametrize(
    ("kinds", "pivot", "bad"),
    [
        (("claim_topic", "claims", "crash", "timeout"), "claim_topic", []),
        # A new kind sorting before claim_topic would get claim_topic's added claim.
        (("claim_topic", "blank", "timeout"), "claim_topic", ["blank"]),
        (("amount_format", "crash"), "amount_format", []),
        (("amount_format", "add_claim"), "amount_format", ["add_claim"]),
        # A write-attempt kind sorting before hidden_write_attempt would hide its refusal.
        (("write_attempt", "hidden_write_attempt"), "hidden_write_attempt", []),
        (("write_attempt", "forced_write"), "hidden_write_attempt", ["forced_write"]),
    ],
)
def test_the_kind_order_probe_catches_a_kind_before_its_test(
    kinds: tuple[str, ...], pivot: str, bad: list[str]
) -> None:
    """The positive control of ``decorating_kinds_in_order`` (its order test)."""
    assert kinds_out_of_order(kinds, pivot) == bad


def test_the_fault_samples_cover_every_form() -> None:
    """The positive control of ``decorating_kinds_in_order`` (its completeness): the
    samples cover every form the refusal lists; a form with no sample would be named."""
    kinds, missing = fault_kinds()
    assert (
        missing == [] and len(set(kinds)) == len(faults_module.ROLE_FAULT_FORMS.split(",")) - 1
    )  # write_attempt and write_attempt:<tool> are one kind
    with mock.patch.object(faults_module, "ROLE_FAULT_FORMS", "crash, new_kind:<n>"):
        assert fault_kinds()[1] == ["new_kind"]


@pytest.mark.parametrize(("trace_chars", "caught"), [(189, 0), (190, 1), (192, 2), (193, 3)])
def test_the_write_id_probe_tells_an_id_at_its_limit(trace_chars: int, caught: int) -> None:
    """The positive control of ``write_ids_fit_with_room``: a trace id long enough to put
    the approval id (trace + 9) within one character of its 200 is caught, then the keys."""
    limits = {"approval_id": 200, "idempotency_key": 200}
    assert len(write_ids_within(limits, trace_chars)) == caught


def test_the_draw_probe_tells_a_draw_on_a_probability() -> None:
    """The positive control of ``no_draw_sits_on_a_gated_probability``: a probability
    equal to a case's own draw is caught; 0 and 1 are not hit by these."""
    draw = random.Random(zlib.crc32(b"x:3")).random()
    assert draws_at({draw}, ["x"]) == ["x:3"]
    assert draws_at({0.0, 1.0}, ["x", "y"]) == []


def test_the_oversize_order_probe_tells_a_role_allowed_a_write(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positive control of ``kinds_after_oversize_never_decorate``: a role allowed a
    write tool (its write attempt would go through and reach the tests) is caught."""
    allowed = tools.allowed_tools
    monkeypatch.setattr(
        tools,
        "allowed_tools",
        lambda role: allowed(role) | ({"support__send_reply"} if role == "reply_agent" else set()),
    )
    assert "reply_agent may call support__send_reply" in kinds_after_oversize_never_decorate()


def test_the_role_probe_tells_a_plain_string_role() -> None:
    """The positive control of ``task_roles_are_the_literals``: a ``str`` role keeps the
    object it was given (built or read from JSON), so ``is REPLY_ROLE`` would be false."""

    class PlainTask(BaseModel):
        trace_id: str
        role: str
        order_id: str

    assert len(reply_role_identity_problems(PlainTask)) == 2


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        (str, None),
        (Literal["a", "b"] | None, None),
        (list[Literal["a", "b"]], None),
        (dict[str, int], None),
        (float, "float dumps otherwise"),
        (list[float], "float dumps otherwise"),
        (Literal[1, 2], "a Literal of"),
        (tuple[str, int], "no model, mapping, list or leaf"),
    ],
)
def test_the_json_native_probe_tells_a_float(annotation: Any, problem: str | None) -> None:
    """The positive control of ``agent_dumps_are_json_native``."""

    class Root(BaseModel):
        field: annotation  # type: ignore[valid-type]

    found = json_native_problems(Root)
    assert found == [] if problem is None else any(problem in f for f in found), found


def test_the_spent_store_probe_tells_a_store_that_never_looked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positive control of ``spent_stale_stores``: a gateway that makes a second,
    unused stale store per call leaves one that never looked a key up."""
    call = agent.outbox_faults.StaleLookupGateway.call

    def wasteful(self: Any, role: str, name: str, args: dict[str, Any]) -> Any:
        if name in self.tools:
            StaleStore(self.context.store, [])
        return call(self, role, name, args)

    monkeypatch.setattr(agent.outbox_faults.StaleLookupGateway, "call", wasteful)
    found = spent_stale_stores()
    assert found and all("never looked a key up" in f for f in found), found


def test_the_empty_phrase_probe_tells_a_phrase_that_matches() -> None:
    """The positive control of ``empty_fts_phrase_matches_nothing``: a phrase that matches
    documents changes what a query of another word finds, and finds them alone."""
    problems = phrase_problems('"补发"')
    assert any("alone finds" in p for p in problems)
    assert any("'\"退货\"' finds" in p for p in problems)


def test_the_flaky_kind_probe_tells_a_brain_that_reads_its_kind() -> None:
    """The positive control of ``flaky_kind_is_never_read``: a brain that answers
    otherwise when its kind is ``flaky`` is caught."""

    class ReadsKind(faults_module.FaultyBrain):
        async def think(self, task: Task, tools: Any) -> object:
            if self.kind == "flaky":
                return {"claims": []}
            return await super().think(task, tools)

    found = flaky_kind_is_never_read(ReadsKind)
    assert found
    assert "with kind flaky" in found[0]


def _leaky_reply(ctx: ToolContext, args: dict[str, Any]) -> tools.ToolResult:
    """send_reply without its ``except ApprovalRequiredError``."""
    _reply, created = ctx.store.send_reply(
        trace_id=ctx.trace_id,
        order_id=args["order_id"],
        text=args["text"],
        approval_id=args["approval_id"],
        idempotency_key=args["idempotency_key"],
    )
    return tools.ToolResult(tool="support__send_reply", data={"created": created})


def _shipment_of(ctx: ToolContext, order_id: str) -> object:
    return ctx.store.get_shipment(order_id)


def _leaky_track(ctx: ToolContext, args: dict[str, Any]) -> tools.ToolResult:
    """A track that looks the shipment up through a helper and catches nothing."""
    return tools.ToolResult(tool="logistics__track", data={"s": str(_shipment_of(ctx, "A1001"))})


def test_the_domain_error_probe_catches_a_handler_that_lets_one_out() -> None:
    """The positive control of ``handlers_let_no_domain_error_out``: a reply handler
    without its ``except``, a track handler reaching the store through a helper; the
    registry's own handlers pass, and the store's raise map holds its refusals."""
    leaky = {
        "support__send_reply": dataclasses.replace(
            TOOLS["support__send_reply"], handler=_leaky_reply
        ),
        "logistics__track": dataclasses.replace(TOOLS["logistics__track"], handler=_leaky_track),
        "orders__get_order": TOOLS["orders__get_order"],
    }
    found = escaping_domain_errors(leaky, {**READ_ARGS, **WRITE_ARGS})
    assert found == [
        "logistics__track: ShipmentNotFoundError from store.get_shipment leaves the handler",
        "support__send_reply: ApprovalRequiredError from store.send_reply leaves the handler",
    ]
    assert escaping_domain_errors({"kb__search": TOOLS["kb__search"]}, {}) == [
        "kb__search: a tool the probe has no arguments for"
    ]
    raises = store_raises([Store])
    assert raises["create_ticket"] == {
        "ApprovalRequiredError",
        "OutOfStockError",
        "StoreFailedError",
    }
    assert raises["get_order"] == {"OrderNotFoundError", "StoreFailedError"}


@pytest.mark.parametrize(
    ("write_tools", "bad"),
    [
        (("support__create_ticket", "support__send_reply"), []),
        # A write tool added to the registry without attempt arguments.
        (("support__create_ticket", "support__send_reply", "support__refund"), ["support__refund"]),
    ],
)
def test_the_attempt_args_probe_catches_a_write_tool_without_them(
    write_tools: tuple[str, ...], bad: list[str]
) -> None:
    """The positive control of ``write_tools_have_attempt_args``."""
    found = missing_attempt_args(write_tools, faults_module.WRITE_ATTEMPT_ARGS)
    assert found == [f"{name}: no attempt arguments" for name in bad]


def test_the_attempt_id_probe_tells_an_attempt_the_allowlist_lets_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The positive control of ``attempt_ids_change_nothing``: when the gateway lets the
    attempt through, its ids become the writes' keys, and the probe sees the change."""
    cases = [c for c in write_attempt_cases() if "hidden" not in next(iter(c.faults.values()))]
    assert cases
    monkeypatch.setattr(tools.gateway, "is_allowed", lambda role, tool: True)
    assert attempt_ids_change_nothing(cases[:3])


class _Loose(BaseModel):
    """A model whose errors leave the table: a list with a minimum, a bounded string, an
    optional sub-model."""

    model_config = {"extra": "forbid", "strict": True}

    tags: list[str] = Field(default_factory=list, min_length=2)
    code: str = Field(default="x", max_length=2)
    inner: World | None = None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"tags": ["a"]}, "tags: too_short with min_length 2"),
        ({"code": "abc"}, "code: string_too_long is worded by pydantic's fallback"),
        ({"inner": {"zz": 1}}, "the unknown key is held by domain.world.World | None"),
        ({}, None),
    ],
)
def test_the_table_probe_catches_errors_off_the_table(
    value: dict[str, Any], problem: str | None
) -> None:
    """The positive control of ``world_problems_stay_on_the_table``."""
    try:
        _Loose.model_validate(value)
        errors: list[Any] = []
    except ValidationError as e:
        errors = e.errors(include_url=False)
    found = off_the_table(_Loose, errors)
    assert (found == []) if problem is None else any(problem in f for f in found), found
