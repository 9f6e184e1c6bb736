"""The deployment planner: candidates reproduce the serving estimate exactly, none breaks its
memory rule, the best is on the frontier, an infeasible target says what would meet it, and
the launch commands carry each backend's documented flags."""

import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, load_model
from engine.planner import PlanRequest, answer, backends_for, plan, search
from engine.planner.frontier import pareto
from engine.planner.launch import aggregated_commands, disaggregated_commands, weights_source
from engine.planner.space import Layout, concurrency_grid, disagg_units, instance_layouts, worker_pairs
from engine.serving import ServingScenario, serving_estimate
from engine.serving.disagg import disaggregated_estimate
from engine.serving.scenario import BACKENDS, DisaggScenario, KvLink, WorkerLayout


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


def _deployment(candidate: dict) -> tuple:
    return tuple(candidate[k] for k in ("mode", "hardware", "backend", "precision", "layout_words", "replicas"))


def test_the_top_n_names_n_deployments_each_at_its_best_concurrency():
    """Without the rule, the top 10 of this search is one layout at ten neighbouring
    concurrencies."""
    req = PlanRequest(gpus=8, tpot_s=0.05, precisions=("fp8",), backends=("vllm",), modes=("aggregated",))
    found = search(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], req)
    top = answer(found, req)["top"]
    assert len(top) == 4 and len({_deployment(c) for c in top}) == 4  # TP 1, 2, 4 and 8
    # each at its best concurrency: the best rate among its deployment's rows meeting the target
    cols = found.cols
    ok = cols["tpot_s"] <= 0.05
    best_of_each = {d: cols["tokens_per_s_per_gpu"][ok & (cols["deployment"] == d)].max()
                    for d in set(cols["deployment"][ok])}  # fmt: skip
    rates = [c["estimate"]["output_tokens_per_s_per_gpu"] for c in top]
    assert rates == pytest.approx(sorted(best_of_each.values(), reverse=True))


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
    # a 16-bit release served in fp8: quantized while loading (vLLM and SGLang), from a quantized
    # checkpoint (TensorRT-LLM)
    assert vllm.startswith("vllm serve Qwen/Qwen3-30B-A3B --quantization fp8 --tensor-parallel-size ")
    assert "--max-num-seqs " in vllm and "--gpu-memory-utilization 0.9" in vllm and "--kv-cache-dtype fp8" in vllm
    sglang = plan(model, hw, PlanRequest(**base, backends=("sglang",)))["best"]["launch"][0]["command"]
    assert sglang.startswith("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --quantization fp8 --tp ")
    assert "--max-running-requests " in sglang and "--kv-cache-dtype fp8_e4m3" in sglang
    best_trt = plan(model, hw, PlanRequest(**base, backends=("trtllm",)))["best"]["launch"][0]
    trt = best_trt["command"]
    assert "trtllm-serve Qwen/Qwen3-30B-A3B --tp_size " in trt and "--max_batch_size " in trt
    assert "--max_num_tokens " in trt and "--quantization" not in trt
    assert best_trt["weights"] == {"precision": "fp8", "source": "quantized_checkpoint"}
    disagg = plan(model, hw, PlanRequest(**{**base, "modes": ("disaggregated",)}, backends=("sglang",)))["best"]
    roles = [c["role"] for c in disagg["launch"]]
    assert roles == ["prefill", "decode", "router"]
    assert "--disaggregation-mode prefill" in disagg["launch"][0]["command"]
    assert "--disaggregation-mode decode" in disagg["launch"][1]["command"]
    assert "sglang_router.launch_router --pd-disaggregation" in disagg["launch"][2]["command"]
    assert "weights" not in disagg["launch"][2]  # the router runs no model


