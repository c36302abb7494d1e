"""A client resetting its connection is routine for the fake server: no traceback."""

from __future__ import annotations

import socket
import struct
import time

import pytest
from fake_openai import FakeOpenAI


def reset_mid_request(port: int) -> None:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_reset_connection_prints_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI() as server:
        for _ in range(3):
            reset_mid_request(server.port)
        # the handler threads notice the reset asynchronously; give them a moment
        deadline = time.monotonic() + 2.0
        while server.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
    err = capfd.readouterr().err
    assert "Traceback" not in err
    assert "ConnectionResetError" not in err
