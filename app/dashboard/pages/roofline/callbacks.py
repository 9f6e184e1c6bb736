"""The roofline page's server callbacks: the controls -> a View (controls_state.py) ->
views.py -> the outputs, each callback a module-level function with keyword inputs.

The live path (docs/dashboard.md "The live path"): a slider step never reaches the server. The
browser moves the points from the slider grid that came with the figure (assets/app.js
`syncSizes`), and once the slider rests (`settled`, 250 ms) the server redraws the panels and
patches in the traces the grid does not carry (the serving estimate's, drawn for one stop).
Structural changes (model, accelerators, precision, KV heads, TP, FlashAttention, roofs) go
through the server, which sends the figure and a new grid together, and the canonical link
(with slots for the sliders' values, which the browser fills in: assets/url.js).
"""

from __future__ import annotations

from dataclasses import replace

from dash import Input, Output, Patch, State, no_update

from app.dashboard.components.what_if import added_what_if
from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.i18n import reason, t
from app.dashboard.pages.roofline.controls_state import view_from_controls, view_inputs, view_states
from app.dashboard.pages.roofline.params import TABS
from app.dashboard.pages.roofline.state import View, export_template, pin_query, shared_query, to_query, view_model
from app.dashboard.pages.roofline.symbol_key import symbol_key
from app.dashboard.pages.roofline.tables import OPS_KEYS, ops_body, sorted_by
from app.dashboard.pages.roofline.views import (
    PANEL_OUTPUTS,
    drawn_for,
    on_grid,
    ops_panel,
    panels,
    rest_traces,
    roofline,
    subtitle,
)
from app.dashboard.pages.roofline.widgets import kv_controls, pin_label, tp_options
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import native_format, native_precision
from engine.what_if import derive_what_if

CALLBACKS = Callbacks()
FLAGS = State("view-flags", "data")
# A change of these is a history entry (Back undoes it); the rest replace the entry.
DISCRETE = ("hardware", "model", "custom-model", "what-if", "pin")


def _lang(flags) -> str:
    lang = flags.get("lang") if isinstance(flags, dict) else None
    return lang if lang in ("en", "zh") else "en"


def link_data(view: View, trigger: object = None) -> dict:
    """The canonical link with `{batch}`/`{ctx}` slots (assets/url.js fills them in as the
    sliders move), the tabs' links (what every tab shares travels) and whether the change
    is a history entry."""
    return {
        "template": to_query(view, template=True),
        "tabs": {tab: "?" + shared_query(view, tab) for tab in TABS},
        "push": trigger in DISCRETE,
        "export": export_template(view),  # the downloads' name, with the same slots
    }


@CALLBACKS.server(
    output={
        "figure": Output("roofline-graph", "figure"),
        "grid": Output("grid", "data"),
        "key": Output("roofline-key", "children"),
        "scenario": Output("roofline-scenario", "children"),
        "drawn": Output("roofline-drawn", "data"),
    },
    inputs={"controls": view_inputs()},
    state={"drawn": State("roofline-drawn", "data")},
)
def update_roofline(controls: dict, drawn: object = None, trigger: object = None) -> dict:
    view = view_from_controls(controls)
    # At rest on the grid the browser drew this stop already, but for the traces drawn for one
    # stop (the serving estimate's: their grid is the serving page's), which it hid: those alone,
    # as a Patch of the figure it holds. A pin's arrow to B moves with the sliders: whole figure.
    if trigger == "settled" and on_grid(view) and not view.pin:
        moved = rest_traces(view, drawn)
        if moved is not None:
            return {
                "figure": figure_patch(moved) if moved else no_update,
                "grid": no_update,
                "key": no_update,
                "scenario": subtitle(view, view.batch, view.context),
                "drawn": no_update,
            }
    figure, grid = roofline(view)
    # a typed batch or context between stops, or a pin's arrow to B: the figure moves, the grid stays
    settled = trigger == "settled"
    return {
        "figure": figure,
        "grid": no_update if settled else grid or {},
        "key": no_update if settled else symbol_key(figure),
        "scenario": subtitle(view, view.batch, view.context),
        "drawn": drawn_for(view, figure),
    }


