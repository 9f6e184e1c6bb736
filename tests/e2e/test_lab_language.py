"""A lab tab switches language like the roofline tab: the page reloads in it from its link,
and what was changed in the lab (written to the link) survives."""

from playwright.sync_api import Page, expect

from .helpers import set_control


def test_a_lab_switches_language_and_keeps_its_state(page: Page, base_url):
    page.goto(f"{base_url}/?tab=training&hw=h100-sxm5")
    expect(page.locator("h1")).to_have_text("Training lab")
    set_control(page, "train-zero", 2)
    page.wait_for_function("() => location.search.includes('zero=2')", timeout=20000)
    page.locator("#lang label", has_text="中文").click()
    page.wait_for_function("() => location.search.includes('lang=zh')", timeout=20000)
    expect(page.locator("h1")).to_have_text("训练实验室")
    expect(page.locator("#tab-ops")).to_have_text("算子实验室")
    expect(page.locator("#train-zero input[value='2']")).to_be_checked()
