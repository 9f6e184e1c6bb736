"""Issue 12, accessibility items 20-22 in Chromium, on the roofline page and both labs, light
and dark, English and Chinese: what a keyboard user and a reader get.

- Contrast (WCAG AA): every visible text node, HTML and the charts' SVG text, measured in the
  page from computed styles: 4.5:1, or 3:1 for large text (24px, or 18.66px bold).
- Keyboard: Tab from the top to the end of the page; every stop shows a focus ring; each
  chart's toolbar is one stop (a roving tabindex, assets/05-a11y.js), and the roofline's PNG
  download is reached and pressed from the keyboard.
- Dropdowns: typing filters the options (and fast typing loses no key), Enter picks.
"""

import re

import pytest
from playwright.sync_api import Page, expect

from .helpers import wait_settled

# The colour behind a text: its element's and its ancestors' backgrounds composed (white
# canvas below); for a chart's SVG text, the legend's or an annotation's box, else the plot
# area when the text sits inside it, else the paper. Opacity of the ancestors dims the text.
CONTRAST_JS = """() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const htmlBackground = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
    }
    let c = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c;
  };
  const shapeFill = (shape) => {
    const f = shape && parse(getComputedStyle(shape).fill);
    if (f) f[3] *= parseFloat(getComputedStyle(shape).fillOpacity || '1');
    return f && f[3] > 0 ? f : null;
  };
  const svgBackground = (el) => {
    const gd = el.closest('.js-plotly-plot');
    const paperRect = gd && gd.querySelector('.main-svg');
    const base = over(parse(paperRect ? getComputedStyle(paperRect).backgroundColor : '') || [0, 0, 0, 0],
                      htmlBackground(gd ? gd.parentElement : el.ownerSVGElement.parentElement));
    const box = el.closest('.legend, .annotation, .hovertext');
    const boxFill = box && shapeFill(box.querySelector('rect.bg, .hovertext > path'));
    if (boxFill) return over(boxFill, base);
    const r = el.getBoundingClientRect(), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
    const plot = gd && gd.querySelector('.bglayer rect.bg');
    if (plot) {
      const b = plot.getBoundingClientRect(), f = shapeFill(plot);
      if (f && cx >= b.left && cx <= b.right && cy >= b.top && cy <= b.bottom) return over(f, base);
    }
    return base;
  };
  const name = (e) => {
    if (!e) return '';
    const cls = e.className && e.className.baseVal !== undefined ? e.className.baseVal : e.className;
    return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (cls ? '.' + String(cls).trim().split(/\\s+/)[0] : '');
  };
  const checked = [], seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || seen.has(el)) continue;
    seen.add(el);
    if (el.closest('script, style, noscript, [hidden], .dash-dropdown-focus-target')) continue;
    const rect = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (!rect.width || !rect.height || cs.visibility !== 'visible') continue;
    let opacity = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      opacity *= parseFloat(getComputedStyle(e).opacity || '1');
    }
    if (opacity < 0.05) continue;  // not shown (a toolbar until hovered)
    const svg = el instanceof SVGElement;
    let color = svg ? parse(cs.fill) : parse(cs.color);
    if (!color) continue;
    if (svg) color[3] *= parseFloat(cs.fillOpacity || '1');
    const bg = svg ? svgBackground(el) : htmlBackground(el);
    color = over([color[0], color[1], color[2], color[3] * opacity], bg);
    const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight, 10) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    checked.push({text: n.textContent.trim().slice(0, 50), ratio: ratio(color, bg), need, svg,
                  color: 'rgb(' + color.slice(0, 3).map(Math.round).join(',') + ')',
                  bg: 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')',
                  where: name(el.parentElement) + ' > ' + name(el)});
  }
  return checked;
}"""

