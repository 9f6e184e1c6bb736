"""The Serving page in Chromium: the issue's link draws bound, estimate, band and the shipped
measured runs (their source in the hover on screen, the bound at or above each in tokens/s per
user), a concurrency change redraws and moves the address bar, five runs pasted on a what-if
card at 0.7x the bandwidth fit a calibration that lowers the median error and survives a copied
link; English and Chinese, light and dark, 1400x900, an 800x500 embed and 1920x1080. Pictures
go to a temporary folder: docs/ is renewed by scripts/screenshots.py only. Any console error
fails (conftest)."""

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from engine.serving import load_calibration

from .helpers import set_control

ISSUE = "/?tab=serving&model=meta-llama/Llama-3.1-70B&hw=h200-sxm&backend=trtllm&prec=fp8&tp=4&isl=1024&osl=1024"
GD = "document.querySelector('#srv-throughput .js-plotly-plot')"
SLOW = "h200-sxm-0.7xbw:2.352:989.4:141"
# five shipped TensorRT-LLM runs of Llama-3.1-70B FP8 on 4 x H200 (published/serving/), short form
FIVE_RUNS = """concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms
4,1024,1024,230.372,7.9817
8,1024,1024,257.286,8.2368
16,1024,1024,281.927,8.9323
32,1024,1024,368.178,10.6344
64,1024,1024,528.658,13.6618"""

FIGURE_JS = f"""() => {{
  const gd = {GD};
  if (!gd || !gd.data || !gd._fullLayout) return null;
  const out = {{}};
  for (const t of gd.data) out[t.uid] = {{x: t.x, y: t.y, c: t.customdata, text: t.text}};
  out._drawn = gd.querySelectorAll('.scatterlayer .trace').length;
  out._visible = gd._fullData.filter(t => t.visible === true && t.type === 'scatter').length;
  return out;
}}"""


def figure(page: Page) -> dict:
    page.wait_for_function(f"() => {{ const g = {GD}; return g && g.data && g.data.length && g._fullLayout; }}")
    return page.evaluate(FIGURE_JS)


def hover_text(page: Page, uid: str, index: int) -> str:
    """Move the mouse onto one point of a trace and read the hover label on screen."""
    x, y = page.evaluate(
        f"""([uid, i]) => {{ const g = {GD}, t = g.data.find(t => t.uid === uid);
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis;
        const r = g.querySelector('.nsewdrag').getBoundingClientRect();
        return [r.left + xa.c2p(xa.d2c(t.x[i])), r.top + ya.c2p(ya.d2c(t.y[i]))]; }}""",
        [uid, index],
    )
    page.mouse.move(x + 40, y + 40)
    page.mouse.move(x, y)
    label = page.locator("#srv-throughput .hoverlayer .hovertext")
    label.first.wait_for(timeout=5000)
    return label.first.text_content()


def test_issue_link_draws_the_three_and_the_bound_holds(page: Page, base_url, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE)
    fig = figure(page)
    for kind in ("bound", "estimate", "band", "measured"):
        assert f"serving--h200-sxm--{kind}" in fig, sorted(fig)
    assert fig["_drawn"] == fig["_visible"]
    measured, bound = fig["serving--h200-sxm--measured"], fig["serving--h200-sxm--bound"]
    assert len(measured["x"]) == 6
    by_concurrency = dict(zip(bound["c"], bound["x"], strict=True))
    for c, user in zip(measured["c"], measured["x"], strict=True):
        assert by_concurrency[c] >= user, (c, by_concurrency[c], user)
    label = hover_text(page, "serving--h200-sxm--measured", 2)
    assert "measured" in label and "aiconfigurator" in label and "TensorRT-LLM" in label and "estimate's error" in label
    expect(page.locator("#srv-tables")).to_contain_text("bound")
    expect(page.locator("#srv-tables")).to_contain_text("measured (concurrency 64, TensorRT-LLM)")
    expect(page.locator("#srv-insight")).to_contain_text("is bound by its fixed overhead per step")
    page.screenshot(path=str(tmp_path / "serving-1400x900.png"))

    # a concurrency change redraws every view and replaces the address bar's conc=
    set_control(page, "srv-conc", 128)
    page.wait_for_function("() => location.search.includes('conc=128')")
    expect(page.locator("#srv-tables")).to_contain_text("concurrency 128")
    chosen = figure(page)["serving--h200-sxm--chosen"]
    assert chosen["x"][0] == next(x for c, x in zip(bound["c"], bound["x"], strict=True) if c == 128)


