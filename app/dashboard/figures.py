"""Figures as plain functions: engine results in, Plotly figure dicts out.

Dicts rather than go.Figure objects: the same JSON reaches the browser, without plotly's
per-property validation on the slider's hot path (~10x faster to build).
"""

from __future__ import annotations

import math

from ..units import duration, grouped, si
from .i18n import t

# Okabe & Ito colour-blind-safe palette (Color Universal Design, 2008), black last.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
X_RANGE = (0.05, 20000.0)      # FLOP/byte: elementwise (~0.17) to large GEMMs (~3000)
Y_RANGE = (1e10, 2e16)         # FLOP/s: 0.01 TFLOP/s to the fp4 roofs of Blackwell
PHASE_SYMBOLS = {"decode": "circle", "prefill": "square", "attention_decode": "diamond"}
ELEMENTWISE_SYMBOL = "triangle-up"
THEMES = {
    "light": {"paper": "#ffffff", "plot": "#ffffff", "font": "#1f2328", "grid": "#e5e7eb", "muted": "#6b7280"},
    "dark": {"paper": "#0f172a", "plot": "#0f172a", "font": "#e5e7eb", "grid": "#334155", "muted": "#94a3b8"},
}


def color_for(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _log_axis(title: str, rng: tuple[float, float], ticks: list[float], labels: list[str], colors: dict) -> dict:
    return {"type": "log", "title": {"text": title}, "range": [math.log10(rng[0]), math.log10(rng[1])],
            "tickvals": ticks, "ticktext": labels, "gridcolor": colors["grid"], "zeroline": False,
            "autorange": False, "fixedrange": False}


def base_layout(lang: str, theme: str, present: bool) -> dict:
    colors = THEMES.get(theme, THEMES["light"])
    return {
        "paper_bgcolor": colors["paper"], "plot_bgcolor": colors["plot"],
        "font": {"color": colors["font"], "size": 20 if present else 13, "family": "system-ui, sans-serif"},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 55}, "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.18, "x": 0},
        # Keeps zoom/pan and legend clicks while the sliders move.
        "uirevision": "keep",
    }


def _hover(label: str, hw_name: str, flops: float, bytes_: float, time_s: float, bound: str, tokens_per_s: float | None,
           lang: str) -> str:
    tokens = t("tokens_per_s", lang, v=grouped(tokens_per_s)) if tokens_per_s else ""
    return t("hover", lang, label=label, hw=hw_name, flops=si(flops, "FLOP"), bytes=si(bytes_, "B"),
             intensity=f"{flops / bytes_:.3g}" if bytes_ else "0", bound=t(f"bound_{bound}", lang),
             time=duration(time_s), tokens=tokens)


def _point(uid: str, name: str, x: float, y: float, color: str, symbol: str, size: int, text: str,
           label: str = "") -> dict:
    return {"type": "scatter", "uid": uid, "name": name, "x": [x], "y": [y],
            "mode": "markers+text" if label else "markers", "text": [label], "textposition": "top center",
            "hovertext": [text], "hovertemplate": "%{hovertext}<extra></extra>", "showlegend": False,
            "marker": {"color": color, "symbol": symbol, "size": size, "line": {"color": "#ffffff", "width": 1}},
            "cliponaxis": False}


