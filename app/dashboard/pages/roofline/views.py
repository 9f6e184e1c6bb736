"""A View in, what the page shows out: the roofline with its slider grid, and the panels.

The layout (first render) and the callbacks (every change after) both call these, so the
first paint and a redraw can never disagree.
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import replace

import flask
from dash import html

import engine
from app.dashboard.components import table
from app.dashboard.components.plot_style import message_figure
from app.dashboard.lib.i18n import reason, t
from app.dashboard.lib.markup import wrapped_plotly_text
from app.dashboard.pages.roofline.figures import roofline_figure
from app.dashboard.pages.roofline.insight import cache_sentence, insight_sentences, pin_sentence
from app.dashboard.pages.roofline.marks import grid_payload
from app.dashboard.pages.roofline.panel_figures import interactivity_figure, memory_figure, throughput_figure
from app.dashboard.pages.roofline.params import PARAMS
from app.dashboard.pages.roofline.refused import view_refusals
from app.dashboard.pages.roofline.request_card import request_panel
from app.dashboard.pages.roofline.rows import comparison_rows, delta_rows, ops_rows, reality_rows
from app.dashboard.pages.roofline.state import (
    PRECISIONS,
    View,
    cards_without_link,
    hardware_ids,
    hardware_specs,
    model_spec,
    pinned_view,
    to_query,
    view_model,
    what_if_names,
)
from app.dashboard.pages.roofline.tables import comparison_columns, reality_columns
from app.dashboard.pages.serving import roofline_estimate as serving_estimate
from app.service import (
    BATCH_STOPS,
    CONTEXT_STOPS,
    catalogue_fingerprint,
    dashboard_data,
    dashboard_grid,
    grid_key,
    memo_grid,
    resolve_hardware,
)
from app.units import duration, grouped, plain
from engine.analysis import Scenario, beyond_the_roofs, scenario_dict
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.hierarchy import hierarchy_roofs
from engine.published import published_for
from engine.triage import triage_for


def scenario_of(view: View) -> Scenario:
    weight, compute = PRECISIONS[view.precision]
    return Scenario(
        batch_size=view.batch,
        context_length=view.context,
        num_kv_heads=view.kv_heads,
        weight_dtype=weight,
        kv_dtype=view.kv_precision,
        compute_dtype=compute,
        flash_attention=view.flash_attention,
        tensor_parallel=view.tensor_parallel,
        roofs="measured" if view.measured_roofs else "nominal",
        bandwidth_efficiency=view.bandwidth_efficiency,
        compute_efficiency=view.compute_efficiency,
        memory_utilization=view.memory_utilization,
        **{p.scenario: p.value(view) for p in PARAMS if p.scenario},  # the table's plain pass-throughs
    )


def _step_s(view: View) -> float | None:
    return view.measured_step_ms / 1e3 if view.measured_step_ms else None


def view_data(view: View) -> dict:
    """The engine's numbers at the view's scenario (cached and shared by concurrent callers)."""
    return dashboard_data(
        model_spec(view),
        hardware_specs(view),
        scenario_of(view),
        _step_s(view),
        view.measurements,
        view.output_tokens or None,  # 0: no whole request
        view.gpu_hour_price,
    )


def on_grid(view: View) -> bool:
    return view.batch in BATCH_STOPS and view.context in CONTEXT_STOPS


def subtitle(view: View, batch: int, context: int) -> str:
    """The scenario in one line, printed on the figure (and so on every PNG/SVG export)."""
    weight, compute = PRECISIONS[view.precision]
    model = view_model(view).id if view.model == "custom" else view.model
    return t(
        "subtitle",
        view.lang,
        model=model,
        weights=weight,
        kv=view.kv_precision,
        compute=compute,
        batch=grouped(batch),
        ctx=grouped(context),
        tp=view.tensor_parallel,
        fa=t("on" if view.flash_attention else "off", view.lang),
    )


def slider_grid(view: View) -> dict:
    """The formatted slider grid for the view's structure (any batch and context), with the
    scenario line at every stop."""
    args = (model_spec(view), hardware_specs(view), scenario_of(view), _step_s(view), view.measurements)

    def compute() -> dict:
        payload = grid_payload(dashboard_grid(*args), hardware_ids(view), view.lang)
        # the scenario line at each stop: as text for the page's line, as Plotly text for an export's title
        lines = [subtitle(view, b, c) for b in payload["batches"] for c in payload["contexts"]]
        payload["scenarios"] = lines
        payload["subtitles"] = [wrapped_plotly_text(line) for line in lines]
        return payload

    # the key holds everything the payload reads: the subtitle's fields are all in the scenario
    return memo_grid(("payload", view.lang, *grid_key(*args)), compute)


def roofline(view: View) -> tuple[dict, dict | None]:
    """(figure, slider grid): the grid is None when there is nothing to move (an error)."""
    if not hardware_specs(view):
        return message_figure(t("no_hardware", view.lang)), None
    try:
        grid = slider_grid(view)  # its extent sets the axes (cached: an export asking again costs nothing)
        data = view_data(view)
    except EngineInputError as exc:  # e.g. a TP degree that does not divide the heads
        return message_figure(t("error", view.lang, message=reason(exc, view.lang))), None
    published = published_on(view) if view.published else None
    figure = roofline_figure(
        data["analysis"]["results"],
        data["trajectories"],
        view.lang,
        view.theme,
        view.present,
        data["measured_points"],
        grid["extent"],
        (view.batch, view.context),
        published,
        subtitle(view, view.batch, view.context),
        pinned_results(view),
        cache_roofs(view),
        data["measured_on"],
    )
    figure["data"] += serving_estimate.view_traces(view, data["analysis"]["results"])
    return figure, grid


def figure_key(view: View) -> str:
    """The view but for the sliders, as a digest: two views with the same key draw the same
    figure but for where batch and context put its points (and the traces drawn for one stop).
    The canonical link with the sliders' slots (to_query: one form for the same view, however
    its controls said it), the embedding and the uploaded measurements (not in the link). The
    model's own KV heads as a count: a link leaves them out, the KV slider sends the count."""
    with contextlib.suppress(EngineInputError):  # no model to ask: the key as the link says it
        view = replace(view, kv_heads=view.kv_heads or view_model(view).num_kv_heads)
    kept = (to_query(view, template=True), view.embed, view.controls, view.measurements)
    return hashlib.sha256(repr(kept).encode()).hexdigest()[:16]


