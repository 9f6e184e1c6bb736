"""Figures as plain functions: engine results in, Plotly figure dicts out.

Dicts rather than go.Figure objects: the same JSON reaches the browser, without plotly's
per-property validation on the slider's hot path (~10x faster to build).
"""

from __future__ import annotations

import math
from dataclasses import replace

from app.dashboard.components.plot_style import THEMES, base_layout, card_colors, log_axis
from app.dashboard.lib.i18n import t
from app.dashboard.lib.markup import hover_box, plotly_names, plotly_text, wrapped_plotly_text
from app.dashboard.lib.uids import uid
from app.dashboard.pages.roofline.marks import (
    Mark,
    drawn_as,
    gpu_marks,
    group_uid,
    hover_template,
    imported_trace,
    phase_mark,
    trajectory_xy,
)
from app.dashboard.pages.roofline.marks import extent as extent_of
from app.dashboard.pages.roofline.symbol_key import export_patch, key_items
from app.units import memory, plain, si

X_RANGE = (0.05, 20000.0)  # FLOP/byte: elementwise (~0.17) to large GEMMs (~3000)
Y_RANGE = (1e10, 2e16)  # FLOP/s: 0.01 TFLOP/s to the fp4 roofs of Blackwell


# (symbol, size) of each kind of point
MARK_STYLE = {
    "decode": ("circle", 14),
    "prefill": ("square", 13),
    "attention_decode": ("diamond", 11),
    "elementwise": ("triangle-up", 8),
    "measured_decode": ("star", 16),
    "measured": ("cross-thin-open", 12),  # an imported kernel: a +, never the ridge's x
}


def marker_style(color: str, fits: bool) -> dict:
    """Solid where the scenario fits in memory; hollow (an outline in the colour) where it
    does not. app.js applies the same two styles when a slider moves a point across the line."""
    if fits:
        return {"color": color, "line": {"color": "#ffffff", "width": 1}}
    return {"color": "rgba(0,0,0,0)", "line": {"color": color, "width": 2}}


def _mark_trace(mark: Mark, hw_name: str, color: str, lang: str, label: bool) -> dict:
    symbol, size = MARK_STYLE[mark.kind]
    trace = {
        "type": "scatter",
        "uid": mark.uid,
        "name": mark.label,
        "x": [mark.x],
        "y": [mark.y],
        "customdata": [list(mark.values)],
        "hovertemplate": hover_template(mark, hw_name, lang),
        "mode": "markers+text" if label else "markers",
        "showlegend": False,
        "meta": {"color": color},
        "marker": {"symbol": symbol, "size": size, **marker_style(color, mark.fits)},
        "cliponaxis": False,
    }
    if label:
        trace.update({"text": [mark.label], "textposition": "top center"})
    return trace


def _group_trace(marks: list[Mark], hw_name: str, color: str, lang: str) -> dict:
    """An accelerator's elementwise ops as one trace (marks.drawn_as): each point's op name in
    `text` and what its numbers cover in `hovertext` (neither moves with the sliders), its
    values in `customdata`."""
    trace = _mark_trace(marks[0], hw_name, color, lang, False)
    trace["hovertemplate"] = hover_template(replace(marks[0], label="%{text}", scope="%{hovertext}"), hw_name, lang)
    return trace | {
        "uid": group_uid(marks),
        "name": t("elementwise", lang),
        "x": [m.x for m in marks],
        "y": [m.y for m in marks],
        "customdata": [list(m.values) for m in marks],
        "text": [m.label for m in marks],
        "hovertext": [m.scope for m in marks],
    }


def _line(trace_uid: str, name: str, group: str, xy: tuple[list, list], line: dict, hover: str) -> dict:
    """One roof segment of an accelerator: in its legend group, never a legend entry of its own."""
    return {
        "type": "scatter",
        "uid": trace_uid,
        "name": name,
        "legendgroup": group,
        "showlegend": False,
        "x": xy[0],
        "y": xy[1],
        "mode": "lines",
        "line": line,
        "hovertemplate": hover_box(hover),
    }


