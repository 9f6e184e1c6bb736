"""Request and response models of the HTTP API (every number in SI base units)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator

from app.api.fields import ComputeDtype, Dtype, KvDtype, MemoryUtilization, WeightDtype
from engine.analysis import DEFAULT_MEMORY_UTILIZATION, MAX_BATCH, MAX_BLOCK, MAX_CONTEXT, Scenario
from engine.errors import EngineInputError
from engine.hardware import Accelerator
from engine.measurement import MAX_MEASURED_STEP_S
from engine.oplab import (
    ACTIVATIONS,
    DEFAULT_CHAIN_OP,
    MAX_CHAIN_COUNT,
    MAX_CHAIN_OPS,
    MAX_CONV,
    MAX_ELEMENTS,
    MAX_KERNEL,
    MAX_LAUNCH_OVERHEAD_S,
    MAX_SHAPE_DIMS,
    STORAGE_DTYPES,
    Conv2dSpec,
    ElementwiseSpec,
    GemmSpec,
    parse_tile,
)
from engine.ops import ELEMENTWISE_KINDS
from engine.published import PublishedEntry

ElementwiseName = Literal[tuple(ELEMENTWISE_KINDS)]  # type: ignore[valid-type]
HardwareSpec = Annotated[str, Field(max_length=64, description="accelerator id")] | Accelerator
MAX_SWEEP_POINTS = 4096
# Work per sweep request: points x accelerators. 4,096 points on 16 accelerators took 0.9 s of
# CPU and 6.4 MB of JSON; a quarter of that keeps one request near 0.2 s.
MAX_SWEEP_WORK = 16384


def _not_bool(value: object) -> object:
    # Literal[1, ...] matches True (True == 1), even in strict mode
    if isinstance(value, bool):
        raise ValueError("must be an integer, not true/false")
    return value


# engine.hardware.TENSOR_PARALLEL_DEGREES; past 8 only within the accelerator's scale-up domain (NVL72: 72)
TensorParallel = Annotated[Literal[1, 2, 4, 8, 16, 32, 64, 72], BeforeValidator(_not_bool)]


class _Request(BaseModel):
    # strict: `true` or "32" for a batch size is a client bug to report, not a value to coerce
    model_config = ConfigDict(extra="forbid", strict=True)


class ScenarioFields(_Request):
    model: Annotated[str, Field(max_length=64)] | dict[str, Any] = Field(
        ..., description="preset id (GET /api/v1/models) or a Hugging Face config.json object"
    )
    hardware: list[HardwareSpec] = Field(
        ..., min_length=1, max_length=16, description="1 to 16 accelerator ids or inline accelerator objects"
    )
    batch_size: int = Field(1, ge=1, le=MAX_BATCH, description="sequences in flight")
    context_length: int = Field(
        4096, ge=1, le=MAX_CONTEXT, description="tokens per sequence: cached (decode) or prompt (prefill)"
    )
    num_kv_heads: int | None = Field(None, ge=1, le=65536, description="override KV heads; must divide query heads")
    weight_dtype: WeightDtype = "bf16"
    kv_dtype: KvDtype = "bf16"
    compute_dtype: ComputeDtype = "bf16"
    flash_attention: bool = Field(True, description="fused attention: scores never go to memory")
    causal: bool = Field(True, description="count prefill attention with the causal mask")
    tensor_parallel: TensorParallel = Field(
        1,
        description="tensor-parallel degree: every number becomes per GPU, plus all-reduce time; past 8 only "
        "on an accelerator whose scale-up domain is that large (GB200/GB300 NVL72: 72)",
    )
    kv_block_size: int = Field(16, ge=1, le=MAX_BLOCK, description="paged KV block, tokens (waste reported)")
    shared_prefix_length: int = Field(
        0, ge=0, le=MAX_CONTEXT, description="tokens of a prefix shared by the whole batch, stored once"
    )
    roofs: Literal["nominal", "measured"] = Field(
        "nominal", description="datasheet roofs, or the calibrated ones where an accelerator has them"
    )
    bandwidth_efficiency: float = Field(
        1.0, ge=0.01, le=1.0, allow_inf_nan=False, description="achievable fraction of memory bandwidth"
    )
    compute_efficiency: float = Field(
        1.0, ge=0.01, le=1.0, allow_inf_nan=False, description="achievable fraction of peak FLOP/s"
    )
    memory_utilization: MemoryUtilization = DEFAULT_MEMORY_UTILIZATION

    def scenario(self) -> Scenario:
        return Scenario(
            batch_size=self.batch_size,
            context_length=self.context_length,
            num_kv_heads=self.num_kv_heads,
            weight_dtype=self.weight_dtype,
            kv_dtype=self.kv_dtype,
            compute_dtype=self.compute_dtype,
            flash_attention=self.flash_attention,
            causal=self.causal,
            tensor_parallel=self.tensor_parallel,
            kv_block_size=self.kv_block_size,
            shared_prefix_length=self.shared_prefix_length,
            roofs=self.roofs,
            bandwidth_efficiency=self.bandwidth_efficiency,
            compute_efficiency=self.compute_efficiency,
            memory_utilization=self.memory_utilization,
        )


class AnalyzeRequest(ScenarioFields):
    measured_decode_step_s: float | None = Field(
        None,
        gt=0,
        le=MAX_MEASURED_STEP_S,
        allow_inf_nan=False,
        description="a measured decode step time, seconds -> MBU/MFU",
    )
    measured_tokens_per_s: float | None = Field(
        None, gt=0, le=1e9, allow_inf_nan=False, description="or a measured decode throughput, tokens/s"
    )
    output_tokens: int | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="tokens each sequence generates: adds a `request` block per result "
        "(TTFT, TPOT, e2e, output rates, cost); context + output - 1 "
        "<= 16,777,216",
    )
    gpu_hour_price: float | None = Field(
        None,
        gt=0,
        le=10_000,
        allow_inf_nan=False,
        description="USD per GPU-hour (needs output_tokens): cost per million output tokens; null gives a null cost",
    )


class MeasurementsRequest(_Request):
    format: Literal["csv", "json", "torch_table", "chrome_trace", "ncu_csv"] = Field(
        ..., description="csv/json: name, flops, bytes, time_s[, phase, hardware]; or a profiler export"
    )
    content: str = Field(..., max_length=256 * 1024, description="the file's text (parsed, never executed)")
    hardware: HardwareSpec = Field(..., description="the accelerator it was measured on")
    model: Annotated[str, Field(max_length=64)] | dict[str, Any] | None = Field(
        None, description="preset or config.json: lets profiler rows without counts borrow the model's"
    )
    steps: int = Field(1, ge=1, le=100000, description="decode steps the profile covers (times are divided)")
    batch_size: int = Field(1, ge=1, le=MAX_BATCH, description="the measured scenario's batch")
    context_length: int = Field(4096, ge=1, le=MAX_CONTEXT, description="the measured scenario's context")
    weight_dtype: WeightDtype = "bf16"
    kv_dtype: KvDtype = "bf16"
    compute_dtype: ComputeDtype = "bf16"
    tensor_parallel: TensorParallel = Field(1, description="tensor-parallel degree of the measured run")
    roofs: Literal["nominal", "measured"] = Field("nominal", description="roofs to measure the gap against")

    def scenario(self) -> Scenario:
        return Scenario(
            batch_size=self.batch_size,
            context_length=self.context_length,
            weight_dtype=self.weight_dtype,
            kv_dtype=self.kv_dtype,
            compute_dtype=self.compute_dtype,
            tensor_parallel=self.tensor_parallel,
            roofs=self.roofs,
        )


class SweepRequest(ScenarioFields):
    batch_sizes: list[Annotated[int, Field(ge=1, le=MAX_BATCH)]] | None = Field(
        None, min_length=1, max_length=MAX_SWEEP_POINTS, description="sweep decode over these batch sizes"
    )
    context_lengths: list[Annotated[int, Field(ge=1, le=MAX_CONTEXT)]] | None = Field(
        None, min_length=1, max_length=MAX_SWEEP_POINTS, description="or over these context lengths"
    )

    @field_validator("batch_sizes", "context_lengths")
    @classmethod
    def _cap_work(cls, points: list[int] | None, info: ValidationInfo) -> list[int] | None:
        accelerators = len(info.data.get("hardware") or [])
        if points is not None and len(points) * accelerators > MAX_SWEEP_WORK:
            raise ValueError(
                f"{len(points)} points x {accelerators} accelerators is more work than one request "
                f"may ask for (points x accelerators <= {MAX_SWEEP_WORK})"
            )
        return points

    output_tokens: int | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="with batch_sizes: each series gets `request`, one request of this "
        "many output tokens per batch size (throughput-interactivity)",
    )
    gpu_hour_price: float | None = Field(
        None,
        gt=0,
        le=10_000,
        allow_inf_nan=False,
        description="USD per GPU-hour (needs output_tokens): cost per batch size",
    )


StorageDtype = Literal[STORAGE_DTYPES]  # type: ignore[valid-type]


class GemmOp(_Request):
    kind: Literal["gemm"] = Field(description="a matrix multiply C[m,n] = A[m,k] B[k,n]")
    m: int = Field(..., ge=1, le=1 << 24, description="rows of A and C")
    n: int = Field(..., ge=1, le=1 << 24, description="columns of B and C")
    k: int = Field(..., ge=1, le=1 << 24, description="inner dimension")
    dtype: Dtype = Field("bf16", description="format of A, B and C (and the tensor roof used)")
    a_dtype: StorageDtype | None = Field(None, description="format of A if not `dtype`")
    b_dtype: StorageDtype | None = Field(None, description="format of B if not `dtype`")
    c_dtype: StorageDtype | None = Field(None, description="format of C if not `dtype` (e.g. fp32)")
    tile: str | None = Field(
        None,
        max_length=20,
        description="thread-block tile 'MxN' or 'MxNxK' (K step defaults to the smaller side): adds the "
        "`tile` view (C read-modify-write vs read once/write once)",
    )
    bias: bool = Field(False, description="a bias vector [n] added in the epilogue")
    activation: Literal[ACTIVATIONS] | None = Field(None, description="activation in the epilogue")  # type: ignore[valid-type]
    fused_epilogue: bool = Field(True, description="bias/activation fused into the GEMM (one kernel) or not (three)")

    def spec(self) -> GemmSpec:
        tile = None if self.tile is None else parse_tile(self.tile)
        return GemmSpec(**self.model_dump(exclude={"kind", "tile"}), tile=tile)


class Conv2dOp(_Request):
    kind: Literal["conv2d"] = Field(description="a 2-D convolution: direct count, and its im2col GEMM view")
    batch: int = Field(..., ge=1, le=MAX_CONV["batch"], description="images")
    height: int = Field(..., ge=1, le=MAX_CONV["height"], description="input height")
    width: int = Field(..., ge=1, le=MAX_CONV["width"], description="input width")
    in_channels: int = Field(..., ge=1, le=MAX_CONV["in_channels"], description="input channels")
    out_channels: int = Field(..., ge=1, le=MAX_CONV["out_channels"], description="output channels")
    kernel: int = Field(3, ge=1, le=MAX_KERNEL, description="square kernel side")
    stride: int = Field(1, ge=1, le=MAX_KERNEL, description="stride")
    padding: int = Field(0, ge=0, le=MAX_KERNEL, description="zero padding on each side")
    groups: int = Field(1, ge=1, le=MAX_CONV["in_channels"], description="groups; = channels is depthwise")
    dtype: Dtype = Field("bf16", description="format of input, weights and output")

    def spec(self) -> Conv2dSpec:
        return Conv2dSpec(**self.model_dump(exclude={"kind"}))


class ElementwiseOp(_Request):
    kind: Literal["elementwise"] = Field(description="an op, or a chain of ops, on the vector units")
    name: ElementwiseName | None = Field(None, description="one elementwise op (or give `ops`)")
    elements: int | None = Field(None, ge=1, le=1 << 40, description="values processed, flat (or give `shape`)")
    shape: list[Annotated[int, Field(ge=1, le=MAX_ELEMENTS)]] | None = Field(
        None, min_length=1, max_length=MAX_SHAPE_DIMS, description="tensor shape, e.g. [32, 2048, 4096]"
    )
    ops: list[ElementwiseName] | None = Field(
        None, min_length=1, max_length=MAX_CHAIN_OPS, description=f"the op list (default [{DEFAULT_CHAIN_OP!r}])"
    )
    count: int = Field(1, ge=1, le=MAX_CHAIN_COUNT, description="repeats of the op list")
    fused: bool = Field(False, description="one kernel: read once, write once; else each op through memory")
    dtype: Dtype | Literal["fp32"] = Field("bf16", description="value format (fp32 uses the fp32 vector rate)")

    def spec(self) -> ElementwiseSpec:
        if (self.elements is None) == (self.shape is None):
            raise EngineInputError(
                "op.shape", "give either `elements` (a flat count) or `shape`, not both", code="op_elements_or_shape"
            )
        if self.name is not None and self.ops is not None:
            raise EngineInputError(
                "op.ops", "give either `name` (one op) or `ops` (a list), not both", code="op_name_or_ops"
            )
        shape = (self.elements,) if self.shape is None else tuple(self.shape)
        ops = (self.name,) if self.name is not None else tuple(self.ops or (DEFAULT_CHAIN_OP,))
        return ElementwiseSpec(shape, ops, self.count, self.fused, self.dtype)


class OpsRequest(_Request):
    hardware: list[HardwareSpec] = Field(
        ...,
        min_length=1,
        max_length=16,
        description="1 to 16 accelerator ids, inline accelerator objects or what-if short forms "
        "'<name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]]'",
    )
    op: GemmOp | Conv2dOp | ElementwiseOp = Field(..., discriminator="kind", description="the op to place")
    launch_overhead_s: float = Field(
        0.0,
        ge=0,
        le=MAX_LAUNCH_OVERHEAD_S,
        allow_inf_nan=False,
        description="fixed cost per kernel launch, seconds (a few µs): time = max(compute, memory, overhead)",
    )


# ---- responses ------------------------------------------------------------------------


class OpResult(BaseModel):
    name: str = Field(description="op name (q_proj, attention, residual_add, ...)")
    unit: Literal["tensor", "vector"] = Field(description="tensor cores or vector units")
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes moved")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="lower bound, seconds")
    bound: Literal["memory", "compute"] = Field(description="which roof limits it")
    layers: int = Field(description="transformer layers this row sums over; 0: once per step (embedding, lm_head)")
    share_of_step: float = Field(description="its time / the phase's time (TP communication included)")


class PhaseResult(BaseModel):
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="seconds (sum of the ops' bounds, plus TP communication)")
    bound: Literal["memory", "compute"] = Field(description="the regime that holds most of the time")
    attainable_flops_per_s: float = Field(description="FLOP/s")
    fraction_of_roof: float = Field(
        description="attained / min(tensor peak, intensity x bandwidth): below 1 when ops of both regimes run back "
        "to back, or TP communication adds time"
    )
    tokens_per_s: float = Field(description="tokens/s (decode: B / step; prefill: prompt tokens)")
    compute_time_s: float = Field(description="sum over ops of FLOPs / peak of their unit, seconds")
    memory_time_s: float = Field(description="sum over ops of bytes / bandwidth, seconds")
    communication_time_s: float = Field(description="tensor-parallel all-reduce time, seconds (0 without TP)")
    time_with_overlap_s: float = Field(description="bound if communication were fully hidden, seconds")
    ops: list[OpResult] = Field(description="every op of the phase, summed over layers")


class MemoryResult(BaseModel):
    weights_bytes: float = Field(description="all parameters at the weight dtype, bytes (per GPU)")
    kv_bytes_per_token: float = Field(description="KV bytes one token adds over all layers")
    kv_cache_bytes: float = Field(description="KV of the whole batch at this context, bytes (per GPU)")
    kv_block_waste_bytes: float = Field(description="KV rounded up to whole paged blocks, minus the exact KV")
    shared_prefix_bytes: float = Field(description="KV of the shared prefix, stored once")
    activation_bytes: float = Field(description="activation workspace of one decode step, bytes")
    total_bytes: float = Field(description="weights + KV + activations, bytes")
    capacity_bytes: float = Field(
        description="memory of one accelerator, real bytes: an '80GB' H100 holds 80 GiB (80 x 2^30 bytes)"
    )
    usable_bytes: float = Field(
        description="capacity x memory_utilization: what fits and max batch are measured against"
    )
    fits: bool = Field(description="total_bytes <= usable_bytes")
    max_batch_size: int = Field(description="largest batch that fits at this context (per TP group)")
    max_context_length: int = Field(description="longest context (tokens) at which this batch fits; 0 if none")
    min_tensor_parallel: int | None = Field(
        description="smallest TP degree (1, 2, 4, 8) that fits the model and one sequence; null if none"
    )


class Link(BaseModel):
    name: str = Field(description="NVLink, ICI, PCIe, ...")
    bytes_per_s_per_direction: float = Field(description="bytes/s each way")


class MeasuredRoofsOut(BaseModel):
    date: str = Field(description="when it was measured")
    tool: str = Field(description="what measured it")
    device: str = Field(description="device name as measured")
    memory_bandwidth_bytes_per_s: float = Field(description="measured bandwidth, bytes/s")
    tensor_dtype: str = Field(description="dtype of the measured tensor roof")
    tensor_flops_per_s: float = Field(description="measured matrix FLOP/s")
    vector_flops_per_s: float = Field(description="measured non-tensor FLOP/s")


class MeasuredDecode(BaseModel):
    step_time_s: float = Field(description="measured decode step, seconds")
    tokens_per_s: float = Field(description="batch / step time")
    mbu: float = Field(description="bytes per step / measured step time / peak bandwidth")
    mfu: float = Field(description="tokens/s x 2 x active params / (GPUs x peak FLOP/s), PaLM")
    intensity: float = Field(description="the step's FLOP/byte (predicted)")
    achieved_flops_per_s: float = Field(description="predicted FLOPs / measured time")
    predicted_time_s: float = Field(description="the engine's bound, seconds")
    gap: float = Field(description="measured step time / predicted bound")


class RequestResult(BaseModel):
    output_tokens: int = Field(description="tokens each sequence generates (N)")
    gpu_hour_price: float | None = Field(description="USD per GPU-hour, as given")
    ttft_s: float = Field(description="time to first token: prefill bound of the batch's prompts, seconds")
    tpot_s: float = Field(
        description="time per output token: mean decode step as the cache grows from context "
        "to context + N - 1 (exact sum / N), seconds"
    )
    decode_time_s: float = Field(description="sum of the N decode steps, seconds")
    e2e_s: float = Field(description="ttft_s + decode_time_s, seconds")
    output_tokens_per_s_per_sequence: float = Field(description="1 / tpot_s: tokens/s one user sees while streaming")
    output_tokens_per_s: float = Field(
        description="batch x N / e2e_s: the TP group's output tokens/s over the request, prefill included"
    )
    cost_per_million_output_tokens: float | None = Field(
        description="gpu_hour_price x GPUs (TP) x e2e_s / 3600 / (batch x N) x 1e6, USD; null without a price"
    )
    fits_at_end: bool = Field(description="the batch still fits in usable memory with context + N - 1 cached tokens")


class RequestSeries(BaseModel):
    ttft_s: list[float] = Field(description="time to first token per batch size, seconds")
    tpot_s: list[float] = Field(description="mean decode step per batch size, seconds")
    e2e_s: list[float] = Field(description="end-to-end time per batch size, seconds")
    output_tokens_per_s_per_sequence: list[float] = Field(description="1 / TPOT per batch size (x of the curve)")
    output_tokens_per_s: list[float] = Field(description="batch x N / e2e per batch size (TP group)")
    output_tokens_per_s_per_gpu: list[float] = Field(description="output_tokens_per_s / TP (y of the curve)")
    cost_per_million_output_tokens: list[float] | None = Field(description="USD per batch size; null without a price")
    fits_at_end: list[bool] = Field(description="fits with context + N - 1 cached tokens, per batch size")


class HardwareResult(BaseModel):
    hardware_id: str = Field(description="accelerator id")
    hardware_name: str = Field(description="product name")
    tensor_parallel: int = Field(description="TP degree; numbers are per GPU")
    roofs: Literal["nominal", "measured"] = Field(description="which roof set was used")
    measured_roofs: MeasuredRoofsOut | None = Field(description="a calibration's roofs, when the accelerator has one")
    measured_decode: MeasuredDecode | None = Field(None, description="MBU/MFU of a measured decode step")
    link: Link | None = Field(description="GPU-to-GPU link used for tensor parallelism")
    tensor_dtype: str = Field(description="dtype whose tensor roof was used (after fallback)")
    tensor_flops_per_s: float = Field(description="tensor roof used, FLOP/s (after efficiency)")
    vector_unit: str = Field(description="which vector rate was used")
    vector_flops_per_s: float = Field(description="vector roof used, FLOP/s")
    memory_bandwidth_bytes_per_s: float = Field(description="bandwidth used, bytes/s (after efficiency)")
    ridge_point: float = Field(description="FLOP/byte of the tensor roof")
    vector_ridge_point: float = Field(description="FLOP/byte of the vector roof")
    decode: PhaseResult = Field(description="one decode step: B new tokens")
    prefill: PhaseResult = Field(description="B prompts of T tokens (time-to-first-token bound)")
    memory: MemoryResult = Field(description="memory budget per GPU")
    request: RequestResult | None = Field(None, description="one request end to end; present only with output_tokens")
    warnings: list[str] = Field(
        [],
        description="sentences to show next to the numbers, e.g. a measured step "
        "faster than the roofs allow (MBU or MFU over 100%)",
    )


class AnalysisResponse(BaseModel):
    model: dict[str, Any] = Field(description="the resolved model: params, layers, per-layer groups")
    scenario: dict[str, Any] = Field(description="the scenario as understood")
    results: list[HardwareResult] = Field(description="one per accelerator, in request order")


class HierarchyRoof(BaseModel):
    level: str = Field(description="hbm, l2, infinity_cache or l1")
    uid: str = Field(description="the chart's trace uid: roof--<hardware id>--<level>")
    bandwidth_bytes_per_s: float = Field(description="bytes/s from this level")
    capacity_bytes: float = Field(description="largest working set the bandwidth holds for, bytes")
    kind: Literal["peak", "measured"] = Field(description="vendor peak or a measured plateau")
    source: str = Field(description="where the number comes from")
    tensor_dtype: str = Field(description="dtype of the tensor peak the ridge point uses")
    ridge_point: float = Field(description="bf16 tensor peak / this bandwidth, FLOP/byte")
    vector_ridge_point: float = Field(description="vector peak / this bandwidth, FLOP/byte")
    times_hbm: float = Field(description="this bandwidth / the HBM roof")


class HierarchyResponse(BaseModel):
    hardware_id: str = Field(description="accelerator id")
    roofs: list[HierarchyRoof] = Field(
        description="HBM, then each sourced cache roof (engine/hierarchy.py); no source, no roof"
    )


class AcceleratorOut(Accelerator):
    ridge_points: dict[str, float | None] = Field(description="tensor FLOP/s / bandwidth per dtype (FLOP/byte)")


class HardwareList(BaseModel):
    items: list[AcceleratorOut] = Field(description="every accelerator, built-in and user-supplied")


class ModelSummary(BaseModel):
    id: str = Field(description="preset id")
    family: str = Field(description="model_type")
    num_params: int = Field(description="all parameters")
    num_layers: int = Field(description="decoder layers")
    hidden_size: int = Field(description="model width")
    num_heads: int = Field(description="query heads (layer 0)")
    num_kv_heads: int = Field(description="KV heads (layer 0)")
    head_dim: int = Field(description="per-head width")
    vocab_size: int = Field(description="vocabulary")
    published_params: str | None = Field(description="headline count from the model card")
    num_active_params: int = Field(description="parameters one token uses (MoE: k routed + shared experts)")
    moe: bool = Field(description="has mixture-of-experts layers")
    mla: bool = Field(description="uses multi-head latent attention")
    sliding_window_layers: int = Field(description="layers with a sliding window")


class ModelList(BaseModel):
    items: list[ModelSummary] = Field(description="every preset")


class ModelDetail(ModelSummary):
    hf_repo: str = Field(description="Hugging Face repository")
    sources: list[str] = Field(description="where the config was read")
    config: dict[str, Any] = Field(description="the Hugging Face config.json")
    native_format: str | None = Field(
        None,
        description="the format the weights ship in when not 16-bit, by its own name (gpt-oss: MXFP4, "
        "modelled as int4 weights with 16-bit math); null for a 16-bit release",
    )


class KernelRow(BaseModel):
    name: str = Field(description="kernel name (gemm, bias_add, im2col, scale, fused_chain, ...)")
    unit: Literal["tensor", "vector"] = Field(description="tensor cores or vector units")
    count: int = Field(description="identical kernels summed in this row")
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes moved")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="lower bound of these kernels, seconds")
    bound: Literal["memory", "compute", "overhead"] = Field(description="what limits each kernel")


class OpPlacement(BaseModel):
    unit: Literal["tensor", "vector"] = Field(description="unit of the op's first kernel")
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes moved")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="lower bound: sum over kernels of max(compute, memory, overhead), seconds")
    bound: Literal["memory", "compute", "overhead"] = Field(description="the regime holding most of the time")
    attainable_flops_per_s: float = Field(description="flops / time_s; min(peak, I x bandwidth) for one kernel")
    compute_time_s: float = Field(description="sum of FLOPs / peak of each kernel's unit, seconds")
    memory_time_s: float = Field(description="bytes / bandwidth, seconds")
    overhead_time_s: float = Field(description="kernels x launch overhead, seconds")
    kernels: int = Field(description="kernel launches")
    peak_flops_per_s: float = Field(description="roof of `unit`, FLOP/s")
    ridge_point: float = Field(description="peak_flops_per_s / bandwidth, FLOP/byte")
    ops: list[KernelRow] = Field(description="the kernels, identical ones summed")


class SingleOpResult(OpPlacement):
    hardware_id: str = Field(description="accelerator id")
    hardware_name: str = Field(description="product name")
    what_if: bool = Field(description="a what-if accelerator (vendor 'what-if')")
    alternatives: dict[str, OpPlacement] = Field(
        description="the other views: 'unfused' or 'fused' (chains, GEMM epilogues), 'im2col' (conv2d)"
    )


class TileIntensity(BaseModel):
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes")
    intensity: float = Field(description="FLOP/byte")


class TileView(BaseModel):
    tile_m: int = Field(description="tile rows (clamped to m)")
    tile_n: int = Field(description="tile columns (clamped to n)")
    tile_k: int = Field(description="K step (clamped to k)")
    tiles: int = Field(description="tiles covering C")
    c_read_modify_write: TileIntensity = Field(description="one K step, C read and written (hand count: 32 at 128)")
    read_once_write_once: TileIntensity = Field(description="one K step, C written once (128/3 = 42.7)")
    no_l2_reuse: TileIntensity = Field(description="whole GEMM if every tile reads its A and B panels from HBM")


class Im2colView(BaseModel):
    m: int = Field(description="rows per group: batch x out_height x out_width")
    n: int = Field(description="out_channels / groups")
    k: int = Field(description="in_channels / groups x kernel^2")
    groups: int = Field(description="GEMMs")
    out_height: int = Field(description="output height")
    out_width: int = Field(description="output width")
    unrolled_values: int = Field(description="values in the unrolled input matrix")
    expansion: float = Field(description="unrolled values / input values (~kernel^2 / stride^2)")


class OpsResponse(BaseModel):
    op: dict[str, Any] = Field(description="the op as understood (defaults filled in)")
    name: str = Field(description="a label for the op")
    launch_overhead_s: float = Field(description="per kernel, seconds")
    tile: TileView | None = Field(description="with a tile: the tile's intensity under both conventions")
    im2col: Im2colView | None = Field(description="conv2d: the im2col GEMM shape")
    results: list[SingleOpResult] = Field(description="one per accelerator, in request order")


class OpPreset(BaseModel):
    id: str = Field(description="preset id (gemm-8192, gemv, chain-10, decode-q_proj, ...)")
    label: str = Field(description="what it shows and its source")
    op: dict[str, Any] = Field(description="an `op` body for POST /api/v1/ops")
    launch_overhead_s: float = Field(description="the launch overhead it is meant with, seconds")


class OpPresetList(BaseModel):
    items: list[OpPreset] = Field(description="the example shapes, then the model's decode projections")


class OpsChartRequest(_Request):
    hardware: list[HardwareSpec] = Field(
        ..., min_length=1, max_length=16, description="1 to 16 accelerator ids, inline objects or what-if short forms"
    )
    model: str = Field("llama-2-7b", max_length=64, description="preset id of the decode step's model (a 7B)")
    context_length: int = Field(128, ge=1, le=MAX_CONTEXT, description="cached tokens of the decode step")


class ChartResult(BaseModel):
    hardware_id: str = Field(description="accelerator id")
    hardware_name: str = Field(description="product name")
    what_if: bool = Field(description="a what-if accelerator")
    unit: Literal["tensor", "vector"] = Field(description="unit of the point's roof")
    flops: float = Field(description="FLOP")
    bytes: float = Field(description="bytes moved")
    intensity: float = Field(description="FLOP/byte")
    time_s: float = Field(description="lower bound, seconds")
    bound: Literal["memory", "compute", "overhead"] = Field(description="the regime holding most of the time")
    attainable_flops_per_s: float = Field(description="flops / time_s")
    compute_time_s: float = Field(description="FLOPs / peak, seconds")
    memory_time_s: float = Field(description="bytes / bandwidth, seconds")
    kernels: int = Field(description="kernels (ops of the decode step)")
    peak_flops_per_s: float = Field(description="roof of `unit`, FLOP/s")
    ridge_point: float = Field(description="peak / bandwidth, FLOP/byte")


class ChartPoint(BaseModel):
    id: str = Field(description="gemm-8192, add or decode")
    name: str = Field(description="label")
    source: str = Field(description="the formula behind the point's intensity")
    results: list[ChartResult] = Field(description="one per accelerator, in request order")


class OpsChartResponse(BaseModel):
    points: list[ChartPoint] = Field(description="the teaching chart's three points")


class MeasuredPoint(BaseModel):
    name: str = Field(description="the measured op or op family")
    family: str | None = Field(description="op family it maps to")
    phase: str | None = Field(description="decode/prefill, when given")
    hardware: str | None = Field(description="accelerator named in the file, when given")
    unit: Literal["tensor", "vector"] = Field(description="roof it sits under")
    flops: float = Field(description="FLOP (measured, or the model's for its family)")
    bytes: float = Field(description="bytes (measured, or the model's for its family)")
    time_s: float = Field(description="measured time, seconds")
    intensity: float = Field(description="FLOP/byte")
    achieved_flops_per_s: float = Field(description="flops / time_s")
    achieved_bytes_per_s: float = Field(description="bytes / time_s")
    attainable_flops_per_s: float = Field(description="the roof at this intensity")
    gap: float = Field(description="roof / achieved (1 = on the roof)")
    fraction_of_roof: float = Field(description="achieved / attainable")
    predicted_time_s: float = Field(description="the roofline bound for these counts, seconds")
    counts_from_model: bool = Field(description="FLOPs and bytes are the model's prediction for this op family")


class TriageRow(BaseModel):
    rank: int = Field(description="1 = the most recoverable time")
    name: str = Field(description="the measured op or op family")
    unit: Literal["tensor", "vector"] = Field(description="roof it sits under")
    time_s: float = Field(description="measured time, seconds")
    roof_time_s: float = Field(description="the roofline bound for its counts, seconds")
    gap: float = Field(description="measured time / roof time")
    time_share: float = Field(description="its share of the profile's measured time")
    recoverable_time_s: float = Field(description="measured time - roof time = time x (1 - 1/gap), seconds")
    recoverable_share: float = Field(description="time share x (1 - 1/gap)")
    achieved_bandwidth_fraction: float = Field(description="achieved bytes/s / peak memory bandwidth")
    regime: Literal["memory", "compute", "overhead"] = Field(
        description="overhead: roof time under one kernel launch (5 µs); else the binding roof"
    )
    far_from_roof: bool = Field(description="gap > 1/0.75 (real kernels reach 75-90% of nominal; NVIDIA matmul guide)")
    first_check: str = Field(description="the first thing to check for its regime (a profile's three signals)")


class MeasurementsResponse(BaseModel):
    hardware_id: str = Field(description="accelerator the points were placed on")
    format: str = Field(description="the format parsed")
    roofs: Literal["nominal", "measured"] = Field(description="roof set used")
    points: list[MeasuredPoint] = Field(description="one per record or op family")
    skipped: list[str] = Field(description="rows with no counts and no model prediction to borrow")
    triage: list[TriageRow] = Field(
        [], description="the points ranked by recoverable time (not by gap), each with its first check"
    )


class SweepSeries(BaseModel):
    hardware_id: str = Field(description="accelerator id")
    batch_size: list[int] = Field(description="sequences per point")
    context_length: list[int] = Field(description="tokens per sequence per point")
    time_s: list[float] = Field(description="decode step bound per point, seconds")
    tokens_per_s: list[float] = Field(description="decode tokens/s bound per point")
    intensity: list[float] = Field(description="decode FLOP/byte per point")
    kv_cache_bytes: list[float] = Field(description="KV of the batch per point, bytes")
    fits: list[bool] = Field(description="whether each point fits in memory")
    request: RequestSeries | None = Field(
        None,
        description="with output_tokens and batch_sizes: the request per "
        "batch size (the throughput-interactivity curve)",
    )


class SweepResponse(BaseModel):
    results: list[SweepSeries] = Field(description="one series per accelerator")


class PublishedItem(PublishedEntry):
    bound: float = Field(
        description="the engine's best case for the measured figure, in its unit (tokens/s: "
        "at most this; ms: at least this)"
    )
    fraction_of_bound: float = Field(
        description="bound time / measured time: 1 = on the roof; above 1 the entry "
        "or the engine is wrong (see verdict)"
    )
    measured_time_s: float = Field(
        description="the interval the figure measures: whole request (throughput), "
        "decode steps (per-token), prefill (TTFT), seconds"
    )
    bound_time_s: float = Field(description="the engine's bound for that interval, seconds")
    flops: float = Field(description="FLOPs the engine counts for the measured interval, per GPU")
    bytes: float = Field(description="bytes the engine counts for the measured interval, per GPU")
    intensity: float = Field(description="flops / bytes: where the interval sits on the roofline, FLOP/byte")
    achieved_flops_per_s: float = Field(description="flops / measured time: its height on the roofline, FLOP/s")
    mbu: float = Field(
        description="bytes the engine counts for the interval / measured time / peak bandwidth, per GPU (MBU)"
    )
    mfu: float = Field(
        description="FLOPs the engine counts for the interval / measured time / peak tensor "
        "FLOP/s of the compute dtype, per GPU"
    )
    tensor_dtype: str = Field(description="dtype of the tensor roof used")
    fits: bool = Field(description="the scenario fits the accelerator's memory at its first and last step")


class PublishedList(BaseModel):
    items: list[PublishedItem] = Field(
        description="the entries of published/*.yaml that match the filters (all without), with bound, MBU and MFU"
    )
    left_out: dict[Literal["other_model", "other_precision", "other_accelerator"], int] = Field(
        description="entries left out, by the first filter they fail: model, precision (weights and matrix math), "
        "accelerator"
    )
    left_out_count: int = Field(description="sum of left_out")
    note: str = Field(description="one sentence: how many match, how many were left out and why")


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class ErrorItem(BaseModel):
    field: str = Field(description="the offending field (dotted path)")
    message: str = Field(description="what was wrong and what is allowed")
    code: str | None = Field(
        None,
        description="a stable code for the error: the engine's (the dashboard words it as engine_<code> in "
        "each language) or, for a request the schema refuses, pydantic's error type (missing, "
        "greater_than_equal, literal_error, ...)",
    )
    params: dict = Field({}, description="the values the message names (field, value, limits), keyed as in it")


class ErrorResponse(BaseModel):
    detail: str = Field(description="a sentence saying what was wrong")
    errors: list[ErrorItem] = Field([], description="field by field")
    known_ids: list[str] | None = Field(None, description="the valid ids, for an unknown id")
    nearest: list[str] | None = Field(
        None, description="for an unknown model (422): the known names most like it, best first"
    )