def drawn_for(view: View, figure: dict) -> dict:
    """What the browser's roofline figure was drawn for (the `roofline-drawn` store): the view but
    for the sliders, and the index of each trace drawn for the view's stop alone (`meta.stop`:
    the serving estimate), by uid."""
    at_stop = {t["uid"]: i for i, t in enumerate(figure.get("data", [])) if "stop" in (t.get("meta") or {})}
    return {"key": figure_key(view), "at_stop": at_stop}


def rest_traces(view: View, figure_drawn: object) -> dict[int, dict] | None:
    """At a slider's rest on the grid the browser shows the stop already (assets/03-live-path.js),
    but for the traces drawn for one stop, which it hid: those traces at the view's stop, by their
    index in the browser's figure (`figure_drawn`: its `drawn_for`). None when that figure may not
    be this view's but for the sliders, or the traces differ (an estimate dropped where the model
    no longer fits at this context): the figure is then sent whole."""
    if not isinstance(figure_drawn, dict) or figure_drawn.get("key") != figure_key(view) or not hardware_specs(view):
        return None
    at_stop = figure_drawn.get("at_stop")
    if not isinstance(at_stop, dict) or not all(type(i) is int and i >= 0 for i in at_stop.values()):
        return None
    try:  # the figure's own function (roofline), at this stop; no serving scenario: no estimate to draw
        results = view_data(view)["analysis"]["results"] if serving_estimate.serving_args(view) else []
    except EngineInputError:
        return None
    traces = serving_estimate.view_traces(view, results)
    if {t["uid"] for t in traces} != set(at_stop):
        return None
    return {at_stop[t["uid"]]: t for t in traces}


def cache_roofs(view: View) -> dict[str, list[dict]]:
    """With `roofs=hierarchy`: each catalogue card's sourced cache roofs (none for a what-if)."""
    if not view.hierarchy:
        return {}
    compute = PRECISIONS[view.precision][1]
    return {hw: hierarchy_roofs(get_accelerator(hw), compute)[1:] for hw in view.hardware}


