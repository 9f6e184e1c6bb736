"""End-to-end: the dashboard in Debian's Chromium against a live server."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from engine.analysis import Scenario, analyze_one
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, load_model

from .helpers import GD, assert_svg_matches, decode_x, traces, wait_for_decode_x_change, wait_for_figure


def engine_decode_intensity(hw="h100-sxm5", model="llama-3-8b", **scenario) -> float:
    return analyze_one(get_model(model), get_accelerator(hw), Scenario(**scenario))["decode"]["intensity"]


def test_default_view(page: Page, base_url):
    """The product's one default scenario (pages/scenario.py): Llama-3.1-70B in fp8 on one H200
    at TP 4, a batch of 64 with 1,024 tokens of context, and the serving estimate beneath."""
    page.goto(base_url + "/")
    wait_for_figure(page)
    uids = set(traces(page))
    hw = "h200-sxm"
    assert {
        f"roof--{hw}--memory",
        f"roof--{hw}--tensor",
        f"roof--{hw}--vector",
        f"ridge--{hw}",
        f"point--{hw}--decode",
        f"point--{hw}--prefill",
        f"point--{hw}--attention_decode",
        f"trajectory--{hw}",
        f"point--{hw}--elementwise",
        f"estimate--{hw}--decode",
    } <= uids
    assert not any(u.startswith("point--h100-sxm5") for u in uids)
    ops = traces(page)[f"point--{hw}--elementwise"]["customdata"]
    assert len(ops) == 7  # the decode step's elementwise ops, one point each
    expected = engine_decode_intensity(
        hw,
        "llama-3.1-70b",
        batch_size=64,
        context_length=1024,
        weight_dtype="fp8",
        compute_dtype="fp8",
        kv_dtype="fp8",
        tensor_parallel=4,
    )
    assert decode_x(page, hw) == pytest.approx(expected)
    expect(page.locator("#insight")).to_contain_text("memory-bound")
    expect(page.locator("#notices")).to_be_hidden()
    expect(page.locator("#roofline-scenario")).to_have_text(
        "llama-3.1-70b · weights fp8 · KV fp8 · compute fp8 · batch 64 · context 1,024 · TP 4 · FlashAttention on"
    )
    assert_svg_matches(page, ["H200 SXM 141GB"])


def test_batch_slider_moves_decode_point(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    before = decode_x(page, "h100-sxm5")
    page.locator("#batch-size .dash-slider-thumb").focus()
    page.keyboard.press("ArrowRight")
    after = wait_for_decode_x_change(page, "h100-sxm5", before)
    assert after == pytest.approx(engine_decode_intensity(batch_size=64, context_length=4096))
    assert after > before
    expect(page.locator("#batch-size-input")).to_have_value("64")
    page.wait_for_function("() => location.search.includes('batch=64')")
    assert_svg_matches(page)
    # the panels follow once the slider rests
    expect(page.locator("#insight")).to_contain_text("~4,")


def test_kv_heads_and_precision_move_decode_point(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&kv=8&prec=bf16&tp=1")
    wait_for_figure(page)
    before = decode_x(page, "h100-sxm5")
    page.locator("#kv-heads .dash-slider-thumb").focus()
    page.keyboard.press("ArrowLeft")  # 8 -> 4 KV heads
    x = wait_for_decode_x_change(page, "h100-sxm5", before)
    assert x == pytest.approx(engine_decode_intensity(batch_size=32, context_length=4096, num_kv_heads=4))
    page.wait_for_function("() => location.search.includes('kv=4')")
    page.locator("#precision").click()
    page.get_by_role("option", name="int4 weight-only (W4A16)").click()
    y = wait_for_decode_x_change(page, "h100-sxm5", x)
    assert y == pytest.approx(
        engine_decode_intensity(batch_size=32, context_length=4096, num_kv_heads=4, weight_dtype="int4")
    )
    page.wait_for_function("() => location.search.includes('prec=int4')")


def test_url_reproduces_view(page: Page, base_url):
    page.goto(
        base_url + "/?hw=rtx-4090,l40s&model=qwen2.5-7b-instruct&batch=64&ctx=8192&kv=4&prec=fp8&kvprec=fp8&fa=0&tp=1"
    )
    wait_for_figure(page)
    uids = set(traces(page))
    assert (
        "point--rtx-4090--decode" in uids and "point--l40s--decode" in uids and "point--h100-sxm5--decode" not in uids
    )
    expected = engine_decode_intensity(
        "rtx-4090",
        "qwen2.5-7b-instruct",
        batch_size=64,
        context_length=8192,
        num_kv_heads=4,
        weight_dtype="fp8",
        compute_dtype="fp8",
        kv_dtype="fp8",
        flash_attention=False,
    )
    assert decode_x(page, "rtx-4090") == pytest.approx(expected)
    expect(page.locator("#batch-size-input")).to_have_value("64")
    expect(page.locator("#context-length-input")).to_have_value("8192")
    # FlashAttention off: scores go through memory, an elementwise op of their own
    assert "attention_softmax" in page.evaluate(
        f"() => {GD}.data.find(t => t.uid === 'point--rtx-4090--elementwise').text"
    )


def test_embed_hides_side_panels(page: Page, base_url):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(base_url + "/?embed=1&hw=h100-sxm5")
    wait_for_figure(page)
    expect(page.locator("#roofline-graph")).to_be_visible()
    expect(page.locator("#side-panels")).to_be_hidden()
    expect(page.locator("#below-panels")).to_be_hidden()
    # the labs' controls stay in the full view: an 800 x 500 iframe keeps the figure and sizes
    expect(page.locator(".what-if")).to_be_hidden()
    expect(page.locator("#pin-scenario")).to_be_hidden()
    expect(page.locator(".tabs")).to_be_hidden()
    page.wait_for_function("() => location.search.includes('embed=1')")


def test_chinese_labels(page: Page, base_url):
    page.goto(base_url + "/?lang=zh")
    wait_for_figure(page)
    expect(page.locator("#controls")).to_contain_text("加速器")
    expect(page.locator("#insight")).to_contain_text("带宽")
    assert "算术强度" in page.locator("#roofline-graph .xtitle").text_content()


def test_hostile_parameter_shows_notice(page: Page, base_url):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(base_url + "/?batch=%3Cscript%3Ealert(1)%3C/script%3E&hw=h100-sxm5,../../etc/passwd&model=x&evil=1")
    wait_for_figure(page)
    notices = page.locator("#notices")
    expect(notices).to_be_visible()
    expect(notices).to_contain_text("batch=<script>alert(1)</script>")
    expect(notices).to_contain_text("unknown accelerator")
    expect(notices).to_contain_text("evil")
    assert "point--h100-sxm5--decode" in traces(page)
    assert not dialogs


def test_tensor_parallel_from_url_and_bad_degree(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-70b&batch=16&ctx=4096&tp=2&prec=bf16")
    wait_for_figure(page)
    expected = engine_decode_intensity(
        "h100-sxm5", "llama-3-70b", batch_size=16, context_length=4096, tensor_parallel=2
    )
    assert decode_x(page, "h100-sxm5") == pytest.approx(expected)
    expect(page.locator("#insight")).to_contain_text("all-reduces")
    # 28 heads do not split 8 ways: the link's tp=8 is refused with a notice, and 8 is offered
    # disabled with the reason
    page.goto(base_url + "/?hw=h100-sxm5&model=qwen2.5-7b-instruct&tp=8&prec=bf16")
    wait_for_figure(page)
    expect(page.locator("#notices")).to_contain_text("tp=8")
    expect(page.locator("#tensor-parallel input[value='8']")).to_be_disabled()
    expect(page.locator("#tensor-parallel span[title]")).to_have_attribute(
        "title", "TP 8 does not divide the 28 attention heads."
    )
    expect(page.locator("#tensor-parallel span[title]")).to_have_text("8")


def test_custom_config_paste(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=1&ctx=1024&prec=bf16&tp=1")
    wait_for_figure(page)
    before = decode_x(page, "h100-sxm5")
    page.locator("#model").click()
    page.get_by_role("option", name="custom config.json…").click()
    expect(page.locator("#custom-panel")).to_be_visible()
    page.locator("#custom-config").fill('{"model_type": "llama", "hidden_size": 4096}')
    page.locator("#custom-apply").click()
    expect(page.locator("#custom-error")).to_contain_text("config.num_hidden_layers: missing required field")
    page.locator("#custom-config").fill("not json")
    page.locator("#custom-apply").click()
    expect(page.locator("#custom-error")).to_contain_text("not valid JSON")
    config = (
        '{"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,'
        ' "num_key_value_heads": 4, "intermediate_size": 8192, "vocab_size": 32000}'
    )
    page.locator("#custom-config").fill(config)
    page.locator("#custom-apply").click()
    expect(page.locator("#custom-error")).to_contain_text("Custom model loaded")
    model = load_model(json.loads(config))
    expected = analyze_one(model, get_accelerator("h100-sxm5"), Scenario(batch_size=1, context_length=1024))
    # "custom" before its config is applied shows the default model: wait for the custom one's point
    page.wait_for_function(
        f"""(want) => {{ const t = {GD}.data.find(t => t.uid === 'point--h100-sxm5--decode');
            return t && Math.abs(t.x[0] - want) <= 1e-6 * want; }}""",
        arg=expected["decode"]["intensity"],
        timeout=20000,
    )
    assert decode_x(page, "h100-sxm5") != before


def test_measured_step_and_efficiency_from_url(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&step=12.5&bweff=0.8&prec=bf16&tp=1")
    wait_for_figure(page)
    page.wait_for_function(
        "() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');"
        " return g.data.some(t => t.uid === 'measured--h100-sxm5--decode'); }"
    )
    star = traces(page)["measured--h100-sxm5--decode"]
    scenario = Scenario(batch_size=32, context_length=4096, bandwidth_efficiency=0.8)
    predicted = analyze_one(get_model("llama-3-8b"), get_accelerator("h100-sxm5"), scenario)["decode"]
    assert star["y"][0] == pytest.approx(predicted["flops"] / 12.5e-3)
    expect(page.locator("#efficiency-notice")).to_contain_text("80% of bandwidth")
    expect(page.locator("#insight")).to_contain_text("MBU")
    page.wait_for_function("() => location.search.includes('step=12.5') && location.search.includes('bweff=0.8')")


def test_upload_measurements(page: Page, base_url, tmp_path):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator(".measurement summary").click()
    bad = tmp_path / "bad.csv"
    bad.write_text("name,flops\nx,1\n")
    page.locator("#measurements-upload input[type=file]").set_input_files(str(bad))
    expect(page.locator("#measurements-status")).to_contain_text("line 1")
    good = tmp_path / "good.csv"
    good.write_text("name,flops,bytes,time_s\nmy_gemv,1.2e11,3.8e9,1.6e-3\n")
    page.locator("#measurements-upload input[type=file]").set_input_files(str(good))
    expect(page.locator("#measurements-status")).to_contain_text("1 measured points")
    page.wait_for_function(
        "() => { const g = document.querySelector('#roofline-graph .js-plotly-plot');"
        " return g.data.some(t => t.uid === 'measured--h100-sxm5--imported'); }"
    )  # a row with its own counts: drawn once, in the imported trace (marks.imported_trace)
    assert traces(page)["measured--h100-sxm5--imported"]["x"][0] == pytest.approx(1.2e11 / 3.8e9)
    assert_svg_matches(page)


def test_html_snapshot_and_ops_json_downloads(page: Page, base_url, tmp_path):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    with page.expect_download() as info:
        page.locator("#export-html").click()
    html = tmp_path / "roofline.html"
    info.value.save_as(html)
    text = html.read_text()
    assert "point--h100-sxm5--decode" in text and len(text) > 1_000_000  # plotly.js inlined: opens offline
    assert '<script src="http' not in text
    with page.expect_download() as info:
        page.locator("#ops-json").click()
    ops = json.loads(Path(info.value.path()).read_text())
    assert ops["hardware"] == "H100 SXM5 80GB" and {r["op"] for r in ops["decode_ops"]} >= {"attention", "lm_head"}
    assert ops["scenario"]["batch_size"] == 32 and ops["scenario"]["model"] == "llama-3-8b"
    assert ops["app"].startswith("llm-roofline ") and ops["catalogue"].startswith("sha256:")
    # every part of the link not at the product's default is named (prec, its KV and TP differ here)
    name = "decode-ops-llama-3-8b-h100-sxm5-b32-t4096-prec-bf16-kvprec-bf16-tp-1.json"
    assert info.value.suggested_filename == name
    with page.expect_download() as info:
        page.locator("#ops-csv").click()
    lines = Path(info.value.path()).read_text().splitlines()
    assert lines[0].startswith("# app: llm-roofline") and any(x.startswith("# scenario: {") for x in lines)
    header = next(x for x in lines if not x.startswith("#"))
    assert header.split(",")[:2] == ["op", "unit"]
