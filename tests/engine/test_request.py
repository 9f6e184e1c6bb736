"""One request end to end (engine/request.py): hand computations, the exact closed-form sum
against a step-by-step sum, the throughput-interactivity curve and the input checks."""

import numpy as np
import pytest

from engine.analysis import Scenario, analyze_one
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.request import attach_requests, request_block, throughput_interactivity
from engine.sweep import decode_sweep

H100 = get_accelerator("h100-sxm5")
H200 = get_accelerator("h200-sxm")
# 2 (K, V) x 8 KV heads x 128 head dim x 32 layers x 2 B (Llama-3-8B config.json): 131,072 B per token
KV_PER_TOKEN = 2 * 8 * 128 * 32 * 2


def _hand(model_id, hw, context, output_tokens, price):
    """At batch 1 every op of a decode step is memory-bound (I ~ 1), so each extra cached token
    adds exactly its KV bytes to the step: step(T + i) = step(T) + i x 131,072 B / bandwidth.
    Sum of N steps = N x step(T) + 131,072 x N(N-1)/2 / bandwidth."""
    r = analyze_one(get_model(model_id), hw, Scenario(batch_size=1, context_length=context))
    assert all(op["bound"] == "memory" for op in r["decode"]["ops"])
    bw = hw.memory_bandwidth_bytes_per_s
    n = output_tokens
    steps = n * r["decode"]["time_s"] + KV_PER_TOKEN * n * (n - 1) / 2 / bw
    ttft = r["prefill"]["time_s"]
    e2e = ttft + steps
    return {
        "ttft_s": ttft,
        "tpot_s": steps / n,
        "e2e_s": e2e,
        "output_tokens_per_s_per_sequence": n / steps,
        "output_tokens_per_s": n / e2e,
        "cost_per_million_output_tokens": price * e2e / 3600 / n * 1e6,
        "step0_bytes": r["decode"]["bytes"],
    }


@pytest.mark.parametrize("model_id, hw", [("llama-3-8b", H100), ("mixtral-8x7b", H200)])
def test_request_block_matches_hand_computation(model_id, hw):
    """Dense (Llama-3-8B on H100) and MoE (Mixtral-8x7B on H200, 2 of 8 experts read at batch 1):
    1,000-token prompt, 256 output tokens, USD 2.50 per GPU-hour. Exact up to float rounding."""
    hand = _hand(model_id, hw, 1000, 256, 2.5)
    block = request_block(get_model(model_id), hw, Scenario(batch_size=1, context_length=1000), 256, 2.5)
    for key in (
        "ttft_s",
        "tpot_s",
        "e2e_s",
        "output_tokens_per_s_per_sequence",
        "output_tokens_per_s",
        "cost_per_million_output_tokens",
    ):
        assert block[key] == pytest.approx(hand[key], rel=1e-9), key
    # and the first step reads what the weights say: 2 bytes x the active parameters (Mixtral:
    # 2 of 8 experts) less the embedding table (a gather of one row), plus 1,000 cached tokens
    # of KV. Llama: 2 x (8.03e9 - 0.525e9) + 0.131e9 = 15.1e9 B. Tol 1% (norms, activations).
    model = get_model(model_id)
    expected = 2 * (model.num_active_params - model.embedding_params) + 1000 * KV_PER_TOKEN
    assert hand["step0_bytes"] == pytest.approx(expected, rel=0.01)
    assert block["tpot_s"] > analyze_one(get_model(model_id), hw, Scenario(context_length=1000))["decode"]["time_s"]


def test_worked_example_llama3_8b_h100():
    """Llama-3-8B, 1,000 + 256 tokens at batch 1 on H100 SXM5 (3.352 TB/s): the first step reads
    ~15.1 GB -> 4.51 ms; the cache grows by 131,072 B a token, so the mean step is 4.51 ms + 127.5 x
    131,072 / 3.352e12 = +5 µs; cost at USD 2.50/GPU-hour ~ USD 3.2 per million tokens. Tol 2%."""
    block = request_block(get_model("llama-3-8b"), H100, Scenario(batch_size=1, context_length=1000), 256, 2.5)
    assert block["tpot_s"] == pytest.approx(4.52e-3, rel=0.02)
    assert block["tpot_s"] * 1e3 - 4.51 == pytest.approx(127.5 * 131072 / 3.352e12 * 1e3 + 0.0, abs=0.02)
    assert block["cost_per_million_output_tokens"] == pytest.approx(2.5 * block["e2e_s"] / 3600 / 256 * 1e6, rel=1e-12)
    assert 3.0 < block["cost_per_million_output_tokens"] < 3.4


