"""Request and response models of the serving endpoints (SI units: seconds, tokens/s, bytes)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.fields import ComputeDtype, KvDtype, MemoryUtilization, WeightDtype
from engine.serving.curve import DEFAULT_CONCURRENCIES, MAX_CURVE_POINTS
from engine.serving.scenario import (
    DEFAULT_MEMORY_UTILIZATION,
    MAX_CONCURRENCY,
    MAX_GPUS,
    MAX_TOKENS,
    ServingScenario,
)

Backend = Literal["trtllm", "vllm", "sglang"]


class ServingFields(BaseModel):
    # strict: `true` or "32" for a concurrency is a client bug to report, not a value to coerce
    model_config = ConfigDict(extra="forbid", strict=True)

    model: Annotated[str, Field(max_length=128)] | dict[str, Any] = Field(
        ..., description="preset id, Hugging Face repo id (e.g. meta-llama/Llama-3.1-70B) or a config.json object"
    )
    hardware: str = Field(..., max_length=64, description="accelerator id (GET /api/v1/hardware)")
    backend: Backend | None = Field(
        None, description="serving engine whose calibration to use; null: the 'any backend' calibration"
    )
    input_tokens: int = Field(1024, ge=1, le=MAX_TOKENS, description="prompt tokens per request")
    output_tokens: int = Field(1024, ge=1, le=MAX_TOKENS, description="generated tokens per request")
    tensor_parallel: int = Field(
        1,
        ge=1,
        le=MAX_GPUS,
        description="attention's tensor-parallel degree: at most the accelerator's scale-up (NVLink) domain, "
        "8 on a card without one; past it a 422 names the domain's size",
    )
    attention_data_parallel: int = Field(
        1, ge=1, le=MAX_GPUS, description="attention data-parallel ranks, each with its own requests and KV cache"
    )
    moe_tensor_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="MoE experts' width split (MoE models)")
    expert_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="MoE experts split whole (MoE models)")
    weight_dtype: WeightDtype = "bf16"
    compute_dtype: ComputeDtype = "bf16"
    kv_dtype: KvDtype = "bf16"
    memory_utilization: MemoryUtilization = DEFAULT_MEMORY_UTILIZATION

    def scenario(self, concurrency: int = 1) -> ServingScenario:
        return ServingScenario(
            concurrency=concurrency,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            tensor_parallel=self.tensor_parallel,
            attention_data_parallel=self.attention_data_parallel,
            moe_tensor_parallel=self.moe_tensor_parallel,
            expert_parallel=self.expert_parallel,
            weight_dtype=self.weight_dtype,
            compute_dtype=self.compute_dtype,
            kv_dtype=self.kv_dtype,
            memory_utilization=self.memory_utilization,
            backend=self.backend,
        )


class ServingRequest(ServingFields):
    concurrency: int = Field(16, ge=1, le=MAX_CONCURRENCY, description="requests in flight across the instance")


class ServingCurveRequest(ServingFields):
    concurrencies: list[int] = Field(
        list(DEFAULT_CONCURRENCIES),
        min_length=1,
        max_length=MAX_CURVE_POINTS,
        description=f"concurrency of each point (1 to {MAX_CURVE_POINTS} points); the points come back in this "
        "order, a repeated concurrency answered again",
    )


class Rates(BaseModel):
    ttft_s: float = Field(description="time to first token, s")
    tpot_s: float = Field(description="time per output token (one decode step), s")
    output_tokens_per_s_per_gpu: float = Field(description="output tokens/s per GPU: running batch / TPOT / GPUs")
    tokens_per_s_per_user: float = Field(description="output tokens/s one user sees: 1 / TPOT")


class EstimateRates(Rates):
    tpot_s_range: list[float] = Field(
        description="[low, high] TPOT in s: p10-p90 of measured / estimate in held-out fits, never below the bound"
    )
    ttft_s_range: list[float] = Field(
        description="[low, high] TTFT in s: p10-p90 of measured / estimate in held-out fits, never below the bound"
    )


class CalibrationInfo(BaseModel):
    id: str = Field(description="version of engine/calibration/serving.yaml")
    backend: str = Field(description="backend whose factors were used ('any': none)")
    family: str = Field(description="accelerator family whose factors were used ('any': none)")
    rows: int = Field(description="measured runs the calibration was fitted on")
    parameters: dict[str, float] = Field(description="the parameters applied")


class ServingResponse(BaseModel):
    model: str = Field(description="model id the answer is for (the preset a Hugging Face id resolved to)")
    hardware: str = Field(description="accelerator id the answer is for")
    gpus: int = Field(description="GPUs of the instance: tensor_parallel x attention_data_parallel")
    running_batch: int = Field(description="requests decoding at once: min(concurrency, what fits in memory)")
    queued: int = Field(description="requests waiting for memory")
    queue_reason: str = Field(description="why they wait (or that all fit)")
    bound: Rates = Field(description="the scenario at the ideal roofs: no run can be faster")
    estimate: EstimateRates = Field(description="the bound's parts scaled by the serving calibration")
    breakdown: dict[str, Any] = Field(description="TPOT parts (decode, prefill share, communication, overhead)")
    calibration: CalibrationInfo = Field(description="which serving calibration the estimate used")
    warnings: list[str] = Field(description="what to keep in mind about this answer (queueing, layout, fit range)")


class CurvePoint(BaseModel):
    concurrency: int = Field(description="requests in flight across the instance at this point")
    running_batch: int = Field(description="requests decoding at once: min(concurrency, what fits in memory)")
    queued: int = Field(description="requests waiting for memory at this point")
    bound: Rates = Field(description="the point at the ideal roofs: no run can be faster")
    estimate: EstimateRates = Field(description="the bound's parts scaled by the serving calibration")


class ServingCurveResponse(BaseModel):
    model: str = Field(description="model id the curve is for (the preset a Hugging Face id resolved to)")
    hardware: str = Field(description="accelerator id the curve is for")
    gpus: int = Field(description="GPUs of the instance: tensor_parallel x attention_data_parallel")
    calibration: str = Field(description="id of the serving calibration the estimates used")
    points: list[CurvePoint] = Field(
        description="one point per requested concurrency, in the order asked (a repeated one answered again)"
    )
