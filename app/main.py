"""The one ASGI application: API under /api/v1, /healthz, and the Dash dashboard at /."""

from __future__ import annotations

import base64
import hashlib
import os

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware

import engine
from engine.errors import EngineInputError, visible
from engine.hardware import USER_DIR_ENV, catalogue

from .api.docs import add_docs
from .api.errors import engine_error_response, json_safe
from .api.plan_routes import plan_router
from .api.routes import health_router, router
from .api.serving_routes import serving_router
from .config import Settings, get_settings
from .middleware import (
    AccessLog,
    BodySizeLimit,
    DashEnvelope,
    EngineGate,
    HeadAsGet,
    ReadTimeout,
    RootPath,
    SecurityHeaders,
    StaticCache,
)


def _field(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path") and not _union_branch(str(p))]
    return ".".join(parts) or "body"


def _union_branch(part: str) -> bool:
    """A union's branch pydantic names in an error's location (literal['auto'], KvLinkFields,
    constrained-str, dict[str,any]): never a field of ours, all snake_case."""
    return any(c in part for c in "[]-") or (part[:1].isupper() and part.isidentifier())


def _one_per_field(errors: list[dict]) -> list[dict]:
    """A union's errors, one per field: a value that fails every branch of `'auto' | {...}`
    fails each branch, and the errors inside the branch the value was meant for (the deeper ones)
    say what to fix; the other branches' mismatches, and a second error at the same field, only
    repeat that it is wrong."""
    deeper = {e["field"].rsplit(".", 1)[0] for e in errors if "." in e["field"]}
    kept, seen = [], {}
    for e in errors:
        if e.get("union") and e["field"] in deeper:
            continue
        if e.get("union") and e["field"] in seen:  # another branch wanted an object here
            if e.get("code") in ("model_type", "model_attributes_type", "dict_type"):
                seen[e["field"]]["message"] += " or an object of its fields"
            continue
        seen[e["field"]] = {k: v for k, v in e.items() if k != "union"}
        kept.append(seen[e["field"]])
    return kept


def _whole_body_error(request: Request, exc: RequestValidationError) -> JSONResponse | None:
    """An empty body (400) or one not sent as JSON (415): the body as a whole, not a field of
    it, which pydantic would call 'Field required' or 'Input should be a valid dictionary'."""
    whole = [e for e in exc.errors() if tuple(e.get("loc", ())) == ("body",)]
    if not whole:
        return None
    content_type = request.headers.get("content-type", "")
    if whole[0].get("type") == "missing":
        message, status = "body is empty: send one JSON object", 400
    elif "json" not in content_type.split(";")[0].lower():
        sent = repr(visible(content_type[:60])) if content_type else "no content-type"
        message, status = f"body is sent as {sent}: send one JSON object as content-type: application/json", 415
    else:
        message, status = "body must be one JSON object of the request's fields", 422
    return JSONResponse({"detail": message, "errors": [{"field": "body", "message": message}]}, status_code=status)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    whole = _whole_body_error(request, exc)
    if whole is not None:
        return whole
    bad_json = next((e for e in exc.errors() if e.get("type") == "json_invalid"), None)
    if bad_json is not None:  # not a field problem: the body is not JSON at all (documented 400)
        where = bad_json["loc"][-1] if bad_json.get("loc") else "?"
        message = (
            f"body is not valid JSON (error at byte {where}: {bad_json['ctx'].get('error', 'invalid')})"
            if bad_json.get("ctx")
            else "body is not valid JSON"
        )
        return JSONResponse({"detail": message, "errors": [{"field": "body", "message": message}]}, status_code=400)
    errors = []
    for err in exc.errors():
        message = visible(err["msg"])
        if err.get("type") == "literal_error" and "expected" in err.get("ctx", {}):
            message = f"must be one of {err['ctx']['expected']}"
        errors.append(
            {
                "field": _field(tuple(err["loc"])),
                "message": message,
                "code": err.get("type"),  # pydantic's error type: missing, greater_than_equal, ...
                "params": json_safe(err.get("ctx")),
                "union": any(_union_branch(str(p)) for p in err["loc"]),
            }
        )
    errors = _one_per_field(errors)
    detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
    return JSONResponse({"detail": detail, "errors": errors}, status_code=422)


# FastAPI's answer to a body it can read but not parse (nested past the JSON parser's depth,
# bytes that are not UTF-8, an integer of thousands of digits): a bare detail, which every other
# 4xx of ours extends with an `errors` list naming the field.
UNPARSABLE_BODY = "There was an error parsing the body"


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    if exc.status_code == 400 and exc.detail == UNPARSABLE_BODY:
        message = (
            "body is not JSON this API reads (allowed: UTF-8 JSON, nested at most a few hundred levels, "
            "numbers of at most a few thousand digits)"
        )
        return JSONResponse({"detail": message, "errors": [{"field": "body", "message": message}]}, status_code=400)
    return await http_exception_handler(request, exc)


async def _engine_error(_: Request, exc: EngineInputError) -> JSONResponse:
    return engine_error_response(exc)  # 422 naming the field; 404 for an unknown accelerator


def create_app(settings: Settings | None = None, with_dashboard: bool = True) -> FastAPI:
    settings = settings or get_settings()
    if settings.hardware_dir:
        # the engine reads the extra catalogue directory from this variable
        os.environ[USER_DIR_ENV] = settings.hardware_dir
    catalogue()  # a bad accelerator file stops the start with its path and field, not a 500 later
    api = FastAPI(
        title="llm-roofline API",
        docs_url=None,
        redoc_url=None,
        version=engine.__version__,
        description="LLM inference on the roofline. Every number is in SI base units: FLOP, bytes, seconds, "
        "FLOP/s, bytes/s. Limits: batch 1..65536, context 1..16777216, 1..16 accelerators, "
        "sweep points x accelerators <= 16384, "
        f"request bodies up to {settings.max_body_bytes} bytes, sent within {settings.read_timeout_s:g} s. "
        "Malformed JSON is a 400; a body that does not fit the schema a 422 naming the field.",
    )
    add_docs(api)  # /docs and /redoc from local assets, no inline script (app/api/docs.py)
    api.add_exception_handler(RequestValidationError, _validation_error)
    api.add_exception_handler(StarletteHTTPException, _http_error)
    api.add_exception_handler(EngineInputError, _engine_error)
    api.include_router(health_router)
    api.include_router(router)
    api.include_router(serving_router)
    api.include_router(plan_router)

    # Unknown paths under /api/ answer JSON 404, never the dashboard's HTML (registered before
    # the Dash catch-all mount).
    @api.api_route(
        "/api/{path:path}",
        methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
        include_in_schema=False,
    )
    def api_not_found(request: Request, path: str) -> JSONResponse:
        allowed = sorted(
            {
                m
                for route in (*router.routes, *serving_router.routes, *plan_router.routes)
                if isinstance(route, APIRoute) and route.path_regex.match("/api/" + path)
                for m in route.methods
            }
        )
        if allowed:  # a real endpoint, wrong method
            return JSONResponse(
                {"detail": f"method {request.method} not allowed on {visible(request.url.path)}"},
                status_code=405,
                headers={"allow": ", ".join(allowed)},
            )
        return JSONResponse({"detail": f"no API endpoint /api/{visible(path)}"}, status_code=404)

    script_hashes: list[str] = []
    if with_dashboard:
        from .dashboard.mount import mount_dashboard

        dash_app = mount_dashboard(api, settings)
        script_hashes.append(_inline_script_hash(dash_app.renderer))
        _dash_errors(dash_app)
        callbacks = lambda: dash_app.callback_map  # noqa: E731
    else:
        callbacks = lambda: None  # noqa: E731

    if settings.cors_origins.strip():
        api.add_middleware(
            CORSMiddleware,
            allow_origins=[o.strip() for o in settings.cors_origins.split(",")],
            allow_methods=["GET", "POST"],
            allow_headers=["content-type"],
        )
    # Listed inner to outer. AccessLog sits outside everything that can answer early (400,
    # 408, 413) or fail, so every answer is logged with its request id, a 500 from an
    # exception included; SecurityHeaders outermost, so every answer carries the headers, the
    # sub-path redirect and that 500 included.
    api.add_middleware(StaticCache)
    api.add_middleware(GZipMiddleware, minimum_size=1024)
    api.add_middleware(HeadAsGet)
    api.add_middleware(EngineGate, slots=max(2, os.cpu_count() or 2))
    api.add_middleware(DashEnvelope, callbacks=callbacks)
    api.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    api.add_middleware(ReadTimeout, timeout_s=settings.read_timeout_s)
    api.add_middleware(AccessLog)
    api.add_middleware(RootPath, root_path=settings.root_path)
    api.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors, script_hashes=lambda: script_hashes)
    return api


def _inline_script_hash(script: str) -> str:
    """CSP hash of an inline script (Dash's one-line `var renderer = new DashRenderer();`)."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()


def _dash_errors(dash_app) -> None:
    """Flask lets exceptions through to the ASGI error boundary (AccessLog: one JSON line with
    the request id, instead of Flask's multi-line traceback on stderr); a bundle path Dash
    does not know is a 404, not an exception."""
    from dash.exceptions import DependencyException

    server = dash_app.server
    server.config["PROPAGATE_EXCEPTIONS"] = True
    server.register_error_handler(
        DependencyException,
        lambda _exc: (JSONResponse({"detail": "no such bundle"}).body, 404, {"content-type": "application/json"}),
    )


app = create_app()
