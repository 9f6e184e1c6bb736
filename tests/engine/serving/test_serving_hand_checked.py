"""Serving bound numbers checked by hand: one dense, one MoE, one MLA, one hybrid-linear and one
sparse-attention model. At concurrency 1 nothing interleaves (no other request's prompt), so the
TPOT bound is one decode step of one token: at batch 1 every op is memory-bound, and the step
reads the weights the token touches plus its cache, at the datasheet bandwidth."""

import pytest

from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate

H100_BW = 3.352e12  # hardware/h100-sxm5.yaml
B200_BW = 7.7e12  # hardware/b200.yaml


def answer(model_id: str, hw: str, **kw) -> dict:
    return serving_estimate(get_model(model_id), get_accelerator(hw), ServingScenario(**kw))


def test_dense_llama_8b_one_request_on_h100():
    # 8,030,261,248 parameters x 2 bytes less the embedding table (a gather of one row, not a
    # read of 128,256 x 4,096); KV 32 layers x 2 x 8 heads x 128 x 2 bytes = 131,072 B per token at
    # the mean context 1000 + 2000 / 2 = 2000 tokens. Activations add well under 1%.
    r = answer("llama-3.1-8b", "h100-sxm5", concurrency=1, input_tokens=1000, output_tokens=2000)
    by_hand = ((8_030_261_248 - 128_256 * 4096) * 2 + 131_072 * 2000) / H100_BW  # 4.556 ms
    assert r["bound"]["tpot_s"] == pytest.approx(by_hand, rel=0.01)
    assert r["breakdown"]["tpot"]["bound"]["prefill_share_s"] == 0.0
    assert r["breakdown"]["memory"]["kv_bytes_per_request_per_gpu"] == 131_072 * 2000
    # TTFT bound: 1000 prompt tokens, 2 FLOP per parameter each (the embedding is a gather, the
    # LM head runs for the last token only) at the bf16 roof 989.4 TFLOP/s, plus causal attention:
    # 32 layers x 32 heads x 2 x 2 x 128 FLOP x 500,500 pairs. Norms, RoPE, SwiGLU and residual
    # adds are memory-bound and run back to back with the GEMMs: per layer about 1000 tokens x
    # (14,336 x 3 + 4,096 x 14 + 5,120 x 2) values x 2 bytes = 0.22 GB, 7 GB over 32 layers.
    table = 128_256 * 4096
    flops = 2 * (8_030_261_248 - 2 * table) * 1000 + 2 * table + 32 * 32 * 4 * 128 * 500_500
    elementwise = 32 * 1000 * (14_336 * 3 + 4096 * 14 + 5120 * 2) * 2
    assert r["bound"]["ttft_s"] == pytest.approx(flops / 989.4e12 + elementwise / H100_BW, rel=0.05)


def test_moe_qwen3_235b_one_request_tp8_ep8():
    # Per GPU and layer (fp8, 1 byte per parameter): q_proj 4096 x 8 heads x 128 and o_proj the
    # same (64 heads / 8); k_proj and v_proj 4096 x 128 each: 4 KV heads over 8 GPUs, so each GPU
    # keeps one (replicated); the router 4096 x 128 (replicated); one token routes to 8 of 128
    # experts, 3 x 4096 x 1536 each, spread over 8 GPUs (expert parallel 8). Once per step: the
    # LM head's 151,936 / 8 rows of 4096. KV: 94 layers x 2 x 1 head x 128 B per token.
    ctx = 1024 + 512
    per_layer = 2 * 4096 * 8 * 128 + 2 * 4096 * 128 + 4096 * 128 + 8 * 3 * 4096 * 1536 / 8
    by_hand = (94 * per_layer + 151_936 / 8 * 4096 + 94 * 2 * 128 * ctx) / H100_BW  # 0.843 ms
    r = answer(
        "qwen3-235b-a22b", "h100-sxm5", concurrency=1, input_tokens=1024, output_tokens=1024,
        tensor_parallel=8, moe_tensor_parallel=1, expert_parallel=8,
        weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8",
    )  # fmt: skip
    parts = r["breakdown"]["tpot"]["bound"]
    assert parts["decode_s"] == pytest.approx(by_hand, rel=0.01)  # norms and activations: the rest
    # two all-reduces per layer of one token's 4096 x 2 bytes over NVLink 450 GB/s, ring 2 x 7/8
    assert parts["communication_s"] == pytest.approx(2 * 94 * 4096 * 2 * 2 * 7 / 8 / 450e9, rel=1e-6)
    experts_all = 94 * 128 * 3 * 4096 * 1536
    model = get_model("qwen3-235b-a22b")
    stored = (model.num_params - experts_all) / 8 + experts_all / 8
    assert r["breakdown"]["memory"]["weights_bytes_per_gpu"] == pytest.approx(stored, rel=0.02)


