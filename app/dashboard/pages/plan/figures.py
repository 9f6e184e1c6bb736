"""The Planner page's charts, from the engine's answer (formatting only):

- the frontier: output tokens/s per GPU against tokens/s per user on log axes, one Pareto
  frontier per (accelerator, mode) (aggregated solid, disaggregated dashed) with its band from
  the candidates' p10-p90 ranges, the shipped measured runs as points, the target as a shaded
  region (right of 1 / TPOT target: every user at least that fast) and the best as a star;
- the accelerators side by side at the same target: the best tokens/s per GPU (with its
  range) and, with prices, its USD per million output tokens.

Trace uids are CSS-safe (lib/uids.py): `plan--target`, `plan--best`, `plan--<hw>--<mode>`,
`plan--<hw>--<mode>--band`, `plan--<hw>--measured`. The region and the star come at
the first and last places, so a target's move redraws them alone (`target_marks`).
"""

from __future__ import annotations

import math

from app.dashboard.components.plot_style import THEMES, base_layout, card_colors, foot_legend
from app.dashboard.lib.markup import hover_text, plotly_text, wrap
from app.dashboard.lib.uids import uid
from app.dashboard.pages.plan.measured import SOURCE, MeasuredRun
from app.dashboard.pages.plan.words import backend_name, deployment, mode_name, ms, rate, usd, w
from app.dashboard.pages.serving.axes import ACROSS, label_log_axis
from app.dashboard.pages.serving.figures import titled_groups
from engine.planner import MODES

# The target's region is drawn first (under everything) and the best's star last (over
# everything): their places in `data`, which a target's move redraws alone (13-plan.js). No
# zorder: Plotly.animate of a trace in one zorder layer removed the other layers' traces.
REGION = 0
FAR = 1e12  # the region's far edges, past any axis (the plot clips them)
STAR_COLOR = {"light": "#E69F00", "dark": "#DDCC77"}
STAR_PAD = 0.05  # decades kept beyond a star that left the drawn axes
UP_SHORT = 2.0  # decades up the y axis still labelled 1-2-5 (serving.axes: UP is 3.2)


