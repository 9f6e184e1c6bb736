"""Figures as plain functions: engine results in, Plotly figure dicts out.

Dicts rather than go.Figure objects: the same JSON reaches the browser, without plotly's
per-property validation on the slider's hot path (~10x faster to build).
"""

from __future__ import annotations

from app.dashboard.components.plot_style import THEMES, base_layout, card_colors
from app.dashboard.lib.i18n import t
from app.dashboard.lib.markup import hover_box, plotly_names, plotly_text
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.axes import ACROSS, UP, label_log_axis
from app.units import grouped

GIB = 2**30  # memory footprints read in GiB, as nvidia-smi and an "80GB" card mean them


def _capacity_ticks(mem: list[dict], names: list[str], lang: str, colors: dict) -> list[dict]:
    """Each card's capacity, a tick in the text colour; and where a serving engine fills less of
    it (memory_utilization), the usable share, a shorter muted tick."""
    data = []
    data.append(
        {
            "type": "scatter",
            "uid": uid("memory", "capacity"),
            "name": t("capacity", lang),
            "y": names,
            "x": [m["capacity_bytes"] / GIB for m in mem],
            "mode": "markers",
            # in the text colour: a red tick vanished on the red bar of a card that does not fit
            "marker": {"symbol": "line-ns", "size": 26, "line": {"width": 3, "color": colors["font"]}},
            "hovertemplate": f"{t('capacity', lang)} %{{x:.3~g}} GiB<extra>%{{y}}</extra>",
        }
    )
    usable = [m["usable_bytes"] / GIB for m in mem]
    if any(u < m["capacity_bytes"] / GIB for u, m in zip(usable, mem, strict=True)):
        share = t("usable_share", lang, u=f"{mem[0]['usable_bytes'] / mem[0]['capacity_bytes']:.2g}")
        data.append(
            {
                "type": "scatter",
                "uid": uid("memory", "usable"),
                "name": share,
                "y": names,
                "x": usable,
                "mode": "markers",
                # a shorter, muted tick: what fits and max batch are measured against
                "marker": {"symbol": "line-ns", "size": 16, "line": {"width": 3, "color": colors["muted"]}},
                "hovertemplate": f"{share} %{{x:.3~g}} GiB<extra>%{{y}}</extra>",
            }
        )
    return data


def memory_figure(results: list[dict], lang: str = "en", theme: str = "light", present: bool = False) -> dict:
    """Stacked bars of weights / KV cache / activations, in GiB, against each accelerator's
    capacity and the usable share a serving engine fills (capacity x memory_utilization)."""
    colors = THEMES.get(theme, THEMES["light"])
    results = plotly_names(results)  # user text as text, never Plotly markup
    mem = [r["memory"] for r in results]
    names = [
        f"{r['hardware_name']}<br>{t('max_batch', lang, n=grouped(m['max_batch_size']))}"
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
                "x": [m[field] / GIB for m in mem],
                "marker": {"color": [o or color for o in over] if key == "kv_cache" else color},
                "hovertemplate": f"{t(key, lang)} %{{x:.3~g}} GiB<extra>%{{y}}</extra>",
            }
        )
    data += _capacity_ticks(mem, names, lang, colors)
    layout = base_layout(lang, theme, present)
    # the legend one entry to a row, each row counted: in rows, Plotly ran the entries over each
    # other in the side column (names longer than their share) and cut the last one off
    legend_rows = len(data) * (30 if present else 20)
    layout.update(
        {
            "barmode": "stack",
            # the legend (three parts, the capacity and the usable share) at the foot, under the
            # axis: above the bars, in a narrow side column, it stood in a tall column over the plot
            "margin": {"l": 200 if present else 130, "r": 10, "t": 10, "b": 40 + legend_rows},
            "legend": {
                "orientation": "v",
                "yref": "container",
                "y": 0,
                "yanchor": "bottom",
                "x": 0,
                "itemsizing": "constant",
                "tracegroupgap": 0,
                "font": {"size": 16 if present else 11},
            },
            "xaxis": {
                "title": {"text": t("memory_axis", lang), "standoff": 8},
                "gridcolor": colors["grid"],
                "tickformat": "~g",
                "tickangle": 0,  # rotated labels sat on the axis title
                "nticks": 4,  # at most four labels: presentation mode's 20 px digits ran together ("0100200")
                "automargin": True,
            },
            # the margin holds the whole accelerator name ("B200 (HGX B200, per GPU)" was cut)
            "yaxis": {"autorange": "reversed", "automargin": True},
            "height": 80 + legend_rows + (80 if present else 45) * len(results),
        }
    )
    return {"data": data, "layout": layout}


# ticks at 1-2-5 steps written in full, never Plotly's lone minor digits on a short log range
# ("5 2 1000 5 2" up the tokens/s axis)
LOG_TICKS = {"tickformat": ",~r", "dtick": "D2"}


