"""The Planner page in Chromium (issue 33): the issue's link draws each accelerator's
aggregated and disaggregated frontiers that the engine has, the shipped measured runs and the
star on the engine's best; dragging the TPOT target to 20 ms moves the star and the table
without a new search, and the copied link reopens on the same star; the best row opened on the
serving page shows the same TTFT and TPOT; the files carry the question, targets, calibration and
source; Copy commands copies the row's commands. Any console error fails (conftest)."""

from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
import pytest
from playwright.sync_api import Page, expect

from app.dashboard.pages.plan.compute import SEARCHES
from app.units import plain

ISSUE = "/?tab=plan&model=deepseek-ai/DeepSeek-R1&hw=h200-sxm,b200&gpus=8&isl=1024&osl=1024&tpot_ms=50&ttft_ms=2000"
GD = "document.querySelector('#plan-frontier .js-plotly-plot')"

FIGURE_JS = f"""() => {{
  const gd = {GD};
  if (!gd || !gd.data || !gd._fullLayout) return null;
  const out = {{}};
  for (const t of gd.data) out[t.uid] = {{x: t.x, y: t.y, name: t.name}};
  // each zorder is a layer of its own (.scatterlayer, .scatterlayer2, ...): every scatter trace drawn
  out._drawn = gd.querySelectorAll('.trace.scatter').length;
  out._visible = gd._fullData.filter(t => t.visible === true && t.type === 'scatter').length;
  // the star where its data says, inside the axes (a frozen chart keeps old positions)
  const star = gd._fullData.find(t => t.uid === 'plan--best');
  const point = gd.querySelector('.trace.traceplan--best .point');
  const m = point && /translate\\(([-0-9.e]+),\\s*([-0-9.e]+)\\)/.exec(point.getAttribute('transform') || '');
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  out._star = star.x.length && m ? [Number(m[1]) - xa.c2p(star.x[0]), Number(m[2]) - ya.c2p(star.y[0]),
                                      xa.c2p(star.x[0]) >= 0 && xa.c2p(star.x[0]) <= xa._length] : null;
  return out;
}}"""


def figure(page: Page) -> dict:
    page.wait_for_function(f"() => {{ const g = {GD}; return g && g.data && g.data.length && g._fullLayout; }}")
    return page.evaluate(FIGURE_JS)


def api_plan(base_url: str, **change) -> dict:
    """POST /api/v1/plan for the issue's question (the same engine, over HTTP)."""
    body = {"model": "deepseek-ai/DeepSeek-R1", "hardware": ["h200-sxm", "b200"], "gpus": 8, "input_tokens": 1024,
            "output_tokens": 1024, "tpot_s": 0.05, "ttft_s": 2.0, **change}  # fmt: skip
    response = httpx.post(f"{base_url}/api/v1/plan", json=body, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def best_xy(answer: dict) -> list[float]:
    est = answer["best"]["estimate"]
    return [est["tokens_per_s_per_user"], est["output_tokens_per_s_per_gpu"]]


def star(fig: dict) -> list[float]:
    return [fig["plan--best"]["x"][0], fig["plan--best"]["y"][0]]


def assert_drawn(fig: dict) -> None:
    assert fig["_drawn"] == fig["_visible"], (fig["_drawn"], fig["_visible"])
    dx, dy, inside = fig["_star"]
    assert abs(dx) < 1.5 and abs(dy) < 1.5 and inside, fig["_star"]


def test_the_issue_link_the_target_slider_and_the_copied_link(page: Page, base_url, context):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE)
    fig = figure(page)
    answer = api_plan(base_url)
    for hw in ("h200-sxm", "b200"):
        assert f"plan--{hw}--measured" in fig and fig[f"plan--{hw}--measured"]["x"], hw
        for mode in ("aggregated", "disaggregated"):
            has = any(c["hardware"] == hw for c in answer["frontier"][mode])
            assert (f"plan--{hw}--{mode}" in fig) == has, (hw, mode)
            assert (f"plan--{hw}--{mode}--band" in fig) == has, (hw, mode)
    # B200 has both frontiers; on 8 x H200 no disaggregated deployment of the 671B model fits
    # (each side would hold the FP8 weights on 4 GPUs): the page draws none and says so
    assert (
        "plan--b200--aggregated" in fig and "plan--b200--disaggregated" in fig and "plan--h200-sxm--aggregated" in fig
    )
    expect(page.locator("#plan-counts")).to_contain_text("No disaggregated deployment fits in memory on 8 × H200")
    assert star(fig) == pytest.approx(best_xy(answer), rel=1e-9)
    assert_drawn(fig)
    verdict = page.text_content("#plan-verdict")
    assert plain(answer["best"]["estimate"]["output_tokens_per_s_per_gpu"]) + " tok/s/GPU" in verdict
    assert f"{answer['verdict']['ratio_other_mode']:.2f}×" in verdict
    first_row = page.text_content("#plan-row-0")

    # drag the TPOT target to 20 ms: the search is not asked again, the star and the table move
    page.wait_for_selector("#plan-chart-panel[data-grid^='(']")  # the sliders' stops, drawn in the browser
    searches = SEARCHES.misses
    page.locator("#plan-tpot-slider [role=slider]").focus()
    for shown in ("40", "30", "25", "20"):
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#plan-tpot")).to_have_value(shown)
    page.wait_for_function("() => location.search.includes('tpot_ms=20&')")
    at_20 = api_plan(base_url, tpot_s=0.02)
    page.wait_for_function(
        f"(x) => {{ const t = {GD}.data.find(t => t.uid === 'plan--best');"
        " return t.x.length && Math.abs(t.x[0] - x) < 1e-9 * x; }",
        arg=best_xy(at_20)[0],
    )
    fig = figure(page)
    assert star(fig) == pytest.approx(best_xy(at_20), rel=1e-9)
    assert fig["plan--target"]["x"][0] == pytest.approx(50.0)  # right of 1 / 20 ms
    expect(page.locator("#plan-verdict")).to_contain_text("TPOT ≤ 20 ms")
    expect(page.locator("#plan-counts")).not_to_contain_text("No aggregated")  # every stop says what the search has
    assert_drawn(fig)
    expect(page.locator("#plan-row-0")).not_to_have_text(first_row)
    assert SEARCHES.misses == searches  # re-filtered, not searched again

    # the link reopens the same answer
    link = page.url
    assert parse_qs(urlsplit(link).query)["tpot_ms"] == ["20"]
    again = context.new_page()
    again.goto(link)
    reopened = figure(again)
    assert [reopened["plan--best"]["x"], reopened["plan--best"]["y"]] == [
        fig["plan--best"]["x"],
        fig["plan--best"]["y"],
    ]
    assert again.text_content("#plan-verdict") == page.text_content("#plan-verdict")


