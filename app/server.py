"""Run the ASGI app with uvicorn: one process, or a supervisor with N worker processes.

Why not plain `uvicorn.run`: with workers > 1 uvicorn binds the listening socket itself with
`proto` left at 0, accepted sockets inherit it, and asyncio then skips TCP_NODELAY, so every
keep-alive request after the first waits ~40 ms for the client's delayed ACK (uvicorn issue
#3149, open as of uvicorn 0.54). Measured here: 2 workers served 182 req/s of /healthz to 8
keep-alive clients against 2,700 with 1 worker. Binding with IPPROTO_TCP fixes it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import socket
import sys
import time

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors import Multiprocess

from .config import Settings
from .middleware import security_headers


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus deadlines and a cap on open connections.

    - A request's headers must be complete within `read_timeout_s` of its first byte, else 408
      and close. uvicorn has none (its keep-alive timer is reset by every byte), so a client
      trickling one header byte every few seconds held a connection for as long as it liked.
      The body's deadline is the ReadTimeout middleware's (app/middleware.py).
    - A new connection gets the same deadline from the moment it is accepted: one that never
      sends a byte is closed silently after `read_timeout_s` (before, the deadline started at
      the first byte, and 19,990 silent sockets held their descriptors for minutes).
    - Past `max_connections` open connections, a new one is answered 503 at once and closed,
      so a flood of sockets is turned away while descriptors remain, instead of exhausting
      them and failing in accept()."""

    def __init__(self, config: uvicorn.Config, *args, **kwargs) -> None:
        super().__init__(config, *args, **kwargs)
        self.read_timeout_s: float = getattr(config, "read_timeout_s", 30.0)
        self.early_headers: bytes = getattr(config, "early_headers", b"")
        self.max_connections: int | None = getattr(config, "max_connections", None)
        self._header_timer: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.max_connections is not None and len(self.connections) > self.max_connections:
            self._refuse()
            return
        self._header_timer = self.loop.call_later(self.read_timeout_s, self._headers_timed_out)

    def data_received(self, data: bytes) -> None:
        if self._refused:  # the 503 is on its way: read the request so closing sends FIN, not RST
            self.transport.close()
            return
        if self._header_timer is None and (self.cycle is None or self.cycle.response_complete):
            self._header_timer = self.loop.call_later(self.read_timeout_s, self._headers_timed_out)
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self._header_timer is not None:  # a request's headers arrived
            self._header_timer.cancel()
            self._header_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def _raw_response(self, status: bytes, detail: str, extra: bytes = b"") -> bytes:
        # h11 cannot answer a request it has not parsed: the response is written as bytes
        body = json.dumps({"detail": detail}).encode()
        return (
            b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n"
            + extra + self.early_headers + b"\r\n" + body
        )  # fmt: skip

    def _refuse(self) -> None:
        """503 now; the socket is closed when the client's request arrives or after a second,
        at once when the excess is more than twice the cap (a flood: descriptors first)."""
        self._refused = True
        self.transport.write(
            self._raw_response(
                b"503 Service Unavailable",
                f"too many open connections (at most {self.max_connections}); retry shortly",
                b"retry-after: 1\r\n",
            )
        )
        if len(self.connections) > 2 * (self.max_connections or 0):
            self.transport.close()
        else:
            self._header_timer = self.loop.call_later(min(1.0, self.read_timeout_s), self.transport.close)

    def _headers_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not (self.cycle is None or self.cycle.response_complete):
            return
        if self.conn.their_state == h11.IDLE and not self.conn.trailing_data[0]:
            self.transport.close()  # nothing was sent on this connection since the last answer: no request to answer
            return
        detail = f"request headers not received within {self.read_timeout_s:g} s"
        self.transport.write(self._raw_response(b"408 Request Timeout", detail))
        self.transport.close()


def default_max_connections() -> int:
    """Open connections one process accepts: what its descriptor limit (RLIMIT_NOFILE) leaves
    after 256 for files, the listening socket and threads, at most 4,096 (one process cannot
    serve more at once usefully; beyond it, a client gets a 503 and retries)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 4096
    return max(16, min(4096, soft - 256))


class RepeatedMessages(logging.Filter):
    """One line per distinct message per `window_s`, then its count: an error that repeats
    thousands of times a second (accept() failing with EMFILE under a socket flood wrote 38,904
    tracebacks in two minutes) must not fill the disk or drown the rest of the log."""

    def __init__(self, window_s: float = 60.0) -> None:
        super().__init__()
        self.window_s = window_s
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, str(record.msg).split("\n", 1)[0][:200])
        now = time.monotonic()
        first, suppressed = self._seen.get(key, (0.0, 0))
        if key in self._seen and now - first < self.window_s:
            self._seen[key] = (first, suppressed + 1)
            return False
        if len(self._seen) > 1000:  # distinct messages: keep the table small
            self._seen.clear()
        self._seen[key] = (now, 0)
        if suppressed:
            record.msg = f"{record.msg} (and {suppressed} more like it in the last {self.window_s:g} s)"
        return True


class _TcpNoDelayConfig(uvicorn.Config):
    """Also carries the settings TimedH11Protocol reads (workers get a pickled copy)."""

    read_timeout_s: float = 30.0
    early_headers: bytes = b""
    max_connections: int | None = None

    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto == 0:
            # same descriptor, now labelled TCP so accepted sockets get TCP_NODELAY
            sock = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
        return sock


def log_config(level: str) -> dict:
    """uvicorn's own messages on stderr; on stdout one JSON access line per request and one
    JSON error line per exception (both written by app.middleware.AccessLog; uvicorn's
    access log is off)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"repeats": {"()": RepeatedMessages}},
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
            "access": {"format": "%(message)s"},
        },
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "stream": "ext://sys.stderr",
                "filters": ["repeats"],
            },
            "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper()},
            # the event loop's own errors (accept() failures among them), deduplicated too
            "asyncio": {"handlers": ["default"], "level": "WARNING", "propagate": False},
            "llm_roofline.access": {"handlers": ["access"], "level": level.upper(), "propagate": False},
            # one JSON line per exception, with the request id (app.middleware.AccessLog)
            "llm_roofline.error": {"handlers": ["access"], "level": "ERROR", "propagate": False},
        },
    }


def make_config(
    settings: Settings, app: object = "app.main:app", max_connections: int | None = None, **overrides
) -> uvicorn.Config:
    options = dict(
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        http=TimedH11Protocol,
        log_level=settings.log_level,
        log_config=log_config(settings.log_level),
        access_log=False,
        server_header=False,
        proxy_headers=True,
        timeout_graceful_shutdown=10,
    )
    config = _TcpNoDelayConfig(app, **(options | overrides))
    config.read_timeout_s = settings.read_timeout_s
    config.max_connections = max_connections or default_max_connections()
    config.early_headers = b"".join(k + b": " + v + b"\r\n" for k, v in security_headers(settings.frame_ancestors))
    return config


def run(settings: Settings) -> None:
    config = make_config(settings)
    server = uvicorn.Server(config=config)
    if config.workers > 1:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    else:
        config.load_app()
        server.run()
        if not server.started:
            sys.exit(3)  # uvicorn's STARTUP_FAILURE