def _measured_traces(r: dict, color: str, lang: str, measured_points: list[dict] | None) -> list[dict]:
    """A calibration's roofs (dotted, beside the datasheet's), the measured decode step, and
    imported measured points, each with its gap to the roof in the hover."""
    hw, name = r["hardware_id"], r["hardware_name"]
    traces = []
    m = r.get("measured_roofs")
    if m:
        ridge = m["tensor_flops_per_s"] / m["memory_bandwidth_bytes_per_s"]
        label = f"{name} · {t('measured_roof', lang)} ({m['date']})"
        traces.append({"type": "scatter", "uid": f"roof|{hw}|memory-measured", "name": label, "showlegend": False,
                       "legendgroup": f"hw|{hw}", "x": [X_RANGE[0], ridge],
                       "y": [X_RANGE[0] * m["memory_bandwidth_bytes_per_s"], m["tensor_flops_per_s"]],
                       "mode": "lines", "line": {"color": color, "width": 2, "dash": "dot"},
                       "hovertemplate": f"{label}: {si(m['memory_bandwidth_bytes_per_s'], 'B/s')}<extra></extra>"})
        traces.append({"type": "scatter", "uid": f"roof|{hw}|tensor-measured", "name": label, "showlegend": False,
                       "legendgroup": f"hw|{hw}", "x": [ridge, X_RANGE[1]], "y": [m["tensor_flops_per_s"]] * 2,
                       "mode": "lines", "line": {"color": color, "width": 2, "dash": "dot"},
                       "hovertemplate": f"{label}: {si(m['tensor_flops_per_s'], 'FLOP/s')} "
                                        f"({m['tensor_dtype']})<extra></extra>"})
    md = r.get("measured_decode")
    if md:
        text = t("insight_measured", lang, time=duration(md["step_time_s"]), tps=grouped(md["tokens_per_s"]),
                 gap=f"{md['gap']:.2f}", mbu=f"{md['mbu']:.1%}", mfu=f"{md['mfu']:.2%}")
        traces.append(_point(f"measured|{hw}|decode", t("measured_point", lang), md["intensity"],
                             md["achieved_flops_per_s"], color, "star", 16, text))
    for p in measured_points or []:
        text = t("hover_measured", lang, label=p["name"], hw=name, time=duration(p["time_s"]),
                 achieved=si(p["achieved_flops_per_s"], "FLOP/s"), roof=si(p["attainable_flops_per_s"], "FLOP/s"),
                 fraction=f"{p['fraction_of_roof']:.0%}", gap=f"{p['gap']:.2f}")
        traces.append(_point(f"measured|{hw}|{p['name']}", p["name"], p["intensity"], p["achieved_flops_per_s"],
                             color, "x-thin-open", 12, text))
    return traces