def test_mla_deepseek_r1_cache_and_weights_on_b200():
    # MLA caches one latent of 512 + 64 values per token and layer, shared by every head, so
    # each of the 8 tensor-parallel GPUs keeps all of it: 61 x 576 x 1 byte (fp8) per token.
    ctx = 2048 + 1024
    r = answer(
        "deepseek-r1", "b200", concurrency=1, input_tokens=2048, output_tokens=2048,
        tensor_parallel=8, moe_tensor_parallel=1, expert_parallel=8,
        weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8",
    )  # fmt: skip
    assert r["breakdown"]["memory"]["kv_bytes_per_request_per_gpu"] == 61 * 576 * ctx
    # One token touches 8 of 256 routed experts in each of the 58 MoE layers (3 x 7168 x 2048
    # each), spread over 8 GPUs. The low-rank down-projections q_a (7168 x 1536) and kv_a
    # (7168 x 576) do not depend on the heads: every GPU keeps them whole. Everything else (671.0 B
    # total less the routed experts, those projections and the embedding, a gather) splits 8 ways.
    expert = 3 * 7168 * 2048
    down = 61 * 7168 * (1536 + 576)
    rest = 671_026_419_200 - 58 * 256 * expert - down - 129_280 * 7168
    weights_read = rest / 8 + down + 58 * 8 * expert / 8
    assert r["breakdown"]["tpot"]["bound"]["decode_s"] == pytest.approx(
        (weights_read + 61 * 576 * ctx) / B200_BW, rel=0.03
    )


