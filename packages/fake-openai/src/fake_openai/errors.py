"""Errors raised by the fake server (to the test that drives it, never over HTTP)."""

from __future__ import annotations


class FakeOpenAIError(Exception):
    """Base class of every fake_openai error."""


class ServerNotStartedError(FakeOpenAIError):
    """The server's address was asked for before ``start()``."""

    def __init__(self) -> None:
        super().__init__("the fake OpenAI server is not started: call start() or use `with`")


class InvalidResponseSpecError(FakeOpenAIError):
    """A scripted response or a handler's return value is not a response spec."""

    def __init__(self, value: object) -> None:
        super().__init__(f"not a response spec: {value!r}")
        self.value = value
