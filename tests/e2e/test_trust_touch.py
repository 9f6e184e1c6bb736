"""Trust at first touch, in the browser: memory in GiB with the usable share, typed values that
fail say so, published runs only of the chosen model and precision, success not in error red."""

import re

from playwright.sync_api import Page, expect

from tests.e2e.helpers import traces, wait_for_figure

MEMORY_JS = """() => { const g = document.querySelector('#memory-graph .js-plotly-plot');
  return g && g.data ? {uids: g.data.map(t => t.uid), x: g.data.map(t => t.x),
                        title: g._fullLayout.xaxis.title.text} : null; }"""


def test_memory_in_gib_with_the_card_and_the_usable_share(page: Page, base_url):
    """Llama-3-70B bf16 at 1K on one H200: 132 GiB fits the card's 141 GiB, not the 127 GiB a
    serving engine fills at vLLM's default 0.9; the chart marks both, in GiB."""
    page.goto(base_url + "/?hw=h200-sxm&model=llama-3-70b&batch=1&ctx=1024&prec=bf16&tp=1")
    wait_for_figure(page)
    expect(page.locator("#insight")).to_contain_text(
        "On H200 SXM 141GB, 132 GiB fits the card's 141 GiB, not the 127 GiB a serving engine uses at 0.9"
    )
    assert page.locator("#memory-utilization").input_value() == "0.9"
    page.wait_for_function(MEMORY_JS)
    memory = page.evaluate(MEMORY_JS)
    x = dict(zip(memory["uids"], memory["x"], strict=True))
    assert x["memory--capacity"] == [141] and abs(x["memory--usable"][0] - 126.9) < 1e-6
    assert "GiB" in memory["title"]
    legend = page.locator("#memory-graph .legendtext").all_text_contents()
    assert "usable at 0.9" in legend and "capacity" in legend


def test_typed_values_that_fail_say_so(page: Page, base_url):
    """Memory utilisation 0 and a price of 0 are refused with the allowed range and what the
    page still shows, instead of red digits and silence."""
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&memutil=0.8&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    box = page.locator("#memory-utilization")
    box.fill("0")
    box.press("Enter")
    notices = page.locator("#efficiency-notice")
    # the box quotes what was typed (the browser sent none while the box had an HTML min)
    said = "Memory utilization (usable fraction) must be 0.01–1 (you typed 0); still showing 0.9."
    expect(notices).to_contain_text(said)
    price = page.locator("#gpu-price")
    price.fill("0")
    price.press("Enter")
    expect(notices).to_contain_text("GPU-hour price (USD) must be above 0 and at most 10,000 (you typed 0)")
    # off the old HTML step (0.01) the browser sent no value: 0.555 was refused as out of range
    box.fill("0.555")
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('memutil=0.555')")
    expect(notices).not_to_contain_text("Memory utilization")
    # out of the old HTML min and max the browser sent no value: an optional box went silent
    for box_id, typed, said in (
        ("#output-tokens", "-5", "Output tokens per request must be 1–16,777,216 (you typed -5); still showing 1024."),
        ("#concurrency", "70000", "Concurrency (requests in flight) must be 1–65,536 (you typed 70000)"),
        ("#measured-step", "-5", "Measured decode step (ms) must be above 0 and at most 3,600,000 (you typed -5)"),
    ):
        page.locator(box_id).fill(typed)
        page.locator(box_id).press("Enter")
        expect(notices).to_contain_text(said)


def _published(page: Page) -> list[str]:
    return [u for u in traces(page) if u.startswith("published--")]


