"""A serving instance: C requests in flight on tensor_parallel x attention_data_parallel GPUs.

Layout (the one TensorRT-LLM, vLLM and SGLang use for "attention DP + expert parallelism",
DeepSeek-V3 technical report §3.4 and the SGLang/vLLM data-parallel-attention docs):
- attention (and dense MLPs, norms, the LM head) is split `tensor_parallel` ways inside each of
  `attention_data_parallel` ranks; each rank keeps its own requests and their KV cache;
- the routed experts of a MoE layer are split `moe_tensor_parallel` (width) x
  `expert_parallel` (whole experts) ways across the same GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import EngineInputError
from ..precision import check_dtype, dtype_bytes
from ..transformer import Widths

# vLLM's gpu_memory_utilization default (vllm/config: CacheConfig.gpu_memory_utilization = 0.9):
# the fraction of each GPU's memory the engine may fill with weights, KV cache and workspace.
DEFAULT_MEMORY_UTILIZATION = 0.9
MAX_CONCURRENCY = 65536
MAX_TOKENS = 1 << 20
MAX_GPUS = 1024
BACKENDS = ("trtllm", "vllm", "sglang")


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
