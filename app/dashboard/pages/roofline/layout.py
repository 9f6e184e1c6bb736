"""The page, built per request from the URL's query string (so a link opens the exact view
in one round trip). Element ids are stable: tests and wiki links use them."""

from __future__ import annotations

import math

from dash import dash_table, dcc, html

from engine.hardware import catalogue
from engine.measurement import FORMATS
from engine.model_catalog import get_model, model_ids, native_precision

from ..units import count
from . import lab_ops, lab_training
from .i18n import reason, t
from .pickers import GRAPH_CONFIG, dropdown_labels, language_switch, what_if_picker
from .tabs import root_classes, tab_bar
from .url_state import KV_PRECISIONS, PRECISIONS, View, export_name, pinned_view, to_query, view_model
from .views import ops_panel, panels, roofline, subtitle

BATCH_SLIDER = (0, 10)  # log2: 1 .. 1024
CONTEXT_SLIDER = (7, 20)  # log2: 128 .. 1,048,576
PANEL_GRAPH_CONFIG = GRAPH_CONFIG
# Messages the browser shows itself (input validation): translated here, filled in by app.js.
CLIENT_MESSAGES = ("batch_invalid", "context_invalid", "hardware_limit", "copied", "copy_blocked")
PRECISION_LABELS = {
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "int8": "int8",
    "int4": "int4 weight-only (W4A16)",
    "fp4": "fp4",
}


def _pow2_marks(low: int, high: int) -> dict:
    """Labels on every second or third power of two (the slider still steps by doubling)."""

    def label(n: int) -> str:
        v = 2**n
        return f"{v // 1048576}M" if v >= 1048576 else (f"{v // 1024}K" if v >= 1024 else str(v))

    step = 3 if high - low > 10 else 2
    return {n: label(n) for n in range(low, high + 1) if (n - low) % step == 0}


def kv_slider_props(divisors: list[int], value: int) -> dict:
    """The KV-heads slider indexes the divisors of the query heads (MQA ... MHA)."""
    index = divisors.index(value) if value in divisors else len(divisors) - 1
    return {"min": 0, "max": len(divisors) - 1, "marks": {i: str(d) for i, d in enumerate(divisors)}, "value": index}


def model_label(model_id: str, lang: str) -> str:
    """'mixtral-8x7b · 46.7B (12.9B active) · MoE': the size and the architecture at a glance."""
    model = get_model(model_id)
    size = count(model.num_params)
    if model.num_active_params < model.num_params:
        size += " " + t("active_params", lang, n=count(model.num_active_params))
    badges = [
        name
        for name, has in (
            ("MoE", model.num_active_params < model.num_params),
            ("MLA", model.is_mla),
            (t("sliding_window", lang), any(layer.attention.window for layer, _ in model.layer_groups)),
        )
        if has
    ]
    native = native_precision(model_id)
    if native:
        badges.append(native)
    return " · ".join([model_id, size, *badges])


def kv_controls(model, kv_heads: int | None, lang: str) -> tuple[dict, str]:
    """(slider props, help text): an MLA model has no KV heads to choose, so the slider is
    disabled and says why."""
    if model.is_mla:
        return {"min": 0, "max": 1, "marks": {0: "MLA"}, "value": 0, "disabled": True}, t("kv_mla", lang)
    return {**kv_slider_props(model.allowed_kv_heads(), kv_heads or model.num_kv_heads), "disabled": False}, ""


def tp_options(model, lang: str) -> list[dict]:
    """TP degrees; those that do not divide the attention heads are offered disabled, with why."""
    return [
        {
            "label": html.Span(
                str(n), title=t("tp_disabled", lang, n=n, heads=model.num_heads) if model.num_heads % n else None
            ),
            "value": n,
            "disabled": bool(model.num_heads % n),
        }
        for n in (1, 2, 4, 8)
    ]


def _field(label: str, *children, cls: str = "field", html_for: str | None = None) -> html.Div:
    return html.Div([html.Label(label, className="field-label", htmlFor=html_for), *children], className=cls)


