"""The deployment planner: candidates reproduce the serving estimate exactly, none breaks its
memory rule, the best is on the frontier, an infeasible target says what would meet it, and
the launch commands carry each backend's documented flags."""

import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, load_model
from engine.planner import PlanRequest, plan
from engine.planner.frontier import pareto
from engine.planner.space import concurrency_grid, instance_layouts, worker_pairs
from engine.serving import ServingScenario, serving_estimate
from engine.serving.disagg import disaggregated_estimate
from engine.serving.scenario import DisaggScenario, KvLink, WorkerLayout


@pytest.fixture(scope="module")
def llama_8b():
    req = PlanRequest(gpus=4, tpot_s=0.02, ttft_s=1.0, precisions=("fp8",), top=5)
    return plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], req)


@pytest.fixture(scope="module")
def mixtral_like():
    req = PlanRequest(gpus=8, tpot_s=0.05, precisions=("fp8",), backends=("sglang",), top=8)
    return plan(get_model("qwen3-30b-a3b"), [get_accelerator("h200-sxm")], req)


def _serve(body: dict) -> dict:
    """POST /api/v1/serving's engine call for a candidate's body."""
    model, hw = load_model(body["model"]), get_accelerator(body["hardware"])
    base = ServingScenario(
        concurrency=body["concurrency"], input_tokens=body["input_tokens"], output_tokens=body["output_tokens"],
        weight_dtype=body["weight_dtype"], compute_dtype=body["compute_dtype"], kv_dtype=body["kv_dtype"],
        backend=body["backend"], memory_utilization=body["memory_utilization"],
    )  # fmt: skip
    if "disaggregated" not in body:
        layout = {k: body[k] for k in ("tensor_parallel", "attention_data_parallel", "moe_tensor_parallel",
                                        "expert_parallel")}  # fmt: skip
        return serving_estimate(model, hw, ServingScenario(**{**base.__dict__, **layout}))
    d = body["disaggregated"]
    ds = DisaggScenario(base, WorkerLayout(**d["prefill"]), WorkerLayout(**d["decode"]), KvLink())
    return disaggregated_estimate(model, hw, ds)


@pytest.mark.parametrize("fixture", ["llama_8b", "mixtral_like"])
def test_every_candidate_reproduces_its_serving_numbers(fixture, request):
    answer = request.getfixturevalue(fixture)
    shown = answer["top"] + [p for points in answer["frontier"].values() for p in points]
    assert shown
    for candidate in shown:
        served = _serve(candidate["serving_request"])
        for key in ("ttft_s", "tpot_s"):
            assert served["estimate"][key] == pytest.approx(candidate["estimate"][key], rel=1e-12)
            assert served["bound"][key] == pytest.approx(candidate["bound"][key], rel=1e-12)
        assert served["estimate"]["tpot_s_range"] == pytest.approx(candidate["estimate"]["tpot_s_range"], rel=1e-12)
        per_gpu = served["estimate"]["output_tokens_per_s_per_gpu"]
        assert per_gpu == pytest.approx(candidate["estimate"]["output_tokens_per_s_per_gpu"], rel=1e-12)


def test_counts_best_on_frontier_and_the_target_met(llama_8b):
    c = llama_8b["candidates"]
    assert c["evaluated"] > 50 and 0 < c["meeting_target"] <= c["evaluated"]
    best = llama_8b["best"]
    assert best["estimate"]["tpot_s"] <= 0.02 and best["estimate"]["ttft_s"] <= 1.0
    assert best["meets_target"]["estimate"]
    front = llama_8b["frontier"][best["mode"]]
    # on the frontier: no point of its mode is better for the user and per GPU at once
    assert not any(
        p["estimate"]["output_tokens_per_s_per_gpu"] > best["estimate"]["output_tokens_per_s_per_gpu"]
        and p["estimate"]["tokens_per_s_per_user"] >= best["estimate"]["tokens_per_s_per_user"]
        for p in front
    )
    # the top N is in order and every one meets the target
    rates = [t["estimate"]["output_tokens_per_s_per_gpu"] for t in llama_8b["top"]]
    assert rates == sorted(rates, reverse=True)
    assert "tok/s/GPU" in llama_8b["verdict"]["text"]
    said = llama_8b["verdict"]
    ratio = said["ratio_other_mode"]
    assert ratio is not None  # this search has both modes
    # two decimals: a near tie reads 0.99x or 1.00x, never a bare "1x"
    assert f"reaches {ratio:.2f}x of that" in said["text"]
    # a tie when the other mode's best lies inside the best's own range, and the words say so
    low, high = best["estimate"]["output_tokens_per_s_per_gpu_range"]
    other = llama_8b["best_by_mode"]["disaggregated"]["estimate"]["output_tokens_per_s_per_gpu"]
    assert said["other_mode_within_range"] == (low <= other <= high)
    assert ("the two modes tie" in said["text"]) == said["other_mode_within_range"]


