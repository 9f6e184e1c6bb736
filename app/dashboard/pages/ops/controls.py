"""The op lab's controls (`tab=ops`): the op, the accelerators and what-if cards, each op's
fields (shown for that op only), fusion, the dtype and the launch overhead. Their values come
from the parsed link (state.py); every change goes through controls_state.py."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels
from app.dashboard.components.what_if import what_if_picker
from app.dashboard.lib.i18n import t
from app.dashboard.pages.ops.state import ACTS, FIELDS_OF, INT_FIELDS, KINDS, MAX_OVERHEAD_US, OpsState
from app.dashboard.pages.roofline.state import View
from engine.hardware import catalogue
from engine.oplab import VALUE_DTYPES
from engine.ops import ELEMENTWISE_KINDS


def _field(label: str, *children, field_id: str | None = None, hidden: bool = False, html_for=None) -> html.Div:
    attrs = {"id": field_id} if field_id else {}
    return html.Div(
        [html.Label(label, className="field-label", htmlFor=html_for), *children],
        className="field",
        hidden=hidden,
        **attrs,
    )


def _number(name: str, value: int | float, low: float, high: float, step: float = 1) -> dcc.Input:
    return dcc.Input(
        id=f"lab-{name}",
        type="number",
        value=value,
        min=low,
        max=high,
        step=step,
        debounce=0.4,
        className="number-input",
    )


def _int_field(name: str, state: OpsState, lang: str) -> html.Div:
    return _field(
        t(f"lab_ops_{name}", lang), _number(name, getattr(state, name), *INT_FIELDS[name]), html_for=f"lab-{name}"
    )


def what_if_field(state: OpsState, lang: str) -> html.Details:
    """Invented accelerators (a scaled or invented card, e.g. `selftest:2:500`: ridge 250), typed
    in engine.what_if's short form and added to a list, each removable; drawn beside the
    catalogue cards."""
    return html.Details(
        [
            html.Summary(t("what_if", lang)),
            *what_if_picker("lab-", state.what_if, lang, "selftest:2:500"),
            html.P(t("lab_ops_what_if_help", lang), className="help"),
            html.Div(id="lab-whatif-error", className="error", role="alert"),
        ],
        className="field lab-what-if",
        id="lab-what-if-field",
        open=bool(state.what_if),
    )


def _op_fields(fields: list, op_id: str, shown: bool) -> html.Div:
    return html.Div(fields, id=f"lab-{op_id}-fields", className="lab-fields", hidden=not shown)


def gemm_fields(state: OpsState, lang: str) -> html.Div:
    tile = dcc.Input(
        id="lab-tile", type="text", value=state.tile, placeholder="128x128", debounce=0.4, className="number-input"
    )
    activations = [{"label": t("lab_ops_act_none", lang), "value": ""}] + [{"label": a, "value": a} for a in ACTS]
    epilogue = [
        dcc.Checklist(
            id="lab-bias",
            options=[{"label": t("lab_ops_bias", lang), "value": "on"}],
            value=["on"] if state.bias else [],
            className="toggle",
        ),
        dcc.RadioItems(id="lab-act", options=activations, value=state.act, inline=True, className="toggle"),
    ]
    return _op_fields(
        [
            html.Div([_int_field(name, state, lang) for name in ("m", "n", "k")], className="lab-triple"),
            _field(
                t("lab_ops_tile", lang),
                tile,
                html.P(t("lab_ops_tile_field_help", lang), className="help"),
                html_for="lab-tile",
            ),
            _field(t("lab_ops_epilogue", lang), *epilogue),
        ],
        "gemm",
        state.op == "gemm",
    )


def conv_fields(state: OpsState, lang: str) -> html.Div:
    fields = [html.Div([_int_field(name, state, lang) for name in FIELDS_OF["conv2d"]], className="lab-triple")]
    return _op_fields(fields, "conv", state.op == "conv2d")


def elementwise_fields(state: OpsState, lang: str) -> html.Div:
    shape = dcc.Input(
        id="lab-shape", type="text", value=",".join(str(d) for d in state.shape), debounce=0.4, className="number-input"
    )
    ops = dcc.Dropdown(
        id="lab-ops",
        options=[{"label": k, "value": k} for k in ELEMENTWISE_KINDS],
        value=list(state.ops),
        multi=True,
        clearable=False,
        labels=dropdown_labels(lang),
    )
    return _op_fields(
        [
            _field(t("lab_ops_shape", lang), shape, html_for="lab-shape"),
            _field(t("lab_ops_ops", lang), ops),
            _int_field("count", state, lang),
        ],
        "ew",
        state.op == "elementwise",
    )


def execution_fields(state: OpsState, lang: str) -> list:
    """Fusion (GEMM epilogue, elementwise chain), the dtype and the launch overhead."""
    fused = dcc.Checklist(
        id="lab-fused",
        options=[{"label": t("lab_ops_fused", lang), "value": "on"}],
        value=["on"] if state.fused else [],
        className="toggle",
    )
    dtypes = [{"label": d, "value": d} for d in VALUE_DTYPES]
    return [
        _field(
            t("lab_ops_fusion", lang),
            fused,
            html.P(t("lab_ops_fused_help", lang), className="help"),
            field_id="lab-fused-field",
            hidden=state.op not in ("gemm", "elementwise"),
        ),
        html.Div(
            [
                _field(
                    t("lab_ops_dtype", lang),
                    dcc.Dropdown(id="lab-dtype", options=dtypes, value=state.dtype, clearable=False),
                ),
                _field(
                    t("lab_ops_overhead", lang),
                    _number("overhead", state.overhead_us, 0, MAX_OVERHEAD_US, 0.5),
                    html.P(t("lab_ops_overhead_help", lang), className="help"),
                    html_for="lab-overhead",
                ),
            ],
            id="lab-dtype-field",
            hidden=state.op == "seed000",
        ),
    ]


def controls(view: View, state: OpsState, hardware: tuple[str, ...]) -> html.Div:
    lang = view.lang
    kinds = [{"label": t(f"lab_ops_kind_{k}", lang), "value": k} for k in KINDS]
    accelerators = dcc.Dropdown(
        id="lab-hardware",
        options=[{"label": a.name, "value": a.id} for a in catalogue().values()],
        value=list(hardware),
        multi=True,
        clearable=False,
        labels=dropdown_labels(lang),
    )
    return html.Div(
        [
            _field(
                t("lab_ops_op", lang), dcc.RadioItems(id="lab-op", options=kinds, value=state.op, className="lab-kinds")
            ),
            _field(t("hardware", lang), accelerators),
            what_if_field(state, lang),
            gemm_fields(state, lang),
            conv_fields(state, lang),
            elementwise_fields(state, lang),
            *execution_fields(state, lang),
        ],
        className="controls lab-controls",
        id="lab-controls",
    )
