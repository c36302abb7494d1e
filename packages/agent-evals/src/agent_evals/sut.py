"""SupportPilot as an evals system under test: one fresh world per run, faults applied,
the run record filled from the bus log, the audit log and the database."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import openai
from agent.brain import Brain
from agent.bus import Bus
from agent.contracts import ROLES, default_contracts
from agent.errors import (
    BrainConfigError,
    InvalidCustomerError,
    ProviderError,
    UnknownFaultError,
    UnknownRoleError,
)
from agent.faults import apply_fault, fault_contract, parse_fault
from agent.obedient import SCREEN_OFF, SCREEN_TARGET
from agent.openai_brain import make_client, openai_brains
from agent.orchestrator import Orchestrator
from agent.outbox_faults import (
    OUTBOX,
    LostAckGateway,
    StaleLookupGateway,
    outbox_gateway,
    parse_outbox_fault,
)
from agent.rule_brains import rule_brains
from agent.settings import (
    ENV_VARS,
    SHARED_ENV_VARS,
    BrainSettings,
    ResolvedSettings,
    describe,
    resolve,
)
from agent.usage import TokenMeter
from agent.worker import Worker
from domain import (
    ApprovalGate,
    InvalidWorldError,
    Proposal,
    Store,
    World,
    build_world,
    parse_world,
)
from evals.model.case import Case
from evals.model.run import Run, Usage
from tools import READ_TOOLS, ToolError, ToolGateway

# Imported for what they register: SupportPilot's own checks and the invariants.
import agent_evals.checks
import agent_evals.invariants  # noqa: F401
from agent_evals.bypass import (
    APPROVAL,
    BYPASS,
    STOCK,
    ApprovedAnywayGate,
    StaleStockGateway,
    parse_bypass_fault,
)
from agent_evals.case_rules import (
    CASE_RULES,
    authenticated_customer,
    support_input,
)
from agent_evals.gateway_spec import GATEWAY, gateway_probes, scratch_world
from agent_evals.oracle import LOST_CALLS
from agent_evals.read_results import READ_RESULTS, ReadRecorder
from agent_evals.record import (
    FAULTED,
    Observed,
    build_run,
    steps_from,
    stock_levels,
    writes_from,
)
from agent_evals.schema_spec import SCHEMA, describe_database
from agent_evals.scripted_model import (
    MODEL_TARGET,
    SCRIPTED_KEY,
    SCRIPTED_MODEL,
    ModelFault,
    ScriptedServer,
    parse_model_fault,
)
from agent_evals.secrets_shown import SECRETS_SHOWN, Secrets

DB_DIR_ENV = "SUPPORTPILOT_DB_DIR"
"""Environment variable naming a directory for world database files (default: memory)."""

HIDDEN_WRITES = "outbox.hidden_writes"
"""The ground-truth key of a ``stale_lookup`` run: how many written keys its stale
lookups missed (each then reached the database's UNIQUE index)."""
_PYDANTIC_URL = re.compile(r"\s*For further information visit https://errors\.pydantic\.dev/\S*")


class RecordingApprover:
    """The human approver of a run: answers as the case's world says (``None``: never in
    time), remembers it."""

    def __init__(self, answer: bool | None, *, broken: bool = False) -> None:
        self.answer = answer
        self.broken = broken
        """Asking fails: the approval service is down."""
        self.answers: list[bool | None] = []
        """Every answer given, in order (``None``: no answer came)."""

    def __call__(self, proposal: Proposal) -> bool | None:
        """Answer ``proposal`` (raise :class:`ApproverUnavailableError` when broken)."""
        self.answers.append(None if self.broken else self.answer)
        if self.broken:
            raise ApproverUnavailableError(proposal.trace_id)
        return self.answer


class ApproverUnavailableError(RuntimeError):
    """The approval service failed to answer (``world.approver: broken``)."""

    def __init__(self, trace_id: str) -> None:
        super().__init__(f"{trace_id}: the approval service is unavailable")


def _world_problems(world: Mapping[str, Any]) -> tuple[str, ...]:
    """What makes a world unbuildable (building one copies a database)."""
    try:
        build_world(world).close()
    except InvalidWorldError as e:
        return tuple(e.problems or [f"world: {e.detail}"])
    return ()


_WORLDS_REMEMBERED = 1024
"""How many worlds' problems a SUT remembers for ``check_case`` (many cases of a file
share their world)."""


class SupportPilotSUT:
    """Runs SupportPilot on a case; never raises.

    Brains are rule brains unless configured otherwise. Every keyword argument falls back
    to an environment variable (see :data:`agent.settings.ENV_VARS`: ``SUPPORTPILOT_BRAIN``,
    ``SUPPORTPILOT_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` …); values may be
    strings, as the evals CLI's ``--sut-option KEY=VALUE`` passes them. A bad
    configuration raises :class:`~agent.errors.BrainConfigError` here, before any run.
    """

    case_rules = CASE_RULES
    """SupportPilot's vocabulary (splits, decisions, input, required tags, fault targets,
    its lint rules): the evals hold every case to it before any run."""

    config_env: tuple[str, ...] = (*ENV_VARS.values(), DB_DIR_ENV)
    """Every environment variable the constructor reads: each setting's fallback
    (:data:`agent.settings.ENV_VARS`) and the world database folder. A configuration case
    (:mod:`evals.cases.configuration`) is built with these removed and its ``sut_env`` set, so
    what a developer exported never changes its verdict."""

    def __init__(
        self,
        db_dir: str | Path | None = None,
        *,
        brain: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | str | None = None,
        seed: int | str | None = None,
        timeout_s: float | str | None = None,
        max_retries: int | str | None = None,
        max_steps: int | str | None = None,
        contract_timeout_s: float | str | None = None,
        screen: bool | str = True,
        model_server: str | None = None,
        **unknown: str,
    ) -> None:
        env_dir = os.environ.get(DB_DIR_ENV) or None
        self.db_dir: str | Path | None = db_dir if db_dir is not None else env_dir
        """Where world files go (``None``: in memory)."""
        given: dict[str, object] = {
            "brain": brain,
            "model": model,
            "base_url": base_url,
            "api_key": api_key,
            "temperature": temperature,
            "seed": seed,
            "timeout_s": timeout_s,
            "max_retries": max_retries,
            "max_steps": max_steps,
            "contract_timeout_s": contract_timeout_s,
            # An option nobody knows (a typo): refused by name, in the settings' words.
            **unknown,
        }
        self.model_server: str | None = parse_model_server(model_server)
        """``scripted``: every run starts the scripted model on 127.0.0.1 (its own server,
        stopped when the run ends) and the model brains talk to it; ``None``: none."""
        env: dict[str, str] = dict(os.environ)
        self._world_problems: dict[str, tuple[str, ...]] = {}
        self._gateway_statuses: dict[tuple[str | None, ...], dict[str, str]] = {}
        """What the twin gateway of each (outbox fault, bypass fault, customer) answered:
        nothing else of a case goes into the gateway the run is given."""
        """check_case's answers for the worlds seen, by their canonical JSON."""
        self.unread: list[str] = []
        """Shared variables set in the environment but not read (the scripted server
        replaces them)."""
        self.served: set[str] = set()
        """Settings the scripted server supplies (its endpoint, key and model)."""
        if self.model_server == SCRIPTED:
            given, env, self.unread, self.served = _scripted(given, env)
        self.resolved: ResolvedSettings = resolve(given, env)
        """The settings and where each came from."""
        self.settings: BrainSettings = self.resolved.settings
        """The brain configuration every run uses."""
        self.secrets: Secrets = Secrets.of(self.settings.api_key, os.environ, self.config_env)
        """The API key and every secret variable set: no run record may show them."""
        self.screen: bool = parse_screen(screen)
        """Whether the instruction screen is on. ``screen=off`` is the deliberately
        vulnerable setting (the injection suites' positive control): claims carrying
        instructions are kept and an obedient path honours them (:mod:`agent.obedient`)."""

    def describe(self) -> list[str]:
        """What runs, each setting with where it came from (the report's header prints
        it): the brain, model and endpoint first; the API key never."""
        by = f"model_server={SCRIPTED}"
        shown = {
            "base_url": "the scripted model on 127.0.0.1, one server per run",
            "api_key": "***",
            "model": SCRIPTED_MODEL,
        }
        overrides = {name: (shown[name], by) for name in sorted(self.served)}
        lines = describe(self.resolved, overrides)
        screen = "on" if self.screen else "off"
        lines.append(f"screen={screen}, model_server={self.model_server or '-'}")
        if self.unread:
            lines.append(f"unread (model_server={SCRIPTED}): {', '.join(self.unread)}")
        return lines

    def brains(
        self, client: openai.AsyncOpenAI | None = None, meter: TokenMeter | None = None
    ) -> dict[str, Brain]:
        """The brain of every specialist: rule brains, or model brains on ``client``
        counting tokens into ``meter``."""
        if self.settings.brain == "rule":
            return rule_brains()
        if client is None:
            raise BrainConfigError("model brains need a client")
        return openai_brains(client, self.settings, meter or TokenMeter())

    def check_case(self, case: Case) -> list[str]:
        """What would make every run of ``case`` fail before the agent starts: one line
        per problem (``world.stok: unknown key 'stok' (known: …)``, ``faults.ordr_agent:
        unknown role …``); empty when the case can run.

        The evals call this before any run (see :mod:`evals.cases.validation`). It builds the
        case's world in memory (cheap: worlds are copied from cached templates) and
        checks each fault's target (a role, or ``outbox``) and kind and the authenticated
        customer, if any.
        """
        key = json.dumps(case.world, sort_keys=True)
        remembered = self._world_problems.get(key)
        if remembered is None:
            if len(self._world_problems) >= _WORLDS_REMEMBERED:
                self._world_problems.clear()
            remembered = self._world_problems[key] = _world_problems(case.world)
        problems: list[str] = list(remembered)
        try:
            authenticated_customer(case)
        except InvalidCustomerError as e:
            problems.append(str(e))
        problems += _tool_error_problems(case.world)
        for role, fault in case.faults.items():
            if role == OUTBOX:
                try:
                    parse_outbox_fault(fault)
                except UnknownFaultError as e:
                    problems.append(f"faults.{role}: {e}")
                continue
            if role == MODEL_TARGET:
                problems += self._model_fault_problems(fault)
                continue
            if role == BYPASS:
                try:
                    parse_bypass_fault(fault)
                except UnknownFaultError as e:
                    problems.append(f"faults.{role}: {e}")
                continue
            if role == SCREEN_TARGET:
                if fault != SCREEN_OFF:
                    problems.append(
                        f"faults.{role}: unknown fault {fault!r}: expected {SCREEN_OFF}"
                        " (the instruction screen turned off for this case)"
                    )
                continue
            if role not in ROLES:
                targets = f"{OUTBOX}; {SCREEN_TARGET}; {BYPASS}; or {MODEL_TARGET}"
                known = f"{', '.join(ROLES)}; {targets}"
                problems.append(f"faults.{role}: unknown role {role!r} (known: {known})")
                continue
            try:
                parse_fault(fault)
            except UnknownFaultError as e:
                problems.append(f"faults.{role}: {e}")
        return problems

    def _probed(self, case: Case, trace_id: str, customer: str | None) -> dict[str, str]:
        """The statuses :func:`probe_gateway` records for a twin of ``case``'s gateway,
        remembered per gateway configuration (the probes take milliseconds; a suite has
        a few dozen configurations and hundreds of runs)."""
        key = (case.faults.get(OUTBOX), case.faults.get(BYPASS), customer)
        statuses = self._gateway_statuses.get(key)
        if statuses is None:
            if len(self._gateway_statuses) >= _WORLDS_REMEMBERED:
                self._gateway_statuses.clear()
            statuses = self._gateway_statuses[key] = probe_gateway(
                lambda scratch: run_gateway(scratch, trace_id, case), customer
            )
        return dict(statuses)

    def _model_fault_problems(self, fault: str) -> list[str]:
        """Why ``faults.model`` cannot apply: an unknown kind, or no scripted model to
        misbehave (a fault that is not applied would let the case pass for nothing)."""
        try:
            parse_model_fault(fault)
        except UnknownFaultError as e:
            return [f"faults.{MODEL_TARGET}: {e}"]
        if self.model_server != SCRIPTED:
            return [
                f"faults.{MODEL_TARGET}: a model fault needs the scripted model"
                f" (--sut-option brain=openai --sut-option model_server={SCRIPTED})"
            ]
        return []

    def run(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case`` (blocking)."""
        return asyncio.run(self.arun(case, trial))

    async def arun(self, case: Case, trial: int) -> Run:
        """Run trial ``trial`` of ``case``.

        A provider failure (after the client's retries) becomes an ``error`` run, excluded
        from success rates; any other crash a ``sut_error`` run, a failure. With the
        scripted model, the run has its own server, and its record holds the server's
        side of the account (``detail.model_server``).
        """
        opened: list[Store] = []
        if self.model_server != SCRIPTED:
            run = await self._arun(case, trial, self.settings, opened)
            return self._secrets_shown(_released(run, opened))
        fault_text = case.faults.get(MODEL_TARGET)
        fault: ModelFault | None = None if fault_text is None else parse_model_fault(fault_text)
        server = ScriptedServer(fault).start()
        try:
            settings = self.settings.model_copy(update={"base_url": server.base_url})
            run = _released(await self._arun(case, trial, settings, opened), opened)
        finally:
            # Stopping waits for the serving thread: never on the event loop.
            await asyncio.to_thread(server.stop)
        ledger = {"model_server": server.ledger()}
        return self._secrets_shown(run.model_copy(update={"detail": {**run.detail, **ledger}}))

    def _secrets_shown(self, run: Run) -> Run:
        """``run`` with where its record shows a secret of this SUT's written down
        (``detail.secrets_shown``, the places only), for the ``no_secret_recorded`` check."""
        shown = self.secrets.shown_in(run.model_dump(mode="json"))
        return run.model_copy(update={"detail": {**run.detail, SECRETS_SHOWN: shown}})

    async def _arun(
        self, case: Case, trial: int, settings: BrainSettings, opened: list[Store]
    ) -> Run:
        started = time.perf_counter()
        store: Store | None = None
        bus: Bus | None = None
        meter = TokenMeter()
        # One client per run: an async client is bound to the event loop that uses it.
        client = make_client(settings) if settings.brain == "openai" else None
        detail: dict[str, object] = {"brain": settings.public()}
        try:
            if client is not None:
                # The settings the report states are the ones that run: a client that
                # would reach another endpoint, or time out or retry otherwise, is the
                # agent's own failure, before any request leaves.
                mismatch = client_mismatches(client, settings)
                if mismatch:
                    raise ClientSettingsError("; ".join(mismatch))
            world = parse_world(case.world)
            store = build_world(world, self.db_dir)
            opened.append(store)  # released once the run is over (resources_released)
            stock_before = stock_levels(store)
            # The integrity the database enforces, for the schema_as_specified invariant.
            detail[SCHEMA] = describe_database(store.db.conn)
            detail["db_path"] = str(store.path) if store.path else None
            trace_id = f"{case.id}-{trial}"
            approver = _approver(world)
            customer = authenticated_customer(case)
            # What a twin of the run's gateway enforces, on a scratch world, for the
            # gateway_as_specified invariant.
            detail[GATEWAY] = self._probed(case, trace_id, customer)
            gateway = run_gateway(store, trace_id, case)
            bypass = case.faults.get(BYPASS)
            # The outbox fault's own gateway, under the bypass layer when there is one.
            outbox = gateway.inner if isinstance(gateway, StaleStockGateway) else gateway
            # What every read answered, as the agent gets it (read_results_as_promised).
            recorder = ReadRecorder(gateway)
            detail[READ_RESULTS] = recorder.results
            gateway = recorder
            brains = self.brains(client, meter)
            contracts = default_contracts(timeout_s=settings.attempt_timeout_s)
            if MODEL_TARGET in case.faults and self.model_server != SCRIPTED:
                # A fault nobody applies would let the case pass for nothing.
                raise BrainConfigError(
                    f"faults.{MODEL_TARGET} needs the scripted model (model_server={SCRIPTED})"
                )
            faulted: dict[str, object] = {}
            detail[FAULTED] = faulted
            for role, fault in case.faults.items():
                if role in (OUTBOX, MODEL_TARGET, SCREEN_TARGET, BYPASS):
                    continue
                if role not in brains:
                    raise UnknownRoleError(role)
                # Both sides of the fault written down, for the faults_as_stated invariant.
                answers: list[dict[str, object]] = []
                faulted[role] = {"fault": fault, "answers": answers}
                natural = Observed(brains[role], answers, "natural")
                brains[role] = Observed(
                    apply_fault(natural, fault, role, case.id, trial), answers, "given"
                )
                contracts[role] = fault_contract(contracts[role], fault)
            # The case's own screen fault turns the screen off for this run only.
            screen = self.screen and case.faults.get(SCREEN_TARGET) != SCREEN_OFF
            detail["screen"] = "on" if screen else "off"  # the budget of an obedient run
            workers: dict[str, Worker] = {
                role: Worker(brains[role], contracts[role], gateway, screen_instructions=screen)
                for role in ROLES
            }
            bus = Bus(trace_id, workers)
            gate_class = ApprovedAnywayGate if bypass == APPROVAL else ApprovalGate
            gate = gate_class(store, approver, auto_approve_below=world.auto_approve_below)
            orchestrator = Orchestrator(workers, gateway, gate, bus, obedient=not screen)
            given = support_input(case)
            outcome = await orchestrator.handle(given.order_id, given.goal)
            run = build_run(
                case_id=case.id,
                order_id=given.order_id,
                trial=trial,
                outcome=outcome,
                log=bus.log,
                store=store,
                approver_answers=approver.answers if approver else [],
                latency_ms=(time.perf_counter() - started) * 1000,
                detail=detail,
                stock_before=stock_before,
            )
            calls = {"model_calls": meter.calls}  # completions the brains received
            truth = dict(run.ground_truth)
            if isinstance(outbox, StaleLookupGateway):
                # The fault's own account: a stale lookup that hid nothing tested nothing.
                truth[HIDDEN_WRITES] = str(len(outbox.hidden))
            if isinstance(outbox, LostAckGateway):
                # Likewise the calls it lost (stale_lookup loses acknowledgements too).
                truth[LOST_CALLS] = str(len(outbox.lost))
            return run.model_copy(
                update={
                    "usage": _usage(meter),
                    "detail": {**run.detail, **calls},
                    "ground_truth": truth,
                }
            )
        except ProviderError as e:
            # The provider failed, not the agent: recorded apart, never graded.
            if bus is not None:
                detail["bus"] = [m.model_dump(mode="json") for m in bus.log]
            return Run(
                case_id=case.id,
                trial=trial,
                outcome="error",
                error=str(e),
                # What landed and what ran, from the environment: an outage that wrote
                # anything is no clean outage.
                writes=writes_from(store) if store is not None else [],
                steps=steps_from(bus.log) if bus is not None else [],
                usage=_usage(meter),
                latency_ms=(time.perf_counter() - started) * 1000,
                detail={
                    **detail,
                    "provider_failure": e.kind,
                    "role": e.role,
                    "model_calls": meter.calls,
                },
            )
        # The harness must never crash because the system under test did.
        except Exception as e:
            return Run(
                case_id=case.id,
                trial=trial,
                outcome="sut_error",
                error=_one_line(f"{type(e).__name__}: {e}"),
                usage=_usage(meter),
                latency_ms=(time.perf_counter() - started) * 1000,
            )
        finally:
            if store is not None:
                store.close()
            if client is not None:
                await client.close()


UNRELEASED = "unreleased"
"""The run record's ``detail`` key of the world databases the run left open."""


def _still_open(store: Store) -> bool:
    """Whether the store's connection still answers (a closed one raises)."""
    try:
        store.db.conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return False
    return True


def _released(run: Run, opened: list[Store]) -> Run:
    """``run`` with the world databases of the run still open once it is over written
    down (``detail.unreleased``: each one's file, or ``:memory:``), for the
    ``resources_released`` check; each is closed here so nothing leaks past the record."""
    left = [store for store in opened if _still_open(store)]
    for store in left:
        store.db.conn.close()
    where = [str(store.path) if store.path else ":memory:" for store in left]
    return run.model_copy(update={"detail": {**run.detail, UNRELEASED: where}})


class ClientSettingsError(Exception):
    """The model client a run built does not hold the settings it was built from."""


def client_mismatches(client: openai.AsyncOpenAI, settings: BrainSettings) -> list[str]:
    """How ``client`` differs from ``settings``: its endpoint (when one is set: else the
    client's own default applies), API key, request timeout and retries. Empty: the
    client is the one the report describes."""
    problems: list[str] = []
    if settings.base_url is not None:
        wanted = settings.base_url.rstrip("/")
        reached = str(client.base_url).rstrip("/")
        if reached != wanted:
            problems.append(f"the client would reach {reached!r}, not base_url {wanted!r}")
    if settings.api_key is not None and client.api_key != settings.api_key:
        problems.append("the client holds another API key than api_key")
    if client.timeout != settings.timeout_s:
        problems.append(f"the client times out after {client.timeout!r}, not {settings.timeout_s}")
    if client.max_retries != settings.max_retries:
        problems.append(
            f"the client retries {client.max_retries} times, not {settings.max_retries}"
        )
    return problems


def _approver(world: World) -> RecordingApprover | None:
    """The world's approver: none when ``missing``, one that never answers when
    ``silent``, one that raises when ``broken``, else one answering ``world.approve``."""
    if world.approver == "missing":
        return None
    if world.approver == "broken":
        return RecordingApprover(None, broken=True)
    return RecordingApprover(None if world.approver == "silent" else world.approve)


SCRIPTED = "scripted"
"""The one model server the SUT can start itself (``model_server=scripted``)."""


def parse_model_server(value: str | None) -> str | None:
    """The ``model_server`` option: ``scripted``, or ``None`` (none given); anything else
    raises :class:`~agent.errors.BrainConfigError`."""
    if value is None or not value.strip():
        return None
    if value.strip() != SCRIPTED:
        raise BrainConfigError(f"model_server must be {SCRIPTED!r}, got {value!r}")
    return SCRIPTED


def _scripted(
    given: dict[str, object], env: dict[str, str]
) -> tuple[dict[str, object], dict[str, str], list[str], set[str]]:
    """The settings for the scripted model: its endpoint and key (never given: they would
    not be applied), its model unless one is named (it must be the scripted one), model
    brains required. The shared ``OPENAI_*`` variables are left unread."""
    by = f"model_server={SCRIPTED}"
    for name in ("base_url", "api_key"):
        if given.get(name) not in (None, ""):
            raise BrainConfigError(
                f"{name} is given but {by} serves its own: it would not be applied"
            )
    if _chosen("brain", given, env) != "openai":
        raise BrainConfigError(f"{by} serves model brains: it needs brain=openai")
    model = _chosen("model", given, env)
    if model is not None and model != SCRIPTED_MODEL:
        raise BrainConfigError(
            f"model {model!r} is not the scripted model {SCRIPTED_MODEL!r} ({by} serves only it)"
        )
    unread = sorted(v for v in SHARED_ENV_VARS if env.get(v, "").strip())
    kept = {k: v for k, v in env.items() if k not in SHARED_ENV_VARS}
    # The endpoint is each run's own server (set per run); this one is a placeholder.
    ours = {"base_url": "http://127.0.0.1/v1", "api_key": SCRIPTED_KEY}
    if model is None:
        ours["model"] = SCRIPTED_MODEL
    return {**given, **ours}, kept, unread, set(ours)


def _chosen(name: str, given: dict[str, object], env: dict[str, str]) -> str | None:
    """Setting ``name`` as given, else as set in its variable, stripped (blank: not
    given), as :func:`agent.settings.resolve` reads it."""
    for value in (given.get(name), env.get(ENV_VARS[name])):
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


SCREEN_VALUES: dict[str, bool] = {"on": True, "off": False, "true": True, "false": False}
"""What the ``screen`` option accepts (as ``--sut-option screen=VALUE`` passes it)."""


def parse_screen(value: bool | str) -> bool:
    """The ``screen`` option as a flag (blank: not given, on); anything but
    on/off/true/false raises :class:`~agent.errors.BrainConfigError`."""
    if isinstance(value, bool):
        return value
    if not value.strip():
        return True
    flag = SCREEN_VALUES.get(value.strip().lower())
    if flag is None:
        raise BrainConfigError(f"screen must be 'on' or 'off', got {value!r}")
    return flag


def _tool_error_problems(world: object) -> list[str]:
    """``world.tool_errors`` may name read tools only (one line per unknown name)."""
    named = world.get("tool_errors") if isinstance(world, dict) else None
    if not isinstance(named, dict):
        return []
    known = ", ".join(tool.name for tool in READ_TOOLS)
    return [
        f"world.tool_errors.{name}: unknown read tool {name!r} (known: {known})"
        for name in named
        if name not in {tool.name for tool in READ_TOOLS}
    ]


def run_gateway(store: Store, trace_id: str, case: Case) -> ToolGateway:
    """The gateway a run of ``case`` is given over ``store``: plain or losing calls as
    its outbox fault says, checked against its authenticated customer, and reading stale
    stock under ``bypass: stock`` (a layer in front of the store taken away: the store's
    own refusals must hold)."""
    gateway = outbox_gateway(
        store, trace_id, case.faults.get(OUTBOX), customer=authenticated_customer(case)
    )
    if case.faults.get(BYPASS) == STOCK:
        gateway = StaleStockGateway(gateway)
    return gateway


def probe_gateway(build: Callable[[Store], ToolGateway], customer: str | None) -> dict[str, str]:
    """Probe id -> the status each call of :func:`agent_evals.gateway_spec.gateway_probes`
    got from a gateway ``build`` makes over a scratch world (a fresh one per call, so no
    fault's count is spent by another probe): the audited status of a refused call, ``ok``
    for an answer, ``crash: <exception>`` for anything else. The run's world is never
    touched."""
    scratch = build_world(scratch_world(customer))
    statuses: dict[str, str] = {}
    try:
        for probe in gateway_probes(customer):
            try:
                build(scratch).call(probe.role, probe.tool, dict(probe.args))
            except ToolError as e:
                statuses[probe.id] = e.status
            except Exception as e:  # the gateway's own crash is a finding, not the harness's
                statuses[probe.id] = f"crash: {type(e).__name__}"
            else:
                statuses[probe.id] = "ok"
    finally:
        scratch.close()
    return statuses


def _one_line(text: str) -> str:
    """``text`` on one line, without pydantic's documentation URLs: a sut_error reason
    is read in a table, where only the field and the mistake help."""
    lines = (line.strip() for line in _PYDANTIC_URL.sub("", text).splitlines())
    return "; ".join(line for line in lines if line)


def _usage(meter: TokenMeter) -> Usage:
    return Usage(prompt_tokens=meter.prompt_tokens, completion_tokens=meter.completion_tokens)