def _measured_roof_traces(r: dict, c: str, lang: str, x0: float, x1: float) -> list[dict]:
    """A calibration's roofs, dotted: its memory slope and its tensor roof."""
    m = r.get("measured_roofs")
    if not m:
        return []
    hw, name = r["hardware_id"], r["hardware_name"]
    bw, peak = m["memory_bandwidth_bytes_per_s"], m["tensor_flops_per_s"]
    label = f"{name} · {t('measured_roof', lang)} ({m['date']})"
    dotted = {"color": c, "width": 2, "dash": "dot"}
    return [
        _line(uid("roof", hw, "memory-measured"), label, hw, ([x0, peak / bw], [x0 * bw, peak]), dotted,
              f"{label}: {si(bw, 'B/s')}"),
        _line(uid("roof", hw, "tensor-measured"), label, hw, ([peak / bw, x1], [peak, peak]), dotted,
              f"{label}: {si(peak, 'FLOP/s')} ({m['tensor_dtype']})"),
    ]  # fmt: skip


def _roof_traces(r: dict, c: str, lang: str) -> list[dict]:
    """Memory slope, tensor roof, dashed vector roof and the ridge of one accelerator."""
    hw, name = r["hardware_id"], r["hardware_name"]
    x0, x1 = X_RANGE[0] / 100, X_RANGE[1] * 100  # past any axis range the points can stretch to
    bw, peak, ridge = r["memory_bandwidth_bytes_per_s"], r["tensor_flops_per_s"], r["ridge_point"]
    solid = {"color": c, "width": 2.5}
    memory = _line(
        uid("roof", hw, "memory"),
        f"{name} · {t('ridge', lang, v=plain(ridge))}",
        hw,
        ([x0, ridge], [x0 * bw, peak]),
        solid,
        f"{name} · {t('memory_roof', lang)} {si(bw, 'B/s')}",
    )
    memory["showlegend"] = True  # the accelerator's legend entry, with its ridge
    traces = [
        memory,
        _line(uid("roof", hw, "tensor"), f"{name} {t('tensor_roof', lang)}", hw, ([ridge, x1], [peak, peak]), solid,
              f"{name} · {t('tensor_roof', lang)} ({r['tensor_dtype']}) {si(peak, 'FLOP/s')}"),
    ]  # fmt: skip
    if not r["vector_unit"].startswith("tensor"):
        vpeak, vridge = r["vector_flops_per_s"], r["vector_ridge_point"]
        traces.append(
            _line(uid("roof", hw, "vector"), f"{name} {t('vector_roof', lang)}", hw, ([vridge, x1], [vpeak, vpeak]),
                  {"color": c, "width": 1.5, "dash": "dash"},
                  f"{name} · {t('vector_roof', lang)} ({r['vector_unit']}) {si(vpeak, 'FLOP/s')}")
        )  # fmt: skip
    traces += _measured_roof_traces(r, c, lang, x0, x1)
    # The ridge value goes into the accelerator's legend entry and the hover, not as text on
    # the chart: at 3 GPUs ridge labels overlapped each other and the points.
    ridge_label = t("ridge", lang, v=plain(ridge))
    traces.append(
        {
            "type": "scatter",
            "uid": uid("ridge", hw),
            "name": ridge_label,
            "legendgroup": hw,
            "showlegend": False,
            "x": [ridge],
            "y": [peak],
            "mode": "markers",
            "marker": {"color": c, "size": 9, "symbol": "x"},
            "hovertemplate": hover_box(f"{name} · {ridge_label} FLOP/byte"),
        }
    )
    return traces


def cache_roof_traces(r: dict, roofs: list[dict], c: str, lang: str) -> list[dict]:
    """Each sourced cache level's slope (engine.hierarchy.hierarchy_roofs, HBM excluded) up to
    its ridge under the same tensor roof: uid `roof--<hw>--<level>`, dash-dot."""
    hw, name = r["hardware_id"], r["hardware_name"]
    x0 = X_RANGE[0] / 100
    traces = []
    for roof in roofs:
        bw = roof["bandwidth_bytes_per_s"]
        label = t(
            "cache_roof",
            lang,
            name=name,
            level=t(f"level_{roof['level']}", lang),
            bw=si(bw, "B/s"),
            kind=roof["kind"],
            times=f"{roof['times_hbm']:.1f}",
            cap=memory(roof["capacity_bytes"]),  # a cache's capacity: binary, 50 MiB
        )
        traces.append(
            {
                "type": "scatter",
                "uid": roof["uid"],
                "name": label,
                "legendgroup": hw,
                "showlegend": False,
                "x": [x0, roof["ridge_point"]],
                "y": [x0 * bw, r["tensor_flops_per_s"]],
                "mode": "lines",
                "line": {"color": c, "width": 1.5, "dash": "dashdot"},
                "hovertemplate": hover_box(label),
            }
        )
    return traces


