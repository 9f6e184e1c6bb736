"""The Serving page's disaggregated mode in Chromium (issue 31 §3): the planner's link opens the
deployment, its curve and its shipped measured runs drawn in the SVG beside the aggregated
curve, its table showing TTFT's and TPOT's parts and the same TTFT and TPOT as
POST /api/v1/serving for the same body; the mode switch and the sides' boxes move the link, and
the link opened again shows the same; a refused box speaks in its own words; the CSV says which
mode each row is. 1400x900 and 390x844, English and Chinese. Any console error fails (conftest)."""

import csv
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
import pytest
from playwright.sync_api import Page, expect

from app.units import plain
from tests.dashboard.pages.serving.test_serving_disagg import GB200, args, body

from .helpers import set_control
from .test_serving_layouts import boxes, inside
from .test_serving_page import GD, figure

LINK = "/?tab=serving&" + GB200
AGGREGATED = LINK.split("&mode=")[0]

# the drawn markers of each trace (Plotly gives a trace's group the class `trace<uid>`), and
# whether each line trace has a path on screen
SVG_JS = f"""(uids) => {{
  const gd = {GD};
  const out = {{}};
  for (const uid of uids) {{
    const group = gd.querySelector('.scatterlayer .trace' + uid);
    const path = group && group.querySelector('path.js-line');
    out[uid] = {{points: group ? group.querySelectorAll('.point').length : -1,
                 line: !!(path && (path.getAttribute('d') || '').length > 10)}};
  }}
  return out;
}}"""
TABLE = "#srv-table-disagg-gb200"


def cell(page: Page, row: str, column: str) -> str:
    """A cell of the deployment's table: its row's metric class, its column's kind."""
    return page.locator(f"{TABLE} tr:has(th.metric-{row}) td.col-{column}").inner_text()


@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_planners_link_draws_the_deployment_and_its_measured_runs(page: Page, base_url, width, height, lang):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(base_url + LINK + f"&lang={lang}")
    fig = figure(page)
    uids = [f"serving--gb200--{k}" for k in ("bound", "estimate", "band", "disagg-bound", "disagg-estimate")]
    uids += ["serving--gb200--disagg-band", "serving--gb200--disagg-measured", "serving--gb200--disagg-chosen"]
    for uid in uids:
        assert uid in fig, sorted(fig)
    assert fig["_drawn"] == fig["_visible"]
    svg = page.evaluate(SVG_JS, uids)
    assert svg["serving--gb200--disagg-measured"]["points"] == len(fig["serving--gb200--disagg-measured"]["x"]) == 13
    assert svg["serving--gb200--disagg-bound"]["line"] and svg["serving--gb200--disagg-estimate"]["line"]
    assert svg["serving--gb200--bound"]["line"]  # the aggregated curve beside it
    expect(page.locator("#srv-disagg")).to_be_visible()
    assert page.input_value("#srv-ddp") == "32" and page.input_value("#srv-dep") == "4"
    words = {"en": ("disaggregated 1P1D", "1P1D", "limited by its"), "zh": ("分离式 1P1D", "1P1D", "受 decode 侧限制")}
    tables, insight = page.locator("#srv-tables"), page.locator("#srv-insight")
    expect(tables).to_contain_text(words[lang][0])
    expect(insight).to_contain_text(words[lang][1])
    expect(insight).to_contain_text(words[lang][2])
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # every table inside its card, every legend entry inside the chart (a card's long name on
    # each entry ran past the edge of a phone's chart: it is said once, as the group's title: 7 entries + 1)
    card = page.locator("#srv-tables-panel").bounding_box()
    for table in page.locator("#srv-tables table").all():
        box = table.bounding_box()
        assert box["x"] >= card["x"] - 1 and box["x"] + box["width"] <= card["x"] + card["width"] + 1, (box, card)
    found = boxes(page, svg="#srv-throughput .main-svg", legend="#srv-throughput .legend .legendtext")
    assert len(found["legend"]) == 8 and all(inside(r, found["svg"][0]) for r in found["legend"]), found


