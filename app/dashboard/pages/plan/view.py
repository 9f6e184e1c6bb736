"""Everything the page shows for one question, from the engine's answer: the frontier chart
(whole, or a patch of the target's region and the star), the verdict, the counts, the top N,
the accelerators compared, the caption. The first paint and every callback call `shown` or
`moved`, so the same inputs always show the same thing."""

from __future__ import annotations

from dash import html, no_update

from app.dashboard.components.plot_style import message_figure
from app.dashboard.lib.markup import plotly_text
from app.dashboard.pages.plan.compute import answered, drawn_key
from app.dashboard.pages.plan.exports import export_title
from app.dashboard.pages.plan.figures import compare_figure, frontier_figure, ranges, target_patch
from app.dashboard.pages.plan.measured import measured_runs
from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.plan.provenance import accelerator_names, provenance
from app.dashboard.pages.plan.table import top_table
from app.dashboard.pages.plan.words import counts_text, missing_text, verdict, why
from engine.errors import EngineInputError

KEYS = ("error", "figure", "verdict", "counts", "table", "compare", "compare_hidden", "caption", "drawn")


def caption(prov: dict) -> list:
    lines = [prov["scenario"], prov["targets"], prov["calibration"], prov["measured_source"]]
    out = []
    for line in lines:
        out += [html.Span(line), html.Br()]
    return out[:-1]


def _blocked(messages: list[str]) -> dict:
    empty = message_figure("—")
    return dict(zip(KEYS, ([html.P(m) for m in messages], empty, "", "", [], empty, True, [], {}), strict=True))


def _words(a: PlanArgs, answer: dict, names: dict, lang: str, theme: str) -> dict:
    prices = dict(a.prices)
    return {
        "verdict": verdict(answer, names, a.modes, lang),
        "counts": counts_text(answer, lang) + missing_text(answer, names, a.modes, lang),
        "table": top_table(answer, names, prices, lang, theme),
        "compare": compare_figure(answer, names, lang, theme, False),
        "compare_hidden": len(a.hardware) < 2,
    }


def shown(a: PlanArgs, problems: list[str], refused: list[str], lang: str, theme: str, present: bool) -> dict:
    """The whole page for a question: a new search (or the cache's), everything drawn anew."""
    if problems:
        return _blocked(problems)
    try:
        planned = answered(a)
    except EngineInputError as exc:
        return _blocked([why(exc, lang)])
    names = {h: plotly_text(n) for h, n in accelerator_names(a).items()}
    runs = {h: measured_runs(a, h) for h in a.hardware}
    figure = frontier_figure(planned.answer, runs, names, a.gpus, lang, theme, present)
    prov = provenance(a, lang)
    figure["layout"]["meta"] = {"export": export_title([plotly_text(v) for v in prov.values()])}
    return {
        "error": [html.P(r) for r in refused],
        "figure": figure,
        **_words(a, planned.answer, names, lang, theme),
        "caption": caption(prov),
        "drawn": {"key": planned.key, **ranges(figure)},
    }


def moved(a: PlanArgs, refused: list[str], drawn: dict, lang: str, theme: str) -> dict:
    """A target moved (or how it is met): the same search re-filtered, the chart patched (its
    region and star), the words and the table anew."""
    planned = answered(a, frontier=False)
    names = {h: plotly_text(n) for h, n in accelerator_names(a).items()}
    patch, now = target_patch(planned.answer, names, drawn, theme, lang)
    prov = provenance(a, lang)
    patch["layout"]["meta"]["export"] = export_title([plotly_text(v) for v in prov.values()])
    return {
        "error": [html.P(r) for r in refused],
        "figure": patch,
        **_words(a, planned.answer, names, lang, theme),
        "caption": caption(prov),
        "drawn": now if now != drawn else no_update,
    }


def patches(a: PlanArgs, drawn: object) -> bool:
    """Whether the chart on screen is this question's search (a target's move patches it)."""
    return isinstance(drawn, dict) and drawn.get("key") == drawn_key(a)
