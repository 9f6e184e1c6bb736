"""The op lab's controls (`tab=ops`): the op, the accelerators and what-if cards, each op's
fields (shown for that op only), fusion, the dtype and the launch overhead. Each control's id,
first value and words come from its row in the parameter table (params.py: `values` is
lib.params.shown of the state); every change is read back through the same table
(controls_state.py)."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels
from app.dashboard.components.what_if import what_if_picker
from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import shown
from app.dashboard.pages.ops.params import BY_NAME, KINDS, PARAMS, TEACHING, fields_of
from app.dashboard.pages.ops.state import OpsState
from app.dashboard.pages.roofline.state import View
from engine.hardware import catalogue
from engine.oplab import ACTIVATIONS, VALUE_DTYPES
from engine.ops import ELEMENTWISE_KINDS


def _field(label: str, *children, field_id: str | None = None, hidden: bool = False, html_for=None) -> html.Div:
    attrs = {"id": field_id} if field_id else {}
    return html.Div(
        [html.Label(label, className="field-label", htmlFor=html_for), *children],
        className="field",
        hidden=hidden,
        **attrs,
    )


def _control(name: str, values: dict) -> tuple[str, object]:
    """(component id, first value) of parameter `name`'s control."""
    cid, prop = BY_NAME[name].controls[0]
    return cid, values[f"{cid}.{prop}"]


def number(name: str, values: dict, lang: str) -> html.Div:
    """A labelled number box. The page checks the value against the row's limits and says a
    refused one in the box's words, with what was typed: the browser's own min/max would send
    an out-of-range number as empty, and the reader would not see what they typed."""
    cid, value = _control(name, values)
    box = dcc.Input(id=cid, type="number", value=value, step="any", debounce=0.4, className="number-input")
    return _field(t(BY_NAME[name].label, lang), box, html_for=cid)


def _text(name: str, values: dict, **props) -> dcc.Input:
    cid, value = _control(name, values)
    return dcc.Input(id=cid, type="text", value=value, debounce=0.4, className="number-input", **props)


def _box(name: str, values: dict, label: str) -> dcc.Checklist:
    cid, value = _control(name, values)
    return dcc.Checklist(id=cid, options=[{"label": label, "value": "on"}], value=value, className="toggle")


def what_if_field(values: dict, lang: str) -> html.Details:
    """Invented accelerators (a scaled or invented card, e.g. `selftest:2:500`: ridge 250), typed
    in engine.what_if's short form and added to a list, each removable; drawn beside the
    catalogue cards."""
    _, cards = _control("xhw", values)
    return html.Details(
        [
            html.Summary(t("what_if", lang)),
            *what_if_picker("lab-", tuple(cards), lang, "selftest:2:500"),
            html.P(t("lab_ops_what_if_help", lang), className="help"),
            html.Div(id="lab-whatif-error", className="error", role="alert"),
        ],
        className="field lab-what-if",
        id="lab-what-if-field",
        open=bool(cards),
    )


def _op_fields(fields: list, op_id: str, shown: bool) -> html.Div:
    return html.Div(fields, id=f"lab-{op_id}-fields", className="lab-fields", hidden=not shown)


def gemm_fields(state: OpsState, values: dict, lang: str) -> html.Div:
    tile = _text("tile", values, placeholder="128x128")
    cid, act = _control("act", values)
    activations = [{"label": t("lab_ops_act_none", lang), "value": ""}] + [
        {"label": a, "value": a} for a in ACTIVATIONS
    ]
    epilogue = [
        _box("bias", values, t("lab_ops_bias", lang)),
        dcc.RadioItems(id=cid, options=activations, value=act, inline=True, className="toggle"),
    ]
    return _op_fields(
        [
            html.Div([number(name, values, lang) for name in ("m", "n", "k")], className="lab-triple"),
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


def conv_fields(state: OpsState, values: dict, lang: str) -> html.Div:
    fields = [html.Div([number(name, values, lang) for name in fields_of("conv2d")], className="lab-triple")]
    return _op_fields(fields, "conv", state.op == "conv2d")


def elementwise_fields(state: OpsState, values: dict, lang: str) -> html.Div:
    cid, ops = _control("ops", values)
    chain = dcc.Dropdown(
        id=cid,
        options=[{"label": k, "value": k} for k in ELEMENTWISE_KINDS],
        value=ops,
        multi=True,
        clearable=False,
        labels=dropdown_labels(lang),
    )
    return _op_fields(
        [
            _field(t("lab_ops_shape", lang), _text("shape", values), html_for="lab-shape"),
            _field(t("lab_ops_ops", lang), chain),
            number("count", values, lang),
        ],
        "ew",
        state.op == "elementwise",
    )


def execution_fields(state: OpsState, values: dict, lang: str) -> list:
    """Fusion (GEMM epilogue, elementwise chain), the dtype and the launch overhead."""
    cid, dtype = _control("dtype", values)
    dtypes = dcc.Dropdown(
        id=cid, options=[{"label": d, "value": d} for d in VALUE_DTYPES], value=dtype, clearable=False
    )
    overhead = number("overhead_us", values, lang)
    overhead.children.append(html.P(t("lab_ops_overhead_help", lang), className="help"))
    return [
        _field(
            t("lab_ops_fusion", lang),
            _box("fused", values, t("lab_ops_fused", lang)),
            html.P(t("lab_ops_fused_help", lang), className="help"),
            field_id="lab-fused-field",
            hidden=state.op not in ("gemm", "elementwise"),
        ),
        html.Div(
            [_field(t("lab_ops_dtype", lang), dtypes), overhead],
            id="lab-dtype-field",
            hidden=state.op == TEACHING,
        ),
    ]


def model_field(state: OpsState, lang: str) -> html.Div:
    """The model whose decode projections are offered (and the teaching chart's decode step)."""
    row = BY_NAME["model"]
    cid, value = _control("model", shown([row], state))
    options = [{"label": m, "value": m} for m in row.kind.options]
    return _field(
        t(row.label, lang),
        dcc.Dropdown(id=cid, options=options, value=value, clearable=False, labels=dropdown_labels(lang)),
    )


def controls(view: View, state: OpsState, hardware: tuple[str, ...]) -> html.Div:
    lang = view.lang
    values = shown(PARAMS, state)
    cid, op = _control("op", values)
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
            _field(t("lab_ops_op", lang), dcc.RadioItems(id=cid, options=kinds, value=op, className="lab-kinds")),
            _field(t("hardware", lang), accelerators),
            what_if_field(values, lang),
            gemm_fields(state, values, lang),
            conv_fields(state, values, lang),
            elementwise_fields(state, values, lang),
            *execution_fields(state, values, lang),
        ],
        className="controls lab-controls",
        id="lab-controls",
    )
