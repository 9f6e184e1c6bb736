"""A typed value the page cannot use says so, with what the page still shows."""

from app.dashboard.pages.roofline.controls_state import view_from_controls
from app.dashboard.pages.roofline.params import PARAMS
from app.dashboard.pages.roofline.refused import refused_sentences


def _sentences(controls: dict, lang: str = "en") -> list[str]:
    view = view_from_controls(controls)
    return refused_sentences(view.refused, {p.name: p.value(view) for p in PARAMS}, lang)


def test_a_price_of_zero_says_why_and_what_is_still_shown():
    assert _sentences({"gpu-price.value": 0}) == [
        "GPU-hour price (USD) must be above 0 and at most 10,000 (you typed 0); still showing none (unset)."
    ]


def test_an_out_of_range_memory_utilisation_is_said_not_dropped():
    """The browser sends 0 (below the box's min 0.01) or 1.5 (above its max) as null."""
    view = view_from_controls({"memory-utilization.value": None, "bandwidth-efficiency.value": None})
    assert view.memory_utilization == 0.9 and view.bandwidth_efficiency == 1.0
    text = " ".join(_sentences({"memory-utilization.value": None, "bandwidth-efficiency.value": None}))
    assert "Memory utilization (usable fraction) must be 0.01–1" in text and "still shows 0.9." in text
    assert "Bandwidth efficiency must be 0.01–1" in text and "still shows 1." in text
    zh = " ".join(_sentences({"memory-utilization.value": None}, "zh"))
    assert "显存利用率" in zh and "0.9" in zh


def test_a_value_that_is_used_or_an_unset_optional_box_says_nothing():
    assert _sentences({"gpu-price.value": 2.5, "memory-utilization.value": 0.8, "output-tokens.value": None}) == []
    assert _sentences({}) == []  # a control the callback did not send is no refusal
