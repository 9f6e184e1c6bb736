"""The live path, in Chromium against a live server: after every kind of change the SVG shows
what the engine says (issue: charts that froze after a trace was removed, exports that did
nothing, links that lost their parameters, boxes that silently computed something else)."""

import json
import math
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx2 as httpx
import pytest
from playwright.sync_api import Page, expect

from app.dashboard.pages.roofline.params import PRECISIONS
from app.dashboard.pages.roofline.state import View
from app.units import duration, plain
from engine.hardware import catalogue
from engine.model_catalog import model_ids, native_format, native_precision

from .helpers import (
    GD,
    api_decode_intensity,
    assert_svg_matches,
    decode_x,
    hover_label,
    set_control,
    svg_state,
    traces,
    wait_for_figure,
    wait_for_uids,
    wait_settled,
)

NAMES = {a.id: a.name for a in catalogue().values()}
FP8 = {"weight_dtype": "fp8", "compute_dtype": "fp8"}  # DeepSeek-V3 opens in its native fp8
# an export's name: every part of the link not at the product's default scenario (pages/scenario.py)
NAME = "roofline-llama-3-8b-h100-sxm5-b64-t4096-prec-bf16-kvprec-bf16-tp-1"
CUSTOM = {
    "model_type": "llama",
    "hidden_size": 2048,
    "num_hidden_layers": 16,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "intermediate_size": 8192,
    "vocab_size": 32000,
}


def wait_decode(page: Page, hw: str, expected: float) -> None:
    """Wait until the decode point of `hw` sits at `expected` in the figure's data."""
    page.wait_for_function(
        f"""([uid, want]) => {{ const g = {GD}; if (!g || !g.data) return false;
            const t = g.data.find(t => t.uid === uid);
            return t && Math.abs(t.x[0] - want) <= 1e-9 * want; }}""",
        arg=[f"point--{hw}--decode", expected],
        timeout=20000,
    )


def query(page: Page) -> dict:
    return dict(parse_qsl(urlsplit(page.url).query))


