"""The training lab's page (tab=training): its controls and result panels, first drawn from the
link. The link's parameters and their parsing are in state.py; the callbacks in callbacks.py.
"""

from __future__ import annotations

from dataclasses import replace

from dash import dcc, html

from app.dashboard.components.header import lab_shell
from app.dashboard.lib.i18n import t
from app.dashboard.pages.links import carried
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.training.callbacks import link_of, outputs
from app.dashboard.pages.training.state import OWN, PARAMS, TEACHING, TrainArgs, parse_args
from app.units import count
from engine.hardware import catalogue
from engine.model_catalog import get_model, model_ids
from engine.training import (
    OPTIMIZERS,
    RECOMPUTE,
    TRAINING_DTYPES,
)

GRAPH_CONFIG = {"displaylogo": False, "showSendToCloud": False, "displayModeBar": False}


def _field(label: str, control, html_for: str | None = None) -> html.Div:
    return html.Div([html.Label(label, className="field-label", htmlFor=html_for), control], className="field")


def _high(param: str) -> float:
    """The largest value the link accepts for `param`: every number box has a max, or Dash's
    + and − buttons compute min(value, undefined) and empty the box."""
    return PARAMS[param][1].high


def _number(cid: str, value: object, label: str, step: str = "1", minimum: float = 1) -> html.Div:
    high = _high(cid.removeprefix("train-"))
    return _field(
        label,
        dcc.Input(
            id=cid, type="number", value=value, min=minimum, max=high, step=step, debounce=0.6, className="number-input"
        ),
        html_for=cid,
    )


def _radio(cid: str, options: list[tuple[object, str]], value: object, label: str) -> html.Div:
    return _field(
        label,
        dcc.RadioItems(
            id=cid,
            options=[{"label": text, "value": v} for v, text in options],
            value=value,
            className="toggle",
            inline=True,
        ),
    )


def _model_label(mid: str) -> str:
    m = get_model(mid)
    if m.num_active_params != m.num_params:
        return f"{mid} · {count(m.num_params)} ({count(m.num_active_params)} active)"
    return f"{mid} · {count(m.num_params)}"


def measured_field(a: TrainArgs, lang: str) -> html.Div:
    """What was measured: the step time (s) or the job's tokens/s, and its value."""
    measures = [
        {"label": t("lab_train_measure_step", lang), "value": "step"},
        {"label": t("lab_train_measure_rate", lang), "value": "rate"},
    ]
    return html.Div(
        [
            html.Label(t("lab_train_measure", lang), className="field-label", htmlFor="train-measured"),
            dcc.RadioItems(id="train-measure", options=measures, value=a.measure, className="toggle", inline=True),
            dcc.Input(
                id="train-measured",
                type="number",
                value=a.measured,
                min=0,
                max=max(_high("step"), _high("tok_s")),
                step="any",
                debounce=0.6,
                className="number-input",
            ),
        ],
        className="field",
    )


def controls(a: TrainArgs, lang: str) -> html.Div:
    hw_options = [{"label": x.name, "value": x.id} for x in catalogue().values()]
    model_options = [{"label": t("lab_train_teaching", lang), "value": TEACHING}] + [
        {"label": _model_label(mid), "value": mid} for mid in model_ids()
    ]
    return html.Div(
        [
            _field(
                t("lab_train_accelerator", lang),
                dcc.Dropdown(id="train-hw", options=hw_options, value=a.hardware, clearable=False),
            ),
            _field(
                t("lab_train_model", lang),
                dcc.Dropdown(id="train-model", options=model_options, value=a.model, clearable=False),
            ),
            html.Div(
                [
                    _number("train-n", a.params_b, t("lab_train_n", lang), step="any", minimum=0),
                    _number("train-layers", a.layers, t("lab_train_layers", lang)),
                    _number("train-heads", a.heads, t("lab_train_heads", lang)),
                    _number("train-hdim", a.head_dim, t("lab_train_hdim", lang)),
                ],
                id="train-teaching",
                className="field-pair",
                hidden=a.model != TEACHING,
            ),
            html.Div(
                [
                    _number("train-gpus", a.gpus, t("lab_train_gpus", lang)),
                    _number("train-seq", a.seq, t("lab_train_seq", lang)),
                ],
                className="field-pair",
            ),
            _number("train-tokens", a.tokens, t("lab_train_tokens", lang)),
            measured_field(a, lang),
            _radio(
                "train-opt",
                [(o, t(f"lab_train_opt_{o}", lang)) for o in OPTIMIZERS],
                a.optimizer,
                t("lab_train_optimizer", lang),
            ),
            _radio(
                "train-zero", [(z, t(f"lab_train_zero_{z}", lang)) for z in range(4)], a.zero, t("lab_train_zero", lang)
            ),
            _radio(
                "train-recompute",
                [(r, t(f"lab_train_rc_{r}", lang)) for r in RECOMPUTE],
                a.recompute,
                t("lab_train_recompute", lang),
            ),
            _radio("train-dtype", [(d, d) for d in TRAINING_DTYPES], a.dtype, t("lab_train_dtype", lang)),
            _number("train-busbw", a.busbw_gbs, t("lab_train_busbw", lang), step="any", minimum=0),
            _number("train-mb", a.micro_batch, t("lab_train_mb", lang)),
        ],
        className="controls train-controls",
        id="train-controls",
    )


def _panel(title: str, children: list, panel_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=panel_id)


def page(view: View) -> html.Div:
    lang = view.lang
    view = replace(view, carry=carried(view.lab_args, OWN))
    args, notices = parse_args(view.lab_args, view.hardware, lang)
    hidden, error, util, figure, mem_text, comm = outputs(args, [], lang, view.theme, view.present)
    link = link_of(view, args)
    flags = {"lang": lang, "theme": view.theme, "embed": view.embed, "present": view.present}
    flags |= {"hw": list(view.hardware), "carry": [list(c) for c in view.carry]}
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
