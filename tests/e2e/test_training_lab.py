"""The training lab in Chromium: what the user sees (the four utilisation figures, the memory
bars' SVG with the capacity line, the all-reduce), the address bar following a change and
surviving a reload, Chinese, an overflow, a hostile parameter, a typed value the lab cannot use
and a parameter added by its table row (gpn)."""

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from .helpers import set_control

RUN_7B = (
    "/?tab=training&hw=h100-sxm5&model=teaching&n=7&layers=32&heads=32&hdim=128&gpus=8&seq=4096"
    "&tokens=262144&step=3.64&opt=adamw&zero=0&recompute=full"
)
GRAPH = "#train-memory-graph .js-plotly-plot"

# What the memory chart draws: bars per part (the SVG, not the figure data), the capacity line
# and its label.
SVG_JS = f"""() => {{
  const gd = document.querySelector('{GRAPH}');
  if (!gd || !gd._fullLayout) return null;
  return {{
    bars: gd.querySelectorAll('.barlayer .point path').length,
    traces: gd.querySelectorAll('.barlayer .trace').length,
    lines: gd.querySelectorAll('.shapelayer path').length,
    notes: Array.from(gd.querySelectorAll('.annotation-text')).map(e => e.textContent),
    ticks: Array.from(gd.querySelectorAll('.ytick text')).map(e => e.textContent),
  }};
}}"""


def memory_svg(page: Page) -> dict:
    page.wait_for_function(f"() => {{ const g = document.querySelector('{GRAPH}'); return g && g._fullLayout; }}")
    return page.evaluate(SVG_JS)


def test_a_7b_run_change_and_reload(page: Page, base_url):
    page.goto(base_url + RUN_7B)
    table = page.locator("#train-util-table")
    expect(table).to_contain_text("38.2%")
    for figure in ("44.1%", "51.0%", "19.1%"):
        assert figure in table.inner_text()
    expect(page.locator("#train-spread")).to_contain_text("4 numbers from 19.1% to 51.0%")
    expect(page.locator("#train-util-mfu-sparse-peak")).to_contain_text("misleading")
    # ZeRO-0 does not fit: this run and the smallest change that fits, four parts each, one capacity line
    svg = memory_svg(page)
    assert (svg["traces"], svg["bars"], svg["lines"]) == (4, 8, 1), svg
    assert svg["notes"] == ["capacity 80 GiB"], svg
    expect(page.locator("#train-verdict")).to_contain_text("Does not fit")
    expect(page.locator("#train-comm-table")).to_contain_text("54.4 ms")

    # a change: the server answers, the address bar follows (replaceState), a reload keeps it
    history = page.evaluate("() => history.length")
    set_control(page, "train-zero", 1)
    page.wait_for_function("() => location.search.includes('zero=1')")
    expect(page.locator("#train-verdict")).to_contain_text("Fits")
    assert memory_svg(page)["bars"] == 4
    assert page.evaluate("() => history.length") == history  # replaced, not pushed
    query = parse_qs(urlsplit(page.url).query)
    assert query["zero"] == ["1"] and query["tab"] == ["training"] and query["n"] == ["7"]
    assert query["recompute"] == ["full"] and query["step_s"] == ["3.64"] and "step" not in query  # an older step=
    page.reload()
    expect(page.locator("#train-verdict")).to_contain_text("Fits")
    expect(page.locator("#train-zero input[value='1']")).to_be_checked()
    assert "zero=1" in page.url
    expect(page.locator("#train-util-table")).to_contain_text("51.0%")


def test_chinese_overflow_and_hostile_parameter(page: Page, base_url):
    page.goto(
        base_url + "/?tab=training&lang=zh&hw=h100-sxm5&model=llama-2-70b&gpus=1&seq=4096&tokens=4096"
        "&zero=9&opt=%3Cscript%3Ealert(1)%3C/script%3E"
    )
    notices = page.locator("#notices")
    expect(notices).to_be_visible()
    expect(notices).to_contain_text("zero=9")
    expect(notices).to_contain_text("opt=<script>alert(1)</script>")  # shown as text, never run
    expect(page.locator("#train-util-panel h2")).to_have_text("不同口径下的利用率")
    expect(page.locator("#train-verdict")).to_contain_text("显存不足")
    expect(page.locator("#train-fix")).to_contain_text("任何 ZeRO 阶段")
    expect(page.locator("#train-comm")).to_have_text("单卡：没有梯度 all-reduce。")
    svg = memory_svg(page)
    assert (svg["bars"], svg["lines"]) == (4, 1), svg  # no change fits: this run alone
    assert svg["notes"] == ["容量 80 GiB"]


