"""The Serving page's callbacks, module-level with keyword inputs (lib/callbacks.py): the
controls -> both charts, the tables, the insight, the fit's standing and the canonical link;
the user's runs -> the runs the link carries (`runs=`), fitted first; what-if cards; the
downloads."""

from __future__ import annotations

from dataclasses import replace

from dash import Input, Output, State, dcc, html, no_update

from app.dashboard.components.plot_style import message_figure
from app.dashboard.components.what_if import added_what_if
from app.dashboard.lib.callbacks import Callbacks
from app.dashboard.lib.markup import plotly_text
from app.dashboard.lib.params import control_inputs
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.carried import MAX_TOKEN_CHARS, encode_runs, scenario_pairs
from app.dashboard.pages.serving.compute import compute
from app.dashboard.pages.serving.deployment import compared
from app.dashboard.pages.serving.disagg_words import deployment_insight
from app.dashboard.pages.serving.exports import export_title, serving_csv, serving_html, serving_json
from app.dashboard.pages.serving.figures import throughput_figure
from app.dashboard.pages.serving.fit import carried_fit
from app.dashboard.pages.serving.fit_view import fit_state, problem_message, runs_message
from app.dashboard.pages.serving.insight import insight
from app.dashboard.pages.serving.latency import latency_figure
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.provenance import provenance
from app.dashboard.pages.serving.runs import RunsError, decode_upload, parse_runs
from app.dashboard.pages.serving.state import (
    accelerator_ids,
    accelerator_specs,
    aggregated_args,
    args_from_controls,
    export_name,
    fit_targets,
    link_of,
    scenario_of,
)
from app.dashboard.pages.serving.table import accelerator_table, deployment_table
from app.dashboard.pages.serving.words import runs_count, w
from engine.hardware import catalogue

CALLBACKS = Callbacks()
FLAGS = State("srv-flags", "data")
CONTROLS = {**control_inputs(PARAMS, Input), "srv-hw.value": Input("srv-hw", "value")}
OUTPUTS = ("error", "throughput", "latency", "tables", "insight", "provenance", "fit_state")


def page_view(flags: object) -> View:
    """The page's chrome and what it carries (the `srv-flags` store), checked."""
    flags = flags if isinstance(flags, dict) else {}
    carry = flags.get("carry") if isinstance(flags.get("carry"), list) else []
    return View(
        tab="serving",
        lang=flags.get("lang") if flags.get("lang") in ("en", "zh") else "en",
        theme=flags.get("theme") if flags.get("theme") in ("light", "dark") else "light",
        embed=flags.get("embed") is True,
        present=flags.get("present") is True,
        carry=tuple((str(c[0]), str(c[1])) for c in carry if isinstance(c, list) and len(c) == 2),
    )


def figures(a: ServingArgs, lang: str, theme: str, present: bool) -> tuple[dict, dict, tuple]:
    """Both charts; the scenario, calibration and source are the page's caption above them,
    and the throughput chart's image export carries them as its title (`meta.export`). In
    disaggregated mode each deployment is drawn beside its aggregated comparison."""
    accs = compute(aggregated_args(a))
    beside = compared(a)
    # accelerator, model and run names are user text: Plotly draws them as text, never markup
    shown = [replace(acc, name=plotly_text(acc.name)) for acc in accs]
    if beside is not None:
        beside = replace(beside, deployments=tuple(replace(d, name=plotly_text(d.name)) for d in beside.deployments))
    top = throughput_figure(shown, a.concurrency, lang, theme, present, beside)
    if top["data"]:
        lines = [plotly_text(v) for v in provenance(a, lang).values()]
        top["layout"]["meta"] = {"export": export_title(lines)}
    return top, latency_figure(shown, a.concurrency, lang, theme, present, beside), accs


def at_bound(accs) -> tuple[int, int]:
    """(fitted points held at the bound, fitted points) over every accelerator's curve."""
    fitted = [p["fitted"] for acc in accs if not acc.error for p in acc.points if "fitted" in p]
    return sum(f["at_bound"] for f in fitted), len(fitted)


