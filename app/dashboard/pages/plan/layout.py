"""The Planner page (tab=plan): controls | the frontier chart with the verdict above it, the
accelerators compared, the top N with their launch commands. The first paint is computed
server-side from the link (no callback round trip). In an embed: the chart and the verdict
only, with "Open full view" and Copy link."""

from __future__ import annotations

from dataclasses import replace

from dash import dcc, html

from app.dashboard.components.graph import graph_config
from app.dashboard.components.header import lab_shell
from app.dashboard.pages.links import carried
from app.dashboard.pages.plan.controls import SLIDERS, controls
from app.dashboard.pages.plan.params import OWN
from app.dashboard.pages.plan.state import export_name, link_of, parse_args, targets_of
from app.dashboard.pages.plan.table import table_words, top_table
from app.dashboard.pages.plan.view import shown
from app.dashboard.pages.plan.words import w
from app.dashboard.pages.roofline.state import View


def _exports(lang: str) -> html.Div:
    buttons = [
        html.Button(kind, id=f"plan-export-{kind.lower()}", n_clicks=0, className="button")
        for kind in ("PNG", "SVG", "HTML", "CSV")
    ]
    return html.Div(
        [*buttons, dcc.Download(id="plan-download")],
        className="actions plan-exports",
        **{"aria-label": w("plan_exports", lang)},
    )


def page(view: View) -> html.Div:
    lang = view.lang
    view = replace(view, carry=carried(view.lab_args, OWN))
    args, notices = parse_args(view)
    out = shown(args, [], [], lang, view.theme, view.present)
    flags = {"lang": lang, "theme": view.theme, "embed": view.embed, "present": view.present}
    flags["carry"] = [list(c) for c in view.carry]
    link = link_of(view, args)
    name = export_name(args)
    chart = html.Section(
        [
            html.H2(w("plan_chart_title", lang)),
            # drawn from the view (assets/13-plan.js); the first paint holds the same words
            html.P(out["view"]["verdict"], id="plan-verdict", className="plan-verdict", role="status"),
            html.P(out["view"]["counts"], id="plan-counts", className="help plan-counts"),
            html.P(out["view"]["caption"], id="plan-provenance", className="help plan-provenance"),
            dcc.Graph(id="plan-frontier", figure=out["figure"], config=graph_config(name), className="plan-graph"),
            _exports(lang),
        ],
        className="panel plan-chart-panel",
        id="plan-chart-panel",
    )
    compare = html.Section(
        [
            html.H2(w("plan_compare_title", lang)),
            dcc.Graph(id="plan-compare", figure=out["compare"], config=graph_config(f"{name}-compare"),
                      className="plan-compare-graph"),
        ],
        className="panel plan-compare-panel",
        id="plan-compare-panel",
        hidden=out["compare_hidden"],
    )  # fmt: skip
    top = html.Section(
        [
            html.H2(w("plan_top_title", lang)),
            html.Div(top_table(lang), id="plan-table"),
            html.Span(id="plan-copy-commands-status", className="copy-status", **{"aria-live": "polite"}),
        ],
        className="panel plan-top-panel",
        id="plan-top-panel",
        # the words assets/13-plan.js writes in the rows and says after Copy
        **{f"data-word-{k}": v for k, v in table_words(lang).items()},
        **{"data-copied": w("plan_copied", lang), "data-blocked": w("plan_copy_blocked", lang)},
    )
    body = html.Main(
        [
            dcc.Store(id="plan-flags", data=flags),
            dcc.Store(id="plan-link", data=link),
            dcc.Store(id="plan-url", data=""),
            dcc.Store(id="plan-drawn", data=out["drawn"]),
            dcc.Store(id="plan-view", data=out["view"]),
            dcc.Store(id="plan-grid", data=None),  # callbacks.update_grid, once the page is drawn
            dcc.Store(id="plan-grid-asked", data={"drawn": out["drawn"]}),
            dcc.Store(id="plan-grid-ready", data=None),
            # each slider's stops in ms: a step sets its box and goes to the server even before the grid is in
            dcc.Store(id="plan-stops", data={name: list(stops) for name, stops in SLIDERS.items()}),
            dcc.Store(id="plan-sizes", data=targets_of(args)),
            dcc.Store(id="plan-settled", data=targets_of(args)),
            dcc.Store(id="plan-view-drawn", data=None),
            dcc.Store(id="plan-image", data=None),
            dcc.Store(id="plan-image-done", data=None),
            dcc.Store(id="plan-camera", data=""),
            html.Div(controls(args, lang), className="controls plan-controls", id="plan-controls"),
            html.Div(
                [html.Div(out["error"], id="plan-error", className="error", role="alert"), chart, compare, top],
                className="plan-results",
            ),
        ],
        id="plan-page",
        className="lab plan-page",
    )
    return lab_shell(view, [body], notices, link["tabs"])
