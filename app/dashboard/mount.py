"""Build the Dash app and mount it at / inside the FastAPI app (a2wsgi; ../shared/STACK.md).

Dash runs as WSGI in a2wsgi's thread pool, so a slow callback never blocks the API's event
loop. Every bundle is served locally (serve_locally); no CDN, no version check.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import flask
from a2wsgi import WSGIMiddleware
from dash import Dash, html
from fastapi import FastAPI

from app.config import Settings
from app.dashboard import shell as page_shell
from app.dashboard.pages.roofline.state import View

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def _page_search() -> str:
    """The query string of the page that asked for the layout.

    Dash's renderer fetches `/_dash-layout` without the page's query string, but the fetch is
    same-origin and our Referrer-Policy (strict-origin-when-cross-origin) sends the page's
    full URL as Referer, so the first render can already show the linked view: no callback
    round trip before the first figure. Without a Referer (a privacy extension strips it),
    `shell.render_page` re-renders from `location.search`."""
    if not flask.has_request_context():
        return ""
    referrer = flask.request.referrer or ""
    return urlsplit(referrer).query if referrer else ""


def shell() -> html.Div:
    return page_shell.shell(_page_search())


def _leave_out_dash_table() -> None:
    """No page uses dash_table (deprecated; the tables are plain HTML, components/table.py), but
    Dash lists its 481 KB bundle on every page: emptied here, so a cold load skips it."""
    from dash import dash_table

    dash_table._js_dist[:] = [d for d in dash_table._js_dist if "dash_table" not in str(d.get("relative_package_path"))]


def build_dash(root_path: str) -> Dash:
    os.environ.setdefault("DASH_DISABLE_VERSION_CHECK", "true")
    _leave_out_dash_table()
    server = flask.Flask(__name__)
    app = Dash(
        __name__,
        server=server,
        title="llm-roofline",
        update_title=None,
        routes_pathname_prefix="/",
        requests_pathname_prefix=f"{root_path.rstrip('/')}/",
        assets_folder=str(ASSETS),
        serve_locally=True,
        compress=False,
        suppress_callback_exceptions=False,
    )
    app.layout = shell
    # every tab's ids, so Dash can check each callback against the page that carries it
    app.validation_layout = html.Div(
        [shell(), *(p.page(View(tab=tab)) for tab, p in page_shell.PAGES.items() if tab != "roofline")]
    )
    page_shell.register(app)
    for p in page_shell.PAGES.values():
        p.register(app)
    return app


def mount_dashboard(api: FastAPI, settings: Settings) -> Dash:
    dash_app = build_dash(settings.root_path)
    api.mount("/", WSGIMiddleware(dash_app.server))
    return dash_app
