"""Read the live figure from the browser and wait for it to change."""

from playwright.sync_api import Page

FIGURE_JS = """() => {
  const gd = document.querySelector('#roofline-graph .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const out = {};
  for (const t of gd.data) out[t.uid] = {x: t.x, y: t.y};
  return out;
}"""


def traces(page: Page) -> dict:
    return page.evaluate(FIGURE_JS) or {}


def decode_x(page: Page, hw: str) -> float:
    return traces(page)[f"point|{hw}|decode"]["x"][0]


def wait_for_figure(page: Page) -> None:
    page.wait_for_function("() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');"
                           " return g && g.data && g.data.length > 0; }", timeout=20000)


def wait_for_decode_x_change(page: Page, hw: str, old: float) -> float:
    page.wait_for_function(
        """([uid, old]) => { const g = document.querySelector('#roofline-graph .js-plotly-plot');
           if (!g || !g.data) return false;
           const t = g.data.find(t => t.uid === uid);
           return t && Math.abs(t.x[0] - old) > 1e-9 * Math.max(1, old); }""",
        arg=[f"point|{hw}|decode", old], timeout=20000)
    return decode_x(page, hw)