def _log_slider(slider_id: str, input_id: str, value: int, span: tuple[int, int], label: str) -> html.Div:
    """A slider on powers of two and a box that takes any value in range; they always agree
    (a value between stops puts the thumb between them). Validation is clientside (app.js)."""
    return html.Div(
        [
            html.Div(
                dcc.Slider(
                    id=slider_id,
                    min=span[0],
                    max=span[1],
                    step=1,
                    value=min(max(math.log2(value), span[0]), span[1]),
                    marks=_pow2_marks(*span),
                    updatemode="drag",
                    included=True,
                    allow_direct_input=False,
                ),
                className="slider",
                **{"aria-label": label},
            ),
            dcc.Input(
                id=input_id,
                type="text",
                inputMode="numeric",
                value=str(value),
                debounce=True,
                className="number-input",
                autoComplete="off",
                size="8",
            ),
        ],
        className="slider-row",
    )


def _scale_input(component_id: str, value: float) -> dcc.Input:
    return dcc.Input(
        id=component_id, type="number", min=0.01, max=100, step="any", value=value, className="number-input"
    )


def what_if_controls(view: View, hw_options: list[dict]) -> html.Details:
    """Invented accelerators (issue 14, seed 004 §9): typed in the short form, or a catalogue
    card with its FLOP/s or bandwidth scaled; each is drawn beside the real ones."""
    lang = view.lang
    return html.Details(
        [
            html.Summary(t("what_if", lang)),
            *what_if_picker("", view.what_if, lang, "fast:3.35:1979:80"),
            html.Label(t("what_if_derive", lang), htmlFor="whatif-base", className="field-label small"),
            dcc.Dropdown(
                id="whatif-base",
                options=hw_options,
                value=view.hardware[0] if view.hardware else "h100-sxm5",
                clearable=False,
                labels=dropdown_labels(lang),
            ),
            html.Div(
                [
                    _field(t("what_if_flops", lang), _scale_input("whatif-flops", 2), html_for="whatif-flops"),
                    _field(t("what_if_bw", lang), _scale_input("whatif-bw", 1), html_for="whatif-bw"),
                ],
                className="field-pair",
            ),
            html.Button(t("what_if_make", lang), id="whatif-derive", n_clicks=0, className="button"),
            html.Div(id="whatif-error", className="error", role="alert"),
        ],
        className="what-if field",
        open=bool(view.what_if),
    )


def pin_controls(view: View) -> html.Div:
    """Pin and compare (issue 14): the current scenario becomes A, the controls make B."""
    lang = view.lang
    return html.Div(
        [
            html.Button(t("pin", lang), id="pin-scenario", n_clicks=0, className="button"),
            html.Button(t("unpin", lang), id="unpin-scenario", n_clicks=0, className="button", hidden=not view.pin),
            html.Div(pin_label(view), id="pin-status", className="help", role="status"),
        ],
        className="pin field inline-row",
    )


def pin_label(view: View) -> str:
    pinned = pinned_view(view)
    return t("pinned_as", view.lang, scenario=subtitle(pinned, pinned.batch, pinned.context)) if pinned else ""


