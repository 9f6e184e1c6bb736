"""How many of the C requests in flight fit in memory at once (the running batch).

Per GPU: weights (attention, dense layers, embeddings and shared experts split
tensor_parallel ways; routed experts split moe_tensor_parallel x expert_parallel ways), plus
for each request the rank holds its KV cache at the mean context (input + output / 2) and
its share of the activation workspace (engine.memory's convention), under the serving
backend's own memory rule (memory_rule: vLLM's gpu_memory_utilization, SGLang's
mem_fraction_static, TensorRT-LLM's free_gpu_memory_fraction; the KV cache as pages, Kwon et
al., "Efficient Memory Management for LLM Serving with PagedAttention", SOSP 2023). Requests
that do not fit wait in the queue; that is what serving engines do instead of failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..memory import activation_bytes_per_sequence, kv_bytes_per_sequence
from ..model import ModelConfig
from .scenario import ServingScenario, shard_degree
from .speculative import draft_memory

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
    mean_context: float = 0.0
    rule: str = ""  # the backend's memory rule in words (memory_rule)

    def reason_at(self, concurrency: int) -> str:
        """Why `concurrency` requests all run, or how many queue and why (the memory cap)."""
        queued = concurrency - min(concurrency, self.max_running_batch)
        if not queued:
            return f"all {concurrency} requests fit (up to {self.max_running_batch} would)"
        room = (self.usable_bytes_per_gpu - self.weights_bytes_per_gpu) / GIB
        return (
            f"{queued} of {concurrency} requests queue: KV cache at the mean context "
            f"({self.mean_context:.0f} tokens, {self.kv_bytes_per_request / GIB:.3f} GiB per request per GPU) fits "
            f"{self.max_running_batch} requests in the {room:.1f} GiB per GPU left after weights under {self.rule}"
        )


# Each backend's own memory rule, with its documented default:
# - vLLM: weights, activations and the KV cache within gpu_memory_utilization of the whole card
#   (vllm/config/cache.py: CacheConfig.gpu_memory_utilization = 0.9); the activation peak is
#   profiled, counted here per request (engine.memory's workspace).
# - SGLang: weights and the KV pool within mem_fraction_static of the card; activations and CUDA
#   graphs live in the rest. Its default (sglang/srt/server_args.py,
#   ServerArgs._handle_gpu_memory_settings) reserves, in MiB, 512 + 1.5 x max(chunked prefill,
#   2048) + 2 x cuda_graph_max_bs + TP x PP / 8 x 1024, with attention DP 3 x (4.5 x past 300)
#   cuda_graph_max_bs x DP more, at least 10 GiB on a card of more than 60 GiB; the fraction is
#   (card - reserved) / card.
# - TensorRT-LLM: the KV cache takes free_gpu_memory_fraction of the memory left free once the
#   weights and the activations are in place (tensorrt_llm/llmapi/llm_args.py:
#   KvCacheConfig.free_gpu_memory_fraction = 0.9).
# A scenario with no backend gets vLLM's rule, the most common. A memory_utilization the user
# gives is that backend's own knob (gpu_memory_utilization, mem_fraction_static,
# free_gpu_memory_fraction).
DEFAULT_FRACTION = {None: 0.9, "vllm": 0.9, "trtllm": 0.9}
MIB = 2**20


def sglang_mem_fraction_static(hw: Accelerator, sc: ServingScenario) -> float:
    """SGLang's default mem_fraction_static for the card and layout (see above)."""
    from .step import step_token_budget  # the same chunked-prefill default

    gpu_mib = hw.memory_bytes / MIB
    chunk = step_token_budget("sglang", hw.memory_bytes)
    graph_bs = 256 if gpu_mib < 160 * 1024 and sc.gpus < 4 else 512
    reserved = 512 + 1.5 * max(chunk, 2048) + 2 * graph_bs + sc.gpus / 8 * 1024
    if sc.attention_data_parallel > 1:
        reserved += graph_bs * sc.attention_data_parallel * (3 + (1.5 if graph_bs > 300 else 0))
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    # Wide attention DP reserves more than the card has (72 ranks: 160 GiB): SGLang's DeepSeek
    # recipes then set it by hand, 0.75-0.85 (its DeepSeek V3 benchmark on 8 x H200 with
    # --enable-dp-attention: --mem-fraction-static 0.8); the default never goes below that.
    return max(round((gpu_mib - reserved) / gpu_mib, 3), SGLANG_DP_ATTENTION_FRACTION)


SGLANG_DP_ATTENTION_FRACTION = 0.8


def memory_rule(hw: Accelerator, sc: ServingScenario, weights: float, act: float) -> tuple[float, float, str]:
    """(bytes per GPU for the KV cache and what grows with it, bytes each request needs besides
    its KV, the rule in words) under the scenario's backend."""
    total = hw.memory_bytes
    if sc.backend == "sglang":
        frac = sc.memory_utilization or sglang_mem_fraction_static(hw, sc)
        return total * frac - weights, 0.0, f"SGLang mem_fraction_static {frac:g} (weights and KV pool)"
    if sc.backend == "trtllm":
        frac = sc.memory_utilization or DEFAULT_FRACTION["trtllm"]
        # activations of a full step's token budget are in place before the KV cache is sized
        from .step import step_token_budget

        free = total - weights - act * step_token_budget("trtllm", total)
        return frac * free, 0.0, f"TensorRT-LLM free_gpu_memory_fraction {frac:g} of the memory left after weights"
    frac = sc.memory_utilization or DEFAULT_FRACTION[None]
    name = "vLLM gpu_memory_utilization" if sc.backend == "vllm" else "memory_utilization (vLLM's rule)"
    return total * frac - weights, act, f"{name} {frac:g} of the card"


def capacity(model: ModelConfig, hw: Accelerator, sc: ServingScenario) -> Capacity:
    """What fits under the backend's memory rule (memory_rule): the running batch is
    min(concurrency, what fits); raises when not even the weights and one request fit (no
    answer would mean anything)."""
    shard = model.shard(shard_degree(model.num_heads, sc.tensor_parallel))
    w = sc.widths
    weights = weights_bytes_per_gpu(model, sc)
    kv = float(kv_bytes_per_sequence(shard, sc.mean_context, w.kv))
    if sc.speculative is not None:  # the draft's weights and cache (engine.serving.speculative)
        draft_weights, draft_kv = draft_memory(model, sc)
        weights, kv = weights + draft_weights, kv + draft_kv
    act = activation_bytes_per_sequence(shard)
    room, per_request_extra, rule = memory_rule(hw, sc, weights, act)
    per_rank = math.floor(room / (kv + per_request_extra)) if room > 0 else 0
    fits = per_rank * sc.attention_data_parallel
    usable = room + weights
    if fits < 1:
        raise EngineInputError(
            "tensor_parallel",
            f"{weights / GIB:.1f} GiB of weights per GPU and one request's KV cache do not fit in "
            f"{max(usable, 0) / GIB:.1f} GiB ({hw.id}, {rule})",
            "more GPUs (tensor_parallel, attention_data_parallel, expert_parallel) or narrower weights",
            code="serving_no_fit",
            params={
                "weights": f"{weights / GIB:.1f}",
                "usable": f"{max(usable, 0) / GIB:.1f}",
                "hardware": hw.id,
                "rule": rule,
            },
        )
    cap = Capacity(0, 0, weights, kv, per_request_extra, usable, fits, "", sc.mean_context, rule)
    running = min(sc.concurrency, fits)
    return replace(cap, running_batch=running, queued=sc.concurrency - running, reason=cap.reason_at(sc.concurrency))