def test_every_layout_flag_docs_planner_cites_is_in_its_template():
    """The templates with attention DP, expert parallel and a memory fraction, flag by flag as
    docs/planner.md cites them (each backend's documented command line)."""
    lay = Layout(tensor_parallel=2, attention_data_parallel=4, expert_parallel=8)
    (vllm,) = aggregated_commands("vllm", "M", lay, 1, 64, "fp8", 0.85, 8192)
    assert vllm["command"] == (
        "vllm serve M --tensor-parallel-size 2 --data-parallel-size 4 --enable-expert-parallel --max-num-seqs 64 "
        "--gpu-memory-utilization 0.85 --kv-cache-dtype fp8"
    )
    (sglang,) = aggregated_commands("sglang", "M", lay, 1, 64, "fp8", 0.85, 8192)
    assert sglang["command"] == (
        "python -m sglang.launch_server --model-path M --tp 8 --dp 4 --enable-dp-attention --ep-size 8 "
        "--max-running-requests 64 --mem-fraction-static 0.85 --kv-cache-dtype fp8_e4m3"
    )
    (trt,) = aggregated_commands("trtllm", "M", lay, 1, 64, "fp8", 0.85, 8192)
    assert trt["command"] == (
        "printf 'enable_attention_dp: true\\n' > extra-llm-api.yaml && trtllm-serve M --tp_size 8 --ep_size 8 "
        "--max_batch_size 64 --max_num_tokens 8192 --kv_cache_free_gpu_memory_fraction 0.85 "
        "--extra_llm_api_options extra-llm-api.yaml"
    )
    pre, dec = Layout(tensor_parallel=4), Layout(tensor_parallel=8)
    p, d, router = disaggregated_commands("vllm", "M", pre, 2, dec, 1, 32, "bf16", None, 2048)
    nixl = """--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"""
    assert p["command"].endswith(nixl) and d["command"].endswith(nixl) and (p["count"], d["count"]) == (2, 1)
    p, d, router = disaggregated_commands("trtllm", "M", pre, 2, dec, 1, 32, "fp8", None, 2048)
    assert "cache_transceiver_config:" in p["command"] and "disable_overlap_scheduler: true" in p["command"]
    assert "--max_num_tokens 2048" in p["command"] and "--max_batch_size 32" in d["command"]
    assert router["command"].startswith("trtllm-serve disaggregated -c ")


@pytest.mark.parametrize(
    ("backend", "precision", "native", "source"),
    [
        ("vllm", "bf16", None, "released"),
        ("vllm", "fp8", None, "quantized_on_load"),
        ("sglang", "fp8", None, "quantized_on_load"),
        ("trtllm", "fp8", None, "quantized_checkpoint"),
        ("vllm", "fp4", None, "quantized_checkpoint"),
        ("vllm", "fp8", "fp8", "released"),
        ("sglang", "int4", "int4", "released"),
        ("vllm", "fp4", "fp8", "quantized_checkpoint"),
    ],
)
def test_where_a_candidates_weights_come_from(backend, precision, native, source):
    assert weights_source(backend, precision, native) == source


def test_backends_run_only_on_their_makers_accelerators():
    assert backends_for(get_accelerator("mi300x"), BACKENDS) == ["vllm", "sglang"]
    assert backends_for(get_accelerator("h100-sxm5"), BACKENDS) == list(BACKENDS)
    answer = plan(get_model("llama-3.1-8b"), [get_accelerator("mi300x")], PlanRequest(gpus=8, tpot_s=0.05))
    assert {c["backend"] for c in answer["top"]} <= {"vllm", "sglang"}
    with pytest.raises(EngineInputError, match="none of trtllm runs on mi300x"):
        plan(get_model("llama-3.1-8b"), [get_accelerator("mi300x")], PlanRequest(gpus=8, backends=("trtllm",)))


def test_a_search_too_large_or_that_cannot_find_anything_is_refused_before_it_runs():
    model = get_model("deepseek-r1")
    hardware = [get_accelerator(h) for h in ("gb200", "gb300", "b200", "b300", "h200-sxm", "mi355x")]
    with pytest.raises(EngineInputError) as info:
        plan(model, hardware, PlanRequest(gpus=1024))
    assert info.value.field == "hardware" and info.value.code == "plan_too_large"
    with pytest.raises(EngineInputError) as info:
        plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], PlanRequest(gpus=1, modes=("disaggregated",)))
    assert info.value.field == "gpus" and info.value.code == "plan_disagg_gpus"


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


def test_disaggregated_pairs_balance_the_kv_link_as_well_as_the_two_sides():
    # Llama-3.1-70B fp8 on H200, 8,192 tokens in and 2 out: a decode worker could take hundreds of
    # prompts a second, its NICs (at the calibrated kv_link_efficiency) far fewer, so pairs sized
    # by compute alone put one decode worker behind hundreds of prefill workers and the link capped
    # them all (0.12 tok/s/GPU at 1,024 GPUs against 2.16 at 8). Sized to the link as well, the
    # per-GPU rate holds as the budget grows.
    model, hw = load_model("meta-llama/Llama-3.1-70B"), get_accelerator("h200-sxm")

    def best(gpus: int) -> float:
        req = PlanRequest(gpus=gpus, input_tokens=8192, output_tokens=2, modes=("disaggregated",), backends=("trtllm",))
        return plan(model, [hw], req)["best"]["estimate"]["output_tokens_per_s_per_gpu"]

    small, large = best(8), best(1024)
    assert large == pytest.approx(small, rel=0.1)


