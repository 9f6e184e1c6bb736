"""One request end to end: time to first token, time per output token, end-to-end time and
cost, and the throughput-interactivity curve serving teams pick a batch on.

A batch of B requests, each with a prompt of T = context_length tokens, generates N =
output_tokens tokens per sequence (docs/api.md "One request"):
- ttft_s: the prefill bound of the B prompts (Pope et al. 2022; the `prefill.time_s` of an analysis).
- decode step i (i = 0 .. N-1) has T + i tokens cached per sequence; its bound is the sum over
  ops of max(FLOPs / peak, bytes / bandwidth) plus TP all-reduces (engine.analysis).
- tpot_s = (1/N) x sum of those N steps: the mean, not the last step, and not N x the first.
- e2e_s = ttft_s + sum of the steps.
- output_tokens_per_s_per_sequence = 1 / tpot_s: what one user sees while tokens stream
  (NVIDIA GenAI-Perf's "output token throughput per user"; prefill excluded).
- output_tokens_per_s = B x N / e2e_s: the whole TP group's output rate over the request,
  prefill included; cost follows from it.
- cost_per_million_output_tokens = gpu_hour_price x GPUs (TP) x e2e_s / 3600 / (B x N) x 1e6
  (llm-analysis reports cost the same way: GPU-hours x price over the tokens produced).

The sum over steps is exact and in closed form. Between window boundaries every op's FLOPs and
bytes are affine in the cached length T (attention reads T, or min(T, window), tokens per
sequence; every other op is independent of T), so each op's time max(c(T), m(T)) is the
maximum of two affine functions: linear on each side of the one crossing point. The sum of a
linear function over consecutive integers is count x (first + last) / 2, so splitting at the
window sizes and at each op's crossing point gives the exact sum with two op-list evaluations
per segment, whatever N. tests/engine/test_request.py checks it against a step-by-step sum.
Everything is vectorised over the batch, so one call gives the whole curve over B.
"""

from __future__ import annotations

import math

import numpy as np

from .analysis import (
    MAX_BATCH,
    MAX_CONTEXT,
    Roofs,
    Scenario,
    communication_time_s,
    resolve_model,
    usable_bytes,
)
from .errors import EngineInputError
from .hardware import Accelerator
from .memory import max_batch_size, memory_budget
from .model import ModelConfig
from .transformer import decode_ops, prefill_ops

MAX_GPU_HOUR_PRICE = 10_000.0  # USD per GPU-hour: far above any list price, finite
CURVE_POINTS = 48


def check_output_tokens(output_tokens: object, context_length: int) -> int:
    high = MAX_CONTEXT - context_length + 1
    if isinstance(output_tokens, bool) or not isinstance(output_tokens, int) or not 1 <= output_tokens <= high:
        raise EngineInputError(
            "output_tokens",
            f"{output_tokens!r} is not an integer in [1, {high}]",
            f"context_length + output_tokens - 1 <= {MAX_CONTEXT}",
            code="output_tokens",
            params={"value": repr(output_tokens), "high": high, "max": MAX_CONTEXT},
        )
    return output_tokens


def check_price(gpu_hour_price: object) -> float | None:
    if gpu_hour_price is None:
        return None
    if (
        isinstance(gpu_hour_price, bool)
        or not isinstance(gpu_hour_price, (int, float))
        or not 0 < gpu_hour_price <= MAX_GPU_HOUR_PRICE
        or not math.isfinite(gpu_hour_price)
    ):
        raise EngineInputError(
            "gpu_hour_price",
            f"{gpu_hour_price!r} is not a price in (0, {MAX_GPU_HOUR_PRICE:g}]",
            "USD per GPU-hour, or null",
            code="price",
            params={"value": repr(gpu_hour_price), "high": f"{MAX_GPU_HOUR_PRICE:g}"},
        )
    return float(gpu_hour_price)


def _affine_sum(first, last, count):
    """Sum of a linear function over `count` consecutive integers, from its first and last values."""
    return count * (first + last) / 2.0