def _alpha(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def candidate_hover(c: dict, name: str, lang: str) -> str:
    """A candidate: its accelerator and mode, how it spends the GPUs, its concurrency, TTFT and
    TPOT with their ranges, tokens/s, $/Mtok and memory headroom, all estimates."""
    est = c["estimate"]
    lo, hi = est["output_tokens_per_s_per_gpu_range"]
    lines = [
        f"<b>{name}</b> · {mode_name(c['mode'], lang)} · {w('plan_estimate', lang)}",
        plotly_text(deployment(c, lang)),
        w("plan_hover_conc", lang, c=f"{c['concurrency']:,}", run=f"{c['running_batch']:,}", gpus=c["gpus"]),
        w("plan_hover_ttft", lang, v=ms(est["ttft_s"]), lo=ms(est["ttft_s_range"][0]), hi=ms(est["ttft_s_range"][1])),
        w("plan_hover_tpot", lang, v=ms(est["tpot_s"]), lo=ms(est["tpot_s_range"][0]), hi=ms(est["tpot_s_range"][1])),
        w("plan_hover_rates", lang, gpu=rate(est["output_tokens_per_s_per_gpu"]), lo=rate(lo), hi=rate(hi),
          user=rate(est["tokens_per_s_per_user"])),
        _cost_line(c, lang),
        f"{backend_name(c['backend'], lang)} · {c['precision']}",
    ]  # fmt: skip
    return hover_text(lines)


def _cost_line(c: dict, lang: str) -> str:
    """$/Mtok where a price was given (no "$—"), and the memory the candidate leaves free."""
    # an aggregated instance's headroom is of its usable memory, a disaggregated one's of its decode KV cache
    room = {"pct": f"{c['memory_headroom']:.0%}", "what": w(f"plan_headroom_{c['mode']}", lang)}
    if c["usd_per_million_tokens"] is None:
        return w("plan_hover_headroom", lang, **room)
    return w("plan_hover_cost", lang, usd=usd(c["usd_per_million_tokens"]), **room)


def measured_hover(run: MeasuredRun, name: str, budget: int, lang: str) -> str:
    sc = run.row.scenario
    lines = [
        f"<b>{name}</b> · {w('plan_measured', lang)} · {mode_name(run.mode, lang)}",
        w("plan_hover_measured_layout", lang, layout=plotly_text(run.layout_words()), gpus=run.gpus),
        w("plan_hover_measured_times", lang, c=f"{sc.concurrency:,}", tpot=ms(run.row.tpot_s), ttft=ms(run.row.ttft_s)),
        w("plan_hover_measured_rates", lang, gpu=rate(run.tokens_per_s_per_gpu), user=rate(run.tokens_per_s_per_user)),
        f"{backend_name(run.row.backend, lang)} · {run.precision}",
    ]  # fmt: skip
    if run.gpus > budget:
        lines.append(w("plan_hover_beyond", lang, gpus=run.gpus, budget=budget))
    lines.append(w("plan_hover_source", lang, source=SOURCE))
    return hover_text(lines)


def _xy(c: dict) -> tuple[float, float]:
    est = c["estimate"]
    return est["tokens_per_s_per_user"], est["output_tokens_per_s_per_gpu"]


def _band(points: list[dict], uid_: str, color: str, name: str) -> dict:
    """The frontier's range: along its fast edge (each point at the low end of its TPOT
    range), back along the slow edge."""
    fast = [
        (1 / c["estimate"]["tpot_s_range"][0], c["estimate"]["output_tokens_per_s_per_gpu_range"][1]) for c in points
    ]
    slow = [
        (1 / c["estimate"]["tpot_s_range"][1], c["estimate"]["output_tokens_per_s_per_gpu_range"][0]) for c in points
    ]
    ring = fast + slow[::-1]
    return {
        "type": "scatter",
        "mode": "lines",
        "uid": uid_,
        "name": name,
        "x": [x for x, _ in ring],
        "y": [y for _, y in ring],
        "fill": "toself",
        "fillcolor": _alpha(color, 0.12),
        "line": {"width": 0, "color": color},
        "hoverinfo": "skip",
        "showlegend": False,
    }


def frontier_traces(answer: dict, names: dict[str, str], theme: str, lang: str) -> list[dict]:
    """Per accelerator and mode searched: the band and the frontier line."""
    out = []
    hues = card_colors(answer["hardware"], theme)
    for i, hw in enumerate(answer["hardware"]):
        color = hues[i]
        for mode in MODES:
            points = [c for c in answer["frontier"].get(mode, []) if c["hardware"] == hw]
            if not points:
                continue
            label = w("plan_frontier", lang, hw=names[hw], mode=mode_name(mode, lang))
            out.append(_band(points, uid("plan", hw, mode, "band"), color, label))
            out.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "uid": uid("plan", hw, mode),
                    "name": label,
                    "legendgroup": hw,  # titled by the card's name once (serving.figures.titled_groups)
                    "x": [_xy(c)[0] for c in points],
                    "y": [_xy(c)[1] for c in points],
                    "text": [candidate_hover(c, names[hw], lang) for c in points],
                    "hovertemplate": "%{text}<extra></extra>",
                    "line": {"color": color, "width": 2.5, "dash": "solid" if mode == "aggregated" else "dash"},
                    "marker": {"color": color, "size": 5},
                }
            )
    return out


def measured_traces(runs: dict[str, tuple], names: dict[str, str], budget: int, theme: str, lang: str) -> list[dict]:
    """The shipped runs per accelerator: a diamond aggregated, a square disaggregated; hollow
    when the run used more GPUs than the budget (its rate per GPU still compares)."""
    out = []
    hues = card_colors(list(runs), theme)
    for i, (hw, shown) in enumerate(runs.items()):
        if not shown:
            continue
        color = hues[i]
        symbols = [
            ("diamond" if r.mode == "aggregated" else "square") + ("-open" if r.gpus > budget else "") for r in shown
        ]
        out.append(
            {
                "type": "scatter",
                "mode": "markers",
                "uid": uid("plan", hw, "measured"),
                "name": _measured_name(shown, names[hw], budget, lang),
                "legendgroup": hw,
                "x": [r.tokens_per_s_per_user for r in shown],
                "y": [r.tokens_per_s_per_gpu for r in shown],
                "text": [measured_hover(r, names[hw], budget, lang) for r in shown],
                "hovertemplate": "%{text}<extra></extra>",
                "marker": {"color": color, "size": 9, "symbol": symbols, "line": {"width": 1.5, "color": color}},
            }
        )
    return out


def _measured_name(shown: tuple, name: str, budget: int, lang: str) -> str:
    """The legend says what a hollow marker is when there is one (the hover alone said it)."""
    if any(r.gpus > budget for r in shown):
        return w("plan_measured_name_hollow", lang, hw=name, budget=f"{budget:,}")
    return w("plan_measured_name", lang, hw=name)


