"""The Planner page's link and controls: every parameter read and written back, a bad one
ignored by name, the targets' sliders and boxes agreeing, and a target's move re-filtering the
search already made (no second search) while anything else asks the engine."""

from dataclasses import replace
from urllib.parse import parse_qsl

import pytest
from dash import Patch

from app.dashboard.lib.params import shown
from app.dashboard.pages.plan import callbacks
from app.dashboard.pages.plan.compute import SEARCHES
from app.dashboard.pages.plan.params import PARAMS, PlanArgs
from app.dashboard.pages.plan.state import (
    TPOT_STOPS,
    TTFT_STOPS,
    args_from_controls,
    export_name,
    link_of,
    parse_args,
    slider_position,
    stop_ms,
)
from app.dashboard.pages.roofline.state import view_from_search

FULL = (
    "tab=plan&model=llama-3.1-8b&hw=h100-sxm5,h200-sxm&gpus=4&isl=2048&osl=512&tpot_ms=12.5&ttft_ms=800"
    "&target=pessimistic&modes=aggregated&backends=vllm,sglang&precs=fp8&price=h100-sxm5:2.5,h200-sxm:3.25"
)
SMALL = PlanArgs(model="llama-3.1-8b", hardware=("h100-sxm5",), gpus=2, precisions=("fp8",), tpot_ms=20.0)


def test_every_parameter_travels_and_comes_back():
    view = view_from_search(FULL)
    a, notices = parse_args(view)
    assert not notices
    assert a == PlanArgs(
        model="llama-3.1-8b", hardware=("h100-sxm5", "h200-sxm"), gpus=4, input_tokens=2048, output_tokens=512,
        tpot_ms=12.5, ttft_ms=800.0, target="pessimistic", modes=("aggregated",), backends=("vllm", "sglang"),
        precisions=("fp8",), prices=(("h100-sxm5", 2.5), ("h200-sxm", 3.25)),
    )  # fmt: skip
    link = link_of(view, a)
    assert parse_args(view_from_search(link["template"]))[0] == a
    assert dict(parse_qsl(link["template"]))["backends"] == "vllm,sglang"  # in the engine's order
    assert export_name(a) == "plan-llama-3.1-8b-h100-sxm5+h200-sxm-g4-tpot12.5-ttft800"
    # the defaults stay out of the link; a tab's link takes the model as its preset
    default = link_of(view_from_search("tab=plan"), PlanArgs())["template"]
    assert "modes=" not in default and "backends=" not in default and "precs=" not in default
    assert "model=llama-3.1-70b" in link_of(view_from_search("tab=plan"), PlanArgs())["tabs"]["roofline"]


def test_a_bad_parameter_is_ignored_by_name_and_the_rest_is_kept():
    for query, names in (
        ("gpus=0&tpot_ms=-3&ttft_ms=abc&modes=sideways&foo=1", ("gpus", "tpot_ms", "ttft_ms", "modes", "foo")),
        ("backends=&precs=fp3&price=b200:4,h200-sxm:-1&target=maybe", ("backends", "precs", "price", "target")),
    ):
        a, notices = parse_args(view_from_search(f"tab=plan&hw=h200-sxm&isl=4096&{query}"))
        said = " | ".join(notices)
        assert len(notices) == len(names), said
        for name in names:
            assert f"Ignored URL parameter {name}=" in said, name
        assert a == replace(PlanArgs(), input_tokens=4096)
    _, notices = parse_args(view_from_search("tab=plan&" + "&".join(f"x{i}=1" for i in range(12))))
    assert len(notices) == 9 and notices[-1] == "… and 4 more ignored parameters"


def test_a_price_for_an_accelerator_not_searched_is_named():
    _, notices = parse_args(view_from_search("tab=plan&hw=h200-sxm&price=b200:4"))
    assert notices == [
        "Ignored URL parameter price=b200:4: a price for an accelerator the page does not search (h200-sxm)"
    ]


