"""Slider-to-redraw latency in a real browser (a benchmark, not a test).

Starts `llm-roofline serve`, opens the dashboard in Debian's Chromium, presses the batch
slider's arrow keys N times and measures, inside the page, the time from keydown to the
next `plotly_afterplot` of the roofline figure. Also reports the cold first-figure time.
"""

import statistics
import sys

from live_server import live_server
from playwright.sync_api import sync_playwright

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]

INSTRUMENT = """() => {
  const gd = document.querySelector('#roofline-graph .js-plotly-plot');
  window.__lat = []; window.__key = null;
  document.addEventListener('keydown', () => { window.__key = performance.now(); }, true);
  gd.on('plotly_afterplot', () => {
    if (window.__key !== null) { window.__lat.push(performance.now() - window.__key); window.__key = null; }
  });
}"""


def main(presses: int = 60) -> None:
    with live_server() as (_, base), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        colds = []
        for _ in range(3):
            page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
            page.goto(base + "/?batch=32")
            page.wait_for_function("() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');"
                                   " return g && g.data && g.data.length > 0 && g._fullLayout; }", timeout=30000)
            colds.append(page.evaluate("() => performance.now()"))
            page.context.close()
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(base + "/?batch=32")
        page.wait_for_function("() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');"
                               " return g && g.data && g.data.length > 0; }", timeout=30000)
        page.evaluate(INSTRUMENT)
        page.locator("#batch-size .dash-slider-thumb").focus()
        for i in range(presses):
            page.keyboard.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
            page.wait_for_function(f"() => window.__lat.length >= {i + 1}", timeout=10000)
            page.wait_for_timeout(50)
        lat = sorted(page.evaluate("() => window.__lat"))
        browser.close()
    q = statistics.quantiles(lat, n=100)
    print(f"cold load to first figure (3 fresh contexts): {', '.join(f'{c:.0f}' for c in colds)} ms")
    print(f"slider key press -> redrawn roofline, {len(lat)} presses: median {statistics.median(lat):.1f} ms, "
          f"p95 {q[94]:.1f} ms, max {lat[-1]:.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
