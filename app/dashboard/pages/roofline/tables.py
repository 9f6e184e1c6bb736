"""The roofline page's tables, plain HTML (components/table.py): the ops of one accelerator and
phase (sortable by any column, CSV and JSON downloads), the GPU comparison and the published
measurements beside the bounds."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components import table
from app.dashboard.components.fields import dropdown_labels, panel
from app.dashboard.lib.i18n import t

OPS_SHOWN = {
    "flops": table.si_prefix,
    "bytes": table.si_prefix,
    "intensity": table.significant(3),
    "time_us": table.significant(4),
    "share": table.percent,
}
OPS_KEYS = ("op", "unit", "flops", "bytes", "intensity", "bound", "time_us", "share", "scope")
COMPARISON_KEYS = ("gpu", "decode", "ttft1", "ttft", "maxb")
REALITY_KEYS = ("gpu", "model", "scenario", "metric", "measured", "bound", "fraction", "mbu", "mfu", "source")


def ops_columns(lang: str) -> list:
    return [(k, t("col_time" if k == "time_us" else f"col_{k}", lang), OPS_SHOWN.get(k)) for k in OPS_KEYS]


def comparison_columns(lang: str) -> list:
    return [(k, t(f"col_{k}", lang), None) for k in COMPARISON_KEYS]


def reality_columns(lang: str) -> list:
    return [(k, t("col_bound_value" if k == "bound" else f"col_{k}", lang), None) for k in REALITY_KEYS]


def ops_body(rows: list[dict], sort: dict | None, lang: str) -> list[list[str]]:
    """The ops table's cells as shown (the browser draws the rows: table.drawn_table)."""
    return table.cells(ops_columns(lang), rows if isinstance(rows, list) else [], sort)


def sorted_by(sort: object, key: str) -> dict:
    """A click on column `key`: that column, descending first for numbers; again: reversed."""
    sort = sort if isinstance(sort, dict) else {}
    if sort.get("key") == key:
        return {"key": key, "desc": not sort.get("desc")}
    return {"key": key, "desc": key in OPS_SHOWN}


def ops_table_panel(lang: str, ops: tuple) -> html.Section:
    rows, title, options, gpu = ops
    switch = html.Div(
        [
            html.Span(t("ops_gpu", lang), className="field-label small"),
            dcc.Dropdown(
                id="ops-gpu",
                options=options,
                value=gpu,
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
        html.Div(title, id="ops-title", className="help"),
        dcc.Store(id="ops-rows", data=rows),
        dcc.Store(id="ops-sort", data={}),
        *table.drawn_table("ops-table", ops_columns(lang), ops_body(rows, {}, lang), "ops-tbody", "ops-sort"),
        downloads,
        dcc.Download(id="download-ops"),
        panel_id="ops-panel",
    )


def _framed(table_id: str, columns: list, body_rows: list, body_id: str) -> html.Table:
    """A table around body rows the panels already built (views.panels)."""
    return html.Table([table.head(columns), html.Tbody(body_rows, id=body_id)], id=table_id, className="data-table")


def comparison_table(cells: list, lang: str) -> tuple:
    """The GPU comparison (the table and its cells' store), its rows drawn by the browser."""
    return table.drawn_table("comparison-table", comparison_columns(lang), cells, "comparison-body")


def reality_panel(view, body_rows: list, note: list | None = None) -> html.Section:
    return panel(
        t("reality", view.lang),
        html.Div(note or [], id="reality-note", className="help"),  # how many match, why the rest do not
        _framed("reality-table", reality_columns(view.lang), body_rows, "reality-body"),
        panel_id="reality-panel",
        hidden=not view.published,
    )
