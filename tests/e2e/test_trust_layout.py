"""Layouts that must hold where the tool is shown: no sideways scroll at 1400 px or on a phone,
tables scroll inside their card, no axis text on axis text in presentation mode, eight
accelerators in eight distinct colours with a legend that leaves the plot its room."""

import pytest
from playwright.sync_api import Page

from tests.e2e.helpers import wait_for_figure

EIGHT = "h100-sxm5,h200-sxm,b200,mi300x,rtx-4090,a100-80gb-sxm,l40s,gaudi-3"

# Whether two boxes overlap by more than a pixel (an empty box never does).
HIT_JS = """const hit = (a, b) => a.width > 0 && b.width > 0 && a.left < b.right - 1 && b.left < a.right - 1
                      && a.top < b.bottom - 1 && b.top < a.bottom - 1;"""

# Pairs of axis texts that overlap: every title against every tick label of every chart.
OVERLAPS_JS = (
    """() => {
  const out = [];
  """
    + HIT_JS
    + """
  document.querySelectorAll('.js-plotly-plot').forEach(g => {
    const id = (g.closest('[id]') || {}).id;
    const titles = Array.from(g.querySelectorAll('.g-xtitle text, .g-ytitle text'));
    const ticks = Array.from(g.querySelectorAll('.xtick text, .ytick text'));
    for (const t of titles) for (const k of ticks) {
      if (hit(t.getBoundingClientRect(), k.getBoundingClientRect()))
        out.push(id + ': ' + t.textContent + ' / ' + k.textContent);
    }
  });
  return out;
}"""
)
WIDTH_JS = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def _settle(page: Page, url: str) -> None:
    page.goto(url)
    wait_for_figure(page)
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize("size", [(1400, 900), (390, 844)])
@pytest.mark.parametrize("tab", ["roofline", "ops", "training"])
def test_no_sideways_scroll(page: Page, base_url, size, tab):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{base_url}/?tab={tab}&hw={EIGHT if tab == 'roofline' else 'h100-sxm5'}")
    page.wait_for_selector(".js-plotly-plot")
    page.wait_for_load_state("networkidle")
    scroll, inner = page.evaluate(WIDTH_JS)
    assert scroll <= inner, f"{tab} at {size[0]} px: the page is {scroll} px wide"


def test_tables_scroll_inside_their_card(page: Page, base_url):
    """On a phone the ops and comparison tables are wider than the screen: they scroll inside
    their card (a scrolling ancestor within it), never the page."""
    page.set_viewport_size({"width": 390, "height": 844})
    _settle(page, f"{base_url}/?hw={EIGHT}")
    spilled = page.evaluate(
        """() => Array.from(document.querySelectorAll('table')).filter(t => t.offsetParent).filter(t => {
             const card = t.closest('section') || document.body;
             if (t.getBoundingClientRect().right <= card.getBoundingClientRect().right + 1) return false;
             for (let e = t.parentElement; e; e = e.parentElement) {
               const x = getComputedStyle(e).overflowX;
               if (x === 'auto' || x === 'scroll') return false;
               if (e === card) break;
             }
             return true;
           }).map(t => (t.closest('section') || {}).id)"""
    )
    assert spilled == []
    scroll, inner = page.evaluate(WIDTH_JS)
    assert scroll <= inner


def test_presentation_mode_axis_text_never_overlaps(page: Page, base_url):
    page.set_viewport_size({"width": 1920, "height": 1080})
    _settle(page, f"{base_url}/?present=1&hw=h100-sxm5,h200-sxm,mi300x")
    assert page.evaluate(OVERLAPS_JS) == []
    scroll, inner = page.evaluate(WIDTH_JS)
    assert scroll <= inner


def test_eight_accelerators_eight_distinct_colours_and_room_for_the_plot(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    for theme in ("light", "dark"):
        _settle(page, f"{base_url}/?hw={EIGHT}&theme={theme}")
        colours = page.evaluate(
            """() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');
                 return g._fullData.filter(t => (t.uid || '').endsWith('--memory') && t.uid.startsWith('roof--'))
                   .map(t => t.line.color); }"""
        )
        assert len(colours) == 8 and len(set(colours)) == 8, (theme, colours)
        room = page.evaluate(
            """() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');
                 return [g._fullLayout._size.h, g._fullLayout.height]; }"""
        )
        assert room[0] >= 0.6 * room[1], (theme, room)
        assert page.evaluate(OVERLAPS_JS) == [], theme


def test_exports_are_named_by_every_non_default_part(page: Page, base_url):
    """An fp8 TP-2 export and a bf16 TP-1 one never overwrite each other: the image (named in the
    browser) and the HTML snapshot (named by the server) carry the same, full name."""
    page.set_viewport_size({"width": 1400, "height": 900})
    _settle(page, f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&batch=64&ctx=4096&prec=fp8&tp=2")
    name = "roofline-llama-3-8b-h100-sxm5+h200-sxm-b64-t4096-tp-2"  # fp8 is the product's default now
    with page.expect_download() as info:
        page.locator("#export-png").click()
    assert info.value.suggested_filename == name + ".png"
    with page.expect_download() as info:
        page.locator("#export-html").click()
    assert info.value.suggested_filename == name + ".html"
    _settle(page, f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&batch=64&ctx=4096&prec=bf16&tp=1")
    with page.expect_download() as info:
        page.locator("#export-png").click()
    bf16 = "roofline-llama-3-8b-h100-sxm5+h200-sxm-b64-t4096-prec-bf16-kvprec-bf16-tp-1.png"
    assert info.value.suggested_filename == bf16


@pytest.mark.parametrize("tab", ["roofline", "training"])
def test_presentation_mode_numbers_are_whole_and_slider_labels_readable(page: Page, base_url, tab):
    """On a projector a number box shows its whole number (the training lab's sequence box read
    "409" for 4096) and the sliders' tick labels are not left at the page's small print."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{base_url}/?tab={tab}&present=1&hw=h100-sxm5")
    page.wait_for_selector(".js-plotly-plot")
    page.wait_for_load_state("networkidle")
    cut = page.evaluate(
        """() => Array.from(document.querySelectorAll('input[type=number]')).filter(e => e.offsetParent)
             .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.id + '=' + e.value)"""
    )
    assert cut == []
    sizes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.dash-slider-mark')).filter(e => e.offsetParent)
             .map(e => parseFloat(getComputedStyle(e).fontSize))"""
    )
    assert all(size >= 14 for size in sizes), sizes


# Pairs of tick labels of one axis that overlap, every chart on the page.
TICKS_JS = (
    """() => {
  const out = [];
  """
    + HIT_JS
    + """
  document.querySelectorAll('.js-plotly-plot').forEach(g => {
    const id = (g.closest('[id]') || {}).id;
    for (const axis of ['xtick', 'ytick']) {
      const ticks = Array.from(g.querySelectorAll('.' + axis + ' text'));
      ticks.forEach((a, i) => ticks.slice(i + 1).forEach(b => {
        if (hit(a.getBoundingClientRect(), b.getBoundingClientRect()))
          out.push(id + ': ' + a.textContent + ' / ' + b.textContent);
      }));
    }
  });
  return out;
}"""
)


def test_on_a_phone_no_two_tick_labels_of_an_axis_overlap(page: Page, base_url):
    """The decode throughput chart labelled batch 1 to 2,048 at 1-2-5: "100" on "200", "500" on
    "1,000" at 390 px."""
    page.set_viewport_size({"width": 390, "height": 844})
    _settle(page, f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&tp=1")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.wait_for_timeout(500)
    assert page.evaluate(TICKS_JS) == []
