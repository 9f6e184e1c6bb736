"""Issue 15, memory-hierarchy roofs in Chromium: `roofs=hierarchy` draws each sourced cache
roof (uid roof--<hw>--<level>), says which cards have none, and the toggle keeps the URL."""

from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Page, expect

from engine.hardware import get_accelerator

from .helpers import GD, assert_svg_matches, wait_for_figure, wait_for_uids


def roofs_param(page: Page) -> str | None:
    return dict(parse_qsl(urlsplit(page.url).query)).get("roofs")


def test_cache_roofs_from_a_link_and_the_toggle(page: Page, base_url):
    page.goto(f"{base_url}/?hw=h200-sxm,mi300x,b200&roofs=hierarchy")
    wait_for_figure(page)
    wait_for_uids(page, ["roof--h200-sxm--l2", "roof--mi300x--l2", "roof--mi300x--infinity_cache"])
    assert_svg_matches(page)
    # the L2 slope is the catalogue's sourced bandwidth: y / x along the line
    l2 = get_accelerator("h200-sxm").cache_roofs[0].bandwidth_bytes_per_s
    slope = page.evaluate(
        f"() => {{ const t = {GD}.data.find(t => t.uid === 'roof--h200-sxm--l2'); return t.y[0] / t.x[0]; }}"
    )
    assert abs(slope - l2) < 1e-9 * l2
    expect(page.locator("#efficiency-notice")).to_contain_text("B200 (HGX B200, per GPU): no sourced cache bandwidth")
    expect(page.locator("#insight")).to_contain_text("the largest cache with a roof on H200 SXM 141GB (L2, 40 MB)")

    page.locator("#hierarchy-roofs input").uncheck()
    wait_for_uids(page, absent=["roof--h200-sxm--l2", "roof--mi300x--l2"])
    assert_svg_matches(page)
    page.wait_for_function("() => !new URLSearchParams(location.search).has('roofs')", timeout=20000)
    page.locator("#hierarchy-roofs input").check()
    wait_for_uids(page, ["roof--h200-sxm--l2"])
    page.wait_for_function("() => new URLSearchParams(location.search).get('roofs') === 'hierarchy'", timeout=20000)
    assert roofs_param(page) == "hierarchy"
