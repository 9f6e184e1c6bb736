"""MoE, MLA, sliding windows, tensor parallelism and paged KV: worked numbers and properties.

Each worked number is computed by hand in the docstring from the preset's config.json.
"""

import numpy as np
import pytest

from engine.analysis import Scenario, analyze_one
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.memory import kv_bytes_per_sequence, kv_cache_bytes, memory_budget, min_tensor_parallel
from engine.model_catalog import get_model, preset_records
from engine.sweep import decode_sweep
from engine.transformer import experts_touched

H100 = get_accelerator("h100-sxm5")


def ops_of(result: dict, phase: str = "decode") -> dict:
    return {o["name"]: o for o in result[phase]["ops"]}


@pytest.mark.parametrize(
    "model_id, expected",
    [
        # DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes
        ("deepseek-v3", 61 * (512 + 64) * 2),
        # Mixtral: 32 layers x 2 (K,V) x 8 KV heads x 128 x 2 bytes
        ("mixtral-8x7b", 32 * 2 * 8 * 128 * 2),
        # Mistral-7B: same shape as Mixtral's attention, every layer windowed at 4096
        ("mistral-7b-v0.1", 32 * 2 * 8 * 128 * 2),
        # Gemma-2-9B: 42 layers x 2 x 8 KV heads x head_dim 256 x 2 bytes (before window caps)
        ("gemma-2-9b", 42 * 2 * 8 * 256 * 2),
        # Qwen3-30B-A3B: 48 x 2 x 4 x 128 x 2
        ("qwen3-30b-a3b", 48 * 2 * 4 * 128 * 2),
        # gpt-oss-120b: 36 x 2 x 8 x 64 x 2
        ("gpt-oss-120b", 36 * 2 * 8 * 64 * 2),
        # Qwen3-32B: 64 layers x 2 x 8 KV heads x 128 x 2 bytes = 262,144
        ("qwen3-32b", 64 * 2 * 8 * 128 * 2),
        # DeepSeek-R1 and Kimi-K2.5 (DeepSeek-V3 architecture): 61 x (512 + 64) x 2 = 70,272
        ("deepseek-r1", 61 * (512 + 64) * 2),
        ("kimi-k2.5", 61 * (512 + 64) * 2),
        # MiniMax-M2.5: 62 layers x 2 x 8 KV heads x 128 x 2 bytes = 253,952
        ("minimax-m2.5", 62 * 2 * 8 * 128 * 2),
    ],
)
def test_kv_bytes_per_token_bf16(model_id, expected):
    """Exact integers (models.yaml derived values: 70,272; 131,072; 131,072; 344,064; 98,304; 73,728)."""
    assert get_model(model_id).kv_values_per_token * 2 == expected


def test_gemma2_32k_context_holds_full_kv_only_on_global_layers():
    """Gemma-2-9B at 32,768 tokens: 21 global layers x 8192 B/token x 32768 + 21 local layers x
    8192 x 4096 (their window) = 5.637e9 + 0.705e9 = 6.342e9 bytes, vs 11.27e9 if every layer
    held the full context (the 1.8x overcount of window-blind calculators). Exact."""
    model = get_model("gemma-2-9b")
    per_layer_token = 2 * 8 * 256 * 2
    expected = 21 * per_layer_token * 32768 + 21 * per_layer_token * 4096
    assert kv_bytes_per_sequence(model, 32768, 2.0) == expected
    assert sum(1 for layer in model.layers if layer.attention.kind == "sliding") == 21
    assert model.layers[0].attention.kind == "sliding" and model.layers[1].attention.kind == "full"


def test_gpt_oss_window_128():
    """gpt-oss-120b: 18 sliding layers keep 128 tokens; 18 full layers keep all. At 131,072
    tokens: 18 x 2048 x 131072 + 18 x 2048 x 128 bytes. Exact."""
    model = get_model("gpt-oss-120b")
    assert kv_bytes_per_sequence(model, 131072, 2.0) == 18 * 2048 * 131072 + 18 * 2048 * 128


@pytest.mark.parametrize("model_id", ["mistral-7b-v0.1", "gemma-2-9b", "gpt-oss-120b"])
def test_windowed_kv_stops_growing_past_the_window(model_id):
    model = get_model(model_id)
    window = next(layer.attention.window for layer in model.layers if layer.attention.window)
    full_rate = sum(
        layer.attention.kv_values_per_token() * 2 for layer in model.layers if layer.attention.window is None
    )
    beyond = [kv_bytes_per_sequence(model, window + d, 2.0) for d in (0, 1000, 5000)]
    # past the window only the full-attention layers grow
    assert np.diff(beyond).tolist() == [full_rate * 1000, full_rate * 4000]
    # and decode reads no more than the window on windowed layers: Mistral's step time is flat
    if full_rate == 0:
        sweep = decode_sweep(model, H100, Scenario(batch_size=8), context_lengths=[window, 4 * window])
        assert sweep["time_s"][0] == pytest.approx(sweep["time_s"][1])


