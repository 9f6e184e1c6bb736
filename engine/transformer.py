"""The op list of one decode step and one prefill of a decoder-only transformer.

Decode: B sequences, each with T tokens in its KV cache, produce one new token each.
Prefill: B prompts of T tokens each are processed at once; logits only for each prompt's
last token (what serving engines compute before sampling the first output token).

Counting conventions (README "Conventions"):
- Linear layers read their weights once per step however many tokens pass through, so
  their intensity grows with the tokens in flight (seed 000 "Decode：batch 变大").
- Decode attention reads every sequence's whole KV cache: it is *not* amortised by
  batching (seed 001 §3, seed 000: intensity of this part ~4 FLOP/byte for GQA-4, whatever B).
  FLOPs use the query heads (2 matmuls x 2 x head_dim per query head per cached token);
  bytes use the KV heads (GQA/MQA share one K/V among a group of query heads).
- Prefill attention is causal by default: query i attends to i+1 positions, T(T+1)/2 pairs.
- FlashAttention: the T x T scores stay on chip. Without it, the scores are written, read by
  a softmax, written again and read by the second matmul.
- Embedding: a gather of B rows, not a read of the table. LM head: the full V x H matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import LayerSpec, ModelConfig
from .ops import Op, elementwise, linear, matmul

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


def _attention_ops(layer: LayerSpec, batch, q_tokens, kv_tokens_read, pairs, score_elems, w: Widths,
                   flash_attention: bool) -> list[Op]:
    att = layer.attention
    m = batch * q_tokens
    q_bytes = m * att.q_dim * STREAM_BYTES
    out_bytes = m * att.q_dim * STREAM_BYTES
    k_bytes = batch * kv_tokens_read * att.kv_dim * w.kv
    matmul_flops = 2.0 * att.head_dim * att.num_heads * batch * pairs  # one of QK^T or PV
    if flash_attention:
        return [Op("attention", "tensor", 2 * matmul_flops, q_bytes + 2 * k_bytes + out_bytes)]
    score_bytes = score_elems * STREAM_BYTES
    return [
        Op("attention_scores", "tensor", matmul_flops, q_bytes + k_bytes + score_bytes),
        elementwise("softmax", score_elems, STREAM_BYTES, name="attention_softmax"),
        Op("attention_values", "tensor", matmul_flops, score_bytes + k_bytes + out_bytes),
    ]


def _layer_ops(layer: LayerSpec, h: int, tokens, attention: list[Op], w: Widths) -> list[Op]:
    att, mlp = layer.attention, layer.mlp
    s = STREAM_BYTES
    ops = [
        elementwise("rmsnorm", tokens * h, s, name="attn_norm", extra_bytes=h * w.weight),
        linear("q_proj", tokens, att.q_dim, h, w.weight, w.gemm_in, s, att.qkv_bias),
        linear("k_proj", tokens, att.kv_dim, h, w.weight, w.gemm_in, w.kv, att.qkv_bias),
        linear("v_proj", tokens, att.kv_dim, h, w.weight, w.gemm_in, w.kv, att.qkv_bias),
        elementwise("rope", tokens * (att.q_dim + att.kv_dim), s),
        *attention,
        linear("o_proj", tokens, h, att.q_dim, w.weight, w.gemm_in, s),
        elementwise("residual_add", 2 * tokens * h, s),  # after attention and after the MLP
        elementwise("rmsnorm", tokens * h, s, name="mlp_norm", extra_bytes=h * w.weight),
    ]
    inter = mlp.intermediate_size
    if mlp.gated:
        ops += [linear("gate_proj", tokens, inter, h, w.weight, w.gemm_in, s),
                linear("up_proj", tokens, inter, h, w.weight, w.gemm_in, s),
                elementwise("swiglu", tokens * inter, s, name="activation")]
    else:
        ops += [linear("up_proj", tokens, inter, h, w.weight, w.gemm_in, s),
                elementwise("silu", tokens * inter, s, name="activation")]
    ops.append(linear("down_proj", tokens, h, inter, w.weight, w.gemm_in, s))
    return ops


def _accumulate(total: dict[str, Op], ops: list[Op], count: int) -> None:
    for op in ops:
        seen = total.get(op.name)
        if seen is None:
            total[op.name] = Op(op.name, op.unit, op.flops * count, op.bytes * count)
        else:
            seen.flops = seen.flops + op.flops * count
            seen.bytes = seen.bytes + op.bytes * count


def _model_ops(model: ModelConfig, batch, tokens, logit_rows, per_layer_attention, w: Widths) -> list[Op]:
    h, v = model.hidden_size, model.vocab_size
    s = STREAM_BYTES
    total: dict[str, Op] = {}
    _accumulate(total, [Op("embedding", "vector", 0.0, tokens * h * (w.weight + s))], 1)
    for layer, count in model.layer_groups:
        _accumulate(total, _layer_ops(layer, h, tokens, per_layer_attention(layer), w), count)
    _accumulate(total, [
        elementwise("rmsnorm", tokens * h, s, name="final_norm", extra_bytes=h * w.weight),
        linear("lm_head", logit_rows, v, h, w.weight, w.gemm_in, s),
        elementwise("softmax", logit_rows * v, s, name="logits_softmax"),
    ], 1)
    return list(total.values())


def decode_ops(model: ModelConfig, batch, context, w: Widths, flash_attention: bool = True) -> list[Op]:
    """One decode step: `batch` new tokens, each attending to its `context` cached tokens."""

    def attention(layer: LayerSpec) -> list[Op]:
        window = layer.attention.window
        kv_len = context if window is None else minimum(context, window)
        score_elems = batch * layer.attention.num_heads * kv_len
        return _attention_ops(layer, batch, 1, kv_len, kv_len, score_elems, w, flash_attention)

    return _model_ops(model, batch, batch, batch, attention, w)


def prefill_ops(model: ModelConfig, batch, prompt, w: Widths, flash_attention: bool = True,
                causal: bool = True) -> list[Op]:
    """Prefill of `batch` prompts of `prompt` tokens each (time-to-first-token lower bound)."""

    def attention(layer: LayerSpec) -> list[Op]:
        window = layer.attention.window
        if causal:
            pairs = causal_pairs(prompt, window)
        else:
            pairs = prompt * (prompt if window is None else minimum(prompt, window))
        # Without FlashAttention the eager kernel materialises the full T x T score matrix.
        score_elems = batch * layer.attention.num_heads * prompt * prompt
        return _attention_ops(layer, batch, prompt, prompt, pairs, score_elems, w, flash_attention)

    tokens = batch * prompt
    return _model_ops(model, batch, tokens, batch, attention, w)
