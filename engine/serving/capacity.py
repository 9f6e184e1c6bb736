"""How many of the C requests in flight fit in memory at once (the running batch).

Per GPU: weights (attention, dense layers, embeddings and shared experts split
tensor_parallel ways; routed experts split moe_tensor_parallel x expert_parallel ways), plus
for each request the rank holds its KV cache at the mean context (input + output / 2) and
its share of the activation workspace (engine.memory's convention), all under
capacity x memory_utilization (vLLM's gpu_memory_utilization, default 0.9; Kwon et al.,
"Efficient Memory Management for LLM Serving with PagedAttention", SOSP 2023). Requests that
do not fit wait in the queue; that is what serving engines do instead of failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..memory import activation_bytes_per_sequence, kv_bytes_per_sequence
from ..model import ModelConfig
from .scenario import ServingScenario, shard_degree

GIB = 2**30


def routed_expert_params(model: ModelConfig) -> float:
    h = model.hidden_size
    return float(sum(layer.mlp.num_experts * layer.mlp.expert_params(h) * c for layer, c in model.layer_groups))


def weights_bytes_per_gpu(model: ModelConfig, sc: ServingScenario) -> float:
    shard = model.shard(shard_degree(model.num_heads, sc.tensor_parallel))
    experts = routed_expert_params(model)
    rest = shard.num_params - routed_expert_params(shard)
    return (rest + experts / (sc.moe_tensor_parallel * sc.expert_parallel)) * sc.widths.weight


@dataclass(frozen=True)
class Capacity:
    running_batch: int
    queued: int
    weights_bytes_per_gpu: float
    kv_bytes_per_request: float  # on its rank's GPUs, each GPU's part, at the mean context
    workspace_bytes_per_request: float
    usable_bytes_per_gpu: float
    max_running_batch: int
    reason: str


def capacity(model: ModelConfig, hw: Accelerator, sc: ServingScenario) -> Capacity:
    """Running batch = min(concurrency, what fits); raises when not even the weights and one
    request fit (no answer would mean anything)."""
    shard = model.shard(shard_degree(model.num_heads, sc.tensor_parallel))
    w = sc.widths
    weights = weights_bytes_per_gpu(model, sc)
    usable = hw.memory_bytes * sc.memory_utilization
    kv = float(kv_bytes_per_sequence(shard, sc.mean_context, w.kv))
    act = activation_bytes_per_sequence(shard)
    per_rank = math.floor((usable - weights) / (kv + act)) if usable > weights else 0
    fits = per_rank * sc.attention_data_parallel
    if fits < 1:
        raise EngineInputError(
            "tensor_parallel",
            f"{weights / GIB:.1f} GiB of weights per GPU and one request's KV cache do not fit in "
            f"{usable / GIB:.1f} GiB ({hw.id} x memory_utilization {sc.memory_utilization})",
            "more GPUs (tensor_parallel, attention_data_parallel, expert_parallel) or narrower weights",
            code="serving_no_fit",
            params={
                "weights": f"{weights / GIB:.1f}",
                "usable": f"{usable / GIB:.1f}",
                "hardware": hw.id,
                "utilization": sc.memory_utilization,
            },
        )
    running = min(sc.concurrency, fits)
    queued = sc.concurrency - running
    if queued:
        reason = (
            f"{queued} of {sc.concurrency} requests queue: KV cache at the mean context "
            f"({sc.mean_context:.0f} tokens, {kv / GIB:.3f} GiB per request per GPU) fits {fits} requests in the "
            f"{(usable - weights) / GIB:.1f} GiB per GPU left after weights under memory_utilization "
            f"{sc.memory_utilization}"
        )
    else:
        reason = f"all {sc.concurrency} requests fit (up to {fits} would)"
    return Capacity(running, queued, weights, kv, act, usable, fits, reason)
