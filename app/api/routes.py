"""/api/v1: thin handlers — validate the request, call the engine, return its numbers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

import engine
from engine.analysis import MAX_BATCH
from engine.errors import EngineInputError
from engine.hardware import Accelerator, catalogue, get_accelerator
from engine.hierarchy import hierarchy_roofs
from engine.model_catalog import get_model, load_model, model_ids, native_format, preset_records
from engine.oplab import lab, op_presets, teaching_chart
from engine.published import published_for
from engine.request import attach_requests, request_arrays
from engine.sweep import decode_sweep
from engine.training import run_training
from engine.triage import triage_for

from ..service import place_measurements, resolve_hardware, run_analysis
from .schemas import (
    AcceleratorOut,
    AnalysisResponse,
    AnalyzeRequest,
    Dtype,
    ErrorResponse,
    HardwareList,
    HierarchyResponse,
    MeasurementsRequest,
    MeasurementsResponse,
    ModelDetail,
    ModelList,
    OpPresetList,
    OpsChartRequest,
    OpsChartResponse,
    OpsRequest,
    OpsResponse,
    PublishedList,
    SweepRequest,
    SweepResponse,
)
from .training_schemas import TrainingRequest, TrainingResponse

router = APIRouter(prefix="/api/v1", tags=["v1"])
ERRORS = {
    404: {"model": ErrorResponse, "description": "unknown accelerator id"},
    422: {
        "model": ErrorResponse,
        "description": "invalid input: the field and what is allowed; an unknown model names the nearest known ones",
    },
}
BODY_ERRORS = ERRORS | {
    400: {"model": ErrorResponse, "description": "body is not valid JSON"},
    408: {"model": ErrorResponse, "description": "headers or body not received within the read timeout (30 s)"},
    413: {"model": ErrorResponse, "description": "body larger than the limit (256 KiB)"},
}


def accelerator_out(acc: Accelerator) -> dict:
    return acc.model_dump() | {"ridge_points": acc.ridge_points_by_dtype()}


@router.get("/hardware", response_model=HardwareList, summary="All accelerators (dense peaks, SI units)")
def list_hardware() -> JSONResponse:
    return JSONResponse({"items": [accelerator_out(a) for a in catalogue().values()]})


@router.get("/hardware/{hardware_id}", response_model=AcceleratorOut, responses=ERRORS, summary="One accelerator")
def one_hardware(hardware_id: str) -> JSONResponse:
    return JSONResponse(accelerator_out(get_accelerator(hardware_id)))


@router.get(
    "/hardware/{hardware_id}/hierarchy",
    response_model=HierarchyResponse,
    responses=ERRORS,
    summary="Memory-hierarchy roofs: HBM and each sourced cache roof (L2, Infinity Cache), chart uids",
)
def hardware_hierarchy(hardware_id: str, compute_dtype: Dtype = "bf16") -> JSONResponse:
    acc = get_accelerator(hardware_id)
    return JSONResponse({"hardware_id": acc.id, "roofs": hierarchy_roofs(acc, compute_dtype)})


@router.get("/models", response_model=ModelList, summary="Model presets")
def list_models() -> JSONResponse:
    return JSONResponse({"items": [get_model(mid).summary() for mid in model_ids()]})


@router.get(
    "/models/{model_id}",
    response_model=ModelDetail,
    responses=ERRORS,
    summary="One preset with its Hugging Face config.json",
)
def one_model(model_id: str) -> JSONResponse:
    model = get_model(model_id)
    record = preset_records()[model.id]  # model_id may be a Hugging Face repo id
    return JSONResponse(
        model.summary()
        | {"hf_repo": record["hf_repo"], "sources": record["sources"], "config": record["config"]}
        | {"native_format": native_format(model.id)}
    )


@router.post(
    "/analyze",
    response_model=AnalysisResponse,
    responses=BODY_ERRORS,
    summary="Decode and prefill on the roofline, and the memory budget, per accelerator",
)
def analyze(request: AnalyzeRequest) -> JSONResponse:
    scenario = request.scenario()
    result = run_analysis(
        request.model, request.hardware, scenario, request.measured_decode_step_s, request.measured_tokens_per_s
    )
    return JSONResponse(
        with_requests(result, request.model, request.hardware, scenario, request.output_tokens, request.gpu_hour_price)
    )


def with_requests(
    result: dict, model_spec, hardware_specs: list, scenario, output_tokens: int | None, gpu_hour_price: float | None
) -> dict:
    """Each result's `request` block (engine/request.py; null without output_tokens)."""
    if output_tokens is None:
        return attach_requests(result, None, [], scenario, None, gpu_hour_price)
    return attach_requests(
        result, load_model(model_spec), resolve_hardware(hardware_specs), scenario, output_tokens, gpu_hour_price
    )


@router.post(
    "/measurements",
    response_model=MeasurementsResponse,
    responses=BODY_ERRORS,
    summary="Parse measurements and place them under the roofs, with their gap (nothing is stored)",
)
def measurements(request: MeasurementsRequest) -> JSONResponse:
    scenario = request.scenario()
    result = place_measurements(
        request.format, request.content, request.hardware, request.model, scenario, request.steps
    )
    # ranked by recoverable time, with the first thing to check (engine/triage.py)
    result["triage"] = triage_for(result["points"], resolve_hardware([request.hardware])[0], scenario)
    return JSONResponse(result)


