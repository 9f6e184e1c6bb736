"""A tab switch carries the view, both ways: a roofline set up from its controls (two
accelerators, one of them a what-if card, qwen3-8b, batch 128, context 8192, fp8, dark, 中文)
goes to the op lab, then the training lab, then back, and ends on the exact view it left. On
every page the link and the controls hold the shared parameters."""

from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Page, expect

from .helpers import set_control, wait_for_figure, wait_settled

WHAT_IF = "fast:3.35:1979:80"


def link(page: Page) -> dict:
    pairs = parse_qsl(urlsplit(page.url).query)
    out = dict(pairs)
    out["xhw"] = ",".join(v for k, v in pairs if k == "xhw")
    return out


def shows(page: Page, component_id: str, text: str) -> None:
    """The control shows this value (a dropdown's chosen labels, a box's text)."""
    expect(page.locator(f"[id='{component_id}']")).to_contain_text(text)


def expect_shared(page: Page, tab: str) -> None:
    """The shared parameters in the link and on the page (language, theme)."""
    q = link(page)
    assert (q.get("tab", "roofline"), q["hw"], q["xhw"], q["model"], q["lang"], q["theme"]) == (
        tab, "h100-sxm5", WHAT_IF, "qwen3-8b", "zh", "dark",
    ), q  # fmt: skip
    expect(page.locator("#app-root")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#app-root")).to_have_class("app theme-dark")


def test_roofline_to_op_lab_to_training_lab_and_back(page: Page, base_url):
    # TP 1: a what-if card lists no GPU-to-GPU link (the default scenario's TP 4 is refused on it)
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&lang=zh&tp=1")
    wait_for_figure(page)
    set_control(page, "hardware", ["h100-sxm5"])
    page.locator("details.what-if summary").click()
    page.fill("#whatif-text", WHAT_IF)
    page.click("#whatif-add")
    page.wait_for_function(f"() => location.search.includes('xhw={WHAT_IF}')", timeout=20000)
    set_control(page, "model", "qwen3-8b")
    page.wait_for_function("() => location.search.includes('model=qwen3-8b')", timeout=20000)
    for box, size in (("batch-size-input", "128"), ("context-length-input", "8192")):
        page.fill(f"#{box}", size)
        page.keyboard.press("Enter")
    set_control(page, "precision", "fp8")
    page.locator("#theme input").check()
    page.wait_for_function(
        "() => ['batch=128', 'ctx=8192', 'prec=fp8', 'theme=dark'].every((p) => location.search.includes(p))",
        timeout=20000,
        polling=250,
    )
    wait_settled(page)
    start = link(page)
    assert (start["batch"], start["ctx"], start["prec"]) == ("128", "8192", "fp8")
    expect_shared(page, "roofline")

    page.click("#tab-ops")
    expect(page.locator("#ops-lab")).to_be_visible()
    expect_shared(page, "ops")
    shows(page, "lab-hardware", "H100 SXM5")
    shows(page, "lab-what-if", WHAT_IF)
    shows(page, "lab-model", "qwen3-8b")  # "decode projections of" follows the model
    expect(page.locator("#lab-preset-decode-q_proj")).to_be_visible()

    page.click("#tab-training")
    expect(page.locator("#train-lab")).to_be_visible()
    expect_shared(page, "training")
    shows(page, "train-hw", "H100 SXM5")
    shows(page, "train-model", "qwen3-8b")

    page.click("#tab-roofline")
    wait_for_figure(page)
    expect_shared(page, "roofline")
    assert link(page) == start  # the exact view it left
    for component_id, text in (("model", "qwen3-8b"), ("precision", "fp8"), ("hardware", "H100 SXM5")):
        shows(page, component_id, text)
    shows(page, "what-if", WHAT_IF)
    expect(page.locator("#batch-size-input")).to_have_value("128")
    expect(page.locator("#context-length-input")).to_have_value("8192")
    expect(page.locator("#theme input")).to_be_checked()
