"""A fake OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks.

Start it, script its answers, point a real ``openai`` client at ``base_url``, then
assert on what it recorded::

    from fake_openai import FakeOpenAI, HttpError, ToolCall, ToolCalls

    with FakeOpenAI() as fake:
        fake.script(HttpError(429, retry_after=0.01), "你好")
        ...  # openai.OpenAI(base_url=fake.base_url, api_key="test")
        assert fake.request_count == 2
"""

from fake_openai.errors import FakeOpenAIError, InvalidResponseSpecError, ServerNotStartedError
from fake_openai.responses import (
    Hang,
    HttpError,
    Malformed,
    Raw,
    Reply,
    ResponseSpec,
    ToolCall,
    ToolCalls,
    Usage,
)
from fake_openai.server import FakeOpenAI, Handler, RecordedRequest, ServedResponse

__all__ = [
    "FakeOpenAI",
    "FakeOpenAIError",
    "Handler",
    "Hang",
    "HttpError",
    "InvalidResponseSpecError",
    "Malformed",
    "Raw",
    "RecordedRequest",
    "Reply",
    "ResponseSpec",
    "ServedResponse",
    "ServerNotStartedError",
    "ToolCall",
    "ToolCalls",
    "Usage",
]
