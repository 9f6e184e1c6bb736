"""One scenario, many accelerators: decode and prefill on the roofline plus the memory budget.

The result has one shape everywhere (CLI --json, HTTP API, dashboard):
{"model": {...}, "scenario": {...}, "results": [{"hardware_id", "ridge_point", "decode",
"prefill", "memory", ...}, ...]}. Under tensor parallelism every number is per GPU except
tokens_per_s, which is the whole group's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cache import ByteLRU, approx_size
from .errors import EngineInputError
from .hardware import TENSOR_PARALLEL_DEGREES, Accelerator
from .measurement import decode_utilisation
from .memory import max_batch_size, max_context_length, memory_budget, min_tensor_parallel
from .metrics import ring_allreduce_time_s
from .model import ModelConfig
from .ops import Op
from .precision import check_dtype, dtype_bytes
from .transformer import Widths, allreduce_messages, decode_ops, prefill_ops

# Documented upper bounds (docs/reference.md "Conventions"): generous, but finite.
MAX_BATCH = 65536
MAX_CONTEXT = 16 * 1024 * 1024
MAX_BLOCK = 4096
# Fixed cost of one all-reduce message besides its bytes (launch and ring hops): an
# assumption of the order NCCL shows for small messages on NVLink (nccl-tests), stated here.
ALLREDUCE_LATENCY_S = 10e-6
# vLLM's gpu_memory_utilization default (see Scenario.memory_utilization).
DEFAULT_MEMORY_UTILIZATION = 0.9


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
    # Which roofs: the datasheet's ("nominal") or a calibration's ("measured", where the
    # accelerator has one), each scaled by an achievable fraction: Williams, Waterman & Patterson
    # (2009, "Roofline") draw the memory roof at STREAM's measured bandwidth, below the
    # datasheet's; memory-bound kernels commonly reach 70-90% of nominal.
    roofs: str = "nominal"
    bandwidth_efficiency: float = 1.0
    compute_efficiency: float = 1.0
    # Fraction of the card's memory the serving engine may fill (weights + KV + activations):
    # fits, max batch, max context and min TP use capacity x this. The default 0.9 is vLLM's
    # `gpu_memory_utilization` default (vLLM docs, "Engine Arguments"); SGLang's
    # `mem_fraction_static` and TensorRT-LLM's `kv_cache_free_gpu_mem_fraction` leave similar
    # headroom for the CUDA context, the allocator and graph buffers. Letting the KV cache fill
    # the whole card (1.0) overstates max batch: pass 1.0 only to ask what the card could hold.
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION

    def __post_init__(self) -> None:
        _check_int("batch_size", self.batch_size, 1, MAX_BATCH)
        _check_int("context_length", self.context_length, 1, MAX_CONTEXT)
        if self.num_kv_heads is not None:
            _check_int("num_kv_heads", self.num_kv_heads, 1, 1 << 16)
        check_dtype(self.weight_dtype, "weight_dtype")
        check_dtype(self.kv_dtype, "kv_dtype")
        check_dtype(self.compute_dtype, "compute_dtype")
        if isinstance(self.tensor_parallel, bool) or self.tensor_parallel not in TENSOR_PARALLEL_DEGREES:
            raise EngineInputError(
                "tensor_parallel",
                f"{self.tensor_parallel!r} is not supported",
                TENSOR_PARALLEL_DEGREES,
                code="not_supported",
                params={"value": repr(self.tensor_parallel), "allowed": ", ".join(map(str, TENSOR_PARALLEL_DEGREES))},
            )
        _check_int("kv_block_size", self.kv_block_size, 1, MAX_BLOCK)
        _check_int("shared_prefix_length", self.shared_prefix_length, 0, self.context_length)
        if self.roofs not in ("nominal", "measured"):
            raise EngineInputError(
                "roofs",
                f"{self.roofs!r} is not a roof set",
                "nominal, measured",
                code="roof_set",
                params={"value": repr(self.roofs)},
            )
        for name in ("bandwidth_efficiency", "compute_efficiency"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.01 <= value <= 1.0:
                raise EngineInputError(
                    name, f"{value!r} is not a fraction in [0.01, 1]", code="fraction", params={"value": repr(value)}
                )
        u = self.memory_utilization
        if isinstance(u, bool) or not isinstance(u, (int, float)) or not 0.0 < u <= 1.0:
            raise EngineInputError(
                "memory_utilization",
                f"{u!r} is not a fraction in (0, 1]",
                "0 < memory_utilization <= 1, e.g. 0.9 as vLLM's default",
                code="memory_utilization",
                params={"value": repr(u)},
            )

    @property
    def widths(self) -> Widths:
        return Widths(
            dtype_bytes(self.weight_dtype, "weight_dtype"),
            dtype_bytes(self.kv_dtype, "kv_dtype"),
            dtype_bytes(self.compute_dtype, "compute_dtype"),
        )


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            name,
            f"{value!r} is not an integer in [{low}, {high}]",
            code="int_range",
            params={"value": repr(value), "low": low, "high": high},
        )


# Models with a KV-heads override ("what if GQA-n?"), derived once per (model, heads) and
# bounded in bytes, measured by walking each once: a 1,024-layer custom config rebuilt itself
# on every call (2-3 s per dashboard layout), and each fresh copy sat in the op-list cache's
# keys. A derived model grows up to 4 tensor-parallel shards after it is stored: counted up front.
KV_MODEL_CACHE_BYTES = 16 * 1024 * 1024
_SHARD_ALLOWANCE = 5
kv_model_cache = ByteLRU(
    KV_MODEL_CACHE_BYTES,
    sizeof=lambda v: approx_size(v) * (_SHARD_ALLOWANCE if isinstance(v, ModelConfig) else 1),
)


def resolve_model(model: ModelConfig, scenario: Scenario) -> ModelConfig:
    heads = scenario.num_kv_heads
    if heads is None:
        return model
    return kv_model_cache.get_or_compute((model, heads), lambda: model.with_kv_heads(heads))


# Op lists per (model, scenario), bounded in bytes (engine/cache.py). An op list is counted,
# not walked (walking each new list cost ~0.8 ms, 12x the analysis itself): an Op (4 slots,
# two floats, two short strings) takes under 300 bytes, the scenario key ~1 KB. The model in
# the key is measured once, when the first entry holding it is stored, and counted once however
# many scenarios share it (ByteLRU's `shared`).
PHASE_OPS_CACHE_BYTES = 32 * 1024 * 1024
_OP_BYTES = 300
_KEY_BYTES = 1024


def _phase_ops_size(entry: object) -> int:
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], Scenario):
        return _KEY_BYTES
    return _OP_BYTES * sum(len(ops) for ops in entry) + _KEY_BYTES


phase_ops_cache = ByteLRU(PHASE_OPS_CACHE_BYTES, sizeof=_phase_ops_size, shared=lambda key: key[0])


def phase_ops(model: ModelConfig, scenario: Scenario) -> tuple[tuple[Op, ...], tuple[Op, ...]]:
    """(decode ops, prefill ops) of one GPU's shard — hardware independent, so computed once."""
    return phase_ops_cache.get_or_compute((model, scenario), lambda: _phase_ops(model, scenario))


