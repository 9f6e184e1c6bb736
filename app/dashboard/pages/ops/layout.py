"""The op lab (`tab=ops`): one kernel (GEMM, conv2d, elementwise chain) or seed 000's chart on
the roofline of the selected accelerators, real or what-if, with launch overhead as the third
regime. This module is the page and its callbacks, thin: the link or the controls are parsed
by lab_ops_state.py, the engine is called by lab_ops_compute.py, and the figure and the tables
are built by lab_ops_figures.py and lab_ops_tables.py. Every control change writes the
canonical query back (replaceState in assets/06-lab-ops.js); a preset is a link to its query.
"""

from __future__ import annotations

from dataclasses import replace

from dash import ClientsideFunction, Input, Output, State, dcc, html, no_update

from engine.errors import EngineInputError
from engine.hardware import catalogue
from engine.model_catalog import model_ids
from engine.oplab import VALUE_DTYPES
from engine.ops import ELEMENTWISE_KINDS
from engine.what_if import parse_what_if

from .i18n import STRINGS, reason, t
from .lab_ops_compute import compute
from .lab_ops_figures import op_figure
from .lab_ops_state import (
    ACTS,
    CONTROLS,
    FIELDS_OF,
    INT_FIELDS,
    KINDS,
    MAX_OVERHEAD_US,
    OpsState,
    from_controls,
    lab_query,
    parse_args,
    presets,
    state_from_preset,
)
from .lab_ops_tables import details, kernels_table, results_table, summary, views_table
from .pickers import GRAPH_CONFIG, dropdown_labels, what_if_picker
from .tabs import lab_shell
from .url_state import DEFAULT_HARDWARE, MAX_HARDWARE, View


def preset_links(view: View, state: OpsState, hardware: tuple[str, ...]) -> tuple[list, list]:
    """(seed presets + seed 000's chart, the model's decode projections) as links."""
    lang = view.lang
    seed, decode = [], []
    for p in presets(state.model):
        target = state_from_preset(p, state)
        key = f"lab_ops_preset_{p['id'].replace('-', '_')}"
        is_decode = p["id"].startswith("decode-")
        label = p["id"].removeprefix("decode-") if is_decode else (t(key, lang) if key in STRINGS else p["label"])
        link = dcc.Link(
            label,
            href="?" + lab_query(view, target, hardware),
            id=f"lab-preset-{p['id']}",
            className="lab-preset",
            title=p["label"],
        )
        (decode if is_decode else seed).append(link)
    chart = replace(OpsState(), op="seed000", model=state.model, what_if=state.what_if)
    seed.append(
        dcc.Link(
            t("lab_ops_preset_seed000", lang),
            href="?" + lab_query(view, chart, hardware),
            id="lab-preset-seed000",
            className="lab-preset",
        )
    )
    return seed, decode


def panels(view: View, state: OpsState, hardware: tuple[str, ...]) -> dict:
    """Everything the lab shows for a state, by component id (the page and the callback)."""
    lang = view.lang
    computed = compute(state, hardware)
    seed, decode = preset_links(view, state, hardware)
    kernels = kernels_table(computed, lang)
    views = views_table(computed, lang)
    return {
        "lab-graph": op_figure(computed, computed["accelerators"], state.dtype, lang, view.theme),
        "lab-summary": summary(computed, lang),
        "lab-views": [views] if views is not None else [],
        "lab-views-panel": views is None,
        "lab-results": results_table(computed, lang),
        "lab-details": details(computed, lang) + ([html.H3(t("lab_ops_kernels", lang)), kernels] if kernels else []),
        "lab-seed-presets": seed,
        "lab-decode-presets": decode,
        "lab-gemm-fields": state.op != "gemm",
        "lab-conv-fields": state.op != "conv2d",
        "lab-ew-fields": state.op != "elementwise",
        "lab-fused-field": state.op not in ("gemm", "elementwise"),
        "lab-dtype-field": state.op == "seed000",
    }


# ---- the page -----------------------------------------------------------------------------


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
    """Invented accelerators (seed 004 §9, seed 002's self-test card): typed in engine.what_if's
    short form and added to a list, each removable; drawn beside the catalogue cards."""
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