def test_disaggregated_units_replicate_past_a_rack_and_past_one_benchmarks_clients():
    assert disagg_units(72, 72, 8, 1_000) == [72]
    assert disagg_units(144, 72, 8, 1_000) == [72]  # one NVL72 rack a unit, its KV over NVLink
    assert disagg_units(144, 72, 80, 1_000) == [144]  # unless one worker a side needs more
    # a unit of the whole budget would need 200,000 clients: 256 GPUs need under 65,536; an HGX
    # board's 8 GPUs are a unit too, and balance too coarsely to drop the whole budget's
    assert disagg_units(1024, 8, 8, 200_000) == [1024, 256, 8]
    # each rack of two would need 100,000: split in two
    assert disagg_units(144, 72, 8, 200_000) == [72, 36]
    assert disagg_units(16, 8, 12, 200_000) == [16]  # no unit smaller than one worker a side


def test_a_larger_budget_never_serves_fewer_tokens_per_gpu_disaggregated():
    # Llama-3.1-70B fp8 1,024/1,024 on H200 under TensorRT-LLM: one xPyD unit of 1,024 GPUs needs
    # more clients than a benchmark's 65,536 to fill its decode workers; capped there it made
    # 1,767 tok/s/GPU against 2,370 on 256 GPUs. Four replicas of a 256-GPU unit serve its rate.
    model, hw = load_model("meta-llama/Llama-3.1-70B"), get_accelerator("h200-sxm")

    def best(gpus: int) -> dict:
        req = PlanRequest(gpus=gpus, modes=("disaggregated",), backends=("trtllm",), precisions=("fp8",))
        return plan(model, [hw], req)["best"]

    small, large = best(256), best(1024)
    rate = "output_tokens_per_s_per_gpu"
    assert large["estimate"][rate] >= 0.99 * small["estimate"][rate]
    assert large["replicas"] > 1 and large["gpus"] <= 1024
    body = large["serving_request"]  # one unit: its concurrency is the unit's, the answer's all units'
    units = large["replicas"]
    assert large["concurrency"] == units * body["concurrency"] == units * large["instance_concurrency"]
    assert _serve(body)["estimate"][rate] == pytest.approx(large["estimate"][rate], rel=1e-12)
    counts = {cmd["role"]: cmd["count"] for cmd in large["launch"]}
    d = body["disaggregated"]
    assert counts == {
        "prefill": large["replicas"] * d["prefill"]["workers"],
        "decode": large["replicas"] * d["decode"]["workers"],
        "router": large["replicas"],
    }


def test_ranked_by_cost_the_other_mode_is_compared_by_cost():
    # With a price for every accelerator the best is the cheapest per Mtok, and the other mode is
    # set beside it on the same scale: its $/Mtok over the best's, never a tokens/s ratio.
    model, hws = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5"), get_accelerator("h200-sxm")]
    req = PlanRequest(gpus=8, tpot_s=0.03, backends=("vllm",), precisions=("fp8",),
                      gpu_hour_price={"h100-sxm5": 2.0, "h200-sxm": 3.5})  # fmt: skip
    answer = plan(model, hws, req)
    said, best = answer["verdict"], answer["best"]
    assert said["ranked_by"] == "usd_per_million_tokens"
    other = answer["best_by_mode"]["disaggregated" if best["mode"] == "aggregated" else "aggregated"]
    ratio = other["usd_per_million_tokens"] / best["usd_per_million_tokens"]
    assert said["ratio_other_mode"] == pytest.approx(ratio, rel=1e-12) and ratio >= 1.0
    assert f"costs {ratio:.2f}x as much per Mtok" in said["text"] and "reaches" not in said["text"]


def test_one_mode_searched_says_nothing_of_the_other_and_times_read_in_ms():
    model, hw = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")]
    answer = plan(model, hw, PlanRequest(gpus=2, modes=("aggregated",), backends=("vllm",), precisions=("fp8",)))
    assert answer["modes_searched"] == ["aggregated"] and "disaggregated" not in answer["verdict"]["text"]
    both = plan(model, hw, PlanRequest(gpus=1, backends=("vllm",), precisions=("fp8",), modes=("aggregated",)))
    assert "meets the target" not in both["verdict"]["text"]  # no target was asked
    # a TTFT target alone, out of reach: its nearest is said in ms, grouped, with no TPOT asked
    far = plan(model, hw, PlanRequest(gpus=1, ttft_s=1e-6, backends=("vllm",), precisions=("fp8",)))
    words = far["reason"]["words"]
    assert "e+" not in words and "asked TPOT" not in words
    assert f"{far['reason']['nearest']['ttft_s_at_asked_tpot'] * 1e3:.3g} ms" in words


