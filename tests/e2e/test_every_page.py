"""Issue 29 §3 in Chromium: every page has the same header (Copy link, Dark, Presentation, the
language; "Open full view" in a wiki's iframe), at the sizes the tool is shown (1400x900,
1920x1080 presenting, an 800x500 iframe, a 390x844 phone), light and dark, English and Chinese,
with the CJK font the product ships (this machine has none of its own: without it every Chinese
word would be a box), nothing cut and no console error (conftest.py)."""

import pytest
from playwright.sync_api import Page, expect

PAGES = ("", "tab=ops", "tab=training", "tab=serving")
SIZES = {
    "desktop": ((1400, 900), ""),
    "present": ((1920, 1080), "&present=1"),
    "embed": ((800, 500), "&embed=1"),
    "phone": ((390, 844), ""),
}

# the header's parts: each inside the viewport's width, none over another
HEADER_JS = """() => {
  const header = document.querySelector('.header');
  const parts = Array.from(header.querySelectorAll(
      '#copy-link, #open-full, .switches .toggle label, .tabs a, h1, .actions .button'))
    .filter(e => e.offsetParent !== null);
  const boxes = parts.map(e => { const r = e.getBoundingClientRect(), id = e.id || e.textContent.trim();
                                 return {id, l: r.left, r: r.right, t: r.top, b: r.bottom}; });
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.l < b.r - 1 && b.l < a.r - 1 && a.t < b.b - 1 && b.t < a.b - 1) overlaps.push([a.id, b.id]);
  }
  // a part whose words run past its own box (a tab squeezed narrower than its label)
  const spilled = parts.filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
    .map(e => e.textContent.trim());
  return {width: window.innerWidth, right: Math.max(...boxes.map(b => b.r)), left: Math.min(...boxes.map(b => b.l)),
          overlaps, spilled, scroll: document.scrollingElement.scrollWidth};
}"""

FONT_JS = """() => document.fonts.ready.then(() => ({
  loaded: document.fonts.check('16px "Noto Sans SC subset"', '中文'),
  faces: Array.from(document.fonts).filter(f => f.family.includes('Noto Sans SC subset')).map(f => f.status)}))"""

# a Chinese word in the page's font against the same word in a font that lacks CJK: a box
# (tofu) is as wide in both, a drawn glyph is not
WIDTH_JS = """(text) => { const c = document.createElement('canvas').getContext('2d');
  const family = getComputedStyle(document.querySelector('.app')).fontFamily;
  c.font = '16px ' + family; const page = c.measureText(text).width;
  c.font = '16px monospace'; const mono = c.measureText(text).width;
  return {page, mono, family}; }"""