def _sum_of_max(c_lo, c_hi, m_lo, m_hi, lo: int, hi: int):
    """Exact sum over T = lo..hi of max(c(T), m(T)) for c, m affine in T (given at lo and hi).
    Arrays broadcast (one value per batch size)."""
    n = hi - lo + 1
    if n == 1:
        return np.maximum(c_lo, m_lo)
    span = hi - lo
    d_lo, d_hi = c_lo - m_lo, c_hi - m_hi
    whole_c = _affine_sum(c_lo, c_hi, n)
    whole_m = _affine_sum(m_lo, m_hi, n)
    same_sign = (d_lo >= 0) == (d_hi >= 0)
    # crossing at x* = lo + d_lo / (d_lo - d_hi) x span; k = last integer on the lo side
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(same_sign, lo, lo + d_lo / np.where(same_sign, 1.0, d_lo - d_hi) * span)
    k = np.clip(np.floor(x), lo, hi - 1)

    def at(v_lo, v_hi, t):
        return v_lo + (v_hi - v_lo) * (t - lo) / span

    left_c = _affine_sum(c_lo, at(c_lo, c_hi, k), k - lo + 1) + _affine_sum(at(m_lo, m_hi, k + 1), m_hi, hi - k)
    left_m = _affine_sum(m_lo, at(m_lo, m_hi, k), k - lo + 1) + _affine_sum(at(c_lo, c_hi, k + 1), c_hi, hi - k)
    split = np.where(d_lo >= 0, left_c, left_m)
    return np.where(same_sign, np.where(d_lo >= 0, whole_c, whole_m), split)


def _segments(model: ModelConfig, first: int, last: int) -> list[tuple[int, int]]:
    """[lo, hi] ranges of cached lengths on which no window (nor DSA's top-k) starts capping."""
    caps = {layer.attention.attended_tokens_cap for layer, _ in model.layer_groups}
    cuts = sorted(c for c in caps if c is not None and first <= c < last)
    out, lo = [], first
    for w in cuts:
        out.append((lo, w))
        lo = w + 1
    out.append((lo, last))
    return out


def decode_steps_sums(model: ModelConfig, hw: Accelerator, scenario: Scenario, batch, output_tokens: int) -> dict:
    """Exact sums over the N decode steps with caches of T .. T + N - 1 tokens (T the scenario's
    context), for each batch size in `batch` (an int or an array): `time_s` (the steps'
    bounds), `flops` and `bytes` (what the steps compute and move, per GPU)."""
    resolved = resolve_model(model, scenario)
    shard = resolved.shard(scenario.tensor_parallel)
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    w, fa = scenario.widths, scenario.flash_attention
    bw = roofs.bandwidth_bytes_per_s
    t0 = scenario.context_length
    total = communication_time_s(resolved, batch, roofs, hw.id, scenario.tensor_parallel) * output_tokens
    flops = byts = 0.0
    for lo, hi in _segments(shard, t0, t0 + output_tokens - 1):
        at_lo = decode_ops(shard, batch, lo, w, fa)
        at_hi = decode_ops(shard, batch, hi, w, fa)
        for a, b in zip(at_lo, at_hi, strict=True):
            peak = roofs.by_unit[a.unit]
            total = total + _sum_of_max(
                np.asarray(a.flops / peak, dtype=np.float64),
                np.asarray(b.flops / peak, dtype=np.float64),
                np.asarray(a.bytes / bw, dtype=np.float64),
                np.asarray(b.bytes / bw, dtype=np.float64),
                lo,
                hi,
            )
            # FLOPs and bytes are affine in T on the segment: their sums are exact too
            flops = flops + _affine_sum(a.flops, b.flops, hi - lo + 1)
            byts = byts + _affine_sum(a.bytes, b.bytes, hi - lo + 1)
    return {"time_s": total, "flops": flops, "bytes": byts}


def decode_steps_sum_s(model: ModelConfig, hw: Accelerator, scenario: Scenario, batch, output_tokens: int):
    """Exact sum of the decode-step bounds for caches of T .. T + N - 1 tokens."""
    return decode_steps_sums(model, hw, scenario, batch, output_tokens)["time_s"]


