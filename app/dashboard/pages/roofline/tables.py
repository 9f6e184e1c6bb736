"""The roofline page's tables: the ops of one accelerator and phase (sortable, with CSV and
JSON downloads) and the published measurements beside the bounds."""

from __future__ import annotations

from dash import dash_table, dcc, html

from app.dashboard.components.fields import dropdown_labels, panel
from app.dashboard.lib.i18n import t
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.roofline.views import ops_panel

# (column, number format): d3-format specifiers for the numeric columns
OPS_COLUMNS = (
    ("op", None),
    ("unit", None),
    ("flops", ".3s"),
    ("bytes", ".3s"),
    ("intensity", ",.3~r"),
    ("bound", None),
    ("time_us", ",.4~r"),
    ("share", ".1%"),
    ("scope", None),
)
REALITY_COLUMNS = ("gpu", "model", "scenario", "metric", "measured", "bound", "fraction", "mbu", "source")


def _ops_column(key: str, spec: str | None, lang: str) -> dict:
    name = t("col_time" if key == "time_us" else f"col_{key}", lang)
    if spec is None:
        return {"name": name, "id": key}
    return {"name": name, "id": key, "type": "numeric", "format": {"specifier": spec}}


def ops_table_panel(view: View) -> html.Section:
    lang = view.lang
    ops, ops_title, ops_options, ops_gpu = ops_panel(view)
    switch = html.Div(
        [
            html.Span(t("ops_gpu", lang), className="field-label small"),
            dcc.Dropdown(
                id="ops-gpu",
                options=ops_options,
                value=ops_gpu,
                clearable=False,
                className="ops-gpu",
                labels=dropdown_labels(lang),
            ),
            dcc.RadioItems(
                id="ops-phase",
                options=[{"label": t(p, lang), "value": p} for p in ("decode", "prefill")],
                value="decode",
                inline=True,
                className="toggle",
            ),
        ],
        className="inline-row ops-switch",
    )
    table = dash_table.DataTable(
        id="ops-table",
        data=ops,
        sort_action="native",
        columns=[_ops_column(key, spec, lang) for key, spec in OPS_COLUMNS],
        style_as_list_view=True,
        cell_selectable=False,
    )
    downloads = html.Div(
        [
            html.Button(t("download_csv", lang), id="ops-csv", n_clicks=0, className="button"),
            html.Button(t("download_json", lang), id="ops-json", n_clicks=0, className="button"),
        ],
        className="actions",
    )
    return panel(
        t("ops_table", lang),
        switch,
        html.Div(ops_title, id="ops-title", className="help"),
        table,
        downloads,
        dcc.Download(id="download-ops"),
        panel_id="ops-panel",
    )


def reality_panel(view: View, shown: dict) -> html.Section:
    lang = view.lang
    table = dash_table.DataTable(
        id="reality-table",
        data=shown["reality-table"],
        style_as_list_view=True,
        cell_selectable=False,
        columns=[
            {"name": t("col_bound_value" if k == "bound" else f"col_{k}", lang), "id": k} for k in REALITY_COLUMNS
        ],
        style_cell={"whiteSpace": "normal", "height": "auto", "textAlign": "left"},
    )
    note = html.Div(shown["reality-note"], id="reality-note", className="help")
    return panel(t("reality", lang), note, table, panel_id="reality-panel", hidden=not view.published)
