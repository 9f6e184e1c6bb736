"""Pure-ASGI middleware for the outer app: request ids and error logging, security headers,
read timeout, body size limit, Dash envelope check, HEAD for the API, caching, sub-path.

Pure ASGI (not BaseHTTPMiddleware) so that they wrap the API, the mounted Dash app and its
static bundles alike, and cost a few microseconds per request.
"""

from __future__ import annotations

import contextvars
import json
import logging
import time
import traceback
import uuid
from urllib.parse import urlsplit

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# nginx's status for a request whose client hung up before the answer (never sent on the wire)
CLIENT_CLOSED_REQUEST = 499

# The id of the request being served: set by AccessLog, copied into a2wsgi's threads (it runs
# each WSGI call in a copy of the context), written on every log line about that request.
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def json_response(status: int, body: dict, extra: list[tuple[bytes, bytes]] = ()) -> tuple[Message, Message]:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *extra]
    return (
        {"type": "http.response.start", "status": status, "headers": headers},
        {"type": "http.response.body", "body": data},
    )


def content_security_policy(frame_ancestors: str, script_hashes: tuple[str, ...] = ()) -> str:
    """No 'unsafe-eval' and no 'unsafe-inline' for scripts: every script is a file served by
    this app, except Dash's one-line inline renderer start, allowed by its hash.
    Styles keep 'unsafe-inline': the Dash components and Plotly set style attributes.
    Workers may come from blob: URLs: ReDoc (/redoc) starts its search worker from one."""
    scripts = " ".join(["'self'", *(f"'{h}'" for h in script_hashes)])
    return (
        f"default-src 'self'; script-src {scripts}; worker-src 'self' blob:; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
        f"connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
        f"frame-ancestors {frame_ancestors}"
    )


def security_headers(frame_ancestors: str, script_hashes: tuple[str, ...] = ()) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", content_security_policy(frame_ancestors, script_hashes).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"strict-origin-when-cross-origin"),
    ]


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
        said = f"request body larger than {self.max_bytes} bytes"
        # the shape of every other 4xx (app.main): the field, and what is allowed
        body = {"detail": said, "errors": [{"field": "body", "message": said, "allowed": f"<= {self.max_bytes} bytes"}]}
        for message in json_response(413, body, [(b"connection", b"close")]):
            await send(message)


class SecurityHeaders:
    """CSP (with the configured frame-ancestors), nosniff, referrer policy; drops the
    `server` banner. Every asset is served by this app, so 'self' is all the page needs.
    Outside every middleware that may answer early (413, 408, 400), so those carry them too.
    `script_hashes` is a callable: the Dash page's inline script is hashed once it exists."""

    def __init__(self, app: ASGIApp, frame_ancestors: str, script_hashes=lambda: ()) -> None:
        self.app = app
        self.frame_ancestors = frame_ancestors
        self.script_hashes = script_hashes
        self._headers: list[tuple[bytes, bytes]] | None = None

    @property
    def headers(self) -> list[tuple[bytes, bytes]]:
        if self._headers is None:
            self._headers = security_headers(self.frame_ancestors, tuple(self.script_hashes()))
        return self._headers

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
    """One structured (JSON) line per request, with its latency: request id, method, path,
    status, response bytes, duration in ms. Replaces uvicorn's plain access log.

    Also the error boundary: an exception from the app (API or Dash, whose Flask app
    propagates them) is logged as one JSON line with the request id and the traceback as a
    string field, and answered 500 with that id; it never reaches uvicorn, which would print
    a raw multi-line traceback between the access lines.

    A request the client abandoned before any answer (it sent part of a body and hung up) is
    logged 499, nginx's "client closed request": no response was sent, and a 500 there would
    let anyone inflate the 5xx count that operators alert on."""

    def __init__(
        self, app: ASGIApp, logger_name: str = "llm_roofline.access", error_logger_name: str = "llm_roofline.error"
    ) -> None:
        self.app = app
        self.logger = logging.getLogger(logger_name)
        self.error_logger = logging.getLogger(error_logger_name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status, size, started, client_left = 500, 0, False, False
        rid = uuid.uuid4().hex[:16]
        token = request_id.set(rid)

        async def watch(message_source: Receive = receive) -> Message:
            nonlocal client_left
            message = await message_source()
            if message["type"] == "http.disconnect":
                client_left = True
            return message

        async def observe(message: Message) -> None:
            nonlocal status, size, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", rid.encode())]}
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, watch, observe)
            if not started and client_left:
                status = CLIENT_CLOSED_REQUEST
        except Exception as exc:  # the boundary: logged as JSON, answered 500, never re-raised to uvicorn
            self.error_logger.error(
                json.dumps(
                    {
                        "level": "error",
                        "request_id": rid,
                        "method": scope.get("method"),
                        "path": scope.get("path"),
                        "error": f"{type(exc).__name__}: {str(exc)[:500]}",
                        "traceback": "".join(traceback.format_exception(exc))[-8000:],
                    }
                )
            )
            if not started:
                for message in json_response(500, {"detail": "internal error", "request_id": rid}):
                    await observe(message)
        finally:
            request_id.reset(token)
            if self.logger.isEnabledFor(logging.INFO):
                self.logger.info(
                    json.dumps(
                        {
                            "request_id": rid,
                            "method": scope.get("method"),
                            "path": scope.get("path"),
                            "status": status,
                            "bytes": size,
                            "duration_ms": round((time.perf_counter() - start) * 1e3, 3),
                            "client": (scope.get("client") or ("", 0))[0],
                        }
                    )
                )


