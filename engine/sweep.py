"""Vectorised decode sweeps over batch size or context length (numpy arrays in, arrays out).

The same op formulas as a single analysis (engine.transformer), evaluated on arrays, so a
sweep point and a single analysis at that point agree exactly.
"""

from __future__ import annotations

import numpy as np

from .analysis import MAX_BATCH, MAX_CONTEXT, Roofs, Scenario, communication_time_s, resolve_model
from .errors import EngineInputError
from .hardware import Accelerator
from .memory import activation_bytes_per_sequence, kv_cache_bytes, weights_bytes
from .model import ModelConfig
from .transformer import decode_ops

MAX_POINTS = 10_000


def _as_array(name: str, values, high: int) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or not 1 <= arr.size <= MAX_POINTS:
        raise EngineInputError(name, f"must be a list of 1 to {MAX_POINTS} values")
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr > high) or np.any(arr != np.floor(arr)):
        raise EngineInputError(name, f"every value must be an integer in [1, {high}]")
    return arr


def decode_sweep(model: ModelConfig, hw: Accelerator, scenario: Scenario, batch_sizes=None,
                 context_lengths=None) -> dict[str, np.ndarray]:
    """Decode step bound over `batch_sizes` (at the scenario's context) or over
    `context_lengths` (at the scenario's batch). Exactly one of the two is given."""
    if (batch_sizes is None) == (context_lengths is None):
        raise EngineInputError("sweep", "give exactly one of batch_sizes or context_lengths")
    model = resolve_model(model, scenario)
    if batch_sizes is not None:
        batch = _as_array("batch_sizes", batch_sizes, MAX_BATCH)
        context = np.full_like(batch, scenario.context_length)
    else:
        context = _as_array("context_lengths", context_lengths, MAX_CONTEXT)
        batch = np.full_like(context, scenario.batch_size)
    w = scenario.widths
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    shard = model.shard(scenario.tensor_parallel)
    time_s = communication_time_s(model, batch, roofs, hw.id, scenario.tensor_parallel) + np.zeros_like(batch)
    flops = np.zeros_like(batch)
    byts = np.zeros_like(batch)
    for op in decode_ops(shard, batch, context, w, scenario.flash_attention):
        op_flops = np.broadcast_to(op.flops, batch.shape)
        op_bytes = np.broadcast_to(op.bytes, batch.shape)
        time_s += np.maximum(op_flops / roofs.by_unit[op.unit], op_bytes / roofs.bandwidth_bytes_per_s)
        flops += op_flops
        byts += op_bytes
    kv = kv_cache_bytes(shard, batch, context, w.kv, scenario.kv_block_size,
                        np.minimum(scenario.shared_prefix_length, context))
    total = weights_bytes(shard, w.weight) + kv + batch * activation_bytes_per_sequence(shard)
    return {
        "batch_size": batch, "context_length": context, "time_s": time_s, "tokens_per_s": batch / time_s,
        "flops": flops, "bytes": byts, "intensity": flops / byts, "kv_cache_bytes": kv,
        "total_bytes": total, "fits": total <= hw.memory_bytes * scenario.memory_utilization,
    }
