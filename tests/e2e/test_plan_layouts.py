"""The Planner page where it is shown, measured by bounding boxes in Chromium: a laptop
(1400x900), a projector (present=1 at 1920x1080), a wiki iframe (embed=1 at 800x500: the chart
and the verdict only, with Open full view) and a phone (390x844), each in English and Chinese,
light and dark. Nothing wider than the window, no axis title on its tick labels, no legend on
the x axis, no text cut, the sliders' marks apart. Any console error fails (conftest)."""

import pytest
from playwright.sync_api import Page, expect

from .test_plan_page import figure
from .test_serving_layouts import (
    axes_read,
    boxes,
    inside,
    no_overlaps,
    no_overlaps_within,
    text_not_clipped,
    whole_in_view,
)

# Llama-3.1-70B on 8 x H200 and 8 x B200 with prices: both modes, the comparison with its costs
QUESTION = "/?tab=plan&model=meta-llama/Llama-3.1-70B&hw=h200-sxm,b200&gpus=8&tpot_ms=30&ttft_ms=1000" + (
    "&price=h200-sxm:3.5,b200:5.5"
)
MODES = [(lang, theme) for lang in ("en", "zh") for theme in ("light", "dark")]
TEXTS = "#plan-verdict, #plan-counts, #plan-provenance"


def _common(page: Page, width: int) -> None:
    figure(page)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    axes_read(page, "plan-frontier", ("x", "y"))
    found = boxes(
        page,
        legend="#plan-frontier .legend",
        axis="#plan-frontier .js-plotly-plot >> .xtick text, .g-xtitle",
    )
    no_overlaps(found["legend"], found["axis"], "the legend and the x axis")
    text_not_clipped(page, TEXTS)


def _controls_whole(page: Page) -> None:
    """Every box, stepper and slider mark inside the controls column, the marks apart."""
    column = boxes(page, c="#plan-controls")["c"][0]
    column = {**column, "bottom": 10**6}
    found = boxes(page, boxes="#plan-controls input[type=number], #plan-controls .dash-input-stepper",
                  marks="#plan-controls .dash-slider-mark")  # fmt: skip
    for box in found["boxes"] + found["marks"]:
        assert inside(box, column), box
    for slider in ("tpot", "ttft"):
        no_overlaps_within(boxes(page, m=f"#plan-{slider}-slider .dash-slider-mark")["m"], f"the {slider} marks")


def _compare_whole(page: Page) -> None:
    page.locator("#plan-compare").scroll_into_view_if_needed()
    # Plotly draws the panels' svg before their text: wait for the text (a loaded machine was
    # seen measuring in between), then measure
    page.locator("#plan-compare .js-plotly-plot .xtick text").first.wait_for(state="attached")
    # the panels lay themselves out as they scroll into view, and a redraw can fall between the
    # wait and the measure (seen once on a loaded machine): measure again until the text is there
    for _ in range(20):
        found = boxes(
            page,
            s="#plan-compare .main-svg",
            t="#plan-compare .js-plotly-plot >> .ytick text, .xtick text, .annotation-text",
            titles="#plan-compare .js-plotly-plot >> .annotation-text",
            ticks="#plan-compare .js-plotly-plot >> .ytick text, .xtick text",
        )
        if found["t"]:
            break
        page.wait_for_timeout(100)
    svg = found["s"][0]
    assert found["t"] and all(inside(r, svg) for r in found["t"]), found
    titles, ticks = found["titles"], found["ticks"]
    no_overlaps(titles, ticks, "the comparison's titles and labels")


def _table_whole(page: Page) -> None:
    wraps = page.evaluate(
        "() => Array.from(document.querySelectorAll('.plan-table-wrap')).map(w => [w.scrollWidth, w.clientWidth])"
    )
    assert wraps and all(scroll <= client + 1 for scroll, client in wraps), wraps


@pytest.mark.parametrize("lang,theme", MODES)
def test_laptop_1400x900(page: Page, base_url, lang, theme):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + QUESTION + f"&lang={lang}&theme={theme}")
    _common(page, 1400)
    graph = whole_in_view(page, "#plan-frontier .main-svg", 1400, 900)  # the chart above the fold
    verdict = whole_in_view(page, "#plan-verdict", 1400, 900)
    assert verdict["bottom"] <= graph["top"] + 1
    _controls_whole(page)
    _compare_whole(page)
    _table_whole(page)


@pytest.mark.parametrize("lang,theme", MODES)
def test_presentation_1920x1080(page: Page, base_url, lang, theme):
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(base_url + QUESTION + f"&present=1&lang={lang}&theme={theme}")
    _common(page, 1920)
    size = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#plan-verdict')).fontSize)")
    assert size >= 18
    whole_in_view(page, "#plan-verdict", 1920, 1080)
    _controls_whole(page)
    _compare_whole(page)
    _table_whole(page)


@pytest.mark.parametrize("lang,theme", MODES)
def test_embed_800x500(page: Page, base_url, lang, theme):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(base_url + QUESTION + f"&embed=1&lang={lang}&theme={theme}")
    _common(page, 800)
    for hidden in ("#plan-controls", "#plan-top-panel", "#plan-compare-panel", ".plan-exports"):
        expect(page.locator(hidden)).to_be_hidden()
    verdict = whole_in_view(page, "#plan-verdict", 800, 500)
    full = whole_in_view(page, "#open-full", 800, 500)
    whole_in_view(page, "#copy-link", 800, 500)  # the header every page shares
    graph = whole_in_view(page, "#plan-frontier .main-svg", 800, 500)
    assert graph["bottom"] - graph["top"] >= 250 and graph["top"] >= verdict["bottom"] - 1
    assert full["bottom"] <= verdict["top"] + 1
    assert page.evaluate("() => document.documentElement.scrollHeight") <= 501
    href = page.get_attribute("#open-full", "href")
    assert "embed" not in href and "tpot_ms=30" in href and "tab=plan" in href


@pytest.mark.parametrize("lang,theme", MODES)
def test_phone_390x844(page: Page, base_url, lang, theme):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(base_url + QUESTION + f"&lang={lang}&theme={theme}")
    _common(page, 390)
    _controls_whole(page)
    _compare_whole(page)
    # one frame: the panels above lay themselves out as they scroll into view, moving this one
    seen = boxes(page, card="#plan-top-panel", c="#plan-table td")
    card, cells = seen["card"][0], seen["c"]
    assert cells and all(inside(c, card) for c in cells)