def _estimate_cell(page: Page, hw: str, metric: str) -> str:
    row = page.locator(f"#srv-table-{hw} tbody tr", has=page.locator("th", has_text=metric))
    return row.locator("td.col-estimate").text_content()


def test_the_best_row_opened_on_the_serving_page_shows_the_same_ttft_and_tpot(page: Page, base_url):
    """Aggregated here; a disaggregated candidate's link read by the serving page's own
    deployment is checked in tests/dashboard/pages/plan/test_plan_answers.py."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + ISSUE + "&modes=aggregated")
    figure(page)
    ttft = page.locator("#plan-row-0 td.col-ttft").inner_text().split("\n")
    tpot = page.locator("#plan-row-0 td.col-tpot").inner_text().split("\n")
    best = api_plan(base_url, modes=["aggregated"])["best"]
    page.click("#plan-open-0")
    page.wait_for_function("() => location.search.includes('tab=serving')")
    page.wait_for_selector(f"#srv-table-{best['hardware']} tbody tr")
    assert _estimate_cell(page, best["hardware"], "TTFT") == f"{ttft[0]} ({ttft[1]})"
    assert _estimate_cell(page, best["hardware"], "TPOT") == f"{tpot[0]} ({tpot[1]})"
    query = parse_qs(urlsplit(page.url).query)
    assert query["conc"] == [str(best["serving_request"]["concurrency"])] and query["backend"] == [best["backend"]]
    expect(page.locator("#notices")).to_be_hidden()  # every parameter of the link was used


def test_nothing_meets_the_target_says_what_would(page: Page, base_url):
    page.goto(base_url + ISSUE.replace("tpot_ms=50", "tpot_ms=1"))
    fig = figure(page)
    answer = api_plan(base_url, tpot_s=0.001)
    assert answer["best"] is None and fig["plan--best"]["x"] == []
    nearest = answer["reason"]["nearest"]["tpot_s_at_asked_ttft"]
    expect(page.locator("#plan-verdict")).to_contain_text(f"a TPOT target of {plain(nearest * 1e3)} ms or more")
    expect(page.locator("#plan-table")).to_contain_text("No deployment meets the target")


def test_files_carry_the_question_targets_calibration_and_source(page: Page, base_url, tmp_path):
    page.goto(base_url + ISSUE + "&price=h200-sxm:3.5,b200:5.5")
    figure(page)
    stem = "plan-deepseek-r1-h200-sxm+b200-g8-tpot50-ttft2000"
    files = {}
    for kind in ("csv", "html", "png", "svg"):
        with page.expect_download(timeout=60000) as info:
            page.click(f"#plan-export-{kind}")
        assert info.value.suggested_filename == f"{stem}.{kind}"
        files[kind] = info.value.path().read_bytes()
    text = files["csv"].decode()
    for line in ("# scenario: deepseek-ai/DeepSeek-R1 on 8 GPUs", "# targets: TPOT ≤ 50 ms and TTFT ≤ 2,000 ms",
                 "# calibration: calibration serving-v2-", "# measured_source: measured runs: ai-dynamo/aiconfigurator",
                 "# verdict: On 8 × B200"):  # fmt: skip
        assert line in text, line
    series = {row.split(",")[0] for row in text.splitlines() if not row.startswith("#")}
    assert {"top", "frontier_aggregated", "frontier_disaggregated", "measured"} <= series
    page_html = files["html"].decode()
    assert "deepseek-ai/DeepSeek-R1 on 8 GPUs" in page_html and "TPOT ≤ 50 ms" in page_html
    assert "aiconfigurator" in page_html and "tpot_ms=50" in page_html
    assert files["png"][:8] == b"\x89PNG\r\n\x1a\n"
    svg = files["svg"].decode()
    assert "<svg" in svg and "aiconfigurator" in svg and "calibration serving-v2-" in svg


def test_copy_commands_copies_the_rows_launch_commands(page: Page, base_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto(base_url + ISSUE)
    figure(page)
    button = page.locator("#plan-row-0 .plan-copy")
    button.click()
    expect(page.locator("#plan-copy-commands-status")).to_have_text("Commands copied.")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == button.get_attribute("data-copy")
    assert "trtllm-serve deepseek-ai/DeepSeek-R1" in copied and " GPUs each\n" in copied
    # a disaggregated row copies each side under its heading
    page.goto(base_url + ISSUE + "&modes=disaggregated")
    figure(page)
    disagg = page.locator("#plan-row-0 .plan-copy")
    disagg.click()
    expect(page.locator("#plan-copy-commands-status")).to_have_text("Commands copied.")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == disagg.get_attribute("data-copy")
    assert "× decode worker" in copied and "trtllm-serve disaggregated" in copied
    # where the clipboard refuses, the commands are shown selected, and the page says so
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('blocked')); }")
    page.locator("#plan-row-1 .plan-copy").click()
    expect(page.locator("#plan-copy-commands-status")).to_contain_text("blocked the clipboard")
    assert page.evaluate("() => window.getSelection().toString()") == page.get_attribute(
        "#plan-row-1 .plan-copy", "data-copy"
    )


def test_a_price_per_accelerator_ranks_by_cost_and_travels(page: Page, base_url):
    page.goto(base_url + ISSUE.replace("hw=h200-sxm,b200", "hw=h200-sxm").replace("DeepSeek-R1", "DeepSeek-V3"))
    figure(page)
    page.click(".plan-prices summary")
    box = page.locator("#plan-price-boxes input")
    expect(box).to_have_count(1)
    box.fill("3.5")
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('price=h200-sxm:3.5')")
    expect(page.locator("#plan-verdict")).to_contain_text("/Mtok")
    expect(page.locator("#plan-row-0 td.col-cost")).not_to_have_text("—")


def test_a_typed_target_the_ttft_slider_and_the_pessimistic_end(page: Page, base_url):
    page.goto(base_url + ISSUE)
    figure(page)
    box = page.locator("#plan-tpot")
    box.fill("22")
    box.press("Enter")
    expect(page.locator("#plan-verdict")).to_contain_text("TPOT ≤ 22 ms")
    position = float(page.get_attribute("#plan-tpot-slider [role=slider]", "aria-valuenow"))
    assert 13 < position < 14  # between the 20 ms and 25 ms stops
    page.wait_for_function("() => location.search.includes('tpot_ms=22&')")
    # the TTFT slider: a step down from 2 s is 1.5 s
    page.locator("#plan-ttft-slider [role=slider]").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#plan-ttft")).to_have_value("1500")
    expect(page.locator("#plan-verdict")).to_contain_text("TTFT ≤ 1,500 ms")
    answer = api_plan(base_url, tpot_s=0.022, ttft_s=1.5)
    page.wait_for_function(
        f"(x) => {{ const t = {GD}.data.find(t => t.uid === 'plan--best');"
        " return t.x.length && Math.abs(t.x[0] - x) < 1e-9 * x; }",
        arg=best_xy(answer)[0],
    )
    page.get_by_label("at the pessimistic end of the range").check()
    expect(page.locator("#plan-verdict")).to_contain_text("met at the pessimistic end of the range")
    pessimistic = api_plan(base_url, tpot_s=0.022, ttft_s=1.5, target="pessimistic")
    expect(page.locator("#plan-row-0 td.col-gpu")).to_contain_text(
        plain(pessimistic["best"]["estimate"]["output_tokens_per_s_per_gpu"])
    )
    assert_drawn(figure(page))


def test_a_target_handle_announces_its_value_in_ms_not_its_stop(page: Page, base_url):
    """aria-valuenow is the stop's index on the log grid (41); a screen reader read that out."""
    page.goto(base_url + ISSUE)
    figure(page)
    slider = page.locator("#plan-tpot-slider [role=slider]")
    expect(slider).to_have_attribute("aria-valuetext", "50 ms")
    expect(slider).to_have_attribute("aria-label", "TPOT target (ms)")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#plan-tpot")).to_have_value("40")
    expect(slider).to_have_attribute("aria-valuetext", "40 ms")
    box = page.locator("#plan-tpot")
    box.fill("22")
    box.press("Enter")
    expect(slider).to_have_attribute("aria-valuetext", "22 ms")  # between two stops
    expect(page.locator("#plan-ttft-slider [role=slider]")).to_have_attribute("aria-valuetext", "2,000 ms")


