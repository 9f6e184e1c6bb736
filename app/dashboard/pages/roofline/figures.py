"""Figures as plain functions: engine results in, Plotly figure dicts out.

Dicts rather than go.Figure objects: the same JSON reaches the browser, without plotly's
per-property validation on the slider's hot path (~10x faster to build).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..units import duration, grouped, plain, si
from .i18n import t
from .marks import Mark, gpu_marks, hover_template, phase_mark, trajectory_xy
from .marks import extent as marks_extent
from .uids import uid

# Okabe & Ito colour-blind-safe palette (Color Universal Design, 2008), black last.
# Okabe-Ito, colour-blind safe; on white its orange, sky blue and yellow fall under WCAG's 3:1
# for graphics (2.25, 2.31, 1.32), so the light theme takes darker shades of those hues, and the
# dark theme a light grey for black (1.18 on its background). Every entry is >= 3:1 on its page.
PALETTES = {
    "light": ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#2B8CC4", "#8F8600", "#000000"),
    "dark": ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#E5E7EB"),
}
X_RANGE = (0.05, 20000.0)  # FLOP/byte: elementwise (~0.17) to large GEMMs (~3000)
Y_RANGE = (1e10, 2e16)  # FLOP/s: 0.01 TFLOP/s to the fp4 roofs of Blackwell
# (symbol, size) of each kind of point
MARK_STYLE = {
    "decode": ("circle", 14),
    "prefill": ("square", 13),
    "attention_decode": ("diamond", 11),
    "elementwise": ("triangle-up", 8),
    "measured_decode": ("star", 16),
    "measured": ("x-thin-open", 12),
}
THEMES = {
    "light": {
        "paper": "#ffffff",
        "plot": "#ffffff",
        "font": "#1f2328",
        "grid": "#e5e7eb",
        "muted": "#6b7280",
        "danger": "#c62828",
    },
    "dark": {
        "paper": "#0f172a",
        "plot": "#0f172a",
        "font": "#e5e7eb",
        "grid": "#334155",
        "muted": "#94a3b8",
        "danger": "#f87171",
    },
}


def color_for(index: int, theme: str = "light") -> str:
    palette = PALETTES.get(theme, PALETTES["light"])
    return palette[index % len(palette)]


def _log_axis(title: str, rng: list[float], ticks: list[float], labels: list[str], colors: dict) -> dict:
    return {
        "type": "log",
        "title": {"text": title},
        "range": rng,
        "tickvals": ticks,
        "ticktext": labels,
        "gridcolor": colors["grid"],
        "zeroline": False,
        "autorange": False,
        "fixedrange": False,
    }


def base_layout(lang: str, theme: str, present: bool) -> dict:
    colors = THEMES.get(theme, THEMES["light"])
    return {
        "paper_bgcolor": colors["paper"],
        "plot_bgcolor": colors["plot"],
        "font": {"color": colors["font"], "size": 20 if present else 13, "family": "system-ui, sans-serif"},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 55},
        "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.18, "x": 0},
        # Keeps zoom/pan and legend clicks while the sliders move.
        "uirevision": "keep",
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


def _roof_traces(r: dict, c: str, lang: str) -> list[dict]:
    """Memory slope, tensor roof, dashed vector roof and the ridge of one accelerator."""
    hw, name = r["hardware_id"], r["hardware_name"]
    x0, x1 = X_RANGE[0] / 100, X_RANGE[1] * 100  # past any axis range the points can stretch to
    bw, peak, ridge = r["memory_bandwidth_bytes_per_s"], r["tensor_flops_per_s"], r["ridge_point"]
    traces = [
        {
            "type": "scatter",
            "uid": uid("roof", hw, "memory"),
            "name": f"{name} · {t('ridge', lang, v=plain(ridge))}",
            "legendgroup": hw,
            "x": [x0, ridge],
            "y": [x0 * bw, peak],
            "mode": "lines",
            "line": {"color": c, "width": 2.5},
            "hovertemplate": f"{name} · {t('memory_roof', lang)} {si(bw, 'B/s')}<extra></extra>",
        },
        {
            "type": "scatter",
            "uid": uid("roof", hw, "tensor"),
            "name": f"{name} {t('tensor_roof', lang)}",
            "legendgroup": hw,
            "showlegend": False,
            "x": [ridge, x1],
            "y": [peak, peak],
            "mode": "lines",
            "line": {"color": c, "width": 2.5},
            "hovertemplate": f"{name} · {t('tensor_roof', lang)} ({r['tensor_dtype']}) "
            f"{si(peak, 'FLOP/s')}<extra></extra>",
        },
    ]
    if not r["vector_unit"].startswith("tensor"):
        vpeak, vridge = r["vector_flops_per_s"], r["vector_ridge_point"]
        traces.append(
            {
                "type": "scatter",
                "uid": uid("roof", hw, "vector"),
                "name": f"{name} {t('vector_roof', lang)}",
                "legendgroup": hw,
                "showlegend": False,
                "x": [vridge, x1],
                "y": [vpeak, vpeak],
                "mode": "lines",
                "line": {"color": c, "width": 1.5, "dash": "dash"},
                "hovertemplate": f"{name} · {t('vector_roof', lang)} ({r['vector_unit']}) "
                f"{si(vpeak, 'FLOP/s')}<extra></extra>",
            }
        )
    m = r.get("measured_roofs")
    if m:
        mridge = m["tensor_flops_per_s"] / m["memory_bandwidth_bytes_per_s"]
        label = f"{name} · {t('measured_roof', lang)} ({m['date']})"
        dotted = {"color": c, "width": 2, "dash": "dot"}
        traces.append(
            {
                "type": "scatter",
                "uid": uid("roof", hw, "memory-measured"),
                "name": label,
                "showlegend": False,
                "legendgroup": hw,
                "x": [x0, mridge],
                "y": [x0 * m["memory_bandwidth_bytes_per_s"], m["tensor_flops_per_s"]],
                "mode": "lines",
                "line": dotted,
                "hovertemplate": f"{label}: {si(m['memory_bandwidth_bytes_per_s'], 'B/s')}<extra></extra>",
            }
        )
        traces.append(
            {
                "type": "scatter",
                "uid": uid("roof", hw, "tensor-measured"),
                "name": label,
                "showlegend": False,
                "legendgroup": hw,
                "x": [mridge, x1],
                "y": [m["tensor_flops_per_s"]] * 2,
                "mode": "lines",
                "line": dotted,
                "hovertemplate": f"{label}: {si(m['tensor_flops_per_s'], 'FLOP/s')} "
                f"({m['tensor_dtype']})<extra></extra>",
            }
        )
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
            "hovertemplate": f"{name} · {ridge_label} FLOP/byte<extra></extra>",
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
            cap=si(roof["capacity_bytes"], "B"),
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
                "hovertemplate": label + "<extra></extra>",
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
) -> dict:
    """Log-log roofline: per accelerator its memory slope, tensor roof, dashed vector roof and
    ridge, the decode batch trajectory, then the decode/prefill/attention/elementwise points;
    measured roofs and points where there are some (`measured_points` and the measured decode
    step belong to the first accelerator: the machine they were measured on).

    `extent` ([x min, x max, y min, y max]) widens the axes to hold every point the sliders
    can reach (the grid's), so no point ever falls off the chart; `stop` records the
    (batch, context) drawn, for the browser's grid moves."""
    colors = THEMES.get(theme, THEMES["light"])
    traces: list[dict] = []
    kinds: set[str] = set()
    xs, ys = list(extent[:2]) if extent else [], list(extent[2:]) if extent else []
    for i, r in enumerate(results):
        hw, name, c = r["hardware_id"], r["hardware_name"], color_for(i, theme)
        first = i == 0
        traces += _roof_traces(r, c, lang)
        traces += cache_roof_traces(r, (cache_roofs or {}).get(hw, []), c, lang)
        traj = trajectories.get(hw)
        xy = trajectory_xy(traj) if traj is not None else None
        traces.append(trajectory_trace(hw, xy, c, lang))
        marks = gpu_marks(
            hw,
            r["decode"],
            r["prefill"],
            lang,
            r.get("measured_decode") if first else None,
            measured_points if first else None,
            r["memory"]["fits"],
        )
        for m in marks:
            kinds.add(m.kind)
            traces.append(_mark_trace(m, name, c, lang, False))
            xs.append(m.x)
            ys.append(m.y)
        if xy:
            xs += xy[0]
            ys += xy[1]
    for trace in published_traces(published or [], results, lang, theme) + ghost_traces(pinned or [], lang, theme):
        traces.append(trace)
        xs += trace["x"]
        ys += trace["y"]
    if pinned:
        kinds.add("ghost")
    box = marks_extent(xs, ys)
    x_range = _log_range(box[0], box[1], X_RANGE) if box else [math.log10(v) for v in X_RANGE]
    y_range = _log_range(box[2], box[3], Y_RANGE) if box else [math.log10(v) for v in Y_RANGE]
    layout = base_layout(lang, theme, present)
    x_ticks, x_labels = _decade_ticks(x_range)
    y_ticks, y_labels = _decade_ticks(y_range, 1e12)
    layout["xaxis"] = _log_axis(t("x_axis", lang), x_range, x_ticks, x_labels, colors)
    layout["yaxis"] = _log_axis(t("y_axis", lang) + " (TFLOP/s)", y_range, y_ticks, y_labels, colors)
    # accelerators (colours) under the x axis, then what each symbol is; never on the plot
    # One block at the foot of the figure (pinned to the figure, not the plot, so it never
    # climbs onto the axis title in a short embed): what each symbol is, then the accelerators.
    layout["legend"] = {
        "orientation": "h",
        "yref": "container",
        "y": 0.01,
        "yanchor": "bottom",
        "x": 0,
        "title": kind_legend(lang, colors, kinds | {"ridge"}, layout["font"]["size"] - 1),
    }
    layout["margin"] = {**layout["margin"], "t": 40, "b": 150}
    if subtitle:  # the scenario, so a screenshot or an export says what it shows
        layout["title"] = {
            "text": subtitle,
            "x": 0.01,
            "xanchor": "left",
            "y": 0.99,
            "yanchor": "top",
            "font": {"size": layout["font"]["size"] - 1, "color": colors["muted"]},
        }
    if stop is not None:
        layout["meta"] = {"stop": list(stop)}
    if pinned and results:
        layout["annotations"] = [pin_arrow(pinned[0], results[0], colors)]
    return {"data": traces, "layout": layout}


GHOST_OPACITY = 0.35


def ghost_traces(pinned: list[dict], lang: str, theme: str = "light") -> list[dict]:
    """Pinned scenario A's decode and prefill on each accelerator (issue 14): B's symbols and
    colours, faded; uids `ghost--<hw>--decode` and `ghost--<hw>--prefill`."""
    traces = []
    for i, r in enumerate(pinned):
        hw = r["hardware_id"]
        for kind in ("decode", "prefill"):
            mark = phase_mark(hw, kind, f"A · {t(kind, lang)}", r[kind], lang)
            mark = replace(mark, uid=uid("ghost", hw, kind), fits=r["memory"]["fits"])
            trace = _mark_trace(mark, r["hardware_name"], color_for(i, theme), lang, False)
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


# The marker legend: what each symbol is (colours = accelerators, in the legend proper).
KIND_GLYPHS = {
    "decode": "●",
    "prefill": "■",
    "attention_decode": "◆",
    "elementwise": "▲",
    "measured_decode": "★",
    "ridge": "✕",
    "ghost": "◌",
}
KIND_LEGEND = (
    ("decode", "decode"),
    ("prefill", "prefill"),
    ("attention_decode", "attention_decode"),
    ("elementwise", "elementwise"),
    ("measured_decode", "measured_point"),
    ("ridge", "ridge_kind"),
    ("ghost", "ghost_kind"),
)


def kind_legend(lang: str, colors: dict, drawn: set[str], size: int) -> dict:
    """What each symbol is, as the legend's title line: not legend traces, because every trace
    costs Plotly time on each slider step (bench_dashboard.py) and these never move."""
    entries = [f"{KIND_GLYPHS[kind]} {t(label, lang)}" for kind, label in KIND_LEGEND if kind in drawn]
    return {"text": "    ".join(entries), "side": "top", "font": {"size": size, "color": colors["muted"]}}


def message_figure(message: str) -> dict:
    """An empty plot that says why there is nothing to draw."""
    return {
        "data": [],
        "layout": {
            "xaxis": {"visible": False},
            "yaxis": {"visible": False},
            "annotations": [{"text": message, "showarrow": False, "font": {"size": 15}}],
        },
    }


def memory_figure(results: list[dict], lang: str = "en", theme: str = "light", present: bool = False) -> dict:
    """Stacked bars of weights / KV cache / activations against each accelerator's capacity."""
    colors = THEMES.get(theme, THEMES["light"])
    mem = [r["memory"] for r in results]
    names = [
        f"{r['hardware_name']}<br>{t('max_batch', lang, n=m['max_batch_size'])}"
        if m["fits"]
        else f"{r['hardware_name']}<br><span style='color:{colors['danger']}'>{t('does_not_fit', lang)}</span>"
        for r, m in zip(results, mem, strict=True)
    ]
    over = [colors["danger"] if not m["fits"] else None for m in mem]
    parts = (
        ("weights", "weights_bytes", "#0072B2"),
        ("kv_cache", "kv_cache_bytes", "#E69F00"),
        ("activations", "activation_bytes", "#009E73"),
    )
    data = []
    for key, field, color in parts:
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "uid": uid("memory", key),
                "name": t(key, lang),
                "y": names,
                "x": [m[field] for m in mem],
                "marker": {"color": [o or color for o in over] if key == "kv_cache" else color},
                "hovertemplate": f"{t(key, lang)} %{{x:.3s}}B<extra>%{{y}}</extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "uid": uid("memory", "capacity"),
            "name": t("capacity", lang),
            "y": names,
            "x": [m["capacity_bytes"] for m in mem],
            "mode": "markers",
            # in the text colour: a red tick vanished on the red bar of a card that does not fit
            "marker": {"symbol": "line-ns", "size": 26, "line": {"width": 3, "color": colors["font"]}},
            "hovertemplate": f"{t('capacity', lang)} %{{x:.3s}}B<extra>%{{y}}</extra>",
        }
    )
    layout = base_layout(lang, theme, present)
    layout.update(
        {
            "barmode": "stack",
            "margin": {"l": 200 if present else 130, "r": 10, "t": 30, "b": 40},
            "legend": {
                "orientation": "h",
                "y": 1.02,
                "yanchor": "bottom",
                "x": 0,
                "font": {"size": 16 if present else 11},
            },
            "xaxis": {
                "title": {"text": t("bytes_axis", lang)},
                "gridcolor": colors["grid"],
                "tickformat": "~s",
                "ticksuffix": "B",
            },
            "yaxis": {"autorange": "reversed"},
            "height": 110 + (80 if present else 45) * len(results),
        }
    )
    return {"data": data, "layout": layout}