def figure_patch(traces: dict[int, dict]) -> Patch:
    """The figure's traces at these indices replaced, the rest left as the browser holds them."""
    patch = Patch()
    for index, trace in traces.items():
        patch["data"][index] = trace
    return patch


OPS_OUTPUTS = {
    "ops": Output("ops-tbody-cells", "data"),
    "ops_title": Output("ops-title", "children"),
    "ops_options": Output("ops-gpu", "options"),
    "ops_gpu": Output("ops-gpu", "value"),
    "ops_rows": Output("ops-rows", "data"),
}


@CALLBACKS.server(
    output={
        "panels": {component: Output(component, prop) for component, prop in PANEL_OUTPUTS},
        **OPS_OUTPUTS,
        "link": Output("link", "data"),
    },
    inputs={"hardware_id": Input("ops-gpu", "value"), "phase": Input("ops-phase", "value"), "controls": view_inputs()},
    state={"sort": State("ops-sort", "data")},
)
def update_panels(hardware_id: object, phase: object, controls: dict, sort: object = None, trigger=None) -> dict:
    """Every panel after a change, in one request; switching the ops table's accelerator or
    phase redraws that table alone (in the order the user sorted it)."""
    view = view_from_controls(controls)
    rows, *rest = ops_panel(view, hardware_id, phase)
    ops = dict(
        zip(("ops", "ops_title", "ops_options", "ops_gpu"), (ops_body(rows, sort, view.lang), *rest), strict=True)
    )
    ops["ops_rows"] = rows
    if trigger in ("ops-gpu", "ops-phase"):
        return {"panels": {component: no_update for component, _ in PANEL_OUTPUTS}, **ops, "link": no_update}
    shown = panels(view)
    return {
        "panels": {component: shown[component] for component, _ in PANEL_OUTPUTS},
        **ops,
        # sent at rest too: a change made while the slider settled (Dark ticked just after a
        # typed context) had its own request superseded by the rest's, and its link was lost
        "link": link_data(view, trigger),
    }


@CALLBACKS.server(
    output={
        "kv_min": Output("kv-heads", "min"),
        "kv_max": Output("kv-heads", "max"),
        "kv_marks": Output("kv-heads", "marks"),
        "kv_value": Output("kv-heads", "value"),
        "kv_disabled": Output("kv-heads", "disabled"),
        "kv_help": Output("kv-help", "children"),
        "tp_options": Output("tensor-parallel", "options"),
        "tp": Output("tensor-parallel", "value"),
        "precision": Output("precision", "value"),
        "notice": Output("model-notice", "children"),
    },
    inputs={"model": Input("model", "value"), "custom": Input("custom-model", "data")},
    state={"tp": State("tensor-parallel", "value"), "precision": State("precision", "value"), "flags": FLAGS},
)
def model_choices(model: object, custom: object, tp: object, precision: object, flags: object, trigger=None) -> dict:
    """A new model brings its own KV heads, only the TP degrees that divide its heads, and the
    precision it is released in (gpt-oss: 4-bit MXFP4 weights; DeepSeek-V3: fp8), said."""
    lang = _lang(flags)
    controls = {"model.value": model, "custom-model.data": custom, "tensor-parallel.value": tp}
    view = view_from_controls(controls)
    config = view_model(view)
    kv, kv_help = kv_controls(config, None, lang)
    native = native_precision(view.model) if trigger == "model" else None
    changed = bool(native) and native != precision
    return {
        **{f"kv_{k}": kv[k] for k in ("min", "max", "marks", "value", "disabled")},
        "kv_help": kv_help,
        "tp_options": tp_options(config, lang),
        "tp": view.tensor_parallel if config.num_heads % view.tensor_parallel == 0 else 1,
        "precision": native if changed else no_update,
        # by the format's own name (gpt-oss ships MXFP4, drawn as int4 = 4-bit weights, 16-bit math)
        "notice": t("native_precision", lang, model=view.model, fmt=native_format(view.model), prec=native)
        if changed
        else "",
    }


