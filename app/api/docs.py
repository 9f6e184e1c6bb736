"""/docs (Swagger UI) and /redoc served from this app, with no inline script: FastAPI's own
pages load their JS and CSS from CDNs (blocked by our CSP, and absent offline) and start
Swagger UI with an inline script (blocked by a CSP without 'unsafe-inline').

The assets are fastapi-offline's vendored copies (a pinned dependency); Swagger UI is started
by /docs/init.js, which reads the OpenAPI URL from a data attribute."""

from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
STATIC_URL = "/docs-static"
FILES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}

SWAGGER_INIT = """\
(function () {
  var el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.getAttribute("data-openapi-url"), dom_id: "#swagger-ui", layout: "BaseLayout",
    deepLinking: true, showExtensions: true, showCommonExtensions: true, validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset]
  });
})();
"""


# ReDoc draws a "Redocly" logo from its CDN: an empty inline SVG instead, so the page asks
# nothing of another host (and breaks no CSP rule).
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@lru_cache(maxsize=1)
def _redoc_js() -> bytes:
    return (ASSETS / "redoc.standalone.js").read_text(encoding="utf-8").replace(REDOC_LOGO, EMPTY_SVG).encode()


def add_docs(api: FastAPI) -> None:
    """Register /docs, /docs/init.js, /redoc and the static assets on `api` (created with
    docs_url=None and redoc_url=None)."""
    title = escape(api.title)

    # A route over a fixed list of files rather than a StaticFiles mount: a mount does not
    # route when a proxy strips the sub-path (app.middleware.RootPath).
    @api.get(STATIC_URL + "/{name}", include_in_schema=False)
    def docs_asset(name: str) -> Response:
        if name not in FILES:
            return JSONResponse({"detail": f"no such file {name[:80]!r}"}, status_code=404)
        headers = {"cache-control": "public, max-age=86400"}
        if name == "redoc.standalone.js":
            return Response(_redoc_js(), media_type=FILES[name], headers=headers)
        return FileResponse(ASSETS / name, media_type=FILES[name], headers=headers)

    def urls(request: Request) -> tuple[str, str]:
        root = request.scope.get("root_path", "").rstrip("/")
        return escape(root + STATIC_URL), escape(root + (api.openapi_url or "/openapi.json"))

    @api.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        static, spec = urls(request)
        root = escape(request.scope.get("root_path", "").rstrip("/"))
        return HTMLResponse(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Swagger UI</title>
<link rel="stylesheet" href="{static}/swagger-ui.css"><link rel="icon" href="{static}/favicon.png"></head>
<body><div id="swagger-ui" data-openapi-url="{spec}"></div>
<script src="{static}/swagger-ui-bundle.js"></script><script src="{root}/docs/init.js"></script></body></html>""")

    @api.get("/docs/init.js", include_in_schema=False)
    def swagger_init() -> Response:
        return Response(SWAGGER_INIT, media_type="text/javascript")

    @api.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        static, spec = urls(request)
        return HTMLResponse(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="{static}/favicon.png">
</head><body><redoc spec-url="{spec}"></redoc><script src="{static}/redoc.standalone.js"></script></body></html>""")
