"""Which brains SupportPilot runs with, and how it reaches the model.

Every setting comes from a keyword argument of :class:`agent_evals.sut.SupportPilotSUT` (the
evals CLI passes ``--sut-option KEY=VALUE`` as strings), else from the environment,
else from the default below. ``brain="rule"`` (the default) needs nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from agent.contracts import DEFAULT_TIMEOUT_S
from agent.errors import BrainConfigError

BrainKind = Literal["rule", "openai"]
"""``rule``: deterministic, offline; ``openai``: a model behind the OpenAI API."""

OPENAI_CONTRACT_TIMEOUT_S = 120.0
"""Wall-time limit of one specialist attempt with a model brain: several model calls,
each possibly retried by the client, fit in it."""

ENV_VARS: dict[str, str] = {
    "brain": "SUPPORTPILOT_BRAIN",
    "model": "SUPPORTPILOT_MODEL",
    "base_url": "OPENAI_BASE_URL",
    "api_key": "OPENAI_API_KEY",
    "temperature": "SUPPORTPILOT_TEMPERATURE",
    "seed": "SUPPORTPILOT_SEED",
    "timeout_s": "SUPPORTPILOT_TIMEOUT_S",
    "max_retries": "SUPPORTPILOT_MAX_RETRIES",
    "max_steps": "SUPPORTPILOT_MAX_STEPS",
    "contract_timeout_s": "SUPPORTPILOT_CONTRACT_TIMEOUT_S",
}
"""Setting -> the environment variable it falls back to."""

API_KEY_TEXT = re.compile(r"[!-~]+")
"""What an API key may be: printable ASCII with no space, tab or line break (it travels
in an HTTP header; a pasted key with a line break or a non-ASCII character would only
fail at the first request, as a connection error or a crash, never as a refusal)."""


def _api_key_text(value: str) -> str:
    if not API_KEY_TEXT.fullmatch(value):
        raise PydanticCustomError("api_key_text", "Input should be printable ASCII with no spaces")
    return value


ApiKey = Annotated[str, AfterValidator(_api_key_text)]
"""An API key (:data:`API_KEY_TEXT`); a refusal never shows it."""


class BrainSettings(BaseModel):
    """The brain configuration of a SUT (validated; strings are coerced)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    brain: BrainKind = "rule"
    """Which brains the specialists use."""
    model: str | None = None
    """The model name (required for ``openai``)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint (``None``: the client's default)."""
    api_key: ApiKey | None = Field(default=None, repr=False)
    """The API key (required for ``openai``; never written to traces or reports)."""
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, allow_inf_nan=False)
    """Sampling temperature passed through (``None``: the provider's default)."""
    seed: int | None = None
    """Sampling seed passed through (``None``: none sent)."""
    timeout_s: float = Field(default=30.0, gt=0, allow_inf_nan=False)
    """Timeout of one HTTP request to the provider, in seconds."""
    max_retries: int = Field(default=2, ge=0)
    """How often the client retries a failed request (connection, timeout, 429, 5xx)."""
    max_steps: int = Field(default=6, ge=1)
    """Model calls one specialist attempt may make (tool rounds and the repair round)."""
    contract_timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """Wall-time limit of one specialist attempt (``None``: the brain kind's default)."""

    @property
    def attempt_timeout_s(self) -> float:
        """The contract timeout to use: milliseconds matter for rule brains, seconds for
        a model behind the network."""
        if self.contract_timeout_s is not None:
            return self.contract_timeout_s
        return OPENAI_CONTRACT_TIMEOUT_S if self.brain == "openai" else DEFAULT_TIMEOUT_S

    def public(self) -> dict[str, object]:
        """The settings worth recording in a trace (no API key)."""
        return self.model_dump(exclude={"api_key"})


MODEL_SETTINGS: frozenset[str] = frozenset(
    {"model", "base_url", "api_key", "temperature", "seed", "timeout_s", "max_retries", "max_steps"}
)
"""The settings only model brains use: with ``brain="rule"`` they would not be applied."""

SHARED_ENV_VARS: frozenset[str] = frozenset({"OPENAI_BASE_URL", "OPENAI_API_KEY"})
"""Variables every OpenAI client on the machine reads, not SupportPilot's own: rule brains
leave them unread (and say so) instead of refusing to start."""

OPTION = "option"
"""Where a setting given as a keyword argument (``--sut-option``) came from."""
DEFAULT = "default"
"""Where a setting nobody gave came from."""


@dataclass(frozen=True)
class ResolvedSettings:
    """Settings and where each came from: what a report says the system really ran."""

    settings: BrainSettings
    """The validated settings."""
    sources: dict[str, str]
    """Setting -> ``option``, ``env <VARIABLE>`` or ``default``."""
    unread: tuple[str, ...] = ()
    """Shared variables that were set but left unread (``OPENAI_API_KEY`` under rule
    brains)."""


def resolve_settings(
    given: Mapping[str, object], env: Mapping[str, str] | None = None
) -> BrainSettings:
    """Settings from ``given`` (``None`` or blank: not given), else ``env``, else defaults
    (:func:`resolve`, without the sources)."""
    return resolve(given, env).settings


