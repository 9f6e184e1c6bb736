"""The Planner page's callbacks, module-level with keyword inputs (lib/callbacks.py): the
controls -> the chart, verdict, table, comparison and link, where a target's move re-filters
the search already made and patches the chart (view.moved) and any other change asks the
cache or the engine (view.shown); the price boxes, one per accelerator; the downloads."""

from __future__ import annotations

from dataclasses import replace

from dash import ALL, Input, Output, State, dcc, no_update

from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.markup import plotly_text
from app.dashboard.lib.params import control_inputs
from app.dashboard.pages.plan.compute import answered
from app.dashboard.pages.plan.controls import SLIDERS, price_boxes
from app.dashboard.pages.plan.exports import plan_csv, plan_html
from app.dashboard.pages.plan.figures import compare_figure, frontier_figure
from app.dashboard.pages.plan.measured import measured_runs
from app.dashboard.pages.plan.params import PARAMS, PlanArgs, Prices
from app.dashboard.pages.plan.provenance import accelerator_names, provenance
from app.dashboard.pages.plan.state import (
    args_from_controls,
    consistent,
    export_name,
    link_of,
    slider_position,
    stop_ms,
)
from app.dashboard.pages.plan.view import moved, patches, shown
from app.dashboard.pages.plan.words import verdict
from app.dashboard.pages.roofline.params import Accelerators
from app.dashboard.pages.roofline.state import View
from engine.errors import EngineInputError

CALLBACKS = Callbacks()
FLAGS = State("plan-flags", "data")
SLIDER_INPUTS = {f"plan-{n}-slider.value": Input(f"plan-{n}-slider", "value") for n in SLIDERS}
CONTROLS = {**control_inputs(PARAMS, Input), "plan-hw.value": Input("plan-hw", "value")}
# what re-filters the search on screen rather than asking for another
TARGET_TRIGGERS = {"plan-tpot", "plan-ttft", "plan-tpot-slider", "plan-ttft-slider", "plan-target"}
SHOWN = {
    "error": Output("plan-error", "children"),
    "figure": Output("plan-frontier", "figure"),
    "verdict": Output("plan-verdict", "children"),
    "counts": Output("plan-counts", "children"),
    "table": Output("plan-table", "children"),
    "compare": Output("plan-compare", "figure"),
    "compare_hidden": Output("plan-compare-panel", "hidden"),
    "caption": Output("plan-provenance", "children"),
    "drawn": Output("plan-drawn", "data"),
}


def page_view(flags: object) -> View:
    """The page's chrome and what it carries (the `plan-flags` store), checked."""
    flags = flags if isinstance(flags, dict) else {}
    carry = flags.get("carry") if isinstance(flags.get("carry"), list) else []
    return View(
        tab="plan",
        lang=flags.get("lang") if flags.get("lang") in ("en", "zh") else "en",
        theme=flags.get("theme") if flags.get("theme") in ("light", "dark") else "light",
        embed=flags.get("embed") is True,
        present=flags.get("present") is True,
        carry=tuple((str(c[0]), str(c[1])) for c in carry if isinstance(c, list) and len(c) == 2),
    )


def synced(controls: dict, sliders: dict, trigger: object) -> tuple[dict, dict]:
    """The targets' controls agreeing: a slider's stop goes to its box; a typed box moves its
    slider (between stops if need be). (controls to read, {output: value} to write.)"""
    controls, writes = dict(controls), {}
    for name, grid in SLIDERS.items():
        box, slider = f"plan-{name}", f"plan-{name}-slider"
        at = stop_ms(sliders.get(f"{slider}.value"), grid)
        if trigger == slider and at is not None:
            controls[f"{box}.value"] = at
            writes[f"{name}_box"] = at
        elif trigger == box and isinstance(controls.get(f"{box}.value"), (int, float)):
            writes[f"{name}_slider"] = slider_position(controls[f"{box}.value"], grid)
    return controls, writes


