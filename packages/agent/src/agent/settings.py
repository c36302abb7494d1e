"""Which brains SupportPilot runs with, and how it reaches the model.

Every setting comes from a keyword argument of :class:`agent_evals.sut.SupportPilotSUT` (the
evals CLI passes ``--sut-option KEY=VALUE`` as strings), else from the environment,
else from the default below. ``brain="rule"`` (the default) needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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


class BrainSettings(BaseModel):
    """The brain configuration of a SUT (validated; strings are coerced)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    brain: BrainKind = "rule"
    """Which brains the specialists use."""
    model: str | None = None
    """The model name (required for ``openai``)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint (``None``: the client's default)."""
    api_key: str | None = Field(default=None, repr=False)
    """The API key (required for ``openai``; never written to traces or reports)."""
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    """Sampling temperature passed through (``None``: the provider's default)."""
    seed: int | None = None
    """Sampling seed passed through (``None``: none sent)."""
    timeout_s: float = Field(default=30.0, gt=0)
    """Timeout of one HTTP request to the provider, in seconds."""
    max_retries: int = Field(default=2, ge=0)
    """How often the client retries a failed request (connection, timeout, 429, 5xx)."""
    max_steps: int = Field(default=6, ge=1)
    """Model calls one specialist attempt may make (tool rounds and the repair round)."""
    contract_timeout_s: float | None = Field(default=None, gt=0)
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


def resolve_settings(
    given: Mapping[str, object], env: Mapping[str, str] | None = None
) -> BrainSettings:
    """Settings from ``given`` (``None`` or ``""``: not given), else ``env``, else defaults.

    Raises :class:`~agent.errors.BrainConfigError` (one line) when a value is invalid, or
    when the ``openai`` brain lacks a model or an API key.
    """
    env = {} if env is None else env
    unknown = sorted(set(given) - set(ENV_VARS))
    if unknown:
        raise BrainConfigError(f"unknown setting(s) {', '.join(map(repr, unknown))}")
    values: dict[str, object] = {}
    for name, variable in ENV_VARS.items():
        value = given.get(name)
        if value is None or value == "":
            value = env.get(variable) or None
        if value is not None:
            values[name] = value.strip() if isinstance(value, str) else value
    try:
        settings = BrainSettings.model_validate(values)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        shown = "<hidden>" if where == "api_key" else repr(first.get("input"))
        raise BrainConfigError(f"{where}: {first['msg']} (got {shown})") from None
    if settings.brain == "openai":
        if not settings.model:
            raise BrainConfigError(
                f"brain 'openai' needs a model: pass model=NAME or set {ENV_VARS['model']}"
            )
        if not settings.api_key:
            raise BrainConfigError(f"brain 'openai' needs an API key: set {ENV_VARS['api_key']}")
    return settings