def roofline_figure(results: list[dict], trajectories: dict[str, dict], lang: str = "en", theme: str = "light",
                    present: bool = False, measured_points: list[dict] | None = None) -> dict:
    """Log-log roofline: per accelerator its memory slope, tensor roof, dashed vector roof and
    ridge, the decode/prefill/attention/elementwise points, and the decode batch trajectory;
    measured roofs and points where there are some (`measured_points` belong to the first
    accelerator: the machine they were measured on)."""
    colors = THEMES.get(theme, THEMES["light"])
    x0, x1 = X_RANGE
    traces: list[dict] = []
    for i, r in enumerate(results):
        hw, name, c = r["hardware_id"], r["hardware_name"], color_for(i)
        bw, peak, ridge = r["memory_bandwidth_bytes_per_s"], r["tensor_flops_per_s"], r["ridge_point"]
        group = f"hw|{hw}"
        traces.append({"type": "scatter", "uid": f"roof|{hw}|memory", "name": name, "legendgroup": group,
                       "x": [x0, ridge], "y": [x0 * bw, peak], "mode": "lines", "line": {"color": c, "width": 2.5},
                       "hovertemplate": f"{name} · {t('memory_roof', lang)} {si(bw, 'B/s')}<extra></extra>"})
        traces.append({"type": "scatter", "uid": f"roof|{hw}|tensor", "name": f"{name} {t('tensor_roof', lang)}",
                       "legendgroup": group, "showlegend": False, "x": [ridge, x1], "y": [peak, peak],
                       "mode": "lines", "line": {"color": c, "width": 2.5},
                       "hovertemplate": f"{name} · {t('tensor_roof', lang)} ({r['tensor_dtype']}) "
                                        f"{si(peak, 'FLOP/s')}<extra></extra>"})
        traces.append({"type": "scatter", "uid": f"ridge|{hw}", "name": t("ridge", lang, v=f"{ridge:.0f}"),
                       "legendgroup": group, "showlegend": False, "x": [ridge], "y": [peak],
                       "mode": "markers+text", "text": [t("ridge", lang, v=f"{ridge:.0f}")],
                       "textposition": ("top left", "bottom right", "top right", "bottom left")[i % 4],
                       "textfont": {"color": c},
                       "marker": {"color": c, "size": 9, "symbol": "x"},
                       "hovertemplate": f"{name} · {t('ridge', lang, v=f'{ridge:.0f}')} FLOP/byte<extra></extra>"})
        if not r["vector_unit"].startswith("tensor"):
            vpeak, vridge = r["vector_flops_per_s"], r["vector_ridge_point"]
            traces.append({"type": "scatter", "uid": f"roof|{hw}|vector", "name": f"{name} {t('vector_roof', lang)}",
                           "legendgroup": group, "showlegend": False, "x": [vridge, x1], "y": [vpeak, vpeak],
                           "mode": "lines", "line": {"color": c, "width": 1.5, "dash": "dash"},
                           "hovertemplate": f"{name} · {t('vector_roof', lang)} ({r['vector_unit']}) "
                                            f"{si(vpeak, 'FLOP/s')}<extra></extra>"})
        traj = trajectories.get(hw)
        if traj is not None and len(traj["intensity"]):
            traces.append({"type": "scatter", "uid": f"trajectory|{hw}", "name": t("trajectory", lang),
                           "legendgroup": group, "showlegend": False,
                           "x": list(traj["intensity"]), "y": list(traj["flops"] / traj["time_s"]),
                           "text": [f"B = {int(b)}" for b in traj["batch_size"]],
                           "hovertemplate": f"{name} · %{{text}}<br>%{{x:.3g}} FLOP/byte<extra></extra>",
                           "mode": "lines", "line": {"color": c, "width": 1.5, "dash": "dot"}})
        d, p = r["decode"], r["prefill"]
        first = i == 0
        traces.append(_point(f"point|{hw}|decode", t("decode", lang), d["intensity"], d["attainable_flops_per_s"], c,
                             PHASE_SYMBOLS["decode"], 14,
                             _hover(t("decode", lang), name, d["flops"], d["bytes"], d["time_s"], d["bound"],
                                    d["tokens_per_s"], lang), t("decode", lang) if first else ""))
        traces.append(_point(f"point|{hw}|prefill", t("prefill", lang), p["intensity"], p["attainable_flops_per_s"], c,
                             PHASE_SYMBOLS["prefill"], 13,
                             _hover(t("prefill", lang), name, p["flops"], p["bytes"], p["time_s"], p["bound"],
                                    p["tokens_per_s"], lang), t("prefill", lang) if first else ""))
        attention = [o for o in d["ops"] if o["name"].startswith("attention") and o["unit"] == "tensor"]
        a_flops, a_bytes = sum(o["flops"] for o in attention), sum(o["bytes"] for o in attention)
        a_time = sum(o["time_s"] for o in attention)
        if a_time:
            a_bound = "compute" if all(o["bound"] == "compute" for o in attention) else "memory"
            traces.append(_point(f"point|{hw}|attention_decode", t("attention_decode", lang), a_flops / a_bytes,
                                 a_flops / a_time, c, PHASE_SYMBOLS["attention_decode"], 11,
                                 _hover(t("attention_decode", lang), name, a_flops, a_bytes, a_time, a_bound, None,
                                        lang)))
        for op in d["ops"]:
            if op["unit"] != "vector" or op["flops"] <= 0:
                continue
            traces.append(_point(f"point|{hw}|{op['name']}", op["name"], op["intensity"], op["flops"] / op["time_s"],
                                 c, ELEMENTWISE_SYMBOL, 8,
                                 _hover(op["name"], name, op["flops"], op["bytes"], op["time_s"], op["bound"], None,
                                        lang)))
        traces += _measured_traces(r if first else {**r, "measured_decode": None}, c, lang,
                                   measured_points if first else None)
    layout = base_layout(lang, theme, present)
    layout["xaxis"] = _log_axis(t("x_axis", lang), X_RANGE, [0.1, 1, 10, 100, 1000, 10000],
                                ["0.1", "1", "10", "100", "1,000", "10,000"], colors)
    layout["yaxis"] = _log_axis(t("y_axis", lang) + " (TFLOP/s)", Y_RANGE, [1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16],
                                ["0.01", "0.1", "1", "10", "100", "1,000", "10,000"], colors)
    return {"data": traces, "layout": layout}


def message_figure(message: str) -> dict:
    """An empty plot that says why there is nothing to draw."""
    return {"data": [], "layout": {"xaxis": {"visible": False}, "yaxis": {"visible": False},
                                   "annotations": [{"text": message, "showarrow": False, "font": {"size": 15}}]}}


