"""Vectorised decode sweeps over batch size or context length (numpy arrays in, arrays out).

The same op formulas as a single analysis (engine.transformer), evaluated on arrays, so a
sweep point and a single analysis at that point agree exactly.
"""

from __future__ import annotations

import numpy as np

from .analysis import MAX_BATCH, MAX_CONTEXT, Roofs, Scenario, communication_time_s, resolve_model, usable_bytes
from .errors import EngineInputError
from .hardware import Accelerator
from .memory import activation_bytes_per_sequence, kv_cache_bytes, memory_budget, weights_bytes
from .model import ModelConfig
from .transformer import decode_ops, prefill_ops

MAX_POINTS = 10_000


def _as_array(name: str, values, high: int) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or not 1 <= arr.size <= MAX_POINTS:
        raise EngineInputError(
            name, f"must be a list of 1 to {MAX_POINTS} values", code="list_length", params={"n": MAX_POINTS}
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr > high) or np.any(arr != np.floor(arr)):
        raise EngineInputError(
            name, f"every value must be an integer in [1, {high}]", code="every_int", params={"high": high}
        )
    return arr


def decode_sweep(
    model: ModelConfig, hw: Accelerator, scenario: Scenario, batch_sizes=None, context_lengths=None
) -> dict[str, np.ndarray]:
    """Decode step bound over `batch_sizes` (at the scenario's context) or over
    `context_lengths` (at the scenario's batch). Exactly one of the two is given."""
    if (batch_sizes is None) == (context_lengths is None):
        raise EngineInputError("sweep", "give exactly one of batch_sizes or context_lengths", code="sweep_one_axis")
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
    kv = kv_cache_bytes(
        shard, batch, context, w.kv, scenario.kv_block_size, np.minimum(scenario.shared_prefix_length, context)
    )
    total = weights_bytes(shard, w.weight) + kv + batch * activation_bytes_per_sequence(shard)
    return {
        "batch_size": batch,
        "context_length": context,
        "time_s": time_s,
        "tokens_per_s": batch / time_s,
        "flops": flops,
        "bytes": byts,
        "intensity": flops / byts,
        "kv_cache_bytes": kv,
        "total_bytes": total,
        "fits": total <= hw.memory_bytes * scenario.memory_utilization,
    }


def _phase_arrays(ops, roofs: Roofs, tokens: np.ndarray, communication_s) -> dict:
    """`analysis.evaluate_phase` on arrays: the same per-op max(compute, memory), the same sum
    and the same "regime holding most of the time" rule, so every grid point equals the
    single analysis at that point (tests/engine/test_sweep_grid.py)."""
    bw = roofs.bandwidth_bytes_per_s
    shape = tokens.shape
    flops, byts, ops_time, memory_bound_time = (np.zeros(shape) for _ in range(4))
    rows = []
    for op in ops:
        op_flops = np.broadcast_to(np.asarray(op.flops, dtype=np.float64), shape)
        op_bytes = np.broadcast_to(np.asarray(op.bytes, dtype=np.float64), shape)
        compute_t = op_flops / roofs.by_unit[op.unit]
        memory_t = op_bytes / bw
        compute_bound = compute_t > memory_t
        t = np.where(compute_bound, compute_t, memory_t)
        rows.append(
            {
                "name": op.name,
                "unit": op.unit,
                "flops": op_flops,
                "bytes": op_bytes,
                "time_s": t,
                "compute_bound": compute_bound,
                "layers": op.layers,
            }
        )
        flops += op_flops
        byts += op_bytes
        ops_time += t
        memory_bound_time += np.where(compute_bound, 0.0, t)
    time_s = ops_time + communication_s
    for row in rows:
        row["share_of_step"] = row["time_s"] / time_s
    return {
        "flops": flops,
        "bytes": byts,
        "time_s": time_s,
        "fraction_of_roof": flops / time_s / np.minimum(roofs.by_unit["tensor"], flops / byts * bw),
        "tokens_per_s": tokens / time_s,
        "compute_bound": memory_bound_time < ops_time - memory_bound_time,
        "ops": rows,
    }


def phase_grid(model: ModelConfig, hw: Accelerator, scenario: Scenario, batch_sizes, context_lengths) -> dict:
    """Decode and prefill at every (batch, context) pair given (two equal-length arrays: a
    flattened grid of slider stops), each op placed under its roof: what the dashboard moves
    its points with while a slider drags, with no server round trip. One vectorised pass over
    the op list instead of one analysis per stop (154 stops x 3 GPUs: ~5 ms, not ~150 ms)."""
    batch = _as_array("batch_sizes", batch_sizes, MAX_BATCH)
    context = _as_array("context_lengths", context_lengths, MAX_CONTEXT)
    if batch.shape != context.shape:
        raise EngineInputError(
            "sweep", "batch_sizes and context_lengths must have the same length", code="sweep_same_length"
        )
    model = resolve_model(model, scenario)
    w = scenario.widths
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    shard = model.shard(scenario.tensor_parallel)
    n = scenario.tensor_parallel
    decode = _phase_arrays(
        decode_ops(shard, batch, context, w, scenario.flash_attention),
        roofs,
        batch,
        communication_time_s(model, batch, roofs, hw.id, n),
    )
    prefill_tokens = batch * context
    prefill = _phase_arrays(
        prefill_ops(shard, batch, context, w, scenario.flash_attention, scenario.causal),
        roofs,
        prefill_tokens,
        communication_time_s(model, prefill_tokens, roofs, hw.id, n),
    )
    # the memory budget at each stop, as analysis.analyze_one computes it (fits = hollow points)
    memory = memory_budget(
        shard,
        batch,
        context,
        hw.memory_bytes,
        w.weight,
        w.kv,
        scenario.kv_block_size,
        np.minimum(scenario.shared_prefix_length, context),
        usable_bytes(hw, scenario),
    )
    return {
        "batch_size": batch,
        "context_length": context,
        "decode": decode,
        "prefill": prefill,
        "fits": np.asarray(memory["fits"]) & np.ones(batch.shape, dtype=bool),
    }