def test_a_typed_value_the_lab_cannot_use_is_told_in_the_box_words(page: Page, base_url):
    page.goto(base_url + RUN_7B)
    expect(page.locator("#train-util-table")).to_contain_text("51.0%")
    # 0 layers: the page keeps 32 and says so, quoting the 0 (with an HTML min the browser sent none)
    page.fill("#train-layers", "0")
    page.keyboard.press("Enter")
    error = page.locator("#train-error")
    expect(error).to_contain_text("L, layers must be 1–100,000 (you typed 0); still showing 32.", timeout=20000)
    assert "None" not in error.inner_text() and "URL" not in error.inner_text()
    expect(page.locator("#train-util-table")).to_contain_text("51.0%")  # the default's numbers, still drawn
    # a parameter added by its table row: 16 GPUs on one 16-GPU link need no measured busbw
    page.fill("#train-layers", "32")
    page.keyboard.press("Enter")
    expect(error).to_have_text("", timeout=20000)
    for box, name, value in (("train-tokens", "tokens", str(16 * 4096)), ("train-gpus", "gpus", "16")):
        page.fill(f"#{box}", value)
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => location.search.includes('{name}={value}')", timeout=20000)
    expect(error).to_contain_text("bus_bandwidth", timeout=20000)
    page.fill("#train-gpn", "16")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.search.includes('gpn=16')", timeout=20000)
    expect(error).to_have_text("", timeout=20000)
    expect(page.locator("#train-comm-table")).to_contain_text("450 GB/s")
    page.reload()
    expect(page.locator("#train-gpn")).to_have_value("16")
    expect(page.locator("#train-comm-table")).to_contain_text("450 GB/s")


def test_a_model_picked_here_drops_the_teaching_runs_measured_step(page: Page, base_url):
    """Kept, the teaching run's 3.64 s made Llama-3.1-70B's MFU 385%; back on the teaching run,
    its own step and 51% return."""
    page.goto(base_url + RUN_7B)
    table = page.locator("#train-util-table")
    expect(table).to_contain_text("51.0%")
    set_control(page, "train-model", "llama-3.1-70b")
    expect(page.locator("#train-error")).to_contain_text("No measured run of llama-3.1-70b yet")
    expect(page.locator("#train-measured")).to_have_value("")
    expect(page.locator("#train-util")).not_to_contain_text("%")
    page.wait_for_function("() => !location.search.includes('step_s=') && !location.search.includes('step=')")
    set_control(page, "train-model", "teaching")
    expect(page.locator("#train-measured")).to_have_value("3.64")
    expect(table).to_contain_text("51.0%")


def test_boxes_off_their_old_step_or_range_are_refused_in_their_words(page: Page, base_url):
    """Off an HTML step or out of an HTML range the browser sends no value: 2.5 micro-batches
    and a busbw of -5 were dropped without a word, and N = 1e-320 billion was taken (MFU with
    300 zeros)."""
    page.goto(base_url + RUN_7B)
    expect(page.locator("#train-util-table")).to_contain_text("51.0%")
    error = page.locator("#train-error")
    for box, typed, said in (
        (
            "#train-mb",
            "2.5",
            "Micro-batch, sequences per GPU (blank: all, no accumulation) must be 1–1,048,576 (you typed 2.5)",
        ),
        ("#train-busbw", "-5", "must be 0.001–1,000,000 (you typed -5)"),
        (
            "#train-n",
            "1e-320",
            "N, parameters (billions) must be 0.001–10,000,000 (you typed 1e-320); still showing 7.",
        ),
    ):
        page.fill(box, typed)
        page.keyboard.press("Enter")
        expect(error).to_contain_text(said)
        page.fill(box, "")  # back to what the run had (N: its 7; the others unset)
        page.keyboard.press("Enter")
    expect(page.locator("#train-util-table")).to_contain_text("51.0%")