@router.post(
    "/ops",
    response_model=OpsResponse,
    responses=BODY_ERRORS,
    summary="Place a single op (GEMM, conv2d, elementwise chain) on the roofline, with launch overhead",
)
def place_op(request: OpsRequest) -> JSONResponse:
    hardware = resolve_hardware(request.hardware)
    return JSONResponse(lab(request.op.spec(), hardware, request.launch_overhead_s))


@router.get(
    "/ops/presets",
    response_model=OpPresetList,
    responses=ERRORS,
    summary="One-click ops: the example shapes and a model's decode projections, as /ops bodies",
)
def op_preset_list(
    model: Annotated[str | None, Query(max_length=64, description="preset id: add its decode projections")] = None,
    batch: Annotated[int, Query(ge=1, le=MAX_BATCH, description="tokens in flight for the projections")] = 1,
) -> JSONResponse:
    return JSONResponse({"items": op_presets(None if model is None else get_model(model), batch)})


@router.post(
    "/ops/chart",
    response_model=OpsChartResponse,
    responses=BODY_ERRORS,
    summary="The teaching chart: GEMM 8192³, an elementwise add and a 7B model's decode at batch 1, per accelerator",
)
def ops_chart(request: OpsChartRequest) -> JSONResponse:
    hardware = resolve_hardware(request.hardware)
    return JSONResponse(teaching_chart(hardware, get_model(request.model), request.context_length))


@router.post(
    "/sweep",
    response_model=SweepResponse,
    responses=BODY_ERRORS,
    summary="Decode bound over a list of batch sizes or of context lengths",
)
def sweep(request: SweepRequest) -> JSONResponse:
    model = load_model(request.model)
    scenario = request.scenario()
    results = []
    for hw in resolve_hardware(request.hardware):
        s = decode_sweep(model, hw, scenario, request.batch_sizes, request.context_lengths)
        results.append(
            {
                "hardware_id": hw.id,
                "batch_size": s["batch_size"].astype(int).tolist(),
                "context_length": s["context_length"].astype(int).tolist(),
                "time_s": s["time_s"].tolist(),
                "tokens_per_s": s["tokens_per_s"].tolist(),
                "intensity": s["intensity"].tolist(),
                "kv_cache_bytes": s["kv_cache_bytes"].tolist(),
                "fits": s["fits"].tolist(),
                "request": sweep_request(model, hw, scenario, request),
            }
        )
    return JSONResponse({"results": results})


def sweep_request(model, hw: Accelerator, scenario, request: SweepRequest) -> dict | None:
    """One request per batch size: the throughput-interactivity curve (docs/api.md "One request")."""
    if request.output_tokens is None:
        if request.gpu_hour_price is not None:
            raise EngineInputError(
                "gpu_hour_price", "a price needs output_tokens (cost is per output token)", code="price_needs_output"
            )
        return None
    if request.batch_sizes is None:
        raise EngineInputError(
            "output_tokens", "a request per point needs batch_sizes, not context_lengths", code="request_needs_batches"
        )
    a = request_arrays(model, hw, scenario, request.output_tokens, request.batch_sizes, request.gpu_hour_price)
    cost = a["cost_per_million_output_tokens"]
    keys = (
        "ttft_s",
        "tpot_s",
        "e2e_s",
        "output_tokens_per_s_per_sequence",
        "output_tokens_per_s",
        "output_tokens_per_s_per_gpu",
        "fits_at_end",
    )
    return {k: a[k].tolist() for k in keys} | {
        "cost_per_million_output_tokens": None if cost is None else cost.tolist()
    }


@router.get(
    "/published-measurements",
    response_model=PublishedList,
    responses=ERRORS,
    summary="Published measurements (sourced) beside the engine's bound for their scenario: MBU, MFU",
)
def published(
    model: Annotated[str | None, Query(max_length=64, description="only runs of this model preset")] = None,
    weight_dtype: Annotated[Dtype | None, Query(description="only runs with these weights")] = None,
    compute_dtype: Annotated[Dtype | None, Query(description="only runs with this matrix math")] = None,
    hardware: Annotated[
        list[str] | None, Query(max_length=16, description="only runs on these accelerator ids (repeat)")
    ] = None,
) -> JSONResponse:
    """Without filters every entry; with them the runs of that model and precision (and
    accelerators), and how many were left out and why (`left_out`, `note`)."""
    if model is not None:
        get_model(model)  # an unknown model is a 422 naming the nearest known ones, not "0 match"
    for hardware_id in hardware or []:
        get_accelerator(hardware_id)
    return JSONResponse(published_for(model, weight_dtype, compute_dtype, hardware))


@router.post(
    "/training",
    response_model=TrainingResponse,
    responses=BODY_ERRORS,
    summary="Training lab: MFU/HFU under each counting choice, the DDP all-reduce, the memory bill per GPU",
)
def training(request: TrainingRequest) -> JSONResponse:
    return JSONResponse(run_training(request.model, get_accelerator(request.hardware), **request.setup_fields()))


health_router = APIRouter(tags=["health"])


@health_router.get("/healthz", summary="Liveness: cheap, no engine work")
def healthz() -> dict:
    return {"status": "ok", "version": engine.__version__}