@pytest.mark.parametrize(
    "model_id, scenario, n",
    [
        ("llama-3-8b", Scenario(batch_size=32, context_length=4096), 777),
        ("llama-3-8b", Scenario(batch_size=512, context_length=512, flash_attention=False), 300),
        ("mixtral-8x7b", Scenario(batch_size=8, context_length=1000, tensor_parallel=2), 500),
        ("gemma-2-9b", Scenario(batch_size=64, context_length=3000), 3000),  # crosses the 4096 window
        ("gpt-oss-20b", Scenario(batch_size=4, context_length=100, weight_dtype="fp4"), 400),  # 128-token windows
        ("deepseek-v2-lite", Scenario(batch_size=16, context_length=2000), 300),  # MLA + MoE
    ],
)
def test_closed_form_equals_step_by_step_sum(model_id, scenario, n):
    """The closed form (piecewise-linear per op, split at windows and compute/memory crossings)
    equals summing every step's bound one by one (engine.sweep over contexts T .. T+N-1). Tol 1e-9."""
    model = get_model(model_id)
    block = request_block(model, H100, scenario, n)
    contexts = np.arange(scenario.context_length, scenario.context_length + n)
    brute = decode_sweep(model, H100, scenario, context_lengths=contexts)["time_s"].sum()
    assert block["decode_time_s"] == pytest.approx(brute, rel=1e-9)
    assert block["tpot_s"] == pytest.approx(brute / n, rel=1e-9)
    assert block["ttft_s"] == pytest.approx(analyze_one(model, H100, scenario)["prefill"]["time_s"], rel=1e-12)


def test_crossing_from_memory_to_compute_bound_inside_the_request():
    """Without FlashAttention at a large batch the scores ops change regime as the cache grows;
    the sum still matches step by step (a case where 'last step x N' would be far off)."""
    model, scenario, n = get_model("llama-3-8b"), Scenario(batch_size=256, context_length=16), 2000
    block = request_block(model, H100, scenario, n)
    steps = decode_sweep(model, H100, scenario, context_lengths=np.arange(16, 16 + n))["time_s"]
    assert block["decode_time_s"] == pytest.approx(steps.sum(), rel=1e-9)
    assert block["tpot_s"] < 0.9 * steps[-1]


def test_cost_falls_as_batch_grows_and_tpot_rises():
    curve = throughput_interactivity(
        get_model("llama-3-8b"), H100, Scenario(context_length=2048), 512, gpu_hour_price=2.0
    )
    cost = curve["cost_per_million_output_tokens"]
    assert curve["batch_size"][0] == 1 and len(curve["batch_size"]) > 20
    assert np.all(np.diff(cost) < 0)
    assert np.all(np.diff(curve["tpot_s"]) > 0)
    assert np.all(np.diff(curve["output_tokens_per_s_per_gpu"]) > 0)
    assert np.allclose(curve["output_tokens_per_s_per_sequence"], 1 / curve["tpot_s"])


def test_curve_ends_at_the_largest_batch_that_fits_the_whole_request():
    """The curve runs to the largest batch whose cache still fits at the request's last step."""
    model, scenario = get_model("llama-3-8b"), Scenario(context_length=4096)
    curve = throughput_interactivity(model, H100, scenario, 1024)
    top = int(curve["batch_size"][-1])
    last = analyze_one(model, H100, Scenario(batch_size=top, context_length=4096 + 1023))["memory"]
    assert last["fits"] and last["max_batch_size"] == top
    block = request_block(model, H100, Scenario(batch_size=top + 1, context_length=4096), 1024)
    assert not block["fits_at_end"]


def test_curve_without_output_tokens_is_the_decode_sweep():
    model, scenario = get_model("qwen3-30b-a3b"), Scenario(context_length=1024, tensor_parallel=2)
    curve = throughput_interactivity(model, H100, scenario, batch_sizes=[1, 16, 256])
    sweep = decode_sweep(model, H100, scenario, batch_sizes=[1, 16, 256])
    assert np.allclose(curve["tpot_s"], sweep["time_s"], rtol=1e-12)
    assert np.allclose(curve["output_tokens_per_s_per_gpu"], sweep["tokens_per_s"] / 2, rtol=1e-12)


def test_tensor_parallel_cost_counts_every_gpu():
    model = get_model("llama-3-70b")
    block = request_block(model, H100, Scenario(batch_size=8, context_length=1000, tensor_parallel=4), 100, 3.0)
    assert block["cost_per_million_output_tokens"] == pytest.approx(3.0 * 4 * block["e2e_s"] / 3600 / 800 * 1e6)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"output_tokens": 0}, "output_tokens"),
        ({"output_tokens": True}, "output_tokens"),
        ({"output_tokens": 17_000_000}, "output_tokens"),
        ({"output_tokens": 2.5}, "output_tokens"),
        ({"output_tokens": 10, "gpu_hour_price": 0}, "gpu_hour_price"),
        ({"output_tokens": 10, "gpu_hour_price": float("nan")}, "gpu_hour_price"),
        ({"output_tokens": 10, "gpu_hour_price": -1.0}, "gpu_hour_price"),
    ],
)
def test_bad_inputs_name_the_field(kwargs, field):
    with pytest.raises(EngineInputError) as err:
        request_block(get_model("llama-3-8b"), H100, Scenario(), kwargs["output_tokens"], kwargs.get("gpu_hour_price"))
    assert err.value.field == field


