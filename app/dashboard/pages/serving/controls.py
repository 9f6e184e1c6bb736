"""The Serving page's controls: the scenario (model, accelerators and what-if cards, backend,
precision, parallel layout, lengths, concurrency, memory utilisation, price) and the fit to
the user's own runs. Each control's id is the one its parameter names in params.py.

The number boxes carry no min, max or step (but memory utilisation's): a browser sends a number
outside them, or 2.5 against a step of 1, as no value, which the page could not quote (and an
optional box, the price, a MoE split, the link, read as unset or auto without a word). Sent as
typed, each is refused in the box's own words, "(you typed 0)" (state.refused_box)."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels, field, number_box
from app.dashboard.components.what_if import what_if_picker
from app.dashboard.pages.serving.fit import carried_fit
from app.dashboard.pages.serving.params import (
    BACKEND_CHOICES,
    BY_NAME,
    MODES,
    PRECISIONS,
    ServingArgs,
)
from app.dashboard.pages.serving.state import fit_targets
from app.dashboard.pages.serving.words import w
from engine.hardware import catalogue
from engine.model_catalog import model_ids, model_names, preset_id_or_none


def model_options(current: str) -> list[dict]:
    """One option per preset, named by its id and its Hugging Face repo; typing any Hugging
    Face id that resolves to it finds it (the shipped runs name their models so). The preset
    the link names keeps the link's own spelling as its value, and shows it when it is
    another alias. Listing every alias as an option of its own had put each model there up to
    eight times."""
    chosen = preset_id_or_none(current)
    options = []
    for mid in model_ids():
        names = model_names(mid)
        label = f"{mid} · {names[0]}" if names else mid
        if mid == chosen and current not in (mid, *names[:1]):
            label = f"{current} → {mid}"
        value = current if mid == chosen else mid
        options.append({"label": label, "value": value, "search": " ".join([mid, *names])})
    if chosen is None:
        options.insert(0, {"label": current, "value": current})
    return options


def _radio(cid: str, options: list[tuple[str, str]], value: str) -> dcc.RadioItems:
    return dcc.RadioItems(
        id=cid, options=[{"label": t, "value": v} for v, t in options], value=value, className="toggle", inline=True
    )


def scenario_controls(a: ServingArgs, lang: str) -> list:
    hw_options = [{"label": x.name, "value": x.id} for x in catalogue().values()]
    backends = [(b, w(f"srv_backend_{b}", lang)) for b in BACKEND_CHOICES]
    return [
        field(
            w("srv_field_model", lang),
            dcc.Dropdown(id="srv-model", options=model_options(a.model), value=a.model, clearable=False),
        ),
        field(
            w("srv_field_hw", lang),
            dcc.Dropdown(
                id="srv-hw", options=hw_options, value=list(a.hardware), multi=True, labels=dropdown_labels(lang)
            ),
        ),
        html.Details(
            [html.Summary(w("what_if", lang)), *what_if_picker("srv-", a.what_if, lang, "h200-slow:3.36:989:141")],
            className="what-if field",
            open=bool(a.what_if),
        ),
        html.Div(id="srv-whatif-error", className="error", role="alert"),
        field(w("srv_field_backend", lang), _radio("srv-backend", backends, a.backend)),
        field(w("srv_field_prec", lang), _radio("srv-prec", [(p, p) for p in PRECISIONS], a.precision)),
        field(w("srv_field_mode", lang), _radio("srv-mode", [(m, w(f"srv_mode_{m}", lang)) for m in MODES], a.mode)),
        html.Div(
            [
                field(w("srv_field_tp", lang), number_box("srv-tp", a.tensor_parallel), html_for="srv-tp"),
                field(
                    w("srv_field_adp", lang),
                    number_box("srv-adp", a.attention_data_parallel),
                    html_for="srv-adp",
                ),
                field(w("srv_field_ep", lang), number_box("srv-ep", a.expert_parallel), html_for="srv-ep"),
            ],
            className="field-pair srv-triple",
        ),
        disagg_controls(a, lang),
        html.Div(
            [
                field(
                    w("srv_field_isl", lang),
                    number_box("srv-isl", a.input_tokens),
                    html_for="srv-isl",
                ),
                field(
                    w("srv_field_osl", lang),
                    number_box("srv-osl", a.output_tokens),
                    html_for="srv-osl",
                ),
            ],
            className="field-pair",
        ),
        field(
            w("srv_field_conc", lang),
            number_box("srv-conc", a.concurrency),
            html_for="srv-conc",
            id="srv-conc-field",  # first in an embed's short column (08-serving.css)
        ),
        html.Div(
            [
                field(
                    w("srv_field_memutil", lang),
                    number_box("srv-memutil", a.memory_utilization, 0.01, 1.0, 0.01),
                    html_for="srv-memutil",
                ),
                field(
                    w("srv_field_price", lang),
                    number_box("srv-price", a.gpu_hour_price),
                    html_for="srv-price",
                ),
            ],
            className="field-pair",
        ),
    ]


# the rows of the sides' grid: (link name after the side's letter, ServingArgs field after the side)
SIDE_ROWS = (("workers", "workers"), ("tp", "tp"), ("dp", "adp"), ("mtp", "moe_tp"), ("ep", "ep"), ("batch", "batch"))


def _side_box(a: ServingArgs, side: str, name: str, field_name: str, lang: str):
    """One side's box (its limits the parameter's, read by the page); a MoE split left empty is worked out."""
    pname = f"{side[0]}{name}"
    label = w(f"srv_field_{pname}", lang)
    props = {"placeholder": w("srv_auto", lang)} if name == "mtp" else {}  # empty is auto
    box = number_box(f"srv-{pname}", getattr(a, f"{side}_{field_name}"), **props)
    # the box's own name for a screen reader (the grid's row and column say it to the eye)
    return html.Label([html.Span(label, className="srv-box-name"), box], className="srv-side-box", title=label)


def disagg_controls(a: ServingArgs, lang: str) -> html.Div:
    """The disaggregated deployment (hidden in aggregated mode): a row per layout field, a
    column per side (the prefill batch on the prefill side only), then the KV link."""
    cells = [html.Span(), html.Span(w("srv_side_prefill", lang), className="srv-side-head")]
    cells.append(html.Span(w("srv_side_decode", lang), className="srv-side-head"))
    for name, field_name in SIDE_ROWS:
        cells.append(html.Span(w(f"srv_row_{name}", lang), className="field-label"))
        for side in ("prefill", "decode"):
            if f"{side[0]}{name}" in BY_NAME:
                cells.append(_side_box(a, side, name, field_name, lang))
            else:
                cells.append(html.Span())
    link = html.Div(
        [
            field(
                w("srv_field_kvlink_bw", lang),
                number_box("srv-kvbw", a.kv_link_gb_s, placeholder=w("srv_auto", lang)),
                html_for="srv-kvbw",
            ),
            field(
                w("srv_field_kvlink_lat", lang),
                number_box("srv-kvlat", a.kv_link_latency_us, placeholder=w("srv_auto", lang)),
                html_for="srv-kvlat",
            ),
        ],
        className="field-pair",
    )
    return html.Div(
        [
            html.P(w("srv_disagg_help", lang), className="help"),
            html.Div(cells, className="srv-sides", role="group", **{"aria-label": w("srv_mode_disagg", lang)}),
            link,
        ],
        id="srv-disagg",
        className="srv-disagg",
        hidden=a.mode != "disagg",
    )


def fit_target_value(a: ServingArgs, targets: list[dict]) -> str | None:
    """The accelerator the link's runs were measured on when the page has it, else the first."""
    fit = carried_fit(a.runs) if a.runs else None
    values = [o["value"] for o in targets]
    own = fit.hw_id if fit is not None and fit.hw_id in values else None
    return own or (values[0] if values else None)


