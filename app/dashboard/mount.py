"""Build the Dash app and mount it at / inside the FastAPI app (a2wsgi; ../shared/STACK.md).

Dash runs as WSGI in a2wsgi's thread pool, so a slow callback never blocks the API's event
loop. Every bundle is served locally (serve_locally); no CDN, no version check.
"""

from __future__ import annotations

import os
from pathlib import Path

import flask
from a2wsgi import WSGIMiddleware
from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html
from fastapi import FastAPI

from ..config import Settings
from . import callbacks
from .layout import page
from .url_state import View

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def shell() -> html.Div:
    # The renderer fetches the layout without the page's query string, so the page itself is
    # rendered by a callback on the URL (callbacks.render_page): a link reproduces the view.
    return html.Div([dcc.Location(id="url", refresh=False), html.Div(id="page", className="page")])


def build_dash(root_path: str) -> Dash:
    os.environ.setdefault("DASH_DISABLE_VERSION_CHECK", "true")
    server = flask.Flask(__name__)
    app = Dash(
        __name__, server=server, title="llm-roofline", update_title=None,
        routes_pathname_prefix="/", requests_pathname_prefix=f"{root_path.rstrip('/')}/",
        assets_folder=str(ASSETS), serve_locally=True, compress=False,
        suppress_callback_exceptions=False,
    )
    app.layout = shell
    app.validation_layout = html.Div([shell(), page(View())])
    callbacks.register(app)
    cs = "roofline"
    app.clientside_callback(ClientsideFunction(cs, "syncBatch"),
                            Output("batch-size", "value"), Output("batch-size-input", "value"),
                            Input("batch-size", "value"), Input("batch-size-input", "value"))
    app.clientside_callback(ClientsideFunction(cs, "syncContext"),
                            Output("context-length", "value"), Output("context-length-input", "value"),
                            Input("context-length", "value"), Input("context-length-input", "value"))
    app.clientside_callback(ClientsideFunction(cs, "syncUrl"), Output("url-sync", "data"),
                            Input("hardware", "value"), Input("model", "value"), Input("batch-size-input", "value"),
                            Input("context-length-input", "value"), Input("kv-heads", "value"),
                            Input("kv-heads", "marks"), Input("precision", "value"), Input("kv-precision", "value"),
                            Input("flash-attention", "value"), Input("tensor-parallel", "value"),
                            Input("measured-roofs", "value"), Input("bandwidth-efficiency", "value"),
                            Input("compute-efficiency", "value"), Input("measured-step", "value"),
                            Input("theme", "value"), Input("present", "value"), State("view-flags", "data"))
    app.clientside_callback(ClientsideFunction(cs, "rootClass"), Output("app-root", "className"),
                            Input("theme", "value"), Input("present", "value"), State("view-flags", "data"))
    app.clientside_callback(ClientsideFunction(cs, "customPanel"), Output("custom-panel", "hidden"),
                            Input("model", "value"))
    app.clientside_callback(ClientsideFunction(cs, "changeLang"), Output("lang", "className"),
                            Input("lang", "value"), State("view-flags", "data"), prevent_initial_call=True)
    app.clientside_callback(ClientsideFunction(cs, "copyLink"), Output("copy-status", "children"),
                            Input("copy-link", "n_clicks"), State("view-flags", "data"), prevent_initial_call=True)
    app.clientside_callback(ClientsideFunction(cs, "exportImage"), Output("export-png", "className"),
                            Input("export-png", "n_clicks"), Input("export-svg", "n_clicks"),
                            prevent_initial_call=True)
    return app


def mount_dashboard(api: FastAPI, settings: Settings) -> Dash:
    dash_app = build_dash(settings.root_path)
    api.mount("/", WSGIMiddleware(dash_app.server))
    return dash_app