def throughput_figure(
    sweeps: dict[str, dict], results: list[dict], lang: str = "en", theme: str = "light", present: bool = False
) -> dict:
    """Decode tokens/s bound against batch size; the line turns dotted where it stops fitting."""
    data = []
    for i, r in enumerate(results):
        s = sweeps[r["hardware_id"]]
        c = color_for(i, theme)
        fits = s["fits"]
        for part, mask, dash in (("fits", fits, "solid"), ("over", ~fits, "dot")):
            if not mask.any():
                continue
            data.append(
                {
                    "type": "scatter",
                    "uid": uid("throughput", r["hardware_id"], part),
                    "name": r["hardware_name"],
                    "showlegend": part == "fits" or not fits.any(),
                    "legendgroup": r["hardware_id"],
                    "x": s["batch_size"][mask].tolist(),
                    "y": s["tokens_per_s"][mask].tolist(),
                    "mode": "lines",
                    "line": {"color": c, "dash": dash, "width": 2},
                    "hovertemplate": f"{r['hardware_name']}<br>B=%{{x}}: %{{y:,.0f}} tok/s<extra></extra>",
                }
            )
        maxb = r["memory"]["max_batch_size"]
        if 1 <= maxb <= s["batch_size"][-1]:
            idx = int(min(range(len(s["batch_size"])), key=lambda j: abs(s["batch_size"][j] - maxb)))
            data.append(
                {
                    "type": "scatter",
                    "uid": uid("throughput", r["hardware_id"], "max"),
                    "showlegend": False,
                    "x": [maxb],
                    "y": [float(s["tokens_per_s"][idx])],
                    "mode": "markers",
                    "marker": {"color": c, "symbol": "x", "size": 10},
                    "hovertemplate": t("max_batch", lang, n=maxb) + "<extra></extra>",
                }
            )
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    layout.update(
        {
            "xaxis": {"type": "log", "title": {"text": t("batch_axis", lang)}, "gridcolor": colors["grid"]},
            "yaxis": {"type": "log", "title": {"text": t("tokens_axis", lang)}, "gridcolor": colors["grid"]},
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
            "height": 320,
            "margin": {"l": 70, "r": 20, "t": 30, "b": 45},
        }
    )
    return {"data": data, "layout": layout}