def trajectory_trace(hw: str, xy: tuple[list[float], list[float]] | None, color: str, lang: str) -> dict:
    """Decode from B = 1 to the largest batch that fits, a marker at each power of two. It runs
    under the points, so it never takes their hover (hoverinfo skip: at the current batch it
    would sit exactly on the decode point and win Plotly's nearest-point contest)."""
    x, y = xy if xy else ([], [])
    return {
        "type": "scatter",
        "uid": uid("trajectory", hw),
        "name": t("trajectory", lang),
        "legendgroup": hw,
        "showlegend": False,
        "x": x,
        "y": y,
        "mode": "lines+markers",
        "hoverinfo": "skip",
        "line": {"color": color, "width": 2, "dash": "dot"},
        "marker": {"color": color, "size": 6, "symbol": "circle-open", "line": {"width": 1.5}},
    }


def _log_range(low: float, high: float, default: tuple[float, float]) -> list[float]:
    """Log10 axis range covering the default and [low, high], with a margin of a quarter decade
    so a marker at the edge is drawn whole."""
    lo, hi = math.log10(min(low, default[0])), math.log10(max(high, default[1]))
    return [lo - (0.25 if low < default[0] else 0.0), hi + (0.25 if high > default[1] else 0.0)]


def _decade_ticks(rng: list[float], scale: float = 1.0) -> tuple[list[float], list[str]]:
    vals = [10.0**e for e in range(math.floor(rng[0]), math.ceil(rng[1]) + 1)]
    return vals, [plain(v / scale) for v in vals]


def _figure_layout(
    lang: str, theme: str, present: bool, box, kinds: set[str], subtitle: str, accelerators: int = 1
) -> dict:
    """Log axes around `box` (every point the sliders can reach), the accelerators' legend at the
    foot, and in `meta` the symbol key and the patch an export applies (symbol_key.py), which
    prints the scenario as the figure's title."""
    colors = THEMES.get(theme, THEMES["light"])
    x_range = _log_range(box[0], box[1], X_RANGE) if box else [math.log10(v) for v in X_RANGE]
    y_range = _log_range(box[2], box[3], Y_RANGE) if box else [math.log10(v) for v in Y_RANGE]
    layout = base_layout(lang, theme, present)
    x_ticks, x_labels = _decade_ticks(x_range)
    y_ticks, y_labels = _decade_ticks(y_range, 1e12)
    layout["xaxis"] = log_axis(t("x_axis", lang), x_range, x_ticks, x_labels, colors)
    layout["yaxis"] = log_axis(t("y_axis", lang) + " (TFLOP/s)", y_range, y_ticks, y_labels, colors)
    # The accelerators' entries at the foot of the figure (pinned to the figure, not the plot, so
    # they never climb onto the axis title in a short embed), about three to a row (two in
    # presentation mode's larger font). What each symbol is: the key, HTML under the chart on the
    # page, the legend's title in an export (symbol_key.py); "hollow" always, as a slider can move
    # any point past what fits without a server round trip. The entries from the figure's left
    # edge, a size under the axes' text and no gap between the accelerators' groups (Plotly's
    # default 10 px a row): eight accelerators take 4 rows, not 5, in an 800x500 embed.
    layout["legend"] = {"orientation": "h", "yref": "container", "y": 0.01, "yanchor": "bottom", "x": 0.01}
    layout["legend"] |= {"xref": "container", "tracegroupgap": 0, "font": {"size": layout["font"]["size"] - 2}}
    rows = math.ceil(accelerators / (2 if present else 3))
    line = layout["font"]["size"] + 9
    # the foot: the x axis's ticks and title (70 px), then the accelerators' rows; where they take
    # more rows than this (a phone, an embed), Plotly pushes the plot up itself
    layout["margin"] = {**layout["margin"], "t": 30, "b": 70 + line * rows}
    items = key_items(kinds | {"ridge", "hollow"}, lang)
    export = export_patch(layout, items, accelerators, present, colors["muted"])
    # The scenario line: HTML above the chart on the page (it wraps at any width, and a slider
    # step sets its text without redrawing the chart: a title relayout made dcc.Graph copy the
    # layout back into its figure and re-plot every trace, ~100 ms a step); an export carries it
    # as the figure's title, above the plot, so every image says what it shows. The plot starts
    # below its lines and one more: another stop's line (a longer batch) may wrap once more.
    if subtitle:
        lines = subtitle.count("<br>") + 1
        export["margin"] = {**export["margin"], "t": 8 + (lines + 1) * (layout["font"]["size"] + 4)}
        export["title"] = {
            "text": subtitle,
            "x": 0.01,
            "xanchor": "left",
            "y": 0.99,
            "yanchor": "top",
            # Plotly lifts a title of several lines about one line above its anchor: push it back
            "pad": {"t": 10 if lines > 1 else 0},
            "font": {"size": layout["font"]["size"] - 1, "color": colors["muted"]},
        }
    layout["meta"] = {"key": items, "export": export}
    return layout


