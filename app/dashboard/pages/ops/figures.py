"""The op lab's roofline: each accelerator's roofs and the op's views as points.

Engine numbers in, a Plotly figure dict out. A point sits at the engine's intensity and its
`attainable_flops_per_s` (FLOPs / time, launch overhead included: an overhead-bound kernel
falls below both roofs). The roofs come from the accelerator's own `tensor_roof` /
`vector_roof` and engine/roofline.py. Trace uids follow app/dashboard/uids.py:
`roof--<hw>--memory|tensor|vector`, `ridge--<hw>`, `op--<hw>--<view>`, `tile--<convention>`.
"""

from __future__ import annotations

import math

from app.dashboard.components.plot_style import THEMES, base_layout, card_colors
from app.dashboard.lib.i18n import STRINGS, t
from app.dashboard.lib.markup import hover_box, plotly_text
from app.dashboard.lib.uids import uid
from app.units import duration, plain, si
from engine.hardware import Accelerator
from engine.oplab import VALUE_DTYPES
from engine.precision import DTYPES
from engine.roofline import attainable_flops_per_s, ridge_point

# (symbol, size) of the views of one op: the first view, the second; the teaching chart's three points
SYMBOLS = {0: ("circle", 14), 1: ("diamond", 13), 2: ("square", 12)}
TEACHING_SYMBOLS = {"gemm-8192": ("square", 13), "add": ("triangle-up", 12), "decode": ("circle", 14)}
TILE_DASH = {"c_read_modify_write": "dot", "read_once_write_once": "dashdot"}
# the views of one op, in the order the tables and the figure show them side by side
SERIES_ORDER = {"unfused": 0, "fused": 1, "direct": 0, "im2col": 1, "gemm-unfused": 0, "gemm-fused": 1}


def series_name(series: dict, lang: str) -> str:
    """What a series is called on screen: its view (fused, im2col...) or the op's own name."""
    if series["id"] in SERIES_ORDER:
        return t(f"lab_ops_view_{series['id'].replace('-', '_')}", lang)
    return series["label"]


def roofs(hw: Accelerator, dtype: str) -> dict:
    """The roofs an op of `dtype` meets on `hw`: tensor (its compute dtype, or bf16 for fp32
    values, as engine/oplab.py places them), vector (None where it is the tensor roof)."""
    tensor_dtype, tensor = hw.tensor_roof(dtype if dtype in DTYPES else "bf16")
    vector_unit, vector = hw.vector_roof(dtype if dtype in VALUE_DTYPES else "bf16")
    bw = hw.memory_bandwidth_bytes_per_s
    return {
        "bandwidth": bw,
        "tensor": tensor,
        "tensor_dtype": tensor_dtype,
        "ridge": ridge_point(tensor, bw),
        "vector": None if vector_unit.startswith("tensor") else vector,
        "vector_unit": vector_unit,
        "vector_ridge": ridge_point(vector, bw),
    }


def short_name(series: dict, lang: str) -> str:
    """The label next to a point: the view alone (fused, im2col), the op's kind, the teaching chart's id."""
    sid = series["id"]
    if sid in SERIES_ORDER:
        return t(f"lab_ops_view_{sid.removeprefix('gemm-')}", lang)
    return t(f"lab_ops_kind_{sid}", lang) if f"lab_ops_kind_{sid}" in STRINGS else sid


def _decades(low: float, high: float) -> list[float]:
    return [10.0**e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]


def _axis(title: str, rng: tuple[float, float], scale: float, colors: dict) -> dict:
    ticks = _decades(*rng)
    return {
        "type": "log",
        "title": {"text": title},
        "range": [math.log10(rng[0]), math.log10(rng[1])],
        "tickvals": ticks,
        "ticktext": [plain(v / scale) for v in ticks],
        "gridcolor": colors["grid"],
        "zeroline": False,
        "autorange": False,
    }


def _hover(label: str, hw_name: str, r: dict, lang: str) -> str:
    lines = [
        f"<b>{label}</b>",
        hw_name,
        f"{t('lab_ops_col_flops', lang)}: {si(r['flops'], 'FLOP')}",
        f"{t('lab_ops_col_bytes', lang)}: {si(r['bytes'], 'B')}",
        f"{t('lab_ops_col_intensity', lang)}: {plain(r['intensity'])}",
        f"{t('lab_ops_col_time', lang)}: {duration(r['time_s'])}",
        f"{t('lab_ops_col_bound', lang)}: {t('lab_ops_bound_' + r['bound'], lang)}",
        f"{t('lab_ops_col_kernels', lang)}: {r['kernels']}",
    ]
    return hover_box("<br>".join(lines))


def _flat_roof(hw: Accelerator, kind: str, y: float, unit: str, xs: tuple[float, float], line: dict, lang: str) -> dict:
    """The tensor or the vector roof of `hw`: flat at `y` FLOP/s (of `unit`) from its ridge on."""
    label = t(f"{kind}_roof", lang)
    return {
        "type": "scatter",
        "uid": uid("roof", hw.id, kind),
        "name": f"{hw.name} {label}",
        "legendgroup": hw.id,
        "showlegend": False,
        "x": list(xs),
        "y": [y, y],
        "mode": "lines",
        "line": line,
        "hovertemplate": hover_box(f"{hw.name} · {label} ({unit}) {si(y, 'FLOP/s')}"),
    }