def ops_rows(result: dict, lang: str = "en", phase: str = "decode") -> list[dict]:
    """Rows of the ops table for one accelerator's decode step or prefill (unit, bound and scope
    in words of the page's language; the numbers stay numbers, so the table sorts them)."""
    return [
        {
            "op": o["name"],
            "unit": t(f"unit_{o['unit']}", lang),
            "flops": o["flops"],
            "bytes": o["bytes"],
            "intensity": round(o["intensity"], 4),
            "bound": t(f"bound_{o['bound']}", lang),
            "time_us": round(o["time_s"] * 1e6, 3),
            "share": round(o["share_of_step"], 4),
            "scope": t("scope_n_layers", lang, n=o["layers"]) if o["layers"] else t("scope_once_short", lang),
        }
        for o in result[phase]["ops"]
    ]


def comparison_rows(results: list[dict], ttft_alone_s: dict[str, float]) -> list[dict]:
    """Decode tokens/s, the TTFT of one request alone and of the whole batch's prefill, and max
    batch; in brackets each against the first accelerator on one convention, higher is better
    (for a time: how many times faster)."""
    base = results[0]

    def faster(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b else "—"

    rows = []
    for r in results:
        hw, base_hw = r["hardware_id"], base["hardware_id"]
        tps, batch_ttft, maxb = r["decode"]["tokens_per_s"], r["prefill"]["time_s"], r["memory"]["max_batch_size"]
        alone = ttft_alone_s[hw]
        rows.append(
            {
                "gpu": r["hardware_name"],
                "decode": f"{grouped(tps)} ({faster(tps, base['decode']['tokens_per_s'])})",
                "ttft1": f"{duration(alone)} ({faster(ttft_alone_s[base_hw], alone)})",
                "ttft": f"{duration(batch_ttft)} ({faster(base['prefill']['time_s'], batch_ttft)})",
                "maxb": f"{grouped(maxb)} ({faster(maxb, base['memory']['max_batch_size'])})",
            }
        )
    return rows


# Pin and compare (issue 14): what A and B are compared on, each an engine field.
DELTA_METRICS = (
    ("delta_tps", lambda r: r["decode"]["tokens_per_s"], grouped),
    ("delta_step", lambda r: r["decode"]["time_s"], duration),
    ("delta_ttft", lambda r: r["prefill"]["time_s"], duration),
    ("delta_kv", lambda r: r["memory"]["kv_bytes_per_token"], lambda v: si(v, "B")),
    ("delta_maxb", lambda r: r["memory"]["max_batch_size"], grouped),
    ("delta_memory", lambda r: r["memory"]["total_bytes"], lambda v: si(v, "B")),
)


def delta_rows(a: dict, b: dict, lang: str) -> list[dict]:
    """Scenario A against B on one accelerator: each metric as A, B and B/A."""
    rows = []
    for key, field, fmt in DELTA_METRICS:
        va, vb = field(a), field(b)
        rows.append({"metric": t(key, lang), "a": fmt(va), "b": fmt(vb), "ratio": f"{vb / va:.2f}x" if va else "—"})
    return rows


def request_rows(results: list[dict]) -> list[dict]:
    """One request end to end per accelerator (engine/request.py), formatted."""
    rows = []
    for r in results:
        q = r.get("request")
        if not q:
            continue
        cost = q["cost_per_million_output_tokens"]
        rows.append(
            {
                "gpu": r["hardware_name"],
                "ttft": duration(q["ttft_s"]),
                "tpot": duration(q["tpot_s"]),
                "e2e": duration(q["e2e_s"]),
                "user": grouped(q["output_tokens_per_s_per_sequence"]),
                "group": grouped(q["output_tokens_per_s"]),
                "cost": "—" if cost is None else f"${plain(cost)}",
                "fits": q["fits_at_end"],
            }
        )
    return rows


def interactivity_figure(
    curves: dict[str, dict], results: list[dict], lang: str = "en", theme: str = "light", present: bool = False
) -> dict:
    """Output tokens/s per GPU against tokens/s per user (1 / TPOT) along batch 1 .. the largest
    batch that fits, one curve per accelerator, the current batch marked: past the knee the
    group's throughput stops rising while every user waits longer (seed 000)."""
    data = []
    for i, r in enumerate(results):
        hw, c = r["hardware_id"], color_for(i, theme)
        curve = curves.get(hw)
        if curve is None or not len(curve["batch_size"]):
            continue
        batch = [int(b) for b in curve["batch_size"]]
        data.append(
            {
                "type": "scatter",
                "uid": uid("interactivity", hw, "curve"),
                "name": r["hardware_name"],
                "legendgroup": hw,
                "x": [float(v) for v in curve["output_tokens_per_s_per_sequence"]],
                "y": [float(v) for v in curve["output_tokens_per_s_per_gpu"]],
                "mode": "lines",
                "line": {"color": c, "width": 2},
                "customdata": batch,
                "hovertemplate": f"{r['hardware_name']}<br>B = %{{customdata}}<br>"
                f"{t('per_user_axis', lang)}: %{{x:,.0f}}<br>"
                f"{t('per_gpu_axis', lang)}: %{{y:,.0f}}<extra></extra>",
            }
        )
        q = r.get("request")
        tpot = q["tpot_s"] if q else r["decode"]["time_s"]
        per_gpu = (q["output_tokens_per_s"] if q else r["decode"]["tokens_per_s"]) / r["tensor_parallel"]
        data.append(
            {
                "type": "scatter",
                "uid": uid("interactivity", hw, "current"),
                "name": r["hardware_name"],
                "legendgroup": hw,
                "showlegend": False,
                "x": [1.0 / tpot],
                "y": [per_gpu],
                "mode": "markers",
                "marker": {"color": c, "size": 11, "symbol": "circle", "line": {"color": "#ffffff", "width": 1}},
                "hovertemplate": f"{r['hardware_name']} · {t('current_batch', lang)}<br>"
                f"{t('per_user_axis', lang)}: %{{x:,.0f}}<br>"
                f"{t('per_gpu_axis', lang)}: %{{y:,.0f}}<extra></extra>",
            }
        )
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    # ticks at 1-2-5 steps, never Plotly's lone minor digits ("2 3 4 5") on a short log range
    ticks = {"tickformat": ",~r", "dtick": "D2"}
    layout.update(
        {
            "xaxis": {"type": "log", "title": {"text": t("per_user_axis", lang)}, "gridcolor": colors["grid"], **ticks},
            "yaxis": {"type": "log", "title": {"text": t("per_gpu_axis", lang)}, "gridcolor": colors["grid"], **ticks},
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
            "height": 320,
            "margin": {"l": 70, "r": 20, "t": 30, "b": 45},
        }
    )
    return {"data": data, "layout": layout}


def published_traces(published: list[dict], results: list[dict], lang: str, theme: str = "light") -> list[dict]:
    """Published measurements (README "Reality check") where their accelerator is drawn: at the
    intensity of the measured interval and the FLOP/s it achieved, the gap in the hover."""
    colors = {r["hardware_id"]: color_for(i, theme) for i, r in enumerate(results)}
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
                "hovertemplate": text + "<extra></extra>",
                "marker": {
                    "color": colors[hw],
                    "symbol": "hexagram",
                    "size": 12,
                    "line": {"color": "#ffffff", "width": 1},
                },
            }
        )
    return traces


def reality_rows(published: list[dict]) -> list[dict]:
    """The "reality check" table: each published figure against its bound."""
    return [
        {
            "gpu": p["accelerator"],
            "model": p["model"],
            "scenario": f"{p['weight_dtype']} · TP {p['tensor_parallel']} · B {p['batch_size']} · "
            f"{grouped(p['input_tokens'])}/{grouped(p['output_tokens'])}",
            "metric": p["metric"],
            "measured": plain(p["value"]),
            "bound": plain(p["bound"]),
            "fraction": f"{p['fraction_of_bound']:.0%}",
            "mbu": f"{p['mbu']:.0%}",
            "source": f"{p['source']['table']}, {p['source']['date']}",
            "url": p["source"]["url"],
        }
        for p in published
    ]
