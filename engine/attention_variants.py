"""Ops of the attention variants past softmax-over-everything: Gated DeltaNet linear attention
(Qwen3-Next, Qwen3.5) and DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5).

Gated DeltaNet (Yang, Kautz & Hatamizadeh 2024, "Gated Delta Networks: Improving Mamba2 with
Delta Rule", arXiv:2412.06464, eq. 10): each value head keeps a state S of d_k x d_v and, per
token, S <- alpha S (I - beta k k^T) + beta v k^T, output o = S q. No cache grows with the
context; the step reads and writes the state instead.
- Decode (one token per sequence, the recurrent form): decay alpha S (d_k d_v FLOP), S k
  (2 d_k d_v), the rank-1 update (2 d_k d_v), S q (2 d_k d_v): 7 d_k d_v FLOP per head, on the
  vector units (matrix-vector work); the state is read and written once (the paper's fused
  recurrent kernel), in the config's state dtype.
- Prefill (the chunkwise form, chunks of C = 64 tokens as flash-linear-attention's
  chunk_gated_delta_rule): per chunk and head K K^T (2 C^2 d_k), the UT transform's triangular
  solve (C^3 / 3), W = T K and U = T V (2 C^2 d_k + 2 C^2 d_v), U - W S (2 C d_k d_v), the
  output Q S + (Q K^T masked) U (2 C d_k d_v + 2 C^2 d_k + 2 C^2 d_v) and the state update
  K^T U (2 C d_k d_v): per token 6 d_k d_v + C (6 d_k + 4 d_v) + C^2 / 3, on the matrix units.
  Ideal bytes: q, k, v and the gates read once, o written once, the final state written once.
- Around the recurrence: the fused input projection (q, k, v and the output gate z), the beta
  and decay projections, a depthwise causal convolution of width conv_kernel over q, k and v
  (its last conv_kernel - 1 inputs are kept per sequence), a gated RMSNorm and the output
  projection.

DeepSeek Sparse Attention (DeepSeek-V3.2-Exp technical report, 2025, §2.1): the lightning
indexer scores every cached token s for query t as sum_j w_tj ReLU(q_tj . k_s) over its H_I
heads of width d_I, in FP8, and the attention proper reads only the top-k tokens. Its cost is
counted here: 2 d_I + 2 FLOP per head and (query, cached token) pair, the cached indexer keys
read once (FP8 plus one fp32 scale per 128 values), the chosen indices written (int32). The
scores stay on chip (the convention FlashAttention's T x T scores follow in this engine).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .layer_specs import CONV_STATE_BYTES, INDEX_KEY_BYTES, AttentionSpec
from .ops import Op, elementwise, linear

if TYPE_CHECKING:
    from .transformer import Widths

DELTANET_CHUNK = 64  # flash-linear-attention's chunk_gated_delta_rule block size
INDEX_BYTES = 4.0  # an int32 token index


def _value_dim(att: AttentionSpec) -> int:
    return att.num_heads * att.head_dim


def _io_bytes_per_token(att: AttentionSpec, s: float) -> float:
    """q, k, v and the two per-head gates read, o written, in the stream dtype."""
    return (2 * att.key_dim + _value_dim(att) + 2 * att.num_heads + _value_dim(att)) * s


def deltanet_decode(att: AttentionSpec, batch, s: float) -> Op:
    """One recurrent step for each of `batch` sequences: the state and the convolution's
    window are read and written once per sequence."""
    dk, dv, heads = att.key_head_dim, att.head_dim, att.num_heads
    state = heads * dk * dv * att.state_bytes + att.conv_dim * (att.conv_kernel - 1) * CONV_STATE_BYTES
    return Op(
        "attention_linear",
        "vector",
        batch * heads * 7.0 * dk * dv,
        batch * (2.0 * state + _io_bytes_per_token(att, s)),
    )


def deltanet_prefill(att: AttentionSpec, batch, prompt, s: float) -> Op:
    """The chunkwise form over `batch` prompts of `prompt` tokens; the final state (and the
    convolution's window) written once per prompt."""
    dk, dv, heads = att.key_head_dim, att.head_dim, att.num_heads
    c = np.minimum(prompt, DELTANET_CHUNK) if isinstance(prompt, np.ndarray) else min(prompt, DELTANET_CHUNK)
    per_token = 6.0 * dk * dv + c * (6.0 * dk + 4.0 * dv) + c * c / 3.0
    state = heads * dk * dv * att.state_bytes + att.conv_dim * (att.conv_kernel - 1) * CONV_STATE_BYTES
    return Op(
        "attention_linear",
        "tensor",
        batch * prompt * heads * per_token,
        batch * (prompt * _io_bytes_per_token(att, s) + state),
    )


def deltanet_block(att: AttentionSpec, h: int, tokens, core, w: Widths, s: float) -> list[Op]:
    """Projections, short convolution, the recurrence (`core(None)`), gated norm and output
    projection of one Gated DeltaNet layer over `tokens` tokens."""
    value_dim, conv = _value_dim(att), att.conv_dim
    return [
        linear("in_proj_qkvz", tokens, 2 * att.key_dim + 2 * value_dim, h, w.weight, w.gemm_in, s),
        linear("in_proj_ba", tokens, 2 * att.num_heads, h, w.weight, w.gemm_in, s),
        Op(
            "short_conv",
            "vector",
            2.0 * tokens * conv * att.conv_kernel,
            2.0 * tokens * conv * s + conv * att.conv_kernel * w.weight,
        ),
        *core(None),
        elementwise("rmsnorm", tokens * value_dim, s, name="gated_norm", extra_bytes=att.head_dim * w.weight),
        elementwise("swiglu", tokens * value_dim, s, name="output_gate"),
        linear("o_proj", tokens, h, value_dim, w.weight, w.gemm_in, s),
    ]


def indexer_projections(att: AttentionSpec, h: int, tokens, w: Widths, s: float) -> list[Op]:
    """The indexer's per-token projections: queries from the query latent, the one key per
    token (written to the cache in FP8) and the per-head weights."""
    q_in = att.q_lora_rank or h
    return [
        linear("indexer_q_proj", tokens, att.index_heads * att.index_head_dim, q_in, w.weight, w.gemm_in, s),
        linear("indexer_k_proj", tokens, att.index_head_dim, h, w.weight, w.gemm_in, INDEX_KEY_BYTES),
        linear("indexer_weights_proj", tokens, att.index_heads, h, w.weight, w.gemm_in, s),
    ]


def indexer_core(att: AttentionSpec, batch, q_tokens, pairs, kv_tokens_read, s: float) -> Op:
    """Scores of `pairs` (query, cached token) pairs per sequence and the top-k choice: the
    cached indexer keys are read once per sequence, the indices of the chosen tokens written."""
    heads, d = att.index_heads, att.index_head_dim
    chosen = (
        np.minimum(pairs, q_tokens * att.index_topk)
        if isinstance(pairs, np.ndarray)
        else min(pairs, q_tokens * att.index_topk)
    )
    return Op(
        "attention_indexer",
        "tensor",
        batch * pairs * heads * (2.0 * d + 2.0),
        batch * (q_tokens * heads * d * s + kv_tokens_read * d * INDEX_KEY_BYTES + chosen * INDEX_BYTES),
    )
