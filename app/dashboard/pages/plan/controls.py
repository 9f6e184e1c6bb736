"""The Planner page's controls: the question (model, accelerators, GPU budget, lengths), the
targets (TPOT and TTFT, each a slider on a log scale of stops and a box that takes any value in
range), how they are met, the modes, backends and precisions searched, and a price per GPU-hour
for each accelerator. Each control's id is the one its parameter names in params.py."""

from __future__ import annotations

import math

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels, field, number_box
from app.dashboard.pages.plan.params import TPOT_MS, TTFT_MS, PlanArgs
from app.dashboard.pages.plan.provenance import accelerator_names
from app.dashboard.pages.plan.state import TPOT_STOPS, TTFT_STOPS, slider_position
from app.dashboard.pages.plan.words import backend_name, mode_name, target_name, w
from app.dashboard.pages.serving.controls import model_options
from app.units import plain
from engine.hardware import catalogue
from engine.planner import MODES, TARGETS
from engine.planner.space import MAX_BUDGET, PRECISIONS
from engine.serving.scenario import BACKENDS, MAX_TOKENS

SLIDERS = {"tpot": TPOT_STOPS, "ttft": TTFT_STOPS}


def _marks(grid: tuple[float, ...]) -> dict:
    """A label at each power of ten: 1, 10, 100 ms, then 1 s, 10 s (short: they sit side by side)."""
    decades = {i: v for i, v in enumerate(grid) if abs(v - 10 ** round(math.log10(v))) < 1e-9}
    return {i: plain(v) if v < 1000 else f"{plain(v / 1000)} s" for i, v in decades.items()}


def target_slider(name: str, value: float, span: tuple[float, float], lang: str) -> html.Div:
    """A target: the slider on its stops (log scale) and the box beside it; they always agree
    (callbacks.update_plan writes the one that did not move)."""
    grid = SLIDERS[name]
    label = w(f"plan_field_{name}_ms", lang)
    return field(
        label,
        html.Div(
            [
                html.Div(
                    dcc.Slider(
                        id=f"plan-{name}-slider",
                        min=0,
                        max=len(grid) - 1,
                        step=1,
                        value=slider_position(value, grid),
                        marks=_marks(grid),
                        updatemode="drag",
                        included=False,
                        allow_direct_input=False,
                    ),
                    className="slider",
                    # what the handle announces at each stop (assets/app.js): 30 ms, not stop 41
                    **{"aria-label": label, "data-stop-labels": "|".join(f"{plain(v)} ms" for v in grid)},
                ),
                number_box(f"plan-{name}", value, span[0], span[1], "any"),
            ],
            className="slider-row",
        ),
        html_for=f"plan-{name}",
        id=f"plan-{name}-field",
    )


def _checklist(cid: str, options: list[tuple[str, str]], value) -> dcc.Checklist:
    return dcc.Checklist(
        id=cid,
        options=[{"label": t, "value": v} for v, t in options],
        value=list(value),
        className="toggle",
        inline=True,
    )


def price_boxes(a: PlanArgs, lang: str) -> list:
    """One price box per accelerator (pattern ids: assets/13-plan.js gathers them)."""
    names = accelerator_names(a)
    prices = dict(a.prices)
    return [
        field(
            w("plan_price_for", lang, name=names[h]),
            dcc.Input(
                id={"type": "plan-price", "hw": h},
                type="number",  # no min or max: a browser sends a number outside them as none,
                step="any",  # read as "no price"; sent, it is refused in words (state.refused_prices)
                value=prices.get(h),
                debounce=True,
                className="number-input",
            ),
            cls="field plan-price",
        )
        for h in a.hardware
    ]


def controls(a: PlanArgs, lang: str) -> list:
    hw_options = [{"label": x.name, "value": x.id} for x in catalogue().values()]
    return [
        field(
            w("plan_field_model", lang),
            dcc.Dropdown(id="plan-model", options=model_options(a.model), value=a.model, clearable=False),
        ),
        field(
            w("plan_field_hw", lang),
            dcc.Dropdown(
                id="plan-hw", options=hw_options, value=list(a.hardware), multi=True, labels=dropdown_labels(lang)
            ),
        ),
        field(w("plan_field_gpus", lang), number_box("plan-gpus", a.gpus, 1, MAX_BUDGET, 1), html_for="plan-gpus"),
        html.Div(
            [
                field(
                    w("plan_field_isl", lang),
                    number_box("plan-isl", a.input_tokens, 1, MAX_TOKENS, 1),
                    html_for="plan-isl",
                ),
                field(
                    w("plan_field_osl", lang),
                    number_box("plan-osl", a.output_tokens, 1, MAX_TOKENS, 1),
                    html_for="plan-osl",
                ),
            ],
            className="field-pair",
        ),
        target_slider("tpot", a.tpot_ms, TPOT_MS, lang),
        target_slider("ttft", a.ttft_ms, TTFT_MS, lang),
        field(
            w("plan_field_target", lang),
            dcc.RadioItems(
                id="plan-target",
                options=[{"label": target_name(t, lang), "value": t} for t in TARGETS],
                value=a.target,
                className="toggle",
            ),
        ),
        field(w("plan_field_modes", lang), _checklist("plan-modes", [(m, mode_name(m, lang)) for m in MODES], a.modes)),
        field(
            w("plan_field_backends", lang),
            _checklist("plan-backends", [(b, backend_name(b, lang)) for b in BACKENDS], a.backends),
        ),
        field(
            w("plan_field_precs", lang),
            _checklist("plan-precs", [(p, p) for p in PRECISIONS], a.precisions),
            html.P(w("plan_precs_help", lang), className="help"),
        ),
        html.Details(
            [
                html.Summary(w("plan_field_price", lang)),
                html.P(w("plan_prices_help", lang), className="help"),
                html.Div(price_boxes(a, lang), id="plan-price-boxes"),
            ],
            className="field plan-prices",
            open=bool(a.prices),
        ),
        dcc.Store(id="plan-prices", data=dict(a.prices)),
    ]
