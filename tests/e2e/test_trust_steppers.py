"""Every number box's + and − buttons change its value and never empty it, on every page. Dash
4's stepper clamps with min(value, max) even when a box has no max: NaN, an empty box and a
blank page ("layers: enter a value")."""

import pytest
from playwright.sync_api import Page

# Open every collapsed section so every number box can be clicked.
OPEN_ALL = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
BOXES = """() => Array.from(document.querySelectorAll('input[type=number]'))
  .filter(e => e.offsetParent && e.id && e.parentElement.querySelector('.dash-stepper-increment'))
  .map(e => e.id)"""


@pytest.mark.parametrize("tab", ["roofline", "ops", "training"])
def test_plus_and_minus_never_wipe_a_number_box(page: Page, base_url, tab):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?tab={tab}")
    page.wait_for_selector("input[type=number]", state="attached")
    page.evaluate(OPEN_ALL)
    ids = page.evaluate(BOXES)
    assert len(ids) >= 3, ids
    for box_id in ids:
        box = page.locator(f"[id='{box_id}']")
        before = box.input_value()
        plus, minus = (page.locator(f"[id='{box_id}'] ~ .dash-stepper-{d}") for d in ("increment", "decrement"))
        button = minus if plus.is_disabled() else plus  # at its max, − must still work
        button.scroll_into_view_if_needed()
        button.click()
        after = box.input_value()
        assert after not in ("", "NaN"), f"{tab}: a stepper emptied {box_id} (was {before!r})"
        assert float(after) != float(before or 0) or before == "", f"{tab}: {box_id} did not move from {before}"