class ReadTimeout:
    """408 when a request's body has not fully arrived `timeout_s` after its headers: a client
    trickling a body must not hold a worker thread (a2wsgi's) or a connection for ever. The
    headers' own deadline is kept by the server's protocol (app/server.py)."""

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = anyio.current_time() + self.timeout_s
        body_done = timed_out = started = False

        async def timed_receive() -> Message:
            nonlocal body_done, timed_out
            if timed_out:
                return {"type": "http.disconnect"}
            if body_done:  # after the body, receive() only waits for a disconnect: no deadline
                return await receive()
            with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    body_done = True
                return message
            timed_out = True
            if not started:
                detail = f"request body not received within {self.timeout_s:g} s"
                for message in json_response(408, {"detail": detail}, [(b"connection", b"close")]):
                    await send(message)
            return {"type": "http.disconnect"}

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if timed_out:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, timed_receive, guarded_send)


class DashEnvelope:
    """400 for a POST to Dash's callback endpoint whose body is not a callback envelope: a JSON
    object with `output` (a registered callback), `outputs`, `inputs`, optional `state` and
    `changedPropIds`. Dash itself would raise on `{}`, `[]` or `null` (a 500). What each
    callback does with its values is the callbacks' business (app/dashboard/callbacks.py)."""

    def __init__(self, app: ASGIApp, callbacks=lambda: None) -> None:
        self.app = app
        self.callbacks = callbacks  # () -> Dash's callback_map ({output: {"inputs", "state", ...}}), or None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope.get("method") == "POST"
            and scope.get("path", "").endswith("/_dash-update-component")
        ):
            await self.app(scope, receive, send)
            return
        replay = await buffered(receive)
        if replay is None:
            return
        problem = self.problem(replay.body)  # type: ignore[attr-defined]
        if problem:
            for message in json_response(400, {"detail": f"not a Dash callback request: {problem}"}):
                await send(message)
            return
        await self.app(scope, replay, send)

    def problem(self, body: bytes) -> str | None:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            return "the body is not JSON"
        if not isinstance(data, dict):
            return "the body must be a JSON object"
        if not isinstance(data.get("output"), str):
            return "`output` must be a string"
        callbacks = self.callbacks()
        if callbacks is not None and data["output"] not in callbacks:
            return f"`output` {data['output'][:80]!r} is not a callback of this app"
        if not _dependencies(data.get("outputs"), allow_single=True):
            return "`outputs` must be an {id, property} object or a list of them"
        for key in ("inputs", "state"):
            if key in data and not _dependencies(data[key]):
                return f"`{key}` must be a list of {{id, property, value}} objects"
        if "inputs" not in data:
            return "`inputs` is missing"
        changed = data.get("changedPropIds", [])
        if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
            return "`changedPropIds` must be a list of strings"
        if callbacks is not None:  # Dash passes values by position: they must be the declared ones
            spec = callbacks[data["output"]]
            for key in ("inputs", "state"):
                if not _matches(data.get(key, []), spec.get(key, [])):
                    declared = ", ".join(f"{d['id']}.{d['property']}" for d in spec.get(key, []))
                    return f"`{key}` must be this callback's: {declared or 'none'}"
        return None


def _matches(given: list, declared: list) -> bool:
    """Same count and, for plain string ids, the same id and property at each position
    (pattern-matching ids are lists of matches: only their count is checked)."""
    if len(given) != len(declared):
        return False
    for g, d in zip(given, declared, strict=True):
        plain = isinstance(d.get("id"), str) and not d["id"].startswith("{")
        if plain and (not isinstance(g, dict) or (g.get("id"), g.get("property")) != (d["id"], d["property"])):
            return False
    return True


def _dependency(item: object) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), (str, dict)) and isinstance(item.get("property"), str)


def _dependencies(value: object, allow_single: bool = False) -> bool:
    """A list of {id, property} objects; pattern-matching (ALL/ALLSMALLER) entries are lists of them."""
    if allow_single and isinstance(value, dict):
        return _dependency(value)
    return isinstance(value, list) and all(
        _dependency(v) or (isinstance(v, list) and all(_dependency(w) for w in v)) for v in value
    )


