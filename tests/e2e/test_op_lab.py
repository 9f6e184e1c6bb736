"""The op lab in Chromium against a live server: what the user sees (SVG points where the
engine puts them, the tables, the address bar) after a link, a control change, a reload and a
preset click, in English and Chinese; a hostile parameter shows a notice; a what-if card from
a link and from the control, kept in the address across a reload."""

from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from engine.hardware import get_accelerator
from engine.oplab import ElementwiseSpec, GemmSpec, lab
from engine.what_if import parse_what_if

from .helpers import set_control

GD = "document.querySelector('#lab-graph .js-plotly-plot')"

# every op point: drawn (an SVG marker) where its data says, inside the axes
POINTS_JS = f"""() => {{
  const gd = {GD};
  if (!gd || !gd._fullData || !gd._fullLayout) return null;
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const visible = gd._fullData.filter(t => t.visible === true && t.type === 'scatter');
  const out = {{visible: visible.length, drawn: gd.querySelectorAll('.scatterlayer .trace').length, points: {{}}}};
  for (const t of visible) {{
    if (!t.uid.startsWith('op--')) continue;
    const point = gd.querySelector('.scatterlayer .trace' + t.uid + ' .point');
    const m = point && /translate\\(([-0-9.e]+),\\s*([-0-9.e]+)\\)/.exec(point.getAttribute('transform') || '');
    out.points[t.uid] = {{
      x: t.x[0], drawn: !!m,
      dx: m ? Math.abs(Number(m[1]) - xa.c2p(t.x[0])) : null,
      dy: m ? Math.abs(Number(m[2]) - ya.c2p(t.y[0])) : null,
      inside: m ? Number(m[1]) >= 0 && Number(m[1]) <= xa._length && Number(m[2]) >= 0 && Number(m[2]) <= ya._length
                : false,
    }};
  }}
  return out;
}}"""


def drawn_points(page: Page) -> dict:
    """{uid: intensity} of the op points, after checking the SVG draws each where it belongs."""
    state = page.evaluate(POINTS_JS)
    assert state, "no op lab figure"
    assert state["drawn"] == state["visible"], state
    for uid, p in state["points"].items():
        assert p["drawn"] and p["dx"] < 1.5 and p["dy"] < 1.5 and p["inside"], (uid, p)
    return {uid: p["x"] for uid, p in state["points"].items()}


def wait_for_points(page: Page, uids: list[str]) -> None:
    page.wait_for_function(
        f"""(uids) => {{ const g = {GD}; if (!g || !g._fullData) return false;
           const have = g._fullData.filter(t => t.uid.startsWith('op--')).map(t => t.uid).sort();
           return JSON.stringify(have) === JSON.stringify(uids.slice().sort())
             && g.querySelectorAll('.scatterlayer .trace').length === g._fullData.length; }}""",
        arg=uids,
        timeout=20000,
    )


def query(page: Page) -> dict:
    return dict(parse_qsl(urlsplit(page.url).query))


def engine_intensity(spec, hw: str) -> float:
    return lab(spec, [get_accelerator(hw)])["results"][0]["intensity"]


def what_ifs(page: Page) -> list[str]:
    return [v for k, v in parse_qsl(urlsplit(page.url).query) if k == "xhw"]


def trace(page: Page, uid: str) -> dict:
    return page.evaluate(
        f"(uid) => {{ const t = {GD}._fullData.find(t => t.uid === uid); return {{x: t.x, y: t.y}}; }}", uid
    )