def fit_controls(a: ServingArgs, lang: str, state: list) -> html.Section:
    """The paste, the upload, the accelerator the runs were measured on, Fit and Clear; below
    them the last paste's problems (`srv-fit-status`) and the link's fit (`srv-fit-state`)."""
    targets = fit_targets(a)
    return html.Section(
        [
            html.H2(w("srv_fit_title", lang)),
            html.P(w("srv_fit_help", lang), className="help"),
            field(
                w("srv_fit_paste", lang),
                dcc.Textarea(
                    id="srv-runs",
                    placeholder="concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms\n4,1024,1024,230,7.98",
                    className="srv-runs",
                    rows=6,
                ),
                html_for="srv-runs",
            ),
            dcc.Upload(
                html.Button(w("srv_fit_upload", lang), className="button", type="button"),
                id="srv-upload",
                accept=".csv,text/csv,text/plain",
                max_size=400_000,
            ),
            field(
                w("srv_fit_target", lang),
                dcc.Dropdown(
                    id="srv-fit-target",
                    options=targets,
                    value=fit_target_value(a, targets),
                    clearable=False,
                ),
            ),
            html.Div(
                [
                    html.Button(w("srv_fit_run", lang), id="srv-fit-run", n_clicks=0, className="button primary"),
                    html.Button(w("srv_fit_clear", lang), id="srv-fit-clear", n_clicks=0, className="button"),
                ],
                className="inline-row",
            ),
            html.Div(id="srv-fit-status", role="status", className="srv-fit-status"),
            html.Div(state, id="srv-fit-state", className="srv-fit-state"),
            dcc.Store(id="srv-fit", data={"runs": a.runs} if a.runs else {}),
        ],
        className="panel srv-fit-panel",
        id="srv-fit-panel",
    )