STAR_POINTS = f"() => {GD}.querySelectorAll('.trace.traceplan--best .point').length"


def test_a_target_dragged_past_every_deployment_takes_the_star_away_and_back(page: Page, base_url):
    """The star moved without a redraw: at a target nothing meets its data emptied but its drawn
    point stayed, saying the opposite of the verdict."""
    page.goto(base_url + ISSUE.replace("tpot_ms=50", "tpot_ms=5"))
    figure(page)
    page.wait_for_selector("#plan-chart-panel[data-grid^='(']")
    assert page.evaluate(STAR_POINTS) == 1
    slider = page.locator("#plan-tpot-slider [role=slider]")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#plan-verdict")).to_contain_text("Nothing on 8")
    page.wait_for_function(f"() => {GD}.data.find(t => t.uid === 'plan--best').x.length === 0")
    page.wait_for_function(f"() => ({STAR_POINTS})() === 0")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#plan-tpot")).to_have_value("5")
    page.wait_for_function(f"() => ({STAR_POINTS})() === 1")
    star(figure(page))  # drawn where its data says


@pytest.mark.parametrize("typed", ["-5", "abc", "0"])
def test_a_target_typed_wrong_keeps_the_one_before_and_says_so(page: Page, base_url, typed):
    """A value the box cannot hold searched at the default (50 ms) without a word, and put
    tpot_ms=NaN in the link."""
    page.goto(base_url + ISSUE.replace("tpot_ms=50", "tpot_ms=30"))
    figure(page)
    expect(page.locator("#plan-verdict")).to_contain_text("TPOT ≤ 30 ms")
    box = page.locator("#plan-tpot")
    box.fill("")
    box.type(typed)
    box.press("Enter")
    expect(page.locator("#plan-error")).to_contain_text("TPOT target (ms) must be 1–1,000")
    expect(page.locator("#plan-error")).to_contain_text("still shows 30")
    expect(page.locator("#plan-verdict")).to_contain_text("TPOT ≤ 30 ms")
    assert parse_qs(urlsplit(page.url).query)["tpot_ms"] == ["30"]
    box.fill("25")
    box.press("Enter")
    expect(page.locator("#plan-verdict")).to_contain_text("TPOT ≤ 25 ms")
    expect(page.locator("#plan-error")).to_be_empty()
    page.wait_for_function("() => location.search.includes('tpot_ms=25&')")


def test_a_price_out_of_range_is_refused_in_the_box_s_words(page: Page, base_url):
    """-5 and 0 were dropped without a word (the box's min sent them as no value)."""
    page.goto(base_url + ISSUE + "&price=b200:5.5")
    figure(page)
    page.locator("details.plan-prices").evaluate("d => { d.open = true; }")  # open with a price in the link
    box = page.locator("#plan-price-boxes input").nth(1)  # h200-sxm, b200
    expect(box).to_have_value("5.5")
    box.fill("-5")
    box.press("Enter")
    expect(page.locator("#plan-error")).to_contain_text("USD per GPU-hour on B200")
    expect(page.locator("#plan-error")).to_contain_text("(you typed -5); still showing no price")
    # the link the page was opened with carried the price: cleared, it does not come back from there
    page.wait_for_function("() => !location.search.includes('price=')")
