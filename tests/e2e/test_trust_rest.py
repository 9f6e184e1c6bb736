"""Trust at first touch, the rest: the scenario line wraps instead of being cut, the One request
card says what it needs, the HTML snapshot keeps a chart's proportions, every symbol on the
symbol line, labelled measurement controls."""

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import wait_for_figure

# The scenario line over the chart against the chart's card: it wraps instead of running past
# the card's right edge (as a Plotly title it never wrapped and was cut), and sits above the plot.
TITLE_JS = """() => { const t = document.querySelector('#roofline-scenario'); if (!t || !t.textContent) return null;
  const card = t.closest('.figure').getBoundingClientRect(), r = t.getBoundingClientRect();
  const g = document.querySelector('#roofline-graph .js-plotly-plot');
  const svg = g.querySelector('svg.main-svg').getBoundingClientRect();
  const line = parseFloat(getComputedStyle(t).lineHeight);
  return {text: t.textContent, lines: Math.round(r.height / line), overflow: t.scrollWidth - t.clientWidth,
          left: r.left, right: r.right,
          cardLeft: card.left, cardRight: card.right, cardTop: card.top, top: r.top, bottom: r.bottom,
          plotTop: svg.top + g._fullLayout._size.t}; }"""

LONG_NAME = "example-org/Llama-3.2-3B-Instruct-long-context-distilled-experimental-checkpoint"


def _title_inside(page: Page) -> dict:
    page.wait_for_function(TITLE_JS)
    box = page.evaluate(TITLE_JS)
    assert box["left"] >= box["cardLeft"] - 1 and box["right"] <= box["cardRight"] + 1, box
    assert box["top"] >= box["cardTop"] - 1, box  # the first line is not cut at the top either
    assert box["bottom"] <= box["plotTop"] + 1, box  # the last line stays above the plot
    assert box["overflow"] <= 1, box  # it wraps rather than run past its own box
    return box


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scenario_line_wraps_in_the_embed(page: Page, base_url, lang):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(f"{base_url}/?embed=1&lang={lang}&hw=h100-sxm5,h200-sxm&model=llama-3-70b&batch=16")
    wait_for_figure(page)
    box = _title_inside(page)
    assert "FlashAttention" in box["text"] and "llama-3-70b" in box["text"]


