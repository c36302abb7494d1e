"""What the server says it served: every answer written out in full, with the usage its
body reported, so a client's token count can be held against the server's."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
from fake_openai import (
    FakeOpenAI,
    Hang,
    HttpError,
    Raw,
    Reply,
    ResponseSpec,
    ServedResponse,
    ToolCall,
    ToolCalls,
    Usage,
)

from .test_server import CHAT, post

COMPLETION = "/v1/chat/completions"


@pytest.mark.parametrize(
    ("spec", "served"),
    [
        (Reply("好的", usage=Usage(7, 3)), ServedResponse(COMPLETION, 200, Usage(7, 3), "m1")),
        (
            ToolCalls(ToolCall("get_order", {"order_id": "A1"}), usage=Usage(11, 2)),
            ServedResponse(COMPLETION, 200, Usage(11, 2), "m1"),
        ),
        (HttpError(500), ServedResponse(COMPLETION, 500, None, None)),
        (HttpError(429, retry_after=0.01), ServedResponse(COMPLETION, 429, None, None)),
        (
            Raw({"usage": {"prompt_tokens": 4, "completion_tokens": 1}, "model": "x"}),
            ServedResponse(COMPLETION, 200, Usage(4, 1), "x"),
        ),
        (Raw({"usage": {"prompt_tokens": "4"}}), ServedResponse(COMPLETION, 200, None, None)),
    ],
    ids=["reply", "tool-calls", "500", "429", "raw", "raw-bad-usage"],
)
def test_each_answer_is_recorded_with_the_usage_its_body_reported(
    fake: FakeOpenAI, spec: ResponseSpec, served: ServedResponse
) -> None:
    fake.script(spec)
    post(fake)
    assert fake.served == [served]


def test_estimated_usage_is_what_the_body_said(fake: FakeOpenAI) -> None:
    fake.script("一个没有给出用量的回答")
    status, _, body = post(fake)
    assert status == 200
    [served] = fake.served
    assert served.usage is not None and served.usage.prompt_tokens > 0
    assert f'"prompt_tokens": {served.usage.prompt_tokens}' in body


def test_tokens_served_sum_every_answer(fake: FakeOpenAI) -> None:
    fake.script(Reply("a", usage=Usage(5, 1)), HttpError(500), Reply("b", usage=Usage(8, 2)))
    for _ in range(3):
        post(fake)
    assert fake.tokens_served == Usage(13, 3)
    assert [s.status for s in fake.served] == [200, 500, 200]


def test_an_answer_dropped_on_stop_was_not_served() -> None:
    fake = FakeOpenAI().start()
    fake.script(Hang(seconds=60))
    client = threading.Thread(target=lambda: _quietly(fake), daemon=True)
    client.start()
    while fake.in_flight == 0:
        time.sleep(0.005)
    fake.stop()
    deadline = time.monotonic() + 5
    while fake.in_flight and time.monotonic() < deadline:  # the woken hang finishes
        time.sleep(0.005)
    assert fake.in_flight == 0
    assert fake.served == [] and fake.request_count == 1


def _quietly(fake: FakeOpenAI) -> None:
    with contextlib.suppress(OSError):
        post(fake, timeout=0.5)


def test_reset_forgets_what_was_served(fake: FakeOpenAI) -> None:
    fake.script("x")
    post(fake, CHAT)
    fake.reset()
    assert fake.served == [] and fake.tokens_served == Usage(0, 0)
