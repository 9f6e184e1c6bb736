"""Callbacks: parse the controls into a View (url_state) -> views.py -> outputs.

The live path (README "Dashboard speed"): a slider step never reaches the server. The
browser moves the points from the slider grid that came with the figure (app.js `syncSizes`),
and once the slider rests (`settled`, 250 ms) the server redraws the panels. Structural
changes (model, accelerators, precision, KV heads, TP, FlashAttention, roofs) go through
the server, which sends the figure and a new grid together.

Every argument a callback receives is checked at one boundary (`view_from_controls` and the
helpers below): a hand-made request gets defaults or a clear message, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import replace

from dash import ClientsideFunction, Input, Output, State, ctx, html, no_update

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.measurement import FORMATS, parse_measurements
from engine.model_catalog import MAX_CONFIG_BYTES, load_model, native_precision
from engine.what_if import derive_what_if, parse_what_if

from ..units import count
from .exports import ops_csv, snapshot_html
from .figures import ops_rows
from .i18n import reason, t
from .layout import kv_controls, page, pin_label, tp_options
from .url_state import (
    MAX_CONFIG_TOKEN_CHARS,
    MAX_HARDWARE,
    encode_config,
    export_name,
    hardware_specs,
    pin_query,
    view_from_controls,
    view_from_search,
    view_model,
)
from .views import PANEL_OUTPUTS, on_grid, ops_panel, panels, provenance, roofline, subtitle, view_data

# The controls that define the view; `settled` carries batch and context once a slider rests.
VIEW_INPUTS = [
    Input("hardware", "value"),
    Input("model", "value"),
    Input("custom-model", "data"),
    Input("settled", "data"),
    Input("kv-heads", "value"),
    Input("precision", "value"),
    Input("kv-precision", "value"),
    Input("flash-attention", "value"),
    Input("tensor-parallel", "value"),
    Input("measured-roofs", "value"),
    Input("bandwidth-efficiency", "value"),
    Input("compute-efficiency", "value"),
    Input("measured-step", "value"),
    Input("measurements", "data"),
    Input("theme", "value"),
    Input("present", "value"),
    Input("output-tokens", "value"),
    Input("gpu-price", "value"),
    Input("memory-utilization", "value"),
    Input("published", "value"),
    Input("what-if", "value"),
    Input("pin", "data"),
    Input("hierarchy-roofs", "value"),
]
VIEW_STATES = [State(i.component_id, i.component_property) for i in VIEW_INPUTS]
FLAGS = State("view-flags", "data")


def _lang(flags) -> str:
    lang = flags.get("lang") if isinstance(flags, dict) else None
    return lang if lang in ("en", "zh") else "en"


def _upload_text(contents) -> str:
    """A dcc.Upload data URL -> its text (ValueError if it is not UTF-8 text)."""
    if not isinstance(contents, str) or "," not in contents:
        raise ValueError("not an uploaded file")
    try:
        return base64.b64decode(contents.split(",", 1)[1], validate=False).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("not a UTF-8 text file") from None


def register(app) -> None:
    @app.callback(Output("page", "children"), Input("url", "search"), FLAGS)
    def render_page(search, flags):
        """Only when the page was rendered for another query (no Referer reached the layout)."""
        search = search if isinstance(search, str) else ""
        if isinstance(flags, dict) and flags.get("query") == search.lstrip("?"):
            return no_update
        return page(view_from_search(search))

    @app.callback(
        Output("roofline-graph", "figure"), Output("grid", "data"), *VIEW_INPUTS, FLAGS, prevent_initial_call=True
    )
    def update_roofline(*args):
        view = view_from_controls(*args)
        if ctx.triggered_id == "settled" and on_grid(view) and not view.pin:
            return no_update, no_update  # the browser drew this stop from the grid already
        figure, grid = roofline(view)
        # a typed batch or context between stops, or a pin's arrow to B: the figure moves, the grid stays
        return figure, (no_update if ctx.triggered_id == "settled" else grid or {})

    @app.callback(
        *(Output(component, prop) for component, prop in PANEL_OUTPUTS),
        Output("ops-table", "data"),
        Output("ops-title", "children"),
        Output("ops-gpu", "options"),
        Output("ops-gpu", "value"),
        Input("ops-gpu", "value"),
        Input("ops-phase", "value"),
        *VIEW_INPUTS,
        FLAGS,
        prevent_initial_call=True,
    )
    def update_panels(hardware_id, phase, *args):
        """Every panel after a change, in one request; switching the ops table's accelerator or
        phase redraws that table alone."""
        view = view_from_controls(*args)
        ops = ops_panel(view, hardware_id, phase)
        if ctx.triggered_id in ("ops-gpu", "ops-phase"):
            return (*(no_update for _ in PANEL_OUTPUTS), *ops)
        shown = panels(view)
        return (*(shown[component] for component, _ in PANEL_OUTPUTS), *ops)

    @app.callback(
        Output("kv-heads", "min"),
        Output("kv-heads", "max"),
        Output("kv-heads", "marks"),
        Output("kv-heads", "value"),
        Output("kv-heads", "disabled"),
        Output("kv-help", "children"),
        Output("tensor-parallel", "options"),
        Output("tensor-parallel", "value"),
        Output("precision", "value"),
        Output("model-notice", "children"),
        Input("model", "value"),
        Input("custom-model", "data"),
        State("tensor-parallel", "value"),
        State("precision", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    def model_choices(model_value, custom, tp, precision, flags):
        """A new model brings its own KV heads, only the TP degrees that divide its heads, and the
        precision it is released in (gpt-oss: 4-bit MXFP4 weights; DeepSeek-V3: fp8), said."""
        lang = _lang(flags)
        view = view_from_controls(model=model_value, custom=custom, tp=tp, flags=flags)
        model = view_model(view)
        kv, kv_help = kv_controls(model, None, lang)
        tp_value = view.tensor_parallel if model.num_heads % view.tensor_parallel == 0 else 1
        native = native_precision(view.model) if ctx.triggered_id == "model" else None
        if native and native != precision:
            precision_value, notice = native, t("native_precision", lang, model=view.model, prec=native)
        else:
            precision_value, notice = no_update, ""
        return (
            kv["min"],
            kv["max"],
            kv["marks"],
            kv["value"],
            kv["disabled"],
            kv_help,
            tp_options(model, lang),
            tp_value,
            precision_value,
            notice,
        )

    @app.callback(
        Output("what-if", "options"),
        Output("what-if", "value"),
        Output("whatif-text", "value"),
        Output("whatif-error", "children"),
        Input("whatif-add", "n_clicks"),
        Input("whatif-derive", "n_clicks"),
        State("whatif-text", "value"),
        State("whatif-base", "value"),
        State("whatif-flops", "value"),
        State("whatif-bw", "value"),
        State("what-if", "value"),
        State("hardware", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    def add_what_if(_add, _derive, text, base, flops_scale, bandwidth_scale, current, hardware, flags):
        """A typed short form, or a catalogue card scaled (engine.what_if), added to the list;
        a bad one is named with the format, and the list never passes the accelerator limit."""
        current = [w for w in current if isinstance(w, str)] if isinstance(current, list) else []
        try:
            if ctx.triggered_id == "whatif-derive":
                text = derive_what_if(get_accelerator(str(base)), flops_scale or 0.0, bandwidth_scale or 0.0)
            text = text.strip() if isinstance(text, str) else ""
            parse_what_if(text)
        except EngineInputError as exc:
            return no_update, no_update, no_update, reason(str(exc), _lang(flags))
        names = {w.split(":", 1)[0]: w for w in current}
        names[text.split(":", 1)[0]] = text  # the same name again: the new numbers replace the old
        chosen = list(names.values())
        taken = len(hardware) if isinstance(hardware, list) else 0
        if taken + len(chosen) > MAX_HARDWARE:
            return no_update, no_update, no_update, t("what_if_limit", _lang(flags), n=MAX_HARDWARE)
        return [{"label": w, "value": w} for w in chosen], chosen, "", ""

    @app.callback(
        Output("pin", "data"),
        Output("unpin-scenario", "hidden"),
        Output("pin-status", "children"),
        Input("pin-scenario", "n_clicks"),
        Input("unpin-scenario", "n_clicks"),
        *VIEW_STATES,
        FLAGS,
        prevent_initial_call=True,
    )
    def pin_scenario(_pin, _unpin, *args):
        """Pin: the scenario now on screen becomes A (kept in the URL as `pin=`). Unpin clears it."""
        if ctx.triggered_id == "unpin-scenario":
            return "", True, ""
        view = view_from_controls(*args)
        pinned = replace(view, pin=pin_query(view))
        return pinned.pin, False, pin_label(pinned)

    @app.callback(
        Output("custom-model", "data"),
        Output("custom-error", "children"),
        Input("custom-apply", "n_clicks"),
        Input("custom-upload", "contents"),
        State("custom-config", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    def load_custom(_, upload, pasted, flags):
        lang = _lang(flags)
        if ctx.triggered_id == "custom-upload":
            try:
                text = _upload_text(upload)
            except ValueError:
                return no_update, "config.json: not UTF-8 JSON"
        else:
            text = pasted if isinstance(pasted, str) else ""
        if len(text.encode("utf-8", "ignore")) > MAX_CONFIG_BYTES:
            return no_update, f"config.json: larger than {MAX_CONFIG_BYTES // 1024} KiB"
        try:
            config = json.loads(text)
            if not isinstance(config, dict):
                raise EngineInputError("config.json", "must be a JSON object")
            model = load_model(config)
        except json.JSONDecodeError as exc:
            return no_update, f"config.json: not valid JSON ({exc.msg}, line {exc.lineno})"
        except RecursionError:
            return no_update, "config.json: nested too deeply"
        except EngineInputError as exc:
            return no_update, str(exc)
        token = encode_config(config)
        message = t("custom_ok", lang, name=model.id, params=count(model.num_params))
        if len(token) > MAX_CONFIG_TOKEN_CHARS:
            message += " " + t("custom_no_link", lang, n=f"{len(token):,}", limit=f"{MAX_CONFIG_TOKEN_CHARS:,}")
            token = None
        return {"config": config, "token": token}, message

    @app.callback(
        Output("measurements", "data"),
        Output("measurements-status", "children"),
        Input("measurements-upload", "contents"),
        Input("measurements-steps", "value"),
        State("measurements-format", "value"),
        State("measurements", "data"),
        FLAGS,
        prevent_initial_call=True,
    )
    def load_measurements(upload, steps, fmt, current, flags):
        lang = _lang(flags)
        steps = steps if isinstance(steps, int) and not isinstance(steps, bool) and 1 <= steps <= 100000 else 1
        if ctx.triggered_id == "measurements-steps":
            return (
                {**current, "steps": steps} if isinstance(current, dict) and current.get("format") else no_update
            ), no_update
        if fmt not in FORMATS:
            return no_update, html.Span(f"format: one of {', '.join(FORMATS)}", className="error")
        try:
            text = _upload_text(upload)
            records = parse_measurements(fmt, text, steps)  # validated whole before it is kept
        except ValueError as exc:
            return {}, html.Span(str(exc), className="error")
        return {"format": fmt, "content": text, "steps": steps}, t("measurements_loaded", lang, n=len(records))

    @app.callback(
        Output("download-html", "data"),
        Input("export-html", "n_clicks"),
        *VIEW_STATES,
        FLAGS,
        prevent_initial_call=True,
    )
    def export_html(_, *args):
        """The snapshot is drawn from the server's own view of the scenario, never from a figure
        the client sends (a client-sent figure made pio.to_html a denial of service)."""
        view = view_from_controls(*args)
        figure, _grid = roofline(view)
        facts = provenance(view)
        text = snapshot_html(
            figure,
            subtitle(view, view.batch, view.context),
            facts["link"],
            f"{facts['app']} · catalogue {facts['catalogue']}",
        )
        return {"content": text, "filename": export_name(view, "roofline") + ".html", "type": "text/html"}

    @app.callback(
        Output("download-ops", "data"),
        Input("ops-json", "n_clicks"),
        Input("ops-csv", "n_clicks"),
        State("ops-gpu", "value"),
        State("ops-phase", "value"),
        *VIEW_STATES,
        FLAGS,
        prevent_initial_call=True,
    )
    def export_ops(_json, _csv, hardware_id, phase, *args):
        """The ops shown (accelerator and phase) with the scenario, app version and catalogue."""
        view = view_from_controls(*args)
        phase = phase if phase in ("decode", "prefill") else "decode"
        try:
            results = view_data(view)["analysis"]["results"] if hardware_specs(view) else []
        except EngineInputError:
            return no_update
        if not results:
            return no_update
        shown = next((r for r in results if r["hardware_id"] == hardware_id), results[0])
        facts = {**provenance(view), "hardware": shown["hardware_name"], "phase": phase}
        rows = ops_rows(shown, "en", phase)
        name = export_name(view, f"{phase}-ops")
        if ctx.triggered_id == "ops-csv":
            return {"content": ops_csv(rows, facts), "filename": name + ".csv", "type": "text/csv"}
        return {
            "content": json.dumps({**facts, f"{phase}_ops": rows}, indent=2, ensure_ascii=False),
            "filename": name + ".json",
            "type": "application/json",
        }

    register_clientside(app)


def register_clientside(app) -> None:
    """assets/app.js: slider and box sync, grid moves, the settle timer, URL state, exports."""
    cs = "roofline"
    app.clientside_callback(
        ClientsideFunction(cs, "syncSizes"),
        Output("batch-size", "value"),
        Output("batch-size-input", "value"),
        Output("context-length", "value"),
        Output("context-length-input", "value"),
        Output("sizes", "data"),
        Output("batch-error", "children"),
        Output("context-error", "children"),
        Input("batch-size", "value"),
        Input("batch-size-input", "value"),
        Input("context-length", "value"),
        Input("context-length-input", "value"),
        State("sizes", "data"),
        State("grid", "data"),
        FLAGS,
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "drawStop"),
        Output("roofline-graph", "figure", allow_duplicate=True),
        Input("grid", "data"),
        State("sizes", "data"),
        State("roofline-graph", "figure"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "settle"),
        Output("settled", "data"),
        Input("sizes", "data"),
        State("settled", "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "limitHardware"),
        Output("hardware", "value"),
        Output("hardware", "options"),
        Output("hardware-notice", "children"),
        Input("hardware", "value"),
        State("hardware", "options"),
        State("what-if", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "syncUrl"),
        Output("url-sync", "data"),
        Input("hardware", "value"),
        Input("model", "value"),
        Input("custom-model", "data"),
        Input("sizes", "data"),
        Input("kv-heads", "value"),
        Input("kv-heads", "marks"),
        Input("kv-heads", "disabled"),
        Input("precision", "value"),
        Input("kv-precision", "value"),
        Input("flash-attention", "value"),
        Input("tensor-parallel", "value"),
        Input("measured-roofs", "value"),
        Input("bandwidth-efficiency", "value"),
        Input("compute-efficiency", "value"),
        Input("measured-step", "value"),
        Input("theme", "value"),
        Input("present", "value"),
        Input("output-tokens", "value"),
        Input("gpu-price", "value"),
        Input("memory-utilization", "value"),
        Input("published", "value"),
        Input("what-if", "value"),
        Input("pin", "data"),
        Input("hierarchy-roofs", "value"),
        FLAGS,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "rootClass"),
        Output("app-root", "className"),
        Input("theme", "value"),
        Input("present", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "customPanel"),
        Output("custom-panel", "hidden"),
        Input("model", "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "unticked"),
        Output("reality-panel", "hidden"),
        Input("published", "value"),
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "changeLang"),
        Output("lang", "className"),
        Input("lang", "value"),
        FLAGS,
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "copyLink"),
        Output("copy-status", "children"),
        Input("copy-link", "n_clicks"),
        FLAGS,
        prevent_initial_call=True,
    )
    app.clientside_callback(
        ClientsideFunction(cs, "exportImage"),
        Output("export-png", "className"),
        Input("export-png", "n_clicks"),
        Input("export-svg", "n_clicks"),
        prevent_initial_call=True,
    )
