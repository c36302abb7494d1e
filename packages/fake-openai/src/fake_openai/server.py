"""The fake OpenAI-compatible server: a threaded HTTP/1.1 server on 127.0.0.1.

One thread per connection (keep-alive, ``TCP_NODELAY``), daemon threads, no logging.
Latency is slept inside each request's own thread, so concurrent requests overlap
instead of queueing: 1000 requests at concurrency 50 with 100 ms latency take ~2 s.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

from fake_openai import _wire
from fake_openai.errors import InvalidResponseSpecError, ServerNotStartedError
from fake_openai.responses import (
    SPEC_TYPES,
    Hang,
    HttpError,
    Malformed,
    Raw,
    Reply,
    ResponseSpec,
    ToolCalls,
    Usage,
)

Handler = Callable[[Any], ResponseSpec]
"""A callable from the request's parsed JSON to the response spec to answer."""

CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    """``GET`` or ``POST``."""
    path: str
    """The path without query string, e.g. ``/v1/chat/completions``."""
    headers: dict[str, str]
    """The headers, names lower-cased."""
    json: Any
    """The parsed JSON body (``None`` when there was no body or it was not JSON)."""
    body: str
    """The raw body text."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat ``messages`` of the request (empty when there are none)."""
        if isinstance(self.json, dict) and isinstance(self.json.get("messages"), list):
            return cast(list[dict[str, Any]], self.json["messages"])
        return []


@dataclass(frozen=True)
class ServedResponse:
    """One answer the server wrote out in full (a request dropped while the server
    stopped, or whose client had gone, is not one)."""

    path: str
    """The path it answered."""
    status: int
    """The HTTP status sent."""
    usage: Usage | None
    """The ``usage`` the body reported (``None``: the body had none, e.g. an error)."""
    model: str | None
    """The ``model`` the body named (``None``: none)."""


def _served(path: str, response: _wire.WireResponse) -> ServedResponse:
    """What ``response`` told the client, read back from its body."""
    try:
        body: Any = json.loads(response.body)
    except (ValueError, UnicodeDecodeError):
        body = None
    usage: Usage | None = None
    model: str | None = None
    if isinstance(body, dict):
        reported = body.get("usage")
        if isinstance(reported, dict):
            prompt, completion = reported.get("prompt_tokens"), reported.get("completion_tokens")
            if isinstance(prompt, int) and isinstance(completion, int):
                usage = Usage(prompt, completion)
        named = body.get("model")
        model = named if isinstance(named, str) else None
    return ServedResponse(path, response.status, usage, model)


def _check_spec(value: object) -> ResponseSpec:
    if not isinstance(value, SPEC_TYPES):
        raise InvalidResponseSpecError(value)
    return value