@CALLBACKS.server(
    output={
        **SHOWN,
        "link": Output("plan-link", "data"),
        "tpot_box": Output("plan-tpot", "value"),
        "tpot_slider": Output("plan-tpot-slider", "value"),
        "ttft_box": Output("plan-ttft", "value"),
        "ttft_slider": Output("plan-ttft-slider", "value"),
    },
    inputs={"controls": CONTROLS, "sliders": SLIDER_INPUTS},
    state={"flags": FLAGS, "drawn": State("plan-drawn", "data")},
)
def update_plan(controls: dict, sliders: dict, flags: object, drawn: object, trigger=None) -> dict:
    view = page_view(flags)
    controls, writes = synced(controls, sliders, trigger)
    a, problems, refused = args_from_controls(controls, view.lang)
    if not problems and trigger in TARGET_TRIGGERS and patches(a, drawn):
        out = moved(a, refused, drawn, view.lang, view.theme)
    else:
        out = shown(a, problems, refused, view.lang, view.theme, view.present)
    boxes = {k: writes.get(k, no_update) for k in ("tpot_box", "tpot_slider", "ttft_box", "ttft_slider")}
    return {**out, "link": link_of(view, a), **boxes}


@CALLBACKS.server(
    output={"boxes": Output("plan-price-boxes", "children")},
    inputs={"hardware": Input("plan-hw", "value")},
    state={"prices": State("plan-prices", "data"), "flags": FLAGS},
)
def update_price_boxes(hardware: object, prices: object, flags: object) -> dict:
    """A price box for each accelerator chosen, keeping the prices already typed."""
    chosen = Accelerators().read(hardware if isinstance(hardware, list) else [])
    a = consistent(
        replace(PlanArgs(), hardware=chosen, prices=Prices().read(prices if isinstance(prices, dict) else {}))
    )
    return {"boxes": price_boxes(a, page_view(flags).lang)}


@CALLBACKS.server(
    output={"file": Output("plan-download", "data")},
    inputs={"csv": Input("plan-export-csv", "n_clicks"), "html": Input("plan-export-html", "n_clicks")},
    state={"controls": {k: State(*k.rsplit(".", 1)) for k in CONTROLS}, "flags": FLAGS,
           "link": State("plan-link", "data")},
)  # fmt: skip
def download(csv, html, controls, flags, link, trigger=None) -> dict:
    view = page_view(flags)
    a, problems, _ = args_from_controls(controls, view.lang)
    if problems or trigger not in ("plan-export-csv", "plan-export-html"):
        return {"file": no_update}
    try:
        answer = answered(a).answer
    except EngineInputError:
        return {"file": no_update}
    names = {h: plotly_text(n) for h, n in accelerator_names(a).items()}
    runs = {h: measured_runs(a, h) for h in a.hardware}
    prov = provenance(a, view.lang)
    said = verdict(answer, accelerator_names(a), a.modes, view.lang)
    name = export_name(a)
    if trigger == "plan-export-csv":
        return {"file": dcc.send_string(plan_csv(answer, runs, prov, said), f"{name}.csv")}
    figures = [frontier_figure(answer, runs, names, a.gpus, view.lang, view.theme, False)]
    if len(a.hardware) > 1:
        figures.append(compare_figure(answer, names, view.lang, view.theme, False))
    query = link.get("template", "") if isinstance(link, dict) else ""
    return {"file": dcc.send_string(plan_html(figures, prov, said, "?" + query), f"{name}.html")}


# the prices typed in the boxes, one store the controls send (assets/13-plan.js)
CALLBACKS.client(
    "plan",
    "gatherPrices",
    Output("plan-prices", "data"),
    Input({"type": "plan-price", "hw": ALL}, "value"),
    State({"type": "plan-price", "hw": ALL}, "id"),
    State("plan-prices", "data"),
)
# the address bar follows the controls (history.replaceState): a link reproduces the view
CALLBACKS.client("url", "sync", Output("plan-url", "data"), Input("plan-link", "data"), State("plan-url", "data"))
CALLBACKS.client("plan", "nameCameras", Output("plan-camera", "data"), Input("plan-url", "data"))
CALLBACKS.client(
    "roofline", "copyLink", Output("plan-copy-status", "children"), Input("plan-copy-link", "n_clicks"), FLAGS
)
CALLBACKS.client(
    "plan",
    "exportImage",
    Output("plan-export-png", "className"),
    Input("plan-export-png", "n_clicks"),
    Input("plan-export-svg", "n_clicks"),
)


def register(app) -> None:
    CALLBACKS.register(app)
