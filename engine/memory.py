"""Memory budget of serving B sequences of T tokens: weights + KV cache + activations.

KV bytes per token = sum over layers of 2 (K and V) x KV heads x head_dim x bytes per value
(seed 002 §四: Llama-3-8B 2 x 8 x 128 x 32 x 2 = 131,072 bytes). A sliding-window layer
keeps at most `window` tokens per sequence. KV is per sequence: nothing is shared across a
batch (seed 000; prefix sharing is a separate, explicit option).

Activation workspace convention: the live activations of one decode step of B tokens —
residual stream, normed input, q/k/v, attention output, the MLP's gate/up outputs (largest
layer's shapes; buffers are reused layer to layer) — plus fp32 logits of B x vocab.
It is small next to weights and KV, and it is stated rather than guessed larger.
"""

from __future__ import annotations

import numpy as np

from .model import ModelConfig
from .transformer import STREAM_BYTES, minimum


def kv_bytes_per_token(model: ModelConfig, kv_bytes: float) -> float:
    """KV bytes one token adds over all layers, before window caps."""
    return model.kv_values_per_token * kv_bytes


def kv_bytes_per_sequence(model: ModelConfig, context, kv_bytes: float):
    """KV bytes of one sequence holding `context` tokens (window caps applied per layer)."""
    total = 0.0
    for layer, count in model.layer_groups:
        att = layer.attention
        held = context if att.window is None else minimum(context, att.window)
        total = total + held * att.kv_values_per_token() * kv_bytes * count
    return total


def activation_bytes_per_sequence(model: ModelConfig) -> float:
    h = model.hidden_size
    widest = max(2 * h + layer.attention.q_dim + 2 * layer.attention.kv_dim + 2 * layer.mlp.intermediate_size
                 for layer, _ in model.layer_groups)
    return widest * STREAM_BYTES + model.vocab_size * 4.0


def weights_bytes(model: ModelConfig, weight_bytes: float) -> float:
    """All parameters (embedding table and LM head included) at the weight dtype."""
    return model.num_params * weight_bytes


def max_batch_size(model: ModelConfig, context: int, capacity_bytes: float, weight_bytes: float,
                   kv_bytes: float) -> int:
    """Largest B with weights + B x (KV + activations per sequence) <= capacity; 0 if the
    weights alone do not fit."""
    free = capacity_bytes - weights_bytes(model, weight_bytes)
    per_seq = kv_bytes_per_sequence(model, context, kv_bytes) + activation_bytes_per_sequence(model)
    return max(0, int(free // per_seq))


def max_context_length(model: ModelConfig, batch: int, capacity_bytes: float, weight_bytes: float,
                       kv_bytes: float, limit: int = 1 << 30) -> int:
    """Longest context T at which `batch` sequences fit (0 if none does); binary search
    because windowed layers make KV a piecewise-linear function of T."""
    free = capacity_bytes - weights_bytes(model, weight_bytes) - batch * activation_bytes_per_sequence(model)

    def fits(t: int) -> bool:
        return batch * kv_bytes_per_sequence(model, t, kv_bytes) <= free

    if not fits(1):
        return 0
    if fits(limit):
        return limit
    lo, hi = 1, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def memory_budget(model: ModelConfig, batch, context, capacity_bytes: float, weight_bytes: float,
                  kv_bytes: float) -> dict:
    weights = weights_bytes(model, weight_bytes)
    kv = batch * kv_bytes_per_sequence(model, context, kv_bytes)
    act = batch * activation_bytes_per_sequence(model)
    total = weights + kv + act
    fits = total <= capacity_bytes
    return {
        "weights_bytes": weights,
        "kv_bytes_per_token": kv_bytes_per_token(model, kv_bytes),
        "kv_cache_bytes": kv,
        "activation_bytes": act,
        "total_bytes": total,
        "capacity_bytes": capacity_bytes,
        "fits": fits if isinstance(fits, np.ndarray) else bool(fits),
    }