class FakeOpenAI:
    """A fake OpenAI-compatible server for tests and benchmarks.

    Answers ``POST /v1/chat/completions`` from, in this order: the scripted queue
    (``script(...)``), the ``handler`` callable, the ``default`` spec. With none of
    them it answers 500 (``x-should-retry: false``) and notes the problem in ``errors``.
    Also serves ``GET /v1/models``. Use as a context manager or call ``start()`` and
    ``stop()``::

        with FakeOpenAI(latency=0.1) as fake:
            fake.script("hello", HttpError(429, retry_after=0.01))
            client = openai.OpenAI(base_url=fake.base_url, api_key="test")
    """

    def __init__(
        self,
        latency: float = 0.0,
        *,
        handler: Handler | None = None,
        default: ResponseSpec | None = None,
        models: tuple[str, ...] = ("fake-model",),
        api_key: str | None = None,
    ) -> None:
        self.latency = latency
        """Seconds slept before every answer (each spec's ``delay`` adds to it)."""
        self.handler = handler
        """Called with the request JSON when the script is empty."""
        self.default = None if default is None else _check_spec(default)
        """Answered when neither the script nor the handler gives a response."""
        self.models = models
        """Model ids listed by ``GET /v1/models``."""
        self.api_key = api_key
        """When set, requests without ``Authorization: Bearer <api_key>`` get 401."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._script: deque[ResponseSpec] = deque()
        self._requests: list[RecordedRequest] = []
        self._served: list[ServedResponse] = []
        self._errors: list[str] = []
        self._count = 0
        self._in_flight = 0
        self._max_in_flight = 0
        self._next_id = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread; returns ``self``."""
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), self)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving, wake hanging requests and release the port (idempotent)."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()
        self._server = self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._server is None:
            raise ServerNotStartedError()
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The URL to give an OpenAI client: ``http://127.0.0.1:<port>/v1``."""
        return f"{self.url}/v1"

    # -- scripting and inspection -----------------------------------------------------

    def script(self, *responses: ResponseSpec) -> FakeOpenAI:
        """Queue responses, answered one per chat request in order; returns ``self``."""
        checked = [_check_spec(response) for response in responses]
        with self._lock:
            self._script.extend(checked)
        return self

    def reset(self) -> None:
        """Forget the script, recorded requests, errors and counters.

        The handler, default, latency and the running server stay as they are.
        """
        with self._lock:
            self._script.clear()
            self._requests.clear()
            self._served.clear()
            self._errors.clear()
            self._count = 0
            self._max_in_flight = self._in_flight

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received since start (or ``reset()``), in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded ``POST /v1/chat/completions`` requests only."""
        return [r for r in self.requests if r.method == "POST" and r.path == CHAT_PATH]

    @property
    def served(self) -> list[ServedResponse]:
        """Every answer written out in full since start (or ``reset()``), in order: what
        the clients were told, tokens included (:attr:`tokens_served`)."""
        with self._lock:
            return list(self._served)

    @property
    def tokens_served(self) -> Usage:
        """The ``usage`` of every answer written out, summed (errors report none)."""
        served = self.served
        return Usage(
            sum(s.usage.prompt_tokens for s in served if s.usage is not None),
            sum(s.usage.completion_tokens for s in served if s.usage is not None),
        )

    @property
    def request_count(self) -> int:
        """How many requests were received."""
        with self._lock:
            return self._count

    @property
    def in_flight(self) -> int:
        """Requests being answered right now."""
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being answered at the same time."""
        with self._lock:
            return self._max_in_flight

    @property
    def remaining(self) -> int:
        """Scripted responses not yet answered."""
        with self._lock:
            return len(self._script)

    @property
    def errors(self) -> list[str]:
        """Server-side problems (handler exceptions, empty script, bad specs)."""
        with self._lock:
            return list(self._errors)

    # -- serving (called from the connection threads) ---------------------------------

    def _serve(self, http: _RequestHandler) -> None:
        length = int(http.headers.get("Content-Length") or 0)
        raw = http.rfile.read(length) if length > 0 else b""
        text = raw.decode("utf-8", errors="replace")
        try:
            parsed: Any = json.loads(text) if text else None
            bad_json = False
        except json.JSONDecodeError:
            parsed, bad_json = None, True
        path = http.path.split("?", 1)[0]
        headers = {name.lower(): value for name, value in http.headers.items()}
        record = RecordedRequest(http.command, path, headers, parsed, text)
        with self._lock:
            self._requests.append(record)
            self._count += 1
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            response = self._respond(record, bad_json)
        finally:
            # Leave the in-flight count before writing, so a client that has read its
            # answer never sees its own request still counted.
            with self._lock:
                self._in_flight -= 1
        if response is None:
            return
        # Counted before writing, so a client that has read its answer finds it here;
        # taken back when the client had gone and nothing could be written.
        served = _served(path, response)
        with self._lock:
            self._served.append(served)
        if not _write(http, response):
            with self._lock:
                self._served.remove(served)

    def _respond(self, record: RecordedRequest, bad_json: bool) -> _wire.WireResponse | None:
        if self.api_key is not None and record.headers.get("authorization") != (
            f"Bearer {self.api_key}"
        ):
            return _wire.error_response(401, "invalid api key", kind="invalid_request_error")
        if record.method == "GET" and record.path == MODELS_PATH:
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake-openai"}
                for m in self.models
            ]
            return _wire.json_response(200, {"object": "list", "data": data})
        if record.method != "POST" or record.path != CHAT_PATH:
            return _wire.error_response(404, f"no route for {record.method} {record.path!r}")
        if bad_json or not isinstance(record.json, dict):
            return _wire.error_response(400, "request body is not a JSON object", retry=False)
        if record.json.get("stream"):
            return _wire.error_response(400, "fake_openai does not stream", retry=False)
        spec = self._next_spec(record.json)
        if spec is None:
            return _wire.error_response(500, "fake_openai: nothing to answer", retry=False)
        delay = self.latency + (0.0 if isinstance(spec, str) else spec.delay)
        if delay > 0 and self._stopping.wait(delay):
            return None  # stopping: drop the request
        return self._render(spec, record.json)

    def _next_spec(self, request: dict[str, Any]) -> ResponseSpec | None:
        with self._lock:
            if self._script:
                return self._script.popleft()
        handler = self.handler
        if handler is not None:
            try:
                return _check_spec(handler(request))
            except Exception as e:  # any handler bug becomes a noted 500, not a dead thread
                self._note(f"handler raised {type(e).__name__}: {e}")
                return None
        if self.default is not None:
            return self.default
        self._note("no scripted response left, no handler and no default")
        return None

    def _note(self, problem: str) -> None:
        with self._lock:
            self._errors.append(problem)

    def _render(self, spec: ResponseSpec, request: dict[str, Any]) -> _wire.WireResponse | None:
        if isinstance(spec, str):
            spec = Reply(spec)
        if isinstance(spec, Hang):
            if self._stopping.wait(spec.seconds):
                return None
            spec = Reply(spec.then)
        if isinstance(spec, HttpError):
            return _wire.http_error_response(spec)
        if isinstance(spec, Malformed):
            return _wire.malformed_response(spec)
        if isinstance(spec, Raw):
            return _wire.raw_response(spec)
        calls = len(spec.calls) if isinstance(spec, ToolCalls) else 0
        with self._lock:
            number = self._next_id
            self._next_id += max(calls, 1)
        model = request.get("model")
        return _wire.completion_response(
            spec,
            request,
            completion_id=f"chatcmpl-fake-{number}",
            first_call=number,
            model=model if isinstance(model, str) else self.models[0],
        )