def test_scenario_line_wraps_a_long_custom_model_name(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + "/?hw=h100-sxm5&model=llama-3-8b&batch=1&ctx=1024&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator("#model").click()
    page.get_by_role("option", name="custom config.json…").click()
    config = (
        '{"_name_or_path": "' + LONG_NAME + '", "model_type": "llama", "hidden_size": 2048,'
        ' "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 4,'
        ' "intermediate_size": 8192, "vocab_size": 32000}'
    )
    page.locator("#custom-config").fill(config)
    page.locator("#custom-apply").click()
    page.wait_for_function(
        "() => { const t = document.querySelector('#roofline-scenario');"
        " return t && t.textContent.includes('distilled'); }"
    )
    box = _title_inside(page)
    assert "FlashAttention" in box["text"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_request_says_what_it_needs_and_opens_it(page: Page, base_url, lang):
    """Without output tokens (switched off: out=0) the One request card says it needs them and
    links to the box in the closed Serving section; the link opens it and a value fills the
    card's tables: the static batch's and the serving estimate's."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?lang={lang}&hw=h100-sxm5&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1&out=0")
    wait_for_figure(page)
    card = page.locator("#request")
    expect(card).to_contain_text("output tokens" if lang == "en" else "输出 token 数")
    box = page.locator("#output-tokens")
    expect(box).to_be_hidden()
    card.locator("a.request-open").click()
    expect(box).to_be_visible()
    box.fill("256")
    box.press("Enter")
    expect(card.locator("#request-static tbody tr")).to_have_count(1)
    expect(card.locator("#request-serving-table tbody tr")).to_have_count(1)


def test_html_snapshot_keeps_a_charts_proportions(page: Page, base_url):
    """The exported snapshot, opened in a 1400 px window, draws the roofline 720 px tall and at
    most 1200 px wide (it was ~260 px tall across the whole window)."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    with page.expect_download() as info:
        page.locator("#export-html").click()
    page.goto("about:blank")  # the file as opened from disk: none of the page's CSP
    with open(info.value.path(), encoding="utf-8") as f:
        page.set_content(f.read())
    page.wait_for_function("() => { const g = document.querySelector('.js-plotly-plot'); return g && g._fullLayout; }")
    height, width = page.evaluate(
        "() => { const l = document.querySelector('.js-plotly-plot')._fullLayout; return [l.height, l.width]; }"
    )
    assert height == 720 and 600 <= width <= 1200, (height, width)


# the symbol key: HTML under the chart (pages/roofline/symbol_key.py)
LEGEND_TITLE = "#roofline-key"
PROFILE = "name,flops,bytes,time_s,unit\ngemm,1e12,1e9,2e-3,tensor\nadd,2e7,1.2e8,1e-4,vector\n"


def _symbols(page: Page) -> dict:
    return page.evaluate(
        """() => { const g = document.querySelector('#roofline-graph .js-plotly-plot'); const out = {};
             for (const t of g._fullData) out[t.uid] = t.marker && t.marker.symbol; return out; }"""
    )


def test_imported_kernels_their_own_symbol_labelled_controls_and_which_card(page: Page, base_url, tmp_path):
    """Imported kernels are a +, not the ridge's x, and the symbol line says so; the profile's
    format and steps boxes have labels; with two accelerators a notice says which one the profile
    is drawn on (the first, until another is chosen under "Measured on"), and why."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.locator(".measurement summary").click()
    expect(page.get_by_label("Decode steps it covers")).to_have_value("1")
    expect(page.locator("label[for=measurements-format]")).to_have_text("Profile format")
    profile = tmp_path / "profile.csv"
    profile.write_text(PROFILE)
    page.locator("#measurements-upload input[type=file]").set_input_files(str(profile))
    page.wait_for_function(
        "() => document.querySelector('#roofline-graph .js-plotly-plot')._fullData"
        ".some(t => t.uid === 'measured--h100-sxm5--imported')"
    )
    symbols = _symbols(page)
    ridge = symbols["ridge--h100-sxm5"]
    assert symbols["measured--h100-sxm5--imported"] not in (ridge, "x-thin-open", "x")
    expect(page.locator(LEGEND_TITLE)).to_contain_text("+ imported kernel")
    expect(page.locator("#efficiency-notice")).to_contain_text(
        "Imported measurements are drawn on H100 SXM5 80GB, the accelerator chosen under “Measured on”"
    )


def test_cache_roofs_line_style_on_the_symbol_line(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h200-sxm&roofs=hierarchy")
    wait_for_figure(page)
    expect(page.locator(LEGEND_TITLE)).to_contain_text("-·- cache roof")
    page.goto(f"{base_url}/?hw=h200-sxm")
    wait_for_figure(page)
    expect(page.locator(LEGEND_TITLE)).not_to_contain_text("cache roof")


FILL_JS = """(sel) => { const g = document.querySelector(sel + ' .js-plotly-plot');
  const out = {}; for (const t of g._fullData) if (t.marker) out[t.uid] = t.marker.color; return out; }"""


def test_a_point_that_does_not_fit_is_hollow_on_both_charts(page: Page, base_url):
    """RTX 4090, Llama-3-8B bf16, batch 32 at 4K: 16 GiB of KV on 15 GiB of weights does not fit
    in 24 GiB; the roofline's decode point and the interactivity chart's current batch are both
    hollow (the second was solid)."""
    page.goto(f"{base_url}/?hw=rtx-4090&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.wait_for_function(
        "() => { const g = document.querySelector('#interactivity-graph .js-plotly-plot');"
        " return g && g._fullData && g._fullData.length > 0; }"
    )
    roofline = page.evaluate(FILL_JS, "#roofline-graph")
    current = page.evaluate(FILL_JS, "#interactivity-graph")
    assert roofline["point--rtx-4090--decode"] == current["interactivity--rtx-4090--current"] == "rgba(0,0,0,0)"
    page.goto(f"{base_url}/?hw=rtx-4090&model=llama-3-8b&batch=2&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.wait_for_function(
        "() => { const g = document.querySelector('#interactivity-graph .js-plotly-plot');"
        " return g && g._fullData && g._fullData.length > 0; }"
    )
    assert page.evaluate(FILL_JS, "#interactivity-graph")["interactivity--rtx-4090--current"] != "rgba(0,0,0,0)"


def test_throughput_axis_labels_are_whole_numbers_in_order(page: Page, base_url):
    """The tokens/s axis read "5 2 1000 5 2" from the top: Plotly's lone minor digits. Every
    label now reads its whole value, rising up the axis."""
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&batch=32&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    page.wait_for_selector("#throughput-graph .ytick text")
    for axis, coordinate in (("ytick", "bottom"), ("xtick", "left")):
        labels = page.evaluate(
            f"""() => Array.from(document.querySelectorAll('#throughput-graph .{axis} text'))
                 .map(e => [e.getBoundingClientRect().{coordinate}, e.textContent])"""
        )
        ordered = sorted(labels, reverse=axis == "ytick")  # bottom to top, left to right
        values = [float(text.replace(",", "").replace("k", "e3").replace("M", "e6")) for _, text in ordered]
        assert len(values) >= 2 and values == sorted(set(values)), (axis, labels)
