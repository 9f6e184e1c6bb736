"""The points drawn on the roofline ("marks") and the grid of slider stops that moves them.

One function, `gpu_marks`, turns an accelerator's phases into marks, both for the figure the
server draws and for every stop of the slider grid, so a point moved in the browser carries
exactly what the server would have drawn there: the same uid, position and hover values.
The browser only picks a stop from the grid (assets/app.js); it never computes a number.

Hover text is a per-trace template (labels, names) plus per-point `customdata` values (the
numbers, formatted here): only the values travel with each grid stop. The imported rows, drawn
once, carry their whole hover (imported_trace).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from app.dashboard.lib.i18n import t
from app.dashboard.lib.markup import hover_box, hover_text
from app.dashboard.lib.uids import uid
from app.service import BATCH_STOPS, CONTEXT_STOPS, phase_at
from app.units import duration, grouped, plain, si

PHASE_FIELDS = ("flops", "bytes", "intensity", "attainable", "bound", "time", "detail")
MEASURED_DECODE_FIELDS = ("time", "tps", "gap", "mbu", "mfu")
MEASURED_FIELDS = ("time", "achieved", "roof", "fraction", "gap")


@dataclass(frozen=True)
class Mark:
    uid: str
    kind: str  # decode | prefill | attention_decode | elementwise | measured_decode | measured
    label: str  # what the point is: "decode", an op name, a measured row's name
    x: float  # FLOP/byte
    y: float  # FLOP/s
    values: tuple[str, ...]  # hover values, in the order of the kind's template fields
    fits: bool = True  # the scenario fits this accelerator's memory (else drawn hollow)
    scope: str = ""  # what the numbers cover (whole model, N layers summed): the same at every stop

    def at_stop(self) -> list:
        return [self.x, self.y, list(self.values), self.fits]


def _phase_values(
    flops: float, bytes_: float, time_s: float, bound: str, details: list[str], lang: str
) -> tuple[str, ...]:
    return (
        si(flops, "FLOP"),
        si(bytes_, "B"),
        plain(flops / bytes_ if bytes_ else 0.0),
        si(flops / time_s, "FLOP/s"),
        t(f"bound_{bound}", lang),
        duration(time_s),
        "<br>".join(d for d in details if d),
    )


def _scope(layers: int, lang: str) -> str:
    """Whether a row is one layer's, all layers' or once per step (engine: op `layers`)."""
    return t("scope_layers", lang, n=layers) if layers else t("scope_once", lang)


def phase_mark(hw: str, kind: str, label: str, phase: dict, lang: str) -> Mark:
    """Decode, prefill or decode attention: the whole model's step, with how close it comes
    to the roof (decode, prefill) or its share of the decode step (attention)."""
    if kind == "attention_decode":
        details, scope = [t("hover_share", lang, share=f"{phase['share_of_step']:.0%}")], t("scope_all_layers", lang)
    else:
        details = [
            t("tokens_per_s", lang, v=grouped(phase["tokens_per_s"])),
            t("hover_roof", lang, pct=f"{phase['fraction_of_roof']:.0%}"),
        ]
        scope = t(f"scope_{kind}", lang)
    return Mark(
        uid("point", hw, kind),
        kind,
        label,
        phase["intensity"],
        phase["flops"] / phase["time_s"],
        _phase_values(phase["flops"], phase["bytes"], phase["time_s"], phase["bound"], details, lang),
        scope=scope,
    )


def drawn_as(marks: list[Mark]) -> list[Mark | list[Mark]]:
    """The marks as the figure draws them: one trace per mark, but an accelerator's elementwise
    ops together as one trace (`point--<hw>--elementwise`), a list in the mark's place. A slider
    step's cost grows with the figure's traces (Plotly re-reads every trace's defaults on each
    step): seven traces a card were 21 of the 45 on a 3-card page, for points that move as one."""
    out: list[Mark | list[Mark]] = []
    group: list[Mark] | None = None
    for m in marks:
        if m.kind != "elementwise":
            out.append(m)
        elif group is None:
            group = [m]
            out.append(group)
        else:
            group.append(m)
    return out


def group_uid(group: list[Mark]) -> str:
    return group[0].uid.rsplit("--", 1)[0] + "--elementwise"


def at_stop(entry: Mark | list[Mark]) -> list:
    """A trace's values at a grid stop: [x, y, hover values, fits] for one point, or the same
    with a list in each place for a group (app.js reads both)."""
    if isinstance(entry, Mark):
        return entry.at_stop()
    return [[m.x for m in entry], [m.y for m in entry], [list(m.values) for m in entry], entry[0].fits]


def attention_phase(decode: dict) -> dict | None:
    """The decode step's attention matmuls taken together (the point that shows the KV wall)."""
    ops = [o for o in decode["ops"] if o["name"].startswith("attention") and o["unit"] == "tensor"]
    time_s = sum(o["time_s"] for o in ops)
    if not time_s:
        return None
    flops, bytes_ = sum(o["flops"] for o in ops), sum(o["bytes"] for o in ops)
    return {
        "flops": flops,
        "bytes": bytes_,
        "intensity": flops / bytes_,
        "time_s": time_s,
        "share_of_step": sum(o["share_of_step"] for o in ops),
        "bound": "compute" if all(o["bound"] == "compute" for o in ops) else "memory",
    }


