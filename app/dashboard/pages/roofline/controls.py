"""The roofline's controls, their first values from the parameter table (`shown`): what the
link said is what each control shows. Element ids are stable: tests and wiki links use them."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels, field
from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import Int, shown
from app.dashboard.pages import scenario
from app.dashboard.pages.roofline.controls_state import MAX_MEASURED_STEPS
from app.dashboard.pages.roofline.params import BACKEND_CHOICES, BY_NAME, KV_PRECISIONS, PARAMS, PRECISIONS
from app.dashboard.pages.roofline.state import View, view_model
from app.dashboard.pages.roofline.widgets import (
    BATCH_SLIDER,
    CONTEXT_SLIDER,
    PRECISION_LABELS,
    kv_controls,
    log_slider,
    measured_on_field,
    model_label,
    pin_controls,
    tp_options,
    what_if_controls,
)
from app.dashboard.pages.serving.words import w as serving_words
from engine.analysis import DEFAULT_MEMORY_UTILIZATION
from engine.hardware import catalogue
from engine.measurement import FORMATS
from engine.model_catalog import model_ids


def number(name: str, values: dict) -> dcc.Input:
    """The box of parameter `name`, its value the view's. The browser sends no value for a
    number outside a box's HTML min and max, or off its step, which an optional box read as
    empty (-5 output tokens turned the request off without a word) and a required one as a
    value it could not quote (0.555 refused as "must be 0.01–1"): none are set, and the table's
    limits refuse a value in the box's words. A whole number's box keeps its + and − (by 1); a
    fraction's is a text box, whose value the table reads."""
    param = BY_NAME[name]
    cid, prop = param.controls[0]
    whole = isinstance(getattr(param.kind, "kind", param.kind), Int)  # a Switchable's own number
    kind = {"type": "number", "step": "any"} if whole else {"type": "text", "inputMode": "decimal"}
    return dcc.Input(
        id=cid,
        **kind,
        value=values[f"{cid}.{prop}"],
        debounce=True,
        className="number-input",
    )


def checkbox(name: str, values: dict, label: str, control: int = 0) -> dcc.Checklist:
    """The one-box checklist of parameter `name` (of its `control`-th control)."""
    cid, prop = BY_NAME[name].controls[control]
    box = values[f"{cid}.{prop}"]
    return dcc.Checklist(id=cid, options=[{"label": label, "value": "on"}], value=box, className="toggle")