def controls(view: View) -> html.Div:
    lang = view.lang
    model = view_model(view)
    kv, kv_help = kv_controls(model, view.kv_heads, lang)
    hw_options = [{"label": a.name, "value": a.id} for a in catalogue().values()]
    model_options = [{"label": model_label(mid, lang), "value": mid, "search": mid} for mid in model_ids()] + [
        {"label": t("custom", lang), "value": "custom"}
    ]
    return html.Div(
        [
            _field(
                t("hardware", lang),
                dcc.Dropdown(
                    id="hardware",
                    options=hw_options,
                    value=list(view.hardware),
                    multi=True,
                    clearable=False,
                    labels=dropdown_labels(lang),
                ),
                html.Div(id="hardware-notice", className="help", role="status"),
            ),
            what_if_controls(view, hw_options),
            _field(
                t("model", lang),
                dcc.Dropdown(
                    id="model", options=model_options, value=view.model, clearable=False, labels=dropdown_labels(lang)
                ),
                html.Div(id="model-notice", className="help", role="status"),
                html.Div(
                    [
                        html.P(t("custom_help", lang), className="help"),
                        dcc.Textarea(
                            id="custom-config", className="custom-config", placeholder='{"model_type": "llama", ...}'
                        ),
                        dcc.Upload(
                            id="custom-upload",
                            children=html.Div("config.json ⇪"),
                            max_size=256 * 1024,
                            accept=".json,application/json",
                            className="upload",
                        ),
                        html.Button(t("custom_apply", lang), id="custom-apply", n_clicks=0, className="button"),
                        html.Div(id="custom-error", className="error", role="alert"),
                    ],
                    id="custom-panel",
                    className="custom-panel",
                    hidden=view.model != "custom",
                ),
            ),
            _field(
                t("batch", lang),
                _log_slider("batch-size", "batch-size-input", view.batch, BATCH_SLIDER, t("batch", lang)),
                html.Div(id="batch-error", className="error", role="alert"),
                html_for="batch-size-input",
            ),
            _field(
                t("context", lang),
                _log_slider("context-length", "context-length-input", view.context, CONTEXT_SLIDER, t("context", lang)),
                html.Div(id="context-error", className="error", role="alert"),
                html_for="context-length-input",
            ),
            _field(
                t("kv_heads", lang),
                html.Div(
                    dcc.Slider(id="kv-heads", step=1, updatemode="mouseup", allow_direct_input=False, **kv),
                    className="slider",
                    **{"aria-label": t("kv_heads", lang)},
                ),
                html.Div(kv_help, id="kv-help", className="help"),
            ),
            html.Div(
                [
                    _field(
                        t("precision", lang),
                        dcc.Dropdown(
                            id="precision",
                            options=[{"label": PRECISION_LABELS[p], "value": p} for p in PRECISIONS],
                            value=view.precision,
                            clearable=False,
                        ),
                    ),
                    _field(
                        t("kv_precision", lang),
                        dcc.Dropdown(
                            id="kv-precision",
                            options=[{"label": p, "value": p} for p in KV_PRECISIONS],
                            value=view.kv_precision,
                            clearable=False,
                        ),
                    ),
                ],
                className="field-pair",
            ),
            _field(
                t("tensor_parallel", lang),
                dcc.RadioItems(
                    id="tensor-parallel",
                    options=tp_options(model, lang),
                    value=view.tensor_parallel,
                    inline=True,
                    className="toggle",
                ),
            ),
            pin_controls(view),
            html.Details(
                [
                    html.Summary(t("measurement", lang)),
                    dcc.Checklist(
                        id="measured-roofs",
                        options=[{"label": t("use_measured", lang), "value": "on"}],
                        value=["on"] if view.measured_roofs else [],
                        className="toggle",
                    ),
                    html.Div(
                        [
                            _field(
                                t("bw_eff", lang),
                                dcc.Input(
                                    id="bandwidth-efficiency",
                                    type="number",
                                    min=0.01,
                                    max=1,
                                    step=0.01,
                                    value=view.bandwidth_efficiency,
                                    debounce=True,
                                    className="number-input",
                                ),
                            ),
                            _field(
                                t("fl_eff", lang),
                                dcc.Input(
                                    id="compute-efficiency",
                                    type="number",
                                    min=0.01,
                                    max=1,
                                    step=0.01,
                                    value=view.compute_efficiency,
                                    debounce=True,
                                    className="number-input",
                                ),
                            ),
                        ],
                        className="field-pair",
                    ),
                    _field(
                        t("measured_step", lang),
                        dcc.Input(
                            id="measured-step",
                            type="number",
                            min=0.001,
                            step="any",
                            value=view.measured_step_ms,
                            debounce=True,
                            className="number-input",
                        ),
                    ),
                    html.Div(
                        [
                            dcc.Dropdown(
                                id="measurements-format",
                                options=[{"label": f, "value": f} for f in FORMATS],
                                value="csv",
                                clearable=False,
                            ),
                            dcc.Input(
                                id="measurements-steps",
                                type="number",
                                min=1,
                                step=1,
                                value=1,
                                debounce=True,
                                className="number-input",
                                placeholder="steps",
                            ),
                        ],
                        className="field-pair",
                    ),
                    dcc.Upload(
                        id="measurements-upload",
                        children=html.Div(t("upload_measurements", lang)),
                        max_size=256 * 1024,
                        className="upload",
                    ),
                    html.Div(id="measurements-status", className="help", role="status"),
                ],
                className="measurement",
                open=bool(
                    view.measured_roofs
                    or view.measured_step_ms
                    or view.bandwidth_efficiency < 1
                    or view.compute_efficiency < 1
                ),
            ),
            html.Details(
                [
                    html.Summary(t("serving", lang)),
                    html.Div(
                        [
                            _field(
                                t("output_tokens", lang),
                                dcc.Input(
                                    id="output-tokens",
                                    type="number",
                                    min=1,
                                    step=1,
                                    value=view.output_tokens,
                                    debounce=True,
                                    className="number-input",
                                ),
                            ),
                            _field(
                                t("gpu_price", lang),
                                dcc.Input(
                                    id="gpu-price",
                                    type="number",
                                    min=0,
                                    step="any",
                                    value=view.gpu_hour_price,
                                    debounce=True,
                                    className="number-input",
                                ),
                            ),
                        ],
                        className="field-pair",
                    ),
                    _field(
                        t("memory_utilization", lang),
                        dcc.Input(
                            id="memory-utilization",
                            type="number",
                            min=0.01,
                            max=1,
                            step=0.01,
                            value=view.memory_utilization,
                            debounce=True,
                            className="number-input",
                        ),
                    ),
                    dcc.Checklist(
                        id="published",
                        options=[{"label": t("show_published", lang), "value": "on"}],
                        value=["on"] if view.published else [],
                        className="toggle",
                    ),
                ],
                className="serving",
                open=bool(view.output_tokens or view.gpu_hour_price or view.published or view.memory_utilization < 1),
            ),
            html.Div(
                [
                    dcc.Checklist(
                        id="flash-attention",
                        options=[{"label": t("flash", lang), "value": "on"}],
                        value=["on"] if view.flash_attention else [],
                        className="toggle",
                    ),
                    dcc.Checklist(
                        id="hierarchy-roofs",
                        options=[{"label": t("hierarchy_roofs", lang), "value": "on"}],
                        value=["on"] if view.hierarchy else [],
                        className="toggle",
                    ),
                    dcc.Checklist(
                        id="theme",
                        options=[{"label": t("theme_dark", lang), "value": "dark"}],
                        value=["dark"] if view.theme == "dark" else [],
                        className="toggle",
                    ),
                    dcc.Checklist(
                        id="present",
                        options=[{"label": t("present", lang), "value": "on"}],
                        value=["on"] if view.present else [],
                        className="toggle",
                    ),
                    language_switch(lang),
                ],
                className="toggles",
            ),
        ],
        className="controls",
        id="controls",
    )


