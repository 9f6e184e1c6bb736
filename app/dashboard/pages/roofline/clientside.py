"""The roofline page's clientside callbacks (assets/app.js, assets/url.js): slider and box
sync, grid moves, the settle timer, the address bar, the theme class and the exports.
Declared here, registered with the page's server callbacks (callbacks.register)."""

from __future__ import annotations

from dash import Input, Output, State

from app.dashboard.pages.roofline.callbacks import CALLBACKS, FLAGS

cs = "roofline"

# the sliders and their boxes: the box shows the slider's power of two, a typed value moves the
# slider; the points move from the grid with no server round trip (assets/03-live-path.js), and
# once the sliders rest (250 ms) that script sets `sizes` and `settled`, which the server's
# callbacks read
CALLBACKS.client(
    cs,
    "syncSizes",
    Output("batch-size", "value"),
    Output("batch-size-input", "value"),
    Output("context-length", "value"),
    Output("context-length-input", "value"),
    Output("batch-error", "children"),
    Output("context-error", "children"),
    Input("batch-size", "value"),
    Input("batch-size-input", "value"),
    Input("context-length", "value"),
    Input("context-length-input", "value"),
    State("sizes", "data"),
    State("grid", "data"),
    FLAGS,
)
CALLBACKS.client(
    cs,
    "drawStop",
    Output("roofline-graph", "figure", allow_duplicate=True),
    Input("grid", "data"),
    State("sizes", "data"),
    State("roofline-graph", "figure"),
)
CALLBACKS.client(
    cs,
    "limitHardware",
    Output("hardware", "value"),
    Output("hardware", "options"),
    Output("hardware-notice", "children"),
    Input("hardware", "value"),
    State("hardware", "options"),
    State("what-if", "value"),
    FLAGS,
)
# the address bar: the server's canonical link, with the sliders' values filled into its slots
# (a slider step refills it itself: app.js syncSizes, 04-url.js `moved`)
CALLBACKS.client(
    "url", "sync", Output("url-sync", "data"), Input("link", "data"), State("sizes", "data"), prevent_initial_call=False
)
CALLBACKS.client(
    cs, "rootClass", Output("app-root", "className"), Input("theme", "value"), Input("present", "value"), FLAGS
)
CALLBACKS.client(cs, "customPanel", Output("custom-panel", "hidden"), Input("model", "value"))
# the ops table's and the GPU comparison's rows, drawn from the server's text
# (components/table.drawn_table); the ops table's header says the column they are ordered by
CALLBACKS.client(
    "tables",
    "fillSorted",
    Output("ops-tbody", "className"),
    Input("ops-tbody-cells", "data"),
    Input("ops-sort", "data"),
    State("ops-tbody", "id"),
    prevent_initial_call=False,
)
CALLBACKS.client(
    "tables",
    "fill",
    Output("comparison-body", "className"),
    Input("comparison-body-cells", "data"),
    State("comparison-body", "id"),
    prevent_initial_call=False,
)
CALLBACKS.client(cs, "unticked", Output("reality-panel", "hidden"), Input("published", "value"))
CALLBACKS.client(
    cs,
    "exportImage",
    Output("export-png", "className"),
    Input("export-png", "n_clicks"),
    Input("export-svg", "n_clicks"),
    State("sizes", "data"),
    State("grid", "data"),
)