def test_linked_gemm_change_and_reload(page: Page, base_url: str):
    page.goto(f"{base_url}/?tab=ops&op=gemm&m=4096&n=4096&k=4096&hw=h100-sxm5,rtx-4090")
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--rtx-4090--gemm"])
    points = drawn_points(page)
    assert points["op--h100-sxm5--gemm"] == pytest.approx(engine_intensity(GemmSpec(4096, 4096, 4096), "h100-sxm5"))
    table = page.locator("#lab-results-table")
    expect(table.locator("tr[data-hw='h100-sxm5']")).to_contain_text("1,365")  # 4096³ GEMM in bf16: I = 4096/3 ≈ 1365
    expect(table.locator("tr[data-hw='rtx-4090']")).to_contain_text("compute")
    expect(page.locator("#notices")).to_be_hidden()
    history = page.evaluate("history.length")

    set_control(page, "lab-m", 1)  # GEMV: the point slides down the memory slope
    page.wait_for_function("() => location.search.includes('m=1&')", timeout=20000)
    assert query(page) == {
        "tab": "ops",
        "op": "gemm",
        "m": "1",
        "n": "4096",
        "k": "4096",
        "dtype": "bf16",
        "model": "llama-3.1-70b",  # shared by every tab: the model the decode projections use
        "hw": "h100-sxm5,rtx-4090",
        "lang": "en",
        "theme": "light",
    }
    assert page.evaluate("history.length") == history  # replaceState: no entry per keystroke
    expect(table.locator("tr[data-hw='h100-sxm5']")).to_contain_text("memory")
    gemv = engine_intensity(GemmSpec(1, 4096, 4096), "h100-sxm5")
    page.wait_for_function(
        f"(x) => {GD}._fullData.some(t => t.uid === 'op--h100-sxm5--gemm' && Math.abs(t.x[0] - x) < 1e-9)", arg=gemv
    )
    assert drawn_points(page)["op--h100-sxm5--gemm"] == pytest.approx(gemv)

    page.reload()  # the address alone brings the view back, on the first render
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--rtx-4090--gemm"])
    assert drawn_points(page)["op--h100-sxm5--gemm"] == pytest.approx(gemv)
    expect(page.locator("#lab-m")).to_have_value("1")
    expect(table.locator("tr[data-hw='h100-sxm5'] td").nth(4)).to_have_text("1")  # GEMV: I ≈ 1


def test_hostile_link_in_chinese_then_presets(page: Page, base_url: str):
    page.goto(f"{base_url}/?tab=ops&lang=zh&hw=h100-sxm5&m=<b>x</b>&bogus=1")
    wait_for_points(page, ["op--h100-sxm5--gemm"])
    notices = page.locator("#notices")
    expect(notices).to_be_visible()
    expect(notices).to_contain_text("<b>x</b>")  # shown as text, never as markup
    expect(notices).to_contain_text("bogus")
    expect(page.locator("#tab-ops")).to_have_text("算子实验室")
    expect(page.locator("#lab-results-panel h2")).to_have_text("各加速器结果")

    page.locator("#lab-preset-chain-10").click()  # ten ops on [32, 2048, 4096]
    wait_for_points(page, ["op--h100-sxm5--unfused", "op--h100-sxm5--fused"])
    assert query(page)["op"] == "elementwise" and query(page)["fused"] == "0"
    points = drawn_points(page)
    spec = ElementwiseSpec((32, 2048, 4096), ("scale",), 10)
    assert points["op--h100-sxm5--unfused"] == pytest.approx(engine_intensity(spec, "h100-sxm5"))
    views = page.locator("#lab-views-table")
    expect(views).to_contain_text("10.7 GB")
    expect(views).to_contain_text("1.07 GB")
    expect(views).to_contain_text("未融合")
    expect(notices).to_be_hidden()  # the page was rendered for the preset's link

    page.locator("#lab-fused input").check()
    page.wait_for_function("() => location.search.includes('fused=1')", timeout=20000)
    page.locator("#lab-preset-chain-10").click()  # the same link again still resets the view
    page.wait_for_function("() => location.search.includes('fused=0')", timeout=20000)
    expect(page.locator("#lab-fused input")).not_to_be_checked()

    page.locator("#lab-preset-teaching").click()  # the teaching chart in one click
    wait_for_points(page, [f"op--h100-sxm5--{p}" for p in ("gemm-8192", "add", "decode")])
    points = drawn_points(page)
    assert points["op--h100-sxm5--gemm-8192"] == pytest.approx(8192 / 3)
    assert points["op--h100-sxm5--add"] == pytest.approx(1 / 6)
    assert query(page)["op"] == "teaching" and query(page)["lang"] == "zh"