def roofline_figure(
    results: list[dict],
    trajectories: dict[str, dict],
    lang: str = "en",
    theme: str = "light",
    present: bool = False,
    measured_points: list[dict] | None = None,
    extent: list[float] | None = None,
    stop: tuple[int, int] | None = None,
    published: list[dict] | None = None,
    subtitle: str = "",
    pinned: list[dict] | None = None,
    cache_roofs: dict[str, list[dict]] | None = None,
    measured_on: str | None = None,
) -> dict:
    """Log-log roofline: per accelerator its memory slope, tensor roof, dashed vector roof and
    ridge, the decode batch trajectory, then the decode/prefill/attention/elementwise points;
    measured roofs and points where there are some (the measured decode step belongs to the
    first accelerator, `measured_points` to `measured_on`, default the first: the machine each
    was measured on).

    `extent` ([x min, x max, y min, y max]) widens the axes to hold every point the sliders
    can reach (the grid's), so no point ever falls off the chart; `stop` records the
    (batch, context) drawn, for the browser's grid moves."""
    # user text (accelerator, model and imported row names) reaches Plotly as text, never markup
    results, pinned, subtitle = plotly_names(results), plotly_names(pinned) or None, wrapped_plotly_text(subtitle)
    measured_points = [{**p, "name": plotly_text(p["name"])} for p in measured_points or []] or None
    traces: list[dict] = []
    kinds: set[str] = set()
    xs, ys = list(extent[:2]) if extent else [], list(extent[2:]) if extent else []
    on = measured_on if any(r["hardware_id"] == measured_on for r in results) else None
    hues = card_colors([r["hardware_id"] for r in results], theme)
    for i, r in enumerate(results):
        hw, name, c = r["hardware_id"], r["hardware_name"], hues[i]
        first, profiled = i == 0, hw == on or (on is None and i == 0)
        traces += _roof_traces(r, c, lang)
        caches = cache_roof_traces(r, (cache_roofs or {}).get(hw, []), c, lang)
        kinds |= {"cache"} if caches else set()
        traces += caches
        traj = trajectories.get(hw)
        xy = trajectory_xy(traj) if traj is not None else None
        traces.append(trajectory_trace(hw, xy, c, lang))
        marks = gpu_marks(
            hw,
            r["decode"],
            r["prefill"],
            lang,
            r.get("measured_decode") if first else None,
            measured_points if profiled else None,
            r["memory"]["fits"],
        )
        for m in marks:
            kinds.add(m.kind)
            xs.append(m.x)
            ys.append(m.y)
        for entry in drawn_as(marks):
            group = isinstance(entry, list)
            traces.append(_group_trace(entry, name, c, lang) if group else _mark_trace(entry, name, c, lang, False))
        imported = imported_trace(measured_points or [], hw, name, c, lang) if profiled else None
        if imported is not None:  # the imported rows with their own counts: one trace, drawn once
            kinds.add("measured")
            traces.append(imported)
            xs += imported["x"]
            ys += imported["y"]
        if xy:
            xs += xy[0]
            ys += xy[1]
    for trace in published_traces(published or [], results, lang, theme) + ghost_traces(pinned or [], lang, theme):
        traces.append(trace)
        xs += trace["x"]
        ys += trace["y"]
    if pinned:
        kinds.add("ghost")
    layout = _figure_layout(lang, theme, present, extent_of(xs, ys), kinds, subtitle, len(results))
    if stop is not None:
        layout["meta"]["stop"] = list(stop)
    if pinned and results:
        layout["annotations"] = [pin_arrow(pinned[0], results[0], THEMES.get(theme, THEMES["light"]))]
    return {"data": traces, "layout": layout}


