"""Memory budget of serving B sequences of T tokens: weights + KV cache + activations, per GPU.

KV bytes per token = sum over layers of 2 (K and V) x KV heads x head_dim x bytes per value
(Llama-3-8B: 2 x 8 x 128 x 32 x 2 = 131,072 bytes; Pope et al. 2022); an MLA layer caches one
latent of kv_lora_rank + qk_rope_head_dim values (DeepSeek-V3: 61 x 576 x 2 = 70,272 bytes).
A sliding-window layer keeps at most `window` tokens per sequence. KV is per sequence:
nothing is shared across a batch (Kwon et al. 2023) unless a shared prefix is declared.
A DeepSeek-Sparse-Attention layer (GLM-5, DeepSeek-V3.2) caches every token's latent plus its
indexer key (128 FP8 values and one fp32 scale per 128: 132 bytes per token and layer; its
attention reads only the top-k, its cache keeps them all). A Gated DeltaNet layer (Qwen3.5)
caches nothing per token: it keeps a fixed state per sequence (value heads x d_k x d_v in the
config's `mamba_ssm_dtype`, plus the short convolution's last inputs), counted in the KV-cache
figures as the serving engines count it in theirs (vLLM's and SGLang's hybrid "mamba" cache).

Paged KV (vLLM, Kwon et al. 2023): each sequence's KV of each layer is held in blocks of
`block_size` tokens, so it is rounded up to whole blocks; the rounding is reported as waste.
Prefix sharing: a prefix of P tokens common to the whole batch is stored once (its whole
blocks, on full-attention and MLA layers; a windowed layer keeps only recent tokens).
Decode still reads the prefix once per sequence (conservative; cascade kernels can do better).

Activation workspace convention: the live activations of one decode step of B tokens —
residual stream, normed input, q/k/v, attention output, the MLP's gate/up outputs (largest
layer's shapes; buffers are reused layer to layer) — plus fp32 logits of B x vocab.
"""

from __future__ import annotations

import numpy as np

from .model import ModelConfig
from .transformer import STREAM_BYTES, minimum

TP_DEGREES = (1, 2, 4, 8)


