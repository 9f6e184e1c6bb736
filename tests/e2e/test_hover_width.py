"""Hovers a phone can read, in Chromium. Plotly never wraps a hover, and one wider than its chart
is cut at the chart's edges: a phone's plot is 328 px wide, and a measured run's hover at 80
columns a line ran from 125 px left of it to 75 px past it. Every hover the pages draw is
wrapped to HOVER_LINE_UNITS columns (app/dashboard/lib/markup.py), and a long one hovered on a
phone lies inside its chart. Any console error fails (conftest)."""

import re
import unicodedata

import pytest
from playwright.sync_api import Page

from app.dashboard.lib.markup import HOVER_LINE_UNITS

from .test_plan_layouts import QUESTION
from .test_serving_layouts import HOVER_JS, SETTLED_JS, UNSETTLED, boxes, inside

# Every hover of every chart on the page: the trace's template, its hovertext, and its text where
# the template shows it (a bar's text is drawn on the bar, not hovered).
HOVERS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(p => (p.data || [])
  .flatMap(t => {
    const template = [].concat(t.hovertemplate || []);
    const shown = template.some(s => String(s).includes('%{text}')) ? [].concat(t.text || []) : [];
    return [...template, ...[].concat(t.hovertext || []), ...shown]
      .filter(s => typeof s === 'string').map(s => [p.parentElement.id, t.uid || t.name || '', s]);
  }))"""
# A template's value slot stands for a value's usual width: "1,234.5" or "12.3 ms"
SLOT_COLUMNS = 8
PAGES = (
    "/?lang=en",
    "/?lang=zh",
    "/?tab=ops&lang=zh",
    "/?tab=training",
    "/?tab=serving&model=deepseek-ai/DeepSeek-R1&hw=gb200&lang=zh",
    UNSETTLED + "&lang=en",
    UNSETTLED + "&lang=zh",
    QUESTION + "&lang=en",
    QUESTION + "&lang=zh",
)


def _columns(line: str) -> int:
    text = re.sub(r"%\{[^}]*\}", "x" * SLOT_COLUMNS, re.sub(r"<[^>]+>", "", line))
    text = re.sub(r"&[a-z]+;|&#\d+;", "x", text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@pytest.mark.parametrize("query", PAGES)
def test_no_hover_line_is_wider_than_a_phones_chart_holds(page: Page, base_url, query):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + query)
    page.wait_for_function(SETTLED_JS, arg=".js-plotly-plot .main-svg", polling=50, timeout=30000)
    hovers = page.evaluate(HOVERS_JS)
    assert len(hovers) >= 3, hovers  # the check read the page's charts
    lines = [(chart, trace, line) for chart, trace, text in hovers for line in text.split("<br>")]
    too_wide = [(chart, trace, line) for chart, trace, line in lines if _columns(line) > HOVER_LINE_UNITS]
    assert not too_wide, too_wide[:5]


def _hover_inside(page: Page, chart: str, trace_uid_end: str, point: int) -> None:
    """Hover the `point`-th point of the trace whose uid ends so; its hover lies inside the chart."""
    index = page.evaluate(
        "([chart, end]) => document.querySelector(`#${chart} .js-plotly-plot`).data"
        ".findIndex(t => t.uid.endsWith(end))",
        [chart, trace_uid_end],
    )
    assert index >= 0, trace_uid_end
    page.locator(f"#{chart} .scatterlayer .trace:nth-child({index + 1}) .point").nth(point).hover(force=True)
    label = HOVER_JS.replace("#srv-throughput", f"#{chart}")
    page.wait_for_function(f"() => ({label})() !== null")
    hover = page.evaluate(label)
    svg = boxes(page, s=f"#{chart} .main-svg")["s"][0]
    assert inside(hover["box"], svg), (hover["box"], svg)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_measured_runs_long_hover_lies_inside_a_phones_chart(page: Page, base_url, lang):
    """The serving page's longest hover: a run whose recipe is unsettled, with the recipes it may
    have been."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url + UNSETTLED + f"&lang={lang}")
    page.wait_for_function(SETTLED_JS, arg="#srv-throughput .main-svg", polling=50)
    _hover_inside(page, "srv-throughput", "--disagg-measured", 5)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_candidates_hover_lies_inside_a_phones_chart(page: Page, base_url, lang):
    """The planner's frontier: a candidate's hover names its layout, times, rates and costs."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url + QUESTION + f"&lang={lang}")
    page.wait_for_function(SETTLED_JS, arg="#plan-frontier .main-svg", polling=50)
    page.locator("#plan-frontier").scroll_into_view_if_needed()
    _hover_inside(page, "plan-frontier", "--aggregated", 1)
