"""The Serving page's second chart: TPOT and TTFT against concurrency (bound, estimate,
measured runs, the fitted estimate and the user's own runs), and below them the running batch and the queue; the
concurrency where memory, not compute, starts to cap the running batch is marked per
accelerator. Formatting only: every number is a field of compute()'s results."""

from __future__ import annotations

from app.dashboard.components.plot_style import THEMES, card_slots, color_for
from app.dashboard.lib.markup import hover_text, legend_names
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.axes import STACKED, label_log_axis
from app.dashboard.pages.serving.compute import AcceleratorServing
from app.dashboard.pages.serving.figures import (
    _layout,
    fitted_label,
    hover_conc,
    kind_label,
    measured_hover,
    reasons_figure,
    titled_groups,
    unfit_notes,
    yours_hover,
    yours_symbols,
)
from app.dashboard.pages.serving.words import w
from app.units import plain

ROWS = (("tpot", "y", [0.68, 1.0]), ("ttft", "y2", [0.34, 0.64]), ("requests", "y3", [0.0, 0.28]))
DASH = {"bound": "solid", "estimate": "dash", "fitted": "dot"}


def _series(acc, slot, theme, lang, metric, axis, kind, times=1, mode=None) -> dict:
    """A TPOT or TTFT series; `times` instances sharing each point's concurrency (beside a
    disaggregated deployment, `mode` agg: the names say "aggregated")."""
    pts = acc.points
    values = [p[kind][f"{metric}_s"] * 1e3 for p in pts]
    label = fitted_label(acc, lang) if kind == "fitted" else kind_label(kind, lang, mode)
    return {
        "type": "scatter",
        "mode": "lines",
        "uid": uid("latency", acc.id, f"{metric}-{kind}"),
        # the legend's one entry per kind shows and hides both rows (its group): named for both
        "name": f"{acc.name} · {label}" if metric == "tpot" else f"{acc.name} · {metric.upper()} {label}",
        "legendgroup": acc.id,
        "showlegend": metric == "tpot",
        "x": [p["concurrency"] * times for p in pts],
        "y": values,
        "yaxis": axis,
        "text": [
            hover_text(
                [
                    f"<b>{acc.name}</b> · {metric.upper()} {label}: {plain(v)} ms",
                    hover_conc(p, lang, times),
                    *([f"{w('srv_queued', lang)}: {p['queued']:,}"] if p["queued"] else []),
                    *([w("srv_hover_at_bound", lang)] if p[kind].get("at_bound") else []),
                ]
            )
            for p, v in zip(pts, values, strict=True)
        ],  # fmt: skip
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": color_for(slot, theme), "dash": DASH[kind], "width": 2.5 if kind == "bound" else 2},
    }


def _runs(acc, slot, theme, lang, metric, axis, kind: str, times: int = 1, mode=None) -> dict:
    """The shipped measured runs (`measured`, diamonds) or the user's (`yours`, stars; an x
    for one left out of the fit) at their concurrencies."""
    mine = kind == "yours"
    items = acc.yours if mine else acc.measured
    marker = {"color": color_for(slot, theme), "size": 10, "symbol": yours_symbols(acc), "line": {"width": 1.5}}
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("latency", acc.id, f"{metric}-{kind}"),
        "name": f"{acc.name} · {metric.upper()} {kind_label(kind, lang, mode)}",
        "legendgroup": acc.id,
        "showlegend": False,
        "x": [(r.run.scenario.concurrency if mine else r.run.row.scenario.concurrency) * times for r in items],
        "y": [r.measured[f"{metric}_s"] * 1e3 for r in items],
        "yaxis": axis,
        "text": [yours_hover(acc.name, r, lang) if mine else measured_hover(acc.name, r, lang) for r in items],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": marker if mine else {"color": color_for(slot, theme), "size": 8, "symbol": "diamond"},
    }


def _requests(acc, slot, theme, lang, times: int = 1, mode=None) -> list[dict]:
    pts = acc.points
    out = []
    for key, dash in (("running_batch", "solid"), ("queued", "dot")):
        label = kind_label("running" if key == "running_batch" else "queued", lang, mode)
        out.append(
            {
                "type": "scatter",
                "mode": "lines",
                "uid": uid("latency", acc.id, key.replace("_", "-")),
                "name": f"{acc.name} · {label}",
                "legendgroup": acc.id,
                "x": [p["concurrency"] * times for p in pts],
                "y": [p[key] * times for p in pts],
                "yaxis": "y3",
                "text": [hover_text([f"<b>{acc.name}</b> · {label}: {p[key] * times:,}"]) for p in pts],
                "hovertemplate": "%{text}<extra></extra>",
                "line": {"color": color_for(slot, theme), "dash": dash, "width": 1.5},
            }
        )
    return out