def test_removing_a_gpu_a_model_change_and_a_long_context_redraw_every_chart(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5,h200-sxm,rtx-4090&batch=32&ctx=4096&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    assert_svg_matches(page, [NAMES["h100-sxm5"], NAMES["h200-sxm"], NAMES["rtx-4090"]])
    set_control(page, "hardware", ["h100-sxm5", "h200-sxm"])
    wait_for_uids(page, absent=["point--rtx-4090--decode", "roof--rtx-4090--memory"])
    wait_settled(page)
    assert_svg_matches(page, [NAMES["h100-sxm5"], NAMES["h200-sxm"]])
    throughput_legend = page.locator("#throughput-graph .legend .legendtext").all_text_contents()
    assert NAMES["rtx-4090"] not in throughput_legend and NAMES["h200-sxm"] in throughput_legend
    set_control(page, "model", "deepseek-v3")
    wait_decode(
        page,
        "h100-sxm5",
        api_decode_intensity(base_url, "h100-sxm5", "deepseek-v3", batch_size=32, context_length=4096, **FP8),
    )
    wait_settled(page)
    assert_svg_matches(page, [NAMES["h100-sxm5"], NAMES["h200-sxm"]])
    expect(page.locator("#insight")).to_contain_text("H100 SXM5")
    page.fill("#context-length-input", "1048576")
    page.keyboard.press("Enter")
    wait_decode(
        page,
        "h100-sxm5",
        api_decode_intensity(base_url, "h100-sxm5", "deepseek-v3", batch_size=32, context_length=1 << 20, **FP8),
    )
    wait_settled(page)
    assert_svg_matches(page, [NAMES["h100-sxm5"], NAMES["h200-sxm"]])


def test_png_svg_and_html_exports_download(page: Page, base_url, tmp_path):
    page.goto(base_url + "/?hw=h100-sxm5,rtx-4090&batch=64&ctx=4096&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    set_control(page, "hardware", ["h100-sxm5"])  # the exports once threw as soon as a trace was removed
    wait_for_uids(page, absent=["point--rtx-4090--decode"])
    for button, magic in (("#export-png", b"\x89PNG"), ("#export-svg", b"<svg")):
        with page.expect_download() as info:
            page.locator(button).click()
        data = Path(info.value.path()).read_bytes()
        assert data.startswith(magic) and len(data) > 10_000
        # every part of the link not at the product's default is named
        assert info.value.suggested_filename == f"{NAME}.{button[-3:]}"
        if magic == b"<svg":
            assert b"tracepoint--h100-sxm5--decode" in data and b"rtx-4090" not in data
            assert b"llama-3-8b \xc2\xb7 weights bf16" in data and b"batch 64" in data  # the scenario, printed
    page.locator("#roofline-graph").hover()
    titles = page.locator("#roofline-graph .modebar-btn").evaluate_all("bs => bs.map(b => b.dataset.title)")
    assert "Share chart..." not in titles and "Download plot as a PNG" in titles  # nothing uploads our numbers
    with page.expect_download() as info:
        page.locator("#roofline-graph .modebar-btn[data-title='Download plot as a PNG']").click()
    assert Path(info.value.path()).read_bytes().startswith(b"\x89PNG")
    with page.expect_download() as info:
        page.locator("#export-html").click()
    html = Path(info.value.path()).read_text()
    assert "point--h100-sxm5--decode" in html and "point--rtx-4090--decode" not in html and len(html) > 1_000_000
    assert info.value.suggested_filename == f"{NAME}.html"
    assert "<title>llama-3-8b · weights bf16" in html and "batch 64" in html and "llm-roofline 0.1.0" in html
    assert f'href="{base_url}/?hw=h100-sxm5&amp;model=llama-3-8b&amp;batch=64' in html  # the link back


LINKS = [
    {"hw": "h100-sxm5", "model": "llama-3-8b", "kv": "32", "batch": "16", "ctx": "8192"},
    {
        "hw": "rtx-4090,l40s",
        "model": "qwen2.5-7b-instruct",
        "kv": "4",
        "prec": "fp8",
        "kvprec": "fp8",
        "fa": "0",
        "batch": "3",
        "ctx": "3000",
    },
    {
        "hw": "h200-sxm",
        "model": "llama-3-70b",
        "tp": "4",
        "prec": "int4",
        "kvprec": "int8",
        "bweff": "0.8",
        "fleff": "0.7",
        "step": "12.5",
        "roofs": "measured",
    },
    {
        "hw": "b200,mi300x",
        "model": "deepseek-v3",
        "prec": "fp8",
        "tp": "8",
        "theme": "dark",
        "present": "1",
        "lang": "zh",
    },
    {"hw": "h100-sxm5", "embed": "1", "batch": "1024", "ctx": "1048576"},
    {"hw": "h100-sxm5,l40s", "model": "llama-2-7b", "out": "512", "price": "2.5", "memutil": "0.8", "published": "1"},
]


@pytest.mark.parametrize("link", LINKS, ids=lambda link: link["hw"])
def test_every_url_parameter_round_trips(page: Page, base_url, link):
    """Open a link, get the same controls and numbers, and read the same link back."""
    page.goto(base_url + "/?" + "&".join(f"{k}={v}" for k, v in link.items()))
    wait_for_figure(page)
    wait_settled(page)
    expect(page.locator("#notices")).to_be_hidden()
    back = query(page)
    for key, value in link.items():
        assert back.get(key) == value, (key, back)
    hw = link["hw"].split(",")[0]
    # what the link leaves out is the product's default scenario (pages/scenario.py), a preset's
    # native precision, and the KV cache the Serving page keeps for those weights
    default, model = View(), link.get("model", View().model)
    weight, compute = PRECISIONS[link.get("prec") or native_precision(model) or default.precision]
    scenario = {
        "batch_size": int(link.get("batch", default.batch)),
        "context_length": int(link.get("ctx", default.context)),
        "weight_dtype": weight,
        "compute_dtype": compute,
        "kv_dtype": link.get("kvprec", "bf16" if weight in ("bf16", "fp16") else "fp8"),
        "flash_attention": link.get("fa", "1") == "1",
        "tensor_parallel": int(link.get("tp", default.tensor_parallel)),
        "bandwidth_efficiency": float(link.get("bweff", 1)),
        "compute_efficiency": float(link.get("fleff", 1)),
        "roofs": link.get("roofs", "nominal"),
    }
    if "kv" in link:
        scenario["num_kv_heads"] = int(link["kv"])
    assert decode_x(page, hw) == pytest.approx(api_decode_intensity(base_url, hw, model, **scenario), rel=1e-12)
    assert_svg_matches(page, [NAMES[h] for h in link["hw"].split(",")])
    page.reload()  # the same link again: the same view
    wait_for_figure(page)
    assert decode_x(page, hw) == pytest.approx(api_decode_intensity(base_url, hw, model, **scenario), rel=1e-12)


def test_custom_config_survives_reload_copy_link_and_language(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&batch=4&ctx=2048&step=9&prec=bf16&tp=1")
    wait_for_figure(page)
    set_control(page, "model", "custom")
    page.locator("#custom-config").fill(json.dumps(CUSTOM))
    page.locator("#custom-apply").click()
    expect(page.locator("#custom-error")).to_contain_text("Custom model loaded")
    expected = api_decode_intensity(base_url, "h100-sxm5", CUSTOM, batch_size=4, context_length=2048)
    wait_decode(page, "h100-sxm5", expected)
    page.wait_for_function("() => location.search.includes('cfg=') && location.search.includes('model=custom')")
    link = page.url
    page.goto(link)  # a reload, or the copied link in a new tab
    wait_for_figure(page)
    assert decode_x(page, "h100-sxm5") == pytest.approx(expected, rel=1e-12)
    star = traces(page)["measured--h100-sxm5--decode"]  # step= applies to the custom model, not llama-3-8b
    api = api_decode_intensity(base_url, "h100-sxm5", CUSTOM, batch_size=4, context_length=2048)
    assert star["x"][0] == pytest.approx(api, rel=1e-12)
    expect(page.locator("#model")).to_contain_text("custom")
    page.locator("#lang label", has_text="中文").click()
    page.wait_for_function("() => location.search.includes('lang=zh')")
    wait_for_figure(page)
    expect(page.locator("#controls")).to_contain_text("加速器")
    assert decode_x(page, "h100-sxm5") == pytest.approx(expected, rel=1e-12)
    assert "cfg=" in page.url
    page.goto(base_url + "/?model=custom&cfg=AAAA")  # a broken config link: a notice, the default model
    wait_for_figure(page)
    expect(page.locator("#notices")).to_contain_text("cfg")


@pytest.mark.parametrize(
    "box,bad",
    [
        ("batch-size-input", "0"),
        ("batch-size-input", "-5"),
        ("batch-size-input", "1.5"),
        ("batch-size-input", "100000"),
        ("context-length-input", "20000000"),  # over the engine's MAX_CONTEXT (16,777,216)
        ("context-length-input", "abc"),
    ],
)
def test_invalid_box_values_are_flagged_and_never_computed(page: Page, base_url, box, bad):
    page.goto(base_url + "/?hw=h100-sxm5&batch=32&ctx=4096&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    before, search = decode_x(page, "h100-sxm5"), page.url
    page.fill(f"#{box}", bad)
    page.keyboard.press("Enter")
    expect(page.locator(f"#{box}")).to_have_attribute("aria-invalid", "true")
    error_id = "#batch-error" if box.startswith("batch") else "#context-error"
    error = page.locator(error_id)
    colour = "(s) => getComputedStyle(document.querySelector(s)).color"  # the digits as red as the words
    assert page.evaluate(colour, f"#{box}") == page.evaluate(colour, error_id)
    expect(error).to_contain_text("65,536" if box.startswith("batch") else "16,777,216")
    expect(error).to_contain_text(f"(you typed {bad})")  # the box's own words
    expect(error).to_contain_text("still showing " + ("32" if box.startswith("batch") else "4096"))
    wait_settled(page)
    assert decode_x(page, "h100-sxm5") == before and page.url == search
    slider = "#batch-size" if box.startswith("batch") else "#context-length"
    assert page.locator(f"{slider} [role=slider]").get_attribute("aria-valuenow") == (
        "5" if box.startswith("batch") else "12"
    )
    # a valid value between stops: the slider sits between them and the server computes it
    value = 48 if box.startswith("batch") else 3000
    page.fill(f"#{box}", str(value))
    page.keyboard.press("Enter")
    expect(page.locator(f"#{box}")).to_have_attribute("aria-invalid", "false")
    expect(error).to_have_text("")
    field = "batch_size" if box.startswith("batch") else "context_length"
    scenario = {"batch_size": 32, "context_length": 4096, field: value}
    wait_decode(page, "h100-sxm5", api_decode_intensity(base_url, "h100-sxm5", **scenario))
    assert float(page.locator(f"{slider} [role=slider]").get_attribute("aria-valuenow")) == pytest.approx(
        math.log2(value)
    )
    page.wait_for_function(f"() => location.search.includes('={value}&')")


def test_select_all_keeps_eight_accelerators(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5")
    wait_for_figure(page)
    everything = list(NAMES)
    set_control(page, "hardware", everything)
    expect(page.locator("#hardware-notice")).to_contain_text("At most 8")
    page.wait_for_function(
        f"() => {GD}.data.filter(t => t.uid.startsWith('roof--') && t.uid.endsWith('--memory')).length === 8"
    )
    wait_settled(page)
    assert_svg_matches(page, [NAMES[h] for h in everything[:8]])
    assert query(page)["hw"] == ",".join(everything[:8])
    page.locator("#hardware").click()
    ninth = page.get_by_role("option", name=NAMES[everything[8]], exact=True)
    expect(ninth).to_be_disabled()


def test_choices_that_cannot_apply_are_disabled_or_explained(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5,rtx-4090&model=qwen2.5-7b-instruct")
    wait_for_figure(page)
    expect(page.locator("#tensor-parallel input[value='8']")).to_be_disabled()
    expect(page.locator("#tensor-parallel input[value='4']")).to_be_enabled()
    set_control(page, "model", "deepseek-v3")  # MLA: no KV heads to choose
    expect(page.locator("#kv-help")).to_contain_text("MLA")
    expect(page.locator("#kv-heads [role=slider]")).to_have_attribute("data-disabled", "")
    expect(page.locator("#tensor-parallel input[value='8']")).to_be_enabled()
    set_control(page, "precision", "fp4")  # neither chip has fp4: the fallback is said, not silent
    expect(page.locator("#efficiency-notice")).to_contain_text("H100 SXM5 80GB has no fp4 tensor roof")
    expect(page.locator("#efficiency-notice")).to_contain_text("GeForce RTX 4090 has no fp4 tensor roof")
    # a degree the heads cannot take (only a hand-made request can ask): one clear message per panel
    set_control(page, "model", "qwen2.5-7b-instruct")
    expect(page.locator("#tensor-parallel input[value='8']")).to_be_disabled()
    wait_settled(page)
    set_control(page, "tensor-parallel", 8)
    message = "does not divide the 28 attention heads"
    page.wait_for_function(f"() => ({GD}.layout.annotations || []).some(a => a.text.includes('{message}'))")
    expect(page.locator("#insight")).to_contain_text(message)
    assert page.locator("#roofline-graph .xaxislayer-above text").count() == 0  # no empty axes


def test_every_point_stays_on_the_chart_at_the_extremes(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5,rtx-4090&batch=1024&ctx=1048576&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    prefill = traces(page)["point--h100-sxm5--prefill"]["x"][0]
    assert prefill > 20000  # beyond the default axis
    assert_svg_matches(page)  # includes: every point inside the axes
    page.locator("#batch-size [role=slider]").focus()
    for _ in range(10):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('batch=1&')")
    assert_svg_matches(page)


def test_trajectory_is_visible_and_hover_goes_to_the_points(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&batch=32&ctx=4096")
    wait_for_figure(page)
    trajectory = traces(page)["trajectory--h100-sxm5"]
    batches = len(trajectory["x"])
    drawn = page.locator("#roofline-graph .scatterlayer .tracetrajectory--h100-sxm5 .point").count()
    assert drawn == batches >= 8  # a marker at each power of two up to the largest batch that fits
    full = page.evaluate(f"() => {GD}._fullData.find(t => t.uid === 'trajectory--h100-sxm5')")
    assert full["hoverinfo"] == "skip" and "markers" in full["mode"]
    box = page.evaluate(f"""() => {{ const g = {GD}, t = g.data.find(t => t.uid === 'point--h100-sxm5--decode');
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;
        const r = g.querySelector('.nsewdrag').getBoundingClientRect();
        return [r.left + xa.c2p(t.x[0]), r.top + ya.c2p(t.y[0])]; }}""")
    page.mouse.move(box[0], box[1])
    label = page.locator("#roofline-graph .hoverlayer .hovertext")
    expect(label).to_contain_text("decode")
    expect(label).to_contain_text("tokens/s")


def test_a_slider_step_moves_the_svg_without_a_server_round_trip(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5,h200-sxm,rtx-4090&batch=32&ctx=4096&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    wait_settled(page)
    calls = []
    page.on("request", lambda r: calls.append(r.url) if "_dash-update-component" in r.url else None)
    page.locator("#context-length [role=slider]").focus()
    page.keyboard.press("ArrowRight")
    expected = api_decode_intensity(base_url, "h200-sxm", batch_size=32, context_length=8192)
    wait_decode(page, "h200-sxm", expected)
    assert calls == []  # drawn from the grid, before any request (the panels follow at rest)
    assert_svg_matches(page)
    # the hover follows the points: the API's tokens/s at the new context, as on screen
    response = httpx.post(
        f"{base_url}/api/v1/analyze",
        json={"model": "llama-3-8b", "hardware": ["h200-sxm"], "batch_size": 32, "context_length": 8192},
    )
    tokens = response.json()["results"][0]["decode"]["tokens_per_s"]
    assert f"{tokens:,.0f} tokens/s" in hover_label(page, "point--h200-sxm--decode")

    # once it rests, the panels follow through the server
    wait_settled(page)
    assert calls, "the panels never asked the server"
    expect(page.locator("#insight")).to_contain_text("262,144 prompt tokens")  # 32 x 8,192
    # and back: returning to the stop the page was first drawn at moves the points too
    page.locator("#context-length [role=slider]").focus()
    page.keyboard.press("ArrowLeft")
    wait_decode(page, "h200-sxm", api_decode_intensity(base_url, "h200-sxm", batch_size=32, context_length=4096))
    assert_svg_matches(page)
    state = svg_state(page)
    assert state["drawn"] == state["visible"]


COUNT_REDRAWS = f"""() => {{
  const gd = {GD}; const calls = window.__redraws = {{react: 0, relayout: 0, animated: []}};
  for (const name of ['react', 'newPlot', 'relayout']) {{
    const f = window.Plotly[name];
    window.Plotly[name] = function (g) {{ if (g === gd) calls[name === 'newPlot' ? 'react' : name] += 1;
                                         return f.apply(this, arguments); }};
  }}
  const animate = window.Plotly.animate;
  window.Plotly.animate = function (g, frame) {{
    if (g === gd) calls.animated.push(frame.traces.map(i => gd.data[i].uid));
    return animate.apply(this, arguments);
  }};
}}"""


def test_a_slider_step_redraws_only_the_moving_points_and_the_scenario_line(page: Page, base_url):
    """A batch step re-plots the points that move and nothing else of the figure: no relayout
    (dcc.Graph answered a title relayout by re-plotting every trace, ~100 ms a step) and no
    trajectory (it moves with the context only). The scenario line over the chart follows at
    once, and an image exported then prints the new stop as its title."""
    # conc=0: no serving estimate points, which are not on the slider grid and are drawn anew at rest
    page.goto(base_url + "/?hw=h100-sxm5,h200-sxm,rtx-4090&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1&conc=0")
    wait_for_figure(page)
    wait_settled(page)
    page.evaluate(COUNT_REDRAWS)
    thumb = page.locator("#batch-size [role=slider]")
    thumb.focus()
    for batch in (64, 128):
        before = decode_x(page, "h100-sxm5")
        page.keyboard.press("ArrowRight")
        expected = api_decode_intensity(base_url, "h100-sxm5", batch_size=batch, context_length=4096)
        wait_decode(page, "h100-sxm5", expected)
        assert decode_x(page, "h100-sxm5") != before
        expect(page.locator("#roofline-scenario")).to_contain_text(f"batch {batch} · context 4,096")
    redraws = page.evaluate("() => window.__redraws")
    assert redraws["react"] == 0 and redraws["relayout"] == 0, redraws
    assert len(redraws["animated"]) == 2, redraws
    for uids in redraws["animated"]:
        assert uids and all(u.startswith("point--") for u in uids), uids
        # per card its decode, prefill, decode attention and elementwise ops (one trace): 12
        assert len(uids) == 12 and {"point--h100-sxm5--decode", "point--rtx-4090--elementwise"} <= set(uids)
    assert_svg_matches(page)
    wait_settled(page)
    with page.expect_download() as info:
        page.locator("#export-svg").click()
    svg = Path(info.value.path()).read_text()
    assert "batch 128 · context 4,096" in svg and "batch 32 ·" not in svg


TOUR_MODELS = model_ids()


def test_tour_of_every_control(page: Page, base_url, tmp_path):
    """Every control, one after another; after each step the SVG shows the figure's data, the
    legend lists the selected GPUs and the decode point sits where the API puts it."""
    page.goto(base_url + "/?hw=h100-sxm5,rtx-4090&batch=8&ctx=2048&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    state = {
        "hw": ["h100-sxm5", "rtx-4090"],
        "model": "llama-3-8b",
        "batch_size": 8,
        "context_length": 2048,
        "weight_dtype": "bf16",
        "compute_dtype": "bf16",
        "kv_dtype": "bf16",
        "flash_attention": True,
        "tensor_parallel": 1,
    }

    def check(step: str):
        scenario = {k: v for k, v in state.items() if k not in ("hw", "model")}
        model = state["model"]
        try:
            expected = api_decode_intensity(base_url, state["hw"][0], model, **scenario)
        except AssertionError:
            return  # a combination the engine refuses (e.g. a model too wide for TP): covered elsewhere
        wait_decode(page, state["hw"][0], expected)
        wait_settled(page)
        assert_svg_matches(page, [NAMES[h] for h in state["hw"]]), step

    set_control(page, "hardware", ["h100-sxm5", "rtx-4090", "mi300x"])
    state["hw"] = ["h100-sxm5", "rtx-4090", "mi300x"]
    check("add a GPU")
    set_control(page, "hardware", ["mi300x", "h100-sxm5"])
    state["hw"] = ["mi300x", "h100-sxm5"]
    check("remove and reorder")
    for model in TOUR_MODELS:
        set_control(page, "model", model)
        state["model"] = model
        native = native_precision(model)  # a preset released in fp8 or 4-bit switches to it, with a notice
        if native and native != state["weight_dtype"]:  # already in it (the model before was too): no switch
            state.update(weight_dtype=native, compute_dtype={"fp8": "fp8", "int4": "bf16"}[native])
            expect(page.locator("#model-notice")).to_contain_text(f"ships in {native_format(model)}")
        check(model)
    set_control(page, "model", "llama-3-8b")
    state["model"] = "llama-3-8b"
    for prec, (weight, compute) in {
        "fp16": ("fp16", "fp16"),
        "fp8": ("fp8", "fp8"),
        "int8": ("int8", "int8"),
        "int4": ("int4", "bf16"),
        "fp4": ("fp4", "fp4"),
        "bf16": ("bf16", "bf16"),
    }.items():
        set_control(page, "precision", prec)
        state.update(weight_dtype=weight, compute_dtype=compute)
        check(prec)
    for kvprec in ("fp8", "int4", "bf16"):
        set_control(page, "kv-precision", kvprec)
        state["kv_dtype"] = kvprec
        check(kvprec)
    for tp in (2, 4, 8, 1):
        set_control(page, "tensor-parallel", tp)
        state["tensor_parallel"] = tp
        check(f"tp {tp}")
    set_control(page, "flash-attention", [])
    state["flash_attention"] = False
    check("flash off")
    page.locator("#batch-size [role=slider]").focus()
    page.keyboard.press("ArrowRight")
    state["batch_size"] = 16
    check("batch slider")
    page.locator("#context-length [role=slider]").focus()
    page.keyboard.press("ArrowLeft")
    state["context_length"] = 1024
    check("context slider")
    for theme in (["dark"], []):
        set_control(page, "theme", theme)
        check(f"theme {theme}")
    set_control(page, "present", ["on"])
    check("presentation")
    set_control(page, "model", "custom")
    page.locator("#custom-config").fill(json.dumps(CUSTOM))
    page.locator("#custom-apply").click()
    state["model"] = CUSTOM
    check("custom config")
    page.locator(".measurement summary").click()
    csv = tmp_path / "m.csv"
    csv.write_text("name,flops,bytes,time_s\nmy_gemv,1.2e11,3.8e9,1.6e-3\n")
    page.locator("#measurements-upload input[type=file]").set_input_files(str(csv))
    wait_for_uids(page, present=["measured--mi300x--imported"])  # own counts: the imported trace
    check("measurements")
    page.locator("#lang label", has_text="中文").click()
    page.wait_for_function("() => location.search.includes('lang=zh')")
    wait_for_figure(page)
    check("language")
    page.goto(page.url + "&embed=1")
    wait_for_figure(page)
    check("embed")


def test_one_request_its_cost_the_interactivity_curve_and_the_reality_check(page: Page, base_url):
    """Issue 13 on screen: the request panel and the curve show the API's request block; the
    published measurements are drawn on their accelerators with a reality-check table."""
    # fp8: the published runs on these cards are fp8, and only runs of the chosen precision are drawn
    page.goto(
        base_url + "/?hw=h100-sxm5,l40s&model=llama-2-7b&batch=16&ctx=2048&out=256&price=2.5&published=1"
        "&prec=fp8&kvprec=bf16&tp=1"
    )
    wait_for_figure(page)
    body = {
        "model": "llama-2-7b",
        "hardware": ["h100-sxm5", "l40s"],
        "batch_size": 16,
        "context_length": 2048,
        "output_tokens": 256,
        "gpu_hour_price": 2.5,
        "weight_dtype": "fp8",
        "compute_dtype": "fp8",
    }
    results = httpx.post(f"{base_url}/api/v1/analyze", json=body, timeout=30).json()["results"]
    rows = page.locator("#request-static tbody tr")  # the static batch (the serving estimate's table follows)
    expect(rows).to_have_count(2)
    for row, r in zip(rows.all(), results, strict=True):
        q = r["request"]
        cells = row.locator("td").all_text_contents()
        assert cells[0] == r["hardware_name"]
        assert (
            cells[1] == duration(q["ttft_s"]) and cells[2] == duration(q["tpot_s"]) and cells[3] == duration(q["e2e_s"])
        )
        assert cells[6] == f"${plain(q['cost_per_million_output_tokens'])}"
    curve = page.evaluate(
        "() => document.querySelector('#interactivity-graph .js-plotly-plot').data"
        ".find(t => t.uid === 'interactivity--h100-sxm5--current')"
    )
    assert curve["x"][0] == pytest.approx(1 / results[0]["request"]["tpot_s"], rel=1e-12)
    assert page.locator("#interactivity-graph .scatterlayer .trace").count() == 4  # 2 curves, 2 current points
    published = [u for u in traces(page) if u.startswith("published--")]
    assert published and all(u.split("--")[1] in ("h100-sxm5", "l40s") for u in published)
    assert_svg_matches(page)
    expect(page.locator("#reality-panel")).to_be_visible()
    expect(page.locator("#reality-table")).to_contain_text("Peak Throughput")
    everything = traces(page)
    farthest_from_ridges = min(published, key=lambda u: everything[u]["x"][0])  # decode-heavy: low intensity
    label = hover_label(page, farthest_from_ridges)
    assert "of the bound" in label and "MBU" in label
    set_control(page, "published", [])
    expect(page.locator("#reality-panel")).to_be_hidden()
    wait_for_uids(page, absent=published[:1])


def test_points_of_a_scenario_that_does_not_fit_are_hollow(page: Page, base_url):
    """RTX 4090 (24 GiB) cannot hold llama-3-8b at batch 8 and 32K context (4 GiB of KV per
    sequence): its points are drawn hollow; moving the batch slider down to 1 fills them in."""
    page.goto(base_url + "/?hw=h100-sxm5,rtx-4090&batch=8&ctx=32768")
    wait_for_figure(page)
    fill = (
        "(uid) => getComputedStyle(document.querySelector('#roofline-graph .scatterlayer .trace' + uid"
        " + ' .point')).fillOpacity"
    )
    assert page.evaluate(fill, "point--rtx-4090--decode") == "0"  # hollow: only the outline is drawn
    assert page.evaluate(fill, "point--h100-sxm5--decode") == "1"
    page.locator("#batch-size [role=slider]").focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")  # 8 -> 1
    page.wait_for_function("() => location.search.includes('batch=1&')")
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('#roofline-graph .scatterlayer "
        ".tracepoint--rtx-4090--decode .point')).fillOpacity === '1'",
        timeout=5000,
    )
    assert_svg_matches(page)


def test_copy_link_copies_without_embed_and_says_so(page: Page, base_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(base_url + "/?hw=h100-sxm5&batch=16&embed=1")
    wait_for_figure(page)
    page.locator("#copy-link").click()
    expect(page.locator("#copy-status")).to_have_text("Link copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert "batch=16" in copied and "embed" not in copied
    expect(page.locator("#copy-field")).to_be_hidden()
    expect(page.locator("#copy-status")).to_have_text("", timeout=8000)  # the status clears


def test_copy_link_where_the_clipboard_is_blocked_shows_the_link(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&batch=16&lang=zh")
    wait_for_figure(page)
    # what a cross-origin iframe gets: the clipboard refuses
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('blocked')); }")
    page.locator("#copy-link").click()
    expect(page.locator("#copy-status")).to_contain_text("剪贴板")
    field = page.locator("#copy-field")
    expect(field).to_be_visible()
    assert "batch=16" in field.input_value()
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.id === 'copy-field'"
        " && document.activeElement.selectionEnd > 0"
    )


def test_copy_link_in_a_frame_denied_the_clipboard_does_not_ask_for_it(page: Page, base_url):
    """A cross-origin iframe without allow="clipboard-write": asking logged a permissions-policy
    violation (a console error) before the field was shown."""
    page.goto(base_url + "/?hw=h100-sxm5&batch=16")
    wait_for_figure(page)
    page.evaluate(
        "() => { window.clipboardAsked = 0;"
        " navigator.clipboard.writeText = () => { window.clipboardAsked += 1; return Promise.resolve(); };"
        " Object.defineProperty(document, 'permissionsPolicy',"
        " {value: {allowsFeature: (f) => f !== 'clipboard-write'}}); }"
    )
    page.locator("#copy-link").click()
    expect(page.locator("#copy-field")).to_be_visible()
    assert "batch=16" in page.locator("#copy-field").input_value()
    assert page.evaluate("() => window.clipboardAsked") == 0


def test_embed_fits_800_by_500_with_a_link_to_the_full_view(page: Page, base_url):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(base_url + "/?embed=1&hw=h100-sxm5,h200-sxm&batch=64&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    assert page.evaluate("() => document.scrollingElement.scrollHeight <= window.innerHeight + 1")
    assert page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth + 1")
    full = page.locator("#open-full")
    expect(full).to_be_visible()
    expect(full).to_have_attribute("target", "_blank")
    href = full.get_attribute("href")
    assert "batch=64" in href and "embed" not in href
    title = page.locator("#roofline-scenario").text_content()
    assert "llama-3-8b" in title and "batch 64" in title  # the scenario, over the figure
    assert_svg_matches(page, [NAMES["h100-sxm5"], NAMES["h200-sxm"]])
    page.goto(base_url + "/?embed=1&controls=0&hw=h100-sxm5")
    wait_for_figure(page)
    expect(page.locator("#controls")).to_be_hidden()
    page.wait_for_function("() => location.search.includes('controls=0')")


def test_model_picker_shows_size_and_architecture_and_sets_the_native_precision(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator("#model").click()
    expect(page.get_by_role("option", name="mixtral-8x7b · 46.7B (12.9B active) · MoE")).to_be_visible()
    expect(page.get_by_role("option", name="gemma-2-9b · 9.24B · sliding window")).to_be_visible()
    page.get_by_role("option", name="deepseek-v3", exact=False).click()
    expect(page.locator("#model-notice")).to_contain_text("deepseek-v3 ships in fp8")
    page.wait_for_function("() => location.search.includes('prec=fp8')")
    wait_decode(
        page,
        "h100-sxm5",
        api_decode_intensity(
            base_url, "h100-sxm5", "deepseek-v3", batch_size=32, weight_dtype="fp8", compute_dtype="fp8"
        ),
    )
    page.goto(base_url + "/?hw=h100-sxm5&model=gpt-oss-20b")  # a link without prec opens in the native one
    wait_for_figure(page)
    assert query(page)["prec"] == "int4"


def test_chinese_page_has_no_english_left_in_the_controls_and_tables(page: Page, base_url):
    page.goto(base_url + "/?lang=zh&hw=h100-sxm5,h200-sxm")
    wait_for_figure(page)
    expect(page.locator("#hardware")).to_contain_text("已选 2 项")
    page.locator("#hardware").click()
    expect(page.get_by_text("全选")).to_be_visible()
    page.keyboard.press("Escape")
    ops = page.locator("#ops-table")
    expect(ops).to_contain_text("受带宽限制")
    expect(ops).to_contain_text("张量核")
    expect(ops).to_contain_text("向量单元")
    assert "memory" not in ops.inner_text() and "tensor" not in ops.inner_text()
    expect(page.locator("#ops-csv")).to_have_text("CSV")
    assert page.locator("#app-root h2").first.evaluate("h => getComputedStyle(h).textTransform") == "none"


def test_slider_handles_announce_the_value_and_their_name(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&batch=32&ctx=4096&kv=8")
    wait_for_figure(page)
    batch = page.locator("#batch-size [role=slider]")
    expect(batch).to_have_attribute("aria-valuetext", "32")
    expect(batch).to_have_attribute("aria-label", "Batch size")
    expect(page.locator("#kv-heads [role=slider]")).to_have_attribute("aria-valuetext", "8")
    batch.focus()
    page.keyboard.press("ArrowRight")
    expect(batch).to_have_attribute("aria-valuetext", "64")