def pinned_results(view: View) -> list[dict] | None:
    """Scenario A's results on the page's accelerators, or None (no pin, or A cannot be analysed)."""
    pinned = pinned_view(view)
    if pinned is None:
        return None
    try:
        return view_data(pinned)["analysis"]["results"]
    except EngineInputError:
        return None


# no margins: Plotly's default ones (100 px top, 80 bottom) leave a 120 px figure a negative plot
# height, which it reports as "Something went wrong with axis scaling"
EMPTY_FIGURE = {
    "data": [],
    "layout": {
        "xaxis": {"visible": False},
        "yaxis": {"visible": False},
        "height": 120,
        "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
    },
}


def published_chosen(view: View) -> dict:
    """The published runs of the view's model and precision on its accelerators, and the count
    left out by reason (engine.published.published_for; docs/reality-check.md)."""
    weight, compute = PRECISIONS[view.precision]
    return published_for(view.model, weight, compute, view.hardware)


def published_on(view: View) -> list[dict]:
    """Published measurements of the chosen model and precision on the selected accelerators."""
    return published_chosen(view)["items"]


def published_note(view: View) -> list:
    """How many published runs are drawn and why the others are not: a sentence, never silence."""
    if not view.published:
        return []
    lang, chosen = view.lang, published_chosen(view)
    words = [t("published_match", lang, model=view.model, prec=view.precision, n=len(chosen["items"]))]
    if chosen["left_out_count"]:
        why = ", ".join(t(f"left_{k}", lang, n=n) for k, n in chosen["left_out"].items() if n)
        words.append(t("published_left_out", lang, n=chosen["left_out_count"], why=why))
    return [html.P(w) for w in words]


# What `panels` fills, as (component id, property): the layout's first render and the
# callback's outputs read the same keys.
PANEL_OUTPUTS = (
    ("insight", "children"),
    ("memory-graph", "figure"),
    ("throughput-graph", "figure"),
    ("comparison-body-cells", "data"),
    ("efficiency-notice", "children"),
    ("request", "children"),
    ("interactivity-graph", "figure"),
    ("reality-body", "children"),
    ("reality-note", "children"),
    ("pin-compare", "children"),
    ("compare-panel", "hidden"),
    ("triage", "children"),
    ("triage-panel", "hidden"),
)


def _empty_panels(view: View, message) -> dict:
    return {
        "insight": message,
        "memory-graph": EMPTY_FIGURE,
        "throughput-graph": EMPTY_FIGURE,
        "comparison-body-cells": [],
        "efficiency-notice": [],
        "request": message,
        "interactivity-graph": EMPTY_FIGURE,
        "reality-body": table.body(reality_columns(view.lang), _reality(view)),
        "reality-note": published_note(view),
        "pin-compare": [],
        "compare-panel": True,
        "triage": [],
        "triage-panel": True,
    }


def measured_notices(result: dict, lang: str) -> list[str]:
    """A measured step faster than the bound (engine.analysis.measured_warnings), in the page's
    language and its units: ms and percent (it read "0.0025 s ... MBU 1.49 > 100%")."""
    measured = result.get("measured_decode")
    beyond = beyond_the_roofs(measured) if measured else None
    if beyond is None:
        return []
    which, utilisation = beyond
    step_ms = measured["step_time_s"] * 1e3
    return [
        t("measured_faster_notice", lang, hw=result["hardware_name"], step=plain(float(f"{step_ms:.3g}")),
          bound=plain(float(f"{step_ms * utilisation:.3g}")), which=which, pct=f"{utilisation:.0%}")
    ]  # fmt: skip


