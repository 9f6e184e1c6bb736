"""Pure-ASGI middleware for the outer app: body size limit and security headers.

Pure ASGI (not BaseHTTPMiddleware) so that they wrap the API, the mounted Dash app and its
static bundles alike, and cost a few microseconds per request.
"""

from __future__ import annotations

import json
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodySizeLimit:
    """413 for request bodies over `max_bytes`: by Content-Length when given, else by counting
    the streamed chunks (a chunked upload cannot slip past)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.max_bytes
                except ValueError:
                    too_big = True
                if too_big:
                    await self._reject(send)
                    return
        received = 0
        rejected = False
        started = False

        async def limited_receive() -> Message:
            # Past the limit: answer 413 at once and tell the app the client went away, so
            # whatever it does next (a 400 for a truncated body) is never sent.
            nonlocal received, rejected
            if rejected:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    rejected = True
                    if not started:
                        await self._reject(send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if rejected:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, limited_receive, guarded_send)

    async def _reject(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body larger than {self.max_bytes} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """CSP (with the configured frame-ancestors), nosniff, referrer policy; drops the
    `server` banner. Every asset is served by this app, so 'self' is all the page needs;
    Dash's renderer needs inline scripts/styles and eval (plotly's compiled functions)."""

    def __init__(self, app: ASGIApp, frame_ancestors: str) -> None:
        self.app = app
        csp = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
               "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
               f"connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors {frame_ancestors}")
        self.headers = [
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                message = {**message, "headers": headers + self.headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class AccessLog:
    """One structured (JSON) line per request, with its latency: method, path, status,
    response bytes, duration in ms. Replaces uvicorn's plain access log."""

    def __init__(self, app: ASGIApp, logger_name: str = "llm_roofline.access") -> None:
        self.app = app
        self.logger = logging.getLogger(logger_name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status, size = 500, 0

        async def observe(message: Message) -> None:
            nonlocal status, size
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, observe)
        finally:
            if self.logger.isEnabledFor(logging.INFO):
                self.logger.info(json.dumps({
                    "method": scope.get("method"), "path": scope.get("path"), "status": status, "bytes": size,
                    "duration_ms": round((time.perf_counter() - start) * 1e3, 3),
                    "client": (scope.get("client") or ("", 0))[0]}))


class StaticCache:
    """Long cache lifetimes for Dash's assets when their URL carries a fingerprint (?m=mtime);
    Dash already does it for its component bundles."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fingerprinted = (scope["type"] == "http" and "/assets/" in scope.get("path", "")
                         and b"m=" in scope.get("query_string", b""))
        if not fingerprinted:
            await self.app(scope, receive, send)
            return

        async def cached(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                message = {**message, "headers": headers + [(b"cache-control", b"public, max-age=31536000, immutable")]}
            await send(message)

        await self.app(scope, receive, cached)


class RootPath:
    """Serve under a sub-path whether or not the proxy strips it: requests arrive as
    /roofline/x (prefix kept) or /x (prefix stripped); both route the same, and every
    generated URL (Dash bundles, OpenAPI, docs) carries the prefix. Starlette's routing
    removes scope["root_path"] from the path when the path starts with it."""

    def __init__(self, app: ASGIApp, root_path: str) -> None:
        self.app = app
        self.root_path = root_path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.root_path and scope["type"] in ("http", "websocket"):
            scope = {**scope, "root_path": self.root_path}
        await self.app(scope, receive, send)
