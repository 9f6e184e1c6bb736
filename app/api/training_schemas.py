"""Request and response models of POST /api/v1/training (engine/training.py; SI units)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from engine.training import (
    MAX_BUS_BANDWIDTH_BYTES_PER_S,
    MAX_GPUS,
    MAX_SEQUENCE,
    MAX_STEP_TIME_S,
    MAX_TOKENS_PER_S,
    MIN_BUS_BANDWIDTH_BYTES_PER_S,
    MIN_STEP_TIME_S,
    MIN_TOKENS_PER_S,
)


def _not_bool(value: object) -> object:
    if isinstance(value, bool):  # Literal[1, ...] matches True (True == 1), even in strict mode
        raise ValueError("must be an integer, not true/false")
    return value


class TrainingRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    model: Annotated[str, Field(max_length=64)] | dict[str, Any] = Field(
        ...,
        description="preset id, a Hugging Face config.json object, or the teaching form "
        '{"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128} (recognised by num_params)',
    )
    hardware: Annotated[str, Field(max_length=64)] = Field(..., description="accelerator id (every GPU the same)")
    gpus: int = Field(..., ge=1, le=MAX_GPUS, description="data-parallel GPUs")
    sequence_length: int = Field(..., ge=1, le=MAX_SEQUENCE, description="tokens per sequence (T)")
    tokens_per_step: int = Field(
        ..., ge=1, le=1 << 50, description="tokens per optimizer step, a multiple of gpus x sequence_length"
    )
    step_time_s: float | None = Field(
        None,
        ge=MIN_STEP_TIME_S,
        le=MAX_STEP_TIME_S,
        allow_inf_nan=False,
        description="measured optimizer step, seconds",
    )
    tokens_per_s: float | None = Field(
        None,
        ge=MIN_TOKENS_PER_S,
        le=MAX_TOKENS_PER_S,
        allow_inf_nan=False,
        description="or the measured tokens/s (give exactly one; the step it makes must lie in step_time_s's range)",
    )
    optimizer: Literal["adamw", "sgd_momentum"] = Field("adamw", description="mixed-precision optimizer")
    zero_stage: Annotated[Literal[0, 1, 2, 3], BeforeValidator(_not_bool)] = Field(
        0, description="ZeRO stage: 1 shards the optimizer state, 2 also gradients, 3 also weights"
    )
    recompute: Literal["none", "selective", "full"] = Field(
        "none", description="activation recomputation (Korthikanti et al. 2022)"
    )
    dtype: Literal["bf16", "fp16"] = Field("bf16", description="training dtype (mixed precision, fp32 master)")
    micro_batch_size: int | None = Field(
        None, ge=1, le=1 << 30, description="sequences per GPU per micro-batch; default: all (no accumulation)"
    )
    bus_bandwidth_bytes_per_s: float | None = Field(
        None,
        ge=MIN_BUS_BANDWIDTH_BYTES_PER_S,
        le=MAX_BUS_BANDWIDTH_BYTES_PER_S,
        allow_inf_nan=False,
        description="measured all-reduce busbw (nccl-tests); default: the scale-up link per direction",
    )
    gpus_per_node: int = Field(8, ge=1, le=MAX_GPUS, description="GPUs one scale-up link joins")

    def setup_fields(self) -> dict:
        return self.model_dump(exclude={"model", "hardware"})


class Counted(BaseModel):
    mfu: str = Field(description="what MFU counted")
    mfu_with_attention: str = Field(description="what MFU with attention counted")
    hfu: str = Field(description="what HFU counted")
    hfu_with_attention: str = Field(description="what HFU with attention counted")
    mfu_sparse_peak: str = Field(description="what MFU over the sparse peak counted")


class TrainingModelOut(BaseModel):
    id: str = Field(description="preset id, config name or 'teaching'")
    num_params: float = Field(description="N, all parameters")
    num_layers: int = Field(description="L")
    num_heads: int = Field(description="H, query heads")
    head_dim: int = Field(description="Q")
    hidden_size: int = Field(description="h")
    num_active_params: float = Field(description="parameters a token uses (FLOP counts)")


class TrainingSetupOut(BaseModel):
    gpus: int = Field(description="data-parallel GPUs")
    sequence_length: int = Field(description="tokens per sequence (T)")
    tokens_per_step: int = Field(description="tokens per optimizer step")
    sequences_per_gpu: int = Field(description="tokens_per_step / (gpus x sequence_length)")
    micro_batch_size: int = Field(description="sequences per GPU per micro-batch")
    accumulation_steps: int = Field(description="micro-batches per optimizer step")
    optimizer: str = Field(description="adamw or sgd_momentum")
    zero_stage: int = Field(description="ZeRO stage 0-3")
    recompute: str = Field(description="none, selective or full")
    dtype: str = Field(description="training dtype (mixed precision)")


class TrainingMemory(BaseModel):
    weights_bytes: float = Field(description="bf16/fp16 weights per GPU (sharded at ZeRO-3)")
    gradients_bytes: float = Field(description="bf16/fp16 gradients per GPU (sharded at ZeRO-2+)")
    optimizer_bytes: float = Field(description="optimizer state per GPU: 12 B/param AdamW, 8 SGD (ZeRO-1+ shards)")
    model_state_bytes: float = Field(description="weights + gradients + optimizer, per GPU")
    activation_bytes_per_layer: float = Field(description="Korthikanti et al. 2022 Eq. 1 / Table 2, bytes")
    recompute_workspace_bytes: float = Field(description="one layer rematerialised during its backward, bytes")
    activation_bytes: float = Field(description="layers x per layer + workspace, per GPU")
    total_bytes: float = Field(description="model states + activations, per GPU")
    capacity_bytes: float = Field(description="one accelerator's memory, real bytes")
    fits: bool = Field(description="total_bytes <= capacity_bytes")
    overflow: str | None = Field(description="'model_states (<largest> largest)' or 'activations'; null if it fits")


class TrainingFix(BaseModel):
    zero_stage: int = Field(description="ZeRO stage with this change")
    recompute: str = Field(description="recomputation with this change")
    micro_batch_size: int = Field(description="sequences per GPU per micro-batch with this change")
    accumulation_steps: int = Field(description="micro-batches per optimizer step with this change")
    change: str = Field(description="the knobs changed, in words")
    estimated_extra_time_s: float = Field(
        description="recomputed FLOPs at the measured rate plus extra ZeRO traffic (not overlapped), seconds/step"
    )
    total_bytes: float = Field(description="the bill with this change, per GPU")


class TrainingResponse(BaseModel):
    model: TrainingModelOut = Field(description="the model as the lab counts it")
    hardware_id: str = Field(description="accelerator id")
    setup: TrainingSetupOut = Field(description="the run as understood (micro-batch, accumulation)")
    tokens_per_s: float = Field(description="tokens_per_step / step time")
    step_time_s: float = Field(description="measured (or tokens_per_step / tokens_per_s), seconds")
    peak_dtype: str = Field(description="dtype of the dense tensor peak used")
    peak_flops_per_s: float = Field(description="dense tensor peak per GPU, FLOP/s")
    dtype_note: str = Field(
        description="why bf16 vs fp16 does or does not move a number here (same 2 bytes; same dense peak on most chips)"
    )
    sparse_peak_flops_per_s: float | None = Field(description="the 2:4 sparse peak spec sheets print (2x dense)")
    model_flops_per_token: float = Field(description="6N")
    attention_flops_per_token: float = Field(description="12·L·H·Q·T")
    recompute_flops_per_token: float = Field(description="FLOPs per token executed again by recomputation")
    mfu: float = Field(description="6N per token over the dense peak (PaLM)")
    mfu_with_attention: float = Field(description="(6N + 12·L·H·Q·T) per token over the dense peak")
    hfu: float = Field(description="executed dense FLOPs (8N with full recompute) over the dense peak")
    hfu_with_attention: float = Field(description="all executed FLOPs including attention and recomputation")
    mfu_sparse_peak: float | None = Field(description="6N over the 2:4 sparse peak (misleading); null without one")
    counted: Counted = Field(description="one line per figure on what was counted")
    gradient_bytes: float = Field(description="N x 2 bytes of bf16/fp16 gradients")
    bus_bandwidth_bytes_per_s: float | None = Field(description="busbw used; null with one GPU")
    bus_bandwidth_source: str = Field(description="where the busbw came from")
    accumulation_steps: int = Field(description="micro-batches per optimizer step")
    allreduce_time_s: float = Field(description="ring all-reduce of the gradients, once per step (no_sync)")
    allreduce_share_of_step: float = Field(description="allreduce_time_s / step time: the no-overlap upper bound")
    allreduce_time_without_no_sync_s: float = Field(description="one all-reduce per micro-batch instead")
    zero_communication_time_s: float = Field(description="the ZeRO stage's traffic per step (1.5x at stage 3)")
    zero_communication_share_of_step: float = Field(description="zero_communication_time_s / step time")
    compute_time_lower_bound_s: float = Field(description="step time minus communication, if none overlapped")
    memory: TrainingMemory = Field(description="the memory bill per GPU")
    model_state_bytes: float = Field(description="memory.model_state_bytes (per GPU)")
    activation_bytes: float = Field(description="memory.activation_bytes (per GPU)")
    fits: bool = Field(description="memory.fits")
    overflow: str | None = Field(description="memory.overflow: which part does not fit")
    smallest_fix: TrainingFix | None = Field(description="the cheapest change that fits; null if it fits or none does")
    fixes: list[TrainingFix] | None = Field(description="up to 5 changes that fit, cheapest first")
    fix_note: str | None = Field(description="why no change fits, when none does")
