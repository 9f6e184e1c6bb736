"""The Planner page's link and controls: every parameter read and written back, a bad one
ignored by name, the targets' sliders and boxes agreeing, and a target's move re-filtering the
search already made (no second search) while anything else asks the engine."""

from dataclasses import replace
from urllib.parse import parse_qsl

import pytest
from dash import no_update

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
    link_query,
    parse_args,
    slider_position,
    targets_of,
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
    assert "tpot_ms={tpot_ms}&ttft_ms={ttft_ms}" in link["template"]  # the browser fills them (04-url.js)
    assert parse_args(view_from_search(link_query(view, a)))[0] == a
    assert dict(parse_qsl(link["template"]))["backends"] == "vllm,sglang"  # in the engine's order
    assert export_name(a) == "plan-llama-3.1-8b-h100-sxm5+h200-sxm-g4-tpot12.5-ttft800"
    assert link["export"] == "plan-llama-3.1-8b-h100-sxm5+h200-sxm-g4-tpot{tpot_ms}-ttft{ttft_ms}"
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
    assert slider_position(20.0, TPOT_STOPS) == i20 and TPOT_STOPS[i20] == 20.0
    between = slider_position(22.0, TPOT_STOPS)  # between 20 and 25
    assert i20 < between < i20 + 1
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


def _update(a: PlanArgs, trigger: str, drawn=None, typed: bool = False, sliders=None) -> dict:
    """update_plan as Dash calls it: the targets in `plan-sizes` (a drag's or a typed box's)."""
    controls = {k: v for k, v in controls_of(a).items() if k not in callbacks.TARGET_BOXES}
    sizes = targets_of(a) | {"typed": typed}
    controls["plan-settled.data"] = sizes
    boxes = {"plan-tpot.value": 50.0, "plan-ttft.value": 2000.0}  # where the boxes were: the sizes win
    if sliders is None:
        sliders = {f"plan-{n}-slider.value": 0 for n in ("tpot", "ttft")}
    return callbacks.update_plan(
        controls=controls, boxes=boxes, sliders=sliders, sizes=sizes, flags={"lang": "en", "theme": "light"},
        drawn=drawn, trigger=trigger,
    )  # fmt: skip


def test_a_target_re_filters_the_search_and_moves_the_star_in_place():
    first = _update(SMALL, "plan-model")
    assert isinstance(first["figure"], dict) and first["figure"]["data"][-1]["uid"] == "plan--best"
    assert first["view"]["at"]["tpot_ms"] == 20.0 and first["view"]["verdict"].count("TPOT ≤ 20 ms") == 1
    searches = SEARCHES.misses
    moved = _update(replace(SMALL, tpot_ms=10.0), "plan-settled", first["drawn"])
    assert moved["figure"] is no_update and moved["view"]["marks"]["star"]["name"].startswith("best: ")
    assert "TPOT ≤ 10 ms" in moved["view"]["verdict"]
    assert "{tpot_ms}" in moved["link"]["template"]  # the browser writes the targets into the link
    assert moved["tpot_slider"] is no_update  # after a drag the slider is where the user left it
    assert SEARCHES.misses == searches
    # another budget is another search: the chart is drawn anew
    again = _update(replace(SMALL, gpus=4), "plan-gpus", first["drawn"])
    assert isinstance(again["figure"], dict) and SEARCHES.misses == searches + 1
    # a typed target moves its slider, between stops if need be
    typed = _update(replace(SMALL, tpot_ms=22.0), "plan-settled", first["drawn"], typed=True)
    assert TPOT_STOPS.index(20.0) < typed["tpot_slider"] < TPOT_STOPS.index(25.0)


def _grid(a: PlanArgs, asked: dict) -> dict:
    """update_grid as Dash calls it once the page's answer is drawn."""
    controls = {k: v for k, v in controls_of(a).items() if k not in callbacks.TARGET_BOXES}
    controls |= {"plan-settled.data": targets_of(a), "plan-sizes.data": targets_of(a)}
    controls |= {"plan-tpot.value": a.tpot_ms, "plan-ttft.value": a.ttft_ms}
    return callbacks.update_grid(asked=asked, controls=controls, flags={"lang": "en"})["grid"]


def test_the_grid_holds_the_engine_s_answer_at_every_stop():
    """A drag draws the grid's views: each is what a settle there would answer."""
    first = _update(SMALL, "plan-model")
    grid = _grid(SMALL, first["asked"])
    assert grid["stops"]["tpot"] == list(TPOT_STOPS) and grid["at"] == {"tpot_ms": 20.0, "ttft_ms": 2000.0}
    assert grid["key"] == first["drawn"]["key"]
    for ms in (10.0, 50.0):
        settled = _update(replace(SMALL, tpot_ms=ms), "plan-settled", first["drawn"])
        stop = grid["views"]["tpot"][TPOT_STOPS.index(ms)]
        for key in ("verdict", "counts", "caption", "marks", "compare"):
            assert stop[key] == settled["view"][key], key
        rows = [grid["pool"][i] for i in stop["rows"]]
        assert rows == [settled["view"]["pool"][i] for i in settled["view"]["rows"]]
    # a grid asked for another chart than the question's is not made
    assert _grid(replace(SMALL, gpus=4), first["asked"]) is no_update


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_paint_says_the_same_as_a_callback(lang):
    from app.dashboard.pages.plan.view import shown as view_shown

    a = SMALL
    first = view_shown(a, [], [], lang, "dark", False)
    controls = {k: v for k, v in controls_of(a).items() if k not in callbacks.TARGET_BOXES}
    controls["plan-settled.data"] = targets_of(a)
    again = callbacks.update_plan(
        controls=controls, boxes={}, sliders={}, sizes=targets_of(a), flags={"lang": lang, "theme": "dark"},
        drawn=None, trigger="plan-model",
    )  # fmt: skip
    assert first["view"]["verdict"] == again["view"]["verdict"] and first["figure"] == again["figure"]
