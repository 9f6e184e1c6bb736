"""The Serving page's two charts, from compute()'s results (formatting only):

- throughput against interactivity: output tokens/s per GPU against tokens/s per user over
  concurrency 1 to the memory cap, per accelerator: the bound as a line, the estimate as a
  line with its range shaded, the shipped measured runs as points, the fitted estimate and
  the user's own runs ("yours") where the link's fit applies, the chosen concurrency marked;
- latency against concurrency: TPOT and TTFT (bound, estimate, measured) and the running
  batch and the queue, with the concurrency where memory starts to cap the batch marked.

Trace uids are CSS-safe (lib/uids.py): `serving--<hw>--bound|estimate|band|measured|fitted|yours|chosen`.
"""

from __future__ import annotations

from app.dashboard.components.plot_style import THEMES, base_layout, color_for
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.axes import ACROSS, UP, label_log_axis
from app.dashboard.pages.serving.compute import AcceleratorServing, MeasuredPoint
from app.dashboard.pages.serving.fit import YourRun
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.words import run_description, unfit_sentence, w, wrap
from app.units import plain

TPS_GPU, TPS_USER = "output_tokens_per_s_per_gpu", "tokens_per_s_per_user"
REASON_LINE_UNITS = 56  # a reason's line where the chart was: holds in a phone's 330 px at 13 px


def signed_pct(fraction: float) -> str:
    return f"{fraction * 100:+.0f}%"


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def _capped(acc: AcceleratorServing) -> list[dict]:
    """The sweep's points up to the memory cap (the throughput chart's range)."""
    return [p for p in acc.points if p["queued"] == 0]


def _hover_point(name: str, label: str, p: dict, rates: dict, lang: str) -> str:
    lines = [
        f"<b>{name}</b> · {label}",
        w("srv_hover_conc", lang, c=f"{p['concurrency']:,}", run=f"{p['running_batch']:,}"),
        f"{plain(rates[TPS_USER])} {w('srv_unit_user', lang)} · {plain(rates[TPS_GPU])} {w('srv_unit_gpu', lang)}",
        f"TPOT {_ms(rates['tpot_s'])} ms · TTFT {_ms(rates['ttft_s'])} ms",
    ]
    if rates.get("at_bound"):  # a fitted number held at the bound, never past it
        lines.append(w("srv_hover_at_bound", lang))
    return "<br>".join(lines)


def fitted_label(acc: AcceleratorServing, lang: str) -> str:
    """ "estimate fitted to your runs", or fitted on another scenario and extrapolated here."""
    return w("srv_fitted" if acc.fit_kind == "here" else "srv_fitted_extrapolated", lang)


def yours_hover(name: str, r: YourRun, lang: str) -> str:
    """One of the user's runs: its line in the paste, concurrency and lengths, its times, and
    the fitted estimate's error on it, or that it is faster than the bound and left out."""
    sc, m = r.run.scenario, r.measured
    lines = [
        f"<b>{name}</b> · {w('srv_yours', lang)} · {w('srv_yours_line', lang, line=r.run.line)}",
        w("srv_hover_run", lang, c=f"{sc.concurrency:,}", isl=f"{sc.input_tokens:,}", osl=f"{sc.output_tokens:,}"),
        f"TPOT {_ms(m['tpot_s'])} ms · TTFT {_ms(m['ttft_s'])} ms",
    ]
    if r.faster_than_bound:
        lines.append(w("srv_hover_breach", lang, fields=", ".join(f.upper() for f in r.faster_than_bound)))
    elif r.fitted is not None:
        errors = {k: signed_pct(r.fitted[f"{k}_s"] / m[f"{k}_s"] - 1) for k in ("tpot", "ttft")}
        lines.append(w("srv_hover_fitted_errors", lang, **errors))
    return "<br>".join(lines)


def yours_symbols(acc: AcceleratorServing) -> list[str]:
    """A fitted run a star, a run left out (faster than the bound) an x."""
    return ["x-thin-open" if r.faster_than_bound else "star" for r in acc.yours]


def measured_hover(name: str, m: MeasuredPoint, lang: str) -> str:
    """A measured run: its concurrency, lengths, backend and version, source, and the
    estimate's error on it."""
    sc = m.run.row.scenario
    lines = [
        f"<b>{name}</b> · {w('srv_measured', lang)}",
        w("srv_hover_run", lang, c=f"{sc.concurrency:,}", isl=f"{sc.input_tokens:,}", osl=f"{sc.output_tokens:,}"),
        f"TPOT {_ms(m.measured['tpot_s'])} ms · TTFT {_ms(m.measured['ttft_s'])} ms",
        w("srv_hover_error", lang, tpot=signed_pct(m.tpot_error), ttft=signed_pct(m.ttft_error)),
    ]
    if m.fitted_tpot_error is not None:
        lines.append(w("srv_hover_fitted_error", lang, tpot=signed_pct(m.fitted_tpot_error)))
    # which run, in words (its raw id is in the CSV and JSON exports), and where it comes from
    lines.append(run_description(m.run, lang))
    lines.append(w("srv_hover_source", lang, source=SOURCE))
    return "<br>".join(lines)