def panels(view: View) -> dict:
    """Everything beside the roofline but the ops table, keyed by component id (PANEL_OUTPUTS)."""
    lang = view.lang
    if not hardware_specs(view):
        return _empty_panels(view, html.P(t("no_hardware", lang), className="error"))
    try:
        data = view_data(view)
    except EngineInputError as exc:
        message = html.P(t("error", lang, message=reason(exc, lang)), className="error", role="alert")
        return _empty_panels(view, message)
    results = data["analysis"]["results"]
    notices = view_refusals(view, lang)  # a refused box says what the page still shows
    if (view.bandwidth_efficiency, view.compute_efficiency) != (1.0, 1.0):
        notices.append(
            t("efficiency_notice", lang, bw=f"{view.bandwidth_efficiency:.0%}", fl=f"{view.compute_efficiency:.0%}")
        )
    if view.tp_without_link:
        cards = ", ".join(cards_without_link(view))
        notices.append(t("tp_no_link_notice", lang, tp=view.tp_without_link, cards=cards))
    window = data["analysis"]["model"].get("max_position_embeddings")
    if window and view.context > window:  # a server refuses it unless the window is extended
        notices.append(
            t("context_window_notice", lang, context=f"{view.context:,}", window=f"{window:,}",
              model=data["analysis"]["model"]["id"])
        )  # fmt: skip
    compute_dtype = PRECISIONS[view.precision][1]
    for r in results:
        if r["tensor_dtype"] != compute_dtype:
            notices.append(t("dtype_fallback", lang, hw=r["hardware_name"], want=compute_dtype, got=r["tensor_dtype"]))
    if view.measured_roofs:  # a catalogue card has no calibration: say why nothing moved
        notices += [t("no_measured_roofs", lang, hw=r["hardware_name"]) for r in results if r["roofs"] != "measured"]
    # a profile is of one machine: the one chosen as "measured on" (service.measured_on); say which
    profiled = next((r for r in results if r["hardware_id"] == data["measured_on"]), results[0])
    if data["measured_points"] and len(results) > 1:
        notices.append(t("imported_on", lang, hw=profiled["hardware_name"]))
    # a measured step belongs to the first accelerator (the one it was measured on)
    notices += measured_notices(results[0], lang)
    sentences = insight_sentences(
        data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], lang, what_if_names(view)
    )
    sentences += serving_estimate.view_sentences(view, results)
    if view.hierarchy:
        caches = cache_roofs(view)
        sentence = cache_sentence(results[0], caches.get(results[0]["hardware_id"], []), lang)
        sentences += [sentence] if sentence else []
        notices += [
            t("no_cache_roof", lang, hw=r["hardware_name"])
            for r in results
            if r["hardware_id"] in caches and not caches[r["hardware_id"]]
        ]
    pinned = pinned_results(view)
    if pinned:
        sentences.append(pin_sentence(scenario_changes(pinned_view(view), view), pinned[0], results[0], lang))
    triage = triage_rows(view, data["measured_points"], data["measured_on"])
    return {
        "insight": [html.P(s) for s in sentences],
        "memory-graph": memory_figure(results, lang, view.theme, view.present),
        "throughput-graph": throughput_figure(data["throughput"], results, lang, view.theme, view.present),
        "comparison-body-cells": table.cells(comparison_columns(lang), comparison_rows(results, data["ttft_alone_s"])),
        "efficiency-notice": [html.Li(n) for n in notices],
        "request": request_panel(view, results),
        "interactivity-graph": interactivity_figure(data["interactivity"], results, lang, view.theme, view.present),
        "reality-body": table.body(reality_columns(view.lang), _reality(view)),
        "reality-note": published_note(view),
        "pin-compare": compare_panel(pinned, results, lang),
        "compare-panel": not pinned,
        "triage": triage_table(triage, profiled["hardware_name"], lang) if triage else [],
        "triage-panel": not triage,
    }


def triage_rows(view: View, measured_points: list[dict] | None, measured_on: str | None = None) -> list[dict]:
    """Imported measurements ranked by recoverable time (engine/triage.py), on the card they
    were measured on (default the first)."""
    if not measured_points:
        return []
    cards = resolve_hardware(hardware_specs(view))
    return triage_for(measured_points, next((c for c in cards if c.id == measured_on), cards[0]), scenario_of(view))


TRIAGE_COLUMNS = ("rank", "name", "time", "share", "roof", "gap", "recoverable", "regime", "check")


