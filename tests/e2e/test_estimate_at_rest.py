"""The serving estimate's marks on the roofline, in Chromium against a live server: the slider
grid does not carry them, so a step hides them (never a stale estimate beside a new bound) and
the slider's rest draws them with a patch of the figure, where a fresh load of that stop does."""

import json

import pytest
from playwright.sync_api import Page

from .helpers import GD, api_decode_intensity, assert_svg_matches, traces, wait_for_figure, wait_settled

HW = ("h100-sxm5", "h200-sxm", "rtx-4090")
LINK = "/?hw=h100-sxm5,h200-sxm,rtx-4090&batch=32&ctx={ctx}&model=llama-3-8b&prec=bf16&tp=1"
ESTIMATES = [f"estimate--{hw}--decode" for hw in HW]
UPDATE = "_dash-update-component"


def wait_decode(page: Page, ctx: int) -> None:
    """Wait until the H100's decode point sits at the engine's intensity for this context."""
    want = api_decode_intensity(page.url.split("/?")[0], "h100-sxm5", batch_size=32, context_length=ctx)
    page.wait_for_function(
        f"""(want) => {{ const g = {GD};
            const t = g && g.data && g.data.find(t => t.uid === 'point--h100-sxm5--decode');
            return t && Math.abs(t.x[0] - want) <= 1e-9 * want; }}""",
        arg=want,
        timeout=20000,
    )


def open_at(page: Page, base_url: str, ctx: int) -> dict:
    page.goto(base_url + LINK.format(ctx=ctx))
    wait_for_figure(page)
    wait_settled(page)
    return traces(page)


def drawn_points(page: Page, uid: str) -> int:
    return page.locator(f"#roofline-graph .scatterlayer .trace{uid} .point").count()


def hold_server(page: Page) -> list:
    """Hold every callback request until release(): what the browser shows before the server answers."""
    held: list = []
    page.route(lambda url: UPDATE in url, lambda route: held.append(route))
    return held


def release(page: Page, held: list, asked: bool = True) -> None:
    """Answer what was held (`asked`: once the settle timer, 250 ms, has asked the server)."""
    for _ in range(200 if asked else 0):
        if held:
            break
        page.wait_for_timeout(50)
    assert held or not asked, "the rest sent no request"
    for route in list(held):
        route.continue_()
    page.unroute_all()  # and any request held since passes on


def figure_answer(page: Page, key: str) -> str:
    """Press `key` on the context slider and wait for the rest's answer to the roofline figure."""
    page.locator("#context-length [role=slider]").focus()
    with page.expect_response(
        lambda r: UPDATE in r.url and "roofline-graph.figure" in (r.request.post_data or "")
    ) as r:
        page.keyboard.press(key)
    return r.value.text()


def step_context(page: Page, key: str, ctx: int) -> None:
    page.locator("#context-length [role=slider]").focus()
    page.keyboard.press(key)
    wait_decode(page, ctx)


def assert_same_figure(shown: dict, fresh: dict) -> None:
    """Every trace where a fresh load of the stop puts it (the bounds moved by the browser, the
    estimates drawn by the server)."""
    assert set(shown) == set(fresh)
    for uid, trace in fresh.items():
        for axis in ("x", "y"):
            assert shown[uid][axis] == pytest.approx(trace[axis], rel=1e-9, nan_ok=True), (uid, axis)


def test_a_step_hides_the_estimate_and_the_rest_draws_it_where_a_fresh_load_does(page: Page, base_url):
    fresh = open_at(page, base_url, 8192)
    before = open_at(page, base_url, 4096)
    assert all(before[uid]["x"] != fresh[uid]["x"] for uid in ESTIMATES)  # the estimates move with the context
    held = hold_server(page)
    step_context(page, "ArrowRight", 8192)  # the bounds move at once, from the grid
    shown = traces(page)
    for uid in ESTIMATES:  # not where 4096 put them: not drawn at all until the server answers
        assert shown[uid]["x"] == [None] and shown[uid]["y"] == [None], uid
        assert drawn_points(page, uid) == 0, uid
    assert shown["point--h100-sxm5--decode"]["x"] == fresh["point--h100-sxm5--decode"]["x"]
    assert_svg_matches(page)
    release(page, held)
    page.wait_for_function(
        f"(uids) => uids.every(u => {GD}.data.find(t => t.uid === u).x[0] !== null)", arg=ESTIMATES, timeout=20000
    )
    wait_settled(page)
    assert_same_figure(traces(page), fresh)
    assert_svg_matches(page)
    for uid in ESTIMATES:
        assert drawn_points(page, uid) == 1, uid


def test_back_at_the_stop_the_server_drew_the_estimate_shows_again_before_any_answer(page: Page, base_url):
    before = open_at(page, base_url, 4096)
    held = hold_server(page)
    step_context(page, "ArrowRight", 8192)
    assert all(traces(page)[uid]["x"] == [None] for uid in ESTIMATES)
    step_context(page, "ArrowLeft", 4096)  # the server answers nothing meanwhile (held)
    shown = traces(page)
    for uid in ESTIMATES:
        assert shown[uid]["x"] == before[uid]["x"] and shown[uid]["y"] == before[uid]["y"], uid
        assert drawn_points(page, uid) == 1, uid
    assert_svg_matches(page)
    release(page, held, asked=False)  # a slow step may have let 8192 rest: answered now
    wait_settled(page)
    assert_same_figure(traces(page), before)


def test_the_rest_answers_with_a_patch_of_the_estimates_alone(page: Page, base_url):
    open_at(page, base_url, 4096)
    indices = page.evaluate(f"(uids) => uids.map(u => {GD}.data.findIndex(t => t.uid === u))", ESTIMATES)
    body = figure_answer(page, "ArrowRight")
    figure = json.loads(body)["response"]["roofline-graph"]["figure"]
    assert figure.get("__dash_patch_update") == "__dash_patch_update", list(figure)[:5]
    operations = figure["operations"]
    assert [op["location"] for op in operations] == [["data", i] for i in indices]
    assert [op["params"]["value"]["uid"] for op in operations] == ESTIMATES
    scenario = json.loads(body)["response"]["roofline-scenario"]["children"]
    assert "context 8,192" in scenario, scenario
    full = page.evaluate(f"() => JSON.stringify({{data: {GD}.data, layout: {GD}.layout}}).length")
    assert len(body) * 5 < full, (len(body), full)  # a few traces, not the figure
    wait_settled(page)
    assert page.locator("#roofline-scenario").text_content() == scenario
    assert_svg_matches(page)


def test_a_rest_where_an_estimate_drops_sends_the_whole_figure(page: Page, base_url):
    """At 32K context one request's KV cache no longer fits beside the weights in the RTX 4090's
    share of its memory: the engine gives no estimate there, so the traces drawn for one stop
    differ and the figure comes whole."""
    open_at(page, base_url, 16384)
    figure = json.loads(figure_answer(page, "ArrowRight"))["response"]["roofline-graph"]["figure"]
    assert "__dash_patch_update" not in figure and "data" in figure
    wait_settled(page)
    shown = traces(page)
    assert "estimate--rtx-4090--decode" not in shown and shown["estimate--h100-sxm5--decode"]["x"][0] is not None
    assert_same_figure(shown, open_at(page, base_url, 32768))
    assert_svg_matches(page)