def gpu_marks(
    hw: str,
    decode: dict,
    prefill: dict,
    lang: str,
    measured_decode: dict | None = None,
    measured_points: list[dict] | None = None,
    fits: bool = True,
) -> list[Mark]:
    """Decode, prefill, decode attention and each elementwise op of the decode step; the
    measured decode step and imported measured points where given. `fits`: whether the
    scenario fits in memory; the predicted points of one that does not are drawn hollow."""
    marks = _predicted_marks(hw, decode, prefill, lang)
    if not fits:
        marks = [replace(m, fits=False) for m in marks]
    return marks + _measured_marks(hw, lang, measured_decode, measured_points)


def _predicted_marks(hw: str, decode: dict, prefill: dict, lang: str) -> list[Mark]:
    marks = [
        phase_mark(hw, "decode", t("decode", lang), decode, lang),
        phase_mark(hw, "prefill", t("prefill", lang), prefill, lang),
    ]
    attention = attention_phase(decode)
    if attention is not None:
        marks.append(phase_mark(hw, "attention_decode", t("attention_decode", lang), attention, lang))
    for op in decode["ops"]:
        if op["unit"] == "vector" and op["flops"] > 0:
            marks.append(
                Mark(
                    uid("point", hw, op["name"]),
                    "elementwise",
                    op["name"],
                    op["intensity"],
                    op["flops"] / op["time_s"],
                    _phase_values(
                        op["flops"],
                        op["bytes"],
                        op["time_s"],
                        op["bound"],
                        [t("hover_share", lang, share=f"{op['share_of_step']:.1%}")],
                        lang,
                    ),
                    scope=_scope(op["layers"], lang),
                )
            )
    return marks


def _measured_marks(hw: str, lang: str, measured_decode: dict | None, measured_points: list[dict] | None) -> list[Mark]:
    marks = []
    if measured_decode:
        md = measured_decode
        marks.append(
            Mark(
                uid("measured", hw, "decode"),
                "measured_decode",
                t("measured_point", lang),
                md["intensity"],
                md["achieved_flops_per_s"],
                (
                    duration(md["step_time_s"]),
                    grouped(md["tokens_per_s"]),
                    f"{md['gap']:.2f}",
                    f"{md['mbu']:.1%}",
                    f"{md['mfu']:.2%}",
                ),
            )
        )
    # only imported points that borrow the model's counts move with the sliders; the rest are
    # drawn once, as one trace (imported_trace), and never enter the slider grid
    moving = [p for p in measured_points or [] if p.get("counts_from_model")]
    for n, p in enumerate(moving):
        # user-supplied names are never pasted into a uid: the row's index identifies it
        marks.append(
            Mark(
                uid("measured", hw, n),
                "measured",
                p["name"],
                p["intensity"],
                p["achieved_flops_per_s"],
                measured_values(p),
            )
        )
    return marks


def measured_values(p: dict) -> tuple[str, ...]:
    """An imported point's hover values, in the order of MEASURED_FIELDS."""
    return (
        duration(p["time_s"]),
        si(p["achieved_flops_per_s"], "FLOP/s"),
        si(p["attainable_flops_per_s"], "FLOP/s"),
        f"{p['fraction_of_roof']:.0%}",
        f"{p['gap']:.2f}",
    )


