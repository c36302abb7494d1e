"""The fake server over plain HTTP (stdlib client only: these run without openai)."""

import http.client
import json
import socket
import threading
from typing import Any

import pytest
from fake_openai import (
    FakeOpenAI,
    Hang,
    HttpError,
    InvalidResponseSpecError,
    Malformed,
    Raw,
    Reply,
    ServerNotStartedError,
    ToolCall,
    ToolCalls,
    Usage,
)

CHAT = {"model": "m1", "messages": [{"role": "user", "content": "我的包裹没到"}]}


def post(
    fake: FakeOpenAI,
    body: Any = CHAT,
    *,
    path: str = "/v1/chat/completions",
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request("POST", path, body=data, headers=headers or {})
        response = conn.getresponse()
        head = {k.lower(): v for k, v in response.getheaders()}
        return response.status, head, response.read().decode()
    finally:
        conn.close()


def test_base_url_points_at_v1_on_localhost(fake: FakeOpenAI) -> None:
    assert fake.base_url == f"http://127.0.0.1:{fake.port}/v1"
    assert fake.port > 0


def test_address_before_start_is_an_error() -> None:
    with pytest.raises(ServerNotStartedError):
        _ = FakeOpenAI().base_url


def test_stop_releases_the_port() -> None:
    fake = FakeOpenAI().start()
    port = fake.port
    fake.stop()
    fake.stop()  # idempotent
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_scripted_replies_are_answered_in_order_with_usage(fake: FakeOpenAI) -> None:
    fake.script("第一", Reply("第二", usage=Usage(7, 3)))
    bodies = [json.loads(post(fake)[2]) for _ in range(2)]
    assert [b["choices"][0]["message"]["content"] for b in bodies] == ["第一", "第二"]
    assert bodies[0]["usage"]["total_tokens"] == (
        bodies[0]["usage"]["prompt_tokens"] + bodies[0]["usage"]["completion_tokens"]
    )
    assert bodies[0]["usage"]["prompt_tokens"] > 0
    assert bodies[1]["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert bodies[0]["model"] == "m1"
    assert bodies[0]["id"] != bodies[1]["id"]
    assert fake.remaining == 0


def test_tool_calls_carry_json_string_arguments(fake: FakeOpenAI) -> None:
    fake.script(ToolCalls(ToolCall("get_order", {"order_id": "SP1001"}), ToolCall("x", "{bad")))
    choice = json.loads(post(fake)[2])["choices"][0]
    calls = choice["message"]["tool_calls"]
    assert choice["finish_reason"] == "tool_calls"
    assert [c["function"]["name"] for c in calls] == ["get_order", "x"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"order_id": "SP1001"}
    assert calls[1]["function"]["arguments"] == "{bad"
    assert calls[0]["id"] != calls[1]["id"]
    assert calls[0]["type"] == "function"


@pytest.mark.parametrize(
    ("spec", "status", "headers"),
    [
        (HttpError(429, retry_after=2), 429, {"retry-after": "2", "retry-after-ms": "2000"}),
        (HttpError(500), 500, {}),
        (HttpError(401, "nope"), 401, {}),
    ],
)
def test_http_errors_have_an_openai_error_body(
    fake: FakeOpenAI, spec: HttpError, status: int, headers: dict[str, str]
) -> None:
    fake.script(spec)
    got_status, got_headers, body = post(fake)
    assert got_status == status
    assert json.loads(body)["error"]["message"] == spec.message
    for name, value in headers.items():
        assert got_headers[name] == value
    if not headers:
        assert "retry-after" not in got_headers


def test_malformed_body_is_not_json(fake: FakeOpenAI) -> None:
    fake.script(Malformed())
    status, _, body = post(fake)
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)


def test_raw_body_is_sent_as_given(fake: FakeOpenAI) -> None:
    fake.script(Raw({"anything": [1, 2]}, status=418))
    status, _, body = post(fake)
    assert (status, json.loads(body)) == (418, {"anything": [1, 2]})


def test_handler_answers_when_the_script_is_empty(fake: FakeOpenAI) -> None:
    seen: list[Any] = []

    def handler(request: Any) -> str:
        seen.append(request)
        return "来自处理函数"

    fake.handler = handler
    fake.script("先用脚本")
    first, second = (json.loads(post(fake)[2]) for _ in range(2))
    assert first["choices"][0]["message"]["content"] == "先用脚本"
    assert second["choices"][0]["message"]["content"] == "来自处理函数"
    assert seen == [CHAT]


def test_default_answers_last() -> None:
    with FakeOpenAI(default="默认") as fake:
        assert json.loads(post(fake)[2])["choices"][0]["message"]["content"] == "默认"


def test_nothing_to_answer_is_a_noted_non_retryable_500(fake: FakeOpenAI) -> None:
    status, headers, _ = post(fake)
    assert (status, headers["x-should-retry"]) == (500, "false")
    assert fake.errors == ["no scripted response left, no handler and no default"]


def test_a_failing_handler_is_a_noted_500(fake: FakeOpenAI) -> None:
    def handler(request: Any) -> str:
        raise KeyError("boom")

    fake.handler = handler
    assert post(fake)[0] == 500
    assert "KeyError" in fake.errors[0]


def test_a_handler_returning_no_spec_is_a_noted_500(fake: FakeOpenAI) -> None:
    fake.handler = lambda request: 42  # type: ignore[assignment,return-value]
    assert post(fake)[0] == 500
    assert "not a response spec: 42" in fake.errors[0]


def test_script_rejects_non_specs(fake: FakeOpenAI) -> None:
    with pytest.raises(InvalidResponseSpecError, match="12"):
        fake.script(12)  # type: ignore[arg-type]


def test_requests_are_recorded_with_json_and_headers(fake: FakeOpenAI) -> None:
    fake.script("a", "b")
    post(fake, headers={"X-Trace": "t1", "Content-Type": "application/json"})
    post(fake, {"model": "m2", "messages": []})
    first, second = fake.requests
    assert first.json == CHAT
    assert first.messages == CHAT["messages"]
    assert first.headers["x-trace"] == "t1"
    assert second.json["model"] == "m2"
    assert fake.request_count == 2
    assert fake.chat_requests == [first, second]


def test_reset_forgets_script_requests_and_counts(fake: FakeOpenAI) -> None:
    fake.script("a", "b")
    post(fake)
    fake.reset()
    assert (fake.requests, fake.request_count, fake.remaining, fake.errors) == ([], 0, 0, [])
    assert fake.max_in_flight == 0


@pytest.mark.parametrize(
    ("body", "path", "status"),
    [
        (CHAT, "/v1/embeddings", 404),
        (b"{not json", "/v1/chat/completions", 400),
        ({**CHAT, "stream": True}, "/v1/chat/completions", 400),
    ],
)
def test_bad_requests_are_refused(fake: FakeOpenAI, body: Any, path: str, status: int) -> None:
    fake.script("unused")
    assert post(fake, body, path=path)[0] == status
    assert fake.remaining == 1


def test_models_are_listed() -> None:
    with FakeOpenAI(models=("a", "b")) as fake:
        conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
        conn.request("GET", "/v1/models")
        data = json.loads(conn.getresponse().read())
        conn.close()
    assert [m["id"] for m in data["data"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("auth", "status"), [("Bearer k1", 200), ("Bearer other", 401), (None, 401)]
)
def test_api_key_is_checked_when_set(auth: str | None, status: int) -> None:
    with FakeOpenAI(api_key="k1", default="ok") as fake:
        assert post(fake, headers={"Authorization": auth} if auth else {})[0] == status


def test_connections_are_kept_alive(fake: FakeOpenAI) -> None:
    fake.script("a", "b")
    conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    conn.request("POST", "/v1/chat/completions", body=json.dumps(CHAT))
    conn.getresponse().read()
    first_socket = conn.sock
    conn.request("POST", "/v1/chat/completions", body=json.dumps(CHAT))
    assert conn.getresponse().status == 200
    assert conn.sock is first_socket
    conn.close()


def test_requests_are_answered_concurrently() -> None:
    # Five requests must be inside the handler at once to pass the barrier: a server
    # that serialised requests would break it (the handler then raises, giving 500s).
    barrier = threading.Barrier(5, timeout=10)

    def handler(request: Any) -> str:
        barrier.wait()
        return "ok"

    statuses: list[int] = []
    with FakeOpenAI(handler=handler) as fake:
        threads = [
            threading.Thread(target=lambda: statuses.append(post(fake)[0])) for _ in range(5)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses == [200] * 5
        assert fake.max_in_flight == 5
        assert fake.in_flight == 0


def test_a_hang_outlives_the_client_timeout_and_does_not_block_stop() -> None:
    fake = FakeOpenAI().start()
    fake.script(Hang(seconds=60))
    with pytest.raises(TimeoutError):
        post(fake, timeout=0.2)
    fake.stop()
    assert fake.request_count == 1
