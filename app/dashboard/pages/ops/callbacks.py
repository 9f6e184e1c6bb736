"""The op lab's callbacks (`tab=ops`), module-level functions with keyword inputs: the
controls -> every panel and the canonical link (assets/04-url.js writes it with
replaceState); a typed what-if card -> the card list. The link and the controls are read
through the parameter table (params.py, by state.py and controls_state.py), the engine is
called by compute.py, the figure and tables are built by figures.py and tables.py; a preset
is a link to its query.
"""

from __future__ import annotations

from dash import Input, Output, State, html

from app.dashboard.components.what_if import added_what_if
from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.pages.ops.controls_state import control_values, from_controls, previous_state, said
from app.dashboard.pages.ops.layout import panels
from app.dashboard.pages.ops.state import lab_query
from app.dashboard.pages.roofline.state import View
from engine.hardware import catalogue

CALLBACKS = Callbacks()

PANEL_OUTPUTS = (
    ("lab-graph", "figure"),
    ("lab-summary", "children"),
    ("lab-views", "children"),
    ("lab-views-panel", "hidden"),
    ("lab-results", "children"),
    ("lab-details", "children"),
    ("lab-example-presets", "children"),
    ("lab-decode-presets", "children"),
    ("lab-gemm-fields", "hidden"),
    ("lab-conv-fields", "hidden"),
    ("lab-ew-fields", "hidden"),
    ("lab-fused-field", "hidden"),
    ("lab-dtype-field", "hidden"),
)


def context_view(context: object) -> View:
    """The page's language, theme, embedding and carried parameters (the `lab-context` store), checked."""
    context = context if isinstance(context, dict) else {}
    carry = context.get("carry") if isinstance(context.get("carry"), list) else []
    return View(
        tab="ops",
        lang=context.get("lang") if context.get("lang") in ("en", "zh") else "en",
        theme=context.get("theme") if context.get("theme") in ("light", "dark") else "light",
        embed=context.get("embed") is True,
        carry=tuple((str(c[0]), str(c[1])) for c in carry if isinstance(c, list) and len(c) == 2),
    )


@CALLBACKS.server(
    output={
        "panels": {i: Output(i, prop) for i, prop in PANEL_OUTPUTS},
        "status": Output("lab-status", "children"),
        "status_hidden": Output("lab-status", "hidden"),
        "link": Output("lab-link", "data"),
        "flags": Output("view-flags", "data", allow_duplicate=True),
    },
    inputs={"controls": control_values()},
    state={
        "context": State("lab-context", "data"),
        "flags": State("view-flags", "data"),
        "link": State("lab-link", "data"),
    },
)
def update(controls: dict, context: object, flags: object, link: object = None) -> dict:
    """Controls -> every panel, the status line, the canonical link and the page's flags. A
    refused value keeps the view the page showed (`link`, its canonical link) and is said in
    the control's own words."""
    view = context_view(context)
    state, hardware, refusals = from_controls(controls, previous_state(link))
    p = panels(view, state, hardware)
    status = [html.Div(said(refusal, state, hardware, view.lang)) for refusal in refusals]
    link = lab_query(view, state, hardware)
    # render_page (shell.py) re-renders the page only for a query other than this one
    new_flags = (flags if isinstance(flags, dict) else {}) | {"query": link["template"]}
    return {
        "panels": {i: p[i] for i, _ in PANEL_OUTPUTS},
        "status": status,
        "status_hidden": not status,
        "link": link,
        "flags": new_flags,
    }


@CALLBACKS.server(
    output={
        "options": Output("lab-what-if", "options"),
        "value": Output("lab-what-if", "value"),
        "text": Output("lab-whatif-text", "value"),
        "error": Output("lab-whatif-error", "children"),
    },
    inputs={"add": Input("lab-whatif-add", "n_clicks"), "submit": Input("lab-whatif-text", "n_submit")},
    state={
        "text": State("lab-whatif-text", "value"),
        "current": State("lab-what-if", "value"),
        "hardware": State("lab-hardware", "value"),
        "context": State("lab-context", "data"),
    },
)
def add_what_if(text: object, current: object, hardware: object, context: object, add=None, submit=None) -> dict:
    """A typed short form added to the what-if list (the same name again: the new numbers
    replace the old). A bad one is refused with the engine's message, which names the format;
    the list never passes MAX_HARDWARE with the catalogue cards. The list's change then runs
    `update`, which checks it again."""
    known = catalogue()
    taken = len({h for h in hardware if isinstance(h, str) and h in known}) if isinstance(hardware, list) else 0
    return added_what_if(text, current, taken, context_view(context).lang)


# the address bar: the server's canonical link (assets/04-url.js)
CALLBACKS.client(
    "url", "sync", Output("lab-url-sync", "data"), Input("lab-link", "data"), State("lab-url-sync", "data")
)


def register(app) -> None:
    CALLBACKS.register(app)