def round_up(tokens, block_size: int):
    """Whole blocks: works on ints and numpy arrays alike."""
    return -(-tokens // block_size) * block_size


def kv_bytes_per_token(model: ModelConfig, kv_bytes: float) -> float:
    """KV bytes one token adds over all layers, before window caps (DSA's indexer keys in)."""
    return sum(layer.attention.cache_bytes_per_token(kv_bytes) * n for layer, n in model.layer_groups)


def kv_bytes_per_sequence(model: ModelConfig, context, kv_bytes: float, block_size: int = 1):
    """KV bytes of one sequence holding `context` tokens (window caps, whole blocks), plus the
    fixed state of its linear-attention layers."""
    total = model.state_bytes_per_sequence
    for layer, count in model.layer_groups:
        att = layer.attention
        per_token = att.cache_bytes_per_token(kv_bytes)
        if not per_token:
            continue
        held = context if att.window is None else minimum(context, att.window)
        if block_size > 1:
            held = round_up(held, block_size)
        total = total + held * per_token * count
    return total


def shared_prefix_bytes(model: ModelConfig, prefix, kv_bytes: float, block_size: int = 1):
    """KV bytes of a shared prefix that are stored once: its whole blocks on unwindowed layers."""
    if not (np.any(prefix) if isinstance(prefix, np.ndarray) else prefix):
        return 0.0
    shared_tokens = (prefix // block_size) * block_size
    return sum(
        shared_tokens * layer.attention.cache_bytes_per_token(kv_bytes) * count
        for layer, count in model.layer_groups
        if layer.attention.window is None
    )


def kv_cache_bytes(model: ModelConfig, batch, context, kv_bytes: float, block_size: int = 1, prefix=0):
    per_seq = kv_bytes_per_sequence(model, context, kv_bytes, block_size)
    shared = shared_prefix_bytes(model, prefix, kv_bytes, block_size)
    return batch * per_seq - (batch - 1) * shared


def activation_bytes_per_sequence(model: ModelConfig) -> float:
    h = model.hidden_size
    widest = max(
        2 * h
        + layer.attention.q_dim
        + 2 * layer.attention.kv_dim
        + layer.attention.out_dim
        + 2 * max(layer.mlp.intermediate_size * max(layer.mlp.experts_per_token, 1), layer.mlp.shared_intermediate_size)
        for layer, _ in model.layer_groups
    )
    return widest * STREAM_BYTES + model.vocab_size * 4.0


def weights_bytes(model: ModelConfig, weight_bytes: float) -> float:
    """All parameters (embedding table and LM head included) at the weight dtype."""
    return model.num_params * weight_bytes


def max_batch_size(
    model: ModelConfig,
    context: int,
    capacity_bytes: float,
    weight_bytes: float,
    kv_bytes: float,
    block_size: int = 1,
    prefix: int = 0,
) -> int:
    """Largest B with weights + KV(B) + B x activations <= capacity; 0 if the weights (and one
    sequence) do not fit."""
    shared = shared_prefix_bytes(model, prefix, kv_bytes, block_size)
    free = capacity_bytes - weights_bytes(model, weight_bytes) - shared
    per_seq = (
        kv_bytes_per_sequence(model, context, kv_bytes, block_size) - shared + activation_bytes_per_sequence(model)
    )
    return max(0, int(free // per_seq))


def max_context_length(
    model: ModelConfig,
    batch: int,
    capacity_bytes: float,
    weight_bytes: float,
    kv_bytes: float,
    limit: int = 1 << 30,
    block_size: int = 1,
) -> int:
    """Longest context T at which `batch` sequences fit (0 if none does); binary search
    because windowed layers make KV a piecewise-linear function of T."""
    fixed = activation_bytes_per_sequence(model) + model.state_bytes_per_sequence
    free = capacity_bytes - weights_bytes(model, weight_bytes) - batch * fixed
    if free <= 0:
        return 0
    if all(layer.attention.window is None for layer, _ in model.layer_groups):
        # KV is linear in T (in whole blocks): solve directly
        per_token = kv_bytes_per_token(model, kv_bytes)
        if per_token <= 0:  # linear attention only: the context costs no memory
            return limit
        blocks = int(free // (batch * per_token * block_size))
        return min(blocks * block_size, limit)

    def fits(t: int) -> bool:  # the state is in `fixed` already
        return batch * (kv_bytes_per_sequence(model, t, kv_bytes, block_size) - model.state_bytes_per_sequence) <= free

    if not fits(1):
        return 0
    if fits(limit):
        return limit
    lo, hi = 1, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def min_tensor_parallel(
    model: ModelConfig, context: int, capacity_bytes: float, weight_bytes: float, kv_bytes: float, block_size: int = 1
) -> int | None:
    """Smallest TP degree (1, 2, 4, 8) whose per-GPU shard holds its weights and one sequence."""
    for n in TP_DEGREES:
        if model.num_heads % n:
            continue
        if max_batch_size(model.shard(n), context, capacity_bytes, weight_bytes, kv_bytes, block_size) >= 1:
            return n
    return None


def memory_budget(
    model: ModelConfig,
    batch,
    context,
    capacity_bytes: float,
    weight_bytes: float,
    kv_bytes: float,
    block_size: int = 1,
    prefix=0,
    usable_bytes: float | None = None,
) -> dict:
    """Weights + KV + activations against `usable_bytes` (capacity x memory utilisation;
    the whole capacity when not given)."""
    usable = capacity_bytes if usable_bytes is None else usable_bytes
    weights = weights_bytes(model, weight_bytes)
    kv = kv_cache_bytes(model, batch, context, kv_bytes, block_size, prefix)
    waste = batch * (
        kv_bytes_per_sequence(model, context, kv_bytes, block_size) - kv_bytes_per_sequence(model, context, kv_bytes)
    )
    act = batch * activation_bytes_per_sequence(model)
    total = weights + kv + act
    fits = total <= usable
    return {
        "weights_bytes": weights,
        "kv_bytes_per_token": kv_bytes_per_token(model, kv_bytes),
        "kv_cache_bytes": kv,
        "kv_block_waste_bytes": waste,
        "shared_prefix_bytes": shared_prefix_bytes(model, prefix, kv_bytes, block_size),
        "activation_bytes": act,
        "total_bytes": total,
        "capacity_bytes": capacity_bytes,
        "usable_bytes": usable,
        "fits": fits if isinstance(fits, np.ndarray) else bool(fits),
    }
