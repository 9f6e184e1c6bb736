"""A serving instance: C requests in flight on tensor_parallel x attention_data_parallel GPUs.

Layout (the one TensorRT-LLM, vLLM and SGLang use for "attention DP + expert parallelism",
DeepSeek-V3 technical report §3.4 and the SGLang/vLLM data-parallel-attention docs):
- attention (and dense MLPs, norms, the LM head) is split `tensor_parallel` ways inside each of
  `attention_data_parallel` ranks; each rank keeps its own requests and their KV cache;
- the routed experts of a MoE layer are split `moe_tensor_parallel` (width) x
  `expert_parallel` (whole experts) ways across the same GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import EngineInputError
from ..precision import check_dtype, dtype_bytes
from ..transformer import Widths
from .speculative import Speculative

# vLLM's gpu_memory_utilization default (vllm/config: CacheConfig.gpu_memory_utilization = 0.9):
# the fraction of each GPU's memory the engine may fill with weights, KV cache and workspace.
DEFAULT_MEMORY_UTILIZATION = 0.9
MAX_CONCURRENCY = 65536
MAX_TOKENS = 1 << 20
MAX_GPUS = 1024
BACKENDS = ("trtllm", "vllm", "sglang")
# The accelerators' makers each backend runs on (hardware/*.yaml `vendor`): TensorRT-LLM builds
# for NVIDIA GPUs only (its README); vLLM for NVIDIA, AMD ROCm, Google TPU and Intel Gaudi (its
# installation guide, Gaudi through the vllm-gaudi plugin); SGLang for NVIDIA, AMD and Google
# TPU (its documentation's supported hardware, TPU through SGLang-JAX). A planner that
# recommended a TensorRT-LLM launch on an MI300X would recommend something nobody can run.
BACKEND_VENDORS = {
    "trtllm": ("NVIDIA",),
    "vllm": ("NVIDIA", "AMD", "Google", "Intel (Habana)"),
    "sglang": ("NVIDIA", "AMD", "Google"),
}


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            name,
            f"{value!r} is not an integer in [{low}, {high}]",
            code="int_range",
            params={"value": repr(value)[:40], "low": low, "high": high},
        )
    return value


@dataclass(frozen=True)
class ServingScenario:
    concurrency: int = 16
    input_tokens: int = 1024
    output_tokens: int = 1024
    tensor_parallel: int = 1
    attention_data_parallel: int = 1
    moe_tensor_parallel: int = 1
    expert_parallel: int = 1
    weight_dtype: str = "bf16"
    compute_dtype: str = "bf16"
    kv_dtype: str = "bf16"
    memory_utilization: float | None = None  # the backend's own knob; None: its default (capacity.memory_rule)
    backend: str | None = None
    speculative: Speculative | None = None  # speculative decoding (engine.serving.speculative); None: none

    def __post_init__(self) -> None:
        _check_int("concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        _check_int("input_tokens", self.input_tokens, 1, MAX_TOKENS)
        _check_int("output_tokens", self.output_tokens, 1, MAX_TOKENS)
        for name in ("tensor_parallel", "attention_data_parallel", "moe_tensor_parallel", "expert_parallel"):
            _check_int(name, getattr(self, name), 1, MAX_GPUS)
        if self.gpus > MAX_GPUS:
            raise EngineInputError(
                "attention_data_parallel",
                f"{self.gpus} GPUs in one instance",
                f"at most {MAX_GPUS}",
                code="instance_gpus",
                params={"n": self.gpus, "high": MAX_GPUS},
            )
        check_dtype(self.weight_dtype, "weight_dtype")
        check_dtype(self.compute_dtype, "compute_dtype")
        check_dtype(self.kv_dtype, "kv_dtype")
        u = self.memory_utilization
        if u is not None and (isinstance(u, bool) or not isinstance(u, (int, float)) or not 0.0 < u <= 1.0):
            raise EngineInputError(
                "memory_utilization",
                f"{u!r} is not a fraction in (0, 1]",
                "0 < x <= 1; 0.9 is vLLM's default",
                code="memory_utilization",
                params={"value": repr(u)[:40]},
            )
        if self.backend is not None and self.backend not in BACKENDS:
            raise EngineInputError(
                "backend",
                f"{self.backend!r} is not a serving backend",
                ", ".join(BACKENDS),
                code="backend",
                params={"value": repr(self.backend)[:40], "allowed": ", ".join(BACKENDS)},
            )

    @property
    def gpus(self) -> int:
        """GPUs of the instance: tensor_parallel x attention_data_parallel."""
        return self.tensor_parallel * self.attention_data_parallel

    @property
    def mean_context(self) -> float:
        """Tokens a running request holds on average over its decode: input + output / 2."""
        return self.input_tokens + self.output_tokens / 2.0

    @property
    def widths(self) -> Widths:
        return Widths(
            dtype_bytes(self.weight_dtype, "weight_dtype"),
            dtype_bytes(self.kv_dtype, "kv_dtype"),
            dtype_bytes(self.compute_dtype, "compute_dtype"),
        )

    def check_layout(self, is_moe: bool, num_experts: int) -> None:
        """A MoE model's expert split must cover the instance's GPUs exactly; a dense model
        ignores the MoE degrees (it has no experts to split)."""
        if not is_moe:
            return
        moe = self.moe_tensor_parallel * self.expert_parallel
        if moe != self.gpus:
            raise EngineInputError(
                "expert_parallel",
                f"moe_tensor_parallel x expert_parallel = {moe} must equal the instance's "
                f"tensor_parallel x attention_data_parallel = {self.gpus} GPUs",
                code="expert_layout",
                params={"moe": moe, "gpus": self.gpus},
            )
        if self.expert_parallel > num_experts:
            raise EngineInputError(
                "expert_parallel",
                f"{self.expert_parallel} exceeds the model's {num_experts} experts",
                code="expert_count",
                params={"n": self.expert_parallel, "experts": num_experts},
            )


def shard_degree(num_heads: int, tensor_parallel: int) -> int:
    """The tensor-parallel degree the per-GPU counts use. When tensor_parallel divides the heads,
    or is 8 or less (ModelConfig.shard then refuses it, naming tensor_parallel), itself. Past a
    board (TP 72 on NVL72 with 64 or 128 heads, as in the measured set) the busiest GPU holds
    ceil(heads / TP) heads, the same as under the largest degree that divides the heads and
    gives it no fewer: that degree is used for attention and the dense layers (their weights per
    GPU are then counted slightly high), while the all-reduces still run over all the GPUs."""
    if num_heads % tensor_parallel == 0 or tensor_parallel <= 8:
        return tensor_parallel  # within a board, a TP that does not divide the heads is refused
    per_gpu = -(-num_heads // tensor_parallel)
    return max(d for d in range(1, tensor_parallel + 1) if num_heads % d == 0 and num_heads // d >= per_gpu)


# A worker's most GPUs and the most workers of one side: a deployment stays within MAX_GPUS.
MAX_WORKERS = 1024
MAX_PREFILL_BATCH = 1024


@dataclass(frozen=True)
class WorkerLayout:
    """One side of a disaggregated deployment: `workers` instances of one layout (the same
    meaning as ServingScenario's), a prefill worker's batch (prompts it prefills together,
    TensorRT-LLM's max_batch_size on a context worker) and, on the decode side, optionally
    another accelerator (Patel et al., "Splitwise", ISCA 2024: prefill on compute-rich GPUs,
    decode on bandwidth-rich ones)."""

    workers: int = 1
    tensor_parallel: int = 1
    attention_data_parallel: int = 1
    moe_tensor_parallel: int = 1
    expert_parallel: int = 1
    batch: int = 1
    hardware: str | None = None

    def check(self, side: str) -> None:
        _check_int(f"{side}.workers", self.workers, 1, MAX_WORKERS)
        for name in ("tensor_parallel", "attention_data_parallel", "moe_tensor_parallel", "expert_parallel"):
            _check_int(f"{side}.{name}", getattr(self, name), 1, MAX_GPUS)
        _check_int(f"{side}.batch", self.batch, 1, MAX_PREFILL_BATCH)

    @property
    def gpus(self) -> int:
        return self.tensor_parallel * self.attention_data_parallel

    def instance(self, base: ServingScenario, concurrency: int) -> ServingScenario:
        """One worker of this side as an aggregated instance of the base scenario."""
        return replace(
            base,
            concurrency=concurrency,
            tensor_parallel=self.tensor_parallel,
            attention_data_parallel=self.attention_data_parallel,
            moe_tensor_parallel=self.moe_tensor_parallel,
            expert_parallel=self.expert_parallel,
        )


@dataclass(frozen=True)
class KvLink:
    """The link a prompt's KV cache crosses from its prefill worker to its decode worker. None:
    auto (the scale-up link when both sides sit in one scale-up domain, else the scale-out NIC
    of each GPU; engine.serving.disagg.kv_link)."""

    bandwidth_bytes_per_s: float | None = None  # per GPU, per direction
    latency_s: float | None = None

    def check(self) -> None:
        for name, low, high in (("bandwidth_bytes_per_s", 1e6, 1e14), ("latency_s", 1e-9, 1.0)):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high):
                raise EngineInputError(
                    f"kv_link.{name}",
                    f"{v!r} is not a number in [{low:g}, {high:g}]",
                    code="number_range",
                    params={"value": repr(v)[:40], "low": low, "high": high},
                )


@dataclass(frozen=True)
class DisaggScenario:
    """Prefill and decode on separate GPUs (Zhong et al., "DistServe", OSDI 2024; Patel et al.,
    "Splitwise", ISCA 2024): `base` holds what both sides share (concurrency across the whole
    deployment, lengths, precision, backend, memory rule); its own layout fields are ignored."""

    base: ServingScenario
    prefill: WorkerLayout
    decode: WorkerLayout
    kv_link: KvLink = KvLink()

    def __post_init__(self) -> None:
        self.prefill.check("prefill")
        self.decode.check("decode")
        self.kv_link.check()
        if self.gpus > MAX_GPUS:
            raise EngineInputError(
                "disaggregated",
                f"{self.gpus} GPUs in one deployment",
                f"at most {MAX_GPUS}",
                code="instance_gpus",
                params={"n": self.gpus, "high": MAX_GPUS},
            )

    @property
    def gpus(self) -> int:
        return self.prefill.workers * self.prefill.gpus + self.decode.workers * self.decode.gpus
