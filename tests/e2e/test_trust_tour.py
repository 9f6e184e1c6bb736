"""A tour of the roofline page in en and zh, light and dark, at the four sizes it is shown at
(desktop 1400x900, presentation 1920x1080, an 800x500 wiki embed, a 390x844 phone): no console
error (the page fixture), no sideways scroll, no axis text on axis text (bounding boxes), and
no chart left blank without a sentence."""

import pytest
from playwright.sync_api import Page

from tests.e2e.helpers import wait_for_figure
from tests.e2e.test_trust_layout import OVERLAPS_JS, WIDTH_JS

SIZES = {
    "desktop": ((1400, 900), ""),
    "present": ((1920, 1080), "&present=1"),
    "embed": ((800, 500), "&embed=1"),
    "phone": ((390, 844), ""),
}
# Every drawn chart has data, or an annotation (a sentence) saying why it has none.
BLANK_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g.offsetParent)
  .filter(g => !(g.data || []).some(t => (t.x || []).length || (t.y || []).length)
               && !g.querySelector('.annotation-text'))
  .map(g => (g.closest('[id]') || {}).id)"""


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_tour(page: Page, base_url, size, lang, theme):
    (width, height), extra = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm,mi300x&model=llama-3-8b&lang={lang}&theme={theme}{extra}")
    wait_for_figure(page)
    page.wait_for_load_state("networkidle")
    assert page.evaluate(OVERLAPS_JS) == []
    if size != "embed":  # the embed is a fixed iframe that never scrolls (overflow hidden)
        scroll, inner = page.evaluate(WIDTH_JS)
        assert scroll <= inner, f"{size}: {scroll} px wide at {inner}"
    assert page.evaluate(BLANK_JS) == []