def _write(http: _RequestHandler, response: _wire.WireResponse) -> bool:
    """Send ``response``; ``False`` when the client had gone."""
    try:
        http.send_response(response.status)
        http.send_header("Content-Type", response.content_type)
        http.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers:
            http.send_header(name, value)
        http.end_headers()
        http.wfile.write(response.body)
        http.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        # The client gave up (a hang outlived its timeout): nothing left to answer.
        http.close_connection = True
        return False
    return True


class _RequestHandler(BaseHTTPRequestHandler):
    # HTTP/1.1 keeps connections alive; every response carries Content-Length.
    protocol_version = "HTTP/1.1"

    def _fake(self) -> FakeOpenAI:
        return cast(_Server, self.server).fake

    def do_GET(self) -> None:
        self._fake()._serve(self)

    def do_POST(self) -> None:
        self._fake()._serve(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests and benchmarks read their own output."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default backlog of 5 drops SYNs under a 50-connection burst (1 s retransmits).
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], fake: FakeOpenAI) -> None:
        super().__init__(address, _RequestHandler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that cancels a request mid-read (a timed-out or cancelled call) resets
        # its connection: routine for this server, not worth a traceback on stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        # Without TCP_NODELAY, small keep-alive responses wait on delayed ACKs (~40 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address
