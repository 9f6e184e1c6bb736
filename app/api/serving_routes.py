"""/api/v1/serving: the serving bound and estimate, one scenario or a concurrency sweep."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from engine.errors import EngineInputError
from engine.serving import serving_estimate
from engine.serving.curve import serving_curve
from engine.serving.disagg import disaggregated_estimate

from ..service import serving_inputs
from .schemas import ErrorResponse
from .serving_schemas import ServingCurveRequest, ServingCurveResponse, ServingRequest, ServingResponse

serving_router = APIRouter(prefix="/api/v1", tags=["serving"])
ERRORS = {
    400: {"model": ErrorResponse, "description": "body is not valid JSON"},
    404: {"model": ErrorResponse, "description": "unknown accelerator id"},
    413: {"model": ErrorResponse, "description": "body larger than the limit (256 KiB)"},
    422: {
        "model": ErrorResponse,
        "description": "invalid input: the field and what is allowed; an unknown model names the nearest known "
        "ones; a tensor_parallel past the accelerator's scale-up (NVLink) domain names the domain's size",
    },
}


@serving_router.post(
    "/serving",
    response_model=ServingResponse,
    responses=ERRORS,
    summary="One serving instance, or a disaggregated deployment, at a concurrency: running batch, TTFT, TPOT, "
    "throughput (bound and estimate)",
)
def serving(request: ServingRequest) -> JSONResponse:
    if request.disaggregated is not None:
        d = request.disaggregated
        model, hw = serving_inputs(
            request.model, request.hardware, d.prefill.tensor_parallel, "disaggregated.prefill.tensor_parallel"
        )
        if d.decode.hardware is not None:
            try:
                serving_inputs(request.model, d.decode.hardware, d.decode.tensor_parallel)
            except EngineInputError as exc:  # the decode side's fields, not the request's
                raise exc.under("disaggregated.decode") from None
        else:
            hw.check_tensor_parallel(d.decode.tensor_parallel, "disaggregated.decode.tensor_parallel")
        return JSONResponse(disaggregated_estimate(model, hw, request.disagg_scenario()))
    model, hw = serving_inputs(request.model, request.hardware, request.tensor_parallel)
    return JSONResponse(serving_estimate(model, hw, request.scenario(request.concurrency)))


@serving_router.post(
    "/serving/curve",
    response_model=ServingCurveResponse,
    responses=ERRORS,
    summary="Concurrency sweep: throughput per GPU against tokens per user, bound and estimate per point",
)
def serving_sweep(request: ServingCurveRequest) -> JSONResponse:
    model, hw = serving_inputs(request.model, request.hardware, request.tensor_parallel)
    return JSONResponse(serving_curve(model, hw, request.scenario(), request.concurrencies))
