"""Qwen3.5 (Gated DeltaNet hybrid + MoE with a shared expert) and GLM-5 (MLA + DeepSeek Sparse
Attention + MoE): counts against the published ones, cache and state bytes by hand, and the
decode step's reads bounded by the top-k at long context.

Hand numbers come from the presets' config.json (the serving data's configs/ folder)."""

import copy

import pytest

from engine.analysis import Scenario, analyze_one
from engine.hardware import get_accelerator
from engine.memory import activation_bytes_per_sequence, kv_bytes_per_sequence, kv_bytes_per_token, max_context_length
from engine.model_catalog import get_model, preset_records
from engine.request import decode_steps_sums
from engine.transformer import Widths, decode_ops, prefill_ops

QWEN35 = "qwen3.5-397b-a17b"
GLM5 = "glm-5"
BF16 = Widths(2.0, 2.0, 2.0)
# Qwen3.5 Gated DeltaNet: 64 value heads, 16 key heads, both 128 wide, conv kernel 4
DK = DV = 128
V_HEADS, K_HEADS = 64, 16
CONV_DIM = 2 * K_HEADS * DK + V_HEADS * DV  # 12,288
# one layer's state: 64 x 128 x 128 fp32 (mamba_ssm_dtype float32) + 12,288 x 3 bf16 conv inputs
STATE_PER_LAYER = V_HEADS * DK * DV * 4 + CONV_DIM * 3 * 2  # 4,194,304 + 73,728 = 4,268,032
# GLM-5 per layer and token: latent (512 + 64) at the KV dtype + indexer key 128 x (1 + 4/128) = 132 B
INDEXER_KEY = 128 + 4


def ops(op_list) -> dict:
    return {o.name: o for o in op_list}


@pytest.mark.parametrize(
    "model_id, total, active, unit",
    [
        # Qwen3.5-397B-A17B model card: 397B total, 17B activated, whole billions (ours: 396.3B,
        # 17.35B with embedding and LM head, the convention of Qwen's other MoE cards)
        (QWEN35, 397e9, 17e9, 1e9),
        # GLM-5 technical report: 744B total, 40B activated (ours: 743.9B; 39.9B without
        # embedding and LM head)
        (GLM5, 744e9, 40e9, 1e9),
    ],
)
def test_published_total_and_active(model_id, total, active, unit):
    """Totals within 2%; active counts within the headline's rounding (half its last unit)."""
    m = get_model(model_id)
    assert m.num_params == pytest.approx(total, rel=0.02)
    left_out = 2 * m.embedding_params if model_id == GLM5 else 0
    assert abs(m.num_active_params - left_out - active) < unit / 2
    assert preset_records()[model_id]["sources"]


def test_qwen35_layers_by_hand():
    """45 Gated DeltaNet + 15 gated full-attention layers, every 4th full; per DeltaNet layer
    4096 x (2 x 2048 + 2 x 8192) in_proj + 4096 x 128 (beta, decay) + 12,288 x 4 conv + 2 x 64
    (A_log, dt_bias) + 128 (gated norm) + 8192 x 4096 out_proj = 118,014,208; per full layer
    q (with its gate) 4096 x 16,384, k and v 4096 x 512, o 8192 x 4096, q/k norms 2 x 256 =
    104,858,112. MoE: router 4096 x 512, 512 experts of 3 x 4096 x 1024, a shared expert of
    the same width and its 4096 -> 1 gate."""
    m = get_model(QWEN35)
    kinds = [layer.attention.kind for layer in m.layers]
    assert kinds.count("linear") == 45 and kinds.count("full") == 15 and kinds[3::4] == ["full"] * 15
    h = 4096
    linear_layer, full_layer = m.layers[0], m.layers[3]
    assert linear_layer.attention.params(h) == 118_014_208
    assert full_layer.attention.params(h) == 104_858_112
    expert = 3 * h * 1024
    assert full_layer.mlp.params(h) == h * 512 + 512 * expert + expert + h
    assert full_layer.mlp.active_params(h) == h * 512 + 10 * expert + expert + h
    assert (m.num_heads, m.num_kv_heads, m.head_dim) == (32, 2, 256)  # the full-attention layers'


