"""One scenario, many accelerators: decode and prefill on the roofline plus the memory budget.

The result has one shape everywhere (CLI --json, HTTP API, dashboard):
{"model": {...}, "scenario": {...}, "results": [{"hardware_id", "ridge_point", "decode",
"prefill", "memory", ...}, ...]}. Under tensor parallelism every number is per GPU except
tokens_per_s, which is the whole group's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .errors import EngineInputError
from .hardware import Accelerator
from .memory import TP_DEGREES, max_batch_size, memory_budget, min_tensor_parallel
from .metrics import ring_allreduce_time_s
from .model import ModelConfig
from .ops import Op
from .precision import DTYPES, check_dtype, dtype_bytes
from .transformer import Widths, allreduce_messages, decode_ops, prefill_ops

# Documented upper bounds (README "Conventions"): generous, but finite.
MAX_BATCH = 65536
MAX_CONTEXT = 16 * 1024 * 1024
MAX_BLOCK = 4096
# Fixed cost of one all-reduce message besides its bytes (launch and ring hops): an
# assumption of the order NCCL shows for small messages on NVLink (nccl-tests), stated here.
ALLREDUCE_LATENCY_S = 10e-6


@dataclass(frozen=True)
class Scenario:
    batch_size: int = 1
    context_length: int = 4096
    num_kv_heads: int | None = None
    weight_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    compute_dtype: str = "bf16"
    flash_attention: bool = True
    causal: bool = True
    tensor_parallel: int = 1
    kv_block_size: int = 16
    shared_prefix_length: int = 0

    def __post_init__(self) -> None:
        _check_int("batch_size", self.batch_size, 1, MAX_BATCH)
        _check_int("context_length", self.context_length, 1, MAX_CONTEXT)
        if self.num_kv_heads is not None:
            _check_int("num_kv_heads", self.num_kv_heads, 1, 1 << 16)
        check_dtype(self.weight_dtype, "weight_dtype")
        check_dtype(self.kv_dtype, "kv_dtype")
        check_dtype(self.compute_dtype, "compute_dtype")
        if isinstance(self.tensor_parallel, bool) or self.tensor_parallel not in TP_DEGREES:
            raise EngineInputError("tensor_parallel", f"{self.tensor_parallel!r} is not supported", TP_DEGREES)
        _check_int("kv_block_size", self.kv_block_size, 1, MAX_BLOCK)
        _check_int("shared_prefix_length", self.shared_prefix_length, 0, self.context_length)

    @property
    def widths(self) -> Widths:
        return Widths(dtype_bytes(self.weight_dtype, "weight_dtype"), dtype_bytes(self.kv_dtype, "kv_dtype"),
                      dtype_bytes(self.compute_dtype, "compute_dtype"))


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(name, f"{value!r} is not an integer in [{low}, {high}]")


def resolve_model(model: ModelConfig, scenario: Scenario) -> ModelConfig:
    return model if scenario.num_kv_heads is None else model.with_kv_heads(scenario.num_kv_heads)


@lru_cache(maxsize=512)
def phase_ops(model: ModelConfig, scenario: Scenario) -> tuple[tuple[Op, ...], tuple[Op, ...]]:
    """(decode ops, prefill ops) of one GPU's shard — hardware independent, so computed once."""
    shard = model.shard(scenario.tensor_parallel)
    w = scenario.widths
    decode = decode_ops(shard, scenario.batch_size, scenario.context_length, w, scenario.flash_attention)
    prefill = prefill_ops(shard, scenario.batch_size, scenario.context_length, w, scenario.flash_attention,
                          scenario.causal)
    return tuple(decode), tuple(prefill)


@dataclass(frozen=True)
class Roofs:
    """What an op needs from an accelerator, resolved for a compute dtype."""

    tensor_dtype: str
    tensor_flops_per_s: float
    vector_unit: str
    vector_flops_per_s: float
    bandwidth_bytes_per_s: float
    link: tuple[str, float] | None
    by_unit: dict = field(default_factory=dict)

    @classmethod
    def of(cls, hw: Accelerator, compute_dtype: str) -> "Roofs":
        tensor_dtype, tensor = hw.tensor_roof(compute_dtype)
        vector_unit, vector = hw.vector_roof()
        return cls(tensor_dtype, tensor, vector_unit, vector, hw.memory_bandwidth_bytes_per_s, hw.link_bandwidth(),
                   {"tensor": tensor, "vector": vector})