def outputs(
    a: ServingArgs, problems: list[str], lang: str, theme: str, present: bool, refused: list[str] = ()
) -> tuple:
    """(error, throughput figure, latency figure, tables, insight, provenance, the fit's
    standing): the first render and every callback show the same thing for the same inputs.
    A problem blocks the numbers; a refused box's sentence stands above numbers computed with
    the value it names."""
    if problems:
        return [html.P(p) for p in problems], message_figure("—"), message_figure("—"), [], [], [], []
    top, bottom, accs = figures(a, lang, theme, present)
    beside, instance = compared(a), aggregated_args(a).concurrency
    tables = [accelerator_table(acc, a.concurrency, a.gpu_hour_price, lang, beside) for acc in accs]
    report = carried_fit(a.runs).report if a.runs else None
    words = insight(accs, instance, lang, report)
    if beside is not None:  # the deployments first, then the aggregated instances they are compared with
        tables = [deployment_table(d, a.concurrency, a.gpu_hour_price, lang) for d in beside.deployments] + tables
        words = deployment_insight(beside, a, lang) + words
    caption = []
    for line in provenance(a, lang).values():
        caption += [html.Span(line), html.Br()]
    return (
        [html.P(r, **{"data-box": getattr(r, "box", "")}) for r in refused],
        top,
        bottom,
        tables,
        words,
        caption[:-1],
        fit_state(a, lang, theme, at_bound(accs)),
    )


@CALLBACKS.server(
    output={
        **{
            name: Output(cid, prop)
            for name, (cid, prop) in zip(
                OUTPUTS,
                (
                    ("srv-error", "children"),
                    ("srv-throughput", "figure"),
                    ("srv-latency", "figure"),
                    ("srv-tables", "children"),
                    ("srv-insight", "children"),
                    ("srv-provenance", "children"),
                    ("srv-fit-state", "children"),
                ),
                strict=True,
            )
        },
        "link": Output("srv-link", "data"),
        "targets": Output("srv-fit-target", "options"),
        "sides_hidden": Output("srv-disagg", "hidden"),
    },
    inputs={"controls": CONTROLS},
    state={"flags": FLAGS},
)
def update_serving(controls: dict, flags: object) -> dict:
    view = page_view(flags)
    a, problems, refused = args_from_controls(controls, view.lang)
    shown = outputs(a, problems, view.lang, view.theme, view.present, refused)
    targets = fit_targets(a)
    link = link_of(view, a)
    return {
        **dict(zip(OUTPUTS, shown, strict=True)),
        "link": link,
        "targets": targets,
        "sides_hidden": a.mode != "disagg",
    }


def fit_from_text(text: object, target: object, controls: dict, lang: str) -> tuple[dict | None, list]:
    """({"runs": token} or None, status): the whole paste is fitted, on the page's scenario and
    the accelerator it was measured on, or nothing is. The token is the link's: it is read back
    and fitted as a link is, so the page never writes a link its reader refuses."""
    a, problems, refused = args_from_controls(controls, lang)
    if problems or refused:  # a fit to a scenario the reader did not ask for would mislead
        return None, [html.P(p) for p in problems + refused]
    specs = dict(zip(accelerator_ids(a), accelerator_specs(a), strict=True))
    target = target if isinstance(target, str) and target in specs else next(iter(specs), None)
    if target is None:
        return None, [html.P(w("srv_no_accelerator", lang))]
    spec, base = specs[target], scenario_of(a)
    try:
        runs = parse_runs(text, base, a.model, spec if spec in catalogue() else None)
    except RunsError as exc:
        return None, runs_message(exc, lang)
    token = encode_runs(scenario_pairs(a, spec), base, runs)
    if len(token) > MAX_TOKEN_CHARS:
        size = {"chars": f"{len(token):,}", "max": f"{MAX_TOKEN_CHARS:,}"}
        return None, [html.P(w("srv_fit_link_too_long", lang, runs=runs_count(len(runs), lang), **size))]
    fit = carried_fit(token)
    if fit.report is None:
        return None, problem_message(fit, lang)
    return {"runs": token}, []