def test_the_sliders_stops_and_boxes():
    assert {1.0, 2.0, 20.0, 50.0, 1000.0} <= set(TPOT_STOPS) and TTFT_STOPS[0] == 10.0 and TTFT_STOPS[-1] == 60000.0
    i20 = TPOT_STOPS.index(20.0)
    assert slider_position(20.0, TPOT_STOPS) == i20 and stop_ms(i20, TPOT_STOPS) == 20.0
    between = slider_position(22.0, TPOT_STOPS)  # between 20 and 25
    assert i20 < between < i20 + 1 and stop_ms(between, TPOT_STOPS) is None
    assert stop_ms(True, TPOT_STOPS) is None and stop_ms(99, TPOT_STOPS) is None
    assert slider_position(0.5, TPOT_STOPS) == 0 and slider_position(5000, TPOT_STOPS) == len(TPOT_STOPS) - 1


def controls_of(a: PlanArgs) -> dict:
    out = shown(PARAMS, a) | {"plan-hw.value": list(a.hardware), "plan-prices.data": dict(a.prices)}
    return out


def test_controls_read_back_and_a_refused_box_says_so_in_its_own_words():
    a, problems, refused = args_from_controls(controls_of(SMALL))
    assert a == SMALL and not problems and not refused
    _, problems, refused = args_from_controls(controls_of(SMALL) | {"plan-tpot.value": 5000})
    assert not problems and refused == ["TPOT target (ms) must be 1–1,000 (you typed 5000); still showing 50."]
    _, problems, _ = args_from_controls(controls_of(SMALL) | {"plan-modes.value": []})
    assert problems == ["Modes: not a value the page can use; nothing is searched until it is one."]
    _, problems, _ = args_from_controls(controls_of(SMALL) | {"plan-hw.value": []})
    assert problems == ["Choose at least one accelerator."]


def _update(a: PlanArgs, trigger: str, drawn=None, **sliders) -> dict:
    slider_values = {"plan-tpot-slider.value": slider_position(a.tpot_ms, TPOT_STOPS),
                     "plan-ttft-slider.value": slider_position(a.ttft_ms, TTFT_STOPS)} | sliders  # fmt: skip
    flags = {"lang": "en", "theme": "light"}
    return callbacks.update_plan(controls_of(a), slider_values, flags, drawn, trigger=trigger)


def test_a_target_slider_re_filters_the_search_and_patches_the_chart():
    first = _update(SMALL, "plan-model")
    assert isinstance(first["figure"], dict) and first["figure"]["data"][1]["uid"] == "plan--best"
    searches = SEARCHES.misses
    to = TPOT_STOPS.index(10.0)
    moved = _update(SMALL, "plan-tpot-slider", first["drawn"], **{"plan-tpot-slider.value": to})
    assert isinstance(moved["figure"], Patch)
    assert moved["tpot_box"] == 10.0  # the box follows the slider; the slider is left alone
    assert "tpot_ms=10&" in moved["link"]["template"] and "TPOT ≤ 10 ms" in moved["verdict"]
    assert SEARCHES.misses == searches
    # another budget is another search: the chart is drawn anew
    again = _update(replace(SMALL, gpus=4), "plan-gpus", first["drawn"])
    assert isinstance(again["figure"], dict) and SEARCHES.misses == searches + 1
    # a typed target moves its slider, between stops if need be
    typed = _update(replace(SMALL, tpot_ms=22.0), "plan-tpot", first["drawn"])
    assert TPOT_STOPS.index(20.0) < typed["tpot_slider"] < TPOT_STOPS.index(25.0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_paint_says_the_same_as_a_callback(lang):
    from app.dashboard.pages.plan.view import shown as view_shown

    a = SMALL
    first = view_shown(a, [], [], lang, "dark", False)
    again = callbacks.update_plan(controls_of(a), {}, {"lang": lang, "theme": "dark"}, None, trigger="plan-model")
    assert first["verdict"] == again["verdict"] and first["figure"] == again["figure"]