class EngineGate:
    """At most `slots` engine requests (API POSTs, Dash callbacks, the Dash layout) run at once;
    the rest wait their turn on the event loop, where waiting costs nothing. Sixteen heavy
    sweeps in sixteen threads kept the event loop from the GIL for seconds, and /healthz with
    it; with a slot per core the loop gets the GIL back within a switch interval or two.

    `GET /_dash-layout` is engine work too: it renders the linked view (from the Referer)
    server-side, and eight clients with distinct `cfg=` links ran the engine beside the gate."""

    # A deployment search runs for seconds (a plan at the documented limits: 3.4-4.5 s); four at
    # once held both slots of a 2-core server and a 10 ms /serving request waited 10-16 s behind
    # them. Searches take a lane of their own, one slot fewer than the gate (at least one), before
    # a gate slot: they queue among themselves and a slot stays free for everything else.
    SEARCH_PATHS = ("/api/v1/plan",)

    def __init__(self, app: ASGIApp, slots: int) -> None:
        self.app = app
        self.slots = slots
        self._gate: anyio.Semaphore | None = None
        self._search_lane: anyio.Semaphore | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("method") in ("GET", "HEAD") and scope.get("path", "").endswith("/_dash-layout"):
            async with self._slots():
                await self.app(scope, receive, send)
            return
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        # The body is read before a slot is taken: a client trickling its body (up to the read
        # timeout) must not hold a slot while it does.
        receive = await buffered(receive)
        if receive is None:
            return
        if scope.get("path", "").rstrip("/") in self.SEARCH_PATHS:
            async with self._searches(), self._slots():
                await self.app(scope, receive, send)
            return
        async with self._slots():
            await self.app(scope, receive, send)

    def _slots(self) -> anyio.Semaphore:
        if self._gate is None:  # created on first use, inside the server's event loop
            self._gate = anyio.Semaphore(self.slots)
        return self._gate

    def _searches(self) -> anyio.Semaphore:
        if self._search_lane is None:
            self._search_lane = anyio.Semaphore(max(1, self.slots - 1))
        return self._search_lane


async def buffered(receive: Receive) -> Receive | None:
    """Read the whole request body now; a receive() that replays it (None if the client left)."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # client gone (or cut off by a limit above)
            return None
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    replay.body = body  # type: ignore[attr-defined]
    return replay


class HeadAsGet:
    """HEAD on the API and /healthz answered like GET without the body (FastAPI routes answer
    HEAD with 405, and /healthz fell through to the dashboard's HTML catch-all)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD":
            await self.app(scope, receive, send)
            return
        path = _local_path(scope)
        if not (path == "/healthz" or path.startswith("/api/")):
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": b""})
                return
            await send(message)  # keeps content-length: what GET would send

        await self.app({**scope, "method": "GET"}, receive, without_body)


def _local_path(scope: Scope) -> str:
    """The path without the sub-path prefix, whether the proxy stripped it or not."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root + "/") else path


class StaticCache:
    """Long cache lifetimes for Dash's assets when their URL carries a fingerprint (?m=mtime);
    Dash already does it for its component bundles. Only for /assets/ at the app's root and
    only for an asset that was found: `/x/assets/y?m=1` is the page's HTML catch-all, which
    must never be cached for a year."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        fingerprinted = (
            scope["type"] == "http"
            and _local_path(scope).startswith("/assets/")
            and b"m=" in scope.get("query_string", b"")
        )
        if not fingerprinted:
            await self.app(scope, receive, send)
            return

        async def cached(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = [(k, v) for k, v in message.get("headers", [])]
                html = any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)
                if not html:
                    headers = [(k, v) for k, v in headers if k.lower() != b"cache-control"]
                    message = {
                        **message,
                        "headers": headers + [(b"cache-control", b"public, max-age=31536000, immutable")],
                    }
            await send(message)

        await self.app(scope, receive, cached)


class RootPath:
    """Serve under a sub-path whether or not the proxy strips it: requests arrive as
    /roofline/x (prefix kept) or /x (prefix stripped); both route the same, and every
    generated URL (Dash bundles, OpenAPI, docs) carries the prefix. Starlette's routing
    removes scope["root_path"] from the path when the path starts with it.

    Redirects are made relative to the host: `/roofline` -> `/roofline/`, and a redirect the
    app builds from the Host header (Starlette's slash redirect) loses its scheme and host,
    so a forged Host is never reflected into a Location."""

    def __init__(self, app: ASGIApp, root_path: str) -> None:
        self.app = app
        self.root_path = root_path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.root_path:
            scope = {**scope, "root_path": self.root_path}
            if scope["type"] == "http" and scope.get("path") == self.root_path:
                query = scope.get("query_string", b"")
                location = (self.root_path + "/").encode() + (b"?" + query if query else b"")
                await send(
                    {
                        "type": "http.response.start",
                        "status": 307,
                        "headers": [(b"location", location), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return

        async def relative_redirects(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                message = {
                    **message,
                    "headers": [
                        (k, _relative(v) if k.lower() == b"location" else v) for k, v in message.get("headers", [])
                    ],
                }
            await send(message)

        await self.app(scope, receive, relative_redirects)


def _relative(location: bytes) -> bytes:
    parts = urlsplit(location.decode("latin-1"))
    if not parts.scheme and not parts.netloc:
        return location
    path = parts.path or "/"
    return (path + ("?" + parts.query if parts.query else "")).encode("latin-1")
