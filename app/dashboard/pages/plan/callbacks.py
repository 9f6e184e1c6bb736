"""The Planner page's callbacks, module-level with keyword inputs (lib/callbacks.py): the
controls -> the chart, verdict, table, comparison and link, where a target's move re-filters
the search already made and patches the chart (view.moved) and any other change asks the
cache or the engine (view.shown); the price boxes, one per accelerator; the downloads."""

from __future__ import annotations

import time
from dataclasses import replace

from dash import ALL, Input, Output, State, dcc, no_update

from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.markup import plotly_text
from app.dashboard.lib.params import control_inputs
from app.dashboard.pages.plan.compute import answered
from app.dashboard.pages.plan.controls import SLIDERS as TARGET_GRIDS
from app.dashboard.pages.plan.controls import price_boxes
from app.dashboard.pages.plan.exports import export_title, plan_csv, plan_html
from app.dashboard.pages.plan.figures import compare_figure, frontier_figure
from app.dashboard.pages.plan.measured import measured_runs
from app.dashboard.pages.plan.params import PARAMS, PlanArgs, Prices
from app.dashboard.pages.plan.provenance import accelerator_names, provenance
from app.dashboard.pages.plan.state import (
    args_from_controls,
    consistent,
    export_name,
    link_of,
    link_query,
    slider_position,
)
from app.dashboard.pages.plan.view import grid as plan_grid
from app.dashboard.pages.plan.view import moved, patches, shown
from app.dashboard.pages.plan.words import verdict
from app.dashboard.pages.roofline.params import Accelerators
from app.dashboard.pages.roofline.state import View
from engine.errors import EngineInputError

CALLBACKS = Callbacks()
FLAGS = State("plan-flags", "data")
# the targets reach the server once their slider or box rests (`plan-settled`, assets/13-plan.js):
# a drag is drawn in the browser from the grid of the sliders' stops (view.grid)
TARGET_BOXES = ("plan-tpot.value", "plan-ttft.value")
CONTROLS = {
    **{k: v for k, v in control_inputs(PARAMS, Input).items() if k not in TARGET_BOXES},
    "plan-hw.value": Input("plan-hw", "value"),
    "plan-settled.data": Input("plan-settled", "data"),
}
BOXES = {k: State(*k.rsplit(".", 1)) for k in TARGET_BOXES}
SLIDERS = {f"plan-{n}-slider.value": State(f"plan-{n}-slider", "value") for n in TARGET_GRIDS}
# what re-filters the search on screen rather than asking for another
TARGET_TRIGGERS = {"plan-settled", "plan-target"}
SHOWN = {
    "error": Output("plan-error", "children"),
    "figure": Output("plan-frontier", "figure"),
    "compare": Output("plan-compare", "figure"),
    "compare_hidden": Output("plan-compare-panel", "hidden"),
    "view": Output("plan-view", "data"),
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


def with_targets(controls: dict, boxes: dict, targets: object) -> tuple[dict, dict[str, float]]:
    """(the controls with the targets from a store of them (`plan-settled`: as they rested; or
    `plan-sizes`: as drawn now), else as the boxes hold them; the targets kept). A box typed to
    a value it cannot hold is marked `<name>_refused` in the store, which keeps the target as it
    was (assets/13-plan.js): the box's own value is read, to be refused in its words, and the
    target kept stays on screen and in the link."""
    settled = targets if isinstance(targets, dict) else {}
    out = {k: v for k, v in controls.items() if k != "plan-settled.data"}
    kept = {}
    for name in TARGET_GRIDS:
        key, field = f"plan-{name}.value", f"{name}_ms"
        if settled.get(f"{name}_refused") and isinstance(settled.get(field), int | float):
            out[key], kept[field] = boxes.get(key), settled[field]
        else:
            out[key] = settled[field] if field in settled else boxes.get(key)
    return out, kept


def slider_writes(a, sliders: dict, typed: bool) -> dict:
    """After a typed target, each slider where its target is (between stops if need be). After
    a drag, nothing: the slider may have moved on since the request left."""
    out = {}
    for name, grid in TARGET_GRIDS.items():
        if not typed:
            out[f"{name}_slider"] = no_update
            continue
        at = slider_position(getattr(a, f"{name}_ms"), grid)
        current = sliders.get(f"plan-{name}-slider.value")
        out[f"{name}_slider"] = no_update if isinstance(current, (int, float)) and abs(current - at) < 1e-9 else at
    return out


@CALLBACKS.server(
    output={
        **SHOWN,
        "link": Output("plan-link", "data"),
        "tpot_slider": Output("plan-tpot-slider", "value"),
        "ttft_slider": Output("plan-ttft-slider", "value"),
        "asked": Output("plan-grid-asked", "data"),
    },
    inputs={"controls": CONTROLS},
    state={
        "boxes": BOXES, "sliders": SLIDERS, "sizes": State("plan-sizes", "data"), "flags": FLAGS,
        "drawn": State("plan-drawn", "data"),
    },
)  # fmt: skip
def update_plan(controls: dict, boxes: dict, sliders: dict, sizes: object, flags: object, drawn: object, trigger=None):
    """`plan-settled` says the targets rested; the targets read are the latest (`plan-sizes`):
    the view says which it is for (`at`), and the browser draws it only if they still are."""
    view = page_view(flags)
    targeted, kept = with_targets(controls, boxes, sizes)
    a, problems, refused = args_from_controls(targeted, view.lang, kept)
    if not problems and trigger in TARGET_TRIGGERS and patches(a, drawn):
        out = moved(a, refused, drawn, view.lang, view.theme, view.present)
    else:
        out = shown(a, problems, refused, view.lang, view.theme, view.present)
    out["view"]["at"] = sizes if isinstance(sizes, dict) else None
    typed = isinstance(sizes, dict) and sizes.get("typed") is True
    # the grid at the new targets follows (update_grid); until it comes a drag's step waits for the server
    asked = {"drawn": out["drawn"] if isinstance(out["drawn"], dict) else drawn, "at": time.monotonic_ns()}
    return {**out, "link": link_of(view, a), **slider_writes(a, sliders, typed), "asked": asked}


# what a file is made of: the controls, and the targets as drawn now (a drag's last stop)
NOW = {
    **{k: State(*k.rsplit(".", 1)) for k in CONTROLS},
    **BOXES,
    "plan-sizes.data": State("plan-sizes", "data"),
}


def args_now(controls: dict, lang: str):
    others = {k: v for k, v in controls.items() if k not in TARGET_BOXES and k != "plan-sizes.data"}
    targeted, kept = with_targets(others, controls, controls.get("plan-sizes.data"))
    return args_from_controls(targeted, lang, kept)


@CALLBACKS.server(
    output={"grid": Output("plan-grid", "data")},
    inputs={"asked": Input("plan-grid-asked", "data")},
    state={"controls": NOW, "flags": FLAGS},
    prevent_initial_call=False,
)
def update_grid(asked: object, controls: dict, flags: object) -> dict:
    """The grid of the sliders' stops (view.grid) once the page's answer is on screen, for the
    chart drawn then (`asked`): a drag uses it only on that chart (assets/13-plan.js)."""
    drawn = asked.get("drawn") if isinstance(asked, dict) else None
    view = page_view(flags)
    a, problems, _ = args_now(controls, view.lang)
    if problems or not patches(a, drawn):
        return {"grid": no_update}
    return {"grid": plan_grid(a, drawn, view.lang, view.theme, view.present)}


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
    state={"controls": NOW, "flags": FLAGS},
)
def download(csv, html, controls, flags, trigger=None) -> dict:
    view = page_view(flags)
    a, problems, _ = args_now(controls, view.lang)
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
    return {"file": dcc.send_string(plan_html(figures, prov, said, link_query(view, a)), f"{name}.html")}


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
CALLBACKS.client(
    "url",
    "sync",
    Output("plan-url", "data"),
    Input("plan-link", "data"),
    Input("plan-sizes", "data"),
    prevent_initial_call=False,
)
CALLBACKS.client("plan", "nameCameras", Output("plan-camera", "data"), Input("plan-url", "data"))


