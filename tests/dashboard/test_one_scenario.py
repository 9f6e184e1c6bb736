"""Issue 29 §2: one default scenario for the whole product, and every parameter the roofline and
the serving page both have travels between them on a tab switch (under each page's own name)."""

from dataclasses import replace
from urllib.parse import parse_qsl

import pytest

from app.dashboard.pages import scenario
from app.dashboard.pages.links import carried
from app.dashboard.pages.ops.state import OpsState
from app.dashboard.pages.roofline.callbacks import link_data
from app.dashboard.pages.roofline.params import PRECISIONS
from app.dashboard.pages.roofline.state import View, view_from_search
from app.dashboard.pages.serving.params import OWN, ServingArgs
from app.dashboard.pages.serving.state import link_of, parse_args, scenario_of
from engine.model_catalog import preset_id_or_none


def test_every_page_opens_on_the_same_model_and_scenario():
    view, page = View(), ServingArgs()
    assert view.model == scenario.MODEL == preset_id_or_none(page.model) == OpsState().model
    assert view.hardware == page.hardware == scenario.HARDWARE
    assert (view.precision, view.tensor_parallel, view.backend) == (page.precision, page.tensor_parallel, page.backend)
    assert (view.context, view.output_tokens, view.concurrency) == (
        page.input_tokens,
        page.output_tokens,
        page.concurrency,
    )
    assert view.kv_precision == scenario_of(page).kv_dtype == "fp8"
    assert view_from_search("").model == "llama-3.1-70b" and view_from_search("").precision == "fp8"


@pytest.mark.parametrize("prec", list(PRECISIONS))
def test_the_kv_cache_follows_the_weights_as_the_serving_page_keeps_it(prec):
    """A link without kvprec gets the KV cache the serving page computes with for its weights."""
    assert view_from_search(f"prec={prec}").kv_precision == scenario_of(ServingArgs(precision=prec)).kv_dtype
    assert view_from_search(f"prec={prec}&kvprec=int8").kv_precision == "int8"  # a link's own choice stays


def _serving(search: str) -> tuple[View, ServingArgs]:
    view = view_from_search(search)
    view = replace(view, carry=carried(view.lab_args, OWN))
    args, notices = parse_args(view)
    assert notices == []
    return view, args


def test_the_roofline_hands_its_scenario_to_the_serving_page():
    roofline = view_from_search("hw=b200&batch=32&ctx=8192&out=512&conc=96&tp=8&prec=fp8&memutil=0.85&backend=vllm")
    _, args = _serving(link_data(roofline)["tabs"]["serving"])
    assert (args.input_tokens, args.output_tokens, args.concurrency, args.tensor_parallel) == (8192, 512, 96, 8)
    assert (args.memory_utilization, args.backend, args.hardware, args.precision) == (0.85, "vllm", ("b200",), "fp8")


def test_the_serving_page_hands_its_scenario_back():
    """The serving page's lengths, concurrency, layout and backend, and the KV cache it computed
    with, reach the roofline: switching tabs keeps the scenario (it became ctx 4,096, KV bf16)."""
    view, args = _serving("tab=serving&hw=h200-sxm&isl=2048&osl=256&conc=32&tp=8&backend=sglang&prec=fp8")
    back = view_from_search(link_of(view, args)["tabs"]["roofline"])
    assert back.notices == ()
    assert (back.context, back.output_tokens, back.concurrency, back.tensor_parallel) == (2048, 256, 32, 8)
    assert (back.backend, back.precision, back.kv_precision, back.hardware) == ("sglang", "fp8", "fp8", ("h200-sxm",))
    # and the way round again: the serving page opens on what it handed over
    _, again = _serving(link_data(back)["tabs"]["serving"])
    assert replace(again, model=args.model) == args


def test_a_switched_off_request_stays_off_in_the_link():
    """The whole request and the serving estimate are on by default; switched off (an empty
    box), the canonical link says so (out=0) and reads back off."""
    view = view_from_search("out=0&conc=0")
    assert (view.output_tokens, view.concurrency) == (0, 0) and view.notices == ()
    assert ("out", "0") in parse_qsl(link_data(view)["template"])
    assert view_from_search(link_data(view)["template"].replace("{batch}", "64").replace("{ctx}", "1024")) == view