def resolve(given: Mapping[str, object], env: Mapping[str, str] | None = None) -> ResolvedSettings:
    """Settings from ``given`` (``None`` or blank: not given), else ``env``, else defaults,
    with where each came from.

    Raises :class:`~agent.errors.BrainConfigError` (one line) when a value is invalid;
    when the ``openai`` brain lacks a model or an API key; and when a setting that was
    given would not be applied: a model setting (or a ``SUPPORTPILOT_*`` variable) under
    rule brains, or any value that did not end up in the settings as given. The system a
    report describes is the one that runs, never a silent fallback.
    """
    env = {} if env is None else env
    unknown = sorted(set(given) - set(ENV_VARS))
    if unknown:
        raise BrainConfigError(f"unknown setting(s) {', '.join(map(repr, unknown))}")
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for name, variable in ENV_VARS.items():
        value = given.get(name)
        source = OPTION
        if _blank(value):
            value, source = env.get(variable), f"env {variable}"
        if not _blank(value):
            values[name] = value.strip() if isinstance(value, str) else value
            sources[name] = source
    # The brain first (it is first in table order): rule brains leave the shared
    # variables unread before anything is validated, so a key exported for other tools
    # never stops them.
    rule = _validated({k: v for k, v in values.items() if k == "brain"}, sources).brain == "rule"
    unread: list[str] = []
    if rule:
        for name in sorted(MODEL_SETTINGS & set(sources)):
            variable = ENV_VARS[name]
            if sources[name] == f"env {variable}" and variable in SHARED_ENV_VARS:
                unread.append(variable)
                del values[name], sources[name]
    # Every value valid before anything else; a bad one names the variable it came from.
    _validated(values, sources)
    if rule:  # a model setting still given would not be applied
        for name in sorted(MODEL_SETTINGS & set(sources)):
            variable = ENV_VARS[name]
            given_as = "given" if sources[name] == OPTION else f"set in {variable}"
            brain_from = _source_words(sources.get("brain", DEFAULT))
            raise BrainConfigError(
                f"{name} is {given_as} but applies to brain=openai only, and brain is"
                f" 'rule' ({brain_from}): it would not be applied"
            )
    settings = _validated(values)
    _require_applied(settings, given, env, unread)
    if settings.brain == "openai":
        if not settings.model:
            raise BrainConfigError(
                f"brain 'openai' needs a model: pass model=NAME or set {ENV_VARS['model']}"
            )
        if not settings.api_key:
            raise BrainConfigError(f"brain 'openai' needs an API key: set {ENV_VARS['api_key']}")
    for name in BrainSettings.model_fields:
        sources.setdefault(name, DEFAULT)
    return ResolvedSettings(settings=settings, sources=sources, unread=tuple(unread))


def _require_applied(
    settings: BrainSettings, given: Mapping[str, object], env: Mapping[str, str], unread: list[str]
) -> None:
    """What was given is what runs: each value given (or set in its variable, unless left
    unread), validated alone, must be the one the settings hold. Read again from the
    inputs, apart from the resolution above, so a resolution that drops or swaps a value
    is refused here instead of running another system."""
    for name, variable in ENV_VARS.items():
        raw: object = given.get(name)
        origin = "given"
        if _blank(raw):
            raw, origin = env.get(variable), f"set in {variable}"
        if _blank(raw) or variable in unread:
            continue
        wanted = getattr(_validated({name: raw.strip() if isinstance(raw, str) else raw}), name)
        if getattr(settings, name) != wanted:
            shown = "<hidden>" if name == "api_key" else repr(getattr(settings, name))
            raise BrainConfigError(f"{name} was {origin} but {shown} would run")


def _blank(value: object) -> bool:
    """Not given: ``None``, or a string of whitespace only (``--sut-option model=``, an
    exported but empty variable)."""
    return value is None or (isinstance(value, str) and not value.strip())


def _source_words(source: str) -> str:
    return {OPTION: "an option", DEFAULT: "the default"}.get(source, f"from {source[4:]}")


def _validated(
    values: Mapping[str, object], sources: Mapping[str, str] | None = None
) -> BrainSettings:
    try:
        return BrainSettings.model_validate(dict(values))
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        shown = "<hidden>" if where == "api_key" else repr(first.get("input"))
        source = (sources or {}).get(where, OPTION)
        if source.startswith("env "):
            where += f" (set in {source[4:]})"
        raise BrainConfigError(f"{where}: {first['msg']} (got {shown})") from None


def describe(
    resolved: ResolvedSettings, overrides: Mapping[str, tuple[str, str]] = {}
) -> list[str]:
    """The settings as a report's header states them, each with its source: the brain and
    model first, then the rest; ``overrides`` (setting -> shown value, source) replace
    what the caller set itself (a model server it started). The API key is never shown."""
    settings = resolved.settings
    shown: dict[str, tuple[str, str]] = {}
    for name in BrainSettings.model_fields:
        value = getattr(settings, name)
        text = "***" if name == "api_key" and value else ("-" if value is None else str(value))
        source = resolved.sources.get(name, DEFAULT)
        if name == "contract_timeout_s":
            # What the contracts are given (the attempt timeout that runs), not only what
            # was asked for: the line states the limit every specialist attempt has.
            applied = settings.attempt_timeout_s
            if value is None:
                text, source = f"{applied:g}", f"default for brain={settings.brain}"
            else:
                text = str(applied)
        shown[name] = (text, source)
    shown.update(overrides)
    if settings.brain == "rule":
        head = ["brain", "contract_timeout_s"]
        rest: list[str] = []
    else:
        head = ["brain", "model", "base_url"]
        rest = [n for n in BrainSettings.model_fields if n not in head]
    lines = [", ".join(f"{n}={shown[n][0]} ({_words(shown[n][1])})" for n in head)]
    if rest:
        lines.append(", ".join(f"{n}={shown[n][0]} ({_words(shown[n][1])})" for n in rest))
    if resolved.unread:
        lines.append(f"unread (brain=rule): {', '.join(resolved.unread)}")
    return lines


def _words(source: str) -> str:
    return {OPTION: "option", DEFAULT: "default"}.get(source, source)