def _cap_mark(acc: AcceleratorServing, slot: int, theme: str, lang: str, times: int = 1, mode=None) -> tuple:
    """A vertical line at the largest running batch memory holds (over `times` instances), and
    its legend entry (the words in the legend, never on the plot: two cards' labels printed
    over each other and over the curves)."""
    color = color_for(slot, theme)
    line = {"color": color, "dash": "dashdot", "width": 1.5}
    cap = acc.max_fits * times
    words = w("srv_memory_cap", lang, n=f"{cap:,}")
    if mode is not None:  # beside a disaggregated deployment: the aggregated instances' cap
        words = f"{w(f'srv_mode_{mode}', lang)} · {words}"
    shape = {"type": "line", "xref": "x", "yref": "paper", "x0": cap, "x1": cap, "y0": 0, "y1": 1}
    entry = {
        "type": "scatter",
        "mode": "lines",
        "uid": uid("latency", acc.id, "memory-cap"),
        "name": f"{acc.name} · "
        + (f"{w(f'srv_mode_{mode}', lang)} · " if mode else "")
        + w("srv_memory_cap", lang, n=f"{cap:,}"),
        "legendgroup": acc.id,
        "x": [None],
        "y": [None],
        "yaxis": "y3",
        "hoverinfo": "skip",
        "line": line,
    }
    return {**shape, "line": line}, entry


def latency_figure(accs, concurrency: int, lang: str, theme: str = "light", present: bool = False, beside=None) -> dict:
    """TTFT, TPOT and the requests against concurrency per accelerator; `beside` (deployment.
    Compared): each deployment too, and the aggregated instances its GPUs hold at their
    summed concurrency."""
    from app.dashboard.pages.serving.disagg_figures import latency_traces

    times, mode = (beside.replicas, "agg") if beside is not None else (1, None)
    data, shapes = [], []
    slots = card_slots([acc.id for acc in accs])  # each card's colour
    for i, acc in enumerate(accs):
        slot = slots[i]
        if beside is not None and not beside.deployments[i].error:
            data += latency_traces(beside.deployments[i], slot, theme, lang, ROWS)
        if acc.error or acc.chosen is None:
            continue
        kinds = ("bound", "estimate", "fitted") if acc.fitted is not None else ("bound", "estimate")
        for metric, axis, _ in ROWS[:2]:
            data += [_series(acc, slot, theme, lang, metric, axis, kind, times, mode) for kind in kinds]
            for kind in ("measured", "yours"):
                if getattr(acc, kind):
                    data.append(_runs(acc, slot, theme, lang, metric, axis, kind, times, mode))
        data += _requests(acc, slot, theme, lang, times, mode)
        shape, entry = _cap_mark(acc, slot, theme, lang, times, mode)
        shapes.append(shape)
        data.append(entry)
    if beside is not None:
        titled_groups(data, {acc.id: acc.name for acc in accs})
    legend_names(data)  # a phone's legend holds each entry
    notes = unfit_notes(accs, theme, lang, beside)
    if notes and not data:  # nothing to draw: the reasons where the chart was
        return reasons_figure(notes, lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    layout = _layout(lang, theme, present)
    base = {"title": {"text": w("srv_axis_conc", lang), "standoff": 8}, "gridcolor": colors["grid"], "anchor": "y3"}
    layout["xaxis"] = label_log_axis(base, [x for t in data for x in t["x"] if x is not None])
    titles = {"tpot": "srv_axis_tpot", "ttft": "srv_axis_ttft", "requests": "srv_axis_requests"}
    for metric, axis, domain in ROWS:
        key = "yaxis" if axis == "y" else f"yaxis{axis[1:]}"
        base = {"title": {"text": w(titles[metric], lang)}, "domain": domain, "gridcolor": colors["grid"]}
        base |= {"anchor": "x", "automargin": True}
        values = [y for t in data if t.get("yaxis") == axis for y in t["y"] if y is not None]
        layout[key] = base if metric == "requests" else label_log_axis(base, values, STACKED)
    shapes.append(_chosen_line(concurrency, colors))
    layout["shapes"] = shapes
    layout["annotations"] = notes
    return {"data": data, "layout": layout}


def _chosen_line(concurrency: int, colors: dict) -> dict:
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": concurrency,
        "x1": concurrency,
        "y0": 0,
        "y1": 1,
        "line": {"color": colors["muted"], "width": 1},
    }