@CALLBACKS.server(
    output={"fit": Output("srv-fit", "data"), "status": Output("srv-fit-status", "children")},
    inputs={
        "run": Input("srv-fit-run", "n_clicks"),
        "clear": Input("srv-fit-clear", "n_clicks"),
        "upload": Input("srv-upload", "contents"),
    },
    state={
        "text": State("srv-runs", "value"),
        "target": State("srv-fit-target", "value"),
        "controls": {k: State(*k.rsplit(".", 1)) for k in CONTROLS},
        "flags": FLAGS,
    },
)
def fit_my_runs(run, clear, upload, text, target, controls, flags, trigger=None) -> dict:
    lang = page_view(flags).lang
    if trigger == "srv-fit-clear":
        return {"fit": {}, "status": []}
    if trigger == "srv-upload":
        try:
            text = decode_upload(upload)
        except RunsError as exc:
            return {"fit": no_update, "status": runs_message(exc, lang)}
    store, status = fit_from_text(text, target, controls, lang)
    return {"fit": no_update if store is None else store, "status": status}


@CALLBACKS.server(
    output={
        "options": Output("srv-what-if", "options"),
        "value": Output("srv-what-if", "value"),
        "text": Output("srv-whatif-text", "value"),
        "error": Output("srv-whatif-error", "children"),
    },
    inputs={"add": Input("srv-whatif-add", "n_clicks"), "submit": Input("srv-whatif-text", "n_submit")},
    state={
        "text": State("srv-whatif-text", "value"),
        "current": State("srv-what-if", "value"),
        "hardware": State("srv-hw", "value"),
        "flags": FLAGS,
    },
)
def add_what_if(add, submit, text, current, hardware, flags) -> dict:
    """A typed short form added to the cards (the same name again replaces it), refused with
    the engine's message when it is not one; never past MAX_HARDWARE with the catalogue's."""
    taken = len(hardware) if isinstance(hardware, list) else 0
    return added_what_if(text, current, taken, page_view(flags).lang)


@CALLBACKS.server(
    output={"file": Output("srv-download", "data")},
    inputs={
        "csv": Input("srv-export-csv", "n_clicks"),
        "json": Input("srv-export-json", "n_clicks"),
        "html": Input("srv-export-html", "n_clicks"),
    },
    state={
        "controls": {k: State(*k.rsplit(".", 1)) for k in CONTROLS},
        "flags": FLAGS,
        "link": State("srv-link", "data"),
    },
)
def download(csv, json, html, controls, flags, link, trigger=None) -> dict:
    view = page_view(flags)
    a, problems, _ = args_from_controls(controls, view.lang)  # a refused box: the numbers on screen
    if problems or trigger not in ("srv-export-csv", "srv-export-json", "srv-export-html"):
        return {"file": no_update}
    prov = provenance(a, view.lang)
    name = export_name(a)
    accs, beside = compute(aggregated_args(a)), compared(a)
    if trigger == "srv-export-csv":
        return {"file": dcc.send_string(serving_csv(accs, prov, beside), f"{name}.csv")}
    if trigger == "srv-export-json":
        return {"file": dcc.send_string(serving_json(accs, prov, beside), f"{name}.json")}
    top, bottom, _ = figures(a, view.lang, view.theme, False)
    query = (link or {}).get("template", "") if isinstance(link, dict) else ""
    return {"file": dcc.send_string(serving_html([top, bottom], prov, "?" + query), f"{name}.html")}


# the address bar follows the controls (history.replaceState): a link reproduces the view
CALLBACKS.client("url", "sync", Output("srv-url", "data"), Input("srv-link", "data"), State("srv-url", "data"))
CALLBACKS.client("serving", "nameCameras", Output("srv-camera", "data"), Input("srv-url", "data"))
# each refused box named on its sentence reads invalid (08-serving.js; the boxes have no min or max)
CALLBACKS.client("serving", "markRefused", Output("srv-error", "title"), Input("srv-error", "children"))
CALLBACKS.client(
    "serving",
    "exportImage",
    Output("srv-export-png", "className"),
    Input("srv-export-png", "n_clicks"),
    Input("srv-export-svg", "n_clicks"),
)


def register(app) -> None:
    CALLBACKS.register(app)