def _phase_ops(model: ModelConfig, scenario: Scenario) -> tuple[tuple[Op, ...], tuple[Op, ...]]:
    shard = model.shard(scenario.tensor_parallel)
    w = scenario.widths
    decode = decode_ops(shard, scenario.batch_size, scenario.context_length, w, scenario.flash_attention)
    prefill = prefill_ops(
        shard, scenario.batch_size, scenario.context_length, w, scenario.flash_attention, scenario.causal
    )
    return tuple(decode), tuple(prefill)


@dataclass(frozen=True)
class Roofs:
    """What an op needs from an accelerator, resolved for a compute dtype, a roof set
    (nominal or measured) and the efficiency fractions."""

    tensor_dtype: str
    tensor_flops_per_s: float
    vector_unit: str
    vector_flops_per_s: float
    bandwidth_bytes_per_s: float
    link: tuple[str, float] | None
    source: str = "nominal"
    by_unit: dict = field(default_factory=dict)

    @classmethod
    def of(cls, hw: Accelerator, compute_dtype: str, scenario: Scenario | None = None) -> Roofs:
        if scenario is not None:  # beyond 8, TP needs a scale-up domain that large (engine/hardware.py)
            hw.check_tensor_parallel(scenario.tensor_parallel)
        measured = scenario is not None and scenario.roofs == "measured" and hw.measured is not None
        compute_eff = scenario.compute_efficiency if scenario else 1.0
        bandwidth_eff = scenario.bandwidth_efficiency if scenario else 1.0
        tensor_dtype, tensor = hw.tensor_roof(compute_dtype, measured)
        vector_unit, vector = hw.vector_roof(measured=measured)
        tensor, vector = tensor * compute_eff, vector * compute_eff
        return cls(
            tensor_dtype,
            tensor,
            vector_unit,
            vector,
            hw.bandwidth(measured) * bandwidth_eff,
            hw.link_bandwidth(),
            "measured" if measured else "nominal",
            {"tensor": tensor, "vector": vector},
        )


