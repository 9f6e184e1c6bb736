"""Issue 12 in Chromium: tooltips that answer the next question, an ops table that switches
accelerator and phase (and downloads what it shows), the comparison's TTFT columns on one
higher-is-better convention, a capacity tick that stays visible on a red bar, and the Chinese
page's reasons in Chinese."""

import csv
import io
from pathlib import Path

import httpx2 as httpx
from playwright.sync_api import Page, expect

from app.units import duration

from .helpers import hover_label, wait_for_figure, wait_settled


def api_result(base_url: str, hw: str, **scenario) -> dict:
    body = {"model": "llama-3-8b", "hardware": [hw], "batch_size": 32, "context_length": 4096, **scenario}
    response = httpx.post(f"{base_url}/api/v1/analyze", json=body, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["results"][0]


def hover_text(page: Page, uid: str, name: str, point: str | None = None) -> str:
    """The hover label of one point, once it is that point's (not the previous one's)."""
    hover_label(page, uid, point)
    label = page.locator("#roofline-graph .hoverlayer .hovertext").first
    expect(label).to_contain_text(name)
    return label.text_content()


def test_tooltips_say_roof_share_and_scope(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h100-sxm5&batch=1024&ctx=128&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    api = api_result(base_url, "h100-sxm5", batch_size=1024, context_length=128)
    decode = hover_text(page, "point--h100-sxm5--decode", "decode")
    assert f"{api['decode']['fraction_of_roof']:.0%} of the roof at this intensity" in decode
    assert "whole model, one step of the batch" in decode and "TFLOP/s at" in decode
    rope = next(o for o in api["decode"]["ops"] if o["name"] == "rope")
    label = hover_text(page, "point--h100-sxm5--elementwise", "rope", "rope")
    assert f"{rope['share_of_step']:.1%} of the decode step's time" in label
    assert "whole model: summed over 32 layers" in label
    final = hover_text(page, "point--h100-sxm5--elementwise", "logits_softmax", "logits_softmax")
    assert "once per step (not per layer)" in final


def test_the_ops_table_switches_accelerator_and_phase(page: Page, base_url, tmp_path: Path):
    page.goto(f"{base_url}/?hw=h100-sxm5,rtx-4090&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    table = page.locator("#ops-table")
    expect(page.locator("#ops-title")).to_contain_text("H100 SXM5 80GB, decode")
    expect(table).to_contain_text("× 32 layers")
    expect(table).to_contain_text("once per step")
    page.locator("#ops-phase label", has_text="prefill").click()
    page.locator("#ops-gpu").click()
    page.get_by_role("option", name="GeForce RTX 4090").click()
    expect(page.locator("#ops-title")).to_contain_text("GeForce RTX 4090, prefill")
    wait_settled(page)
    api = api_result(base_url, "rtx-4090")
    q = next(o for o in api["prefill"]["ops"] if o["name"] == "q_proj")
    expect(table.locator("tr", has_text="q_proj")).to_contain_text(f"{q['share_of_step']:.1%}")
    with page.expect_download() as info:
        page.click("#ops-csv")
    download = info.value
    assert download.suggested_filename == "prefill-ops-llama-3-8b-rtx-4090-b32-t4096-prec-bf16-kvprec-bf16-tp-1.csv"
    text = Path(download.path()).read_text()
    assert "# hardware: GeForce RTX 4090" in text and "# phase: prefill" in text
    rows = list(csv.DictReader(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#")))))
    assert {r["op"]: float(r["share"]) for r in rows}["q_proj"] == round(q["share_of_step"], 4)


def test_comparison_ttft_columns_and_a_visible_capacity_tick(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h100-sxm5,rtx-4090&batch=1024&ctx=1048576&model=llama-3-8b&prec=bf16&tp=1")
    wait_for_figure(page)
    alone = api_result(base_url, "rtx-4090", batch_size=1, context_length=1048576)["prefill"]["time_s"]
    first = api_result(base_url, "h100-sxm5", batch_size=1, context_length=1048576)["prefill"]["time_s"]
    row = page.locator("#comparison-table tr", has_text="GeForce RTX 4090")
    expect(row).to_contain_text(f"{duration(alone)} ({first / alone:.2f}x)")
    expect(page.locator("#comparison-panel")).to_contain_text("higher is better")
    # the capacity tick is drawn in the text colour, not in the red of the overflowing bar
    strokes = page.evaluate(
        """() => Array.from(document.querySelectorAll('#memory-graph .scatterlayer .point'))
                 .map(p => getComputedStyle(p).stroke)"""
    )
    assert strokes and all(s not in ("rgb(198, 40, 40)",) for s in strokes), strokes
    bars = page.evaluate(
        """() => Array.from(document.querySelectorAll('#memory-graph .barlayer path'))
                 .map(p => getComputedStyle(p).fill)"""
    )
    assert "rgb(198, 40, 40)" in bars  # the overflowing KV bar is red: the tick must differ from it


def test_the_chinese_page_gives_reasons_in_chinese(page: Page, base_url):
    page.goto(f"{base_url}/?lang=zh&batch=0&tp=3&foo=1&xhw=x:1")
    wait_for_figure(page)
    notices = page.locator("#notices")
    expect(notices).to_contain_text("已忽略 URL 参数 batch=0：不是 1..65,536 之间的整数")
    expect(notices).to_contain_text("tp=3：应为以下之一：1, 2, 4, 8")
    expect(notices).to_contain_text("foo=1：未知参数")
    expect(notices).to_contain_text("有 2 段，应为 3、4 或 5 段")
    expect(page.locator("#comparison-panel")).to_be_visible()
