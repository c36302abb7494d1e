"""The fake server through the real openai client (skipped where openai is absent)."""

import json

import pytest
from fake_openai import FakeOpenAI, Hang, HttpError, Malformed, ToolCall, ToolCalls

openai = pytest.importorskip("openai")

MESSAGES = [{"role": "user", "content": "帮我补发"}]


def client(fake: FakeOpenAI, **options: object) -> "openai.OpenAI":
    return openai.OpenAI(base_url=fake.base_url, api_key="test-key", **options)


def test_content_and_usage_reach_the_client(fake: FakeOpenAI) -> None:
    fake.script("已为您登记补发")
    result = client(fake).chat.completions.create(model="m", messages=MESSAGES)
    assert result.choices[0].message.content == "已为您登记补发"
    assert result.usage is not None
    assert result.usage.total_tokens == result.usage.prompt_tokens + result.usage.completion_tokens
    assert fake.requests[0].headers["authorization"] == "Bearer test-key"
    assert fake.requests[0].json["messages"] == MESSAGES


def test_tool_calls_reach_the_client(fake: FakeOpenAI) -> None:
    fake.script(ToolCalls(ToolCall("get_order", {"order_id": "SP1001"})))
    message = client(fake).chat.completions.create(model="m", messages=MESSAGES).choices[0].message
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.function.name == "get_order"
    assert json.loads(call.function.arguments) == {"order_id": "SP1001"}


@pytest.mark.parametrize(
    "error", [HttpError(429, retry_after=0.01), HttpError(500, retry_after=0.01)]
)
def test_the_client_retries_errors(fake: FakeOpenAI, error: HttpError) -> None:
    fake.script(error, "好了")
    result = client(fake, max_retries=2).chat.completions.create(model="m", messages=MESSAGES)
    assert result.choices[0].message.content == "好了"
    assert fake.request_count == 2


def test_errors_surface_when_retries_run_out(fake: FakeOpenAI) -> None:
    fake.script(HttpError(429, retry_after=0.01), HttpError(429, retry_after=0.01))
    with pytest.raises(openai.RateLimitError):
        client(fake, max_retries=1).chat.completions.create(model="m", messages=MESSAGES)
    assert fake.request_count == 2


def test_a_malformed_body_is_an_error_for_the_client(fake: FakeOpenAI) -> None:
    fake.script(Malformed())
    with pytest.raises((openai.APIError, ValueError)):
        client(fake, max_retries=0).chat.completions.create(model="m", messages=MESSAGES)


def test_a_hang_times_the_client_out(fake: FakeOpenAI) -> None:
    fake.script(Hang(seconds=60))
    with pytest.raises(openai.APITimeoutError):
        client(fake, max_retries=0, timeout=0.2).chat.completions.create(
            model="m", messages=MESSAGES
        )


def test_models_are_listed_for_the_client() -> None:
    with FakeOpenAI(models=("fake-a",)) as fake:
        assert [m.id for m in client(fake).models.list()] == ["fake-a"]