def test_mixtral_decode_reads_2_of_8_experts_at_batch_1_and_nearly_all_at_64():
    """Mixtral top-2 of 8: touched experts = 8 x (1 - (6/8)^B): 2.0 at B = 1, 7.9999 at B = 64.
    Expert weights per layer: 8 experts x 3 x 4096 x 14336 x 2 bytes = 2.818e9 bytes; the step's
    expert ops read 2/8 of that at B = 1 (tol 1%: activations add a little) and ~all at B = 64."""
    model = get_model("mixtral-8x7b")
    assert experts_touched(8, 2, 1) == pytest.approx(2.0)
    assert experts_touched(8, 2, 64) == pytest.approx(8.0, rel=1e-6)
    all_expert_weights = 32 * 8 * 3 * 4096 * 14336 * 2
    for batch, fraction in ((1, 2 / 8), (64, 1.0)):
        ops = ops_of(analyze_one(model, H100, Scenario(batch_size=batch, context_length=1024)))
        read = sum(ops[n]["bytes"] for n in ("expert_gate_proj", "expert_up_proj", "expert_down_proj"))
        assert read / all_expert_weights == pytest.approx(fraction, rel=0.01)


@pytest.mark.parametrize("model_id", ["mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-120b"])
def test_moe_decode_bytes_rise_with_batch_and_never_exceed_all_weights(model_id):
    model = get_model(model_id)
    sweep = decode_sweep(model, H100, Scenario(context_length=1), batch_sizes=[1, 2, 4, 16, 64, 256, 4096])
    assert np.all(np.diff(sweep["bytes"]) > 0)
    ops_bytes = [ops_of(analyze_one(model, H100, Scenario(batch_size=b, context_length=1))) for b in (1, 4096)]
    weight_read = [sum(o["bytes"] for n, o in ops.items() if n.startswith("expert_")) for ops in ops_bytes]
    all_experts = sum(
        layer.mlp.num_experts * layer.mlp.expert_params(model.hidden_size) * 2 * n
        for layer, n in model.layer_groups
        if layer.mlp.is_moe
    )
    assert weight_read[0] < 0.3 * all_experts  # k/E <= 2/8 experts at batch 1
    # at 4096 tokens the expert weights are essentially all read; activation bytes come on top
    assert weight_read[1] >= 0.99 * all_experts


def test_moe_flops_use_k_experts():
    """Mixtral decode FLOPs per token in the experts: 2 experts x 3 matrices x 2 x 4096 x 14336
    x 32 layers = 2.255e10, whatever the batch. Exact."""
    for batch in (1, 64):
        ops = ops_of(analyze_one(get_model("mixtral-8x7b"), H100, Scenario(batch_size=batch)))
        flops = sum(ops[n]["flops"] for n in ("expert_gate_proj", "expert_up_proj", "expert_down_proj"))
        assert flops / batch == 2 * 3 * 2 * 4096 * 14336 * 32


def test_prefill_reads_all_experts():
    ops = ops_of(analyze_one(get_model("qwen3-30b-a3b"), H100, Scenario(batch_size=1, context_length=4096)), "prefill")
    experts = 48 * 128 * 3 * 2048 * 768 * 2
    weights_read = ops["expert_up_proj"]["bytes"] * 3  # three equal matrices; activations included
    assert weights_read >= experts


def test_mla_kv_is_a_fraction_of_per_head_kv():
    """DeepSeek-V3 caches 576 values per layer per token. Per-head MHA K and V would be
    128 heads x (192 + 128) = 40,960 (71x); a GQA-8 layout with the same head dims 8 x 320 =
    2,560 (4.4x). MLA is 1/4 to 1/10 of the GQA-8 figure and ~1/71 of MHA."""
    att = get_model("deepseek-v3").layers[0].attention
    assert att.kv_values_per_token() == 576
    assert att.per_head_kv_values_per_token() == 40960
    gqa8 = 8 * (192 + 128)
    assert 1 / 10 <= att.kv_values_per_token() / gqa8 <= 1 / 4
    assert att.per_head_kv_values_per_token() / att.kv_values_per_token() == pytest.approx(71.1, rel=1e-2)