def _open(page: Page, base_url: str, query: str, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{base_url}/?{query}")
    page.wait_for_selector(".header #copy-link", timeout=20000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=20000)


@pytest.mark.parametrize("where", SIZES)
@pytest.mark.parametrize("tab", PAGES)
@pytest.mark.parametrize(("lang", "theme"), [("en", "light"), ("zh", "dark")])
def test_every_page_has_the_same_header_whole(page: Page, base_url, tab, where, lang, theme):
    size, extra = SIZES[where]
    query = "&".join(p for p in (tab, f"lang={lang}&theme={theme}{extra}") if p)
    _open(page, base_url, query, size)
    expect(page.locator("#copy-link")).to_be_visible()
    expect(page.locator("#copy-link")).to_have_text("复制链接" if lang == "zh" else "Copy link")
    if where == "embed":  # the iframe: the same view full size, and the link to copy
        expect(page.locator("#open-full")).to_be_visible()
        assert "embed" not in page.locator("#open-full").get_attribute("href")
    else:
        ids = ("#theme", "#present") if not tab else ("#lab-theme", "#lab-present")
        for switch in (*ids, "#lang"):
            expect(page.locator(switch)).to_be_visible()
        expect(page.locator(f"{ids[0]} input")).to_be_checked(checked=theme == "dark")
        expect(page.locator(f"{ids[1]} input")).to_be_checked(checked=where == "present")
    box = page.evaluate(HEADER_JS)
    assert box["left"] >= -1 and box["right"] <= box["width"] + 1, box  # nothing cut at either edge
    assert box["overlaps"] == [] and box["spilled"] == [], box
    if lang == "zh":
        font = page.evaluate(FONT_JS)
        assert font["loaded"] and font["faces"] == ["loaded"], font
        width = page.evaluate(WIDTH_JS, "复制链接推理服务")
        assert width["family"].startswith('"Noto Sans SC subset"')
        assert abs(width["page"] - width["mono"]) > 4, width  # drawn glyphs, not boxes


@pytest.mark.parametrize("tab", ["tab=ops", "tab=training", "tab=serving"])
def test_a_labs_dark_and_presentation_switches_draw_it_again(page: Page, base_url, tab):
    """A lab draws its figures on the server from the link: its switches reload that link with
    theme=dark / present=1, and the page comes back in that theme, its other parameters kept."""
    _open(page, base_url, f"{tab}&hw=h100-sxm5", (1400, 900))
    page.locator("#lab-theme input").check()
    page.wait_for_url(lambda url: "theme=dark" in url)
    page.wait_for_selector(".app.theme-dark .header #copy-link")
    assert "hw=h100-sxm5" in page.url and tab in page.url
    page.locator("#lab-present input").check()
    page.wait_for_url(lambda url: "present=1" in url)
    page.wait_for_selector(".app.present.theme-dark .header #copy-link")
    expect(page.locator("#lab-present input")).to_be_checked()


def test_copy_link_on_a_lab_copies_its_own_link(page: Page, base_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open(page, base_url, "tab=training&gpus=16&gpn=16&tokens=65536&embed=1", (800, 500))
    page.locator("#copy-link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert "tab=training" in copied and "gpus=16" in copied and "embed" not in copied


SIDE_JS = """() => {
  const rect = (e) => e.getBoundingClientRect();
  const apart = (a, b) => a.right <= b.left + 1 || b.right <= a.left + 1
                          || a.bottom <= b.top + 1 || b.bottom <= a.top + 1;
  const g = document.querySelector('#memory-graph .js-plotly-plot'), svg = rect(g.querySelector('svg.main-svg'));
  const ticks = Array.from(g.querySelectorAll('.xtick text')).map(rect);
  const legend = Array.from(g.querySelectorAll('.legend .traces')).map(rect);
  const inside = (r) => r.left >= svg.left - 1 && r.right <= svg.right + 1
                        && r.top >= svg.top - 1 && r.bottom <= svg.bottom + 1;
  const title = g.querySelector('.xtitle');
  const pairs = (rs) => rs.flatMap((a, i) => rs.slice(i + 1).filter((b) => !apart(a, b)).map(() => 1)).length;
  const table = document.querySelector('#comparison-panel table'), card = document.querySelector('#comparison-panel');
  return {ticks: ticks.length, tickOverlaps: pairs(ticks), legendOverlaps: pairs(legend),
          legendInside: legend.every(inside), title: title.textContent, titleInside: inside(rect(title)),
          tableRight: rect(table).right, cardRight: rect(card).right,
          tableScroll: table.scrollWidth - table.clientWidth};
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("where", ["desktop", "present"])
def test_the_rooflines_side_panels_hold_their_numbers(page: Page, base_url, lang, where):
    """Presenting at 1920x1080 the memory chart's ticks read "0100200", its title "memory per Gl"
    and the GPU comparison was cut at the right: every tick apart, the title and the legend
    inside the chart, the table inside its card."""
    size, extra = SIZES[where]
    _open(page, base_url, f"hw=h100-sxm5,h200-sxm,b200&lang={lang}{extra}", size)
    page.wait_for_selector("#memory-graph .xtick text")
    box = page.evaluate(SIDE_JS)
    assert box["ticks"] >= 3 and box["tickOverlaps"] == 0, box
    assert box["titleInside"] and ("GiB" in box["title"]), box
    assert box["legendOverlaps"] == 0 and box["legendInside"], box
    assert box["tableRight"] <= box["cardRight"] + 1 and box["tableScroll"] <= 1, box
