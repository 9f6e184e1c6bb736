"""A `llm-roofline serve` subprocess on a free loopback port, for the benchmark scripts."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx2 as httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live_server(workers: int = 1) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start the server, wait for /healthz, yield (process, base URL), stop it."""
    port = free_port()
    env = {**os.environ, "LLM_ROOFLINE_LOG_LEVEL": "warning"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("server did not start") from None
                time.sleep(0.2)
        yield proc, base
    finally:
        proc.terminate()
        proc.wait(20)
