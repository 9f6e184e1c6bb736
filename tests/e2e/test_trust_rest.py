"""Trust at first touch, the rest: the scenario line wraps instead of being cut, the One request
card says what it needs, the HTML snapshot keeps a chart's proportions, every symbol on the
symbol line, labelled measurement controls."""

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import wait_for_figure

# The scenario line (the figure's title) against the figure: Plotly never wraps a title, so a
# long one ran past the SVG's right edge and was cut.
TITLE_JS = """() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');
  const t = g && g.querySelector('.gtitle'); if (!t) return null;
  const svg = g.querySelector('svg.main-svg').getBoundingClientRect(), r = t.getBoundingClientRect();
  return {text: t.textContent, lines: t.querySelectorAll('tspan.line').length || 1,
          left: r.left, right: r.right, svgLeft: svg.left, svgRight: svg.right, svgTop: svg.top,
          top: r.top, bottom: r.bottom, plotTop: svg.top + g._fullLayout._size.t}; }"""

LONG_NAME = "example-org/Llama-3.2-3B-Instruct-long-context-distilled-experimental-checkpoint"


def _title_inside(page: Page) -> dict:
    page.wait_for_function(TITLE_JS)
    box = page.evaluate(TITLE_JS)
    assert box["left"] >= box["svgLeft"] - 1 and box["right"] <= box["svgRight"] + 1, box
    assert box["top"] >= box["svgTop"] - 1, box  # the first line is not cut at the top either
    assert box["bottom"] <= box["plotTop"] + 1, box  # the last line stays above the plot
    return box


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scenario_line_wraps_in_the_embed(page: Page, base_url, lang):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(f"{base_url}/?embed=1&lang={lang}&hw=h100-sxm5,h200-sxm&model=llama-3-70b&batch=16")
    wait_for_figure(page)
    box = _title_inside(page)
    assert box["lines"] >= 2 and "FlashAttention" in box["text"]


def test_scenario_line_wraps_a_long_custom_model_name(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=1&ctx=1024")
    wait_for_figure(page)
    page.locator("#model").click()
    page.get_by_role("option", name="custom config.json…").click()
    config = (
        '{"_name_or_path": "' + LONG_NAME + '", "model_type": "llama", "hidden_size": 2048,'
        ' "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 4,'
        ' "intermediate_size": 8192, "vocab_size": 32000}'
    )
    page.locator("#custom-config").fill(config)
    page.locator("#custom-apply").click()
    page.wait_for_function(
        "() => { const t = document.querySelector('#roofline-graph .gtitle');"
        " return t && t.textContent.includes('distilled'); }"
    )
    box = _title_inside(page)
    assert "FlashAttention" in box["text"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_request_says_what_it_needs_and_opens_it(page: Page, base_url, lang):
    """Without output tokens the One request card says it needs them and links to the box in the
    closed Serving section; the link opens it and a value fills the card's table."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?lang={lang}&hw=h100-sxm5&model=llama-3-8b")
    wait_for_figure(page)
    card = page.locator("#request")
    expect(card).to_contain_text("output tokens" if lang == "en" else "输出 token 数")
    box = page.locator("#output-tokens")
    expect(box).to_be_hidden()
    card.locator("a.request-open").click()
    expect(box).to_be_visible()
    box.fill("256")
    box.press("Enter")
    expect(card.locator("table.request-table tbody tr")).to_have_count(1)


def test_html_snapshot_keeps_a_charts_proportions(page: Page, base_url):
    """The exported snapshot, opened in a 1400 px window, draws the roofline 720 px tall and at
    most 1200 px wide (it was ~260 px tall across the whole window)."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b")
    wait_for_figure(page)
    with page.expect_download() as info:
        page.locator("#export-html").click()
    page.goto("about:blank")  # the file as opened from disk: none of the page's CSP
    with open(info.value.path(), encoding="utf-8") as f:
        page.set_content(f.read())
    page.wait_for_function("() => { const g = document.querySelector('.js-plotly-plot'); return g && g._fullLayout; }")
    height, width = page.evaluate(
        "() => { const l = document.querySelector('.js-plotly-plot')._fullLayout; return [l.height, l.width]; }"
    )
    assert height == 720 and 600 <= width <= 1200, (height, width)
