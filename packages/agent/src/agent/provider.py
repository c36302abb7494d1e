"""Telling a provider failure from a bug: which ``openai`` exceptions mean "the model
provider could not answer" (after the client's own retries) rather than "the agent
sent something wrong"."""

from __future__ import annotations

import openai

from agent.errors import ProviderError

RETRIED_STATUSES = frozenset({408, 409, 429})
"""Statuses below 500 the openai client retries; still failing after retries, the
provider is unavailable."""
SETUP_STATUSES = {401: "auth", 403: "auth", 404: "not_found"}
"""Statuses that mean the provider is not set up for us (key, permission, model name):
no answer from the agent could change them."""


def provider_failure(error: BaseException) -> str | None:
    """A short kind (``timeout``, ``connection``, ``rate_limit``, ``server_error``,
    ``auth``, ``not_found``) when ``error`` is the provider's failure, else ``None``
    (e.g. a 400 for a malformed request: that is the agent's own fault)."""
    if isinstance(error, openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status == 429:
            return "rate_limit"
        if status >= 500 or status in RETRIED_STATUSES:
            return "server_error"
        return SETUP_STATUSES.get(status)
    return None


def as_provider_error(role: str, error: BaseException) -> ProviderError | None:
    """``error`` as a :class:`ProviderError` of ``role``, or ``None`` when it is not a
    provider failure."""
    kind = provider_failure(error)
    return None if kind is None else ProviderError(role, kind, error)