# The focused element: what it is, whether it sits in a chart's toolbar, and its focus ring
# (an outline, or a box-shadow) with the ring's contrast against what is behind the element.
FOCUS_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return null;
  const cs = getComputedStyle(e);
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    return m ? m[1].split(/[ ,/]+/).filter(Boolean).map(Number) : null;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  let bg = [255, 255, 255];
  for (let p = e.parentElement; p; p = p.parentElement) {
    const c = parse(getComputedStyle(p).backgroundColor);
    if (c && (c.length < 4 || c[3] >= 1)) { bg = c; break; }
  }
  const ring = parse(cs.outlineColor) || [0, 0, 0];
  const a = lum(ring), b = lum(bg);
  const bar = e.closest('.modebar');
  const graph = e.closest('.dash-graph') || e.closest('[id$="graph"]');
  const cls = typeof e.className === 'string' ? e.className : '';
  return {
    what: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (cls ? '.' + cls.trim().split(/\\s+/)[0] : '')
          + ' ' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 30),
    outline: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1,
    shadow: cs.boxShadow && cs.boxShadow !== 'none',
    ringContrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
    toolbar: bar ? (graph ? graph.id : '?') : null,
    firstInToolbar: bar ? bar.querySelector('.modebar-btn') === e : false,
  };
}"""

PAGES = {"roofline": "", "ops": "tab=ops&", "training": "tab=training&", "serving": "tab=serving&"}


def load(page: Page, base_url: str, view: str, theme: str, lang: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{base_url}/?{PAGES[view]}lang={lang}&theme={theme}")
    page.wait_for_function(
        """() => { const g = document.querySelectorAll('.js-plotly-plot');
                   return g.length > 0 && Array.from(g).every(x => x._fullLayout && x.querySelector('.main-svg')); }""",
        timeout=20000,
    )
    wait_settled(page)


@pytest.mark.parametrize(
    ("view", "theme", "lang"),
    [
        ("roofline", "light", "en"),
        ("roofline", "dark", "zh"),
        ("ops", "light", "zh"),
        ("ops", "dark", "en"),
        ("training", "light", "en"),
        ("training", "dark", "zh"),
        ("serving", "light", "en"),
        ("serving", "dark", "zh"),
    ],
)
def test_text_contrast_meets_wcag_aa(page: Page, base_url: str, view: str, theme: str, lang: str):
    load(page, base_url, view, theme, lang)
    checked = page.evaluate(CONTRAST_JS)
    assert len(checked) > 50, f"only {len(checked)} texts found"
    assert sum(1 for c in checked if c["svg"]) > 10, "the charts' SVG text was not measured"
    failing = sorted((c for c in checked if c["ratio"] < c["need"]), key=lambda c: c["ratio"])
    report = "\n".join(
        f"  {c['ratio']:.2f} < {c['need']}: {c['text']!r} {c['color']} on {c['bg']} ({c['where']})"
        for c in failing[:25]
    )
    assert not failing, f"{len(failing)} of {len(checked)} texts below WCAG AA on {view}/{theme}/{lang}:\n{report}"


# Tab stops from the top of the page to its end, measured at 1400 x 1000 before and after
# assets/05-a11y.js (a roving tabindex in each chart's toolbar):
#   roofline: 58 before (28 of them the four charts' toolbar buttons), 34 after (4);
#   op lab: 44 before (10 toolbar buttons), 35 after (1); training lab: 38 (no toolbar).
# The ops table's nine sortable headers are buttons (a keyboard sorts as a mouse does): +9.
# The limit leaves room for a few new controls; a toolbar of 7 to 10 stops is caught on its own.
MAX_TAB_STOPS = 52


@pytest.mark.parametrize(("view", "theme", "lang"), [("roofline", "light", "en"), ("ops", "dark", "zh")])
def test_keyboard_tab_order_focus_ring_and_toolbar(page: Page, base_url: str, view: str, theme: str, lang: str):
    load(page, base_url, view, theme, lang)
    stops, downloads = [], []
    for _ in range(MAX_TAB_STOPS + 30):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS_JS)
        if focus is None or (stops and focus["what"] == stops[0]["what"]):
            break  # left the page (or wrapped round to the first stop)
        stops.append(focus)
        if focus["toolbar"] == "roofline-graph" and not downloads:
            # the roofline's toolbar: one stop, its first button the PNG download; the arrow
            # keys move along the toolbar and back; Enter downloads the PNG
            assert focus["firstInToolbar"], focus
            page.keyboard.press("ArrowRight")
            moved = page.evaluate(FOCUS_JS)
            assert moved["toolbar"] == "roofline-graph" and not moved["firstInToolbar"], moved
            page.keyboard.press("ArrowLeft")
            assert page.evaluate(FOCUS_JS)["firstInToolbar"]
            with page.expect_download(timeout=20000) as download:
                page.keyboard.press("Enter")
            downloads.append(download.value.suggested_filename)
    names = [s["what"] for s in stops]
    assert len(stops) < MAX_TAB_STOPS, f"{len(stops)} tab stops: {names}"
    toolbars = [s["toolbar"] for s in stops if s["toolbar"]]
    assert len(toolbars) == len(set(toolbars)), f"a chart toolbar takes more than one tab stop: {toolbars}"
    graphs_with_toolbar = page.evaluate("() => document.querySelectorAll('.modebar').length")
    assert len(toolbars) == graphs_with_toolbar, (toolbars, graphs_with_toolbar)
    unringed = [s["what"] for s in stops if not (s["outline"] or s["shadow"])]
    assert not unringed, f"focus not visible on: {unringed}"
    faint = [(s["what"], round(s["ringContrast"], 2)) for s in stops if s["outline"] and s["ringContrast"] < 3]
    assert not faint, f"focus ring below 3:1 against its background: {faint}"
    if view == "roofline":
        assert downloads and downloads[0].endswith(".png"), downloads


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_typing_filters_the_accelerator_and_model_dropdowns(page: Page, base_url: str, lang: str):
    page.goto(f"{base_url}/?lang={lang}")
    page.wait_for_selector("#hardware")
    wait_settled(page)

    def typed(dropdown: str, text: str) -> list[str]:
        page.focus(f"#{dropdown}")
        page.keyboard.type(text)  # no delay: fast typing must not lose a key
        search = page.locator(f".dash-dropdown-wrapper:has(#{dropdown}) input.dash-dropdown-search")
        expect(search).to_be_focused()
        expect(search).to_have_value(text)
        options = page.locator(f".dash-dropdown-wrapper:has(#{dropdown}) .dash-dropdown-option")
        expect(options.first).to_be_visible()
        return options.all_inner_texts()

    # accelerators (multi-select): only the MI3xx cards remain; Enter adds the first
    shown = typed("hardware", "mi3")
    assert shown and all("MI3" in s for s in shown), shown
    page.keyboard.press("Enter")
    expect(page.locator("#hardware")).to_contain_text(shown[0].strip())
    page.keyboard.press("Escape")

    # model (single): one match; Enter picks it and the page follows
    shown = typed("model", "qwen3-8")
    assert [s.split(" ")[0] for s in shown] == ["qwen3-8b"], shown
    page.keyboard.press("Enter")
    expect(page.locator("#model")).to_contain_text("qwen3-8b")
    expect(page).to_have_url(re.compile(r"model=qwen3-8b"))


def test_the_serving_model_dropdown_lists_each_model_once_and_finds_it_by_any_alias(page: Page, base_url: str):
    """Each preset once, named with its Hugging Face repo (every alias had been an option of
    its own: DeepSeek-V3 eight times); typing an alias the shipped runs use finds its preset."""
    page.goto(f"{base_url}/?tab=serving&model=meta-llama/Llama-3.1-70B&hw=h200-sxm&tp=4")
    page.wait_for_selector("#srv-model")
    wait_settled(page)
    page.click("#srv-model")
    options = page.locator(".dash-dropdown-wrapper:has(#srv-model) .dash-dropdown-option")
    expect(options.first).to_be_visible()
    shown = options.all_inner_texts()
    presets = [s.split(" ")[0] for s in shown]
    assert len(presets) == len(set(presets)) and "deepseek-v3 · deepseek-ai/DeepSeek-V3" in shown, shown
    assert "llama-3.1-70b · meta-llama/Llama-3.1-70B" in shown  # the link's spelling, one option
    page.keyboard.press("Escape")
    page.focus("#srv-model")
    page.keyboard.type("DeepSeek-R1-0528")
    expect(options).to_have_count(1)
    assert options.first.inner_text().startswith("deepseek-r1 · ")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"model=deepseek-r1"))
