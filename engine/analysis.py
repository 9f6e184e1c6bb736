"""One scenario, many accelerators: decode and prefill on the roofline plus the memory budget.

The result has one shape everywhere (CLI --json, HTTP API, dashboard):
{"model": {...}, "results": [{"hardware_id", "ridge_point", "decode", "prefill", "memory"}, ...]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .errors import EngineInputError
from .hardware import Accelerator
from .memory import max_batch_size, memory_budget
from .model import ModelConfig
from .ops import Op
from .precision import DTYPES, check_dtype, dtype_bytes
from .transformer import Widths, decode_ops, prefill_ops

# Documented upper bounds (README "Conventions"): generous, but finite.
MAX_BATCH = 65536
MAX_CONTEXT = 16 * 1024 * 1024
TENSOR_PARALLEL = (1,)


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

    def __post_init__(self) -> None:
        _check_int("batch_size", self.batch_size, 1, MAX_BATCH)
        _check_int("context_length", self.context_length, 1, MAX_CONTEXT)
        if self.num_kv_heads is not None:
            _check_int("num_kv_heads", self.num_kv_heads, 1, 1 << 16)
        check_dtype(self.weight_dtype, "weight_dtype")
        check_dtype(self.kv_dtype, "kv_dtype")
        check_dtype(self.compute_dtype, "compute_dtype")
        if self.tensor_parallel not in TENSOR_PARALLEL:
            raise EngineInputError("tensor_parallel", f"{self.tensor_parallel!r} is not supported", TENSOR_PARALLEL)

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
    """(decode ops, prefill ops) — hardware independent, so computed once per scenario."""
    w = scenario.widths
    decode = decode_ops(model, scenario.batch_size, scenario.context_length, w, scenario.flash_attention)
    prefill = prefill_ops(model, scenario.batch_size, scenario.context_length, w, scenario.flash_attention,
                          scenario.causal)
    return tuple(decode), tuple(prefill)


@dataclass(frozen=True)
class Roofs:
    """The three numbers an op needs from an accelerator, resolved for a compute dtype."""

    tensor_dtype: str
    tensor_flops_per_s: float
    vector_unit: str
    vector_flops_per_s: float
    bandwidth_bytes_per_s: float
    by_unit: dict = field(default_factory=dict)

    @classmethod
    def of(cls, hw: Accelerator, compute_dtype: str) -> "Roofs":
        tensor_dtype, tensor = hw.tensor_roof(compute_dtype)
        vector_unit, vector = hw.vector_roof()
        return cls(tensor_dtype, tensor, vector_unit, vector, hw.memory_bandwidth_bytes_per_s,
                   {"tensor": tensor, "vector": vector})


def evaluate_phase(ops: tuple[Op, ...], roofs: Roofs, tokens: int) -> dict:
    """Place each op under its unit's roof; the phase runs its ops back to back."""
    bw = roofs.bandwidth_bytes_per_s
    rows = []
    flops = byts = time_s = memory_time = 0.0
    for op in ops:
        compute_t = op.flops / roofs.by_unit[op.unit]
        memory_t = op.bytes / bw
        t = compute_t if compute_t > memory_t else memory_t
        op_bound = "compute" if compute_t > memory_t else "memory"
        rows.append({"name": op.name, "unit": op.unit, "flops": op.flops, "bytes": op.bytes,
                     "intensity": op.flops / op.bytes if op.bytes else 0.0, "time_s": t, "bound": op_bound})
        flops += op.flops
        byts += op.bytes
        time_s += t
        if op_bound == "memory":
            memory_time += t
    return {
        "flops": flops, "bytes": byts, "intensity": flops / byts, "time_s": time_s,
        # the regime that holds most of the phase's time
        "bound": "memory" if memory_time >= time_s - memory_time else "compute",
        "attainable_flops_per_s": flops / time_s, "tokens_per_s": tokens / time_s, "ops": rows,
    }


def analyze_one(model: ModelConfig, hw: Accelerator, scenario: Scenario) -> dict:
    model = resolve_model(model, scenario)
    decode, prefill = phase_ops(model, scenario)
    roofs = Roofs.of(hw, scenario.compute_dtype)
    w = scenario.widths
    b, t = scenario.batch_size, scenario.context_length
    memory = memory_budget(model, b, t, hw.memory_bytes, w.weight, w.kv)
    memory["max_batch_size"] = max_batch_size(model, t, hw.memory_bytes, w.weight, w.kv)
    return {
        "hardware_id": hw.id,
        "hardware_name": hw.name,
        "tensor_dtype": roofs.tensor_dtype,
        "tensor_flops_per_s": roofs.tensor_flops_per_s,
        "vector_unit": roofs.vector_unit,
        "vector_flops_per_s": roofs.vector_flops_per_s,
        "memory_bandwidth_bytes_per_s": roofs.bandwidth_bytes_per_s,
        "ridge_point": roofs.tensor_flops_per_s / roofs.bandwidth_bytes_per_s,
        "vector_ridge_point": roofs.vector_flops_per_s / roofs.bandwidth_bytes_per_s,
        "decode": evaluate_phase(decode, roofs, b),
        "prefill": evaluate_phase(prefill, roofs, b * t),
        "memory": memory,
    }


def analyze(model: ModelConfig, hardware: list[Accelerator], scenario: Scenario) -> dict:
    resolved = resolve_model(model, scenario)
    summary = resolved.summary()
    summary["id"] = model.id
    return {
        "model": summary,
        "scenario": scenario_dict(scenario),
        "results": [analyze_one(model, hw, scenario) for hw in hardware],
    }


def scenario_dict(scenario: Scenario) -> dict:
    return {k: getattr(scenario, k) for k in Scenario.__dataclass_fields__}


__all__ = ["Scenario", "analyze", "analyze_one", "evaluate_phase", "Roofs", "phase_ops", "DTYPES"]
