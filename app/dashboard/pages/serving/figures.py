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

from app.dashboard.components.plot_style import THEMES, base_layout, card_slots, color_for, foot_legend
from app.dashboard.lib.markup import hover_text, legend_names, wrap
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.axes import ACROSS, UP, label_log_axis
from app.dashboard.pages.serving.compute import AcceleratorServing, MeasuredPoint
from app.dashboard.pages.serving.disagg_words import recipe_shape
from app.dashboard.pages.serving.fit import YourRun
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.words import run_description, unfit_sentence, w
from app.units import plain

TPS_GPU, TPS_USER = "output_tokens_per_s_per_gpu", "tokens_per_s_per_user"
# a reason's line where the chart was: 24 CJK glyphs of the bundled Noto Sans SC (1 em each)
# at 13 px is 312 px, inside a phone's 328 px plot
REASON_LINE_UNITS = 48


def signed_pct(fraction: float) -> str:
    return f"{fraction * 100:+.0f}%"


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def _capped(acc: AcceleratorServing) -> list[dict]:
    """The sweep's points up to the memory cap (the throughput chart's range)."""
    return [p for p in acc.points if p["queued"] == 0]


def hover_conc(p: dict, lang: str, replicas: int = 1) -> str:
    """A point's concurrency and running batch; `replicas` instances of it sharing the
    deployment's concurrency (the aggregated curve beside a disaggregated one)."""
    if replicas == 1:
        return w("srv_hover_conc", lang, c=f"{p['concurrency']:,}", run=f"{p['running_batch']:,}")
    c, run = p["concurrency"], p["running_batch"]
    return w("srv_hover_conc_replicas", lang, c=f"{c * replicas:,}", r=f"{replicas:,}", each=f"{c:,}", run=f"{run:,}")


def _hover_point(name: str, label: str, p: dict, rates: dict, lang: str, replicas: int = 1) -> str:
    lines = [
        f"<b>{name}</b> · {label}",
        hover_conc(p, lang, replicas),
        f"{plain(rates[TPS_USER])} {w('srv_unit_user', lang)} · {plain(rates[TPS_GPU])} {w('srv_unit_gpu', lang)}",
        f"TPOT {_ms(rates['tpot_s'])} ms · TTFT {_ms(rates['ttft_s'])} ms",
    ]
    if rates.get("at_bound"):  # a fitted number held at the bound, never past it
        lines.append(w("srv_hover_at_bound", lang))
    return hover_text(lines)


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
    return hover_text(lines)


def yours_symbols(acc: AcceleratorServing) -> list[str]:
    """A fitted run a star, a run left out (faster than the bound) an x."""
    return ["x-thin-open" if r.faster_than_bound else "star" for r in acc.yours]


def measured_hover(name: str, m: MeasuredPoint, lang: str, mode: str | None = None) -> str:
    """A measured run: its concurrency, lengths, backend and version, source, the estimate's
    error on it, and where it is faster than its bound (no run can be: said). A disaggregated
    run's (`mode` disagg) tokens/s per GPU come from its own times, and the hover says how."""
    sc = m.run.row.scenario
    lines = [
        f"<b>{name}</b> · {kind_label('measured', lang, mode)}",
        w("srv_hover_run", lang, c=f"{sc.concurrency:,}", isl=f"{sc.input_tokens:,}", osl=f"{sc.output_tokens:,}"),
        f"TPOT {_ms(m.measured['tpot_s'])} ms · TTFT {_ms(m.measured['ttft_s'])} ms",
        _error_words(m, lang),
    ]
    if m.fitted_tpot_error is not None:
        lines.append(w("srv_hover_fitted_error", lang, tpot=signed_pct(m.fitted_tpot_error)))
    if m.faster_than_bound:
        lines.append(w("srv_hover_faster_than_bound", lang, fields=", ".join(f.upper() for f in m.faster_than_bound)))
    if mode == "disagg":
        lines.append(w("srv_hover_loop", lang))
        lines.extend(_workers_words(m.run.row, lang))
    # which run, in words (its raw id is in the CSV and JSON exports), and where it comes from
    lines.append(run_description(m.run, lang))
    lines.append(w("srv_hover_source", lang, source=SOURCE))
    return hover_text(lines)


