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
    expect(page.locator("#insight")).to_contain_text("the largest cache with a roof on H200 SXM 141GB (L2, 38.1 MiB)")

    page.locator("#hierarchy-roofs input").uncheck()
    wait_for_uids(page, absent=["roof--h200-sxm--l2", "roof--mi300x--l2"])
    assert_svg_matches(page)
    page.wait_for_function("() => !new URLSearchParams(location.search).has('roofs')", timeout=20000)
    page.locator("#hierarchy-roofs input").check()
    wait_for_uids(page, ["roof--h200-sxm--l2"])
    page.wait_for_function("() => new URLSearchParams(location.search).get('roofs') === 'hierarchy'", timeout=20000)
    assert roofs_param(page) == "hierarchy"


def test_cache_roofs_and_what_if_sentences_in_chinese(page: Page, base_url):
    page.goto(
        f"{base_url}/?hw=h200-sxm,b200&roofs=hierarchy&xhw=fast:4.8:1978.8:141&lang=zh&model=llama-3-8b&batch=32&ctx=4096&prec=bf16"
    )
    wait_for_figure(page)
    wait_for_uids(page, ["roof--h200-sxm--l2", "point--fast--decode"])
    expect(page.locator("#efficiency-notice")).to_contain_text("没有有出处的缓存带宽数据，因此不画缓存 roofline")
    insight = page.locator("#insight")
    expect(insight).to_contain_text("H200 SXM 141GB 上最大的有 roofline 的缓存（L2，38.1 MiB）")
    expect(insight).to_contain_text(
        "fast (what-if) 对比 H200 SXM 141GB：带宽为 1.00 倍，张量算力为 2.00 倍。decode 不变"
    )
    hover = page.evaluate(f"() => {GD}.data.find(t => t.uid === 'roof--h200-sxm--l2').name")
    assert "L2 带宽上限 9.77 TB/s" in hover
