"""Read what the browser shows of the roofline: the figure's data and, above all, its SVG.

A chart can freeze while `gd.data` moves on (Plotly threw halfway through a redraw): every
check here also reads the rendered SVG and compares it with the data.
"""

import httpx2 as httpx
from playwright.sync_api import Page

GD = "document.querySelector('#roofline-graph .js-plotly-plot')"

FIGURE_JS = f"""() => {{
  const gd = {GD};
  if (!gd || !gd.data) return null;
  const out = {{}};
  for (const t of gd.data) out[t.uid] = {{x: t.x, y: t.y, customdata: t.customdata}};
  return out;
}}"""

# What the SVG shows against what the figure says: the number of drawn scatter traces, the
# legend's entries, and for every one-point trace the pixel position of its marker against
# the axis conversion of its data (a frozen chart keeps old positions).
SVG_JS = f"""() => {{
  const gd = {GD};
  if (!gd || !gd._fullData || !gd._fullLayout) return null;
  const visible = gd._fullData.filter(t => t.visible === true && t.type === 'scatter');
  const drawn = gd.querySelectorAll('.scatterlayer .trace').length;
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const misplaced = [];
  for (const t of visible) {{
    if (t.x.length !== 1 || t.x[0] === null || t.x[0] === undefined || !t.mode.includes('markers')) continue;
    const group = gd.querySelector('.scatterlayer .trace' + t.uid);
    const point = group && group.querySelector('.point');
    const m = point && /translate\\(([-0-9.e]+),\\s*([-0-9.e]+)\\)/.exec(point.getAttribute('transform') || '');
    if (!m) {{ misplaced.push(t.uid + ': not drawn'); continue; }}
    const dx = Math.abs(Number(m[1]) - xa.c2p(t.x[0])), dy = Math.abs(Number(m[2]) - ya.c2p(t.y[0]));
    if (dx > 1.5 || dy > 1.5) misplaced.push(`${{t.uid}}: drawn ${{m[1]}},${{m[2]}}`);
    const px = xa.c2p(t.x[0]), py = ya.c2p(t.y[0]);
    const inside = px >= -1 && px <= xa._length + 1 && py >= -1 && py <= ya._length + 1;
    if (!inside) misplaced.push(t.uid + ': off the chart');
  }}
  const legend = Array.from(gd.querySelectorAll('.legend .traces .legendtext')).map(e => e.textContent);
  return {{visible: visible.length, drawn, misplaced, legend}};
}}"""


def traces(page: Page) -> dict:
    return page.evaluate(FIGURE_JS) or {}


def svg_state(page: Page) -> dict:
    return page.evaluate(SVG_JS) or {}


def assert_svg_matches(page: Page, legend: list[str] | None = None) -> dict:
    """The SVG draws exactly the figure's traces, every point where its data says, inside the
    axes; with `legend`, the legend lists exactly those names."""
    state = svg_state(page)
    assert state, "no roofline figure"
    assert state["drawn"] == state["visible"], f"SVG has {state['drawn']} traces, the figure {state['visible']}"
    assert not state["misplaced"], state["misplaced"][:5]
    if legend is not None:  # the accelerators' legend: "H100 SXM5 80GB · ridge 295"
        assert [text.split(" · ")[0] for text in state["legend"]] == legend, state["legend"]
    return state


def decode_x(page: Page, hw: str) -> float:
    return traces(page)[f"point--{hw}--decode"]["x"][0]


def wait_for_figure(page: Page) -> None:
    page.wait_for_function(
        f"() => {{ const g = {GD}; return g && g.data && g.data.length > 0 && g._fullLayout; }}", timeout=20000
    )


def wait_for_decode_x_change(page: Page, hw: str, old: float) -> float:
    page.wait_for_function(
        f"""([uid, old]) => {{ const g = {GD};
           if (!g || !g.data) return false;
           const t = g.data.find(t => t.uid === uid);
           return t && Math.abs(t.x[0] - old) > 1e-9 * Math.max(1, old); }}""",
        arg=[f"point--{hw}--decode", old],
        timeout=20000,
    )
    return decode_x(page, hw)


def wait_for_uids(page: Page, present: list[str] = (), absent: list[str] = ()) -> None:
    page.wait_for_function(
        f"""([present, absent]) => {{ const g = {GD}; if (!g || !g.data) return false;
           const uids = new Set(g.data.map(t => t.uid));
           return present.every(u => uids.has(u)) && absent.every(u => !uids.has(u)); }}""",
        arg=[list(present), list(absent)],
        timeout=20000,
    )


def wait_settled(page: Page) -> None:
    """Let the settle timer fire and every pending callback answer."""
    page.wait_for_timeout(400)
    page.wait_for_function("() => !document.querySelector('[data-dash-is-loading=\"true\"]')", timeout=20000)


def set_control(page: Page, component_id: str, value) -> None:
    """Change a control exactly as a user's change does (Dash's set_props)."""
    page.evaluate("([id, v]) => dash_clientside.set_props(id, {value: v})", [component_id, value])


def api_decode_intensity(base_url: str, hw: str, model: object = "llama-3-8b", **scenario) -> float:
    """The HTTP API's decode intensity for the same scenario."""
    response = httpx.post(f"{base_url}/api/v1/analyze", json={"model": model, "hardware": [hw], **scenario}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["results"][0]["decode"]["intensity"]


def hover_label(page: Page, uid: str, point: str | None = None) -> str:
    """Move the mouse onto a trace's marker (the one whose text is `point` in a trace of
    several: an accelerator's elementwise ops) and read the hover label on screen.

    The figure can be redrawn between reading the marker's position and the mouse arriving
    (a slider's rest redraws it from the server): a label Plotly drew for another trace (its
    plotly_hover event names the trace) is a missed aim, so it aims again, three times at
    most, and returns the last label read."""
    text = ""
    for _ in range(3):
        x, y = page.evaluate(
            f"""([uid, point]) => {{ const g = {GD}, t = g.data.find(t => t.uid === uid);
            const i = point === null ? 0 : t.text.indexOf(point);
            const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;
            const r = g.querySelector('.nsewdrag').getBoundingClientRect();
            window.__hovered = null;
            if (!g.__hoverSpy) {{
              g.on('plotly_hover', e => {{ window.__hovered = e.points[0].data.uid; }});
              g.__hoverSpy = true;
            }}
            return [r.left + xa.c2p(t.x[i]), r.top + ya.c2p(t.y[i])]; }}""",
            [uid, point],
        )
        page.mouse.move(x + 30, y + 30)
        page.mouse.move(x, y)
        label = page.locator("#roofline-graph .hoverlayer .hovertext")
        label.first.wait_for(timeout=5000)
        text = label.first.text_content() or ""
        if page.evaluate("() => window.__hovered") == uid:
            return text
    return text
    return text
