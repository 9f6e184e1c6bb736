"""The roofline's composite controls: the log2 sliders with their boxes, the KV-heads slider,
the TP choices, the model labels, the what-if card maker, the pin and the accelerator a profile
was measured on."""

from __future__ import annotations

import math

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels, field
from app.dashboard.components.what_if import what_if_picker
from app.dashboard.lib.i18n import t
from app.dashboard.pages.roofline.state import View, hardware_specs, pinned_view
from app.dashboard.pages.roofline.views import subtitle
from app.service import resolve_hardware
from app.units import count
from engine.errors import EngineInputError
from engine.model_catalog import get_model, native_format

BATCH_SLIDER = (0, 10)  # log2: 1 .. 1024


CONTEXT_SLIDER = (7, 20)  # log2: 128 .. 1,048,576


PRECISION_LABELS = {
    "bf16": "bf16",
    "fp16": "fp16",
    "fp8": "fp8",
    "int8": "int8",
    "int4": "int4 weight-only (W4A16)",
    "fp4": "fp4",
}


def pow2_marks(low: int, high: int) -> dict:
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
    native = native_format(model_id)  # the format's own name: MXFP4, not the int4 it is drawn as
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


def log_slider(slider_id: str, input_id: str, value: int, span: tuple[int, int], label: str) -> html.Div:
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
                    marks=pow2_marks(*span),
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


def scale_input(component_id: str, value: float) -> dcc.Input:
    """A factor's box, no HTML min or max: outside them the browser sent no value, and -5 was
    refused as "0.0 is not a factor" (engine.what_if.derive_what_if says the range)."""
    return dcc.Input(id=component_id, type="number", step="any", value=value, className="number-input")


def what_if_controls(view: View, hw_options: list[dict]) -> html.Details:
    """Invented accelerators: typed in the short form, or a catalogue
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
                    field(t("what_if_flops", lang), scale_input("whatif-flops", 2), html_for="whatif-flops"),
                    field(t("what_if_bw", lang), scale_input("whatif-bw", 1), html_for="whatif-bw"),
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
    """Pin and compare: the current scenario becomes A, the controls make B."""
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


def measured_on_options(specs: object) -> list[dict]:
    """The accelerators drawn, by name (catalogue ids and what-if short forms, as the page holds
    them): the choice of the one a profile was measured on."""
    specs = [s for s in specs if isinstance(s, str)] if isinstance(specs, list) else []
    try:
        cards = resolve_hardware(specs) if specs else []
    except EngineInputError:  # a box a hand-made request filled: nothing to choose from
        return []
    return [{"label": card.name, "value": card.id} for card in cards]


def measured_on_field(view: View) -> html.Div:
    """The "measured on" choice: which of the accelerators drawn an imported profile is read
    against (default the first; uploads.load_measurements keeps it among those chosen)."""
    options = measured_on_options(hardware_specs(view))
    dropdown = dcc.Dropdown(
        id="measurements-on",
        options=options,
        value=options[0]["value"] if options else None,
        clearable=False,
        searchable=False,
        labels=dropdown_labels(view.lang),
    )
    return field(t("measured_on", view.lang), dropdown, html_for="measurements-on")