def _error_words(m: MeasuredPoint, lang: str) -> str:
    """The estimate's error on the run; on a run answered as several deployments (a recipe among
    candidates, a decoding unknown), against the middle of theirs (engine.serving.validate)."""
    errors = {"tpot": signed_pct(m.tpot_error), "ttft": signed_pct(m.ttft_error)}
    spanned = m.estimate.get("deployments", 1)
    if spanned > 1:
        return w("srv_hover_error_spanned", lang, n=spanned, **errors)
    return w("srv_hover_error", lang, **errors)


def _workers_words(row, lang: str) -> list[str]:
    """The hover's words on where a disaggregated run's worker counts come from, and its decoding."""
    if row.workers_from == "assumed":  # the deployment may have more workers than drawn
        words = [w("srv_hover_workers_unrecorded", lang)]
        if row.candidates:  # the recipes `llm-roofline validate serving` answers it for, and spans
            words.append(w("srv_hover_workers_candidates", lang, recipes=", ".join(map(recipe_shape, row.candidates))))
        return words
    if row.workers_from != "recipe":
        return []
    words = [w("srv_hover_workers_recipe", lang)]
    if row.mtp_draft_tokens is not None:
        words.append(w("srv_hover_workers_mtp_drafts", lang, k=row.mtp_draft_tokens))
    elif row.may_run_mtp:
        words.append(w("srv_hover_workers_mtp_unknown", lang))
    return words


def line_trace(hw_id, name, kind, pts, rates_key, texts, slot, theme, dash, width=2, replicas=1) -> dict:
    """A series over the sweep (uid `serving--<hw>--<kind>`); customdata: each point's
    concurrency (times the instances sharing it, beside a disaggregated deployment)."""
    return {
        "customdata": [p["concurrency"] * replicas for p in pts],
        "type": "scatter",
        "mode": "lines",
        "uid": uid("serving", hw_id, kind),
        "name": name,
        "legendgroup": hw_id,
        "x": [p[rates_key][TPS_USER] for p in pts],
        "y": [p[rates_key][TPS_GPU] for p in pts],
        "text": texts,
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": color_for(slot, theme), "dash": dash, "width": width},
    }


def band_trace(hw_id: str, name: str, kind: str, pts: list[dict], slot: int, theme: str, alpha: float = 0.15) -> dict:
    """The estimate's range (its TPOT range: p10-p90 of the training residuals) as a shaded
    polygon: along the fast edge, back along the slow one; at either edge the estimate's
    requests over the edge's TPOT (throughput per GPU x estimate TPOT / edge TPOT)."""

    def edge(k: int) -> list[tuple[float, float]]:
        out = []
        for p in pts:
            est, t = p["estimate"], p["estimate"]["tpot_s_range"][k]
            out.append((1 / t, est[TPS_GPU] * est["tpot_s"] / t))
        return out

    ring = edge(0) + edge(1)[::-1]
    return {
        "type": "scatter",
        "mode": "lines",
        "uid": uid("serving", hw_id, kind),
        "name": name,
        "legendgroup": hw_id,
        "x": [x for x, _ in ring],
        "y": [y for _, y in ring],
        "fill": "toself",
        "fillcolor": _alpha(color_for(slot, theme), alpha),
        "line": {"width": 0, "color": color_for(slot, theme)},
        "hoverinfo": "skip",
    }


def kind_label(kind: str, lang: str, mode: str | None = None) -> str:
    """ "bound", "estimate", "measured"...; beside a disaggregated deployment "aggregated
    bound" (`mode` agg) or "disaggregated bound" (`mode` disagg)."""
    word = w(f"srv_{kind}", lang)
    return word if mode is None else w(f"srv_{mode}_kind", lang, kind=word)


def _alpha(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def measured_trace(item, slot, theme, lang, mode=None, replicas=1, kind="measured", symbol="diamond") -> dict:
    """The shipped measured runs of an AcceleratorServing (diamonds) or a disaggregated
    Deployment (`kind` disagg-measured, triangles), at their throughput and interactivity."""
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("serving", item.id, kind),
        "name": f"{item.name} · {kind_label('measured', lang, mode)}",
        "legendgroup": item.id,
        "customdata": [m.run.row.scenario.concurrency * replicas for m in item.measured],
        "x": [m.measured[TPS_USER] for m in item.measured],
        "y": [m.measured[TPS_GPU] for m in item.measured],
        "text": [measured_hover(item.name, m, lang, mode) for m in item.measured],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"color": color_for(slot, theme), "size": 9, "symbol": symbol, "line": {"width": 1, "color": "#fff"}},
    }