def communication_time_s(model: ModelConfig, tokens, roofs: Roofs, hardware_id: str, n: int):
    """All-reduce time of one pass under TP degree n (ring all-reduce: 2(n-1)/n of the message
    over each link, Patarasuk & Yuan 2009; NCCL's "busbw" convention, nccl-tests PERFORMANCE.md)."""
    if n == 1:
        return 0.0
    if roofs.link is None:
        raise EngineInputError(
            "tensor_parallel",
            f"{hardware_id} lists no GPU-to-GPU link bandwidth",
            [1],
            code="no_link",
            params={"hardware": hardware_id},
        )
    count, size = allreduce_messages(model, tokens)
    return count * ring_allreduce_time_s(size, roofs.link[1], n, ALLREDUCE_LATENCY_S)


def evaluate_phase(ops: tuple[Op, ...], roofs: Roofs, tokens: int, communication_s: float = 0.0) -> dict:
    """Place each op under its unit's roof; the phase runs its ops back to back. TP
    all-reduces sit on the critical path (their result is needed at once, Megatron-LM §3), so
    `time_s` adds them; `time_with_overlap_s` is the bound if they were fully hidden."""
    bw = roofs.bandwidth_bytes_per_s
    rows = []
    flops = byts = ops_time = memory_bound_time = compute_time = memory_time = 0.0
    for op in ops:
        compute_t = op.flops / roofs.by_unit[op.unit]
        memory_t = op.bytes / bw
        t = compute_t if compute_t > memory_t else memory_t
        op_bound = "compute" if compute_t > memory_t else "memory"
        rows.append(
            {
                "name": op.name,
                "unit": op.unit,
                "flops": op.flops,
                "bytes": op.bytes,
                "intensity": op.flops / op.bytes if op.bytes else 0.0,
                "time_s": t,
                "bound": op_bound,
                "layers": op.layers,
            }
        )
        flops += op.flops
        byts += op.bytes
        ops_time += t
        compute_time += compute_t
        memory_time += memory_t
        if op_bound == "memory":
            memory_bound_time += t
    time_s = ops_time + communication_s
    for row in rows:
        row["share_of_step"] = row["time_s"] / time_s
    return {
        "flops": flops,
        "bytes": byts,
        "intensity": flops / byts,
        "time_s": time_s,
        # attained over the tensor roof at the phase's own intensity, min(peak, I x B): below 1
        # because ops run back to back, each under its own roof (and TP adds communication)
        "fraction_of_roof": flops / time_s / min(roofs.by_unit["tensor"], flops / byts * bw),
        # the regime that holds most of the phase's time
        "bound": "memory" if memory_bound_time >= ops_time - memory_bound_time else "compute",
        "attainable_flops_per_s": flops / time_s,
        "tokens_per_s": tokens / time_s,
        "compute_time_s": compute_time,
        "memory_time_s": memory_time,
        "communication_time_s": communication_s,
        "time_with_overlap_s": max(ops_time, communication_s),
        "ops": rows,
    }


def usable_bytes(hw: Accelerator, scenario: Scenario) -> float:
    """The memory a serving engine may fill: capacity (real bytes, docs/reference.md "Memory capacity")
    x memory_utilization."""
    return hw.memory_bytes * scenario.memory_utilization


def analyze_one(model: ModelConfig, hw: Accelerator, scenario: Scenario) -> dict:
    model = resolve_model(model, scenario)
    n = scenario.tensor_parallel
    shard = model.shard(n)
    decode, prefill = phase_ops(model, scenario)
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    w = scenario.widths
    b, t = scenario.batch_size, scenario.context_length
    block, prefix = scenario.kv_block_size, scenario.shared_prefix_length
    usable = usable_bytes(hw, scenario)
    memory = memory_budget(shard, b, t, hw.memory_bytes, w.weight, w.kv, block, prefix, usable)
    memory["max_batch_size"] = max_batch_size(shard, t, usable, w.weight, w.kv, block, prefix)
    memory["max_context_length"] = max_context_length(shard, b, usable, w.weight, w.kv, MAX_CONTEXT, block)
    memory["min_tensor_parallel"] = min_tensor_parallel(model, t, usable, w.weight, w.kv, block)
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
        "roofs": roofs.source,
        "measured_roofs": measured_roofs(hw, scenario.compute_dtype),
        "ridge_point": roofs.tensor_flops_per_s / roofs.bandwidth_bytes_per_s,
        "vector_ridge_point": roofs.vector_flops_per_s / roofs.bandwidth_bytes_per_s,
        "decode": evaluate_phase(decode, roofs, b, communication_time_s(model, b, roofs, hw.id, n)),
        "prefill": evaluate_phase(prefill, roofs, b * t, communication_time_s(model, b * t, roofs, hw.id, n)),
        "memory": memory,
        "warnings": [],  # sentences a reader must see next to the numbers (measured_warnings)
    }