def throughput_figure(
    sweeps: dict[str, dict], results: list[dict], lang: str = "en", theme: str = "light", present: bool = False
) -> dict:
    """Decode tokens/s bound against batch size; the line turns dotted where it stops fitting."""
    data = []
    hues = card_colors([r["hardware_id"] for r in results], theme)
    for i, r in enumerate(plotly_names(results)):
        s = sweeps[r["hardware_id"]]
        c = hues[i]
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
                    "hovertemplate": hover_box(f"{r['hardware_name']}<br>B=%{{x}}: %{{y:,.0f}} tok/s"),
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
                    "hovertemplate": hover_box(t("max_batch", lang, n=grouped(maxb))),
                }
            )
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    layout.update(
        {
            # labelled 1-2-5 over a few decades, else the decades alone: batch 1 to 2,048 in 1-2-5
            # ("100" "200", "500" "1,000") overlapped on a phone (serving.axes)
            "xaxis": label_log_axis(
                {"title": {"text": t("batch_axis", lang)}, "gridcolor": colors["grid"]},
                [x for trace in data for x in trace["x"]],
                ACROSS,
            ),
            "yaxis": label_log_axis(
                {"title": {"text": t("tokens_axis", lang)}, "gridcolor": colors["grid"]},
                [y for trace in data for y in trace["y"]],
                UP,
            ),
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
            "height": 320,
            "margin": {"l": 70, "r": 20, "t": 30, "b": 45},
        }
    )
    return {"data": data, "layout": layout}


def _current_point(r: dict, c: str, lang: str) -> dict:
    """The current batch on the interactivity curve: solid where it fits in memory, hollow where
    it does not, as the roofline draws the same decode point (figures.marker_style)."""
    hw, q = r["hardware_id"], r.get("request")
    tpot = q["tpot_s"] if q else r["decode"]["time_s"]
    per_gpu = (q["output_tokens_per_s"] if q else r["decode"]["tokens_per_s"]) / r["tensor_parallel"]
    solid = {"color": c, "line": {"color": "#ffffff", "width": 1}}
    style = solid if r["memory"]["fits"] else {"color": "rgba(0,0,0,0)", "line": {"color": c, "width": 2}}
    return {
        "type": "scatter",
        "uid": uid("interactivity", hw, "current"),
        "name": r["hardware_name"],
        "legendgroup": hw,
        "showlegend": False,
        "x": [1.0 / tpot],
        "y": [per_gpu],
        "mode": "markers",
        "marker": {"size": 11, "symbol": "circle", **style},
        "hovertemplate": hover_box(
            f"{r['hardware_name']} · {t('current_batch', lang)}<br>"
            f"{t('per_user_axis', lang)}: %{{x:,.0f}}<br>{t('per_gpu_axis', lang)}: %{{y:,.0f}}"
        ),
    }


def _no_fit(r: dict, lang: str) -> str:
    """'DeepSeek-V3 on H100: one sequence does not fit at TP 1; the smallest that fits is TP 8.'"""
    n = r["memory"]["min_tensor_parallel"]
    name = plotly_text(r["hardware_name"])
    if n:
        return t("no_fit_tp", lang, hw=name, tp=r["tensor_parallel"], n=n)
    return t("no_fit_any", lang, hw=name, tp=r["tensor_parallel"])


def interactivity_figure(
    curves: dict[str, dict], results: list[dict], lang: str = "en", theme: str = "light", present: bool = False
) -> dict:
    """Output tokens/s per GPU against tokens/s per user (1 / TPOT) along batch 1 .. the largest
    batch that fits, one curve per accelerator, the current batch marked: past the knee the
    group's throughput stops rising while every user waits longer (Pope et al. 2022, Efficiently
    Scaling Transformer Inference)."""
    data = []
    hues = card_colors([r["hardware_id"] for r in results], theme)
    for i, r in enumerate(plotly_names(results)):
        hw, c = r["hardware_id"], hues[i]
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
                "hovertemplate": hover_box(
                    f"{r['hardware_name']}<br>B = %{{customdata}}<br>"
                    f"{t('per_user_axis', lang)}: %{{x:,.0f}}<br>{t('per_gpu_axis', lang)}: %{{y:,.0f}}"
                ),
            }
        )
        data.append(_current_point(r, c, lang))
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    # a card with no curve says why, in words: not even one sequence fits at this TP degree
    unfit = [_no_fit(r, lang) for r in results if not len((curves.get(r["hardware_id"]) or {}).get("batch_size", []))]
    if unfit:
        layout["annotations"] = [
            {"text": "<br>".join(unfit), "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False}
        ]
    layout.update(
        {
            "xaxis": {
                "type": "log",
                "title": {"text": t("per_user_axis", lang)},
                "gridcolor": colors["grid"],
                "automargin": True,
                **LOG_TICKS,
            },
            "yaxis": {
                "type": "log",
                "title": {"text": t("per_gpu_axis", lang)},
                "gridcolor": colors["grid"],
                "automargin": True,
                **LOG_TICKS,
            },
            "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
            "height": 320,
            "margin": {"l": 70, "r": 20, "t": 30, "b": 45},
        }
    )
    if not data:  # nothing to draw: the sentence alone, not bare (empty log) axes under it
        layout["xaxis"] = {"visible": False}
        layout["yaxis"] = {"visible": False}
    return {"data": data, "layout": layout}