def test_the_table_shows_the_same_ttft_and_tpot_as_the_api_for_that_body(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + LINK)
    figure(page)
    answer = httpx.post(f"{base_url}/api/v1/serving", json=body(args()), timeout=60)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    for metric in ("ttft", "tpot"):
        assert cell(page, metric, "bound") == plain(result["bound"][f"{metric}_s"] * 1e3)
        assert cell(page, metric, "estimate").split(" (")[0] == plain(result["estimate"][f"{metric}_s"] * 1e3)
    parts = result["breakdown"]["ttft"]["estimate"]
    assert cell(page, "ttft_transfer", "estimate") == plain(parts["kv_transfer_s"] * 1e3)
    assert cell(page, "ttft_prefill", "estimate") == plain(parts["prefill_s"] * 1e3)
    assert cell(page, "ttft_queue", "measured") == "—"


def test_the_mode_switch_and_the_sides_move_the_link_and_the_link_opens_the_same(page: Page, base_url, context):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + AGGREGATED)
    figure(page)
    expect(page.locator("#srv-disagg")).to_be_hidden()
    page.click("#srv-mode input[value=disagg]")
    expect(page.locator("#srv-disagg")).to_be_visible()
    for cid, value in (("srv-pworkers", 2), ("srv-dtp", 1), ("srv-ddp", 32), ("srv-dep", 4), ("srv-kvbw", 50)):
        set_control(page, cid, value)
    page.wait_for_function("() => location.search.includes('kvlink=50') && location.search.includes('pworkers=2')")
    query = parse_qs(urlsplit(page.url).query)
    assert query["mode"] == ["disagg"] and query["ddp"] == ["32"] and "dmtp" not in query  # worked out, not written
    page.wait_for_function(f"() => {GD}.data.some(t => t.uid === 'serving--gb200--disagg-bound')")
    expect(page.locator(TABLE)).to_contain_text("2P1D")
    first = page.locator(TABLE).inner_text()

    other = context.new_page()
    errors: list[str] = []
    other.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    other.set_viewport_size({"width": 1400, "height": 900})
    other.goto(page.url)
    assert "serving--gb200--disagg-estimate" in figure(other)
    assert other.input_value("#srv-pworkers") == "2" and other.input_value("#srv-kvbw") == "50"
    assert other.locator(TABLE).inner_text() == first
    assert not errors, errors

    # back to aggregated: the deployment leaves the link
    page.click("#srv-mode input[value=agg]")
    page.wait_for_function("() => !location.search.includes('mode=')")
    assert not re.search(r"[?&](pworkers|dtp|ddp|dep|kvlink)=", page.url)
    expect(page.locator("#srv-disagg")).to_be_hidden()


def test_a_refused_side_box_says_so_in_its_own_words(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + LINK)
    figure(page)
    page.fill("#srv-dworkers", "0")
    page.keyboard.press("Enter")
    # the box has no min or max, so the browser sends what was typed, and the sentence quotes it
    expect(page.locator("#srv-error")).to_contain_text("Decode workers must be 1–1,024 (you typed 0); still showing 1.")
    colour = "(s) => getComputedStyle(document.querySelector(s)).color"
    assert page.evaluate(colour, "#srv-dworkers") == page.evaluate(colour, "#srv-error")
    assert page.evaluate("() => document.querySelector('#srv-throughput .js-plotly-plot').data.length") > 0


def test_the_csv_says_which_mode_each_row_is_and_carries_the_deployment(page: Page, base_url):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(base_url + LINK)
    figure(page)
    with page.expect_download() as download:
        page.click("#srv-export-csv")
    assert download.value.suggested_filename == "serving-deepseek-r1-gb200-disagg-1p1d-c256.csv"
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "# deployment: Disaggregated 1P1D on 36 GPUs" in text
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))
    assert {r["mode"] for r in rows} == {"aggregated", "disaggregated"}
    measured = [r for r in rows if r["mode"] == "disaggregated" and r["series"] == "measured"]
    assert len(measured) == 13 and all(r["run_id"] for r in measured)


def test_a_kv_link_out_of_range_is_refused_in_the_box_s_words(page: Page, base_url):
    """-5 and 0 in the link's boxes read as auto without a word (the boxes' min sent them as no
    value)."""
    page.goto(base_url + "/?tab=serving&mode=disagg")
    box = page.locator("#srv-kvbw")
    box.fill("-5")
    box.press("Tab")
    expect(page.locator("#srv-error")).to_contain_text("KV link, GB/s per GPU must be 0.001–100,000 (you typed -5)")
    # a whole-number box takes 2.5 as typed, and says it cannot be used
    page.fill("#srv-pmtp", "2.5")
    page.keyboard.press("Tab")
    expect(page.locator("#srv-error")).to_contain_text("Prefill MoE TP must be 1–1,024 (you typed 2.5)")
