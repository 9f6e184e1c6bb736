"""Connections that cost a descriptor they did not earn: silent sockets are closed after the read
timeout, a cap on open connections answers the excess 503 at once, an abandoned request is
logged 499 (never 500), a repeated error is logged once with a count, and the Dash layout takes
an engine slot. Raw sockets on 127.0.0.1 against the real server stack (uvicorn with
app.server's protocol and settings), every loop bounded."""

import json
import logging
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import pytest
import uvicorn
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.middleware import EngineGate
from app.server import RepeatedMessages, default_max_connections, log_config, make_config

TIMEOUT_S = 1.0
CAP = 8


@pytest.fixture(scope="module")
def server_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(read_timeout_s=TIMEOUT_S, host="127.0.0.1", port=port, log_level="warning")
    config = make_config(settings, app=create_app(settings), max_connections=CAP, log_config=None)
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.time() + 20
    while not server.started:
        assert time.time() < deadline, "server did not start"
        time.sleep(0.05)
    yield port
    server.should_exit = True


def read_until_closed(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection (or `limit_s` passes)."""
    start = time.monotonic()
    sock.settimeout(0.2)
    received = b""
    while time.monotonic() - start < limit_s:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return received, time.monotonic() - start


def healthz(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return read_until_closed(sock, 5)[0]


def test_a_silent_connection_is_closed_after_the_read_timeout(server_port):
    """It once stayed open for minutes: the header deadline only started at the first byte."""
    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        answer, elapsed = read_until_closed(sock, 10 * TIMEOUT_S)
    assert answer == b""  # closed without an answer: there was no request to answer
    assert elapsed < 4 * TIMEOUT_S


def test_connections_past_the_cap_get_503_at_once(server_port):
    idle = []
    try:
        for _ in range(CAP):
            idle.append(socket.create_connection(("127.0.0.1", server_port)))
        time.sleep(0.2)  # every one accepted
        with socket.create_connection(("127.0.0.1", server_port)) as extra:
            answer, elapsed = read_until_closed(extra, 5)
        assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
        assert f"at most {CAP}".encode() in answer and b"retry-after: 1" in answer and b"nosniff" in answer
        assert elapsed < 2.5
    finally:
        for sock in idle:
            sock.close()
    time.sleep(0.3)
    assert healthz(server_port).startswith(b"HTTP/1.1 200")  # the slots came back


def test_a_refused_client_that_sends_its_request_reads_the_503(server_port):
    idle = [socket.create_connection(("127.0.0.1", server_port)) for _ in range(CAP)]
    try:
        time.sleep(0.2)
        answer = healthz(server_port)
        assert answer.startswith(b"HTTP/1.1 503"), answer[:200]
    finally:
        for sock in idle:
            sock.close()


def test_an_abandoned_body_is_logged_499_not_500(server_port, caplog):
    caplog.set_level(logging.INFO, logger="llm_roofline.access")
    head = b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server_port)) as sock:
        sock.sendall(head + b'{"model": "llama')
        time.sleep(0.2)
    deadline = time.time() + 5
    lines = []
    while time.time() < deadline and not lines:
        lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "llm_roofline.access"]
        lines = [line for line in lines if line["path"] == "/api/v1/analyze"]
        time.sleep(0.05)
    assert lines and lines[-1]["status"] == 499 and lines[-1]["bytes"] == 0, lines


def test_a_repeated_error_is_logged_once_with_a_count():
    logger = logging.getLogger("test.repeats")
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    handler = Collect()
    handler.addFilter(RepeatedMessages(window_s=0.3))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for _ in range(5000):
            logger.error("socket.accept() out of system resource\nsocket: <fd=6>")
        logger.error("another error")
        time.sleep(0.35)
        logger.error("socket.accept() out of system resource\nsocket: <fd=6>")
    finally:
        logger.removeHandler(handler)
    assert len(seen) == 3, seen
    assert "4999 more like it" in seen[2]
    # the server's own log configuration applies it to uvicorn's and the event loop's messages
    config = log_config("info")
    assert config["handlers"]["default"]["filters"] == ["repeats"]
    assert config["loggers"]["asyncio"]["handlers"] == ["default"]


def test_the_default_cap_leaves_descriptors_free():
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert default_max_connections() <= max(16, soft - 256) or soft == resource.RLIM_INFINITY


def test_the_dash_layout_waits_for_an_engine_slot():
    """GET /_dash-layout renders the linked view server-side: it takes a slot like any engine
    request (here one slot, four layouts at once: never two running together)."""
    running, most = 0, 0

    async def slow_layout(scope, receive, send):
        nonlocal running, most
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        running += 1
        most = max(most, running)
        await anyio.sleep(0.1)
        running -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    client = TestClient(EngineGate(slow_layout, slots=1))

    # four threads, not asyncio.run: the browser tests' Playwright may leave an event loop
    # running in this thread, where asyncio.run refuses to start
    with client, ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: client.get("/_dash-layout"), range(4)))
    assert most == 1


def test_searches_queue_in_their_own_lane_and_leave_a_slot_for_the_rest():
    """Four plans at the limits (3.4-4.5 s each) held both slots of a 2-core server, and a 10 ms
    /serving request waited 10-16 s behind them. With two slots, searches run one at a time and
    a /serving request runs beside one that holds a slot (the search below waits until it has)."""
    running = {"plan": 0, "serving": 0}
    most = {"plan": 0, "serving": 0}
    plans_may_finish = threading.Event()
    seen_beside = []

    async def engine(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        kind = "plan" if scope["path"] == "/api/v1/plan" else "serving"
        running[kind] += 1
        most[kind] = max(most[kind], running[kind])
        if kind == "plan":
            # the searches hold on until the /serving request ran; without a slot for it (the
            # gate before its lane) that never comes, and they give up after 10 s, failing below
            deadline = time.monotonic() + 10
            while not plans_may_finish.is_set() and time.monotonic() < deadline:
                await anyio.sleep(0.01)
        else:
            seen_beside.append(running["plan"])
            plans_may_finish.set()  # it ran while a search held a slot: the searches may end
        running[kind] -= 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    client = TestClient(EngineGate(engine, slots=2))
    with client, ThreadPoolExecutor(5) as pool:
        plans = [pool.submit(client.post, "/api/v1/plan", json={}) for _ in range(4)]
        while running["plan"] == 0:  # a search holds a slot
            time.sleep(0.01)
        assert client.post("/api/v1/serving", json={}).status_code == 200
        assert all(p.result().status_code == 200 for p in plans)
    assert most["plan"] == 1 and seen_beside == [1]