def triage_table(rows: list[dict], hardware_name: str, lang: str):
    """Profile-guided order (NVIDIA Nsight Systems user guide): the kernels worth a deep look
    first, each with what to check."""
    head = html.Tr([html.Th(t(f"triage_{k}", lang)) for k in TRIAGE_COLUMNS])
    body = []
    for r in rows:
        cells = (
            str(r["rank"]),
            r["name"],
            duration(r["time_s"]),
            f"{r['time_share']:.1%}",
            duration(r["roof_time_s"]),
            f"{r['gap']:.2f}x",
            f"{duration(r['recoverable_time_s'])} ({r['recoverable_share']:.1%})",
            t(f"bound_{r['regime']}", lang),
            t(f"advice_{r['regime']}", lang),
        )
        body.append(html.Tr([html.Td(c) for c in cells], className="far" if r["far_from_roof"] else ""))
    return [
        html.P(t("triage_help", lang, hw=hardware_name), className="help"),
        html.Table([html.Thead(head), html.Tbody(body)], className="request-table triage-table"),
    ]


def scenario_changes(a: View, b: View) -> list[str]:
    """What differs between scenarios A and B, as "batch 32 → 64" (KV heads as the model has them)."""

    def kv_heads(v: View) -> int:
        return v.kv_heads or view_model(v).num_kv_heads

    fields = (
        ("model", lambda v: view_model(v).id),
        ("precision", lambda v: v.precision),
        ("kv_precision", lambda v: v.kv_precision),
        ("kv_heads", kv_heads),
        ("batch", lambda v: grouped(v.batch)),
        ("context", lambda v: grouped(v.context)),
        ("tensor_parallel", lambda v: v.tensor_parallel),
        ("flash_attention", lambda v: t("on" if v.flash_attention else "off", b.lang)),
    )
    return [f"{t(f'change_{name}', b.lang)} {value(a)} → {value(b)}" for name, value in fields if value(a) != value(b)]


def compare_panel(pinned: list[dict] | None, results: list[dict], lang: str):
    """The delta table of A against B on the first accelerator (empty without a pin)."""
    if not pinned:
        return []
    head = html.Tr([html.Th(t(k, lang)) for k in ("col_metric", "col_a", "col_b", "col_ratio")])
    body = [
        html.Tr([html.Td(row[k]) for k in ("metric", "a", "b", "ratio")])
        for row in delta_rows(pinned[0], results[0], lang)
    ]
    return [
        html.P(t("compare_on", lang, hw=results[0]["hardware_name"]), className="help"),
        html.Table([html.Thead(head), html.Tbody(body)], className="request-table delta-table"),
    ]


def ops_panel(view: View, hardware_id: object = None, phase: object = "decode") -> tuple:
    """The ops table for one accelerator (default the first) and phase: (rows, title, the
    accelerator choices, the one shown)."""
    phase = phase if phase in ("decode", "prefill") else "decode"
    try:
        results = view_data(view)["analysis"]["results"] if hardware_specs(view) else []
    except EngineInputError:
        results = []
    if not results:
        return [], "", [], None
    chosen = next((r for r in results if r["hardware_id"] == hardware_id), results[0])
    options = [{"label": r["hardware_name"], "value": r["hardware_id"]} for r in results]
    title = t("ops_for", view.lang, hw=chosen["hardware_name"], phase=t(phase, view.lang))
    step = chosen[phase]
    comm = step["communication_time_s"]
    if comm > 0:  # the rows' shares stop short of 100% by it
        share = f"{comm / step['time_s']:.0%}"
        title += t("ops_for_allreduce", view.lang, comm=duration(comm), share=share, tp=chosen["tensor_parallel"])
    return ops_rows(chosen, view.lang, phase), title, options, chosen["hardware_id"]


def _reality(view: View) -> list[dict]:
    return reality_rows(published_on(view), view.lang) if view.published else []


def provenance(view: View) -> dict:
    """What an export says about itself: app version, catalogue, the link and the scenario."""
    base = flask.request.referrer if flask.has_request_context() and flask.request.referrer else ""
    page = base.split("?", 1)[0] if base else ""
    scenario = {
        "model": view.model if view.model != "custom" else view_model(view).id,
        "hardware": hardware_specs(view),
        **scenario_dict(scenario_of(view)),
        "output_tokens": view.output_tokens or None,
        "gpu_hour_price": view.gpu_hour_price,
    }
    return {
        "app": f"llm-roofline {engine.__version__}",
        "catalogue": catalogue_fingerprint(),
        "link": f"{page}?{to_query(view)}",
        "scenario": scenario,
    }
