"""The Serving page (tab=serving): controls | the throughput-interactivity chart, the latency
chart, a table per accelerator and the insight; the fit to the user's runs below the
controls. The first paint is computed server-side from the link (no callback round trip)."""

from __future__ import annotations

from dataclasses import replace

from dash import dcc, html

from app.dashboard.components.graph import graph_config
from app.dashboard.components.header import lab_shell
from app.dashboard.pages.links import carried
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.callbacks import outputs
from app.dashboard.pages.serving.controls import fit_controls, scenario_controls
from app.dashboard.pages.serving.params import OWN
from app.dashboard.pages.serving.state import export_name, link_of, parse_args
from app.dashboard.pages.serving.words import w


def _exports(lang: str) -> html.Div:
    return html.Div(
        [
            html.Button("PNG", id="srv-export-png", n_clicks=0, className="button"),
            html.Button("SVG", id="srv-export-svg", n_clicks=0, className="button"),
            html.Button("HTML", id="srv-export-html", n_clicks=0, className="button"),
            html.Button("CSV", id="srv-export-csv", n_clicks=0, className="button"),
            html.Button("JSON", id="srv-export-json", n_clicks=0, className="button"),
            dcc.Download(id="srv-download"),
        ],
        className="actions srv-exports",
        **{"aria-label": w("srv_exports", lang)},
    )


def page(view: View) -> html.Div:
    lang = view.lang
    view = replace(view, carry=carried(view.lab_args, OWN))
    args, notices = parse_args(view)
    error, top, bottom, tables, words, caption, fit_state = outputs(args, [], lang, view.theme, view.present)
    flags = {"lang": lang, "theme": view.theme, "embed": view.embed, "present": view.present}
    flags["carry"] = [list(c) for c in view.carry]
    link = link_of(view, args)
    name = export_name(args)
    body = html.Main(
        [
            dcc.Store(id="srv-flags", data=flags),
            dcc.Store(id="srv-link", data=link),
            dcc.Store(id="srv-url", data=""),
            dcc.Store(id="srv-camera", data=""),
            html.Div(
                [*scenario_controls(args, lang), fit_controls(args, lang, fit_state)],
                className="controls srv-controls",
                id="srv-controls",
            ),
            html.Div(
                [
                    html.Div(error, id="srv-error", className="error", role="alert"),
                    html.Section(
                        [
                            html.H2(w("srv_chart_title", lang)),
                            # the scenario above the chart, in text that wraps (a figure title is cut)
                            html.P(caption, id="srv-provenance", className="help srv-provenance"),
                            dcc.Graph(
                                id="srv-throughput", figure=top, config=graph_config(name), className="srv-graph"
                            ),
                            _exports(lang),
                        ],
                        className="panel srv-chart-panel",
                        id="srv-chart-panel",
                    ),
                    html.Section(
                        [html.H2(w("srv_insight_title", lang)), html.Div(words, id="srv-insight")],
                        className="panel srv-insight",
                        id="srv-insight-panel",
                    ),
                    html.Section(
                        [html.H2(w("srv_tables_title", lang)), html.Div(tables, id="srv-tables")],
                        className="panel srv-tables",
                        id="srv-tables-panel",
                    ),
                    html.Section(
                        [
                            html.H2(w("srv_latency_title", lang)),
                            dcc.Graph(
                                id="srv-latency",
                                figure=bottom,
                                config=graph_config(f"{name}-latency"),
                                className="srv-latency-graph",
                            ),
                        ],
                        className="panel srv-latency-panel",
                        id="srv-latency-panel",
                    ),
                ],
                className="srv-results",
            ),
        ],
        id="srv-page",
        className="lab srv-page",
    )
    return lab_shell(view, [body], notices, link["tabs"])
