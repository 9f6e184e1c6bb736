"""Every number box on every page has a max wherever it has a min. Dash 4's + and − buttons
clamp with Math.min(value, max) when a min is set, whether or not a max is: without a max the
box turns NaN and empties (the page then blanks with "enter a value")."""

import pytest
from dash import dcc

from app.dashboard.pages.roofline.state import view_from_search
from app.dashboard.shell import PAGES, page


def _number_boxes(component) -> list:
    found = []
    if isinstance(component, dcc.Input) and getattr(component, "type", None) == "number":
        found.append(component)
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if child is not None and hasattr(child, "to_plotly_json"):
            found += _number_boxes(child)
    return found


@pytest.mark.parametrize("tab", sorted(PAGES))
def test_every_number_box_with_a_min_has_a_max(tab):
    boxes = _number_boxes(page(view_from_search(f"tab={tab}")))
    assert boxes, f"no number box found on {tab}"
    for box in boxes:
        low, high = getattr(box, "min", None), getattr(box, "max", None)
        assert low is None or high is not None, f"{tab}: {box.id} has min {low} and no max"
        if high is not None:
            assert low is None or low < high