def test_mla_decode_attention_reads_the_latent_once_for_all_heads():
    """Absorbed MLA decode, B = 1, T = 4096: KV read = 61 x 4096 x 576 x 2 bytes = 287.8 MB;
    FLOPs = 61 x 128 heads x 2 x (576 + 512) x 4096 = 6.96e10; the absorbed query (576 per
    head) and latent output (512 per head) add 61 x 128 x 1088 x 2 = 17.0 MB. Exact."""
    ops = ops_of(analyze_one(get_model("deepseek-v3"), H100, Scenario(batch_size=1, context_length=4096)))
    att = ops["attention"]
    assert att["flops"] == 61 * 128 * 2 * (576 + 512) * 4096
    assert att["bytes"] == 61 * 4096 * 576 * 2 + 61 * 128 * (576 + 512) * 2
    assert "mla_q_absorb" in ops and "mla_v_absorb" in ops
    prefill = ops_of(
        analyze_one(get_model("deepseek-v3"), H100, Scenario(batch_size=1, context_length=4096)), "prefill"
    )
    assert "kv_b_proj" in prefill  # prefill expands the latent (non-absorbed form)


def test_mla_refuses_kv_head_override():
    with pytest.raises(EngineInputError, match="MLA caches one latent"):
        get_model("deepseek-v3").with_kv_heads(8)


@pytest.mark.parametrize(
    "model_id, total, active, convention",
    [
        ("mixtral-8x7b", 46.7e9, 12.9e9, "incl"),
        ("qwen3-30b-a3b", 30.5e9, 3.3e9, "incl"),
        ("deepseek-v3", 671e9, 37e9, "incl"),
        ("gpt-oss-120b", 116.83e9, 5.13e9, "excl"),  # OpenAI counts the unembedding, not the embedding
        ("mistral-7b-v0.1", 7.24e9, 7.24e9, "incl"),
        ("gemma-2-9b", 9.24e9, 9.24e9, "incl"),
        # Qwen3-32B model card: 32.8B, 31.2B non-embedding (embedding and untied LM head left out)
        ("qwen3-32b", 32.8e9, 31.2e9, "non-embedding"),
        # DeepSeek-R1 README: 671B total, 37B activated (DeepSeek-V3-Base)
        ("deepseek-r1", 671e9, 37e9, "incl"),
        # MiniMax-M2.5: 229.9B total, 9.8B activated per token, not counting embedding and LM head
        ("minimax-m2.5", 229.9e9, 9.8e9, "non-embedding"),
    ],
)
def test_published_total_and_active_params(model_id, total, active, convention):
    """Published headline counts (model cards, models.yaml): total and active within 2%."""
    m = get_model(model_id)
    assert m.num_params == pytest.approx(total, rel=0.02)
    left_out = {"incl": 0, "excl": m.embedding_params, "non-embedding": 2 * m.embedding_params}[convention]
    assert m.num_active_params - left_out == pytest.approx(active, rel=0.02)
    exact = preset_records()[model_id]["exact_param_count"]
    assert exact is None or m.num_params == exact


def test_kimi_k25_is_kimi_k2_language_model_under_text_config():
    """Kimi-K2.5's model card: 1T total, 32B activated (headlines rounded to one and two
    significant figures: 1.026T and 32.9B with the embedding, 31.7B without the input one).
    Its text_config is Kimi-K2's DeepSeek-V3 architecture: every shape equal to kimi-k2's."""
    k25, k2 = get_model("moonshotai/Kimi-K2.5"), get_model("kimi-k2")
    assert k25.layers == k2.layers and k25.vocab_size == k2.vocab_size == 163840
    assert k25.family == "deepseek_v3" and k25.is_mla and k25.is_moe
    assert k25.num_params == pytest.approx(1e12, rel=0.03)
    assert k25.num_active_params - k25.embedding_params == pytest.approx(32e9, rel=0.02)


def test_minimax_m2_shapes_by_hand():
    """MiniMax-M2.5 config.json: per layer q 3072x6144, k and v 3072x1024, o 6144x3072 =
    44,040,192; per_layer q/k norm over the whole projection: 6144 + 1024; 256 experts of
    3 x 3072 x 1536 = 14,155,776 each; router 3072 x 256 + 256 bias (e_score_correction_bias);
    2 norms of 3072. Embedding and LM head 200,064 x 3072 each, final norm 3072."""
    m = get_model("minimax-m2.5")
    layer = 44_040_192 + 6144 + 1024 + 256 * 14_155_776 + 3072 * 256 + 256 + 2 * 3072
    assert m.num_params == 62 * layer + 2 * 200_064 * 3072 + 3072
    active_layer = layer - 248 * 14_155_776
    assert m.num_active_params == 62 * active_layer + 2 * 200_064 * 3072 + 3072


# ---- tensor parallelism --------------------------------------------------------------


