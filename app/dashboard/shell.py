"""The thin shell: the dispatch from `tab=` to the page's package, and the re-render when the
layout was asked without the page's link. The chrome every page shares (tabs, language, theme)
is components/header.py."""

from __future__ import annotations

from types import SimpleNamespace

from dash import Input, Output, State, dcc, html, no_update

from app.dashboard.components import header
from app.dashboard.pages.ops import callbacks as ops_callbacks
from app.dashboard.pages.ops import layout as ops_layout
from app.dashboard.pages.plan import callbacks as plan_callbacks
from app.dashboard.pages.plan import layout as plan_layout
from app.dashboard.pages.roofline import callbacks as roofline_callbacks
from app.dashboard.pages.roofline import layout as roofline_layout
from app.dashboard.pages.roofline.state import View, view_from_search
from app.dashboard.pages.serving import callbacks as serving_callbacks
from app.dashboard.pages.serving import layout as serving_layout
from app.dashboard.pages.training import callbacks as training_callbacks
from app.dashboard.pages.training import layout as training_layout

# tab -> the page's first paint and its callbacks
PAGES = {
    "roofline": SimpleNamespace(page=roofline_layout.page, register=roofline_callbacks.register),
    "ops": SimpleNamespace(page=ops_layout.page, register=ops_callbacks.register),
    "training": SimpleNamespace(page=training_layout.page, register=training_callbacks.register),
    "serving": SimpleNamespace(page=serving_layout.page, register=serving_callbacks.register),
    "plan": SimpleNamespace(page=plan_layout.page, register=plan_callbacks.register),
}


def page(view: View) -> html.Div:
    """The page the link's `tab=` names, with every figure and panel already computed: the first
    paint needs no callback round trip."""
    return PAGES[view.tab].page(view)


def shell(search: str) -> html.Div:
    view = view_from_search(search)
    return html.Div([dcc.Location(id="url", refresh=False), html.Div(page(view), id="page", className="page")])


def render_page(search: object, flags: object):
    """Only when the page was rendered for another query (no Referer reached the layout)."""
    search = search if isinstance(search, str) else ""
    if isinstance(flags, dict) and flags.get("query") == search.lstrip("?"):
        return no_update
    return page(view_from_search(search))


def register(app) -> None:
    app.callback(Output("page", "children"), Input("url", "search"), State("view-flags", "data"))(render_page)
    header.CALLBACKS.register(app)