def _line(acc, i, kind, xs, ys, texts, theme, lang, dash, width=2, label=None) -> dict:
    """A series over the sweep; customdata: each point's concurrency."""
    return {
        "customdata": [p["concurrency"] for p in _capped(acc)],
        "type": "scatter",
        "mode": "lines",
        "uid": uid("serving", acc.id, kind),
        "name": f"{acc.name} · {label or w(f'srv_{kind}', lang)}",
        "legendgroup": acc.id,
        "x": xs,
        "y": ys,
        "text": texts,
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": color_for(i, theme), "dash": dash, "width": width},
    }


def _band(acc: AcceleratorServing, i: int, theme: str, lang: str, pts: list[dict]) -> dict:
    """The estimate's range (its TPOT range: p10-p90 of the training residuals) as a shaded
    polygon: along the fast edge, back along the slow one."""
    gpus = acc.chosen["gpus"]
    fast = [
        (1 / p["estimate"]["tpot_s_range"][0], p["running_batch"] / p["estimate"]["tpot_s_range"][0] / gpus)
        for p in pts
    ]
    slow = [
        (1 / p["estimate"]["tpot_s_range"][1], p["running_batch"] / p["estimate"]["tpot_s_range"][1] / gpus)
        for p in pts
    ]
    ring = fast + slow[::-1]
    return {
        "type": "scatter",
        "mode": "lines",
        "uid": uid("serving", acc.id, "band"),
        "name": f"{acc.name} · {w('srv_band', lang)}",
        "legendgroup": acc.id,
        "x": [x for x, _ in ring],
        "y": [y for _, y in ring],
        "fill": "toself",
        "fillcolor": _alpha(color_for(i, theme), 0.15),
        "line": {"width": 0, "color": color_for(i, theme)},
        "hoverinfo": "skip",
    }


def _alpha(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _measured_trace(acc, i, theme, lang, x_of, y_of, kind="measured", row=None) -> dict:
    trace = {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("serving", acc.id, kind),
        "name": f"{acc.name} · {w('srv_measured', lang)}",
        "legendgroup": acc.id,
        "customdata": [m.run.row.scenario.concurrency for m in acc.measured],
        "x": [x_of(m) for m in acc.measured],
        "y": [y_of(m) for m in acc.measured],
        "text": [measured_hover(acc.name, m, lang) for m in acc.measured],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"color": color_for(i, theme), "size": 9, "symbol": "diamond", "line": {"width": 1, "color": "#fff"}},
    }
    return trace


def _yours_trace(acc: AcceleratorServing, i: int, theme: str, lang: str) -> dict:
    """The user's runs of this scenario, each at its own concurrency's running batch."""
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("serving", acc.id, "yours"),
        "name": f"{acc.name} · {w('srv_yours', lang)}",
        "legendgroup": acc.id,
        "customdata": [r.run.scenario.concurrency for r in acc.yours],
        "x": [r.measured[TPS_USER] for r in acc.yours],
        "y": [r.measured[TPS_GPU] for r in acc.yours],
        "text": [yours_hover(acc.name, r, lang) for r in acc.yours],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"color": color_for(i, theme), "size": 11, "symbol": yours_symbols(acc), "line": {"width": 1.5}},
    }


def _chosen(acc: AcceleratorServing, i: int, theme: str, lang: str, concurrency: int) -> dict:
    """The chosen concurrency on the bound, the estimate and (when one ran there) the measured run."""
    marks = [("bound", acc.chosen["bound"]), ("estimate", acc.chosen["estimate"])]
    marks += [("measured", m.measured) for m in acc.measured if m.run.row.scenario.concurrency == concurrency][:1]
    if acc.fitted is not None:
        marks.append(("fitted", acc.fitted))
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("serving", acc.id, "chosen"),
        "name": f"{acc.name} · {w('srv_chosen', lang, c=f'{concurrency:,}')}",
        "legendgroup": acc.id,
        "showlegend": False,
        "x": [r[TPS_USER] for _, r in marks],
        "y": [r[TPS_GPU] for _, r in marks],
        "text": [
            f"<b>{acc.name}</b> · {w(f'srv_{k}', lang)} · {w('srv_chosen', lang, c=f'{concurrency:,}')}<br>"
            f"{plain(r[TPS_USER])} {w('srv_unit_user', lang)} · {plain(r[TPS_GPU])} {w('srv_unit_gpu', lang)}"
            for k, r in marks
        ],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"size": 16, "symbol": "circle-open", "color": color_for(i, theme), "line": {"width": 2.5}},
    }