def test_tp2_halves_weights_and_adds_communication():
    model = get_model("llama-3-70b")
    one = analyze_one(model, H100, Scenario(batch_size=8, context_length=4096))
    two = analyze_one(model, H100, Scenario(batch_size=8, context_length=4096, tensor_parallel=2))
    assert two["memory"]["weights_bytes"] == pytest.approx(one["memory"]["weights_bytes"] / 2, rel=2e-3)
    assert two["memory"]["kv_cache_bytes"] == pytest.approx(one["memory"]["kv_cache_bytes"] / 2)
    assert one["decode"]["communication_time_s"] == 0
    assert two["decode"]["communication_time_s"] > 0
    assert two["decode"]["time_s"] == pytest.approx(
        sum(o["time_s"] for o in two["decode"]["ops"]) + two["decode"]["communication_time_s"]
    )
    assert two["decode"]["time_with_overlap_s"] < two["decode"]["time_s"]
    assert two["decode"]["time_s"] < one["decode"]["time_s"]


def test_tp_allreduce_cost_by_hand():
    """Llama-3-70B decode, B = 8, TP 8 on H100 (NVLink 450 GB/s per direction): 2 x 80 = 160
    all-reduces of 8 x 8192 x 2 = 131,072 bytes; ring: 131072 / 450e9 x 2 x 7/8 = 0.51 µs +
    10 µs latency each -> 160 x 10.51 µs = 1.68 ms. Exact up to float rounding."""
    r = analyze_one(get_model("llama-3-70b"), H100, Scenario(batch_size=8, context_length=4096, tensor_parallel=8))
    per = 131072 / 450e9 * 2 * 7 / 8 + 10e-6
    assert r["decode"]["communication_time_s"] == pytest.approx(160 * per)


def test_kv_heads_fewer_than_gpus_are_replicated():
    """Qwen3-30B-A3B has 32 query heads and 4 KV heads: at TP 8 each GPU keeps one KV head
    (replicated), the same KV per GPU as at TP 4."""
    model = get_model("qwen3-30b-a3b")
    assert model.shard(8).layers[0].attention.num_kv_heads == 1
    assert model.shard(4).kv_values_per_token == model.shard(8).kv_values_per_token


def test_tp_must_divide_heads():
    with pytest.raises(EngineInputError, match="does not divide the 28 attention heads"):
        analyze_one(get_model("qwen2.5-7b-instruct"), H100, Scenario(tensor_parallel=8))


def test_min_tensor_parallel():
    """Llama-3-70B in BF16 (141 GB of weights) needs 2 H100s; Llama-3.1-405B (812 GB) does not
    fit on 8 (101 GB per GPU > 80 GB); it fits 8 H200s (141 GB each)."""
    ctx = 4096
    assert min_tensor_parallel(get_model("llama-3-70b"), ctx, H100.memory_bytes, 2.0, 2.0) == 2
    assert min_tensor_parallel(get_model("llama-3.1-405b"), ctx, H100.memory_bytes, 2.0, 2.0) is None
    h200 = get_accelerator("h200-sxm")
    assert min_tensor_parallel(get_model("llama-3.1-405b"), ctx, h200.memory_bytes, 2.0, 2.0) == 8


def test_tp_needs_a_link():
    with pytest.raises(EngineInputError, match="no GPU-to-GPU link"):
        card = get_accelerator("tpu-v5e").model_copy(
            update={"interconnect_bytes_per_s_per_direction": None, "pcie_bytes_per_s_per_direction": None}
        )
        analyze_one(get_model("llama-3-8b"), card, Scenario(tensor_parallel=2))


# ---- paged KV and prefix sharing -------------------------------------------------------


@pytest.mark.parametrize("context", [1, 15, 16, 17, 1000, 4097])
def test_paged_waste_is_under_one_block_per_sequence(context):
    model = get_model("llama-3-8b")
    budget = memory_budget(model, 8, context, 80e9, 2.0, 2.0, block_size=16)
    per_token = model.kv_values_per_token * 2
    assert 0 <= budget["kv_block_waste_bytes"] < 8 * 16 * per_token
    assert budget["kv_block_waste_bytes"] == 8 * ((-(-context // 16) * 16) - context) * per_token


def test_shared_prefix_stored_once():
    """B = 32 sequences of 4096 tokens sharing a 2048-token prefix: 2048 tokens stored once:
    KV = 32 x 4096 x 131072 - 31 x 2048 x 131072 bytes. Exact."""
    model = get_model("llama-3-8b")
    assert kv_cache_bytes(model, 32, 4096, 2.0, 16, 2048) == 32 * 4096 * 131072 - 31 * 2048 * 131072
    more = analyze_one(model, H100, Scenario(batch_size=32, context_length=4096, shared_prefix_length=2048))
    less = analyze_one(model, H100, Scenario(batch_size=32, context_length=4096))
    assert more["memory"]["max_batch_size"] > less["memory"]["max_batch_size"]
