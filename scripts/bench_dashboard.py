"""Slider-to-screen latency in a real browser, with where the time goes (a benchmark, not a test).

Starts `llm-roofline serve`, opens the dashboard in Debian's Chromium with 3 GPUs and, for
the batch and the context slider, presses arrow keys and measures inside the page:

  key -> callback    keydown to the step starting: the thumb's observer (assets/03-live-path.js
                     `stepTo`, in the key press's own task) or, on an older page, Dash's
                     clientside callback (the slider's React update and Dash's renderer)
  callback           the step until it calls Plotly (the grid lookup)
  callback -> SVG    Plotly.animate of the moving traces (asynchronous: its frame runs once
                     the renderer has finished its own work on the step)
  key -> SVG         keydown to the first mutation of the roofline's SVG (what a user sees)

The same script measures an older checkout (run it from that checkout's folder: the server is
started from the current directory), for before/after rounds beside ../shared/tools/dash-floor.py.

A slider step never reaches the server; once the slider rests (250 ms) the panels follow
through one request, reported as "settle": server time (request start -> response start,
from the Resource Timing of `_dash-update-component`) and response -> panels painted.
Also: a structural change (an accelerator removed) key -> SVG with its server time, and the
cold load to the first drawn figure in fresh browser contexts.

The Planner page (tab=plan, issue 33's link: DeepSeek-R1 on 8 x H200 and 8 x B200): a TPOT
target slider's key press until the star and the table are redrawn (the search already made is
re-filtered on the server, the chart patched), and a new search (a GPU budget, a model, an
accelerator not asked before) until the chart and the table are redrawn, each with the
server's share; beside the bare Dash floor (../shared/tools/dash-floor.py) run in the same run.

    .venv/bin/python scripts/bench_dashboard.py [presses per slider]
    .venv/bin/python scripts/bench_dashboard.py plan [presses]     # the Planner page alone
"""

import statistics
import subprocess
import sys
from pathlib import Path

from live_server import live_server
from playwright.sync_api import sync_playwright

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
# every scenario parameter named, so the view is the same whatever the defaults of the checkout
VIEW = "/?hw=h100-sxm5,h200-sxm,rtx-4090&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&kvprec=bf16&tp=1"
GD = "document.querySelector('#roofline-graph .js-plotly-plot')"

INSTRUMENT = f"""() => {{
  const gd = {GD};
  const r = window.llmRooflineLive || window.dash_clientside.roofline;
  const step = window.llmRooflineLive ? 'stepTo' : 'syncSizes';
  window.__m = {{rows: [], cur: null}};
  const M = window.__m;
  document.addEventListener('keydown', () => {{ M.cur = {{key: performance.now()}}; }}, true);
  const sync = r[step];
  r[step] = function (...a) {{
    if (M.cur && !M.cur.cb) M.cur.cb = performance.now();
    return sync.apply(this, a);
  }};
  const animate = window.Plotly.animate;
  window.Plotly.animate = function (...a) {{
    if (M.cur && !M.cur.plotStart) M.cur.plotStart = performance.now();
    const out = animate.apply(this, a);
    if (M.cur && !M.cur.plotEnd) M.cur.plotEnd = performance.now();
    return out;
  }};
  new MutationObserver(() => {{
    if (M.cur && !M.cur.svg) {{ M.cur.svg = performance.now(); M.rows.push(M.cur); }}
  }}).observe(gd, {{subtree: true, childList: true, attributes: true}});
}}"""

SETTLE = """() => new Promise(resolve => {
  const start = window.__settleKey;
  const panel = document.querySelector('#insight');
  let painted = null;
  new MutationObserver(() => { painted = painted || performance.now(); }).observe(panel,
    {subtree: true, childList: true, characterData: true});
  setTimeout(() => {
    const req = performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component')
                                                                 && e.startTime >= start);
    resolve(req.map(e => ({server: e.responseStart - e.requestStart, end: e.responseEnd,
                           painted: painted, kb: e.encodedBodySize / 1024})));
  }, 1500);
})"""