def _roof_traces(hw: Accelerator, rf: dict, color: str, x_range: tuple[float, float], lang: str) -> list[dict]:
    x0, x1 = x_range
    bw = rf["bandwidth"]
    traces = [
        {
            "type": "scatter",
            "uid": uid("roof", hw.id, "memory"),
            "name": f"{hw.name} · {t('ridge', lang, v=plain(rf['ridge']))}",
            "legendgroup": hw.id,
            "x": [x0, rf["ridge"]],
            "y": [attainable_flops_per_s(x0, rf["tensor"], bw), rf["tensor"]],
            "mode": "lines",
            "line": {"color": color, "width": 2.5},
            "hovertemplate": hover_box(f"{hw.name} · {t('memory_roof', lang)} {si(bw, 'B/s')}"),
        },
        _flat_roof(
            hw, "tensor", rf["tensor"], rf["tensor_dtype"], (rf["ridge"], x1), {"color": color, "width": 2.5}, lang
        ),
        {
            "type": "scatter",
            "uid": uid("ridge", hw.id),
            "name": t("ridge", lang, v=plain(rf["ridge"])),
            "legendgroup": hw.id,
            "showlegend": False,
            "x": [rf["ridge"]],
            "y": [rf["tensor"]],
            "mode": "markers",
            "marker": {"color": color, "size": 9, "symbol": "x"},
            "hovertemplate": hover_box(f"{hw.name} · {t('ridge', lang, v=plain(rf['ridge']))} FLOP/byte"),
        },
    ]
    if rf["vector"] is not None:
        line = {"color": color, "width": 1.5, "dash": "dash"}
        traces.append(_flat_roof(hw, "vector", rf["vector"], rf["vector_unit"], (rf["vector_ridge"], x1), line, lang))
    return traces


def _ranges(computed: dict, all_roofs: list[dict]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axes that hold every point and ridge with half a decade to spare, whole decades apart."""
    points = [r for s in computed["series"] for r in s["results"] if r["intensity"] > 0]
    xs = [r["intensity"] for r in points] + [rf["ridge"] for rf in all_roofs]
    xs += [t_["intensity"] for t_ in _tile_lines(computed)]
    x_lo, x_hi = 10 ** math.floor(math.log10(min(xs) / 3)), 10 ** math.ceil(math.log10(max(xs) * 3))
    ys = [r["attainable_flops_per_s"] for r in points] + [rf["tensor"] for rf in all_roofs]
    ys += [attainable_flops_per_s(x_lo, rf["tensor"], rf["bandwidth"]) for rf in all_roofs]
    y_lo, y_hi = 10 ** math.floor(math.log10(min(ys) / 2)), 10 ** math.ceil(math.log10(max(ys) * 2))
    return (x_lo, x_hi), (max(y_lo, y_hi / 1e9), y_hi)


def _tile_lines(computed: dict) -> list[dict]:
    tile = computed.get("tile")
    if not tile:
        return []
    return [{"key": key, "intensity": tile[key]["intensity"]} for key in TILE_DASH]


def op_figure(computed: dict, accelerators: list[Accelerator], dtype: str, lang: str, theme: str) -> dict:
    """The roofs of every accelerator, then every view of the op on each (see the module doc)."""
    colors = THEMES.get(theme, THEMES["light"])
    # accelerator and op names are user text: Plotly draws them as text, never markup
    accelerators = [hw.model_copy(update={"name": plotly_text(hw.name)}) for hw in accelerators]
    all_roofs = [roofs(hw, dtype) for hw in accelerators]
    x_range, y_range = _ranges(computed, all_roofs)
    traces: list[dict] = []
    hues = card_colors([hw.id for hw in accelerators], theme)
    for i, (hw, rf) in enumerate(zip(accelerators, all_roofs, strict=True)):
        traces += _roof_traces(hw, rf, hues[i], x_range, lang)
    for line in _tile_lines(computed):
        label = f"{t('lab_ops_tile_' + line['key'], lang)}: {plain(line['intensity'])}"
        traces.append(
            {
                "type": "scatter",
                "uid": uid("tile", line["key"].replace("_", "-")),
                "name": label,
                "x": [line["intensity"], line["intensity"]],
                "y": list(y_range),
                "mode": "lines",
                "line": {"color": colors["muted"], "width": 1.5, "dash": TILE_DASH[line["key"]]},
                "hovertemplate": hover_box(f"{label} FLOP/byte"),
            }
        )
    for j, s in enumerate(computed["series"]):
        symbol, size = TEACHING_SYMBOLS.get(s["id"]) or SYMBOLS[min(j, 2)]
        name = plotly_text(series_name(s, lang))
        short = plotly_text(short_name(s, lang))
        for i, r in enumerate(s["results"]):
            if r["intensity"] <= 0:  # a kernel with no FLOPs (copy) has no place on a log axis
                continue
            color = hues[i]
            first = i == 0
            hollow = not s["primary"]
            traces.append(
                {
                    "type": "scatter",
                    "uid": uid("op", r["hardware_id"], s["id"]),
                    "name": name,
                    "x": [r["intensity"]],
                    "y": [r["attainable_flops_per_s"]],
                    "mode": "markers+text" if first else "markers",
                    "text": [short] if first else None,
                    "textposition": "top center",
                    "showlegend": False,
                    "cliponaxis": False,
                    "marker": {
                        "symbol": symbol,
                        "size": size,
                        "color": "rgba(0,0,0,0)" if hollow else color,
                        "line": {"color": color if hollow else "#ffffff", "width": 2 if hollow else 1},
                    },
                    "hovertemplate": _hover(name, plotly_text(r["hardware_name"]), r, lang),
                }
            )
    layout = base_layout(lang, theme, False)
    layout["xaxis"] = _axis(t("x_axis", lang), x_range, 1.0, colors)
    layout["yaxis"] = _axis(t("y_axis", lang) + " (TFLOP/s)", y_range, 1e12, colors)
    layout["uirevision"] = computed.get("name") or "teaching"
    return {"data": traces, "layout": layout}
