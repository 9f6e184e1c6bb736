"""Thin callbacks: parse the controls -> call the service -> build figures (figures.py)."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qsl

import plotly.io as pio
from dash import Input, Output, State, ctx, html, no_update

from engine.analysis import Scenario
from engine.errors import EngineInputError
from engine.measurement import parse_measurements
from engine.model_catalog import MAX_CONFIG_BYTES, load_model

from ..service import dashboard_data
from ..units import si
from .figures import comparison_rows, memory_figure, message_figure, ops_rows, roofline_figure, throughput_figure
from .i18n import t
from .insight import insight_sentences
from .layout import kv_slider_props, page
from .url_state import PRECISIONS, parse_query

MAX_QUERY_CHARS = 4096

CONTROL_INPUTS = [Input("hardware", "value"), Input("model", "value"), Input("custom-model", "data"),
                  Input("batch-size-input", "value"), Input("context-length-input", "value"),
                  Input("kv-heads", "value"), Input("precision", "value"), Input("kv-precision", "value"),
                  Input("flash-attention", "value"), Input("tensor-parallel", "value"),
                  Input("measured-roofs", "value"), Input("bandwidth-efficiency", "value"),
                  Input("compute-efficiency", "value"), Input("measured-step", "value"), Input("measurements", "data"),
                  Input("theme", "value"), Input("present", "value")]


def _model_spec(model_value: str, custom: dict | None) -> object:
    return custom if model_value == "custom" and custom else (model_value if model_value != "custom" else "llama-3-8b")


def _fraction(value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return 1.0
    return min(max(x, 0.01), 1.0) if x == x else 1.0


def _scenario(batch, context, kv_index, precision, kv_precision, flash, tp, measured, bw_eff, fl_eff,
              divisors) -> Scenario:
    weight, compute = PRECISIONS.get(precision if isinstance(precision, str) else "bf16", PRECISIONS["bf16"])
    kv_heads = divisors[int(kv_index)] if isinstance(kv_index, (int, float)) and 0 <= kv_index < len(divisors) else None
    return Scenario(batch_size=int(batch), context_length=int(context), num_kv_heads=kv_heads, weight_dtype=weight,
                    kv_dtype=kv_precision if kv_precision in ("bf16", "fp8", "int8", "int4") else "bf16",
                    compute_dtype=compute, flash_attention=bool(flash), tensor_parallel=tp if tp in (1, 2, 4, 8) else 1,
                    roofs="measured" if measured else "nominal", bandwidth_efficiency=_fraction(bw_eff),
                    compute_efficiency=_fraction(fl_eff))


def _clamp(value, low: int, high: int, default: int) -> int:
    try:
        return min(max(int(value), low), high)
    except (TypeError, ValueError, OverflowError):
        return default


def _lang(flags) -> str:
    lang = flags.get("lang") if isinstance(flags, dict) else None
    return lang if lang in ("en", "zh") else "en"


def _hardware_ids(value) -> list[str]:
    """The dropdown sends a list of ids; anything else (a hand-made request) selects nothing."""
    return [v for v in value if isinstance(v, str)][:16] if isinstance(value, list) else []


def _measurement_spec(value) -> dict | None:
    ok = isinstance(value, dict) and isinstance(value.get("format"), str) and isinstance(value.get("content"), str)
    return {"format": value["format"], "content": value["content"], "steps": _clamp(value.get("steps"), 1, 100000, 1)} \
        if ok else None


def register(app) -> None:
    @app.callback(Output("page", "children"), Input("url", "search"))
    def render_page(search):
        query = (search or "").lstrip("?")[:MAX_QUERY_CHARS]
        return page(parse_query(dict(parse_qsl(query, keep_blank_values=True))))

    def compute(hardware, model_value, custom, batch, context, kv_index, precision, kv_precision, flash, tp,
                measured, bw_eff, fl_eff, step_ms, measurements):
        spec = _model_spec(model_value, custom)
        divisors = load_model(spec).allowed_kv_heads()
        scenario = _scenario(_clamp(batch, 1, 65536, 32), _clamp(context, 1, 1 << 20, 4096), kv_index, precision,
                             kv_precision, flash, tp, measured, bw_eff, fl_eff, divisors)
        step_s = float(step_ms) / 1e3 if isinstance(step_ms, (int, float)) and 0 < step_ms < 3.6e6 else None
        return dashboard_data(spec, _hardware_ids(hardware), scenario, step_s, _measurement_spec(measurements))

    # The roofline has a callback of its own so that it redraws as soon as its numbers are
    # back, without waiting for the panels (a slider drag is judged by this figure).
    @app.callback(Output("roofline-graph", "figure"), *CONTROL_INPUTS, State("view-flags", "data"))
    def update_roofline(hardware, model_value, custom, batch, context, kv_index, precision, kv_precision, flash,
                        tp, measured, bw_eff, fl_eff, step_ms, measurements, theme, present, flags):
        lang = _lang(flags)
        if not _hardware_ids(hardware):
            return message_figure(t("no_hardware", lang))
        try:
            data = compute(hardware, model_value, custom, batch, context, kv_index, precision, kv_precision, flash, tp,
                           measured, bw_eff, fl_eff, step_ms, measurements)
        except EngineInputError as exc:  # e.g. a TP degree that does not divide the heads
            return message_figure(t("error", lang, message=str(exc)))
        return roofline_figure(data["analysis"]["results"], data["trajectories"], lang,
                               "dark" if theme else "light", bool(present), data["measured_points"])

    @app.callback(
        Output("insight", "children"), Output("memory-graph", "figure"), Output("throughput-graph", "figure"),
        Output("ops-table", "data"), Output("ops-title", "children"), Output("comparison-table", "data"),
        Output("efficiency-notice", "children"), *CONTROL_INPUTS, State("view-flags", "data"))
    def update_panels(hardware, model_value, custom, batch, context, kv_index, precision, kv_precision, flash,
                      tp, measured, bw_eff, fl_eff, step_ms, measurements, theme, present, flags):
        lang = _lang(flags)
        empty = {"data": [], "layout": {}}
        if not _hardware_ids(hardware):
            return t("no_hardware", lang), empty, empty, [], "", [], ""
        try:
            data = compute(hardware, model_value, custom, batch, context, kv_index, precision, kv_precision, flash, tp,
                           measured, bw_eff, fl_eff, step_ms, measurements)
        except EngineInputError as exc:
            return html.P(t("error", lang, message=str(exc)), className="error"), empty, empty, [], "", [], ""
        bw, fl = _fraction(bw_eff), _fraction(fl_eff)
        notice = t("efficiency_notice", lang, bw=f"{bw:.0%}", fl=f"{fl:.0%}") if (bw, fl) != (1.0, 1.0) else ""
        results = data["analysis"]["results"]
        theme_name, is_present = ("dark" if theme else "light"), bool(present)
        # tokens/s against batch does not depend on the current batch: leave it alone while it drags
        throughput = no_update if ctx.triggered_id == "batch-size-input" else throughput_figure(
            data["throughput"], results, lang, theme_name, is_present)
        return ([html.P(s) for s in insight_sentences(results, data["trajectory_end"], data["kv_wall_intensity"], lang)],
                memory_figure(results, lang, theme_name, is_present), throughput,
                ops_rows(results[0]), results[0]["hardware_name"], comparison_rows(results), notice)

    @app.callback(Output("kv-heads", "min"), Output("kv-heads", "max"), Output("kv-heads", "marks"),
                  Output("kv-heads", "value"), Input("model", "value"), Input("custom-model", "data"),
                  prevent_initial_call=True)
    def kv_slider(model_value, custom):
        model = load_model(_model_spec(model_value, custom))
        props = kv_slider_props(model.allowed_kv_heads(), model.num_kv_heads)
        return props["min"], props["max"], props["marks"], props["value"]

    @app.callback(Output("custom-model", "data"), Output("custom-error", "children"),
                  Input("custom-apply", "n_clicks"), Input("custom-upload", "contents"),
                  State("custom-config", "value"), State("view-flags", "data"), prevent_initial_call=True)
    def load_custom(_, upload, pasted, flags):
        lang = _lang(flags)
        if ctx.triggered_id == "custom-upload" and upload:
            try:
                text = base64.b64decode(upload.split(",", 1)[1], validate=False).decode("utf-8")
            except (IndexError, ValueError, UnicodeDecodeError):
                return no_update, "config.json: not UTF-8 JSON"
        else:
            text = pasted or ""
        if len(text.encode("utf-8", "ignore")) > MAX_CONFIG_BYTES:
            return no_update, f"config.json: larger than {MAX_CONFIG_BYTES // 1024} KiB"
        try:
            config = json.loads(text)
            model = load_model(config)
        except json.JSONDecodeError as exc:
            return no_update, f"config.json: not valid JSON ({exc.msg}, line {exc.lineno})"
        except EngineInputError as exc:
            return no_update, str(exc)
        return config, t("custom_ok", lang, name=model.id, params=si(model.num_params))

    @app.callback(Output("measurements", "data"), Output("measurements-status", "children"),
                  Input("measurements-upload", "contents"), Input("measurements-steps", "value"),
                  State("measurements-format", "value"), State("measurements", "data"), State("view-flags", "data"),
                  prevent_initial_call=True)
    def load_measurements(upload, steps, fmt, current, flags):
        lang = _lang(flags)
        steps = _clamp(steps, 1, 100000, 1)
        if ctx.triggered_id == "measurements-steps":
            return ({**current, "steps": steps} if current else no_update), no_update
        if not upload:
            return no_update, no_update
        try:
            text = base64.b64decode(upload.split(",", 1)[1], validate=False).decode("utf-8")
            records = parse_measurements(fmt, text, steps)  # validated whole before it is kept
        except (IndexError, ValueError, UnicodeDecodeError) as exc:
            message = str(exc) if isinstance(exc, EngineInputError) else "not a UTF-8 text file"
            return None, html.Span(message, className="error")
        return {"format": fmt, "content": text, "steps": steps}, t("measurements_loaded", lang, n=len(records))

    @app.callback(Output("download-html", "data"), Input("export-html", "n_clicks"),
                  State("roofline-graph", "figure"), prevent_initial_call=True)
    def export_html(_, figure):
        html = pio.to_html(figure, include_plotlyjs=True, full_html=True, config={"displaylogo": False})
        return {"content": html, "filename": "roofline.html", "type": "text/html"}

    @app.callback(Output("download-ops", "data"), Input("ops-json", "n_clicks"), State("ops-table", "data"),
                  State("ops-title", "children"), prevent_initial_call=True)
    def export_ops(_, rows, hardware_name):
        return {"content": json.dumps({"hardware": hardware_name, "decode_ops": rows}, indent=2),
                "filename": "decode-ops.json", "type": "application/json"}

