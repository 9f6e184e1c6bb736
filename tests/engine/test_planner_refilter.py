"""One search, many answers: `answer(search(...), req)` for any targets, target mode and prices
is exactly what `plan` answers for them (the planner page re-filters a search as its target
sliders move), and it refuses a request for another search."""

from dataclasses import replace

import pytest

from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.planner import PlanRequest, answer, plan, search

REQ = PlanRequest(gpus=4, tpot_s=0.02, ttft_s=1.0, precisions=("fp8",), top=5)
HARDWARE = ("h100-sxm5", "h200-sxm")


@pytest.fixture(scope="module")
def found():
    return search(get_model("llama-3.1-8b"), [get_accelerator(h) for h in HARDWARE], REQ)


def _without_time(out: dict) -> dict:
    return {k: v for k, v in out.items() if k != "seconds"}


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"tpot_s": 0.008},
        {"tpot_s": 0.1, "ttft_s": 0.2, "target": "pessimistic"},
        {"tpot_s": 1e-4},  # nothing meets it: best None, the reason
        {"gpu_hour_price": {"h100-sxm5": 2.5, "h200-sxm": 3.5}, "top": 3},  # ranked by $/Mtok
        {"gpu_hour_price": {"h200-sxm": 3.5}},  # one priced: still by tokens/s/GPU
    ],
)
def test_an_answer_of_a_search_is_the_plan(found, change):
    req = replace(REQ, **change)
    direct = plan(get_model("llama-3.1-8b"), [get_accelerator(h) for h in HARDWARE], req)
    assert _without_time(answer(found, req)) == _without_time(direct)


def test_the_search_is_not_changed_by_an_answer(found):
    before = {k: v.copy() for k, v in found.cols.items()}
    answer(found, replace(REQ, gpu_hour_price={"h100-sxm5": 2.5, "h200-sxm": 3.5}))
    assert set(found.cols) == set(before)  # no $/Mtok column left behind in the shared search
    assert all((found.cols[k] == before[k]).all() for k in before)


def test_without_the_frontier(found):
    out = answer(found, REQ, frontier=False)
    assert out["frontier"] == {} and out["best"] == answer(found, REQ)["best"]


@pytest.mark.parametrize("field,value", [("gpus", 8), ("input_tokens", 2048), ("modes", ("aggregated",))])
def test_another_search_is_refused(found, field, value):
    with pytest.raises(ValueError, match="another search"):
        answer(found, replace(REQ, **{field: value}))


def test_a_search_where_nothing_fits():
    """DeepSeek-R1 on one H100: no candidate at all; the answer says so, as `plan` does, and
    names only what would fit (its 4-bit weights, 335 GB, are no more one H100's than its fp8
    ones: "or a lower precision" was advice that could not work)."""
    model, hw = get_model("deepseek-r1"), [get_accelerator("h100-sxm5")]
    req = PlanRequest(gpus=1, tpot_s=0.05)
    out = answer(search(model, hw, req), req)
    assert out["best"] is None and out["reason"]["code"] == "plan_nothing_fits"
    assert out["reason"]["words"] == "No candidate fits in memory on 1 GPU: it would take more GPUs"
    assert out["reason"]["would_fit"] == {"more_gpus": True, "lower_precision": False, "both": False}
    assert _without_time(out) == _without_time(plan(model, hw, req))


def test_what_would_have_to_change_reads_as_one_sentence():
    """Neither target met alone, and nothing fitting under a memory rule the user tightened on the
    largest budget: the words name what would change it (more GPUs cannot)."""
    model = get_model("llama-3.1-8b")
    req = PlanRequest(gpus=8, tpot_s=0.0005, ttft_s=0.001, modes=("aggregated",))
    words = plan(model, [get_accelerator("h100-sxm5")], req)["reason"]["words"]
    assert words.startswith("Nothing meets the target; it would take more or faster GPUs, or another precision (")
    assert "neither target is met alone: the fastest TPOT is " in words and words.endswith(" on 8 GPUs)")
    tight = PlanRequest(gpus=1024, memory_utilization=1e-9, modes=("aggregated",))
    words = plan(model, [get_accelerator("h100-sxm5")], tight)["reason"]["words"]
    assert words == "No candidate fits in memory on 1,024 GPUs: it would take a memory_utilization above 1e-09"


@pytest.mark.parametrize("by_cost", [False, True])
def test_the_search_s_order_kept_to_a_target_is_the_ranking_of_those_meeting_it(found, by_cost):
    """answer() keeps the search's ranking of every candidate to those meeting the target,
    instead of sorting them again: the same rows in the same order as frontier.ranking."""
    import numpy as np

    from engine.planner import frontier as fr

    prices = {"h100-sxm5": 2.5, "h200-sxm": 3.5} if by_cost else {}
    cols = dict(found.cols)
    cols["usd_per_million_tokens"] = fr.usd_per_million_tokens(cols, prices)
    order = found.order(cols, by_cost, prices)
    rng = np.random.default_rng(7)
    for tpot_s in (0.005, 0.01, 0.02, 0.05):
        ok = fr.meets(cols, None, tpot_s, False) & (rng.random(len(order)) < 0.8)
        assert (order[ok[order]] == fr.ranking(cols, ok, by_cost)).all()


def test_a_backend_asked_twice_is_searched_once():
    model, hw = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")]
    once = plan(model, hw, PlanRequest(gpus=2, backends=("vllm",), modes=("aggregated",)))
    twice = plan(model, hw, PlanRequest(gpus=2, backends=("vllm", "vllm"), modes=("aggregated",)))
    assert twice["candidates"] == once["candidates"] and _without_time(twice) == _without_time(once)


@pytest.mark.parametrize(
    "model,hw,gpus,precisions,said",
    [
        ("llama-3.1-405b", "h100-sxm5", 8, ("bf16",), ": it would take a lower precision"),
        # bf16 weights (810 GB) exceed an 8-GPU board, 4-bit ones (203 GB) two cards: both it takes
        ("llama-3.1-405b", "h100-sxm5", 2, ("bf16",), ": it would take more GPUs and a lower precision"),
        ("llama-3.1-405b", "h100-sxm5", 2, ("fp8",), ": it would take more GPUs"),
        ("llama-3.1-405b", "l4", 1024, None, ", nor would one at any budget or precision the planner searches"),
    ],
)
def test_nothing_fits_names_only_what_would(model, hw, gpus, precisions, said):
    """405B on L4, one card an instance: no budget or precision fits it; the words had advised a
    lower precision, and the page more GPUs."""
    out = plan(get_model(model), [get_accelerator(hw)], PlanRequest(gpus=gpus, precisions=precisions))
    assert out["best"] is None and said in out["reason"]["words"], out["reason"]["words"]
