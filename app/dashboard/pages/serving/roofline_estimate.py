"""The serving estimate as the roofline page shows it (`out=` and `conc=` set): for each
accelerator, the serving scenario of the roofline's model, precision, TP and context (the
prompt) with `out` output tokens and `conc` requests in flight, its bound and estimate TPOT,
and the shipped measured run of that scenario where there is one.

The roofline's decode point sits at its intensity and the bound's attained FLOP/s; the
estimate point goes beneath it at the same intensity, at the attained FLOP/s the estimate
allows: the bound's FLOP/s x bound TPOT / estimate TPOT (the same FLOPs in the longer step).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.dashboard.pages.serving.measured import matching_runs
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate
from engine.what_if import parse_what_if


@dataclass(frozen=True)
class DecodeEstimate:
    bound_tpot_s: float
    estimate_tpot_s: float
    estimate_tpot_range_s: tuple[float, float]
    measured_tpot_s: float | None  # the shipped run of this scenario at this concurrency, if any
    measured_source: str | None

    @property
    def fraction_of_bound(self) -> float:
        """Estimate's attained FLOP/s over the bound's (<= 1: the estimate is never faster)."""
        return self.bound_tpot_s / self.estimate_tpot_s


@lru_cache(maxsize=256)
def decode_estimate(
    model_id: str,
    hw_spec: str,
    weight_dtype: str,
    compute_dtype: str,
    kv_dtype: str,
    tensor_parallel: int,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    memory_utilization: float,
) -> DecodeEstimate | None:
    """`hw_spec`: a catalogue id or a what-if short form. None when the engine cannot answer
    (the model does not fit, say): no point is drawn."""
    try:
        hw = get_accelerator(hw_spec) if ":" not in hw_spec else parse_what_if(hw_spec)
        model = get_model(model_id)
        sc = ServingScenario(
            concurrency=concurrency,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            tensor_parallel=tensor_parallel,
            moe_tensor_parallel=tensor_parallel if model.is_moe else 1,
            weight_dtype=weight_dtype,
            compute_dtype=compute_dtype,
            kv_dtype=kv_dtype,
            memory_utilization=memory_utilization,
        )
        result = serving_estimate(model, hw, sc)
    except EngineInputError:
        return None
    runs = [
        r for r in matching_runs(model_id, hw.id, sc, not model.is_moe) if r.row.scenario.concurrency == concurrency
    ]
    run = runs[0] if runs else None
    est = result["estimate"]
    return DecodeEstimate(
        result["bound"]["tpot_s"],
        est["tpot_s"],
        (est["tpot_s_range"][0], est["tpot_s_range"][1]),
        run.row.tpot_s if run else None,
        f"{run.row.backend} · {run.row.id}" if run else None,
    )