# Where a cold load goes: the page, the scripts (plotly's bundle the largest), the layout
# (the first view, computed by the server: figure, slider grid and panels) and drawing.
COLD = """() => {
  const r = performance.getEntriesByType('resource');
  const pick = (part) => r.find(e => e.name.includes(part)) || {};
  const layout = pick('_dash-layout'), plotly = pick('plotly-cartesian');
  return {total: performance.now(), html: performance.getEntriesByType('navigation')[0].responseEnd,
          plotly_end: plotly.responseEnd || 0, layout_start: layout.requestStart || 0,
          layout_server: (layout.responseStart || 0) - (layout.requestStart || 0),
          layout_end: layout.responseEnd || 0, layout_kb: (layout.encodedBodySize || 0) / 1024};
}"""


def stats(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"median {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms"


def slider_run(page, slider: str, presses: int) -> dict:
    page.evaluate(INSTRUMENT)
    page.locator(f"#{slider} [role=slider]").focus()
    for i in range(presses):
        page.keyboard.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
        page.wait_for_function(f"() => window.__m.rows.length >= {i + 1}", timeout=10000)
        page.wait_for_timeout(60)  # keys 60 ms apart: a drag, never resting long enough to settle
    rows = page.evaluate("() => window.__m.rows")
    return {
        "key -> SVG": [r["svg"] - r["key"] for r in rows],
        "key -> callback": [r["cb"] - r["key"] for r in rows if r.get("cb")],
        "callback": [r["plotStart"] - r["cb"] for r in rows if r.get("cb") and r.get("plotStart")],
        "callback -> SVG": [r["svg"] - r["plotStart"] for r in rows if r.get("plotStart")],
    }


SERVING_VIEW = (
    "/?tab=serving&model=meta-llama/Llama-3.1-70B&hw=h100-sxm5,h200-sxm,b200&backend=trtllm&prec=fp8&tp=4"
    "&isl=1024&osl=1024"
)
SERVING_GD = "document.querySelector('#srv-throughput .js-plotly-plot')"


def serving_settle(browser, base: str, changes: int = 12) -> dict:
    """The Serving page: a concurrency change (the box, as a user's change sets it) until both
    charts have drawn again, and the server's share (the callback's request start -> response)."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(base + SERVING_VIEW)
    page.wait_for_function(f"() => {{ const g = {SERVING_GD}; return g && g._fullLayout; }}", timeout=30000)
    total, server = [], []
    for c in [48, 80, 96, 112, 24, 40, 56, 72, 88, 104, 120, 36][:changes]:
        total.append(
            page.evaluate(
                f"""(c) => new Promise(done => {{
                const top = {SERVING_GD}, low = document.querySelector('#srv-latency .js-plotly-plot');
                const t0 = performance.now(); let drawn = 0;
                const one = () => {{ drawn += 1; if (drawn === 2) done(performance.now() - t0); }};
                top.once('plotly_afterplot', one); low.once('plotly_afterplot', one);
                dash_clientside.set_props('srv-conc', {{value: c}});
            }})""",
                c,
            )
        )
        server.append(
            page.evaluate(
                "() => { const e = performance.getEntriesByType('resource')"
                ".filter(r => r.name.includes('_dash-update-component')).pop();"
                " return e.responseStart - e.requestStart; }"
            )
        )
    page.close()
    return {"change -> both charts": total, "server": server}


PLAN_VIEW = "/?tab=plan&model=deepseek-ai/DeepSeek-R1&hw=h200-sxm,b200&gpus=8&isl=1024&osl=1024&tpot_ms=50&ttft_ms=2000"
PLAN_GD = "document.querySelector('#plan-frontier .js-plotly-plot')"
FLOOR = Path(__file__).resolve().parents[2] / "shared" / "tools" / "dash-floor.py"

# keydown (or a control set) -> the frontier chart's SVG and the table's rows changed, and the
# last _dash-update-component request's server time (request start -> response start)
PLAN_INSTRUMENT = f"""() => {{
  const M = window.__plan = {{rows: [], cur: null}};
  const start = () => {{ M.cur = {{key: performance.now()}}; }};
  document.addEventListener('keydown', start, true);
  window.__planStart = start;
  const done = () => {{
    const c = M.cur;
    if (c && c.svg && c.table && !c.done) {{
      c.done = true;
      const req = performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component')
                                                                    && e.startTime >= c.key);
      c.server = req.length ? req[req.length - 1].responseStart - req[req.length - 1].requestStart : null;
      c.response = req.length ? req[req.length - 1].responseEnd : null;
      M.rows.push(c);
    }}
  }};
  new MutationObserver(() => {{ if (M.cur && !M.cur.svg) {{ M.cur.svg = performance.now(); done(); }} }})
    .observe({PLAN_GD}.querySelector('.main-svg').parentNode, {{subtree: true, childList: true, attributes: true}});
  new MutationObserver(() => {{ if (M.cur && !M.cur.table) {{ M.cur.table = performance.now(); done(); }} }})
    .observe(document.querySelector('#plan-table'), {{subtree: true, childList: true, characterData: true}});
}}"""


def dash_floor() -> tuple[float, float] | None:
    """The bare Dash page's slider step on this machine now (median, p95 ms); None when it
    fails twice (it starts its own server and browser: a loaded machine can time it out)."""
    for _ in range(2):
        out = subprocess.run([sys.executable, str(FLOOR)], capture_output=True, text=True, timeout=300)
        if out.returncode == 0:
            _count, median, p95 = out.stdout.split()[-3:]
            return float(median), float(p95)
        print(f"dash-floor.py failed: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
    return None


def _plan_rows(page, n: int) -> list[dict]:
    page.wait_for_function(f"() => window.__plan.rows.length >= {n}", timeout=120000)
    return page.evaluate("() => window.__plan.rows")


def plan_bench(browser, base: str, presses: int) -> dict:
    """The Planner page: target slider steps and new searches, key -> chart and table redrawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(base + PLAN_VIEW, timeout=120000)
    page.wait_for_function(f"() => {{ const g = {PLAN_GD}; return g && g._fullLayout; }}", timeout=120000)
    page.wait_for_selector("#plan-chart-panel[data-grid^='(']", timeout=120000)  # the sliders' grid is in
    page.wait_for_timeout(500)
    page.evaluate(PLAN_INSTRUMENT)
    page.locator("#plan-tpot-slider [role=slider]").focus()
    for i in range(presses):  # 50 ms <-> 20 ms: the best changes on the way
        page.keyboard.press("ArrowLeft" if (i // 4) % 2 == 0 else "ArrowRight")
        _plan_rows(page, i + 1)
        page.wait_for_timeout(60)
    slider = page.evaluate("() => window.__plan.rows")
    # one step, then rest: the settle's request answers the targets (the grid at the new stop)
    page.wait_for_timeout(1500)
    page.evaluate("() => { window.__settleKey = performance.now(); }")
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(3000)
    settle = page.evaluate(
        "() => performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component')"
        " && e.startTime >= window.__settleKey).map(e => ({server: e.responseStart - e.requestStart,"
        " total: e.responseEnd - window.__settleKey, kb: e.encodedBodySize / 1024}))"
    )
    searches = []
    # never asked before (a cache miss each), then one asked before (the cache's answer)
    for cid, value in (
        ("plan-gpus", 16), ("plan-gpus", 4), ("plan-model", "deepseek-ai/DeepSeek-V3"),
        ("plan-hw", ["h200-sxm", "b200", "h100-sxm5"]), ("plan-gpus", 24), ("plan-gpus", 16),
    ):  # fmt: skip
        n = len(page.evaluate("() => window.__plan.rows"))
        page.evaluate("([id, v]) => { window.__planStart(); dash_clientside.set_props(id, {value: v}); }", [cid, value])
        row = _plan_rows(page, n + 1)[-1]
        searches.append((f"{cid}={value}", row))
        page.wait_for_timeout(500)
    page.close()
    return {"slider": slider, "settle": settle, "searches": searches}


def print_plan(plan: dict, floor_before: tuple | None, floor_after: tuple | None) -> None:
    rows = plan["slider"]
    screen = [max(r["svg"], r["table"]) - r["key"] for r in rows]
    print(f"planner page, TPOT target slider, {len(rows)} key presses (issue 33's link: DeepSeek-R1, H200 + B200):")
    print(f"  key -> star and table  {stats(screen)}   (drawn from the grid: no server round trip)")
    print(f"  key -> chart SVG       {stats([r['svg'] - r['key'] for r in rows])}")
    print(f"  key -> table           {stats([r['table'] - r['key'] for r in rows])}")
    asked = [r for r in rows if r["server"] is not None]
    print(f"  requests during the presses: {len(asked)}")
    floors = [f[0] for f in (floor_before, floor_after) if f is not None]
    if floors:
        shown = ", ".join(f"{f:.1f}" for f in floors)
        ratio = statistics.median(screen) / statistics.median(floors)
        print(f"  bare Dash floor (dash-floor.py, same run): median {shown} ms; slider median / floor = {ratio:.1f}x")
    else:
        print("  bare Dash floor (dash-floor.py): did not run")
    for s in plan["settle"]:
        print(
            f"  settle (250 ms after the last step: the server re-filters and sends the grid): server "
            f"{s['server']:.0f} ms, key -> response {s['total']:.0f} ms, {s['kb']:.0f} KB gzipped"
        )
    print("planner page, a new search (set as a user's change; key -> chart and table redrawn):")
    for what, r in plan["searches"]:
        total = max(r["svg"], r["table"]) - r["key"]
        print(f"  {what:42s} {total:7.0f} ms  (server {r['server'] or 0:.0f} ms)")


def main(presses: int = 30) -> None:
    floor_before = dash_floor()
    with live_server() as (_, base), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        colds = []
        for _ in range(3):
            context = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = context.new_page()
            page.goto(base + VIEW)
            page.wait_for_function(
                f"() => {{ const g = {GD}; return g && g._fullLayout && "
                "g.querySelectorAll('.scatterlayer .trace').length > 0; }",
                timeout=30000,
            )
            colds.append(page.evaluate(COLD))
            context.close()
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(base + VIEW)
        page.wait_for_function(f"() => {{ const g = {GD}; return g && g._fullLayout; }}", timeout=30000)
        page.wait_for_timeout(1000)
        runs = {slider: slider_run(page, slider, presses) for slider in ("batch-size", "context-length")}
        page.wait_for_timeout(1500)  # let the last run's settle pass
        page.evaluate("() => { window.__settleKey = performance.now(); }")
        page.keyboard.press("ArrowLeft")  # one step, then rest: the panels follow through the server
        settle = page.evaluate(SETTLE)
        page.evaluate(INSTRUMENT)
        page.evaluate(
            "() => { window.__m.cur = {key: performance.now()}; "
            "dash_clientside.set_props('hardware', {value: ['h100-sxm5', 'h200-sxm']}); }"
        )
        page.wait_for_function("() => window.__m.rows.length >= 1", timeout=10000)
        structural = page.evaluate("() => window.__m.rows[0].svg - window.__m.rows[0].key")
        structural_server = page.evaluate(
            "() => performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component'))"
            ".map(e => e.responseStart - e.requestStart)"
        )
        serving = serving_settle(browser, base)
        plan = plan_bench(browser, base, 24)
        browser.close()
    totals = ", ".join(f"{c['total']:.0f}" for c in colds)
    print(f"cold load to the first drawn figure (3 fresh contexts): {totals} ms")
    for c in colds:
        print(
            f"  html {c['html']:.0f} ms, plotly bundle loaded {c['plotly_end']:.0f} ms, layout asked "
            f"{c['layout_start']:.0f} ms, server {c['layout_server']:.0f} ms, received {c['layout_end']:.0f} ms "
            f"({c['layout_kb']:.0f} KB gzipped), drawn {c['total']:.0f} ms"
        )
    for slider, run in runs.items():
        print(f"{slider} slider, {len(run['key -> SVG'])} key presses, 3 GPUs (no server round trip):")
        for name in ("key -> SVG", "key -> callback", "callback", "callback -> SVG"):
            print(f"  {name:16s} {stats(run[name])}")
    for s in settle:
        painted = f"{s['painted'] - s['end']:.0f} ms" if s["painted"] else "n/a"
        print(
            f"settle (panels through the server): server {s['server']:.1f} ms, response -> panels painted {painted}"
            f" ({s['kb']:.1f} KB gzipped)"
        )
    server = ", ".join(f"{v:.0f}" for v in structural_server[-2:])
    print(f"structural change (a GPU removed): key -> SVG {structural:.0f} ms (server {server} ms)")
    print("serving page, a concurrency change, 3 GPUs (no rest timer: the box reports once):")
    for name, values in serving.items():
        print(f"  {name:22s} {stats(values)}")
    print_plan(plan, floor_before, dash_floor())


def main_plan(presses: int = 24) -> None:
    floor_before = dash_floor()
    with live_server() as (_, base), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        plan = plan_bench(browser, base, presses)
        browser.close()
    print_plan(plan, floor_before, dash_floor())


if __name__ == "__main__":
    if sys.argv[1:2] == ["plan"]:
        main_plan(int(sys.argv[2]) if len(sys.argv) > 2 else 24)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