def test_qwen35_state_and_kv_bytes_by_hand():
    """Per sequence: 45 x 4,268,032 = 192,061,440 bytes of state, whatever the context; per
    token: 15 full layers x 2 (K, V) x 2 KV heads x 256 x 2 bytes = 30,720 (bf16)."""
    m = get_model(QWEN35)
    assert m.state_bytes_per_sequence == 45 * STATE_PER_LAYER == 192_061_440
    assert kv_bytes_per_token(m, 2.0) == 15 * 2 * 2 * 256 * 2 == 30_720
    for context in (1, 4096, 262_144):
        assert kv_bytes_per_sequence(m, context, 2.0) == 192_061_440 + 30_720 * context


def test_qwen35_decode_state_traffic_does_not_grow_with_context():
    """The DeltaNet step reads and writes each sequence's state: batch 8 x 45 layers x (2 x
    4,268,032 + per-token q, k, v, gates in and o out: (2 x 2048 + 8192 + 128 + 8192) x 2);
    7 x 128 x 128 FLOP per value head. The full layers' attention reads grow with the context."""
    m = get_model(QWEN35)
    short, long = ops(decode_ops(m, 8, 1024, BF16)), ops(decode_ops(m, 8, 65_536, BF16))
    io = (2 * 2048 + 8192 + 128 + 8192) * 2
    assert short["attention_linear"].bytes == long["attention_linear"].bytes == 8 * 45 * (2 * STATE_PER_LAYER + io)
    assert short["attention_linear"].flops == 8 * 45 * V_HEADS * 7 * DK * DV
    assert long["attention"].bytes > 30 * short["attention"].bytes


def test_qwen35_prefill_chunked_flops_by_hand():
    """Chunkwise gated delta rule, C = 64: per token and head 6 d_k d_v + C (6 d_k + 4 d_v) +
    C^2 / 3; 45 layers x 64 heads x 4,096 tokens."""
    m = get_model(QWEN35)
    per_token = 6 * DK * DV + 64 * (6 * DK + 4 * DV) + 64 * 64 / 3
    assert ops(prefill_ops(m, 1, 4096, BF16))["attention_linear"].flops == pytest.approx(45 * 64 * 4096 * per_token)


def test_qwen35_tensor_parallel_splits_the_state():
    """TP 8: 8 of 64 value heads and 2 of 16 key heads per GPU, so the state is an eighth;
    the 2 KV heads of the full layers are replicated (one each)."""
    m = get_model(QWEN35)
    shard = m.shard(8)
    assert shard.state_bytes_per_sequence == pytest.approx(m.state_bytes_per_sequence / 8)
    assert shard.layers[3].attention.num_kv_heads == 1


def test_qwen35_max_context_counts_the_state_once_per_sequence():
    """The longest context 16 sequences fit in at TP 8: weights + 16 x (state + activations +
    the full layers' KV per token x T) fills the card at T and overflows at T + 1."""
    m = get_model(QWEN35).shard(8)
    capacity = get_accelerator("b200").memory_bytes
    t = max_context_length(m, 16, capacity, 1.0, 2.0)

    def total(context: int) -> float:
        return m.num_params * 1.0 + 16 * (kv_bytes_per_sequence(m, context, 2.0) + activation_bytes_per_sequence(m))

    assert total(t) <= capacity < total(t + 1)
    assert kv_bytes_per_sequence(m, t, 2.0) - kv_bytes_per_token(m, 2.0) * t == m.state_bytes_per_sequence


def test_glm5_kv_bytes_by_hand():
    """78 MLA layers x (576 latent values x KV bytes + 132 bytes of indexer key): 100,152 B per
    token in bf16, 55,224 in fp8; DSA keeps every token, so a sequence holds them all."""
    m = get_model(GLM5)
    assert kv_bytes_per_token(m, 2.0) == 78 * (576 * 2 + INDEXER_KEY) == 100_152
    assert kv_bytes_per_token(m, 1.0) == 78 * (576 + INDEXER_KEY) == 55_224
    assert kv_bytes_per_sequence(m, 131_072, 1.0) == 131_072 * 55_224
    assert m.state_bytes_per_sequence == 0


