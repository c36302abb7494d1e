"""Brain settings: keyword arguments, environment fallbacks, validation; the provider
failure classification; parsing a model's final answer."""

from __future__ import annotations

from typing import Any

import openai
import openai._exceptions
import pytest
from agent.errors import BrainConfigError
from agent.openai_brain import parse_output
from agent.provider import provider_failure
from agent.settings import ENV_VARS, OPENAI_CONTRACT_TIMEOUT_S, resolve_settings
from agent_evals.sut import SupportPilotSUT
from evals.model.sut import load_sut

OPENAI_ENV = {"SUPPORTPILOT_BRAIN": "openai", "SUPPORTPILOT_MODEL": "m", "OPENAI_API_KEY": "k"}


@pytest.mark.parametrize(
    ("given", "env", "expected"),
    [
        ({}, {}, {"brain": "rule", "model": None, "timeout_s": 30.0, "max_retries": 2}),
        ({}, OPENAI_ENV, {"brain": "openai", "model": "m", "api_key": "k"}),
        ({"model": "n"}, OPENAI_ENV, {"model": "n"}),  # an argument beats the environment
        ({"model": ""}, OPENAI_ENV, {"model": "m"}),  # an empty string is "not given"
        (
            {"temperature": "0.3", "seed": "42", "timeout_s": "9.5", "max_retries": "0"},
            OPENAI_ENV,
            {"temperature": 0.3, "seed": 42, "timeout_s": 9.5, "max_retries": 0},
        ),
        (
            {},
            {
                **OPENAI_ENV,
                "SUPPORTPILOT_TEMPERATURE": "0",
                "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
            },
            {"temperature": 0.0, "base_url": "http://127.0.0.1:9/v1"},
        ),
        # Rule brains leave the variables every OpenAI client reads unread.
        ({}, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "u"}, {"api_key": None, "base_url": None}),
    ],
)
def test_settings_come_from_arguments_then_environment_then_defaults(
    given: dict[str, Any], env: dict[str, str], expected: dict[str, Any]
) -> None:
    settings = resolve_settings(given, env)
    assert {k: getattr(settings, k) for k in expected} == expected


@pytest.mark.parametrize(
    ("given", "env", "fragment"),
    [
        ({"brain": "gpt"}, {}, "brain: Input should be 'rule' or 'openai' (got 'gpt')"),
        ({"temperature": "3"}, {}, "temperature: Input should be less than or equal to 2"),
        ({"max_retries": "-1"}, {}, "max_retries: Input should be greater than or equal to 0"),
        ({"brain": "openai"}, {"OPENAI_API_KEY": "k"}, "needs a model"),
        ({"brain": "openai", "model": "m"}, {}, "needs an API key: set OPENAI_API_KEY"),
        ({"colour": "blue"}, {}, "unknown setting(s) 'colour'"),
    ],
)
def test_bad_settings_are_one_line_config_errors(
    given: dict[str, Any], env: dict[str, str], fragment: str
) -> None:
    with pytest.raises(BrainConfigError) as info:
        resolve_settings(given, env)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_a_bad_api_key_value_is_never_echoed() -> None:
    with pytest.raises(BrainConfigError) as info:
        resolve_settings({"api_key": 12345}, {})
    assert "12345" not in str(info.value)


@pytest.mark.parametrize(
    ("given", "timeout_s"),
    [
        ({}, 0.5),
        ({"brain": "openai", "model": "m", "api_key": "k"}, OPENAI_CONTRACT_TIMEOUT_S),
        ({"brain": "openai", "model": "m", "api_key": "k", "contract_timeout_s": "45"}, 45.0),
    ],
)
def test_contract_timeouts_are_milliseconds_for_rules_and_seconds_for_models(
    given: dict[str, Any], timeout_s: float
) -> None:
    assert resolve_settings(given, {}).attempt_timeout_s == timeout_s


def test_the_sut_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value in OPENAI_ENV.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv(ENV_VARS["seed"], "3")
    settings = SupportPilotSUT().settings
    assert (settings.brain, settings.model, settings.seed) == ("openai", "m", 3)
    assert "k" not in repr(settings)


def test_evals_passes_sut_options_as_keyword_arguments() -> None:
    options = {"brain": "openai", "model": "m", "api_key": "k", "seed": "5"}
    sut = load_sut("agent_evals.sut:SupportPilotSUT", options)
    assert isinstance(sut, SupportPilotSUT)
    assert (sut.settings.brain, sut.settings.model, sut.settings.seed) == ("openai", "m", 5)


# The HTTP library the installed openai client is built on (httpx, or its successor).
HTTP: Any = getattr(openai._exceptions, "httpx2", None) or openai._exceptions.httpx  # type: ignore[attr-defined]
REQUEST = HTTP.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _status(code: int) -> openai.APIStatusError:
    response = HTTP.Response(code, request=REQUEST)
    kinds: dict[int, type[openai.APIStatusError]] = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        404: openai.NotFoundError,
        422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
        500: openai.InternalServerError,
        503: openai.InternalServerError,
    }
    return kinds[code]("boom", response=response, body=None)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (openai.APITimeoutError(REQUEST), "timeout"),
        (openai.APIConnectionError(request=REQUEST), "connection"),
        (_status(429), "rate_limit"),
        (_status(500), "server_error"),
        (_status(503), "server_error"),
        (_status(401), "auth"),
        (_status(404), "not_found"),
        (_status(400), None),  # the agent's own malformed request
        (_status(422), None),
        (ValueError("not a provider error"), None),
    ],
)
def test_provider_failures_are_told_from_the_agents_own_errors(
    error: BaseException, kind: str | None
) -> None:
    assert provider_failure(error) == kind


@pytest.mark.parametrize(
    ("text", "topics"),
    [
        ('{"claims": [{"topic": "a", "value": "1"}]}', ["a"]),
        ('```json\n{"claims": [{"topic": "a", "value": null}]}\n```', ["a"]),
        ('  {"claims": []}  ', []),
    ],
)
def test_final_answers_parse_into_the_claim_schema(text: str, topics: list[str]) -> None:
    assert [c["topic"] for c in parse_output(text)["claims"]] == topics


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("门槛是 72 小时", "not JSON"),
        ('{"claims": [{"topic": "a"}]}', "not in the claim schema (claims.0.value"),
        ('{"answer": 72}', "not in the claim schema"),
    ],
)
def test_unusable_answers_say_why(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        parse_output(text)
    assert fragment in str(info.value)