def region_trace(answer: dict, theme: str, lang: str) -> dict:
    """Every deployment whose users each get at least 1 / TPOT target tokens/s: right of it.
    With one output token no TPOT target applies (engine.planner.applied_tpot_target): every
    deployment meets it, and the region is the whole plot (it had left the star outside)."""
    applied = answer["tpot_target_applied"]
    x0 = 1.0 / answer["targets"]["tpot_s"] if applied else 1 / FAR
    return {
        "type": "scatter",
        "mode": "lines",
        "uid": "plan--target",
        "name": w("plan_region", lang),  # the same at every target: a move redraws no legend
        "x": [x0, FAR, FAR, x0, x0],
        "y": [1 / FAR, 1 / FAR, FAR, FAR, 1 / FAR],
        "fill": "toself",
        "fillcolor": _alpha("#009E73", 0.10 if theme == "light" else 0.16),
        "line": {"width": 1, "color": _alpha("#009E73", 0.8), "dash": "dot"},
        "hoverinfo": "skip",
        "legendrank": 2,
    }


def star_trace(answer: dict, names: dict[str, str], theme: str, lang: str) -> dict:
    best = answer["best"]
    xy = [_xy(best)] if best is not None else []
    name = (
        w("plan_best", lang, hw=names.get(best["hardware"], best["hardware"]), mode=mode_name(best["mode"], lang))
        if best is not None
        else w("plan_best_none", lang)
    )
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": "plan--best",
        "name": name,
        "x": [x for x, _ in xy],
        "y": [y for _, y in xy],
        "text": [candidate_hover(best, names[best["hardware"]], lang)] if best is not None else [],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {
            "symbol": "star",
            "size": 24,
            "color": STAR_COLOR.get(theme, STAR_COLOR["light"]),
            "line": {"width": 1.5, "color": THEMES.get(theme, THEMES["light"])["font"]},
        },
        "legendrank": 1,
    }


def axis_values(data: list[dict]) -> tuple[list[float], list[float]]:
    """The values the axes cover: every trace's but the region's (whose far edges are off the chart)."""
    xs = [x for t in data if t["uid"] != "plan--target" for x in t["x"]]
    ys = [y for t in data if t["uid"] != "plan--target" for y in t["y"]]
    return xs, ys


def frontier_figure(answer, runs, names, budget: int, lang: str, theme: str, present: bool) -> dict:
    """The whole chart (a new search, a new look)."""
    data = [region_trace(answer, theme, lang)]
    data += frontier_traces(answer, names, theme, lang)
    data += measured_traces(runs, names, budget, theme, lang)
    # each card's name once, as its legend group's title: on every entry it ran past a phone's
    # chart ("GB200 (per Blackwell GPU, NVL72) · aggregated (estima")
    titled_groups(data, names)
    data.append(star_trace(answer, names, theme, lang))
    layout = base_layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    xs, ys = axis_values(data)
    # 1-2-5 labels up the y axis over at most two decades: an 800 x 500 embed's short plot
    # stacked "200", "500", "1,000" on each other over three
    for axis, key, values, two_five in (
        ("xaxis", "plan_axis_user", xs, ACROSS),
        ("yaxis", "plan_axis_gpu", ys, UP_SHORT),
    ):
        base = {"title": {"text": w(key, lang), "standoff": 8}, "gridcolor": colors["grid"]}
        layout[axis] = label_log_axis(base, values, two_five)
    layout["margin"] = {"l": 70, "r": 36, "t": 20, "b": 40}
    layout["legend"] = foot_legend(present, groupclick="toggleitem")  # an entry hides itself alone
    layout["modebar"] = {"orientation": "v"}
    layout["hoverlabel"] |= {"align": "left"}
    return {"data": data, "layout": layout}


def drawn_of(figure: dict) -> dict:
    """What a target's move needs of the chart on screen: the star's place in `data` and the
    axes' ranges (log10), kept unless the star falls outside them."""
    out = {axis: figure["layout"][axis].get("range") for axis in ("xaxis", "yaxis")}
    return out | {"star": len(figure["data"]) - 1}


def target_marks(answer: dict, names: dict[str, str], drawn: dict, theme: str, lang: str) -> tuple[dict, dict]:
    """A target moved: the region's and the star's new points, which assets/13-plan.js draws
    on the chart in place (only those two traces: Plotly.react of the whole chart cost ~400 ms
    a step), and the axes' ranges when the star left them. (The marks, the drawn ranges.)"""
    region, star = region_trace(answer, theme, lang), star_trace(answer, names, theme, lang)
    marks = {
        "traces": [REGION, drawn["star"]],
        "region": {"x": region["x"]},
        "star": {key: star[key] for key in ("x", "y", "text", "name")},
        "ranges": None,
    }
    out = dict(drawn)
    for axis, values in (("xaxis", star["x"]), ("yaxis", star["y"])):
        low_high = drawn.get(axis)
        if values and low_high:
            v = math.log10(values[0])
            if not low_high[0] <= v <= low_high[1]:
                out[axis] = [min(low_high[0], v - STAR_PAD), max(low_high[1], v + STAR_PAD)]
    if out != drawn:
        marks["ranges"] = {f"{axis}.range": out[axis] for axis in ("xaxis", "yaxis")}
    return marks, out