@CALLBACKS.server(
    output={
        "options": Output("what-if", "options"),
        "value": Output("what-if", "value"),
        "text": Output("whatif-text", "value"),
        "error": Output("whatif-error", "children"),
    },
    inputs={"add": Input("whatif-add", "n_clicks"), "derive": Input("whatif-derive", "n_clicks")},
    state={
        "text": State("whatif-text", "value"),
        "base": State("whatif-base", "value"),
        "flops_scale": State("whatif-flops", "value"),
        "bandwidth_scale": State("whatif-bw", "value"),
        "current": State("what-if", "value"),
        "hardware": State("hardware", "value"),
        "flags": FLAGS,
    },
)
def add_what_if(add, derive, text, base, flops_scale, bandwidth_scale, current, hardware, flags, trigger=None) -> dict:
    """A typed short form, or a catalogue card scaled (engine.what_if), added to the list;
    a bad one is named with the format, and the list never passes the accelerator limit."""
    if trigger == "whatif-derive":
        lang = _lang(flags)
        try:  # an empty box leaves that side as the card has it
            text = derive_what_if(get_accelerator(str(base)), _factor(flops_scale), _factor(bandwidth_scale))
        except EngineInputError as exc:
            box = t("what_if_flops" if exc.field == "flops_scale" else "what_if_bw", lang)
            return {"options": no_update, "value": no_update, "text": no_update, "error": f"{box}: {reason(exc, lang)}"}
    taken = len(hardware) if isinstance(hardware, list) else 0
    return added_what_if(text, current, taken, _lang(flags))


def _factor(value: object) -> object:
    """A scale box's value: empty is 1 (unchanged), anything else for derive_what_if to check."""
    return 1.0 if value is None or value == "" else value


@CALLBACKS.server(
    output={
        "pin": Output("pin", "data"),
        "hidden": Output("unpin-scenario", "hidden"),
        "status": Output("pin-status", "children"),
    },
    inputs={"pin": Input("pin-scenario", "n_clicks"), "unpin": Input("unpin-scenario", "n_clicks")},
    state={"controls": view_states()},
)
def pin_scenario(pin: object, unpin: object, controls: dict, trigger: object = None) -> dict:
    """Pin: the scenario now on screen becomes A (kept in the URL as `pin=`). Unpin clears it."""
    if trigger == "unpin-scenario":
        return {"pin": "", "hidden": True, "status": ""}
    view = view_from_controls(controls)
    pinned = replace(view, pin=pin_query(view))
    return {"pin": pinned.pin, "hidden": False, "status": pin_label(pinned)}


@CALLBACKS.server(
    output={"body": Output("ops-tbody-cells", "data"), "sort": Output("ops-sort", "data")},
    inputs={"clicks": {key: Input(f"ops-sort-{key}", "n_clicks") for key in OPS_KEYS}},
    state={"rows": State("ops-rows", "data"), "sort": State("ops-sort", "data"), "flags": FLAGS},
)
def sort_ops(clicks: dict, rows: object, sort: object, flags: object, trigger: object = None) -> dict:
    """A click on a column's header orders the ops by it; a second click reverses."""
    key = str(trigger).removeprefix("ops-sort-")
    if key not in OPS_KEYS:
        return {"body": no_update, "sort": no_update}
    order = sorted_by(sort, key)
    return {"body": ops_body(rows, order, _lang(flags)), "sort": order}


def register(app) -> None:
    from app.dashboard.pages.roofline import clientside, uploads  # noqa: F401  (their callbacks join CALLBACKS)

    CALLBACKS.register(app)
