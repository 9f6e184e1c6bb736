"""In Chromium: what-if accelerators drawn beside real ones, and pin-and-compare,
both from a link and from the controls, each surviving a reload (the URL is the state)."""

from urllib.parse import parse_qsl, urlsplit

import httpx2 as httpx
from playwright.sync_api import Page, expect

from .helpers import GD, assert_svg_matches, set_control, traces, wait_for_figure, wait_for_uids, wait_settled


def query_pairs(page: Page) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(page.url).query)


def api_decode(base_url: str, hw: object, **scenario) -> dict:
    response = httpx.post(
        f"{base_url}/api/v1/analyze",
        json={"model": "llama-3-8b", "hardware": [hw], "batch_size": 32, "context_length": 4096, **scenario},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()["results"][0]["decode"]


def test_a_what_if_card_from_a_link_and_from_the_controls(page: Page, base_url):
    # Double the FLOP/s, keep the bandwidth: a memory-bound decode does not move.
    page.goto(f"{base_url}/?hw=h100-sxm5&xhw=fast:3.352:1978.8:80&model=llama-3-8b&batch=32&ctx=4096&prec=bf16")
    wait_for_figure(page)
    wait_for_uids(page, ["point--fast--decode", "roof--fast--tensor"])
    assert_svg_matches(page, legend=["H100 SXM5 80GB", "fast (what-if)"])
    figure = traces(page)
    assert figure["point--fast--decode"]["y"][0] == figure["point--h100-sxm5--decode"]["y"][0]
    insight = page.locator("#insight")
    expect(insight).to_contain_text("fast (what-if) against H100 SXM5 80GB: 1.00x the bandwidth and 2.00x")
    expect(insight).to_contain_text("Decode does not move (memory-bound)")

    # From the controls: the H100 with twice the bandwidth, same FLOP/s.
    expect(page.locator(".what-if")).to_have_attribute("open", "")  # open: the link holds a what-if
    page.fill("#whatif-flops", "1")
    page.fill("#whatif-bw", "2")
    page.click("#whatif-derive")
    wait_for_uids(page, ["point--h100-sxm5-2xbw--decode", "point--fast--decode"])
    wait_settled(page)
    assert_svg_matches(page, legend=["H100 SXM5 80GB", "fast (what-if)", "h100-sxm5-2xbw (what-if)"])
    assert ("xhw", "h100-sxm5-2xbw:6.704:989.4:80:133.8") in query_pairs(page)
    # its decode point is where the API puts the same what-if
    api = api_decode(base_url, "h100-sxm5-2xbw:6.704:989.4:80:133.8")
    assert (
        abs(traces(page)["point--h100-sxm5-2xbw--decode"]["y"][0] - api["flops"] / api["time_s"])
        < 1e-6 * api["flops"] / api["time_s"]
    )
    expect(insight).to_contain_text("h100-sxm5-2xbw (what-if) against H100 SXM5 80GB: 2.00x the bandwidth")
    expect(insight).to_contain_text("Decode runs 2.00x as fast")

    page.reload()
    wait_for_uids(page, ["point--h100-sxm5-2xbw--decode", "point--fast--decode"])
    assert_svg_matches(page, legend=["H100 SXM5 80GB", "fast (what-if)", "h100-sxm5-2xbw (what-if)"])

    # a bad short form is named with the format, and nothing is added
    page.fill("#whatif-text", "slow:3350:1000")
    page.click("#whatif-add")
    expect(page.locator("#whatif-error")).to_contain_text("bandwidth (TB/s) '3350'")
    expect(page.locator("#whatif-error")).to_contain_text("<name>:<bandwidth TB/s>")


def test_a_hostile_what_if_in_a_link_is_ignored_with_a_notice(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h100-sxm5&xhw=%3Cimg%20src%3Dx%3E:1:1&xhw=h100-sxm5:1:1")
    wait_for_figure(page)
    notices = page.locator("#notices")
    expect(notices).to_contain_text("xhw")
    expect(notices).to_contain_text("is a catalogue id")
    assert not [u for u in traces(page) if u.count("--") and not u.split("--")[1].startswith("h100-sxm5")]
    assert page.locator("#notices img").count() == 0


def test_pin_a_scenario_then_compare_b_against_it(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h100-sxm5,b200&prec=bf16&model=llama-3-8b&batch=32&ctx=4096&tp=1")
    wait_for_figure(page)
    a_x = traces(page)["point--h100-sxm5--decode"]["x"][0]
    page.click("#pin-scenario")
    page.wait_for_function("() => new URLSearchParams(location.search).has('pin')", timeout=20000)
    expect(page.locator("#pin-status")).to_contain_text("A (the faded points): llama-3-8b")
    set_control(page, "precision", "int4")
    wait_for_uids(page, ["ghost--h100-sxm5--decode", "ghost--b200--prefill"])
    wait_settled(page)
    state = assert_svg_matches(page, legend=["H100 SXM5 80GB", "B200 (HGX B200, per GPU)"])
    assert state["drawn"] == state["visible"]
    figure = traces(page)
    assert figure["ghost--h100-sxm5--decode"]["x"][0] == a_x  # A stays where it was
    assert figure["point--h100-sxm5--decode"]["x"][0] > 1.5 * a_x  # B moved right (int4 weights)
    # the arrow from A to B is drawn
    assert page.locator("#roofline-graph .annotation-arrow-g").count() == 1

    # the delta table says what the engine says: tokens/s ratio as the API gives it
    a, b = api_decode(base_url, "h100-sxm5"), api_decode(base_url, "h100-sxm5", weight_dtype="int4")
    ratio = f"{b['tokens_per_s'] / a['tokens_per_s']:.2f}x"
    row = page.locator("#pin-compare tr", has_text="decode tokens/s")
    expect(row).to_contain_text(ratio)
    expect(page.locator("#compare-panel")).to_be_visible()
    expect(page.locator("#insight")).to_contain_text(f"A → B (weights/compute bf16 → int4): decode runs {ratio[:-1]}x")

    # a slider step moves B; once it rests, the arrow ends at B's new decode point
    before = traces(page)["point--h100-sxm5--decode"]["x"][0]
    page.locator("#batch-size [role=slider]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"""(old) => {{ const g = {GD}; const t = g.data.find(t => t.uid === 'point--h100-sxm5--decode');
            const a = (g.layout.annotations || [])[0];
            return t.x[0] !== old && a && Math.abs(a.x - Math.log10(t.x[0])) < 1e-9; }}""",
        arg=before,
        timeout=20000,
    )
    assert traces(page)["ghost--h100-sxm5--decode"]["x"][0] == a_x  # A did not move
    page.keyboard.press("ArrowLeft")
    wait_settled(page)
    # the address bar follows once the slider rests and its settle answers (slower on a loaded machine)
    page.wait_for_function("() => new URLSearchParams(location.search).get('batch') === '32'", timeout=20000)

    # a link (and so a wiki page) shows the comparison
    page.reload()
    wait_for_uids(page, ["ghost--h100-sxm5--decode"])
    expect(page.locator("#pin-compare tr", has_text="decode tokens/s")).to_contain_text(ratio)
    pairs = dict(query_pairs(page))
    assert pairs["prec"] == "int4" and "prec=bf16" in pairs["pin"]

    page.click("#unpin-scenario")
    wait_for_uids(page, absent=["ghost--h100-sxm5--decode", "ghost--b200--decode"])
    expect(page.locator("#compare-panel")).to_be_hidden()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('pin')", timeout=20000)
    assert page.evaluate(f"() => {GD}.layout.annotations || []") == []


def test_a_pinned_comparison_in_chinese(page: Page, base_url):
    pin = "model%3Dllama-3-8b%26batch%3D32%26ctx%3D4096%26prec%3Dbf16%26tp%3D1"
    page.goto(f"{base_url}/?hw=h100-sxm5&batch=64&lang=zh&pin={pin}&model=llama-3-8b&ctx=4096&prec=bf16&tp=1")
    wait_for_uids(page, ["ghost--h100-sxm5--decode"])
    expect(page.locator("#compare-panel h2")).to_have_text("固定的 A 对比 B")
    expect(page.locator("#insight")).to_contain_text("A → B（批大小 32 → 64）")
    expect(page.locator("#pin-compare")).to_contain_text("decode 单步耗时")