def model_field(view: View, values: dict) -> html.Div:
    lang = view.lang
    options = [{"label": model_label(mid, lang), "value": mid, "search": mid} for mid in model_ids()]
    options.append({"label": t("custom", lang), "value": "custom"})
    custom = html.Div(
        [
            html.P(t("custom_help", lang), className="help"),
            dcc.Textarea(id="custom-config", className="custom-config", placeholder='{"model_type": "llama", ...}'),
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
    )
    dropdown = dcc.Dropdown(
        id="model", options=options, value=values["model.value"], clearable=False, labels=dropdown_labels(lang)
    )
    notice = html.Div(id="model-notice", className="help", role="status")
    return field(t("model", lang), dropdown, notice, custom)


def size_fields(view: View) -> list:
    """Batch and context: a log2 slider and a box each (validated in assets/app.js)."""
    lang = view.lang
    return [
        field(
            t(label, lang),
            log_slider(slider, box, value, span, t(label, lang)),
            html.Div(id=error, className="error", role="alert"),
            html_for=box,
        )
        for label, slider, box, error, value, span in (
            ("batch", "batch-size", "batch-size-input", "batch-error", view.batch, BATCH_SLIDER),
            ("context", "context-length", "context-length-input", "context-error", view.context, CONTEXT_SLIDER),
        )
    ]


def precision_fields(view: View, values: dict) -> list:
    lang = view.lang
    model = view_model(view)
    kv, kv_help = kv_controls(model, view.kv_heads, lang)
    kv_slider = dcc.Slider(id="kv-heads", step=1, updatemode="mouseup", allow_direct_input=False, **kv)
    precisions = [{"label": PRECISION_LABELS[p], "value": p} for p in PRECISIONS]
    return [
        field(
            t("kv_heads", lang),
            html.Div(kv_slider, className="slider", **{"aria-label": t("kv_heads", lang)}),
            html.Div(kv_help, id="kv-help", className="help"),
        ),
        html.Div(
            [
                field(
                    t("precision", lang),
                    dcc.Dropdown(id="precision", options=precisions, value=values["precision.value"], clearable=False),
                ),
                field(
                    t("kv_precision", lang),
                    dcc.Dropdown(
                        id="kv-precision",
                        options=[{"label": p, "value": p} for p in KV_PRECISIONS],
                        value=values["kv-precision.value"],
                        clearable=False,
                    ),
                ),
            ],
            className="field-pair",
        ),
        field(
            t("tensor_parallel", lang),
            dcc.RadioItems(
                id="tensor-parallel",
                options=tp_options(model, lang),
                value=values["tensor-parallel.value"],
                inline=True,
                className="toggle",
            ),
        ),
    ]


def measurement_details(view: View, values: dict) -> html.Details:
    """Measured roofs, efficiencies, a measured step and uploaded profiles."""
    lang = view.lang
    formats = dcc.Dropdown(
        id="measurements-format", options=[{"label": f, "value": f} for f in FORMATS], value="csv", clearable=False
    )
    steps = dcc.Input(
        id="measurements-steps",
        type="number",
        min=1,
        max=MAX_MEASURED_STEPS,  # every number box has a max: Dash's + and − give NaN without one
        step=1,
        value=1,
        debounce=True,
        className="number-input",
        placeholder="steps",
    )
    upload = dcc.Upload(
        id="measurements-upload",
        children=html.Div(t("upload_measurements", lang)),
        max_size=256 * 1024,
        className="upload",
    )
    return html.Details(
        [
            html.Summary(t("measurement", lang)),
            checkbox("roofs", values, t("use_measured", lang)),
            html.Div(
                [
                    field(t("bw_eff", lang), number("bweff", values)),
                    field(t("fl_eff", lang), number("fleff", values)),
                ],
                className="field-pair",
            ),
            field(t("measured_step", lang), number("step", values)),
            html.Div(
                [
                    field(t("measure_format", lang), formats, html_for="measurements-format"),
                    field(t("measure_steps", lang), steps, html_for="measurements-steps"),
                ],
                className="field-pair",
            ),
            measured_on_field(view),  # a profile is of one machine: which of those drawn
            upload,
            html.Div(id="measurements-status", className="help", role="status"),
        ],
        className="measurement",
        open=bool(
            view.measured_roofs or view.measured_step_ms or view.bandwidth_efficiency < 1 or view.compute_efficiency < 1
        ),
    )


def serving_details(view: View, values: dict) -> html.Details:
    """A whole request, its cost, the memory a server may use, published measurements."""
    lang = view.lang
    return html.Details(
        [
            html.Summary(t("serving", lang)),
            html.Div(
                [
                    field(t("output_tokens", lang), number("out", values)),
                    field(t("gpu_price", lang), number("price", values)),
                ],
                className="field-pair",
            ),
            field(serving_words("srv_field_conc", lang), number("conc", values)),
            field(
                serving_words("srv_field_backend", lang),
                dcc.RadioItems(
                    id="backend",
                    options=[{"label": serving_words(f"srv_backend_{b}", lang), "value": b} for b in BACKEND_CHOICES],
                    value=values["backend.value"],
                    className="toggle",
                    inline=True,
                ),
            ),
            field(t("memory_utilization", lang), number("memutil", values)),
            field(t("kv_block", lang), number("block", values)),
            checkbox("published", values, t("show_published", lang)),
        ],
        className="serving",
        # open where the link set the default scenario's serving part otherwise (pages/scenario.py);
        # switched off (out=0) it stays closed: the One request card links to the box
        open=bool(
            view.output_tokens not in (0, scenario.OUTPUT_TOKENS)
            or view.concurrency not in (0, scenario.CONCURRENCY)
            or view.backend != scenario.BACKEND
            or view.gpu_hour_price
            or view.published
            or view.memory_utilization != DEFAULT_MEMORY_UTILIZATION
        ),
    )


def toggles(view: View, values: dict) -> html.Div:
    lang = view.lang
    return html.Div(
        [
            checkbox("fa", values, t("flash", lang)),
            checkbox("roofs", values, t("hierarchy_roofs", lang), control=1),
        ],
        className="toggles",
    )


def controls(view: View) -> html.Div:
    lang = view.lang
    values = shown(PARAMS, view)
    hw_options = [{"label": a.name, "value": a.id} for a in catalogue().values()]
    hardware = dcc.Dropdown(
        id="hardware",
        options=hw_options,
        value=values["hardware.value"],
        multi=True,
        clearable=False,
        labels=dropdown_labels(lang),
    )
    return html.Div(
        [
            field(t("hardware", lang), hardware, html.Div(id="hardware-notice", className="help", role="status")),
            what_if_controls(view, hw_options),
            model_field(view, values),
            *size_fields(view),
            *precision_fields(view, values),
            pin_controls(view),
            measurement_details(view, values),
            serving_details(view, values),
            toggles(view, values),
        ],
        className="controls",
        id="controls",
    )