def test_hybrid_linear_qwen35_state_does_not_grow_with_context():
    # Gated DeltaNet layers keep a fixed state per sequence: only the 15 full-attention layers
    # (every 4th of 60) grow with the context. Doubling the context adds exactly their KV.
    model = get_model("qwen3.5-397b-a17b")
    full = [layer for layer in model.layers if layer.attention.kind == "full"]
    kv_per_token = sum(2 * layer.attention.num_kv_heads * layer.attention.head_dim for layer in full)
    kw = dict(concurrency=1, output_tokens=2, tensor_parallel=8, moe_tensor_parallel=1, expert_parallel=8,
              weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    short = answer("qwen3.5-397b-a17b", "b200", input_tokens=4095, **kw)
    long = answer("qwen3.5-397b-a17b", "b200", input_tokens=8191, **kw)
    kv_heads_per_gpu = max(1, full[0].attention.num_kv_heads // 8)
    per_gpu = kv_per_token // full[0].attention.num_kv_heads * kv_heads_per_gpu
    grow = (
        long["breakdown"]["memory"]["kv_bytes_per_request_per_gpu"]
        - short["breakdown"]["memory"]["kv_bytes_per_request_per_gpu"]
    )
    assert grow == pytest.approx(per_gpu * 4096, rel=1e-9)
    dt = long["breakdown"]["tpot"]["bound"]["decode_s"] - short["breakdown"]["tpot"]["bound"]["decode_s"]
    assert dt == pytest.approx(per_gpu * 4096 / B200_BW, rel=0.05)


def test_sparse_attention_glm5_reads_at_most_top_k():
    # DeepSeek Sparse Attention: past the top-k, a longer context adds only the indexer's
    # reads of its cached keys, not the attention's reads of the latent.
    model = get_model("glm-5")
    att = next(layer.attention for layer in model.layers if layer.attention.is_sparse)
    kw = dict(concurrency=1, output_tokens=2, tensor_parallel=8, moe_tensor_parallel=1, expert_parallel=8,
              weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    a = answer("glm-5", "b200", input_tokens=att.index_topk * 4, **kw)
    b = answer("glm-5", "b200", input_tokens=att.index_topk * 8, **kw)
    extra_tokens = att.index_topk * 4
    latent = (att.kv_lora_rank + att.qk_rope_head_dim) * 1.0
    dt = b["breakdown"]["tpot"]["bound"]["decode_s"] - a["breakdown"]["tpot"]["bound"]["decode_s"]
    # far less than reading the latent of every added token in every layer
    assert dt < 0.5 * model.num_layers * latent * extra_tokens / B200_BW
    assert dt > 0


def test_expert_dispatch_sends_a_token_once_per_gpu_and_once_per_other_node():
    """DeepSeek-R1 (k = 8 of 256 experts, hidden 7,168) under attention DP with its experts over
    g GPUs: a token goes once to each GPU holding any of its experts and once to each other node
    holding any (DeepEP). Uniform routing: over 8 GPUs of one board, 7 x (1 - (7/8)^8) = 4.595
    copies, not 8 x 7/8 = 7; over 16 GPUs on two boards, 7 x (1 - (15/16)^8) = 2.823 copies on
    NVLink and 1 - (1/2)^8 = 0.996 over the 50 GB/s NIC, which sets the pace. Each copy is
    7,168 x (1 byte fp8 dispatch + 2 bytes combine)."""
    from engine.serving.step import SCALE_OUT_BYTES_PER_S, _alltoall_s

    token = 7168 * 3
    nvlink = 900e9
    one_board = 7 * (1 - (7 / 8) ** 8)
    assert one_board == pytest.approx(4.595, abs=1e-3)
    assert _alltoall_s(token, 100, 8, 8, 8, nvlink) == pytest.approx(one_board * 100 * token / nvlink)
    across = 1 - 0.5**8
    assert across == pytest.approx(0.996, abs=1e-3)
    assert 7 * (1 - (15 / 16) ** 8) * token / nvlink < across * token / SCALE_OUT_BYTES_PER_S
    assert _alltoall_s(token, 100, 8, 16, 8, nvlink) == pytest.approx(across * 100 * token / SCALE_OUT_BYTES_PER_S)
    # A lone request's decode step sends its one token per MoE layer (58 of DeepSeek-R1's 61)
    # at the link the card's file gives.
    b200 = get_accelerator("b200")
    kw = dict(concurrency=1, attention_data_parallel=8, expert_parallel=8, weight_dtype="fp8",
              compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    r = serving_estimate(get_model("deepseek-r1"), b200, ServingScenario(**kw))
    per_direction = b200.link_bandwidth()[1]
    assert r["breakdown"]["tpot"]["bound"]["communication_s"] == pytest.approx(
        58 * one_board * 1 * token / per_direction, rel=1e-6
    )


def test_throughput_counts_the_prompt_a_closed_loop_client_waits_for():
    """A client of a fixed-concurrency benchmark sends its next request when the last one ends:
    one request takes TTFT + (output - 1) x TPOT, so C clients get C x output tokens per that
    (Little's law). A 32,000-token prompt with 4 tokens out spends nearly all of it in prefill;
    the decode steps' own rate, running / TPOT, would say 29x more."""
    kw = dict(concurrency=1, input_tokens=32_000, output_tokens=4, backend="vllm",
              weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    r = answer("llama-3.1-70b", "h100-sxm5", **kw)
    for side in ("bound", "estimate"):
        s = r[side]
        closed_loop = 4 / (s["ttft_s"] + 3 * s["tpot_s"])
        # the bound's own steps, the prompt merged into 4 decode steps, are the same work to 0.1%
        assert s["output_tokens_per_s_per_gpu"] == pytest.approx(closed_loop, rel=1e-3)
    step = r["breakdown"]["rate_step_s"]["bound"]
    assert r["bound"]["output_tokens_per_s_per_gpu"] == pytest.approx(
        min(1 / step, 4 / (3.1776 + 3 * 0.022315)), rel=1e-4
    )
    e = r["estimate"]
    assert 1 / e["tpot_s"] / e["output_tokens_per_s_per_gpu"] > 25
    # a long output hides the wait: the closed loop approaches running / TPOT
    long = answer("llama-3.1-70b", "h100-sxm5", **(kw | {"input_tokens": 100, "output_tokens": 8000}))["estimate"]
    assert long["output_tokens_per_s_per_gpu"] == pytest.approx(1 / long["tpot_s"], rel=0.01)


def test_a_long_prompt_with_a_short_output_waits_iterations_not_output_tokens():
    """Llama-3.1-70B fp8 on 8 H100 under vLLM, 64 clients, 16,000 tokens in. With 16 out, each
    output token's step carries 63 / 16 prompts: 63,000 tokens, 7.7 budgets of 8,192, so one
    TPOT spans that many scheduler iterations and the first token's fitted wait counts
    iterations (TPOT / 7.7). With 1 out, every step holds every other prompt and the closed loop
    sets the first token: 64 clients at running / TPOT requests/s wait one TPOT each (Little's
    law), and the throughput is the steps' own with every prompt in them, the 64th too: running
    per the step carrying 64 prompts, not the 63 a request's TPOT carries."""
    kw = dict(concurrency=64, tensor_parallel=8, input_tokens=16_000, backend="vllm",
              weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    from engine.serving.step import serving_steps

    model, hw = get_model("llama-3.1-70b"), get_accelerator("h100-sxm5")
    steps = serving_steps(model, hw, ServingScenario(**kw, output_tokens=16), 64)
    assert float(steps.steps_per_token[0]) == pytest.approx(63 / 16 * 16_000 / 8192, rel=1e-12)
    short = answer("llama-3.1-70b", "h100-sxm5", **kw, output_tokens=16)
    assert short["estimate"]["ttft_s"] < 2 * short["estimate"]["tpot_s"]
    r1 = answer("llama-3.1-70b", "h100-sxm5", **kw, output_tokens=1)
    one = r1["estimate"]
    assert one["ttft_s"] == pytest.approx(one["tpot_s"], rel=1e-12)
    assert one["output_tokens_per_s_per_gpu"] == pytest.approx(64 / one["tpot_s"] / 8, rel=1e-12)
    # the bound's steps carry all 64 prompts, one more than the 63 a request's TPOT carries
    b, step = r1["bound"], r1["breakdown"]["rate_step_s"]["bound"]
    assert step / b["tpot_s"] == pytest.approx(64 / 63, rel=0.01)
    assert b["output_tokens_per_s_per_gpu"] == pytest.approx(64 / step / 8, rel=1e-12)


def test_requests_queued_for_memory_wait_for_the_prompts_ahead_of_them_too():
    """Qwen3-32B in bf16 on one H100 with 32,768 tokens in and 256 out: the memory holds one
    request, so one slot serves them in turn, each its prompt's forward then 256 decode steps.
    A queued request waits for every request ahead of it, prompt and output: (C - 1) x (256 x
    TPOT + the prompt), the prompt at its FLOPs alone in the bound. Counting the output alone,
    the bound's rate climbed from 28.6 tok/s at one client to 46 at 256, faster than the one slot
    can go."""
    kw = dict(tensor_parallel=1, input_tokens=32_768, output_tokens=256)
    one = answer("qwen3-32b", "h100-sxm5", concurrency=1, **kw)
    many = answer("qwen3-32b", "h100-sxm5", concurrency=256, **kw)
    assert one["running_batch"] == many["running_batch"] == 1
    from engine.serving.step import serving_steps

    steps = serving_steps(get_model("qwen3-32b"), get_accelerator("h100-sxm5"), ServingScenario(**kw), 1)
    prompt_flops_s = float(steps.prefill.compute_only_s()[0])
    b = many["bound"]
    by_hand = float(steps.prefill.at_roofs_s()[0]) + 255 * (256 * b["tpot_s"] + prompt_flops_s)
    assert b["ttft_s"] == pytest.approx(by_hand, rel=1e-9)
    one_slot = 256 / (256 * b["tpot_s"] + prompt_flops_s)  # what a slot gives with clients waiting
    assert b["output_tokens_per_s_per_gpu"] <= one_slot
    assert b["output_tokens_per_s_per_gpu"] <= 1.03 * one["bound"]["output_tokens_per_s_per_gpu"]


def test_lengths_outside_the_fitted_runs_are_said():
    # the calibration records the lengths its runs span (100 to 8,192 tokens out); a handful of
    # output tokens is far outside them, and the answer says so in its own words
    inside = answer("qwen3-32b", "b200", concurrency=2, tensor_parallel=2, input_tokens=8192, output_tokens=1024)
    assert not any("outside the lengths" in w for w in inside["warnings"])
    short = answer("qwen3-32b", "b200", concurrency=2, tensor_parallel=2, input_tokens=8192, output_tokens=1)
    said = [w for w in short["warnings"] if "outside the lengths" in w]
    assert len(said) == 1 and said[0].startswith("output_tokens 1 (the fitted runs hold 100 to 8,192)")
    # the bound's rate at 2 clients counts both prompts: no faster than one prompt after another
    lone = answer("qwen3-32b", "b200", concurrency=1, tensor_parallel=2, input_tokens=8192, output_tokens=1)
    assert short["bound"]["output_tokens_per_s_per_gpu"] <= 1.05 * lone["bound"]["output_tokens_per_s_per_gpu"]