def test_a_typed_concurrency_out_of_range_says_so_and_the_numbers_stay(page: Page, base_url):
    """0 in the concurrency box: the box's own words above charts still computed at the value
    the page keeps, and the address bar keeps that value too."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE + "&conc=96")
    before = figure(page)["serving--h200-sxm--chosen"]
    page.fill("#srv-conc", "0")
    page.keyboard.press("Enter")
    error = page.locator("#srv-error")
    expect(error).to_contain_text("Concurrency (requests in flight) must be 1–65,536 (you typed 0)")
    expect(error).to_contain_text("64")  # the default the page computes with instead
    # the refused digits read in the sentence's danger colour
    colour = "(s) => getComputedStyle(document.querySelector(s)).color"
    assert page.evaluate(colour, "#srv-conc") == page.evaluate(colour, "#srv-error")
    page.wait_for_function("() => location.search.includes('conc=64')")
    after = figure(page)
    assert after["_drawn"] == after["_visible"] > 0
    assert after["serving--h200-sxm--chosen"]["x"] != before["x"]  # moved to concurrency 64
    expect(page.locator("#srv-tables")).to_contain_text("concurrency 64")


def test_fit_my_runs_on_a_slow_what_if_survives_a_copied_link(page: Page, base_url, context, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE + "&xhw=" + SLOW)
    figure(page)
    set_control(page, "srv-fit-target", "h200-sxm-0.7xbw")
    page.fill("#srv-runs", FIVE_RUNS)
    page.click("#srv-fit-run")
    state = page.locator("#srv-fit-state")
    expect(state).to_contain_text("Fitted to your 5 runs on h200-sxm-0.7xbw (what-if), on this scenario")
    page.wait_for_function("() => location.search.includes('runs=')")
    query = parse_qs(urlsplit(page.url).query)
    assert "fit" not in query and "fiterr" not in query  # the link carries the runs, not results
    page.wait_for_function(f"() => {GD}.data.some(t => t.uid === 'serving--h200-sxm-0-7xbw--fitted')")
    fig = figure(page)
    fitted, yours = fig["serving--h200-sxm-0-7xbw--fitted"], fig["serving--h200-sxm-0-7xbw--yours"]
    assert yours["c"] == [4, 8, 16, 32, 64]
    expect(page.locator("#srv-tables")).to_contain_text("yours (concurrency 64)")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(tmp_path / "serving-fit-my-runs.png"))

    # the copied link, in a fresh page, fits the same runs again and says what the fit did
    other = context.new_page()
    errors: list[str] = []
    other.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    other.goto(page.url)
    again = figure(other)["serving--h200-sxm-0-7xbw--fitted"]
    assert again["x"] == fitted["x"] and again["y"] == fitted["y"]
    expect(other.locator("#srv-fit-state")).to_contain_text("Fitted to your 5 runs")
    expect(other.locator("#srv-fit-state")).to_contain_text("ms fixed overhead per step")
    expect(other.locator("#srv-insight")).to_contain_text("Fitted to your 5 runs")
    assert not errors, errors

    # a bad row is named by its line and field, and the fit on screen stays as it was
    page.fill("#srv-runs", FIVE_RUNS + "\n8,abc,1024,200,9")
    page.click("#srv-fit-run")
    expect(page.locator("#srv-fit-status")).to_contain_text("line 7, input_tokens")
    assert parse_qs(urlsplit(page.url).query)["runs"] == query["runs"]
    expect(state).to_contain_text("Fitted to your 5 runs")

    # another scenario: the fit is named as another scenario's, not applied, and links back to it
    set_control(page, "srv-tp", 8)
    expect(state).to_contain_text("belongs to another scenario")
    expect(state).to_contain_text("tensor parallel")
    page.wait_for_function(f"() => !{GD}.data.some(t => t.uid === 'serving--h200-sxm-0-7xbw--fitted')")
    page.click(".srv-fit-open")
    expect(state).to_contain_text("on this scenario")
    assert parse_qs(urlsplit(page.url).query)["tp"] == ["4"]

    # an uploaded file fits the same way
    upload = {"name": "runs.csv", "mimeType": "text/csv", "buffer": FIVE_RUNS.encode()}
    page.set_input_files("#srv-upload input[type=file]", files=[upload])
    expect(state).to_contain_text("Fitted to your 5 runs")


def test_runs_faster_than_the_bound_are_named_and_the_fit_refused(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE)
    figure(page)
    fast = FIVE_RUNS.splitlines()[0] + "\n4,1024,1024,230,0.1\n8,1024,1024,257,0.1\n16,1024,1024,282,0.1"
    page.fill("#srv-runs", fast)
    page.click("#srv-fit-run")
    status = page.locator("#srv-fit-status")
    expect(status).to_contain_text("A fit needs at least 3 runs")
    expect(status).to_contain_text("line 2 (concurrency 4), tpot_ms: 0.1 ms is")
    assert "runs=" not in page.url


def test_chinese_dark(page: Page, base_url, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE + "&lang=zh&theme=dark")
    figure(page)
    expect(page.locator("#srv-chart-panel h2")).to_have_text("吞吐与交互性：上界、估计、实测")
    expect(page.locator("#srv-insight")).to_contain_text("受每步固定开销限制")
    expect(page.locator("#srv-tables")).to_contain_text("上界")
    assert "theme-dark" in page.locator("#app-root").get_attribute("class")
    page.screenshot(path=str(tmp_path / "serving-zh-dark.png"))


def test_embed_800x500_and_presentation_1920x1080(page: Page, base_url, tmp_path):
    page.set_viewport_size({"width": 800, "height": 500})
    page.goto(base_url + ISSUE + "&embed=1&controls=0")
    figure(page)
    expect(page.locator("#srv-controls")).to_be_hidden()
    box = page.locator("#srv-throughput").bounding_box()
    assert box["height"] >= 300 and box["y"] + box["height"] <= 501
    assert page.evaluate("() => document.documentElement.scrollHeight") <= 501
    page.screenshot(path=str(tmp_path / "serving-embed-800x500.png"))

    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(base_url + ISSUE + "&present=1")
    figure(page)
    assert page.locator("#srv-throughput").bounding_box()["height"] >= 600
    page.screenshot(path=str(tmp_path / "serving-present-1920x1080.png"))


ROOFLINE_GD = "document.querySelector('#roofline-graph .js-plotly-plot')"


def test_roofline_estimate_point_beneath_the_decode_bound(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(
        base_url + "/?hw=h200-sxm,b200&model=llama-3.1-70b&batch=64&ctx=1024&prec=fp8&kvprec=fp8&tp=4&out=1024&conc=64"
    )
    page.wait_for_function(
        f"() => {{ const g = {ROOFLINE_GD}; return g && g.data && g.data.some(t => t.uid.startsWith('estimate--')); }}"
    )
    points = page.evaluate(
        f"""() => Object.fromEntries({ROOFLINE_GD}.data.filter(t => /--decode$/.test(t.uid) && t.x.length === 1)
            .map(t => [t.uid, [t.x[0], t.y[0]]]))"""
    )
    for hw in ("h200-sxm", "b200"):
        bound, estimate = points[f"point--{hw}--decode"], points[f"estimate--{hw}--decode"]
        assert estimate[0] == bound[0] and estimate[1] < bound[1], (hw, bound, estimate)
    insight = page.locator("#insight")
    expect(insight).to_contain_text("TPOT bound")
    expect(insight).to_contain_text("Measured:")


def test_exports_carry_scenario_calibration_and_source_under_one_stem(page: Page, base_url):
    """Issue 29 §4: one naming rule for every export (no comma, the concurrency in it)."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE.replace("hw=h200-sxm", "hw=h200-sxm,b200"))
    figure(page)
    stem = "serving-llama-3.1-70b-h200-sxm+b200-c64"
    with page.expect_download() as csv_download:
        page.click("#srv-export-csv")
    assert csv_download.value.suggested_filename == stem + ".csv"
    text = Path(csv_download.value.path()).read_text(encoding="utf-8")
    calibration = f"calibration {load_calibration().id}"  # the shipped one's id (serving-v2-... since issue 31)
    assert f"# calibration: {calibration}" in text and "aiconfigurator" in text
    series = [line.split(",")[0] for line in text.splitlines() if not line.startswith("#")][1:]
    assert {"bound", "estimate", "measured"} <= set(series) and series.count("measured") == 12  # 6 a card
    with page.expect_download() as svg_download:
        page.click("#srv-export-svg")
    assert svg_download.value.suggested_filename == stem + ".svg"
    svg = Path(svg_download.value.path()).read_text(encoding="utf-8")
    assert "<svg" in svg and calibration in svg and "aiconfigurator" in svg
    with page.expect_download() as png_download:
        page.click("#srv-export-png")
    assert png_download.value.suggested_filename == stem + ".png"
    with page.expect_download() as html_download:
        page.click("#srv-export-html")
    assert html_download.value.suggested_filename == stem + ".html"
    snapshot = Path(html_download.value.path()).read_text(encoding="utf-8")
    assert "meta-llama/Llama-3.1-70B" in snapshot and calibration in snapshot
    # a changed concurrency renames every file
    set_control(page, "srv-conc", 128)
    page.wait_for_function("() => location.search.includes('conc=128')")
    with page.expect_download() as png_download:
        page.click("#srv-export-png")
    assert png_download.value.suggested_filename == "serving-llama-3.1-70b-h200-sxm+b200-c128.png"
