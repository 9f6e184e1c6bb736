"""The roofline page's estimate point: beneath each decode bound point, at the same intensity,
at the estimate's attained FLOP/s; its hover and the insight sentence give bound, estimate
(range) and the shipped measured run where there is one."""

from dataclasses import replace

from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.roofline.views import view_data
from app.dashboard.pages.serving.compute import compute
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.roofline_estimate import (
    estimate_sentence,
    estimate_traces,
    estimates_for,
    serving_args,
)

# the product's default scenario (pages/scenario.py): Llama-3.1-70B fp8, TP 4, 1,024 / 1,024, 64 in flight
SCENARIO = serving_args(View(hardware=("h200-sxm", "b200")))


def test_estimate_point_sits_below_the_decode_point_at_the_same_intensity():
    view = View(hardware=("h200-sxm", "b200"), model="llama-3.1-70b", batch=64, context=1024, precision="fp8")
    results = view_data(view)["analysis"]["results"]
    estimates = estimates_for(results, {"h200-sxm": "h200-sxm", "b200": "b200"}, SCENARIO)
    traces = {t["uid"]: t for t in estimate_traces(results, estimates, "en", "light")}
    assert set(traces) == {"estimate--h200-sxm--decode", "estimate--b200--decode"}
    for r in results:
        point = traces[f"estimate--{r['hardware_id']}--decode"]
        decode = r["decode"]
        assert point["x"] == [decode["intensity"]]
        assert 0 < point["y"][0] < decode["flops"] / decode["time_s"]
    h200 = estimates["h200-sxm"]
    assert h200.measured_tpot_s is not None  # the shipped TensorRT-LLM run at concurrency 64
    text = estimate_sentence("H200", h200, "en")
    assert "TPOT bound" in text and "estimate" in text and "Measured:" in text
    assert "实测" in estimate_sentence("H200", h200, "zh")


def test_no_point_where_the_engine_cannot_answer():
    view = View(hardware=("h200-sxm",), model="llama-3.1-70b", batch=1, context=1024)
    results = view_data(view)["analysis"]["results"]
    assert estimates_for(results, {"h200-sxm": "h200-sxm"}, replace(SCENARIO, tensor_parallel=3)) == {}


def test_the_roofline_estimate_is_the_serving_pages_own():
    """Issue 29 §2: the same scenario gives the same TPOT and TTFT (bound and estimate) on both
    pages: the roofline's default View, as serving arguments, is the serving page's default
    scenario, with its backend (TensorRT-LLM), and the numbers are its chosen point's."""
    args = serving_args(View())
    page = ServingArgs()
    assert replace(args, model=page.model) == page  # one default scenario (its model by its Hugging Face id)
    results = view_data(View())["analysis"]["results"]
    mine = estimates_for(results, {"h200-sxm": "h200-sxm"}, args)["h200-sxm"]
    chosen = compute(page)[0].chosen
    assert mine.estimate_tpot_s == chosen["estimate"]["tpot_s"] and mine.bound_tpot_s == chosen["bound"]["tpot_s"]
    assert mine.estimate_ttft_s == chosen["estimate"]["ttft_s"] and mine.bound_ttft_s == chosen["bound"]["ttft_s"]
    assert args.backend == "trtllm"