GHOST_OPACITY = 0.35


def ghost_traces(pinned: list[dict], lang: str, theme: str = "light") -> list[dict]:
    """Pinned scenario A's decode and prefill on each accelerator: B's symbols and
    colours, faded; uids `ghost--<hw>--decode` and `ghost--<hw>--prefill`."""
    traces = []
    hues = card_colors([r["hardware_id"] for r in pinned], theme)
    for i, r in enumerate(pinned):
        hw = r["hardware_id"]
        for kind in ("decode", "prefill"):
            mark = phase_mark(hw, kind, f"A · {t(kind, lang)}", r[kind], lang)
            mark = replace(mark, uid=uid("ghost", hw, kind), fits=r["memory"]["fits"])
            trace = _mark_trace(mark, r["hardware_name"], hues[i], lang, False)
            trace["opacity"] = GHOST_OPACITY
            traces.append(trace)
    return traces


def pin_arrow(a: dict, b: dict, colors: dict) -> dict:
    """An arrow from A's decode point to B's on the first accelerator (log axes take log10)."""

    def at(result: dict) -> tuple[float, float]:
        d = result["decode"]
        return math.log10(d["intensity"]), math.log10(d["flops"] / d["time_s"])

    (ax, ay), (x, y) = at(a), at(b)
    return {
        "x": x, "y": y, "ax": ax, "ay": ay, "xref": "x", "yref": "y", "axref": "x", "ayref": "y",
        "text": "", "showarrow": True, "arrowhead": 3, "arrowwidth": 1.5, "arrowcolor": colors["muted"],
        "standoff": 8, "startstandoff": 8,
    }  # fmt: skip


def published_traces(published: list[dict], results: list[dict], lang: str, theme: str = "light") -> list[dict]:
    """Published measurements (docs/reality-check.md) where their accelerator is drawn: at the
    intensity of the measured interval and the FLOP/s it achieved, the gap in the hover."""
    ids = [r["hardware_id"] for r in results]
    colors = dict(zip(ids, card_colors(ids, theme), strict=True))
    traces = []
    for n, p in enumerate(published):
        hw = p["accelerator"]
        if hw not in colors:
            continue
        text = t(
            "hover_published",
            lang,
            title=p["source"]["table"],
            date=p["source"]["date"],
            model=p["model"],
            batch=p["batch_size"],
            tokens_in=p["input_tokens"],
            tokens_out=p["output_tokens"],
            tp=p["tensor_parallel"],
            fraction=f"{p['fraction_of_bound']:.0%}",
            mbu=f"{p['mbu']:.0%}",
        )
        traces.append(
            {
                "type": "scatter",
                "uid": uid("published", hw, n),
                "name": p["id"],
                "legendgroup": hw,
                "showlegend": False,
                "x": [p["intensity"]],
                "y": [p["achieved_flops_per_s"]],
                "mode": "markers",
                "hovertemplate": hover_box(text),
                "marker": {
                    "color": colors[hw],
                    "symbol": "hexagram",
                    "size": 12,
                    "line": {"color": "#ffffff", "width": 1},
                },
            }
        )
    return traces