def communication_time_s(model: ModelConfig, tokens, roofs: Roofs, hardware_id: str, n: int):
    """All-reduce time of one pass under TP degree n (ring formula, seed 000 多卡)."""
    if n == 1:
        return 0.0
    if roofs.link is None:
        raise EngineInputError("tensor_parallel", f"{hardware_id} lists no GPU-to-GPU link bandwidth", [1])
    count, size = allreduce_messages(model, tokens)
    return count * ring_allreduce_time_s(size, roofs.link[1], n, ALLREDUCE_LATENCY_S)


def evaluate_phase(ops: tuple[Op, ...], roofs: Roofs, tokens: int, communication_s: float = 0.0) -> dict:
    """Place each op under its unit's roof; the phase runs its ops back to back. TP
    all-reduces sit on the critical path (their result is needed at once, seed 000 多卡), so
    `time_s` adds them; `time_with_overlap_s` is the bound if they were fully hidden."""
    bw = roofs.bandwidth_bytes_per_s
    rows = []
    flops = byts = ops_time = memory_bound_time = compute_time = memory_time = 0.0
    for op in ops:
        compute_t = op.flops / roofs.by_unit[op.unit]
        memory_t = op.bytes / bw
        t = compute_t if compute_t > memory_t else memory_t
        op_bound = "compute" if compute_t > memory_t else "memory"
        rows.append({"name": op.name, "unit": op.unit, "flops": op.flops, "bytes": op.bytes,
                     "intensity": op.flops / op.bytes if op.bytes else 0.0, "time_s": t, "bound": op_bound})
        flops += op.flops
        byts += op.bytes
        ops_time += t
        compute_time += compute_t
        memory_time += memory_t
        if op_bound == "memory":
            memory_bound_time += t
    time_s = ops_time + communication_s
    return {
        "flops": flops, "bytes": byts, "intensity": flops / byts, "time_s": time_s,
        # the regime that holds most of the phase's time
        "bound": "memory" if memory_bound_time >= ops_time - memory_bound_time else "compute",
        "attainable_flops_per_s": flops / time_s, "tokens_per_s": tokens / time_s,
        "compute_time_s": compute_time, "memory_time_s": memory_time, "communication_time_s": communication_s,
        "time_with_overlap_s": max(ops_time, communication_s), "ops": rows,
    }


def analyze_one(model: ModelConfig, hw: Accelerator, scenario: Scenario) -> dict:
    model = resolve_model(model, scenario)
    n = scenario.tensor_parallel
    shard = model.shard(n)
    decode, prefill = phase_ops(model, scenario)
    roofs = Roofs.of(hw, scenario.compute_dtype)
    w = scenario.widths
    b, t = scenario.batch_size, scenario.context_length
    block, prefix = scenario.kv_block_size, scenario.shared_prefix_length
    memory = memory_budget(shard, b, t, hw.memory_bytes, w.weight, w.kv, block, prefix)
    memory["max_batch_size"] = max_batch_size(shard, t, hw.memory_bytes, w.weight, w.kv, block, prefix)
    memory["min_tensor_parallel"] = min_tensor_parallel(model, t, hw.memory_bytes, w.weight, w.kv, block)
    return {
        "hardware_id": hw.id,
        "hardware_name": hw.name,
        "tensor_parallel": n,
        "tensor_dtype": roofs.tensor_dtype,
        "tensor_flops_per_s": roofs.tensor_flops_per_s,
        "vector_unit": roofs.vector_unit,
        "vector_flops_per_s": roofs.vector_flops_per_s,
        "memory_bandwidth_bytes_per_s": roofs.bandwidth_bytes_per_s,
        "link": None if roofs.link is None else {"name": roofs.link[0], "bytes_per_s_per_direction": roofs.link[1]},
        "ridge_point": roofs.tensor_flops_per_s / roofs.bandwidth_bytes_per_s,
        "vector_ridge_point": roofs.vector_flops_per_s / roofs.bandwidth_bytes_per_s,
        "decode": evaluate_phase(decode, roofs, b, communication_time_s(model, b, roofs, hw.id, n)),
        "prefill": evaluate_phase(prefill, roofs, b * t, communication_time_s(model, b * t, roofs, hw.id, n)),
        "memory": memory,
    }


def analyze(model: ModelConfig, hardware: list[Accelerator], scenario: Scenario) -> dict:
    resolved = resolve_model(model, scenario)
    summary = resolved.summary()
    summary["id"] = model.id
    summary["layer_groups"] = resolved.layer_breakdown()
    return {
        "model": summary,
        "scenario": scenario_dict(scenario),
        "results": [analyze_one(model, hw, scenario) for hw in hardware],
    }


def scenario_dict(scenario: Scenario) -> dict:
    return {k: getattr(scenario, k) for k in Scenario.__dataclass_fields__}


__all__ = ["Scenario", "analyze", "analyze_one", "evaluate_phase", "Roofs", "phase_ops", "DTYPES"]