def prefill_time_s(model: ModelConfig, hw: Accelerator, scenario: Scenario, batch):
    """The prefill bound (time to first token) of `batch` prompts of the scenario's context,
    the same sum as `analysis.evaluate_phase`, on arrays of batch sizes."""
    resolved = resolve_model(model, scenario)
    shard = resolved.shard(scenario.tensor_parallel)
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    t = scenario.context_length
    total = communication_time_s(resolved, batch * t, roofs, hw.id, scenario.tensor_parallel)
    for op in prefill_ops(shard, batch, t, scenario.widths, scenario.flash_attention, scenario.causal):
        total = total + np.maximum(
            np.asarray(op.flops, dtype=np.float64) / roofs.by_unit[op.unit],
            np.asarray(op.bytes, dtype=np.float64) / roofs.bandwidth_bytes_per_s,
        )
    return total


def request_arrays(
    model: ModelConfig,
    hw: Accelerator,
    scenario: Scenario,
    output_tokens: int,
    batch_sizes,
    gpu_hour_price: float | None = None,
) -> dict:
    """The request figures for each batch size in `batch_sizes` (context, dtypes, TP and roofs
    from the scenario). Arrays in, arrays out; `cost_per_million_output_tokens` is None
    without a price."""
    n = check_output_tokens(output_tokens, scenario.context_length)
    price = check_price(gpu_hour_price)
    batch = np.asarray(batch_sizes, dtype=np.float64)
    if (
        batch.ndim != 1
        or batch.size < 1
        or np.any(batch < 1)
        or np.any(batch > MAX_BATCH)
        or np.any(batch != np.floor(batch))
    ):
        raise EngineInputError(
            "batch_sizes",
            f"every value must be an integer in [1, {MAX_BATCH}]",
            code="every_int",
            params={"high": MAX_BATCH},
        )
    gpus = scenario.tensor_parallel
    ttft = prefill_time_s(model, hw, scenario, batch) + np.zeros_like(batch)
    steps = decode_steps_sum_s(model, hw, scenario, batch, n) + np.zeros_like(batch)
    tpot = steps / n
    e2e = ttft + steps
    group_rate = batch * n / e2e
    shard = resolve_model(model, scenario).shard(gpus)
    w = scenario.widths
    end = memory_budget(
        shard,
        batch,
        scenario.context_length + n - 1,
        hw.memory_bytes,
        w.weight,
        w.kv,
        scenario.kv_block_size,
        min(scenario.shared_prefix_length, scenario.context_length),
        usable_bytes(hw, scenario),
    )
    return {
        "batch_size": batch,
        "ttft_s": ttft,
        "tpot_s": tpot,
        "decode_time_s": steps,
        "e2e_s": e2e,
        "output_tokens_per_s_per_sequence": 1.0 / tpot,
        "output_tokens_per_s": group_rate,
        "output_tokens_per_s_per_gpu": group_rate / gpus,
        "cost_per_million_output_tokens": None if price is None else price * gpus * e2e / 3600.0 / (batch * n) * 1e6,
        "fits_at_end": np.asarray(end["fits"]),
    }


def request_block(
    model: ModelConfig, hw: Accelerator, scenario: Scenario, output_tokens: int, gpu_hour_price: float | None = None
) -> dict:
    """The `request` block of one analysis result (the scenario's batch), JSON-ready."""
    a = request_arrays(model, hw, scenario, output_tokens, [scenario.batch_size], gpu_hour_price)
    cost = a["cost_per_million_output_tokens"]
    return {
        "output_tokens": output_tokens,
        "gpu_hour_price": check_price(gpu_hour_price),
        "ttft_s": float(a["ttft_s"][0]),
        "tpot_s": float(a["tpot_s"][0]),
        "decode_time_s": float(a["decode_time_s"][0]),
        "e2e_s": float(a["e2e_s"][0]),
        "output_tokens_per_s_per_sequence": float(a["output_tokens_per_s_per_sequence"][0]),
        "output_tokens_per_s": float(a["output_tokens_per_s"][0]),
        "cost_per_million_output_tokens": None if cost is None else float(cost[0]),
        "fits_at_end": bool(a["fits_at_end"][0]),
    }


