"""The op lab (`tab=ops`): one kernel (GEMM, conv2d, elementwise chain) or the teaching chart
(GEMM 8192³, an elementwise add and a 7B model's decode at batch 1; Williams et al. 2009) on
the roofline of the selected accelerators, real or what-if, with launch overhead as the third
regime. This module is the page, thin: the link is read through the parameter table
(params.py, state.py), the engine is called by compute.py, and the figure and the tables are
built by figures.py and tables.py. Every control change writes the canonical link back
(callbacks.py, assets/04-url.js); a preset is a link to its query.
"""

from __future__ import annotations

from dataclasses import replace

from dash import dcc, html

from app.dashboard.components.graph import GRAPH_CONFIG
from app.dashboard.components.header import lab_shell
from app.dashboard.lib.i18n import STRINGS, reason, t
from app.dashboard.pages.links import carried
from app.dashboard.pages.ops.compute import compute
from app.dashboard.pages.ops.controls import controls, model_field
from app.dashboard.pages.ops.figures import op_figure
from app.dashboard.pages.ops.params import TEACHING
from app.dashboard.pages.ops.state import OWN, OpsState, lab_query, parse_args, presets, state_from_preset
from app.dashboard.pages.ops.tables import details, kernels_table, results_table, summary, views_table
from app.dashboard.pages.roofline.state import DEFAULT_HARDWARE, View


def preset_links(view: View, state: OpsState, hardware: tuple[str, ...]) -> tuple[list, list]:
    """(the example shapes + the teaching chart, the model's decode projections) as links."""
    lang = view.lang
    examples, decode = [], []
    for p in presets(state.model):
        target = state_from_preset(p, state)
        key = f"lab_ops_preset_{p['id'].replace('-', '_')}"
        is_decode = p["id"].startswith("decode-")
        label = p["id"].removeprefix("decode-") if is_decode else (t(key, lang) if key in STRINGS else p["label"])
        link = dcc.Link(
            label,
            href="?" + lab_query(view, target, hardware)["template"],
            id=f"lab-preset-{p['id']}",
            className="lab-preset",
            title=p["label"],
        )
        (decode if is_decode else examples).append(link)
    chart = replace(OpsState(), op=TEACHING, model=state.model, what_if=state.what_if)
    examples.append(
        dcc.Link(
            t("lab_ops_preset_teaching", lang, model=state.model),
            href="?" + lab_query(view, chart, hardware)["template"],
            id="lab-preset-teaching",
            className="lab-preset",
        )
    )
    return examples, decode


def panels(view: View, state: OpsState, hardware: tuple[str, ...]) -> dict:
    """Everything the lab shows for a state, by component id (the page and the callback)."""
    lang = view.lang
    computed = compute(state, hardware)
    examples, decode = preset_links(view, state, hardware)
    kernels = kernels_table(computed, lang)
    views = views_table(computed, lang)
    return {
        "lab-graph": op_figure(computed, computed["accelerators"], state.dtype, lang, view.theme),
        "lab-summary": summary(computed, lang),
        "lab-views": [views] if views is not None else [],
        "lab-views-panel": views is None,
        "lab-results": results_table(computed, lang),
        "lab-details": details(computed, lang) + ([html.H3(t("lab_ops_kernels", lang)), kernels] if kernels else []),
        "lab-example-presets": examples,
        "lab-decode-presets": decode,
        "lab-gemm-fields": state.op != "gemm",
        "lab-conv-fields": state.op != "conv2d",
        "lab-ew-fields": state.op != "elementwise",
        "lab-fused-field": state.op not in ("gemm", "elementwise"),
        "lab-dtype-field": state.op == TEACHING,
    }


def notice_text(notice: tuple[str, str, str], lang: str) -> str:
    """What was ignored, said in the page's language (the reason through i18n.reason)."""
    name, value, why = notice
    return t("notice_ignored", lang, name=name, value=value, why=reason(why, lang))


def _section(title: str, *children, section_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=section_id)


def page(view: View) -> html.Div:
    """The lab for the link it was opened with: parsed, computed and drawn server-side, so
    the first paint already shows the linked view."""
    lang = view.lang
    hardware = view.hardware or DEFAULT_HARDWARE
    view = replace(view, carry=carried(view.lab_args, OWN))
    state, notices = parse_args(view.lab_args, hardware)
    p = panels(view, state, hardware)
    link = lab_query(view, state, hardware)
    graph_config = {
        **GRAPH_CONFIG,
        "toImageButtonOptions": {"format": "png", "filename": f"oplab-{state.op}", "scale": 2},
    }
    body = html.Main(
        [
            dcc.Store(
                id="lab-context",
                data={"lang": lang, "theme": view.theme, "embed": view.embed, "carry": [list(c) for c in view.carry]},
            ),
            dcc.Store(id="lab-link", data=link),
            dcc.Store(id="lab-url-sync", data=""),
            controls(view, state, hardware),
            html.Div(
                [
                    html.Div(id="lab-status", className="notices lab-status", role="status", hidden=True),
                    dcc.Graph(id="lab-graph", figure=p["lab-graph"], config=graph_config, className="lab-graph"),
                    html.Div(p["lab-summary"], id="lab-summary", className="insight"),
                ],
                className="figure lab-figure",
            ),
            html.Aside(
                [
                    _section(
                        t("lab_ops_presets", lang),
                        html.Div(p["lab-example-presets"], id="lab-example-presets", className="lab-presets"),
                        model_field(state, lang),
                        html.Div(p["lab-decode-presets"], id="lab-decode-presets", className="lab-presets"),
                        section_id="lab-presets",
                    ),
                    html.Section(
                        [html.H2(t("lab_ops_views", lang)), html.Div(p["lab-views"], id="lab-views")],
                        className="panel",
                        id="lab-views-panel",
                        hidden=p["lab-views-panel"],
                    ),
                ],
                className="side",
            ),
            html.Section(
                [
                    html.H2(t("lab_ops_results", lang)),
                    html.Div(p["lab-results"], id="lab-results"),
                    html.Div(p["lab-details"], id="lab-details"),
                ],
                className="panel lab-wide",
                id="lab-results-panel",
            ),
        ],
        id="ops-lab",
        className="main lab lab-ops",
    )
    lab_notices = [notice_text(notice, lang) for notice in notices]
    return lab_shell(view, [body], lab_notices, link["tabs"])
