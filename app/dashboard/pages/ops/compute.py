"""The op lab's engine calls: a state and its accelerators -> the op's views as series.

Every number comes from engine/oplab.py (`lab`, `teaching_chart`), the same functions behind
`/api/v1/ops` and `llm-roofline ops`; the figure (figures.py) and the tables
(tables.py) only format what `compute` returns.
"""

from __future__ import annotations

from app.dashboard.pages.ops.figures import SERIES_ORDER
from app.dashboard.pages.ops.state import OpsState, spec_of
from engine.hardware import Accelerator, get_accelerator
from engine.model_catalog import get_model
from engine.oplab import lab, teaching_chart
from engine.what_if import parse_what_if


def accelerators(hardware: tuple[str, ...], what_if: tuple[str, ...] = ()) -> list[Accelerator]:
    """The catalogue cards, then the what-ifs (short forms, already checked by the parser)."""
    return [*(get_accelerator(h) for h in hardware), *(parse_what_if(w) for w in what_if)]


# series id of the spec as given / of each alternative the engine returns
def _series_id(state: OpsState, view: str | None, has_views: bool = True) -> str:
    """`view`: the engine's name of an alternative (fused, unfused, im2col); None: the op as
    given, `has_views` when the engine returned alternatives to it."""
    if view is None:
        if state.op == "conv2d":
            return "direct"
        if not has_views:
            return state.op
        view = "fused" if state.fused else "unfused"
    return f"gemm-{view}" if state.op == "gemm" else view


def compute(state: OpsState, hardware: tuple[str, ...]) -> dict:
    """Engine results as series: [{id, label, primary, results: one per accelerator}], plus
    the engine's tile view, im2col shape, whether the conv is depthwise, and the accelerators
    (`hardware`'s catalogue cards, then the state's what-ifs)."""
    accs = accelerators(hardware, state.what_if)
    if state.op == "teaching":
        chart = teaching_chart(accs, get_model(state.model))
        series = [
            {"id": p["id"], "label": p["name"], "source": p["source"], "primary": True, "results": p["results"]}
            for p in chart["points"]
        ]
        return {
            "series": series,
            "name": None,
            "tile": None,
            "im2col": None,
            "depthwise": False,
            "accelerators": accs,
        }
    spec = spec_of(state)
    result = lab(spec, accs, state.overhead_us * 1e-6)
    first = result["results"][0]
    series = [
        {
            "id": _series_id(state, None, bool(first["alternatives"])),
            "label": result["name"],
            "primary": True,
            "results": result["results"],
        }
    ]
    for alt in first["alternatives"]:
        series.append(
            {
                "id": _series_id(state, alt),
                "label": alt,
                "primary": False,
                "results": [r["alternatives"][alt] | {k: r[k] for k in ("hardware_id", "hardware_name", "what_if")}
                            for r in result["results"]],
            }
        )  # fmt: skip
    series.sort(key=lambda s: SERIES_ORDER.get(s["id"], 0))
    return {
        "series": series,
        "name": result["name"],
        "tile": result["tile"],
        "im2col": result["im2col"],
        "depthwise": state.op == "conv2d" and spec.depthwise,
        "accelerators": accs,
    }
