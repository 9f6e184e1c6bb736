"""The serving estimate's marks on the roofline, in Chromium against a live server: the slider
grid does not carry them, so a step hides them (never a stale estimate beside a new bound) and
the slider's rest draws them where a fresh load of that stop does."""

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
