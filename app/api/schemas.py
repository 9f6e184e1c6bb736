"""Request and response models of the HTTP API (every number in SI base units)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.analysis import MAX_BATCH, MAX_BLOCK, MAX_CONTEXT, Scenario
from engine.hardware import Accelerator
from engine.ops import ELEMENTWISE_KINDS
from engine.precision import DTYPES

Dtype = Literal[DTYPES]  # type: ignore[valid-type]
ElementwiseName = Literal[tuple(ELEMENTWISE_KINDS)]  # type: ignore[valid-type]
HardwareSpec = Annotated[str, Field(max_length=64, description="accelerator id")] | Accelerator
MAX_SWEEP_POINTS = 4096


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScenarioFields(_Request):
    model: Annotated[str, Field(max_length=64)] | dict[str, Any] = Field(
        ..., description="preset id (GET /api/v1/models) or a Hugging Face config.json object")
    hardware: list[HardwareSpec] = Field(..., min_length=1, max_length=16,
                                         description="1 to 16 accelerator ids or inline accelerator objects")
    batch_size: int = Field(1, ge=1, le=MAX_BATCH, description="sequences in flight")
    context_length: int = Field(4096, ge=1, le=MAX_CONTEXT,
                                description="tokens per sequence: cached (decode) or prompt (prefill)")
    num_kv_heads: int | None = Field(None, ge=1, le=65536, description="override KV heads; must divide query heads")
    weight_dtype: Dtype = Field("bf16", description="storage format of the weights")
    kv_dtype: Dtype = Field("bf16", description="storage format of the KV cache")
    compute_dtype: Dtype = Field("bf16", description="format of the matrix math (selects the tensor roof)")
    flash_attention: bool = Field(True, description="fused attention: scores never go to memory")
    causal: bool = Field(True, description="count prefill attention with the causal mask")
    tensor_parallel: Literal[1, 2, 4, 8] = Field(
        1, description="tensor-parallel degree: every number becomes per GPU, plus all-reduce time")
    kv_block_size: int = Field(16, ge=1, le=MAX_BLOCK, description="paged KV block, tokens (waste reported)")
    shared_prefix_length: int = Field(0, ge=0, le=MAX_CONTEXT,
                                      description="tokens of a prefix shared by the whole batch, stored once")
    roofs: Literal["nominal", "measured"] = Field(
        "nominal", description="datasheet roofs, or the calibrated ones where an accelerator has them")
    bandwidth_efficiency: float = Field(1.0, ge=0.01, le=1.0, allow_inf_nan=False,
                                        description="achievable fraction of memory bandwidth")
    compute_efficiency: float = Field(1.0, ge=0.01, le=1.0, allow_inf_nan=False,
                                      description="achievable fraction of peak FLOP/s")

    def scenario(self) -> Scenario:
        return Scenario(batch_size=self.batch_size, context_length=self.context_length,
                        num_kv_heads=self.num_kv_heads, weight_dtype=self.weight_dtype, kv_dtype=self.kv_dtype,
                        compute_dtype=self.compute_dtype, flash_attention=self.flash_attention,
                        causal=self.causal, tensor_parallel=self.tensor_parallel, kv_block_size=self.kv_block_size,
                        shared_prefix_length=self.shared_prefix_length, roofs=self.roofs,
                        bandwidth_efficiency=self.bandwidth_efficiency, compute_efficiency=self.compute_efficiency)


class AnalyzeRequest(ScenarioFields):
    measured_decode_step_s: float | None = Field(None, gt=0, le=3600, allow_inf_nan=False,
                                                 description="a measured decode step time, seconds -> MBU/MFU")
    measured_tokens_per_s: float | None = Field(None, gt=0, le=1e9, allow_inf_nan=False,
                                                description="or a measured decode throughput, tokens/s")


class MeasurementsRequest(_Request):
    format: Literal["csv", "json", "torch_table", "chrome_trace", "ncu_csv"] = Field(
        ..., description="csv/json: name, flops, bytes, time_s[, phase, hardware]; or a profiler export")
    content: str = Field(..., max_length=256 * 1024, description="the file's text (parsed, never executed)")
    hardware: HardwareSpec = Field(..., description="the accelerator it was measured on")
    model: Annotated[str, Field(max_length=64)] | dict[str, Any] | None = Field(
        None, description="preset or config.json: lets profiler rows without counts borrow the model's")
    steps: int = Field(1, ge=1, le=100000, description="decode steps the profile covers (times are divided)")
    batch_size: int = Field(1, ge=1, le=MAX_BATCH, description="the measured scenario's batch")
    context_length: int = Field(4096, ge=1, le=MAX_CONTEXT, description="the measured scenario's context")
    weight_dtype: Dtype = "bf16"
    kv_dtype: Dtype = "bf16"
    compute_dtype: Dtype = "bf16"
    tensor_parallel: Literal[1, 2, 4, 8] = 1
    roofs: Literal["nominal", "measured"] = "nominal"

    def scenario(self) -> Scenario:
        return Scenario(batch_size=self.batch_size, context_length=self.context_length, weight_dtype=self.weight_dtype,
                        kv_dtype=self.kv_dtype, compute_dtype=self.compute_dtype,
                        tensor_parallel=self.tensor_parallel, roofs=self.roofs)


class SweepRequest(ScenarioFields):
    batch_sizes: list[Annotated[int, Field(ge=1, le=MAX_BATCH)]] | None = Field(
        None, min_length=1, max_length=MAX_SWEEP_POINTS, description="sweep decode over these batch sizes")
    context_lengths: list[Annotated[int, Field(ge=1, le=MAX_CONTEXT)]] | None = Field(
        None, min_length=1, max_length=MAX_SWEEP_POINTS, description="or over these context lengths")


class GemmOp(_Request):
    kind: Literal["gemm"]
    m: int = Field(..., ge=1, le=1 << 24, description="rows of A and C")
    n: int = Field(..., ge=1, le=1 << 24, description="columns of B and C")
    k: int = Field(..., ge=1, le=1 << 24, description="inner dimension")
    dtype: Dtype = "bf16"


class ElementwiseOp(_Request):
    kind: Literal["elementwise"]
    name: ElementwiseName = Field(..., description="which elementwise op")
    elements: int = Field(..., ge=1, le=1 << 40, description="values processed")
    dtype: Dtype | Literal["fp32"] = "bf16"


class OpsRequest(_Request):
    hardware: list[HardwareSpec] = Field(..., min_length=1, max_length=16)
    op: GemmOp | ElementwiseOp = Field(..., discriminator="kind")


# ---- responses ------------------------------------------------------------------------

class OpResult(BaseModel):
    name: str
    unit: Literal["tensor", "vector"] = Field(description="tensor cores or vector units")
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes moved")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="lower bound, seconds")
    bound: Literal["memory", "compute"]


class PhaseResult(BaseModel):
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="seconds (sum of the ops' bounds)")
    bound: Literal["memory", "compute"]
    attainable_flops_per_s: float = Field(description="FLOP/s")
    tokens_per_s: float = Field(description="tokens/s (decode: B / step; prefill: prompt tokens)")
    compute_time_s: float = Field(description="sum over ops of FLOPs / peak of their unit, seconds")
    memory_time_s: float = Field(description="sum over ops of bytes / bandwidth, seconds")
    communication_time_s: float = Field(description="tensor-parallel all-reduce time, seconds (0 without TP)")
    time_with_overlap_s: float = Field(description="bound if communication were fully hidden, seconds")
    ops: list[OpResult]


class MemoryResult(BaseModel):
    weights_bytes: float
    kv_bytes_per_token: float
    kv_cache_bytes: float
    kv_block_waste_bytes: float = Field(description="KV rounded up to whole paged blocks, minus the exact KV")
    shared_prefix_bytes: float = Field(description="KV of the shared prefix, stored once")
    activation_bytes: float
    total_bytes: float
    capacity_bytes: float = Field(description="memory of one accelerator")
    fits: bool
    max_batch_size: int = Field(description="largest batch that fits at this context (per TP group)")
    min_tensor_parallel: int | None = Field(description="smallest TP degree (1, 2, 4, 8) that fits the model "
                                                        "and one sequence; null if none")


class Link(BaseModel):
    name: str
    bytes_per_s_per_direction: float


class MeasuredRoofsOut(BaseModel):
    date: str
    tool: str
    device: str
    memory_bandwidth_bytes_per_s: float
    tensor_dtype: str
    tensor_flops_per_s: float
    vector_flops_per_s: float


class MeasuredDecode(BaseModel):
    step_time_s: float
    tokens_per_s: float
    mbu: float = Field(description="bytes per step / measured step time / peak bandwidth")
    mfu: float = Field(description="tokens/s x 2 x active params / (GPUs x peak FLOP/s), PaLM")
    intensity: float
    achieved_flops_per_s: float
    predicted_time_s: float
    gap: float = Field(description="measured step time / predicted bound")


class HardwareResult(BaseModel):
    hardware_id: str
    hardware_name: str
    tensor_parallel: int
    roofs: Literal["nominal", "measured"]
    measured_roofs: MeasuredRoofsOut | None
    measured_decode: MeasuredDecode | None = None
    link: Link | None = Field(description="GPU-to-GPU link used for tensor parallelism")
    tensor_dtype: str = Field(description="dtype whose tensor roof was used (after fallback)")
    tensor_flops_per_s: float
    vector_unit: str
    vector_flops_per_s: float
    memory_bandwidth_bytes_per_s: float
    ridge_point: float = Field(description="FLOP/byte of the tensor roof")
    vector_ridge_point: float = Field(description="FLOP/byte of the vector roof")
    decode: PhaseResult
    prefill: PhaseResult
    memory: MemoryResult


class AnalysisResponse(BaseModel):
    model: dict[str, Any]
    scenario: dict[str, Any]
    results: list[HardwareResult]


class AcceleratorOut(Accelerator):
    ridge_points: dict[str, float | None] = Field(description="tensor FLOP/s / bandwidth per dtype (FLOP/byte)")


class HardwareList(BaseModel):
    items: list[AcceleratorOut]


class ModelSummary(BaseModel):
    id: str
    family: str
    num_params: int
    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    published_params: str | None
    num_active_params: int = Field(description="parameters one token uses (MoE: k routed + shared experts)")
    moe: bool
    mla: bool
    sliding_window_layers: int


class ModelList(BaseModel):
    items: list[ModelSummary]


class ModelDetail(ModelSummary):
    hf_repo: str
    sources: list[str]
    config: dict[str, Any]


class SingleOpResult(BaseModel):
    hardware_id: str
    unit: Literal["tensor", "vector"]
    flops: float
    bytes: float
    intensity: float
    attainable_flops_per_s: float
    time_s: float
    bound: Literal["memory", "compute"]


class OpsResponse(BaseModel):
    results: list[SingleOpResult]


class MeasuredPoint(BaseModel):
    name: str
    family: str | None
    phase: str | None
    hardware: str | None
    unit: Literal["tensor", "vector"]
    flops: float
    bytes: float
    time_s: float
    intensity: float
    achieved_flops_per_s: float
    achieved_bytes_per_s: float
    attainable_flops_per_s: float = Field(description="the roof at this intensity")
    gap: float = Field(description="roof / achieved (1 = on the roof)")
    fraction_of_roof: float
    predicted_time_s: float
    counts_from_model: bool = Field(description="FLOPs and bytes are the model's prediction for this op family")


class MeasurementsResponse(BaseModel):
    hardware_id: str
    format: str
    roofs: Literal["nominal", "measured"]
    points: list[MeasuredPoint]
    skipped: list[str] = Field(description="rows with no counts and no model prediction to borrow")


class SweepSeries(BaseModel):
    hardware_id: str
    batch_size: list[int]
    context_length: list[int]
    time_s: list[float]
    tokens_per_s: list[float]
    intensity: list[float]
    kv_cache_bytes: list[float]
    fits: list[bool]


class SweepResponse(BaseModel):
    results: list[SweepSeries]


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class ErrorItem(BaseModel):
    field: str
    message: str


class ErrorResponse(BaseModel):
    detail: str
    errors: list[ErrorItem] = []
    known_ids: list[str] | None = None