def _yours_trace(acc: AcceleratorServing, slot: int, theme: str, lang: str) -> dict:
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
        "marker": {"color": color_for(slot, theme), "size": 11, "symbol": yours_symbols(acc), "line": {"width": 1.5}},
    }


def _chosen(acc: AcceleratorServing, slot: int, theme: str, lang: str, concurrency: int, replicas: int = 1) -> dict:
    """The chosen concurrency on the bound, the estimate and (when one ran there) the measured
    run; `replicas` instances at `concurrency` each, beside a disaggregated deployment."""
    marks = [("bound", acc.chosen["bound"]), ("estimate", acc.chosen["estimate"])]
    marks += [("measured", m.measured) for m in acc.measured if m.run.row.scenario.concurrency == concurrency][:1]
    if acc.fitted is not None:
        marks.append(("fitted", acc.fitted))
    return chosen_trace(acc.id, acc.name, "chosen", marks, concurrency * replicas, slot, theme, lang)


def chosen_trace(hw_id, name, kind, marks, concurrency, slot, theme, lang, mode=None) -> dict:
    """The chosen concurrency circled on each (kind, rates) of `marks` (uid
    `serving--<hw>--<kind>`); `mode` names the curves beside a disaggregated deployment."""
    at = w("srv_chosen", lang, c=f"{concurrency:,}")
    return {
        "type": "scatter",
        "mode": "markers",
        "uid": uid("serving", hw_id, kind),
        "name": f"{name} · {at}",
        "legendgroup": hw_id,
        "showlegend": False,
        "x": [r[TPS_USER] for _, r in marks],
        "y": [r[TPS_GPU] for _, r in marks],
        "text": [
            hover_text(
                [
                    f"<b>{name}</b> · {kind_label(k, lang, mode)} · {at}",
                    f"{plain(r[TPS_USER])} {w('srv_unit_user', lang)} · {plain(r[TPS_GPU])} {w('srv_unit_gpu', lang)}",
                ]
            )
            for k, r in marks
        ],  # fmt: skip
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {"size": 16, "symbol": "circle-open", "color": color_for(slot, theme), "line": {"width": 2.5}},
    }


def aggregated_traces(acc, slot: int, theme: str, lang: str, concurrency: int, beside=None) -> list[dict]:
    """One accelerator's aggregated curve: band, bound, estimate, the fitted estimate, the
    measured runs, yours and the chosen concurrency. `beside` a disaggregated deployment
    (deployment.Compared): as many instances as its GPUs hold share its concurrency, and the
    names say "aggregated"."""
    mode, times = ("agg", beside.replicas) if beside is not None else (None, 1)
    if beside is not None:
        concurrency = beside.instance_concurrency
    pts = _capped(acc)
    label = {k: kind_label(k, lang, mode) for k in ("bound", "estimate", "band")}
    texts = {k: [_hover_point(acc.name, label[k], p, p[k], lang, times) for p in pts] for k in ("bound", "estimate")}
    name = {k: f"{acc.name} · {label[k]}" for k in label}
    data = [
        band_trace(acc.id, name["band"], "band", pts, slot, theme),
        line_trace(acc.id, name["bound"], "bound", pts, "bound", texts["bound"], slot, theme, "solid", 2.5, times),
        line_trace(
            acc.id, name["estimate"], "estimate", pts, "estimate", texts["estimate"], slot, theme, "dash", 2, times
        ),
    ]
    if acc.fitted is not None:
        fitted = fitted_label(acc, lang)
        ft = [_hover_point(acc.name, fitted, p, p["fitted"], lang, times) for p in pts]
        data.append(
            line_trace(acc.id, f"{acc.name} · {fitted}", "fitted", pts, "fitted", ft, slot, theme, "dot", 3, times)
        )
    if acc.measured:
        data.append(measured_trace(acc, slot, theme, lang, mode, times))
    if acc.yours:
        data.append(_yours_trace(acc, slot, theme, lang))
    data.append(_chosen(acc, slot, theme, lang, concurrency, times))
    return data


