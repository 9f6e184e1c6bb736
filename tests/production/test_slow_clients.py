"""Slow clients are cut off (issue 11, item 6): raw sockets against the real server stack
(uvicorn with app.server's protocol and settings), with a 1 s read timeout."""

import socket
import threading
import time

import pytest
import uvicorn

from app.config import Settings
from app.main import create_app
from app.server import make_config

TIMEOUT_S = 1.0


@pytest.fixture(scope="module")
def server_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(read_timeout_s=TIMEOUT_S, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(make_config(settings, app=create_app(settings), log_config=None))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.time() + 20
    while not server.started:
        assert time.time() < deadline, "server did not start"
        time.sleep(0.05)
    yield port
    server.should_exit = True


def trickle(port: int, head: bytes, drip: bytes, seconds: float = 6.0) -> tuple[bytes, float]:
    """Send `head`, then `drip` one byte every 0.2 s; return what the server answered and when
    the connection was closed (seconds after the first byte)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(0.2)
    start = time.monotonic()
    received = b""
    try:
        sock.sendall(head)
        for i in range(int(seconds / 0.2)):
            try:
                chunk = sock.recv(65536)
                if not chunk:
                    break  # closed by the server
                received += chunk
            except TimeoutError:
                pass
            except ConnectionResetError:  # a byte sent after the server closed: the answer came before
                break
            try:
                sock.sendall(drip[i % len(drip) : i % len(drip) + 1])
            except OSError:
                break
    finally:
        sock.close()
    return received, time.monotonic() - start


def test_trickled_headers_get_408_and_close(server_port):
    answer, elapsed = trickle(server_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", b"abcdefgh")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"nosniff" in answer and b"request headers not received within 1 s" in answer
    assert elapsed < 4 * TIMEOUT_S


@pytest.mark.parametrize("path", ["/api/v1/analyze", "/_dash-update-component"])
def test_trickled_body_gets_408_and_close(server_port, path):
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{"
    ).encode()
    answer, elapsed = trickle(server_port, head, b"     ")
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"request body not received within 1 s" in answer and b"content-security-policy" in answer
    assert elapsed < 4 * TIMEOUT_S


def test_prompt_clients_keep_their_connection(server_port):
    """Two requests on one keep-alive connection, the second after a pause shorter than the
    keep-alive timeout: the header deadline starts at a request's first byte, not at connect."""
    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        sock.settimeout(5)
        for _ in range(2):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while b'"status":"ok"' not in answer:
                answer += sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200")
            time.sleep(1.5 * TIMEOUT_S)