@CALLBACKS.server(
    output={"request": Output("plan-image", "data")},
    inputs={"png": Input("plan-export-png", "n_clicks"), "svg": Input("plan-export-svg", "n_clicks")},
    state={"controls": NOW, "flags": FLAGS},
)
def image_request(png, svg, controls, flags, trigger=None) -> dict:
    """PNG or SVG of the frontier chart: its title (the question, targets, calibration and
    source, wrapped for the image's width) is written here, at the click, and the browser
    draws the file (assets/13-plan.js): a target's move never pays for it."""
    view = page_view(flags)
    a, problems, _ = args_now(controls, view.lang)
    if problems or trigger not in ("plan-export-png", "plan-export-svg"):
        return {"request": no_update}
    title = export_title([plotly_text(v) for v in provenance(a, view.lang).values()])
    return {"request": {"format": trigger.rsplit("-", 1)[1], "title": title, "n": (png or 0) + (svg or 0)}}


CALLBACKS.client("plan", "exportImage", Output("plan-image-done", "data"), Input("plan-image", "data"))
# the server's view: the verdict, counts, caption and rows, and on a target's move the star,
# the region and the comparison's bars, drawn in place (view.py); the first paint's too
CALLBACKS.client(
    "plan",
    "showView",
    Output("plan-view-drawn", "data"),
    Input("plan-view", "data"),
    State("plan-sizes", "data"),
    prevent_initial_call=False,
)
# the chart panel says when a drag can be drawn in the browser (`data-grid`: the drawn chart's key)
CALLBACKS.client("plan", "gridReady", Output("plan-grid-ready", "data"), Input("plan-grid", "data"))
# a slider's step drawn from the grid at once, its box following; a typed box; both rest (250 ms
# without a change) into `plan-sizes` and `plan-settled`, for the link and the server
CALLBACKS.client(
    "plan",
    "drag",
    Output("plan-tpot", "value"),
    Output("plan-ttft", "value"),
    Input("plan-tpot-slider", "value"),
    Input("plan-ttft-slider", "value"),
    Input("plan-tpot", "value"),
    Input("plan-ttft", "value"),
    State("plan-stops", "data"),
    State("plan-grid", "data"),
    State("plan-sizes", "data"),
    State("plan-drawn", "data"),
)


def register(app) -> None:
    CALLBACKS.register(app)
