"""/api/v1/plan: the deployment planner (engine.planner), one search per request."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.hardware import get_accelerator
from engine.model_catalog import load_model
from engine.planner import MAX_HARDWARE, MAX_TOP, MODES, PlanRequest, plan
from engine.planner.space import MAX_BUDGET, PRECISIONS
from engine.request import MAX_GPU_HOUR_PRICE
from engine.serving.scenario import BACKENDS, MAX_TOKENS

from .fields import MemoryUtilization
from .serving_routes import ERRORS

plan_router = APIRouter(prefix="/api/v1", tags=["planner"])


class PlanBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    model: Annotated[str, Field(max_length=128)] | dict[str, Any] = Field(
        ..., description="preset id, Hugging Face repo id or a config.json object"
    )
    hardware: list[Annotated[str, Field(max_length=64)]] = Field(
        ..., min_length=1, max_length=MAX_HARDWARE, description="accelerator ids to compare (GET /api/v1/hardware)"
    )
    gpus: int = Field(..., ge=1, le=MAX_BUDGET, description="the GPU budget: GPUs of each accelerator kind")

    input_tokens: int = Field(1024, ge=1, le=MAX_TOKENS, description="prompt tokens per request")
    output_tokens: int = Field(1024, ge=1, le=MAX_TOKENS, description="generated tokens per request")
    ttft_s: float | None = Field(None, gt=0, le=3600, allow_inf_nan=False, description="TTFT target, s; null: none")
    tpot_s: float | None = Field(None, gt=0, le=3600, allow_inf_nan=False, description="TPOT target, s; null: none")
    backends: list[Literal[BACKENDS]] | None = Field(  # type: ignore[valid-type]
        None, min_length=1, max_length=3, description="serving engines to consider; null: all three"
    )
    modes: list[Literal[MODES]] = Field(  # type: ignore[valid-type]
        list(MODES), min_length=1, max_length=2, description="aggregated, disaggregated or both"
    )
    precisions: list[Literal[tuple(PRECISIONS)]] | None = Field(  # type: ignore[valid-type]
        None,
        min_length=1,
        max_length=len(PRECISIONS),
        description="bf16, fp8, fp4, int4; null: the model's release format, fp8, and fp4 where the GPU has it",
    )
    gpu_hour_price: dict[Annotated[str, Field(max_length=64)], Annotated[float, Field(gt=0, le=MAX_GPU_HOUR_PRICE)]] = (
        Field({}, max_length=MAX_HARDWARE, description="USD per GPU-hour by accelerator id (ranks by $/Mtok)")
    )
    target: Literal["estimate", "pessimistic"] = Field(
        "estimate", description="a candidate meets the target at its estimate, or at its range's pessimistic end"
    )
    top: int = Field(10, ge=1, le=MAX_TOP, description="how many of the best to return, with launch commands")
    memory_utilization: MemoryUtilization | None = Field(
        None, description="the backend's own memory knob; null: each backend's default"
    )

    @field_validator("hardware", mode="before")
    @classmethod
    def _each_once(cls, value: object) -> object:
        """An accelerator named twice is searched once, before the list's limit is checked, as
        the CLI does (nine copies of one id were refused as more than eight items)."""
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(dict.fromkeys(value))
        return value


class PlanResponse(BaseModel):
    model: str = Field(description="model id searched (the preset a Hugging Face id resolved to)")
    hardware: list[str] = Field(description="accelerator ids searched")
    gpus: int = Field(description="the GPU budget")
    candidates: dict[str, int] = Field(description="evaluated, dropped_memory (do not fit), meeting_target")
    seconds: float = Field(description="the search's own time")
    frontier: dict[str, list[dict[str, Any]]] = Field(
        description="per mode, the Pareto frontier of output tokens/s/GPU against tokens/s/user, per accelerator"
    )
    best: dict[str, Any] | None = Field(
        description="the best candidate with its launch commands, or null. A candidate's bound and estimate "
        "are its own objects; its usd_per_million_tokens is the estimate's (the price over the estimate's "
        "tokens/s) and its memory_headroom the share of usable memory (disaggregated: of the decode KV cache) "
        "the estimate's running batch leaves free"
    )
    reason: dict[str, Any] | None = Field(description="why there is no best: the nearest targets met")
    top: list[dict[str, Any]] = Field(
        description="the best N deployments meeting the target, each at its best concurrency, with launch commands"
    )
    targets: dict[str, float | None] = Field(description="the targets asked: ttft_s, tpot_s")
    tpot_target_applied: bool = Field(
        description="whether the candidates were held to tpot_s: not with one output token, where no token "
        "follows the first"
    )
    verdict: dict[str, Any] = Field(
        description="one line from the answer's fields, the other mode's best as a ratio of the best "
        "(ratio_other_mode: tokens/s per GPU, or $/Mtok when ranked_by says so) and whether it lies inside the "
        "best's range (other_mode_within_range: a tie within the estimate's error)"
    )
    warnings: list[str] = Field(
        description="what every candidate assumes that the request did not say, as /serving warns of it: input "
        "+ output past the model's context window, lengths outside the fitted runs, a precision searched on a "
        "card without its tensor roof"
    )
    calibration: str = Field(description="id of the serving calibration the estimates used")
    modes_searched: list[str] = Field(description="the modes the search covered (the request's `modes`)")


@plan_router.post(
    "/plan",
    response_model=PlanResponse,
    responses=ERRORS,
    summary="Deployment planner: the best way to serve a model on N GPUs under TTFT and TPOT targets",
)
def plan_route(body: PlanBody) -> JSONResponse:
    model = load_model(body.model)
    hardware = [get_accelerator(h) for h in dict.fromkeys(body.hardware)]
    req = PlanRequest(
        gpus=body.gpus,
        input_tokens=body.input_tokens,
        output_tokens=body.output_tokens,
        ttft_s=body.ttft_s,
        tpot_s=body.tpot_s,
        backends=tuple(body.backends or BACKENDS),
        modes=tuple(dict.fromkeys(body.modes)),
        precisions=None if body.precisions is None else tuple(body.precisions),
        gpu_hour_price=body.gpu_hour_price,
        target=body.target,
        top=body.top,
        memory_utilization=body.memory_utilization,
    )
    return JSONResponse(plan(model, hardware, req))
