"""The roofline page for a view, with every figure and panel already computed: the first paint
needs no callback round trip, and the callbacks fire only on changes."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import panel
from app.dashboard.components.graph import GRAPH_CONFIG, graph_config
from app.dashboard.components.header import HEADER_MESSAGES, notice_items, page_header, root_classes
from app.dashboard.lib.i18n import t
from app.dashboard.pages.roofline.callbacks import link_data
from app.dashboard.pages.roofline.controls import controls
from app.dashboard.pages.roofline.params import BY_NAME
from app.dashboard.pages.roofline.state import View, export_name, to_query
from app.dashboard.pages.roofline.symbol_key import symbol_key
from app.dashboard.pages.roofline.tables import comparison_table, ops_table_panel, reality_panel
from app.dashboard.pages.roofline.views import drawn_for, ops_panel, panels, roofline, subtitle

# Messages the browser shows itself (input validation): translated here, filled in by app.js.
CLIENT_MESSAGES = ("batch_invalid", "context_invalid", "hardware_limit", *HEADER_MESSAGES)


def flags(view: View) -> dict:
    """What the browser's scripts read: the language, the embedding, the query the page was
    rendered for (render_page), the boxes' limits (the table's) and their messages."""
    limits = {"batch": BY_NAME["batch"].kind.kind.high, "ctx": BY_NAME["ctx"].kind.kind.high}
    highs = {"batch_invalid": limits["batch"], "context_invalid": limits["ctx"]}
    fill = {"v": "{v}", "n": "{n}", "typed": "{typed}"}
    return {
        "lang": view.lang,
        "embed": view.embed,
        "controls": view.controls,
        "query": view.query,
        "limits": limits,
        "messages": {k: t(k, view.lang, **fill, high=f"{highs.get(k, 0):,}") for k in CLIENT_MESSAGES},
    }


def stores(view: View, figure: dict, grid: dict | None) -> list:
    sizes = {"batch": view.batch, "ctx": view.context}
    # No store starts empty (None): dcc.Store would "change" None to undefined on mount and fire
    # every callback that listens to it.
    custom = {"config": view.custom_config, "token": view.custom_token} if view.model == "custom" else {}
    return [
        dcc.Store(id="view-flags", data=flags(view)),
        dcc.Store(id="custom-model", data=custom),
        dcc.Store(id="measurements", data={}),
        dcc.Store(id="sizes", data=sizes),
        dcc.Store(id="settled", data=sizes),
        dcc.Store(id="grid", data=grid or {}),
        dcc.Store(id="roofline-drawn", data=drawn_for(view, figure)),  # what a slider's rest may patch
        dcc.Store(id="link", data=link_data(view)),
        dcc.Store(id="url-sync", data=""),
        dcc.Store(id="pin", data=view.pin),
    ]


def header(view: View) -> html.Header:
    """The shared header (components/header.py) with the roofline's exports."""
    lang = view.lang
    exports = [
        html.Button("PNG", id="export-png", n_clicks=0, className="button"),
        html.Button("SVG", id="export-svg", n_clicks=0, className="button"),
        html.Button(
            t("export_html", lang), id="export-html", n_clicks=0, className="button", title=t("export_html_title", lang)
        ),
        dcc.Download(id="download-html"),
    ]
    return page_header(view, t("title", lang), link_data(view)["tabs"], exports, "?" + to_query(view))


def side(view: View, shown: dict) -> html.Aside:
    lang = view.lang
    comparison = comparison_table(shown["comparison-body-cells"], lang)
    return html.Aside(
        [
            panel(
                t("insight", lang),
                html.Div(shown["insight"], id="insight", className="insight"),
                panel_id="insight-panel",
            ),
            panel(
                t("compare", lang),
                html.Div(shown["pin-compare"], id="pin-compare"),
                panel_id="compare-panel",
                hidden=shown["compare-panel"],
            ),
            panel(
                t("memory", lang),
                dcc.Graph(id="memory-graph", figure=shown["memory-graph"], config=GRAPH_CONFIG),
                panel_id="memory-panel",
            ),
            panel(
                t("comparison", lang),
                *comparison,
                html.P(t("comparison_help", lang), className="help"),
                panel_id="comparison-panel",
            ),
        ],
        className="side",
        id="side-panels",
    )


def below(view: View, shown: dict) -> html.Div:
    lang = view.lang
    graphs = [
        panel(
            t(title, lang),
            dcc.Graph(id=f"{name}-graph", figure=shown[f"{name}-graph"], config=GRAPH_CONFIG),
            panel_id=f"{name}-panel",
        )
        for title, name in (("interactivity", "interactivity"), ("throughput", "throughput"))
    ]
    return html.Div(
        [
            panel(t("request", lang), html.Div(shown["request"], id="request"), panel_id="request-panel"),
            *graphs,
            ops_table_panel(lang, ops_panel(view)),
            panel(
                t("triage", lang),
                html.Div(shown["triage"], id="triage"),
                panel_id="triage-panel",
                hidden=shown["triage-panel"],
            ),
            reality_panel(view, shown["reality-body"], shown["reality-note"]),
        ],
        className="below",
        id="below-panels",
    )


def page(view: View) -> html.Div:
    """The whole page for a view: stores, header, notices, controls, the figure, the panels."""
    figure, grid = roofline(view)
    shown = panels(view)
    notices = notice_items(view)
    figure_config = graph_config(export_name(view, "roofline"))
    scenario_line = subtitle(view, view.batch, view.context)
    return html.Div(
        [
            *stores(view, figure, grid),
            header(view),
            html.Ul(notices, id="notices", className="notices", hidden=not notices, role="status"),
            html.Ul(shown["efficiency-notice"], id="efficiency-notice", className="efficiency-notice", role="status"),
            html.Main(
                [
                    controls(view),
                    html.Div(
                        [
                            # the scenario, over the chart (the export prints it as the chart's title)
                            html.P(scenario_line, id="roofline-scenario", className="scenario-line"),
                            dcc.Graph(
                                id="roofline-graph", figure=figure, config=figure_config, className="roofline-graph"
                            ),
                            # what each mark means, wrapping at any width (symbol_key.py)
                            html.P(symbol_key(figure), id="roofline-key", className="symbol-key"),
                        ],
                        className="figure",
                    ),
                    side(view, shown),
                ],
                className="main",
            ),
            below(view, shown),
        ],
        className=root_classes(view),
        id="app-root",
        lang="zh-CN" if view.lang == "zh" else "en",
    )
