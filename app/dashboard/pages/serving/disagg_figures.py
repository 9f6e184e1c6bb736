"""The disaggregated deployment on the Serving page's two charts (formatting only, from
deployment.py's results), drawn beside the aggregated curve in the accelerator's colour, told
apart by triangles:

- throughput against interactivity: the deployment's bound (solid) and estimate (dashed, its
  range shaded) up to the concurrency where its smallest capacity saturates, the shipped
  measured disaggregated runs (triangles), the chosen concurrency circled. Uids
  `serving--<hw>--disagg-bound|disagg-estimate|disagg-band|disagg-measured|disagg-chosen`;
- TTFT and TPOT against concurrency: bound and estimate, the measured runs, and the requests
  decoding. Uids `latency--<hw>--disagg-tpot-bound`, ...
"""

from __future__ import annotations

from app.dashboard.components.plot_style import color_for
from app.dashboard.lib.markup import hover_text
from app.dashboard.lib.uids import uid
from app.dashboard.pages.serving.deployment import Deployment, drawn
from app.dashboard.pages.serving.figures import (
    TPS_GPU,
    TPS_USER,
    band_trace,
    chosen_trace,
    kind_label,
    line_trace,
    measured_hover,
    measured_trace,
)
from app.dashboard.pages.serving.words import w
from app.units import plain

MARKER = "triangle-up"  # the deployment's points; the aggregated ones are diamonds


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def ttft_parts_text(parts: dict, lang: str) -> str:
    """TTFT's parts in one line: prefill, its queue, the KV transfer, the fixed cost (ms)."""
    return w(
        "srv_hover_ttft_parts",
        lang,
        prefill=_ms(parts["prefill_s"]),
        queue=_ms(parts["prefill_queue_s"]),
        wave=_ms(parts["first_wave_s"]),
        transfer=_ms(parts["kv_transfer_s"]),
        fixed=_ms(parts["fixed_s"]),
    )


def point_hover(dep: Deployment, kind: str, p: dict, lang: str) -> str:
    """A point of the deployment's curve: concurrency, requests decoding, rates, TTFT's parts."""
    rates = p[kind]
    lines = [
        f"<b>{dep.name}</b> · {kind_label(kind, lang, 'disagg')}",
        w("srv_hover_disagg_conc", lang, c=f"{p['concurrency']:,}", run=f"{p['running_batch']:,}"),
        f"{plain(rates[TPS_USER])} {w('srv_unit_user', lang)} · {plain(rates[TPS_GPU])} {w('srv_unit_gpu', lang)}",
        f"TPOT {_ms(rates['tpot_s'])} ms · TTFT {_ms(rates['ttft_s'])} ms",
        ttft_parts_text(p["ttft_parts"][kind], lang),
    ]
    return hover_text(lines)


def _chosen(dep: Deployment, slot: int, theme: str, lang: str, concurrency: int) -> dict:
    c = dep.chosen
    marks = [("bound", c["bound"]), ("estimate", c["estimate"])]
    marks += [("measured", m.measured) for m in dep.measured if m.run.row.scenario.concurrency == concurrency][:1]
    return chosen_trace(dep.id, dep.name, "disagg-chosen", marks, concurrency, slot, theme, lang, "disagg")


def disagg_traces(dep: Deployment, slot: int, theme: str, lang: str, concurrency: int) -> list[dict]:
    """The deployment on the throughput chart: band, bound, estimate, measured runs, chosen."""
    pts = drawn(dep)
    label = {k: kind_label(k, lang, "disagg") for k in ("bound", "estimate", "band")}
    texts = {k: [point_hover(dep, k, p, lang) for p in pts] for k in ("bound", "estimate")}
    data = [
        band_trace(dep.id, f"{dep.name} · {label['band']}", "disagg-band", pts, slot, theme, 0.08),
        line_trace(dep.id, f"{dep.name} · {label['bound']}", "disagg-bound", pts, "bound", texts["bound"], slot, theme,
                   "solid", 2.5),
        line_trace(dep.id, f"{dep.name} · {label['estimate']}", "disagg-estimate", pts, "estimate",
                   texts["estimate"], slot, theme, "dash"),
    ]  # fmt: skip
    for trace in data[1:]:  # triangles on the lines: the deployment's, not the aggregated curve's
        trace["mode"] = "lines+markers"
        trace["marker"] = {"symbol": MARKER, "size": 7, "color": color_for(slot, theme)}
    if dep.measured:
        data.append(measured_trace(dep, slot, theme, lang, "disagg", 1, "disagg-measured", MARKER))
    data.append(_chosen(dep, slot, theme, lang, concurrency))
    return data


DASH = {"bound": "solid", "estimate": "dash"}


def latency_traces(dep: Deployment, slot: int, theme: str, lang: str, rows) -> list[dict]:
    """The deployment on the latency chart: TPOT and TTFT (bound, estimate, measured) and the
    requests decoding, each at the deployment's concurrency."""
    color = color_for(slot, theme)
    pts, data = dep.points, []
    for metric, axis, _ in rows[:2]:
        for kind in ("bound", "estimate"):
            values = [p[kind][f"{metric}_s"] * 1e3 for p in pts]
            label = f"{metric.upper()} {kind_label(kind, lang, 'disagg')}"
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "uid": uid("latency", dep.id, f"disagg-{metric}-{kind}"),
                    "name": f"{dep.name} · {label}",
                    "legendgroup": dep.id,
                    "showlegend": metric == "tpot",
                    "x": [p["concurrency"] for p in pts],
                    "y": values,
                    "yaxis": axis,
                    "text": [point_hover(dep, kind, p, lang) for p in pts],
                    "hovertemplate": "%{text}<extra></extra>",
                    "line": {"color": color, "dash": DASH[kind], "width": 2.5 if kind == "bound" else 2},
                    "marker": {"symbol": MARKER, "size": 6, "color": color},
                }
            )
        if dep.measured:
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "uid": uid("latency", dep.id, f"disagg-{metric}-measured"),
                    "name": f"{dep.name} · {metric.upper()} {kind_label('measured', lang, 'disagg')}",
                    "legendgroup": dep.id,
                    "showlegend": False,
                    "x": [m.run.row.scenario.concurrency for m in dep.measured],
                    "y": [m.measured[f"{metric}_s"] * 1e3 for m in dep.measured],
                    "yaxis": axis,
                    "text": [measured_hover(dep.name, m, lang, "disagg") for m in dep.measured],
                    "hovertemplate": "%{text}<extra></extra>",
                    "marker": {"color": color, "size": 9, "symbol": MARKER},
                }
            )
    label = w("srv_decoding", lang)
    data.append(
        {
            "type": "scatter",
            "mode": "lines",
            "uid": uid("latency", dep.id, "disagg-running-batch"),
            "name": f"{dep.name} · {w('srv_disagg', lang)} · {label}",
            "legendgroup": dep.id,
            "x": [p["concurrency"] for p in pts],
            "y": [p["running_batch"] for p in pts],
            "yaxis": "y3",
            "text": [hover_text([f"<b>{dep.name}</b> · {label}: {p['running_batch']:,}"]) for p in pts],
            "hovertemplate": "%{text}<extra></extra>",
            "line": {"color": color, "dash": "dashdot", "width": 1.5},
        }
    )
    return data
