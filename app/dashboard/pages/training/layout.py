"""The training lab's page (tab=training): its controls and result panels, first drawn from the
link. The link's parameters and their parsing are in state.py; the callbacks in callbacks.py.
"""

from __future__ import annotations

from dataclasses import replace

from dash import dcc, html

from app.dashboard.components.header import lab_shell
from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import shown
from app.dashboard.pages.links import carried, linked_hardware
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.training.callbacks import href_of, link_of, outputs
from app.dashboard.pages.training.params import BY_NAME, OWN, PARAMS, TEACHING, TrainArgs, current_names
from app.dashboard.pages.training.state import parse_args
from app.units import count
from engine.hardware import catalogue
from engine.model_catalog import get_model, model_ids
from engine.training import OPTIMIZERS, RECOMPUTE, TRAINING_DTYPES, ZERO_STAGES

GRAPH_CONFIG = {"displaylogo": False, "showSendToCloud": False, "displayModeBar": False}


def _field(label: str, control, html_for: str | None = None) -> html.Div:
    return html.Div([html.Label(label, className="field-label", htmlFor=html_for), control], className="field")


def _number(name: str, first: dict, lang: str) -> html.Div:
    """The number box of the table's row `name`, labelled `lab_train_<name>`, with its first
    value; + and − step by 1. No HTML min, max or step: the browser sends no value for a
    number outside them, which an optional box read as empty (a busbw of -5 was dropped without
    a word); the table's limits refuse it in the box's words."""
    cid, prop = BY_NAME[name].controls[0]
    box = dcc.Input(
        id=cid,
        type="number",
        value=first[f"{cid}.{prop}"],
        step="any",  # off its step the browser sends no value either (2.5 micro-batches were dropped)
        debounce=0.6,
        className="number-input",
    )
    return _field(t(f"lab_train_{name}", lang), box, html_for=cid)


def _radio(name: str, options: list[tuple[object, str]], first: dict, lang: str) -> html.Div:
    cid, prop = BY_NAME[name].controls[0]
    return _field(
        t(f"lab_train_{name}", lang),
        dcc.RadioItems(
            id=cid,
            options=[{"label": text, "value": v} for v, text in options],
            value=first[f"{cid}.{prop}"],
            className="toggle",
            inline=True,
        ),
    )


def _model_label(mid: str) -> str:
    m = get_model(mid)
    if m.num_active_params != m.num_params:
        return f"{mid} · {count(m.num_params)} ({count(m.num_active_params)} active)"
    return f"{mid} · {count(m.num_params)}"


def measured_field(first: dict, lang: str) -> html.Div:
    """What was measured: the step time (s) or the job's tokens/s (the `step` and `tok_s` rows
    share these two controls), and its value."""
    measures = [
        {"label": t("lab_train_measure_step", lang), "value": "step"},
        {"label": t("lab_train_measure_rate", lang), "value": "rate"},
    ]
    return html.Div(
        [
            html.Label(t("lab_train_measure", lang), className="field-label", htmlFor="train-measured"),
            dcc.RadioItems(
                id="train-measure",
                options=measures,
                value=first["train-measure.value"],
                className="toggle",
                inline=True,
            ),
            dcc.Input(
                id="train-measured",
                type="number",
                value=first["train-measured.value"],
                step="any",
                debounce=0.6,
                className="number-input",
            ),
        ],
        className="field",
    )


def _dropdown(name: str, options: list[dict], first: dict, lang: str) -> html.Div:
    cid, prop = BY_NAME[name].controls[0]
    return _field(
        t(f"lab_train_{name}", lang),
        dcc.Dropdown(id=cid, options=options, value=first[f"{cid}.{prop}"], clearable=False),
    )


def controls(a: TrainArgs, lang: str) -> html.Div:
    """Every control, first showing what the table says the link asked for."""
    first = shown(PARAMS, a)
    hw_options = [{"label": x.name, "value": x.id} for x in catalogue().values()]
    model_options = [{"label": t("lab_train_teaching", lang), "value": TEACHING}] + [
        {"label": _model_label(mid), "value": mid} for mid in model_ids()
    ]
    teaching = [_number(name, first, lang) for name in ("n", "layers", "heads", "hdim")]
    return html.Div(
        [
            _dropdown("hw", hw_options, first, lang),
            _dropdown("model", model_options, first, lang),
            html.Div(teaching, id="train-teaching", className="field-pair", hidden=a.model != TEACHING),
            html.Div([_number("gpus", first, lang), _number("seq", first, lang)], className="field-pair"),
            _number("tokens", first, lang),
            measured_field(first, lang),
            _radio("opt", [(o, t(f"lab_train_opt_{o}", lang)) for o in OPTIMIZERS], first, lang),
            _radio("zero", [(z, t(f"lab_train_zero_{z}", lang)) for z in ZERO_STAGES], first, lang),
            _radio("recompute", [(r, t(f"lab_train_rc_{r}", lang)) for r in RECOMPUTE], first, lang),
            _radio("dtype", [(d, d) for d in TRAINING_DTYPES], first, lang),
            _number("busbw", first, lang),
            _number("mb", first, lang),
            _number("gpn", first, lang),
        ],
        className="controls train-controls",
        id="train-controls",
    )


def _panel(title: str, children: list, panel_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=panel_id)


def page(view: View) -> html.Div:
    lang = view.lang
    view = replace(view, carry=carried(current_names(view.lab_args), OWN))
    # the accelerator the link names; without one, the lab's own (its teaching run was measured on it)
    linked = linked_hardware(view)
    view = replace(view, hardware=linked)
    args, notices = parse_args(view.lab_args, linked, lang)
    hidden, error, util, figure, mem_text, comm = outputs(args, [], lang, view.theme, view.present, (), href_of(view))
    link = link_of(view, args)
    flags = {"lang": lang, "theme": view.theme, "embed": view.embed, "present": view.present}
    flags |= {"hw": list(linked), "carry": [list(c) for c in view.carry]}
    body = html.Main(
        [
            dcc.Store(id="train-flags", data=flags),
            dcc.Store(id="train-link", data=link),
            dcc.Store(id="train-url", data=""),
            controls(args, lang),
            html.Div(
                [
                    html.Div(error, id="train-error", className="error", role="alert"),
                    _panel(
                        t("lab_train_util_title", lang),
                        [html.Div(util, id="train-util")],
                        "train-util-panel",
                    ),
                    _panel(
                        t("lab_train_memory_title", lang),
                        [
                            dcc.Graph(id="train-memory-graph", figure=figure, config=GRAPH_CONFIG),
                            html.Div(mem_text, id="train-memory-text"),
                        ],
                        "train-memory-panel",
                    ),
                    _panel(t("lab_train_comm_title", lang), [html.Div(comm, id="train-comm")], "train-comm-panel"),
                ],
                className="train-results",
            ),
        ],
        id="train-lab",
        className="lab train-lab",
    )
    return lab_shell(view, [body], notices, link["tabs"])