def throughput_figure(accs, concurrency: int, lang: str, theme: str = "light", present: bool = False) -> dict:
    """Output tokens/s per GPU against tokens/s per user, per accelerator."""
    data = []
    for i, acc in enumerate(accs):
        if acc.error or acc.chosen is None:
            continue
        pts = _capped(acc)
        xs = {k: [p[k][TPS_USER] for p in pts] for k in ("bound", "estimate")}
        ys = {k: [p[k][TPS_GPU] for p in pts] for k in ("bound", "estimate")}
        texts = {k: [_hover_point(acc.name, w(f"srv_{k}", lang), p, p[k], lang) for p in pts] for k in xs}
        data.append(_band(acc, i, theme, lang, pts))
        data.append(_line(acc, i, "bound", xs["bound"], ys["bound"], texts["bound"], theme, lang, "solid", 2.5))
        data.append(_line(acc, i, "estimate", xs["estimate"], ys["estimate"], texts["estimate"], theme, lang, "dash"))
        if acc.fitted is not None:
            label = fitted_label(acc, lang)
            fx = [p["fitted"][TPS_USER] for p in pts]
            fy = [p["fitted"][TPS_GPU] for p in pts]
            ft = [_hover_point(acc.name, label, p, p["fitted"], lang) for p in pts]
            data.append(_line(acc, i, "fitted", fx, fy, ft, theme, lang, "dot", 3, label))
        if acc.measured:
            data.append(
                _measured_trace(acc, i, theme, lang, lambda m: m.measured[TPS_USER], lambda m: m.measured[TPS_GPU])
            )
        if acc.yours:
            data.append(_yours_trace(acc, i, theme, lang))
        data.append(_chosen(acc, i, theme, lang, concurrency))
    layout = _layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    for axis, key, values, two_five in (
        ("xaxis", "srv_axis_user", [x for t in data for x in t["x"]], ACROSS),
        ("yaxis", "srv_axis_gpu", [y for t in data for y in t["y"]], UP),
    ):
        base = {"title": {"text": w(key, lang), "standoff": 8}, "gridcolor": colors["grid"]}
        layout[axis] = label_log_axis(base, values, two_five)
    notes = unfit_notes(accs, theme, lang)
    if notes and not data:  # nothing to draw: the reasons where the chart was
        return reasons_figure(notes, lang, theme, present)
    layout["annotations"] = notes
    return {"data": data, "layout": layout}


def reasons_figure(notes: list[dict], lang: str, theme: str, present: bool) -> dict:
    """No accelerator answers: each one's reason, wrapped, where the chart would be (no axes,
    no empty grid), in the theme's colours."""
    layout = base_layout(lang, theme, present)
    layout["xaxis"], layout["yaxis"] = {"visible": False}, {"visible": False}
    layout["margin"] = {"l": 20, "r": 20, "t": 20, "b": 20}
    text = "<br><br>".join("<br>".join(wrap(n["text"], REASON_LINE_UNITS)) for n in notes)
    layout["annotations"] = [
        {"text": text, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False, "align": "left"}
    ]
    return {"data": [], "layout": layout}


def unfit_notes(accs, theme: str, lang: str) -> list[dict]:
    """Each accelerator that gives no answer says why, at the top of the chart in its colour."""
    notes = []
    for i, acc in enumerate(accs):
        if acc.error is None:
            continue
        notes.append(
            {
                "text": unfit_sentence(acc, lang),
                "xref": "paper",
                "yref": "paper",
                "x": 0.01,
                "y": 0.99 - 0.07 * len(notes),
                "xanchor": "left",
                "yanchor": "top",
                "align": "left",
                "showarrow": False,
                "font": {"color": THEMES.get(theme, THEMES["light"])["font"]},
                "bgcolor": _alpha(color_for(i, theme), 0.12),
            }
        )
    return notes


def _layout(lang: str, theme: str, present: bool) -> dict:
    layout = base_layout(lang, theme, present)
    layout["margin"] = {"l": 70, "r": 36, "t": 20, "b": 40}
    # at the foot of the figure, pinned to it (not to the plot, whose height varies): Plotly
    # grows the bottom margin to hold it, under the x axis's labels and title
    layout["legend"] = {
        "orientation": "h",
        "yref": "container",
        "y": 0,
        "yanchor": "bottom",
        "x": 0,
        "font": {"size": 16 if present else 11},
    }
    layout["modebar"] = {"orientation": "v"}  # beside the plot, clear of its top
    layout["hoverlabel"] = {"align": "left"}
    return layout