def test_price_without_output_tokens_is_refused_and_no_tokens_no_block():
    analysis = {"results": [{}]}
    assert "request" not in attach_requests(analysis, get_model("llama-3-8b"), [H100], Scenario(), None)["results"][0]
    with pytest.raises(EngineInputError, match="gpu_hour_price"):
        attach_requests(analysis, get_model("llama-3-8b"), [H100], Scenario(), None, 2.0)
    assert request_block(get_model("llama-3-8b"), H100, Scenario(), 5)["cost_per_million_output_tokens"] is None


# ---- memory_utilization --------------------------------------------------------------------


def test_memory_utilization_defaults_to_vllms_0_9():
    """The default is vLLM's gpu_memory_utilization default, 0.9, in the engine, the API
    schema and the CLI: a serving engine never lets the KV cache fill the whole card."""
    from app.api.schemas import AnalyzeRequest
    from app.cli import build_parser
    from engine.analysis import DEFAULT_MEMORY_UTILIZATION

    assert DEFAULT_MEMORY_UTILIZATION == 0.9
    assert Scenario().memory_utilization == 0.9
    assert AnalyzeRequest(model="llama-3-8b", hardware=["h100-sxm5"]).scenario().memory_utilization == 0.9
    args = build_parser().parse_args(["analyze", "--model", "llama-3-8b", "--hardware", "h100-sxm5"])
    assert args.memory_utilization == 0.9
    memory = analyze_one(get_model("llama-3-8b"), H100, Scenario(context_length=4096))["memory"]
    assert memory["usable_bytes"] == pytest.approx(0.9 * 80 * 2**30) and memory["max_batch_size"] == 113


def test_memory_utilization_scales_every_memory_answer():
    """vLLM's default 0.9: fits, max batch, max context and min TP use capacity x 0.9; the
    capacity itself is still reported whole. Llama-3-8B 4K on H100 (80 GiB): max batch 129 at
    1.0, (0.9 x 85.9e9 - 16.06e9) / 537.3e6 = 113.99 -> 113 at 0.9."""
    from engine.memory import max_batch_size

    model = get_model("llama-3-8b")
    full = analyze_one(model, H100, Scenario(batch_size=120, context_length=4096, memory_utilization=1.0))["memory"]
    part = analyze_one(model, H100, Scenario(batch_size=120, context_length=4096, memory_utilization=0.9))["memory"]
    assert full["capacity_bytes"] == part["capacity_bytes"] == 80 * 2**30
    assert full["usable_bytes"] == 80 * 2**30 and part["usable_bytes"] == pytest.approx(0.9 * 80 * 2**30)
    assert full["fits"] and not part["fits"]
    assert (full["max_batch_size"], part["max_batch_size"]) == (129, 113)
    assert part["max_batch_size"] == max_batch_size(model, 4096, 0.9 * 80 * 2**30, 2.0, 2.0, 16)
    assert part["max_context_length"] < full["max_context_length"]


def test_memory_utilization_can_change_the_smallest_tp():
    """Llama-3-70B in bf16 is 141.1e9 B of weights: it fits one H200 (141 GiB = 151.4e9 B) whole,
    but not 90% of it (136.3e9 B), which needs TP 2."""
    model = get_model("llama-3-70b")
    whole = Scenario(context_length=1024, memory_utilization=1.0)
    assert analyze_one(model, H200, whole)["memory"]["min_tensor_parallel"] == 1
    assert (
        analyze_one(model, H200, Scenario(context_length=1024, memory_utilization=0.9))["memory"]["min_tensor_parallel"]
        == 2
    )


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.01, 2, True, float("nan"), "0.9"])
def test_memory_utilization_out_of_range_is_refused(bad):
    with pytest.raises(EngineInputError) as err:
        Scenario(memory_utilization=bad)
    assert err.value.field == "memory_utilization"


def test_sweep_fits_uses_usable_memory():
    model = get_model("llama-3-8b")
    sweep = decode_sweep(model, H100, Scenario(context_length=4096, memory_utilization=0.9), batch_sizes=[113, 114])
    assert sweep["fits"].tolist() == [True, False]


def test_flops_and_bytes_sums_equal_step_by_step():
    from engine.request import decode_steps_sums

    model, scenario, n = get_model("gemma-2-9b"), Scenario(batch_size=8, context_length=4000), 300
    sums = decode_steps_sums(model, H100, scenario, 8, n)
    sweep = decode_sweep(model, H100, scenario, context_lengths=np.arange(4000, 4000 + n))
    assert sums["flops"] == pytest.approx(sweep["flops"].sum(), rel=1e-9)
    assert sums["bytes"] == pytest.approx(sweep["bytes"].sum(), rel=1e-9)