def _bars(uid_: str, labels: list[str], values: list, texts: list[str], palette, axes: tuple) -> dict:
    """Horizontal bars, each labelled (at its base, or beside it), its hover text set by the caller."""
    return {
        "type": "bar",
        "orientation": "h",
        "uid": uid_,
        "y": labels,
        "x": [v or 0 for v in values],
        # a space before each value written at the bar's base: it stood against the card's name
        "text": [f"\u00a0{t}" if t else t for t in texts],
        "textposition": "auto",  # inside at the base, or beside a bar too short to hold it
        "insidetextanchor": "start",
        "textangle": 0,
        "marker": {"color": palette},
        "hovertemplate": "%{y}<br>%{hovertext}<extra></extra>",
        "xaxis": axes[0],
        "yaxis": axes[1],
    }


def compare_figure(answer: dict, names: dict[str, str], lang: str, theme: str, present: bool) -> dict:
    """The best per accelerator at the same target: tokens/s per GPU with its p10-p90 range
    as an error bar and, when priced, its $/Mtok below; an accelerator with nothing meeting the
    target has no bar and says so in its hover. One chart above the other: a phone holds them."""
    colors = THEMES.get(theme, THEMES["light"])
    hws = answer["hardware"]
    best = answer["best_by_hardware"]
    labels = ["<br>".join(wrap(names[h], 16)) for h in hws]  # a card's long name on lines of its own
    gpu = [best[h]["estimate"]["output_tokens_per_s_per_gpu"] if h in best else None for h in hws]
    low = [best[h]["estimate"]["output_tokens_per_s_per_gpu_range"][0] if h in best else None for h in hws]
    high = [best[h]["estimate"]["output_tokens_per_s_per_gpu_range"][1] if h in best else None for h in hws]
    cost = [best[h]["usd_per_million_tokens"] if h in best else None for h in hws]
    palette = card_colors(hws, theme)
    none = w("plan_compare_none", lang)
    gpu_bars = _bars("plan-compare--gpu", labels, gpu, [rate(v) if v is not None else "" for v in gpu], palette,
                     ("x", "y"))  # fmt: skip
    gpu_bars["hovertext"] = [
        f"{rate(v)} ({rate(lo)}–{rate(hi)})" if v is not None else none
        for v, lo, hi in zip(gpu, low, high, strict=True)
    ]
    gpu_bars["error_x"] = {
        "type": "data",
        "symmetric": False,
        "array": [(hi - v) if v is not None else 0 for v, hi in zip(gpu, high, strict=True)],
        "arrayminus": [(v - lo) if v is not None else 0 for v, lo in zip(gpu, low, strict=True)],
        "color": colors["muted"],
    }
    data = [gpu_bars]
    priced = any(v is not None for v in cost)
    if priced:
        texts = [f"${usd(v)}" if v is not None else "" for v in cost]
        cost_bars = _bars("plan-compare--cost", labels, cost, texts, palette, ("x2", "y2"))
        cost_bars["hovertext"] = [f"${usd(v)}" if v is not None else none for v in cost]
        data.append(cost_bars)
    layout = base_layout(lang, theme, present)
    layout["showlegend"] = False
    layout["margin"] = {"l": 10, "r": 16, "t": 24, "b": 10}
    domains = {"y": [0.58, 1.0], "y2": [0.0, 0.36]} if priced else {"y": [0.0, 1.0]}
    # each chart's title above it, left (a vertical axis title did not fit a phone)
    font = {"size": 16 if present else 12, "color": colors["muted"]}
    layout["annotations"] = [
        {"text": w(key, lang), "xref": "paper", "yref": "paper", "x": 0, "y": domains[y][1], "yanchor": "bottom",
         "xanchor": "left", "showarrow": False, "yshift": 2, "font": font}
        for key, y in (("plan_compare_gpu", "y"), ("plan_compare_cost", "y2"))[: 2 if priced else 1]
    ]  # fmt: skip
    for n, y in (("", "y"), ("2", "y2"))[: 2 if priced else 1]:
        layout[f"xaxis{n}"] = {"automargin": True, "gridcolor": colors["grid"], "rangemode": "tozero", "anchor": y}
        layout[f"yaxis{n}"] = {"automargin": True, "autorange": "reversed", "domain": domains[y], "anchor": f"x{n}"}
    if all(v is None for v in gpu):  # no bar at all: say why, not an empty 0-1 axis
        layout["xaxis"]["showticklabels"] = False
        layout["annotations"].append(
            {"text": none, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False, "font": font}
        )
    return {"data": data, "layout": layout}