def test_what_if_cards_from_a_link_and_the_control_survive_a_reload(page: Page, base_url: str):
    # a self-test card (ridge 250) beside the H100, under the 8192³ GEMM
    page.goto(f"{base_url}/?tab=ops&op=gemm&m=8192&n=8192&k=8192&hw=h100-sxm5&xhw=selftest:2:500")
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--selftest--gemm"])
    drawn_points(page)  # every point drawn where its data says
    engine = lab(GemmSpec(8192, 8192, 8192), [parse_what_if("selftest:2:500")])["results"][0]
    point = trace(page, "op--selftest--gemm")
    assert point["x"][0] == pytest.approx(engine["intensity"])
    assert point["y"][0] == pytest.approx(engine["attainable_flops_per_s"])  # on the 500 TFLOP/s roof
    assert trace(page, "ridge--selftest")["x"][0] == pytest.approx(250)
    legend = page.locator("#lab-graph .legend .legendtext")
    expect(legend.filter(has_text="selftest (what-if)")).to_have_count(1)
    table = page.locator("#lab-results-table")
    expect(table.locator("tr[data-hw='selftest']")).to_contain_text("selftest (what-if)")
    expect(page.locator("#notices")).to_be_hidden()
    expect(page.locator("#lab-what-if-field")).to_have_attribute("open", "")

    # a catalogue id as a name is refused with the engine's message and the format
    page.fill("#lab-whatif-text", "h100-sxm5:2:500")
    page.click("#lab-whatif-add")
    error = page.locator("#lab-whatif-error")
    expect(error).to_contain_text("is a catalogue id")
    expect(error).to_contain_text("<name>:<bandwidth TB/s>")
    assert what_ifs(page) == ["selftest:2:500"]

    # the H100 with twice the FLOP/s, added through the control
    page.fill("#lab-whatif-text", "fast:3.35:1979:80")
    page.press("#lab-whatif-text", "Enter")
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--selftest--gemm", "op--fast--gemm"])
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('xhw').length === 2", timeout=20000)
    assert what_ifs(page) == ["selftest:2:500", "fast:3.35:1979:80"]
    expect(error).to_be_empty()
    expect(page.locator("#lab-whatif-text")).to_have_value("")
    fast = lab(GemmSpec(8192, 8192, 8192), [parse_what_if("fast:3.35:1979:80")])["results"][0]
    assert drawn_points(page)["op--fast--gemm"] == pytest.approx(fast["intensity"])
    assert trace(page, "op--fast--gemm")["y"][0] == pytest.approx(fast["attainable_flops_per_s"])

    page.reload()  # the address alone brings both back
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--selftest--gemm", "op--fast--gemm"])
    drawn_points(page)
    expect(table.locator("tr[data-hw='fast']")).to_contain_text("fast (what-if)")
    expect(page.locator("#notices")).to_be_hidden()

    set_control(page, "lab-what-if", ["fast:3.35:1979:80"])  # remove the self-test card
    wait_for_points(page, ["op--h100-sxm5--gemm", "op--fast--gemm"])
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('xhw').length === 1", timeout=20000)
    assert what_ifs(page) == ["fast:3.35:1979:80"]
    expect(table.locator("tr[data-hw='selftest']")).to_have_count(0)


def test_a_refused_box_says_so_in_its_words_and_the_view_stays(page: Page, base_url: str):
    page.goto(f"{base_url}/?tab=ops&op=gemm&m=4096&n=4096&k=4096&hw=h100-sxm5")
    wait_for_points(page, ["op--h100-sxm5--gemm"])
    before = drawn_points(page)["op--h100-sxm5--gemm"]
    page.fill("#lab-m", "0")
    page.keyboard.press("Enter")
    status = page.locator("#lab-status")
    expect(status).to_have_text("M must be 1–16,777,216 (you typed 0); still showing 4,096.")
    assert query(page)["m"] == "4096"  # the link keeps the view it shows
    assert drawn_points(page)["op--h100-sxm5--gemm"] == pytest.approx(before)
    page.fill("#lab-m", "1")  # a good value clears the sentence and moves the point
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.search.includes('m=1&')", timeout=20000)
    expect(status).to_be_hidden()


def test_a_link_from_before_the_rename_opens_the_teaching_chart(page: Page, base_url: str):
    page.goto(f"{base_url}/?tab=ops&op=seed000&hw=h100-sxm5")  # the teaching chart's name in older links
    wait_for_points(page, [f"op--h100-sxm5--{p}" for p in ("gemm-8192", "add", "decode")])
    expect(page.locator("#notices")).to_be_hidden()
    expect(page.locator("#lab-op input[value='teaching']")).to_be_checked()