def controls(view: View, state: OpsState, hardware: tuple[str, ...]) -> html.Div:
    lang = view.lang
    hw_options = [{"label": a.name, "value": a.id} for a in catalogue().values()]
    dtype_options = [{"label": d, "value": d} for d in VALUE_DTYPES]
    return html.Div(
        [
            _field(
                t("lab_ops_op", lang),
                dcc.RadioItems(
                    id="lab-op",
                    options=[{"label": t(f"lab_ops_kind_{k}", lang), "value": k} for k in KINDS],
                    value=state.op,
                    className="lab-kinds",
                ),
            ),
            _field(
                t("hardware", lang),
                dcc.Dropdown(
                    id="lab-hardware",
                    options=hw_options,
                    value=list(hardware),
                    multi=True,
                    clearable=False,
                    labels=dropdown_labels(lang),
                ),
            ),
            what_if_field(state, lang),
            html.Div(
                [
                    html.Div([_int_field(name, state, lang) for name in ("m", "n", "k")], className="lab-triple"),
                    _field(
                        t("lab_ops_tile", lang),
                        dcc.Input(
                            id="lab-tile",
                            type="text",
                            value=state.tile,
                            placeholder="128x128",
                            debounce=0.4,
                            className="number-input",
                        ),
                        html.P(t("lab_ops_tile_field_help", lang), className="help"),
                        html_for="lab-tile",
                    ),
                    _field(
                        t("lab_ops_epilogue", lang),
                        dcc.Checklist(
                            id="lab-bias",
                            options=[{"label": t("lab_ops_bias", lang), "value": "on"}],
                            value=["on"] if state.bias else [],
                            className="toggle",
                        ),
                        dcc.RadioItems(
                            id="lab-act",
                            options=[{"label": t("lab_ops_act_none", lang), "value": ""}]
                            + [{"label": a, "value": a} for a in ACTS],
                            value=state.act,
                            inline=True,
                            className="toggle",
                        ),
                    ),
                ],
                id="lab-gemm-fields",
                className="lab-fields",
                hidden=state.op != "gemm",
            ),
            html.Div(
                [
                    html.Div(
                        [_int_field(name, state, lang) for name in FIELDS_OF["conv2d"]],
                        className="lab-triple",
                    )
                ],
                id="lab-conv-fields",
                className="lab-fields",
                hidden=state.op != "conv2d",
            ),
            html.Div(
                [
                    _field(
                        t("lab_ops_shape", lang),
                        dcc.Input(
                            id="lab-shape",
                            type="text",
                            value=",".join(str(d) for d in state.shape),
                            debounce=0.4,
                            className="number-input",
                        ),
                        html_for="lab-shape",
                    ),
                    _field(
                        t("lab_ops_ops", lang),
                        dcc.Dropdown(
                            id="lab-ops",
                            options=[{"label": k, "value": k} for k in ELEMENTWISE_KINDS],
                            value=list(state.ops),
                            multi=True,
                            clearable=False,
                            labels=dropdown_labels(lang),
                        ),
                    ),
                    _int_field("count", state, lang),
                ],
                id="lab-ew-fields",
                className="lab-fields",
                hidden=state.op != "elementwise",
            ),
            _field(
                t("lab_ops_fusion", lang),
                dcc.Checklist(
                    id="lab-fused",
                    options=[{"label": t("lab_ops_fused", lang), "value": "on"}],
                    value=["on"] if state.fused else [],
                    className="toggle",
                ),
                html.P(t("lab_ops_fused_help", lang), className="help"),
                field_id="lab-fused-field",
                hidden=state.op not in ("gemm", "elementwise"),
            ),
            html.Div(
                [
                    _field(
                        t("lab_ops_dtype", lang),
                        dcc.Dropdown(id="lab-dtype", options=dtype_options, value=state.dtype, clearable=False),
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
        ],
        className="controls lab-controls",
        id="lab-controls",
    )


def notice_text(notice: tuple[str, str, str], lang: str) -> str:
    """What was ignored, said in the page's language (the reason through i18n.reason)."""
    name, value, why = notice
    return t("notice_ignored", lang, name=name, value=value, why=reason(why, lang))


def _section(title: str, *children, section_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=section_id)


def page(view: View) -> html.Div:
    """The lab for the link it was opened with: parsed, computed and drawn server-side, so
    the first paint already shows the linked view."""
    lang = view.lang
    hardware = view.hardware or DEFAULT_HARDWARE
    state, notices = parse_args(view.lab_args, hardware)
    p = panels(view, state, hardware)
    graph_config = {
        **GRAPH_CONFIG,
        "toImageButtonOptions": {"format": "png", "filename": f"oplab-{state.op}", "scale": 2},
    }
    body = html.Main(
        [
            dcc.Store(id="lab-context", data={"lang": lang, "theme": view.theme, "embed": view.embed}),
            dcc.Store(id="lab-query", data=lab_query(view, state, hardware)),
            dcc.Store(id="lab-url-sync", data=""),
            controls(view, state, hardware),
            html.Div(
                [
                    html.Div(id="lab-status", className="notices lab-status", role="status", hidden=True),
                    dcc.Graph(id="lab-graph", figure=p["lab-graph"], config=graph_config, className="lab-graph"),
                    html.Div(p["lab-summary"], id="lab-summary", className="insight"),
                ],
                className="figure lab-figure",
            ),
            html.Aside(
                [
                    _section(
                        t("lab_ops_presets", lang),
                        html.Div(p["lab-seed-presets"], id="lab-seed-presets", className="lab-presets"),
                        _field(
                            t("lab_ops_decode_of", lang),
                            dcc.Dropdown(
                                id="lab-model",
                                options=[{"label": m, "value": m} for m in model_ids()],
                                value=state.model,
                                clearable=False,
                                labels=dropdown_labels(lang),
                            ),
                        ),
                        html.Div(p["lab-decode-presets"], id="lab-decode-presets", className="lab-presets"),
                        section_id="lab-presets",
                    ),
                    html.Section(
                        [html.H2(t("lab_ops_views", lang)), html.Div(p["lab-views"], id="lab-views")],
                        className="panel",
                        id="lab-views-panel",
                        hidden=p["lab-views-panel"],
                    ),
                ],
                className="side",
            ),
            html.Section(
                [
                    html.H2(t("lab_ops_results", lang)),
                    html.Div(p["lab-results"], id="lab-results"),
                    html.Div(p["lab-details"], id="lab-details"),
                ],
                className="panel lab-wide",
                id="lab-results-panel",
            ),
        ],
        id="ops-lab",
        className="main lab lab-ops",
    )
    lab_notices = [notice_text(notice, lang) for notice in notices]
    return lab_shell(view, [body], lab_notices)


# ---- callbacks ------------------------------------------------------------------------------

PANEL_OUTPUTS = (
    ("lab-graph", "figure"),
    ("lab-summary", "children"),
    ("lab-views", "children"),
    ("lab-views-panel", "hidden"),
    ("lab-results", "children"),
    ("lab-details", "children"),
    ("lab-seed-presets", "children"),
    ("lab-decode-presets", "children"),
    ("lab-gemm-fields", "hidden"),
    ("lab-conv-fields", "hidden"),
    ("lab-ew-fields", "hidden"),
    ("lab-fused-field", "hidden"),
    ("lab-dtype-field", "hidden"),
)


def context_view(context: object) -> View:
    """The page's language, theme and embedding (the `lab-context` store), checked."""
    context = context if isinstance(context, dict) else {}
    return View(
        tab="ops",
        lang=context.get("lang") if context.get("lang") in ("en", "zh") else "en",
        theme=context.get("theme") if context.get("theme") in ("light", "dark") else "light",
        embed=context.get("embed") is True,
    )


def update(values: dict, context: object, flags: object) -> tuple:
    """Controls -> every panel, the status line, the canonical query and the page's flags."""
    view = context_view(context)
    lang = view.lang
    state, hardware, notices = from_controls(values)
    p = panels(view, state, hardware)
    status = [html.Div(notice_text(notice, lang)) for notice in notices]
    query = lab_query(view, state, hardware)
    # render_page (callbacks.py) re-renders the page only for a query other than this one
    new_flags = (flags if isinstance(flags, dict) else {}) | {"query": query}
    return (*(p[i] for i, _ in PANEL_OUTPUTS), status, not status, query, new_flags)


def add_what_if(text: object, current: object, hardware: object, context: object) -> tuple:
    """A typed short form added to the what-if list (the same name again: the new numbers
    replace the old) -> (options, value, the text box, the error). A bad one is refused with
    the engine's message, which names the format; the list never passes MAX_HARDWARE with the
    catalogue cards. The list's change then runs `update`, which checks it again."""
    current = [w for w in current if isinstance(w, str)] if isinstance(current, list) else []
    text = text.strip() if isinstance(text, str) else ""
    try:
        parse_what_if(text)
    except EngineInputError as exc:
        return no_update, no_update, no_update, reason(str(exc), context_view(context).lang)
    chosen = list(({w.split(":", 1)[0]: w for w in current} | {text.split(":", 1)[0]: text}).values())
    known = catalogue()
    taken = len({h for h in hardware if isinstance(h, str) and h in known}) if isinstance(hardware, list) else 0
    if taken + len(chosen) > MAX_HARDWARE:
        return no_update, no_update, no_update, t("what_if_limit", context_view(context).lang, n=MAX_HARDWARE)
    return [{"label": w, "value": w} for w in chosen], chosen, "", ""


def register(app) -> None:
    @app.callback(
        *(Output(i, prop) for i, prop in PANEL_OUTPUTS),
        Output("lab-status", "children"),
        Output("lab-status", "hidden"),
        Output("lab-query", "data"),
        Output("view-flags", "data", allow_duplicate=True),
        *(Input(f"lab-{name}", "value") for name in CONTROLS),
        State("lab-context", "data"),
        State("view-flags", "data"),
        prevent_initial_call=True,
    )
    def update_lab(*args):
        values = dict(zip(CONTROLS, args[: len(CONTROLS)], strict=True))
        return update(values, *args[len(CONTROLS) :])

    @app.callback(
        Output("lab-what-if", "options"),
        Output("lab-what-if", "value"),
        Output("lab-whatif-text", "value"),
        Output("lab-whatif-error", "children"),
        Input("lab-whatif-add", "n_clicks"),
        Input("lab-whatif-text", "n_submit"),
        State("lab-whatif-text", "value"),
        State("lab-what-if", "value"),
        State("lab-hardware", "value"),
        State("lab-context", "data"),
        prevent_initial_call=True,
    )
    def add_lab_what_if(_add, _submit, *args):
        return add_what_if(*args)

    app.clientside_callback(
        ClientsideFunction(namespace="lab_ops", function_name="syncUrl"),
        Output("lab-url-sync", "data"),
        Input("lab-query", "data"),
        prevent_initial_call=True,
    )