def _panel(title: str, *children, panel_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=panel_id)


def page(view: View) -> html.Div:
    """The whole page for a view, with every figure and panel already computed: the first
    paint needs no callback round trip, and the callbacks fire only on changes."""
    if view.tab == "ops":
        return lab_ops.page(view)
    if view.tab == "training":
        return lab_training.page(view)
    lang = view.lang
    notices = [html.Li(t("notice_ignored", lang, name=n, value=v, why=reason(w, lang))) for n, v, w in view.notices]
    classes = root_classes(view)
    graph_config = {
        **PANEL_GRAPH_CONFIG,
        "toImageButtonOptions": {"format": "png", "filename": export_name(view, "roofline"), "scale": 2},
    }
    figure, grid = roofline(view)
    shown = panels(view)
    ops, ops_title, ops_options, ops_gpu = ops_panel(view)
    sizes = {"batch": view.batch, "ctx": view.context}
    # No store starts empty (None): dcc.Store would "change" None to undefined on mount and fire
    # every callback that listens to it.
    custom = {"config": view.custom_config, "token": view.custom_token} if view.model == "custom" else {}
    return html.Div(
        [
            dcc.Store(
                id="view-flags",
                data={
                    "lang": lang,
                    "embed": view.embed,
                    "controls": view.controls,
                    "query": view.query,
                    "messages": {k: t(k, lang, v="{v}", n="{n}") for k in CLIENT_MESSAGES},
                },
            ),
            dcc.Store(id="custom-model", data=custom),
            dcc.Store(id="measurements", data={}),
            dcc.Store(id="sizes", data=sizes),
            dcc.Store(id="settled", data=sizes),
            dcc.Store(id="grid", data=grid or {}),
            dcc.Store(id="url-sync", data=""),
            dcc.Store(id="pin", data=view.pin),
            html.Header(
                [
                    html.H1(t("title", lang)),
                    tab_bar(view),
                    html.Div(
                        [
                            # in a wiki iframe: the same view, full size, in a new tab
                            html.A(
                                t("open_full", lang),
                                id="open-full",
                                className="button open-full",
                                href="?" + to_query(view),
                                target="_blank",
                                rel="noopener",
                                hidden=not view.embed,
                            ),
                            html.Button(t("copy_link", lang), id="copy-link", n_clicks=0, className="button"),
                            html.Span(id="copy-status", className="copy-status", **{"aria-live": "polite"}),
                            # shown, selected, when the browser blocks the clipboard (a cross-origin iframe)
                            dcc.Input(
                                id="copy-field",
                                readOnly=True,
                                className="copy-field",
                                value="",
                                style={"display": "none"},
                            ),
                            html.Button("PNG", id="export-png", n_clicks=0, className="button"),
                            html.Button("SVG", id="export-svg", n_clicks=0, className="button"),
                            html.Button(t("export_html", lang), id="export-html", n_clicks=0, className="button"),
                            dcc.Download(id="download-html"),
                        ],
                        className="actions",
                    ),
                ],
                className="header",
            ),
            html.Ul(notices, id="notices", className="notices", hidden=not notices, role="status"),
            html.Ul(shown["efficiency-notice"], id="efficiency-notice", className="efficiency-notice", role="status"),
            html.Main(
                [
                    controls(view),
                    html.Div(
                        dcc.Graph(id="roofline-graph", figure=figure, config=graph_config, className="roofline-graph"),
                        className="figure",
                    ),
                    html.Aside(
                        [
                            _panel(
                                t("insight", lang),
                                html.Div(shown["insight"], id="insight", className="insight"),
                                panel_id="insight-panel",
                            ),
                            html.Section(
                                [html.H2(t("compare", lang)), html.Div(shown["pin-compare"], id="pin-compare")],
                                className="panel",
                                id="compare-panel",
                                hidden=shown["compare-panel"],
                            ),
                            _panel(
                                t("memory", lang),
                                dcc.Graph(id="memory-graph", figure=shown["memory-graph"], config=PANEL_GRAPH_CONFIG),
                                panel_id="memory-panel",
                            ),
                            _panel(
                                t("comparison", lang),
                                dash_table.DataTable(
                                    id="comparison-table",
                                    data=shown["comparison-table"],
                                    columns=[
                                        {"name": t(f"col_{k}", lang), "id": k}
                                        for k in ("gpu", "decode", "ttft1", "ttft", "maxb")
                                    ],
                                    style_as_list_view=True,
                                    cell_selectable=False,
                                    style_cell={"whiteSpace": "normal", "height": "auto", "textAlign": "right"},
                                    style_header={"fontWeight": "600"},
                                ),
                                html.P(t("comparison_help", lang), className="help"),
                                panel_id="comparison-panel",
                            ),
                        ],
                        className="side",
                        id="side-panels",
                    ),
                ],
                className="main",
            ),
            html.Div(
                [
                    _panel(t("request", lang), html.Div(shown["request"], id="request"), panel_id="request-panel"),
                    _panel(
                        t("interactivity", lang),
                        dcc.Graph(
                            id="interactivity-graph", figure=shown["interactivity-graph"], config=PANEL_GRAPH_CONFIG
                        ),
                        panel_id="interactivity-panel",
                    ),
                    _panel(
                        t("throughput", lang),
                        dcc.Graph(id="throughput-graph", figure=shown["throughput-graph"], config=PANEL_GRAPH_CONFIG),
                        panel_id="throughput-panel",
                    ),
                    _panel(
                        t("ops_table", lang),
                        html.Div(
                            [
                                html.Span(t("ops_gpu", lang), className="field-label small"),
                                dcc.Dropdown(
                                    id="ops-gpu",
                                    options=ops_options,
                                    value=ops_gpu,
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
                        ),
                        html.Div(ops_title, id="ops-title", className="help"),
                        dash_table.DataTable(
                            id="ops-table",
                            data=ops,
                            sort_action="native",
                            columns=[
                                {"name": t("col_op", lang), "id": "op"},
                                {"name": t("col_unit", lang), "id": "unit"},
                                {
                                    "name": t("col_flops", lang),
                                    "id": "flops",
                                    "type": "numeric",
                                    "format": {"specifier": ".3s"},
                                },
                                {
                                    "name": t("col_bytes", lang),
                                    "id": "bytes",
                                    "type": "numeric",
                                    "format": {"specifier": ".3s"},
                                },
                                {
                                    "name": t("col_intensity", lang),
                                    "id": "intensity",
                                    "type": "numeric",
                                    "format": {"specifier": ",.3~r"},
                                },
                                {"name": t("col_bound", lang), "id": "bound"},
                                {
                                    "name": t("col_time", lang),
                                    "id": "time_us",
                                    "type": "numeric",
                                    "format": {"specifier": ",.4~r"},
                                },
                                {
                                    "name": t("col_share", lang),
                                    "id": "share",
                                    "type": "numeric",
                                    "format": {"specifier": ".1%"},
                                },
                                {"name": t("col_scope", lang), "id": "scope"},
                            ],
                            style_as_list_view=True,
                            cell_selectable=False,
                        ),
                        html.Div(
                            [
                                html.Button(t("download_csv", lang), id="ops-csv", n_clicks=0, className="button"),
                                html.Button(t("download_json", lang), id="ops-json", n_clicks=0, className="button"),
                            ],
                            className="actions",
                        ),
                        dcc.Download(id="download-ops"),
                        panel_id="ops-panel",
                    ),
                    html.Section(
                        [html.H2(t("triage", lang)), html.Div(shown["triage"], id="triage")],
                        className="panel",
                        id="triage-panel",
                        hidden=shown["triage-panel"],
                    ),
                    html.Section(
                        [
                            html.H2(t("reality", lang)),
                            dash_table.DataTable(
                                id="reality-table",
                                data=shown["reality-table"],
                                style_as_list_view=True,
                                cell_selectable=False,
                                columns=[
                                    {"name": t("col_bound_value" if k == "bound" else f"col_{k}", lang), "id": k}
                                    for k in (
                                        "gpu",
                                        "model",
                                        "scenario",
                                        "metric",
                                        "measured",
                                        "bound",
                                        "fraction",
                                        "mbu",
                                        "source",
                                    )
                                ],
                                style_cell={"whiteSpace": "normal", "height": "auto", "textAlign": "left"},
                            ),
                        ],
                        className="panel",
                        id="reality-panel",
                        hidden=not view.published,
                    ),
                ],
                className="below",
                id="below-panels",
            ),
        ],
        className=classes,
        id="app-root",
        lang="zh-CN" if lang == "zh" else "en",
    )