def imported_trace(points: list[dict], hw: str, hw_name: str, color: str, lang: str) -> dict | None:
    """The imported rows that carry their own FLOPs and bytes, as one trace: they sit where they
    were measured whatever the sliders say, so they are drawn once and never enter the slider
    grid (10,000 rows once made 1.5 million grid points, 20 s and +1.6 GB a request). Each
    point's hover is its own text, wrapped with its name (already inert for Plotly:
    figures.roofline_figure): a profiler's kernel name runs to 120 characters, which a template
    slot would paste into one line wider than a phone's chart. Its + (figures.MARK_STYLE
    "measured") is never the ridge's x."""
    fixed = [p for p in points if not p.get("counts_from_model")]
    if not fixed:
        return None
    return {
        "type": "scatter",
        "uid": uid("measured", hw, "imported"),
        "name": t("measured_point", lang),
        "x": [p["intensity"] for p in fixed],
        "y": [p["achieved_flops_per_s"] for p in fixed],
        "hovertext": [imported_hover(p, hw_name, lang) for p in fixed],
        "hovertemplate": "%{hovertext}<extra></extra>",
        "mode": "markers",
        "showlegend": False,
        "meta": {"color": color},
        "marker": {"symbol": "cross-thin-open", "size": 12, "color": color, "line": {"color": color, "width": 2}},
        "cliponaxis": False,
    }


def imported_hover(p: dict, hw_name: str, lang: str) -> str:
    """An imported point's hover: its name and measured values, each line wrapped."""
    values = dict(zip(MEASURED_FIELDS, measured_values(p), strict=True))
    return hover_text([t("hover_measured", lang, label=p["name"], hw=hw_name, **values)])


def hover_template(mark: Mark, hw_name: str, lang: str) -> str:
    """The fixed part of a mark's hover text; `%{customdata[i]}` stands for its values."""
    fields = {"measured_decode": MEASURED_DECODE_FIELDS, "measured": MEASURED_FIELDS}.get(mark.kind, PHASE_FIELDS)
    slots = {name: f"%{{customdata[{i}]}}" for i, name in enumerate(fields)}
    if mark.kind == "measured_decode":
        text = t("insight_measured", lang, **slots)
    elif mark.kind == "measured":
        text = t("hover_measured", lang, label=mark.label, hw=hw_name, **slots)
    else:
        text = t("hover", lang, label=mark.label, hw=hw_name, **slots)
    # the scope never changes with the sliders: it lives in the template, not in every grid stop
    return hover_box(text + (f"<br>{mark.scope}" if mark.scope else ""))


def grid_payload(grid: dict, hardware_ids: list[str], lang: str) -> dict:
    """Every slider stop's traces (values only, in the order of `uids`; `drawn_as`) and each accelerator's
    decode trajectory at every context stop; plus the extent of all of them, so the axes can
    hold every point the sliders can reach."""
    batch = grid["batch_size"]
    stops, uids = [], None
    xs, ys = [], []
    on = grid.get("measured_on") or hardware_ids[0]  # the profile's machine (service.measured_on)
    for i in range(len(batch)):
        marks: list[Mark] = []
        entries: list[Mark | list[Mark]] = []
        for n, hw in enumerate(hardware_ids):
            phases = grid["phases"][hw]
            md = grid["measured_decode"][i] if n == 0 and grid["measured_decode"] else None
            mp = grid["measured_points"][i] if hw == on and grid["measured_points"] else None
            gpu = gpu_marks(
                hw,
                phase_at(phases["decode"], i),
                phase_at(phases["prefill"], i, with_ops=False),
                lang,
                md,
                mp,
                bool(phases["fits"][i]),
            )
            marks += gpu
            entries += drawn_as(gpu)  # the figure's traces, an accelerator's at a time
        if uids is None:
            uids = [e.uid if isinstance(e, Mark) else group_uid(e) for e in entries]
        stops.append([at_stop(e) for e in entries])
        xs += [m.x for m in marks]
        ys += [m.y for m in marks]
    trajectories = {}
    for hw in hardware_ids:
        per_context = []
        for sweep in grid["trajectories"][hw]:
            if sweep is None:
                per_context.append(None)
                continue
            x, y = trajectory_xy(sweep)
            per_context.append([x, y])
            xs += x
            ys += y
        trajectories[uid("trajectory", hw)] = per_context
    return {
        "batches": list(BATCH_STOPS),
        "contexts": list(CONTEXT_STOPS),
        "uids": uids,
        "stops": stops,
        "trajectories": trajectories,
        "extent": extent(xs, ys),
    }


def trajectory_xy(sweep: dict) -> tuple[list[float], list[float]]:
    return [float(v) for v in sweep["intensity"]], [float(v) for v in sweep["flops"] / sweep["time_s"]]


def extent(xs: list[float], ys: list[float]) -> list[float] | None:
    good = [(x, y) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0 and math.isfinite(x) and math.isfinite(y)]
    if not good:
        return None
    return [min(x for x, _ in good), max(x for x, _ in good), min(y for _, y in good), max(y for _, y in good)]
