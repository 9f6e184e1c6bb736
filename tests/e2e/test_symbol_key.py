"""The symbol key (what each mark means: decode, prefill, ridge, hollow...) is never cut: every
item lies inside the roofline's card at an 800x500 embed and on a 390 px phone, with eight
accelerators, in English and in Chinese; the plot keeps at least 60% of the chart's height;
the downloaded image still explains its marks."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import wait_for_figure

EIGHT = "h100-sxm5,h200-sxm,b200,mi300x,rtx-4090,a100-80gb-sxm,l40s,gaudi-3"
HOLLOW = {"en": "hollow: does not fit", "zh": "空心：放不下"}

# Every item of the symbol key wherever the page draws it (HTML beside the chart, or the
# figure's legend title), against the chart and the card around it.
KEY_JS = """() => {
  const g = document.querySelector('#roofline-graph .js-plotly-plot');
  const card = g.closest('.figure').getBoundingClientRect(), chart = g.getBoundingClientRect();
  const left = Math.max(card.left, chart.left), right = Math.min(card.right, chart.right);
  const items = Array.from(document.querySelectorAll(
    '#roofline-key .key-item, #roofline-graph .legendtitletext'));
  return {
    text: items.map(e => e.textContent).join(' | '),
    cut: items.filter(e => { const r = e.getBoundingClientRect();
      return r.width > 0 && (r.left < left - 1 || r.right > right + 1); })
      .map(e => e.textContent.slice(0, 40) + ' @ ' + Math.round(e.getBoundingClientRect().right)),
    hidden: items.filter(e => e.getBoundingClientRect().width === 0).length,
    right, count: items.length,
  };
}"""
ROOM_JS = """() => { const l = document.querySelector('#roofline-graph .js-plotly-plot')._fullLayout;
  return [l._size.h, l.height]; }"""


def _open(page: Page, url: str) -> None:
    page.goto(url)
    wait_for_figure(page)
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "size,query",
    [((800, 500), f"embed=1&hw={EIGHT}&model=llama-3-70b&batch=16"), ((390, 844), f"hw={EIGHT}")],
    ids=["embed-800x500", "phone-390x844"],
)
def test_every_symbol_key_item_inside_the_card(page: Page, base_url, size, query, lang):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    _open(page, f"{base_url}/?{query}&lang={lang}")
    key = page.evaluate(KEY_JS)
    assert HOLLOW[lang] in key["text"], key  # the key is there and explains hollow points
    assert key["cut"] == [] and key["hidden"] == 0, key


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1400, 900, ""), (390, 844, ""), (1920, 1080, "&present=1")])
def test_eight_accelerators_leave_the_plot_sixty_percent_and_an_explained_key(page: Page, base_url, theme, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    _open(page, f"{base_url}/?hw={EIGHT}&lang=zh&theme={theme}{size[2]}")
    plot, chart = page.evaluate(ROOM_JS)
    assert plot >= 0.6 * chart, (plot, chart)
    key = page.evaluate(KEY_JS)
    assert HOLLOW["zh"] in key["text"] and key["cut"] == [], key


def test_downloaded_image_explains_its_marks_inside_its_width(page: Page, base_url):
    """The SVG export (1200 x 750, the same figure as the PNG) carries the symbol key, every
    line of it inside the image, in Chinese with eight accelerators and a profile's + kept."""
    page.set_viewport_size({"width": 800, "height": 500})
    _open(page, f"{base_url}/?embed=1&hw={EIGHT}&lang=zh&present=1")
    with page.expect_download() as info:
        page.locator("#export-svg").click()
    with open(info.value.path(), encoding="utf-8") as f:
        svg = f.read()
    assert HOLLOW["zh"] in svg
    page.goto("about:blank")
    page.set_content(svg)
    lines = page.evaluate(
        """() => { const svg = document.querySelector('svg').getBoundingClientRect();
             const t = document.querySelector('.legendtitletext');
             const spans = t ? Array.from(t.querySelectorAll('tspan.line')) : [];
             const parts = spans.length ? spans : (t ? [t] : []);
             return {width: svg.width, height: svg.height,
                     rights: parts.map(e => e.getBoundingClientRect().right),
                     lefts: parts.map(e => e.getBoundingClientRect().left)}; }"""
    )
    assert lines["rights"], lines
    assert max(lines["rights"]) <= lines["width"] + 1 and min(lines["lefts"]) >= -1, lines


def test_html_snapshot_explains_its_marks(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    _open(page, f"{base_url}/?hw={EIGHT}&lang=zh")
    with page.expect_download() as info:
        page.locator("#export-html").click()
    page.goto("about:blank")
    with open(info.value.path(), encoding="utf-8") as f:
        page.set_content(f.read())
    page.wait_for_function("() => { const g = document.querySelector('.js-plotly-plot'); return g && g._fullLayout; }")
    title = page.locator(".legendtitletext")
    expect(title).to_contain_text(re.compile(HOLLOW["zh"]))
    inside = page.evaluate(
        """() => { const g = document.querySelector('.js-plotly-plot').getBoundingClientRect();
             return Array.from(document.querySelectorAll('.legendtitletext tspan.line, .legendtitletext'))
               .every(e => { const r = e.getBoundingClientRect();
                             return r.left >= g.left - 1 && r.right <= g.right + 1; }); }"""
    )
    assert inside


def test_the_charts_camera_downloads_the_image_with_the_key(page: Page, base_url):
    """Plotly's camera button would draw the chart as shown (its key is HTML beside it): it
    hands over to the header's PNG, 1200 x 750 with the key in the legend, named alike."""
    page.set_viewport_size({"width": 1400, "height": 900})
    _open(page, f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b")
    with page.expect_download() as header:
        page.locator("#export-png").click()
    page.locator("#roofline-graph").hover()
    with page.expect_download() as camera:
        page.locator("#roofline-graph .modebar-btn[data-title='Download plot as a PNG']").click()
    assert camera.value.suggested_filename == header.value.suggested_filename
    with open(camera.value.path(), "rb") as f:
        head = f.read(24)
    assert head.startswith(b"\x89PNG")
    assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (1200, 750)


def test_in_an_embed_a_notice_above_the_chart_leaves_the_key_in_the_frame(page: Page, base_url):
    """An A100 has no fp8 roof: its notice's line pushed the key to y = 499-520 of a 500 px
    frame, out of sight (the chart's height was the frame's less a fixed 48 px)."""
    page.set_viewport_size({"width": 800, "height": 500})
    _open(page, f"{base_url}/?embed=1&hw=h100-sxm5,a100-80gb-sxm&model=llama-3-70b&batch=16")
    assert page.locator("#efficiency-notice li").count() >= 1
    key = page.locator("#roofline-key").bounding_box()
    assert key and key["y"] + key["height"] <= 500 + 1, key
    assert HOLLOW["en"] in page.evaluate(KEY_JS)["text"]
