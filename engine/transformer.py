"""The op list of one decode step and one prefill of a decoder-only transformer.

Decode: B sequences, each with T tokens in its KV cache, produce one new token each.
Prefill: B prompts of T tokens each are processed at once; logits only for each prompt's
last token (what serving engines compute before sampling the first output token).

Counting conventions (docs/reference.md "Conventions"):
- Linear layers read their weights once per step however many tokens pass through, so
  their intensity grows with the tokens in flight (Pope et al. 2022).
- Decode attention reads every sequence's whole KV cache: it is *not* amortised by
  batching (Pope et al. 2022: ~4 FLOP/byte for GQA-4, whatever B). FLOPs use the
  query heads; bytes use the KV heads (GQA/MQA share one K/V among a group of heads).
- A sliding-window layer attends to, and reads, at most `window` cached tokens.
- DeepSeek Sparse Attention (DeepSeek-V3.2-Exp report §2.1; GLM-5): the attention proper
  attends to, and reads, at most `index_topk` cached tokens per query (at decode: min(T, k));
  the lightning indexer that picks them scores all T and is counted as its own op
  (`attention_indexer`, engine/attention_variants.py). Its keys stay cached for every token.
- Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): a fixed-size state per sequence
  instead of a KV cache; its step cost does not grow with the context (`attention_linear`,
  engine/attention_variants.py). Gated attention (`output_gate`) doubles q_proj's output.
- MLA (DeepSeek-V2 §2.1): decode runs in the weight-absorbed form — W_UK folded into the
  query and W_UV into the output, scores and values computed against the cached latent
  (kv_lora_rank + rope dims), which every head shares (as DeepSeek's FlashMLA kernels do).
  Prefill runs the plain form: the latent is expanded to per-head K and V by kv_b_proj.
- MoE (Fedus et al. 2021; DeepSeek-V3 report 2024): FLOPs use the k routed experts per token plus shared experts; the
  weights read are those of the experts actually hit. With `tokens` routed uniformly, a layer
  touches E x (1 - (1 - k/E)^tokens) distinct experts on average: ~k at batch 1, ~E at large
  batch and in prefill. Dense first layers and shared experts are read always.
- Prefill attention is causal by default: query i attends to i+1 positions, T(T+1)/2 pairs.
- FlashAttention: the T x T scores stay on chip. Without it, the scores are written, read by
  a softmax, written again and read by the second matmul.
- Embedding: a gather of B rows, not a read of the table. LM head: the full V x H matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention_variants import deltanet_block, deltanet_decode, deltanet_prefill, indexer_core, indexer_projections
from .model import AttentionSpec, LayerSpec, MlpSpec, ModelConfig
from .ops import Op, elementwise, linear

STREAM_BYTES = 2.0  # residual stream and elementwise ops stay in 16-bit whatever the GEMM dtype


@dataclass(frozen=True, slots=True)
class Widths:
    """Bytes per value: weights, KV cache, GEMM input activations (compute dtype)."""

    weight: float
    kv: float
    gemm_in: float


def minimum(a, b):
    return np.minimum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else min(a, b)


def causal_pairs(tokens, window: int | None = None):
    """(query, key) pairs per sequence and head under a causal mask, optionally windowed:
    query i sees min(i + 1, window) keys."""
    full = tokens * (tokens + 1) / 2
    if window is None:
        return full
    w = window
    capped = w * (w + 1) / 2 + (tokens - w) * w
    return np.where(tokens <= w, full, capped) if isinstance(tokens, np.ndarray) else (full if tokens <= w else capped)


def experts_touched(num_experts: int, experts_per_token: int, tokens):
    """Expected distinct experts hit when `tokens` tokens each pick k of E uniformly."""
    return num_experts * (1.0 - (1.0 - experts_per_token / num_experts) ** tokens)


@dataclass(frozen=True, slots=True)
class AttentionShape:
    """What the attention matmuls see: heads, dot-product and value widths, and bytes per
    cached token read by a fused kernel (fused_kv) or by the score/value matmuls apart."""

    heads: int
    qk_dim: int
    v_dim: int
    fused_kv_bytes: float
    k_bytes: float
    v_bytes: float


def _per_head_shape(att: AttentionSpec, w: Widths) -> AttentionShape:
    k = att.kv_dim * w.kv
    return AttentionShape(att.num_heads, att.head_dim, att.head_dim, 2 * k, k, k)


def _mla_absorbed_shape(att: AttentionSpec, w: Widths) -> AttentionShape:
    latent = (att.kv_lora_rank + att.qk_rope_head_dim) * w.kv
    return AttentionShape(
        att.num_heads,
        att.kv_lora_rank + att.qk_rope_head_dim,
        att.kv_lora_rank,
        latent,
        latent,
        att.kv_lora_rank * w.kv,
    )


def _mla_expanded_shape(att: AttentionSpec) -> AttentionShape:
    k = att.num_heads * (att.qk_nope_head_dim + att.qk_rope_head_dim) * STREAM_BYTES
    v = att.num_heads * att.v_head_dim * STREAM_BYTES
    return AttentionShape(att.num_heads, att.qk_nope_head_dim + att.qk_rope_head_dim, att.v_head_dim, k + v, k, v)


def _attention_core(
    shape: AttentionShape, batch, q_tokens, kv_tokens_read, pairs, score_elems, flash_attention: bool
) -> list[Op]:
    m = batch * q_tokens
    q_bytes = m * shape.heads * shape.qk_dim * STREAM_BYTES
    out_bytes = m * shape.heads * shape.v_dim * STREAM_BYTES
    qk_flops = 2.0 * shape.qk_dim * shape.heads * batch * pairs
    pv_flops = 2.0 * shape.v_dim * shape.heads * batch * pairs
    if flash_attention:
        return [
            Op(
                "attention",
                "tensor",
                qk_flops + pv_flops,
                q_bytes + batch * kv_tokens_read * shape.fused_kv_bytes + out_bytes,
            )
        ]
    score_bytes = score_elems * STREAM_BYTES
    return [
        Op("attention_scores", "tensor", qk_flops, q_bytes + batch * kv_tokens_read * shape.k_bytes + score_bytes),
        elementwise("softmax", score_elems, STREAM_BYTES, name="attention_softmax"),
        Op("attention_values", "tensor", pv_flops, score_bytes + batch * kv_tokens_read * shape.v_bytes + out_bytes),
    ]


def _attention_block(att: AttentionSpec, h: int, tokens, core, w: Widths, decode: bool) -> list[Op]:
    """Projections, norms and RoPE around the attention matmuls (`core(shape)` builds those)."""
    s = STREAM_BYTES
    if att.is_linear:
        return deltanet_block(att, h, tokens, core, w, s)
    if not att.is_mla:
        q_out = att.q_dim * (2 if att.output_gate else 1)  # gated attention: the gate comes with the query
        ops = [
            linear("q_proj", tokens, q_out, h, w.weight, w.gemm_in, s, att.qkv_bias),
            linear("k_proj", tokens, att.kv_dim, h, w.weight, w.gemm_in, w.kv, att.qkv_bias),
            linear("v_proj", tokens, att.kv_dim, h, w.weight, w.gemm_in, w.kv, att.qkv_bias),
        ]
        if att.qk_norm:
            ops.append(elementwise("rmsnorm", tokens * (att.q_dim + att.kv_dim), s, name="qk_norm"))
        ops.append(elementwise("rope", tokens * (att.q_dim + att.kv_dim), s))
        ops += core(_per_head_shape(att, w))
        if att.output_gate:
            ops.append(elementwise("swiglu", tokens * att.out_dim, s, name="output_gate"))
        ops.append(linear("o_proj", tokens, h, att.out_dim, w.weight, w.gemm_in, s, att.o_bias))
        return ops
    nope, rope, lora, heads = att.qk_nope_head_dim, att.qk_rope_head_dim, att.kv_lora_rank, att.num_heads
    ops = []
    q_in = h
    if att.q_lora_rank:
        ops += [
            linear("q_a_proj", tokens, att.q_lora_rank, h, w.weight, w.gemm_in, s),
            elementwise(
                "rmsnorm", tokens * att.q_lora_rank, s, name="latent_norm", extra_bytes=att.q_lora_rank * w.weight
            ),
        ]
        q_in = att.q_lora_rank
    ops += [
        linear("q_b_proj", tokens, att.q_dim, q_in, w.weight, w.gemm_in, s),
        linear("kv_a_proj", tokens, lora + rope, h, w.weight, w.gemm_in, w.kv),
        elementwise("rmsnorm", tokens * lora, s, name="latent_norm", extra_bytes=lora * w.weight),
        elementwise("rope", tokens * (heads * rope + rope), s),
    ]
    if att.is_sparse:
        ops += indexer_projections(att, h, tokens, w, s)
    if decode:
        # absorbed: q_nope @ W_UK per head -> a query in latent space; attention over the latent;
        # latent output @ W_UV per head -> values. W_UK and W_UV are the two halves of kv_b_proj.
        ops.append(
            Op(
                "mla_q_absorb",
                "tensor",
                2.0 * tokens * heads * nope * lora,
                heads * nope * lora * w.weight + tokens * heads * (nope + lora) * s,
            )
        )
        ops += core(_mla_absorbed_shape(att, w))
        ops.append(
            Op(
                "mla_v_absorb",
                "tensor",
                2.0 * tokens * heads * lora * att.v_head_dim,
                heads * lora * att.v_head_dim * w.weight + tokens * heads * (lora + att.v_head_dim) * s,
            )
        )
    else:
        ops.append(linear("kv_b_proj", tokens, heads * (nope + att.v_head_dim), lora, w.weight, w.gemm_in, s))
        ops += core(_mla_expanded_shape(att))
    ops.append(linear("o_proj", tokens, h, att.out_dim, w.weight, w.gemm_in, s))
    return ops


def _mlp_block(mlp: MlpSpec, h: int, tokens, activation: str, w: Widths) -> list[Op]:
    s = STREAM_BYTES
    act_kind = (
        ("geglu" if activation == "gelu" else "swiglu") if mlp.gated else ("gelu" if activation == "gelu" else "silu")
    )
    inter = mlp.intermediate_size
    if not mlp.is_moe:
        ops = [linear("gate_proj", tokens, inter, h, w.weight, w.gemm_in, s, mlp.bias)] if mlp.gated else []
        return ops + [
            linear("up_proj", tokens, inter, h, w.weight, w.gemm_in, s, mlp.bias),
            elementwise(act_kind, tokens * inter, s, name="activation"),
            linear("down_proj", tokens, h, inter, w.weight, w.gemm_in, s, mlp.bias),
        ]
    k, e = mlp.experts_per_token, mlp.num_experts
    routed = tokens * k  # token-expert pairs
    hit = experts_touched(e, k, tokens)
    bias = w.weight if mlp.expert_bias else 0.0

    def expert(name: str, out_f: int, in_f: int, out_bytes: float) -> Op:
        return Op(
            name,
            "tensor",
            2.0 * routed * out_f * in_f,
            hit * (out_f * in_f * w.weight + out_f * bias) + routed * (in_f * w.gemm_in + out_f * out_bytes),
        )

    ops = [linear("router", tokens, e, h, w.weight, w.gemm_in, s, mlp.router_bias)]
    if mlp.gated:
        ops.append(expert("expert_gate_proj", inter, h, s))
    ops += [
        expert("expert_up_proj", inter, h, s),
        elementwise(act_kind, routed * inter, s, name="activation"),
        expert("expert_down_proj", h, inter, s),
    ]
    if mlp.shared_intermediate_size:
        si = mlp.shared_intermediate_size
        ops += [
            linear("shared_gate_proj", tokens, si, h, w.weight, w.gemm_in, s),
            linear("shared_up_proj", tokens, si, h, w.weight, w.gemm_in, s),
            elementwise(act_kind, tokens * si, s, name="activation"),
            linear("shared_down_proj", tokens, h, si, w.weight, w.gemm_in, s),
        ]
    return ops


def _layer_ops(layer: LayerSpec, model: ModelConfig, tokens, core, w: Widths, decode: bool) -> list[Op]:
    h, s = model.hidden_size, STREAM_BYTES
    norm = {"extra_bytes": h * w.weight}
    ops = [elementwise("rmsnorm", tokens * h, s, name="attn_norm", **norm)]
    ops += _attention_block(layer.attention, h, tokens, core, w, decode)
    ops.append(elementwise("residual_add", 2 * tokens * h, s))  # after attention and after the MLP
    ops.append(elementwise("rmsnorm", tokens * h, s, name="mlp_norm", **norm))
    if layer.norms == 4:  # Gemma-2 also normalises the outputs of attention and of the MLP
        ops.append(elementwise("rmsnorm", 2 * tokens * h, s, name="post_norm", extra_bytes=2 * h * w.weight))
    ops += _mlp_block(layer.mlp, h, tokens, model.activation, w)
    return ops


def _accumulate(total: dict[str, Op], ops: list[Op], count: int, per_layer: bool) -> None:
    """Sum `count` copies of `ops` into `total` by name; a per-layer op records how many layers
    it now covers (what the dashboard's tooltips call "summed over N layers"). A name that
    occurs twice in one layer (an MoE layer's routed and shared-expert activations, MLA's two
    latent norms) still covers that layer once: counting each occurrence made DeepSeek-V3's
    activation row read "x 119 layers" on a 61-layer model."""
    layers = count if per_layer else 0
    covered: set[str] = set()  # names already credited with this group's layers
    for op in ops:
        new_layers = 0 if op.name in covered else layers
        covered.add(op.name)
        seen = total.get(op.name)
        if seen is None:
            total[op.name] = Op(op.name, op.unit, op.flops * count, op.bytes * count, new_layers)
        else:
            seen.flops = seen.flops + op.flops * count
            seen.bytes = seen.bytes + op.bytes * count
            seen.layers += new_layers


def _model_ops(model: ModelConfig, tokens, logit_rows, attention_core, w: Widths, decode: bool) -> list[Op]:
    h, v, s = model.hidden_size, model.vocab_size, STREAM_BYTES
    total: dict[str, Op] = {}
    _accumulate(total, [Op("embedding", "vector", 0.0, tokens * h * (w.weight + s))], 1, per_layer=False)
    for layer, count in model.layer_groups:
        core = attention_core(layer)
        _accumulate(total, _layer_ops(layer, model, tokens, core, w, decode), count, per_layer=True)
    _accumulate(
        total,
        [
            elementwise("rmsnorm", tokens * h, s, name="final_norm", extra_bytes=h * w.weight),
            linear("lm_head", logit_rows, v, h, w.weight, w.gemm_in, s),
            elementwise("softmax", logit_rows * v, s, name="logits_softmax"),
        ],
        1,
        per_layer=False,
    )
    return list(total.values())


def decode_ops(model: ModelConfig, batch, context, w: Widths, flash_attention: bool = True) -> list[Op]:
    """One decode step: `batch` new tokens, each attending to its `context` cached tokens."""

    def attention_core(layer: LayerSpec):
        att = layer.attention
        cap = att.attended_tokens_cap
        kv_len = context if cap is None else minimum(context, cap)

        def core(shape: AttentionShape | None) -> list[Op]:
            if att.is_linear:
                return [deltanet_decode(att, batch, STREAM_BYTES)]
            ops = _attention_core(shape, batch, 1, kv_len, kv_len, batch * shape.heads * kv_len, flash_attention)
            if att.is_sparse:  # the indexer scores every cached token to pick the top-k
                ops.insert(0, indexer_core(att, batch, 1, context, context, STREAM_BYTES))
            return ops

        return core

    return _model_ops(model, batch, batch, attention_core, w, decode=True)


def prefill_ops(
    model: ModelConfig, batch, prompt, w: Widths, flash_attention: bool = True, causal: bool = True
) -> list[Op]:
    """Prefill of `batch` prompts of `prompt` tokens each (time-to-first-token lower bound)."""

    def attention_core(layer: LayerSpec):
        att = layer.attention
        window = att.attended_tokens_cap
        if causal:
            pairs = causal_pairs(prompt, window)
        else:
            pairs = prompt * (prompt if window is None else minimum(prompt, window))

        def core(shape: AttentionShape | None) -> list[Op]:
            if att.is_linear:
                return [deltanet_prefill(att, batch, prompt, STREAM_BYTES)]
            # Without FlashAttention the eager kernel materialises the full T x T score matrix.
            ops = _attention_core(
                shape, batch, prompt, prompt, pairs, batch * shape.heads * prompt * prompt, flash_attention
            )
            if att.is_sparse:  # every query scores all the tokens before it
                every = causal_pairs(prompt) if causal else prompt * prompt
                ops.insert(0, indexer_core(att, batch, prompt, every, prompt, STREAM_BYTES))
            return ops

        return core

    return _model_ops(model, batch * prompt, batch, attention_core, w, decode=False)


def allreduce_messages(model: ModelConfig, tokens) -> tuple[int, float]:
    """Tensor parallelism's all-reduces in one pass: two per layer (after attention and after
    the MLP, Megatron-LM §3), each of the tokens' hidden states in 16-bit: (count, bytes each)."""
    return 2 * model.num_layers, tokens * model.hidden_size * STREAM_BYTES
