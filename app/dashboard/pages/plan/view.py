"""Everything the page shows for one question, from the engine's answer: the frontier chart
(whole, or the marks of the target's region and the star), the accelerators compared, and the
view the browser draws (assets/13-plan.js: the verdict, the counts, the caption and the top N).
The first paint and every callback call `shown` or `moved`, so the same inputs always show
the same thing."""

from __future__ import annotations

import json
from dataclasses import replace

from dash import html, no_update

from app.dashboard.components.plot_style import message_figure
from app.dashboard.lib.markup import plotly_text
from app.dashboard.pages.plan.compute import answered, drawn_key, found
from app.dashboard.pages.plan.figures import compare_figure, drawn_of, frontier_figure, target_marks
from app.dashboard.pages.plan.measured import measured_runs
from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.plan.provenance import accelerator_names, provenance
from app.dashboard.pages.plan.state import TPOT_STOPS, TTFT_STOPS
from app.dashboard.pages.plan.table import row
from app.dashboard.pages.plan.words import counts_text, missing_text, verdict, warnings_text, why
from engine.errors import EngineInputError

KEYS = ("error", "figure", "compare", "compare_hidden", "view", "drawn")


def _bar_update(trace: dict) -> dict:
    """What a target's move changes in one of the comparison's bar traces, as Plotly.restyle
    takes it (a nested attribute by its dotted name)."""
    out = {k: trace[k] for k in ("x", "text", "hovertext")}
    for k in ("array", "arrayminus"):
        if "error_x" in trace:
            out[f"error_x.{k}"] = trace["error_x"][k]
    return out


def _view(a: PlanArgs, answer: dict, names: dict, lang: str, theme: str, pool: Pool) -> dict:
    """The words and rows the browser draws (assets/13-plan.js), all formatted here; the rows
    as places in a pool of rows (a view's own, or its grid's)."""
    prov = provenance(a, lang)
    return {
        "verdict": verdict(answer, names, a.modes, lang),
        "counts": counts_text(answer, lang) + missing_text(found(a).cols, a, names, lang) + warnings_text(answer),
        "caption": "\n".join([prov["scenario"], prov["targets"], prov["calibration"], prov["measured_source"]]),
        "rows": [pool.add(c, lambda c=c: row(c, names, dict(a.prices), lang, theme)) for c in answer["top"]],
        "marks": None,
        "compare": None,
    }


class Pool:
    """Rows shared by the views of a grid: a candidate in the top N at many stops is formatted
    once and travels once."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self._at: dict[str, int] = {}

    def add(self, candidate: dict, make) -> int:
        """The candidate's place (its row made by `make()` the first time)."""
        key = json.dumps(candidate["serving_request"], sort_keys=True)  # the deployment: one candidate
        if key not in self._at:
            self._at[key] = len(self.rows)
            self.rows.append(make())
        return self._at[key]


def _blocked(messages: list[str]) -> dict:
    """No search: the reasons, said once, in the verdict's line (the one the table points to)."""
    empty = message_figure("—")
    view = {"verdict": " ".join(messages), "counts": "", "caption": "", "rows": [], "marks": None, "compare": None}
    return dict(zip(KEYS, ([], empty, empty, True, view | {"pool": []}, {}), strict=True))


def _names(a: PlanArgs) -> dict[str, str]:
    return {h: plotly_text(n) for h, n in accelerator_names(a).items()}


def shown(a: PlanArgs, problems: list[str], refused: list[str], lang: str, theme: str, present: bool) -> dict:
    """The whole page for a question: a new search (or the cache's), everything drawn anew."""
    if problems:
        return _blocked(problems)
    try:
        planned = answered(a)
    except EngineInputError as exc:
        return _blocked([why(exc, lang)])
    names = _names(a)
    runs = {h: measured_runs(a, h) for h in a.hardware}
    figure = frontier_figure(planned.answer, runs, names, a.gpus, lang, theme, present)
    pool = Pool()
    view = _view(a, planned.answer, names, lang, theme, pool) | {"pool": pool.rows}
    return {
        "error": [html.P(r) for r in refused],
        "figure": figure,
        "compare": compare_figure(planned.answer, names, lang, theme, present),
        "compare_hidden": len(a.hardware) < 2,
        "view": view,
        "drawn": {"key": planned.key, **drawn_of(figure)},
    }


def _moved_view(a: PlanArgs, answer: dict, drawn: dict, names, lang, theme, present, pool: Pool) -> tuple[dict, dict]:
    """A target's view: the words and rows, the star's and the region's marks and the
    comparison's bars. (The view, the drawn ranges.)"""
    marks, now = target_marks(answer, names, drawn, theme, lang)
    view = _view(a, answer, names, lang, theme, pool)
    view["marks"] = marks
    view["compare"] = [_bar_update(t) for t in compare_figure(answer, names, lang, theme, present)["data"]]
    return view, now


def grid(a: PlanArgs, drawn: dict, lang: str, theme: str, present: bool) -> dict:
    """The views at every stop of each target's slider, the other target as it is (`at`): a
    drag draws them in the browser with no round trip (assets/13-plan.js), as the roofline's
    sliders do; the server answers once the slider rests. Each is the engine's answer for that
    target (engine.planner.answer on the search already made: a few ms each). Made after the
    page's answer (callbacks.update_grid): a new search is drawn before its grid is ready."""
    names, pool = _names(a), Pool()
    out = {"key": drawn["key"], "at": {"tpot_ms": a.tpot_ms, "ttft_ms": a.ttft_ms}, "stops": {}, "views": {}}
    for name, field, stops in (("tpot", "tpot_ms", TPOT_STOPS), ("ttft", "ttft_ms", TTFT_STOPS)):
        views = []
        for ms in stops:
            at = replace(a, **{field: ms})
            views.append(
                _moved_view(at, answered(at, frontier=False).answer, drawn, names, lang, theme, present, pool)[0]
            )
        out["stops"][name] = list(stops)
        out["views"][name] = views
    out["pool"] = pool.rows
    return out


def moved(a: PlanArgs, refused: list[str], drawn: dict, lang: str, theme: str, present: bool) -> dict:
    """A target moved (or how it is met): the same search re-filtered; the chart's region and
    star and the comparison's bars moved in place (their marks), the words and rows anew."""
    planned = answered(a, frontier=False)
    pool = Pool()
    view, now = _moved_view(a, planned.answer, drawn, _names(a), lang, theme, present, pool)
    return {
        "error": [html.P(r) for r in refused],
        "figure": no_update,
        "compare": no_update,
        "compare_hidden": no_update,
        "view": view | {"pool": pool.rows},
        "drawn": now if now != drawn else no_update,
    }


def patches(a: PlanArgs, drawn: object) -> bool:
    """Whether the chart on screen is this question's search (a target's move redraws in place)."""
    return isinstance(drawn, dict) and drawn.get("key") == drawn_key(a)