def test_no_candidate_breaks_its_memory_rule(mixtral_like):
    for candidate in mixtral_like["top"] + mixtral_like["frontier"].get("aggregated", []):
        assert 0.0 <= candidate["memory_headroom"] <= 1.0
        assert _serve(candidate["serving_request"])["queued"] == 0 or candidate["mode"] == "aggregated"


def test_an_infeasible_target_names_the_nearest_feasible_one():
    req = PlanRequest(gpus=2, tpot_s=1e-4, ttft_s=10.0, precisions=("fp8",), backends=("vllm",))
    answer = plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], req)
    assert answer["best"] is None and answer["top"] == []
    near = answer["reason"]["nearest"]["tpot_s_at_asked_ttft"]
    assert near > 1e-4
    assert f"{near * 1e3:.3g} ms" in answer["reason"]["words"]


def test_pessimistic_target_is_stricter():
    kw = {"gpus": 4, "tpot_s": 0.015, "precisions": ("fp8",), "backends": ("trtllm",), "modes": ("aggregated",)}
    model, hw = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")]
    est, pes = plan(model, hw, PlanRequest(**kw)), plan(model, hw, PlanRequest(**kw, target="pessimistic"))
    assert pes["candidates"]["meeting_target"] < est["candidates"]["meeting_target"]
    assert pes["best"]["estimate"]["tpot_s_range"][1] <= 0.015


def test_launch_commands_carry_each_backends_flags():
    model, hw = get_model("qwen3-30b-a3b"), [get_accelerator("h200-sxm")]
    base = {"gpus": 8, "precisions": ("fp8",), "modes": ("aggregated",), "top": 1, "tpot_s": 0.05}
    vllm = plan(model, hw, PlanRequest(**base, backends=("vllm",)))["best"]["launch"][0]["command"]
    assert vllm.startswith("vllm serve Qwen/Qwen3-30B-A3B") and "--tensor-parallel-size " in vllm
    assert "--max-num-seqs " in vllm and "--gpu-memory-utilization 0.9" in vllm
    sglang = plan(model, hw, PlanRequest(**base, backends=("sglang",)))["best"]["launch"][0]["command"]
    assert sglang.startswith("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp ")
    assert "--max-running-requests " in sglang
    trt = plan(model, hw, PlanRequest(**base, backends=("trtllm",)))["best"]["launch"][0]["command"]
    assert "trtllm-serve Qwen/Qwen3-30B-A3B --tp_size " in trt and "--max_batch_size " in trt
    disagg = plan(model, hw, PlanRequest(**{**base, "modes": ("disaggregated",)}, backends=("sglang",)))["best"]
    roles = [c["role"] for c in disagg["launch"]]
    assert roles == ["prefill", "decode", "router"]
    assert "--disaggregation-mode prefill" in disagg["launch"][0]["command"]
    assert "--disaggregation-mode decode" in disagg["launch"][1]["command"]


def test_space_helpers():
    layouts = instance_layouts(get_model("deepseek-r1"), get_accelerator("gb200"), 72)
    assert all(lay.gpus <= 72 and lay.tensor_parallel <= 64 for lay in layouts)
    assert any(lay.attention_data_parallel == 64 and lay.expert_parallel == 64 for lay in layouts)
    dense = instance_layouts(get_model("llama-3.1-70b"), get_accelerator("h100-sxm5"), 16)
    assert {lay.tensor_parallel for lay in dense} == {1, 2, 4, 8}
    assert all(lay.attention_data_parallel == 1 for lay in dense)
    grid = concurrency_grid(1000)
    assert grid[0] == 1 and grid[-1] == 1000 and len(grid) <= 32
    assert (2, 1) in worker_pairs(8, 2, 4) and all(x * 2 + y * 4 <= 8 for x, y in worker_pairs(8, 2, 4))


def test_pareto_keeps_only_undominated_points():
    import numpy as np

    per_gpu = np.array([10.0, 8.0, 12.0, 7.0])
    per_user = np.array([5.0, 6.0, 4.0, 3.0])
    assert sorted(pareto(per_gpu, per_user, np.arange(4)).tolist()) == [0, 1, 2]


def test_bad_requests_name_their_field():
    model, hw = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")]
    for req, field in [
        (PlanRequest(gpus=0), "gpus"),
        (PlanRequest(gpus=8, backends=("tgi",)), "backends"),
        (PlanRequest(gpus=8, precisions=("fp3",)), "precisions"),
        (PlanRequest(gpus=8, target="optimistic"), "target"),
        (PlanRequest(gpus=8, tpot_s=-1.0), "tpot_s"),
        (PlanRequest(gpus=8, gpu_hour_price={"b200": 3.0}), "gpu_hour_price"),
    ]:
        with pytest.raises(EngineInputError) as err:
            plan(model, hw, req)
        assert err.value.field == field