def test_published_runs_only_of_the_chosen_model_and_precision(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&published=1&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    assert _published(page) == []
    note = page.locator("#reality-note")
    expect(note).to_contain_text("Published runs of llama-3-8b in bf16 on the chosen accelerators: 0.")
    expect(note).to_contain_text("19 left out (19 of another model)")
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-2-7b&prec=fp8&published=1&batch=32&ctx=4096&tp=1")
    wait_for_figure(page)
    assert len(_published(page)) == 4
    expect(page.locator("#reality-note")).to_contain_text("in another precision")
    hovers = [traces(page)[u] for u in _published(page)]
    assert all(len(h["x"]) == 1 for h in hovers)


def test_a_loaded_custom_model_is_not_said_in_error_red(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=1&ctx=1024&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator("#model").click()
    page.get_by_role("option", name="custom config.json…").click()
    page.locator("#custom-config").fill("not json")
    page.locator("#custom-apply").click()
    message = page.locator("#custom-error")
    expect(message).to_contain_text("not valid JSON")
    red = message.evaluate("e => getComputedStyle(e).color")
    config = (
        '{"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,'
        ' "num_key_value_heads": 4, "intermediate_size": 8192, "vocab_size": 32000}'
    )
    page.locator("#custom-config").fill(config)
    page.locator("#custom-apply").click()
    ok = page.locator("#custom-error .status-ok")
    expect(ok).to_contain_text("Custom model loaded")
    text_colour = page.locator(".app").first.evaluate("e => getComputedStyle(e).color")
    assert ok.evaluate("e => getComputedStyle(e).color") == text_colour != red


def test_gpt_oss_ships_in_mxfp4_said_by_its_name(page: Page, base_url):
    """gpt-oss is drawn as int4 (4-bit weights, 16-bit math), but it ships in MXFP4: the notice
    and the picker name the format, never "released in int4"."""
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator("#model").click()
    expect(page.get_by_role("option", name="gpt-oss-20b", exact=False)).to_contain_text("MXFP4")
    page.get_by_role("option", name="gpt-oss-20b", exact=False).click()
    notice = page.locator("#model-notice")
    expect(notice).to_contain_text("gpt-oss-20b ships in MXFP4: precision set to int4.")
    assert "released in int4" not in notice.inner_text()


def test_an_empty_chart_says_why_and_hollow_is_explained(page: Page, base_url):
    """DeepSeek-V3 (fp8, as released) at TP 1: no curve on Throughput vs interactivity, and a
    sentence per card instead of bare axes: the smallest TP that fits on a B200; none on an H100
    (671 GB of weights against 8 x 0.9 x 80 GiB); the symbol line says what hollow means."""
    page.goto(base_url + "/?hw=b200,h100-sxm5&model=deepseek-v3&tp=1")
    wait_for_figure(page)
    note = page.locator("#interactivity-graph .annotation-text")
    expect(note).to_have_attribute("data-unformatted", re.compile("one sequence does not fit at TP 1; the smallest"))
    text = note.get_attribute("data-unformatted")
    assert "B200 (HGX B200, per GPU): one sequence does not fit at TP 1; the smallest that fits is TP 4." in text
    assert "H100 SXM5 80GB: one sequence does not fit at TP 1, nor at any TP degree this card offers." in text
    expect(page.locator("#roofline-key")).to_contain_text("hollow: does not fit")


def test_measured_roofs_on_a_catalogue_card_say_why_nothing_moved(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&roofs=measured&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    expect(page.locator("#efficiency-notice")).to_contain_text(
        "H100 SXM5 80GB: no calibration of this card here, so its datasheet roofs stay"
    )


def test_reality_check_table_reads_names_mfu_and_a_linked_source(page: Page, base_url):
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-2-7b&prec=fp8&published=1&batch=32&ctx=4096&tp=1")
    wait_for_figure(page)
    table = page.locator("#reality-table")
    expect(table).to_contain_text("H100 SXM5 80GB")
    expect(table).to_contain_text("output tokens/s per GPU")
    assert "h100-sxm5" not in table.inner_text() and "output_tokens_per_s_per_gpu" not in table.inner_text()
    expect(table.locator("th")).to_contain_text(["MBU", "MFU"])
    link = table.locator("a").first
    expect(link).to_contain_text("NVIDIA TensorRT-LLM documentation: Peak Throughput, H100 GPUs (FP8)")
    assert link.get_attribute("href").startswith("https://github.com/NVIDIA/TensorRT-LLM/")