def test_glm5_decode_attention_reads_are_bounded_by_top_k():
    """Past 2,048 cached tokens the attention proper reads the same 2,048 latents (batch 4 x 78
    layers x 2,048 x 576 x 2 bytes, plus the queries and outputs); only the indexer's key reads
    grow: 128 x 1.03125 bytes per extra token, layer and sequence."""
    m = get_model(GLM5)
    at = {t: ops(decode_ops(m, 4, t, BF16)) for t in (2048, 16_384, 131_072)}
    assert at[16_384]["attention"].bytes == at[131_072]["attention"].bytes == at[2048]["attention"].bytes
    assert at[131_072]["attention"].flops == at[2048]["attention"].flops
    grown = at[131_072]["attention_indexer"].bytes - at[16_384]["attention_indexer"].bytes
    assert grown == pytest.approx(4 * 78 * (131_072 - 16_384) * INDEXER_KEY)
    # the indexer's own FLOPs: 32 heads x (2 x 128 + 2) per cached token
    assert at[131_072]["attention_indexer"].flops == pytest.approx(4 * 78 * 131_072 * 32 * 258)


def test_glm5_prefill_attention_pairs_capped_at_top_k():
    """Prompt 8,192: query i attends min(i + 1, 2,048) tokens: 2048 x 2049 / 2 + 6,144 x 2,048
    pairs per head, vs 8192 x 8193 / 2 for dense MLA; the indexer scores all 8192 x 8193 / 2."""
    m = get_model(GLM5)
    got = ops(prefill_ops(m, 1, 8192, BF16))
    pairs = 2048 * 2049 / 2 + 6144 * 2048
    per_pair = 2 * (192 + 64) + 2 * 256  # qk and pv FLOP per head in the expanded form
    assert got["attention"].flops == pytest.approx(78 * 64 * per_pair * pairs)
    assert got["attention_indexer"].flops == pytest.approx(78 * 8192 * 8193 / 2 * 32 * 258)


@pytest.mark.parametrize("model_id, hardware, tp", [(QWEN35, "b200", 8), (GLM5, "gb200", 64), (GLM5, "h200-sxm", 8)])
def test_every_analysis_runs(model_id, hardware, tp):
    scenario = Scenario(batch_size=16, context_length=32_768, tensor_parallel=tp, weight_dtype="fp8", kv_dtype="fp8")
    result = analyze_one(get_model(model_id), get_accelerator(hardware), scenario)
    assert result["decode"]["time_s"] > 0 and result["prefill"]["time_s"] > result["decode"]["time_s"]
    assert result["memory"]["kv_cache_bytes"] > 0


def test_decode_sums_cut_at_the_top_k():
    """The request sums over N decode steps are exact: a step's time is linear in the context
    on each side of 2,048 (DSA's top-k), so the sum equals the step-by-step total."""
    m, hw = get_model(GLM5), get_accelerator("h200-sxm")
    scenario = Scenario(batch_size=4, context_length=1900, tensor_parallel=8)
    sums = decode_steps_sums(m, hw, scenario, 4, 400)
    by_step = sum(
        analyze_one(m, hw, Scenario(batch_size=4, context_length=t, tensor_parallel=8))["decode"]["time_s"]
        for t in range(1900, 2300)
    )
    assert sums["time_s"] == pytest.approx(by_step, rel=1e-9)


def test_flat_qwen3_next_config_reads_the_same():
    """A Qwen3-Next style config (flat, no layer_types): full attention every
    full_attention_interval-th layer, the same layers as Qwen3.5's text_config."""
    from engine.hf_config import parse_hf_config

    text = copy.deepcopy(preset_records()[QWEN35]["config"]["text_config"])
    text.pop("layer_types")
    text["model_type"] = "qwen3_next"
    assert parse_hf_config(text).layers == get_model(QWEN35).layers


def test_kv_head_override_leaves_the_deltanet_layers():
    m = get_model(QWEN35).with_kv_heads(1)
    assert m.layers[3].attention.num_kv_heads == 1 and m.layers[0].attention.num_kv_heads == K_HEADS