def measured_roofs(hw: Accelerator, compute_dtype: str) -> dict | None:
    """The calibration's roofs (unscaled) for drawing beside the datasheet ones."""
    if hw.measured is None:
        return None
    tensor_dtype, tensor = hw.tensor_roof(compute_dtype, measured=True)
    vector_unit, vector = hw.vector_roof(measured=True)
    return {
        "date": hw.measured.date,
        "tool": hw.measured.tool,
        "device": hw.measured.device,
        "memory_bandwidth_bytes_per_s": hw.measured.memory_bandwidth_bytes_per_s,
        "tensor_dtype": tensor_dtype,
        "tensor_flops_per_s": tensor,
        "vector_flops_per_s": vector,
    }


def analyze(
    model: ModelConfig,
    hardware: list[Accelerator],
    scenario: Scenario,
    measured_step_time_s: float | None = None,
    measured_tokens_per_s: float | None = None,
) -> dict:
    """The analysis; with a measured decode step time or tokens/s, each result also gets
    `measured_decode` (MBU, MFU, the measured point and its gap to the prediction)."""
    resolved = resolve_model(model, scenario)
    summary = resolved.summary()
    summary["id"] = model.id
    summary["layer_groups"] = resolved.layer_breakdown()
    results = [analyze_one(model, hw, scenario) for hw in hardware]
    if measured_step_time_s is not None or measured_tokens_per_s is not None:
        for hw, r in zip(hardware, results, strict=True):
            r["measured_decode"] = measured_decode(
                resolved, hw, scenario, r["decode"], measured_step_time_s, measured_tokens_per_s
            )
            r["warnings"].extend(measured_warnings(r["measured_decode"]))
    return {"model": summary, "scenario": scenario_dict(scenario), "results": results}


def measured_decode(
    resolved: ModelConfig,
    hw: Accelerator,
    scenario: Scenario,
    decode: dict,
    step_time_s: float | None = None,
    tokens_per_s: float | None = None,
) -> dict:
    """MBU/MFU of a measured decode step against the peaks of the roof set in use, not scaled by
    the efficiency settings: "how far from the roof", not "how far from what you expected"."""
    use_measured = scenario.roofs == "measured" and hw.measured is not None
    return decode_utilisation(
        decode,
        resolved.num_active_params,
        scenario.tensor_parallel,
        hw.tensor_roof(scenario.compute_dtype, use_measured)[1],
        hw.bandwidth(use_measured),
        scenario.batch_size,
        step_time_s,
        tokens_per_s,
    )


def beyond_the_roofs(measured: dict) -> tuple[str, float] | None:
    """("MBU" or "MFU", the larger utilisation) of a measured step faster than the roofs allow
    (over 100%), else None."""
    utilisation = max(measured["mbu"], measured["mfu"])
    if utilisation <= 1.0:
        return None
    return ("MBU" if measured["mbu"] >= measured["mfu"] else "MFU"), utilisation


def measured_warnings(measured: dict) -> list[str]:
    """A measured step faster than the roofs allow (MBU or MFU over 100%) is not an error (the
    numbers stay finite) but it is never right: the measurement or the scenario is wrong."""
    beyond = beyond_the_roofs(measured)
    if beyond is None:
        return []
    which, utilisation = beyond
    step = measured["step_time_s"]
    return [
        f"measured decode step {step * 1e3:.3g} ms is faster than the bound {step * utilisation * 1e3:.3g} ms: "
        f"{which} {utilisation:.0%} > 100% means the measurement or the scenario is wrong"
    ]


def scenario_dict(scenario: Scenario) -> dict:
    return {k: getattr(scenario, k) for k in Scenario.__dataclass_fields__}


__all__ = ["Scenario", "analyze", "analyze_one", "evaluate_phase", "Roofs", "phase_ops"]
