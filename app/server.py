"""Run the ASGI app with uvicorn: one process, or a supervisor with N worker processes.

Why not plain `uvicorn.run`: with workers > 1 uvicorn binds the listening socket itself with
`proto` left at 0, accepted sockets inherit it, and asyncio then skips TCP_NODELAY, so every
keep-alive request after the first waits ~40 ms for the client's delayed ACK (uvicorn issue
#3149, open as of uvicorn 0.54). Measured here: 2 workers served 182 req/s of /healthz to 8
keep-alive clients against 2,700 with 1 worker. Binding with IPPROTO_TCP fixes it.
"""

from __future__ import annotations

import asyncio
import socket
import sys

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.supervisors import Multiprocess

from .config import Settings
from .middleware import security_headers


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus a deadline on a request's headers: from the first byte of a
    request, its headers must be complete within `read_timeout_s`, else 408 and close.

    uvicorn has none (its keep-alive timer is reset by every byte), so a client trickling one
    header byte every few seconds held a connection for as long as it liked. The body's
    deadline is the ReadTimeout middleware's (app/middleware.py)."""

    def __init__(self, config: uvicorn.Config, *args, **kwargs) -> None:
        super().__init__(config, *args, **kwargs)
        self.read_timeout_s: float = getattr(config, "read_timeout_s", 30.0)
        self.early_headers: bytes = getattr(config, "early_headers", b"")
        self._header_timer: asyncio.TimerHandle | None = None

    def data_received(self, data: bytes) -> None:
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

    def _headers_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not (self.cycle is None or self.cycle.response_complete):
            return
        body = f'{{"detail": "request headers not received within {self.read_timeout_s:g} s"}}'.encode()
        # h11 cannot answer a request it has not parsed: the response is written as bytes
        self.transport.write(
            b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"content-length: "
            + str(len(body)).encode()
            + b"\r\nconnection: close\r\n"
            + self.early_headers
            + b"\r\n"
            + body
        )
        self.transport.close()


class _TcpNoDelayConfig(uvicorn.Config):
    """Also carries the settings TimedH11Protocol reads (workers get a pickled copy)."""

    read_timeout_s: float = 30.0
    early_headers: bytes = b""

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
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
            "access": {"format": "%(message)s"},
        },
        "handlers": {
            "default": {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper()},
            "llm_roofline.access": {"handlers": ["access"], "level": level.upper(), "propagate": False},
            # one JSON line per exception, with the request id (app.middleware.AccessLog)
            "llm_roofline.error": {"handlers": ["access"], "level": "ERROR", "propagate": False},
        },
    }


def make_config(settings: Settings, app: object = "app.main:app", **overrides) -> uvicorn.Config:
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
