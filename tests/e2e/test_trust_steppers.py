"""Every number box's + and − buttons change its value and never empty it, on every page. Dash
4's stepper clamps with min(value, max) whenever a box has a min, even without a max: NaN, an
empty box, and a blank page ("layers: enter a value")."""

import pytest
from playwright.sync_api import Page

# Open every collapsed section so every number box can be clicked.
OPEN_ALL = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
# The number boxes whose + and − a reader can see (the op lab draws its boxes without them).
BOXES = """() => Array.from(document.querySelectorAll('input[type=number]'))
  .filter(e => e.id && e.offsetParent)
  .filter(e => { const b = e.parentElement.querySelector('.dash-stepper-increment');
                 return b && b.getBoundingClientRect().width > 0; })
  .map(e => e.id)"""
VALUE = "id => { const e = document.getElementById(id); return e ? e.value : null; }"


def _step(page: Page, box_id: str) -> tuple[str, str]:
    """Click + (or − at the box's max); (value before, value after) once the page has settled."""
    before = page.evaluate(VALUE, box_id)
    plus = page.locator(f"[id='{box_id}'] ~ .dash-stepper-increment")
    button = page.locator(f"[id='{box_id}'] ~ .dash-stepper-decrement") if plus.is_disabled() else plus
    button.click()
    page.wait_for_load_state("networkidle")
    return before, page.evaluate(VALUE, box_id)


def _open(page: Page, url: str) -> list[str]:
    page.goto(url)
    page.wait_for_selector("input[type=number]", state="attached")
    page.wait_for_load_state("networkidle")
    page.evaluate(OPEN_ALL)
    return page.evaluate(BOXES)


@pytest.mark.parametrize("tab", ["roofline", "ops", "training"])
def test_plus_and_minus_never_wipe_a_number_box(page: Page, base_url, tab):
    """Each box on a freshly opened page, so one box's new value cannot disturb the next."""
    page.set_viewport_size({"width": 1400, "height": 900})
    url = f"{base_url}/?tab={tab}"
    ids = _open(page, url)
    assert len(ids) >= 1, ids
    for box_id in ids:
        _open(page, url)
        before, after = _step(page, box_id)
        assert after not in ("", "NaN", None), f"{tab}: a stepper emptied {box_id} (was {before!r})"
        assert before == "" or float(after) != float(before), f"{tab}: {box_id} did not move from {before}"
