"""A View in, what the page shows out: the roofline with its slider grid, and the panels.

The layout (first render) and the callbacks (every change after) both call these, so the
first paint and a redraw can never disagree.
"""

from __future__ import annotations

from dash import html

from engine.analysis import Scenario
from engine.errors import EngineInputError

from ..service import BATCH_STOPS, CONTEXT_STOPS, dashboard_data, dashboard_grid, grid_key, memo_grid
from .figures import comparison_rows, memory_figure, message_figure, ops_rows, roofline_figure, throughput_figure
from .i18n import t
from .insight import insight_sentences
from .marks import grid_payload
from .url_state import PRECISIONS, View, model_spec


def scenario_of(view: View) -> Scenario:
    weight, compute = PRECISIONS[view.precision]
    return Scenario(batch_size=view.batch, context_length=view.context, num_kv_heads=view.kv_heads,
                    weight_dtype=weight, kv_dtype=view.kv_precision, compute_dtype=compute,
                    flash_attention=view.flash_attention, tensor_parallel=view.tensor_parallel,
                    roofs="measured" if view.measured_roofs else "nominal",
                    bandwidth_efficiency=view.bandwidth_efficiency, compute_efficiency=view.compute_efficiency)


def _step_s(view: View) -> float | None:
    return view.measured_step_ms / 1e3 if view.measured_step_ms else None


def view_data(view: View) -> dict:
    """The engine's numbers at the view's scenario (cached and shared by concurrent callers)."""
    return dashboard_data(model_spec(view), list(view.hardware), scenario_of(view), _step_s(view), view.measurements)


def on_grid(view: View) -> bool:
    return view.batch in BATCH_STOPS and view.context in CONTEXT_STOPS


def slider_grid(view: View) -> dict:
    """The formatted slider grid for the view's structure (any batch and context)."""
    args = (model_spec(view), list(view.hardware), scenario_of(view), _step_s(view), view.measurements)
    return memo_grid(("payload", view.lang, *grid_key(*args)),
                     lambda: grid_payload(dashboard_grid(*args), list(view.hardware), view.lang))


def roofline(view: View, with_grid: bool = True) -> tuple[dict, dict | None]:
    """(figure, slider grid): the grid is None when there is nothing to move (an error)."""
    if not view.hardware:
        return message_figure(t("no_hardware", view.lang)), None
    try:
        grid = slider_grid(view)  # its extent sets the axes, so the figure needs it even when it is not sent
        data = view_data(view)
    except EngineInputError as exc:  # e.g. a TP degree that does not divide the heads
        return message_figure(t("error", view.lang, message=str(exc))), None
    figure = roofline_figure(data["analysis"]["results"], data["trajectories"], view.lang, view.theme, view.present,
                             data["measured_points"], grid["extent"], (view.batch, view.context))
    return figure, grid if with_grid else None


EMPTY_FIGURE = {"data": [], "layout": {"xaxis": {"visible": False}, "yaxis": {"visible": False}, "height": 120}}


def panels(view: View) -> tuple:
    """(insight, memory figure, throughput figure, ops rows, ops title, comparison rows, notices)."""
    lang = view.lang
    if not view.hardware:
        return html.P(t("no_hardware", lang), className="error"), EMPTY_FIGURE, EMPTY_FIGURE, [], "", [], []
    try:
        data = view_data(view)
    except EngineInputError as exc:
        message = html.P(t("error", lang, message=str(exc)), className="error", role="alert")
        return message, EMPTY_FIGURE, EMPTY_FIGURE, [], "", [], []
    results = data["analysis"]["results"]
    notices = []
    if (view.bandwidth_efficiency, view.compute_efficiency) != (1.0, 1.0):
        notices.append(t("efficiency_notice", lang, bw=f"{view.bandwidth_efficiency:.0%}",
                         fl=f"{view.compute_efficiency:.0%}"))
    compute_dtype = PRECISIONS[view.precision][1]
    for r in results:
        if r["tensor_dtype"] != compute_dtype:
            notices.append(t("dtype_fallback", lang, hw=r["hardware_name"], want=compute_dtype, got=r["tensor_dtype"]))
        notices += r.get("warnings", [])
    return ([html.P(s) for s in insight_sentences(results, data["trajectory_end"], data["kv_wall_intensity"], lang)],
            memory_figure(results, lang, view.theme, view.present),
            throughput_figure(data["throughput"], results, lang, view.theme, view.present),
            ops_rows(results[0]), results[0]["hardware_name"], comparison_rows(results),
            [html.Li(n) for n in notices])
