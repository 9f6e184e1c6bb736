"""Request and response models of the serving endpoints (SI units: seconds, tokens/s, bytes)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.fields import ComputeDtype, KvDtype, MemoryUtilization, WeightDtype
from engine.errors import EngineInputError
from engine.serving.curve import DEFAULT_CONCURRENCIES, MAX_CURVE_POINTS
from engine.serving.scenario import (
    MAX_CONCURRENCY,
    MAX_GPUS,
    MAX_PREFILL_BATCH,
    MAX_TOKENS,
    MAX_WORKERS,
    DisaggScenario,
    KvLink,
    ServingScenario,
    WorkerLayout,
)
from engine.serving.speculative import MAX_DRAFT_TOKENS, METHODS, Speculative

Backend = Literal["trtllm", "vllm", "sglang"]


class SpeculativeFields(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    method: Literal[METHODS] = Field(description="mtp (DeepSeek's multi-token prediction), eagle, draft_model")  # type: ignore[valid-type]
    draft_tokens: int = Field(1, ge=1, le=MAX_DRAFT_TOKENS, description="tokens the draft proposes per step")
    acceptance_rate: (
        Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
        | list[Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]]
    ) = Field(0.7, description="probability a draft token is accepted, or a [low, high] range the answer spans")
    draft_model: str | None = Field(None, max_length=128, description="draft_model only: the draft's catalogue id")

    def engine(self) -> Speculative:
        rate = self.acceptance_rate
        if isinstance(rate, list):
            if len(rate) != 2:
                raise EngineInputError(
                    "speculative.acceptance_rate", f"{len(rate)} values", "a rate or [low, high]",
                    code="list_length", params={"n": 2},
                )  # fmt: skip
            low, high = rate
        else:
            low = high = rate
        return Speculative(self.method, self.draft_tokens, float(low), float(high), self.draft_model)


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
    memory_utilization: MemoryUtilization | None = Field(
        None,
        description="the backend's own memory knob (vLLM gpu_memory_utilization, SGLang mem_fraction_static, "
        "TensorRT-LLM free_gpu_memory_fraction); null: that backend's default (no backend: vLLM's 0.9 of the card)",
    )

    speculative: SpeculativeFields | None = Field(
        None, description="speculative decoding: a draft proposes tokens the model verifies; null: none"
    )

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
            speculative=None if self.speculative is None else self.speculative.engine(),
        )


LAYOUT_FIELDS = ("tensor_parallel", "attention_data_parallel", "moe_tensor_parallel", "expert_parallel")


class WorkerFields(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    workers: int = Field(1, ge=1, le=MAX_WORKERS, description="instances of this layout")
    tensor_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="attention's tensor-parallel degree")
    attention_data_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="attention data-parallel ranks")
    moe_tensor_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="MoE experts' width split")
    expert_parallel: int = Field(1, ge=1, le=MAX_GPUS, description="MoE experts split whole")

    def layout(self, **extra) -> WorkerLayout:
        return WorkerLayout(
            workers=self.workers,
            tensor_parallel=self.tensor_parallel,
            attention_data_parallel=self.attention_data_parallel,
            moe_tensor_parallel=self.moe_tensor_parallel,
            expert_parallel=self.expert_parallel,
            **extra,
        )


class PrefillFields(WorkerFields):
    batch: int = Field(1, ge=1, le=MAX_PREFILL_BATCH, description="prompts each rank prefills together")


class DecodeFields(WorkerFields):
    hardware: str | None = Field(
        None, max_length=64, description="accelerator id of the decode workers; null: the request's `hardware`"
    )


class KvLinkFields(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    bandwidth_gb_s: float = Field(
        ge=0.001, le=100_000, allow_inf_nan=False, description="per GPU per direction, GB/s (0.001 to 100,000)"
    )
    latency_us: float | None = Field(
        None,
        ge=0.001,
        le=1e6,
        allow_inf_nan=False,
        description="the link's own latency per transfer, µs (0.001 to 1e6), added to the transfer; "
        "null: none. The calibrated first-token fixed cost (handshake, routing) applies either way",
    )


class DisaggregatedFields(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    prefill: PrefillFields = Field(description="prefill workers (they run on the request's `hardware`)")
    decode: DecodeFields = Field(description="decode workers")
    kv_link: Literal["auto"] | KvLinkFields = Field(
        "auto",
        description="the link the KV cache crosses: 'auto' (NVLink inside one scale-up domain, else each GPU's "
        "scale-out NIC from the accelerator's card) or {bandwidth_gb_s, latency_us}",
    )


class ServingRequest(ServingFields):
    concurrency: int = Field(16, ge=1, le=MAX_CONCURRENCY, description="requests in flight across the instance")
    disaggregated: DisaggregatedFields | None = Field(
        None,
        description="prefill and decode on separate workers (the top-level layout fields then stay unset); "
        "null: one aggregated instance",
    )

    def disagg_scenario(self) -> DisaggScenario:
        """The disaggregated deployment; a top-level layout field set beside it is refused (it would be
        ignored)."""
        d = self.disaggregated
        given = [name for name in LAYOUT_FIELDS if name in self.model_fields_set]
        if given:
            raise EngineInputError(
                given[0],
                "a disaggregated deployment takes its layout from disaggregated.prefill and .decode",
                "leave it unset",
                code="disagg_layout",
                params={"name": given[0]},
            )
        link = KvLink() if d.kv_link == "auto" else KvLink(
            d.kv_link.bandwidth_gb_s * 1e9, None if d.kv_link.latency_us is None else d.kv_link.latency_us * 1e-6
        )  # fmt: skip
        return DisaggScenario(
            self.scenario(self.concurrency),
            d.prefill.layout(batch=d.prefill.batch),
            d.decode.layout(hardware=d.decode.hardware),
            link,
        )


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
    output_tokens_per_s_per_gpu: float = Field(
        description="output tokens/s per GPU: C clients in a closed loop, C x output / (TTFT + (output - 1) x TPOT),"
        " at most the steps' own rate (the bound's steps carrying every running request's prompt); the estimate's"
        " never above the bound's; over the GPUs"
    )
    tokens_per_s_per_user: float = Field(description="output tokens/s one user sees: 1 / TPOT")


class EstimateRates(Rates):
    range_kind: str = Field(
        "pairing",
        description="which held-out residuals the ranges come from: 'pairing' (a fitted model on a fitted GPU), "
        "'new_gpu', 'new_model'",
    )
    tpot_s_range: list[float] = Field(
        description="[low, high] TPOT in s: p10-p90 of measured / estimate in held-out fits (a new GPU's or "
        "model's spanning every held-out GPU's or model's offset), never below the bound"
    )
    ttft_s_range: list[float] = Field(
        description="[low, high] TTFT in s: p10-p90 of measured / estimate in held-out fits (a new GPU's or "
        "model's spanning every held-out GPU's or model's offset), never below the bound"
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
    speculative: dict[str, Any] | None = Field(
        None,
        description="speculative decoding: method, draft_tokens, acceptance_rate [low, high], tokens_per_step "
        "{low, estimate, high}, bound_tpot_s_without_speculation (measured runs are checked against it)",
    )
    disaggregated: dict[str, Any] | None = Field(
        None,
        description="a disaggregated deployment: each side's layout, limited_by (prefill | decode | kv_link), "
        "saturated (the loop asks that side's capacity or more), "
        "prefill_capacity_rps, decode_capacity_rps, balanced_ratio (prefill workers per decode worker), the "
        "memory rule on each side. Every rate, idle share and ratio in it is the estimate's (figures: "
        "'estimate'): the capacities at the calibrated steps, the requests/s of the estimate's loop",
    )


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