def attach_requests(
    analysis: dict,
    model: ModelConfig,
    hardware: list[Accelerator],
    scenario: Scenario,
    output_tokens: int | None,
    gpu_hour_price: float | None = None,
) -> dict:
    """Give each result of an analysis its `request` block; without output_tokens the analysis
    is left as it is (like `measured_decode`, the block is there only when asked for)."""
    if output_tokens is None:
        if gpu_hour_price is not None:
            raise EngineInputError(
                "gpu_hour_price", "a price needs output_tokens (cost is per output token)", code="price_needs_output"
            )
        return analysis
    for hw, r in zip(hardware, analysis["results"], strict=True):
        r["request"] = request_block(model, hw, scenario, output_tokens, gpu_hour_price)
    return analysis


def curve_batches(
    model: ModelConfig,
    hw: Accelerator,
    scenario: Scenario,
    output_tokens: int | None = None,
    points: int = CURVE_POINTS,
) -> np.ndarray:
    """Batch sizes 1 .. the largest batch that fits (at the request's last cached length when
    output_tokens is given), about `points` of them, geometrically spaced, ends included."""
    resolved = resolve_model(model, scenario)
    shard = resolved.shard(scenario.tensor_parallel)
    w = scenario.widths
    longest = scenario.context_length + (output_tokens - 1 if output_tokens else 0)
    top = min(
        MAX_BATCH,
        max_batch_size(
            shard, min(longest, MAX_CONTEXT), usable_bytes(hw, scenario), w.weight, w.kv, scenario.kv_block_size
        ),
    )
    if top < 1:
        return np.zeros(0)
    return np.unique(np.round(np.geomspace(1, top, max(2, points)))) if top > 1 else np.ones(1)


def throughput_interactivity(
    model: ModelConfig,
    hw: Accelerator,
    scenario: Scenario,
    output_tokens: int | None = None,
    batch_sizes=None,
    gpu_hour_price: float | None = None,
) -> dict:
    """The throughput-interactivity curve along batch 1 .. max batch (or `batch_sizes`):
    x = per-user output tokens/s = 1 / TPOT, y = output tokens/s per GPU. Without
    output_tokens, TPOT is the decode step at the scenario's context and y = B / step / GPUs
    (steady decode); with it, TPOT is the request's mean step and y = B x N / e2e / GPUs
    (prefill included, the rate cost is computed from).
    Arrays, one value per batch size; empty when not even one sequence fits."""
    batch = curve_batches(model, hw, scenario, output_tokens) if batch_sizes is None else batch_sizes
    if len(batch) == 0:
        empty = np.zeros(0)
        return {
            "batch_size": empty,
            "tpot_s": empty,
            "output_tokens_per_s_per_sequence": empty,
            "output_tokens_per_s_per_gpu": empty,
            "cost_per_million_output_tokens": None,
        }
    if output_tokens is None:
        if gpu_hour_price is not None:
            raise EngineInputError(
                "gpu_hour_price", "a price needs output_tokens (cost is per output token)", code="price_needs_output"
            )
        b = np.asarray(batch, dtype=np.float64)
        step = decode_steps_sum_s(model, hw, scenario, b, 1) + np.zeros_like(b)
        return {
            "batch_size": b,
            "tpot_s": step,
            "output_tokens_per_s_per_sequence": 1.0 / step,
            "output_tokens_per_s_per_gpu": b / step / scenario.tensor_parallel,
            "cost_per_million_output_tokens": None,
        }
    a = request_arrays(model, hw, scenario, output_tokens, batch, gpu_hour_price)
    return {
        "batch_size": a["batch_size"],
        "tpot_s": a["tpot_s"],
        "output_tokens_per_s_per_sequence": a["output_tokens_per_s_per_sequence"],
        "output_tokens_per_s_per_gpu": a["output_tokens_per_s_per_gpu"],
        "cost_per_million_output_tokens": a["cost_per_million_output_tokens"],
    }


__all__ = [
    "attach_requests",
    "curve_batches",
    "decode_steps_sum_s",
    "decode_steps_sums",
    "prefill_time_s",
    "request_arrays",
    "request_block",
    "throughput_interactivity",
]