def memory_figure(results: list[dict], lang: str = "en", theme: str = "light", present: bool = False) -> dict:
    """Stacked bars of weights / KV cache / activations against each accelerator's capacity."""
    mem = [r["memory"] for r in results]
    names = [f"{r['hardware_name']}<br>{t('max_batch', lang, n=m['max_batch_size'])}" if m["fits"] else
             f"{r['hardware_name']}<br><span style='color:#c62828'>{t('does_not_fit', lang)}</span>"
             for r, m in zip(results, mem)]
    over = ["#c62828" if not m["fits"] else None for m in mem]
    parts = (("weights", "weights_bytes", "#0072B2"), ("kv_cache", "kv_cache_bytes", "#E69F00"),
             ("activations", "activation_bytes", "#009E73"))
    data = []
    for key, field, color in parts:
        data.append({"type": "bar", "orientation": "h", "uid": f"memory|{key}", "name": t(key, lang), "y": names,
                     "x": [m[field] for m in mem],
                     "marker": {"color": [o or color for o in over] if key == "kv_cache" else color},
                     "hovertemplate": f"{t(key, lang)} %{{x:.3s}}B<extra>%{{y}}</extra>"})
    data.append({"type": "scatter", "uid": "memory|capacity", "name": t("capacity", lang), "y": names,
                 "x": [m["capacity_bytes"] for m in mem], "mode": "markers",
                 "marker": {"symbol": "line-ns", "size": 26, "line": {"width": 3, "color": "#c62828"}},
                 "hovertemplate": f"{t('capacity', lang)} %{{x:.3s}}B<extra>%{{y}}</extra>"})
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    layout.update({"barmode": "stack", "margin": {"l": 200 if present else 130, "r": 10, "t": 30, "b": 40},
                   "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "font": {"size": 11}},
                   "xaxis": {"title": {"text": t("bytes_axis", lang)}, "gridcolor": colors["grid"],
                             "tickformat": ".2s", "ticksuffix": "B"},
                   "yaxis": {"autorange": "reversed"}, "height": 110 + 45 * len(results)})
    return {"data": data, "layout": layout}


def throughput_figure(sweeps: dict[str, dict], results: list[dict], lang: str = "en", theme: str = "light",
                      present: bool = False) -> dict:
    """Decode tokens/s bound against batch size; the line turns dotted where it stops fitting."""
    data = []
    for i, r in enumerate(results):
        s = sweeps[r["hardware_id"]]
        c = color_for(i)
        fits = s["fits"]
        for part, mask, dash in (("fits", fits, "solid"), ("over", ~fits, "dot")):
            if not mask.any():
                continue
            data.append({"type": "scatter", "uid": f"throughput|{r['hardware_id']}|{part}",
                         "name": r["hardware_name"], "showlegend": part == "fits" or not fits.any(),
                         "legendgroup": r["hardware_id"], "x": s["batch_size"][mask].tolist(),
                         "y": s["tokens_per_s"][mask].tolist(), "mode": "lines",
                         "line": {"color": c, "dash": dash, "width": 2},
                         "hovertemplate": f"{r['hardware_name']}<br>B=%{{x}}: %{{y:,.0f}} tok/s<extra></extra>"})
        maxb = r["memory"]["max_batch_size"]
        if 1 <= maxb <= s["batch_size"][-1]:
            idx = int(min(range(len(s["batch_size"])), key=lambda j: abs(s["batch_size"][j] - maxb)))
            data.append({"type": "scatter", "uid": f"throughput|{r['hardware_id']}|max", "showlegend": False,
                         "x": [maxb], "y": [float(s["tokens_per_s"][idx])], "mode": "markers",
                         "marker": {"color": c, "symbol": "x", "size": 10},
                         "hovertemplate": t("max_batch", lang, n=maxb) + "<extra></extra>"})
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    layout.update({"xaxis": {"type": "log", "title": {"text": t("batch_axis", lang)}, "gridcolor": colors["grid"]},
                   "yaxis": {"type": "log", "title": {"text": t("tokens_axis", lang)}, "gridcolor": colors["grid"]},
                   "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                   "height": 320, "margin": {"l": 70, "r": 20, "t": 30, "b": 45}})
    return {"data": data, "layout": layout}


def ops_rows(result: dict) -> list[dict]:
    """Rows of the ops table for one accelerator's decode step."""
    d = result["decode"]
    return [{"op": o["name"], "unit": o["unit"], "flops": o["flops"], "bytes": o["bytes"],
             "intensity": round(o["intensity"], 4), "bound": o["bound"], "time_us": round(o["time_s"] * 1e6, 3),
             "share": round(o["time_s"] / d["time_s"], 4)} for o in d["ops"]]


def comparison_rows(results: list[dict]) -> list[dict]:
    """Decode tokens/s, prefill TTFT bound and max batch, each as a ratio to the first accelerator."""
    base = results[0]
    rows = []
    for r in results:
        tps, ttft, maxb = r["decode"]["tokens_per_s"], r["prefill"]["time_s"], r["memory"]["max_batch_size"]
        b_maxb = base["memory"]["max_batch_size"]
        rows.append({"gpu": r["hardware_name"],
                     "decode": f"{grouped(tps)} ({tps / base['decode']['tokens_per_s']:.2f}x)",
                     "ttft": f"{duration(ttft)} ({base['prefill']['time_s'] / ttft:.2f}x)",
                     "maxb": f"{maxb} ({(maxb / b_maxb):.2f}x)" if b_maxb else str(maxb)})
    return rows