def throughput_figure(
    accs, concurrency: int, lang: str, theme: str = "light", present: bool = False, beside=None
) -> dict:
    """Output tokens/s per GPU against tokens/s per user, per accelerator; `beside` (a
    deployment.Compared, in disaggregated mode): each deployment's curve beside the aggregated
    one of as many instances as its GPUs hold."""
    from app.dashboard.pages.serving.disagg_figures import disagg_traces  # it draws with this module's pieces

    data = []
    slots = card_slots([acc.id for acc in accs])  # each card's colour (a deployment takes its card's)
    for i, acc in enumerate(accs):
        if not acc.error and acc.chosen is not None:
            data += aggregated_traces(acc, slots[i], theme, lang, concurrency, beside)
        if beside is not None and not beside.deployments[i].error:
            data += disagg_traces(beside.deployments[i], slots[i], theme, lang, concurrency)
    if beside is not None:
        titled_groups(data, {acc.id: acc.name for acc in accs})
    legend_names(data)  # a phone's legend holds each entry
    layout = _layout(lang, theme, present)
    colors = THEMES.get(theme, THEMES["light"])
    for axis, key, values, two_five in (
        ("xaxis", "srv_axis_user", [x for t in data for x in t["x"]], ACROSS),
        ("yaxis", "srv_axis_gpu", [y for t in data for y in t["y"]], UP),
    ):
        base = {"title": {"text": w(key, lang), "standoff": 8}, "gridcolor": colors["grid"]}
        layout[axis] = label_log_axis(base, values, two_five)
    notes = unfit_notes(accs, theme, lang, beside)
    if notes and not data:  # nothing to draw: the reasons where the chart was
        return reasons_figure(notes, lang, theme, present)
    layout["annotations"] = notes
    return {"data": data, "layout": layout}


def titled_groups(data: list[dict], names: dict[str, str]) -> None:
    """Beside a disaggregated deployment a card has twice the legend entries: its name is said
    once, as its group's title, and each entry says only what it is ("aggregated bound"), so a
    phone's legend holds them (a card's full name on each entry ran past the chart's edge)."""
    titled = set()
    for trace in data:
        group = trace.get("legendgroup")
        if group not in names:
            continue
        trace["name"] = trace["name"].removeprefix(f"{names[group]} · ")
        if group not in titled and trace.get("showlegend", True):
            trace["legendgrouptitle"] = {"text": names[group]}
            titled.add(group)


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


def unfit_notes(accs, theme: str, lang: str, beside=None) -> list[dict]:
    """Each accelerator that gives no answer says why, at the top of the chart in its colour;
    beside a disaggregated deployment, each deployment that gives none too."""
    from app.dashboard.pages.serving.disagg_words import deployment_unfit_sentence

    slots = card_slots([acc.id for acc in accs])
    said = [(slots[i], unfit_sentence(acc, lang)) for i, acc in enumerate(accs) if acc.error is not None]
    if beside is not None:
        said += [(slots[i], deployment_unfit_sentence(d, lang)) for i, d in enumerate(beside.deployments) if d.error]
    notes = []
    for slot, text in said:
        notes.append(
            {
                "text": text,
                "xref": "paper",
                "yref": "paper",
                "x": 0.01,
                "y": 0.99 - 0.07 * len(notes),
                "xanchor": "left",
                "yanchor": "top",
                "align": "left",
                "showarrow": False,
                "font": {"color": THEMES.get(theme, THEMES["light"])["font"]},
                "bgcolor": _alpha(color_for(slot, theme), 0.12),
            }
        )
    return notes


def _layout(lang: str, theme: str, present: bool) -> dict:
    layout = base_layout(lang, theme, present)
    layout["margin"] = {"l": 70, "r": 36, "t": 20, "b": 40}
    layout["legend"] = foot_legend(present)
    layout["modebar"] = {"orientation": "v"}  # beside the plot, clear of its top
    layout["hoverlabel"] |= {"align": "left"}
    return layout
