"""Run the ASGI app with uvicorn: one process, or a supervisor with N worker processes.

Why not plain `uvicorn.run`: with workers > 1 uvicorn binds the listening socket itself with
`proto` left at 0, accepted sockets inherit it, and asyncio then skips TCP_NODELAY, so every
keep-alive request after the first waits ~40 ms for the client's delayed ACK (uvicorn issue
#3149, open as of uvicorn 0.54). Measured here: 2 workers served 182 req/s of /healthz to 8
keep-alive clients against 2,700 with 1 worker. Binding with IPPROTO_TCP fixes it.
"""

from __future__ import annotations

import socket
import sys

import uvicorn
from uvicorn.supervisors import Multiprocess

from .config import Settings


class _TcpNoDelayConfig(uvicorn.Config):
    def bind_socket(self) -> socket.socket:
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto == 0:
            # same descriptor, now labelled TCP so accepted sockets get TCP_NODELAY
            sock = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
        return sock


def log_config(level: str) -> dict:
    """uvicorn's own messages on stderr; one JSON access line per request on stdout
    (written by app.middleware.AccessLog; uvicorn's access log is off)."""
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
                       "access": {"format": "%(message)s"}},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stderr"},
                     "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stdout"}},
        "loggers": {"uvicorn": {"handlers": ["default"], "level": level.upper()},
                    "llm_roofline.access": {"handlers": ["access"], "level": level.upper(), "propagate": False}},
    }


def run(settings: Settings) -> None:
    config = _TcpNoDelayConfig(
        "app.main:app", host=settings.host, port=settings.port, workers=settings.workers,
        log_level=settings.log_level, log_config=log_config(settings.log_level), access_log=False,
        server_header=False, proxy_headers=True, timeout_graceful_shutdown=10)
    server = uvicorn.Server(config=config)
    if config.workers > 1:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    else:
        config.load_app()
        server.run()
        if not server.started:
            sys.exit(3)  # uvicorn's STARTUP_FAILURE
