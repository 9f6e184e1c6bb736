"""The roofline page's estimate point: beneath each decode bound point, at the same intensity,
at the estimate's attained FLOP/s; its hover and the insight sentence give bound, estimate
(range) and the shipped measured run where there is one."""

from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.roofline.views import view_data
from app.dashboard.pages.serving.roofline_estimate import estimate_sentence, estimate_traces, estimates_for

SCENARIO = {
    "model_id": "llama-3.1-70b",
    "weight_dtype": "fp8",
    "compute_dtype": "fp8",
    "kv_dtype": "fp8",
    "tensor_parallel": 4,
    "input_tokens": 1024,
    "output_tokens": 1024,
    "concurrency": 64,
    "memory_utilization": 0.9,
}


def test_estimate_point_sits_below_the_decode_point_at_the_same_intensity():
    view = View(hardware=("h200-sxm", "b200"), model="llama-3.1-70b", batch=64, context=1024, precision="fp8")
    view = View(**{**view.__dict__, "kv_precision": "fp8", "tensor_parallel": 4})
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
    assert estimates_for(results, {"h200-sxm": "h200-sxm"}, {**SCENARIO, "tensor_parallel": 3}) == {}