def test_an_aggregated_instance_whose_prompts_set_the_pace_says_so():
    # 32,000 tokens in and 4 out: a request waits seconds for its first token and streams the
    # other 3 in a tenth of that; at 1,024 in and out it streams for far longer than it waits
    model, hw = load_model("meta-llama/Llama-3.1-70B"), get_accelerator("h100-sxm5")
    kw = dict(gpus=8, modes=("aggregated",), backends=("vllm",), precisions=("fp8",))
    long_prompt = plan(model, [hw], PlanRequest(input_tokens=32_000, output_tokens=4, **kw))["best"]
    assert long_prompt["limited_by"] == "prefill"
    assert long_prompt["estimate"]["ttft_s"] > 3 * long_prompt["estimate"]["tpot_s"]
    chat = plan(model, [hw], PlanRequest(input_tokens=1024, output_tokens=1024, **kw))["best"]
    assert chat["limited_by"] == "decode"


def test_with_one_output_token_the_tpot_target_is_not_applied():
    """No token follows the first: the candidates are held to the TTFT target alone, and the
    verdict says so. An aggregated instance's TPOT at one output token is its whole step."""
    model, hw = get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")]
    one = plan(model, hw, PlanRequest(gpus=8, output_tokens=1, tpot_s=0.05, ttft_s=2.0, precisions=("fp8",)))
    ttft_only = plan(model, hw, PlanRequest(gpus=8, output_tokens=1, ttft_s=2.0, precisions=("fp8",)))
    assert one["tpot_target_applied"] is False and one["targets"]["tpot_s"] == 0.05
    assert one["candidates"]["meeting_target"] == ttft_only["candidates"]["meeting_target"]
    assert one["best"]["serving_request"] == ttft_only["best"]["serving_request"]
    assert one["best"]["mode"] == "aggregated" and one["best"]["estimate"]["tpot_s"] > 0.05
    assert one["verdict"]["text"].endswith("the TPOT target is not applied.")


def test_a_disaggregated_deployment_two_unit_sizes_balance_alike_is_scored_once():
    """The 72 GPUs and the 8-GPU board can balance a prefill and decode layout to the same xPyD
    pair: it was scored twice and listed twice in the top N."""
    req = PlanRequest(gpus=72, top=100, modes=("disaggregated",), backends=("vllm",), precisions=("fp8",))
    answer = plan(get_model("deepseek-v2-lite"), [get_accelerator("mi300x")], req)
    top = answer["top"]
    assert len(top) > 20 and len({_deployment(c) for c in top}) == len(top)
    rows = {(c["layout_words"], c["replicas"], c["concurrency"]) for c in answer["frontier"]["disaggregated"]}
    assert len(rows) == len(answer["frontier"]["disaggregated"])


def test_one_gpu_searches_the_aggregated_mode_alone_and_says_nothing_of_the_other():
    answer = plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], PlanRequest(gpus=1, tpot_s=0.05))
    assert answer["modes_searched"] == ["aggregated"] and answer["best"]["mode"] == "aggregated"
    assert "disaggregated" not in answer["verdict"]["text"]


def test_the_answer_warns_of_what_every_candidate_assumes():
    """/serving warned of these for each candidate re-asked; the plan said nothing."""
    long = plan(get_model("llama-3.1-70b"), [get_accelerator("h200-sxm")],
                PlanRequest(gpus=8, input_tokens=1_048_576, output_tokens=1024, precisions=("fp8",)))  # fmt: skip
    assert any("exceed llama-3.1-70b's context window of 131,072 tokens" in w for w in long["warnings"])
    assert any("outside the lengths the estimate was fitted on" in w for w in long["warnings"])
    served = _serve(long["best"]["serving_request"])
    assert set(long["warnings"]) <= set(served["warnings"])
    fp4 = plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], PlanRequest(gpus=8, precisions=("fp4",)))
    assert fp4["warnings"] == [w for w in _serve(fp4["best"]["serving_request"])["warnings"] if "tensor roof" in w]
    assert fp4["warnings"] and "h100-sxm5 has no fp4 tensor roof" in fp4["warnings"][0]
    plain = plan(get_model("llama-3.1-8b"), [get_accelerator("h100-sxm5")], PlanRequest(gpus=8, precisions=("fp8",)))
    assert plain["warnings"] == []
