"""The Serving page's engine calls: ServingArgs -> per accelerator, the bound and the estimate
over a concurrency sweep, the chosen concurrency, the shipped measured runs of the same
scenario with the estimate's error on each, and, where the link's fit applies (fit.py), the
fitted estimate and the user's own runs.

Every number comes from engine.serving (`serving_estimate`, the function behind
POST /api/v1/serving) and engine.serving_userfit; the figures, table and insight only format
what `compute` returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

from app.dashboard.pages.serving.fit import Applied, YourRun, applied_fit
from app.dashboard.pages.serving.measured import Nearby, Run, matching_runs, nearby_runs
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.state import accelerator_of, accelerator_specs, scenario_of
from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate
from engine.serving.estimate import closed_loop_tokens_per_s, queue_steps
from engine.serving.scenario import MAX_CONCURRENCY
from engine.serving_userfit import UserFit, fitted_rates

SWEEP_STEP = 2**0.5  # two points per doubling of concurrency: a smooth curve in ~25 estimates
QUEUE_REACH = 4  # the latency chart runs to this many times the memory cap, to show the queue


@dataclass(frozen=True)
class MeasuredPoint:
    run: Run
    measured: dict  # ttft_s, tpot_s, output_tokens_per_s_per_gpu, tokens_per_s_per_user
    bound: dict
    estimate: dict
    fitted: dict | None
    tpot_error: float  # estimate / measured - 1
    ttft_error: float
    fitted_tpot_error: float | None

    @property
    def faster_than_bound(self) -> tuple[str, ...]:
        """The times in which this run beats its bound (none should: said where one does)."""
        return tuple(k for k in ("tpot", "ttft") if self.measured[f"{k}_s"] < self.bound[f"{k}_s"])


@dataclass(frozen=True)
class AcceleratorServing:
    id: str
    name: str
    error: str | EngineInputError | None = None  # the engine's error: said from its code (i18n.reason)
    chosen: dict | None = None  # serving_estimate at the page's concurrency
    fitted: dict | None = None  # the fitted estimate there (fit target only)
    max_fits: int = 0
    points: list[dict] = field(default_factory=list)  # concurrency, running_batch, queued, bound, estimate, fitted
    measured: list[MeasuredPoint] = field(default_factory=list)
    fit_kind: str | None = None  # here | extrapolated: how the link's fit applies (fit.py)
    yours: tuple[YourRun, ...] = ()  # the user's runs of this scenario, by concurrency
    tensor_parallel: int = 1
    min_tp: int | None = None  # with a model that does not fit: the smallest TP that does
    nearby: list[Nearby] = field(default_factory=list)  # without a matching shipped run: the nearest ones


def sweep(max_fits: int, chosen: int) -> list[int]:
    """Concurrencies 1 .. QUEUE_REACH x the memory cap, two per doubling, with the cap and the
    chosen concurrency themselves (the page adds the chosen one to the cached sweep)."""
    top = min(max(max_fits * QUEUE_REACH, chosen), MAX_CONCURRENCY)
    out, x = {1, max_fits, chosen}, 1.0
    while x <= top:
        out.add(round(x))
        x *= SWEEP_STEP
    return sorted(c for c in out if 1 <= c <= top)


def _measured(model, hw, run: Run, fit) -> MeasuredPoint:
    row = run.row
    sc = row.scenario
    result = serving_estimate(model, hw, replace(sc, memory_utilization=sc.memory_utilization))
    running = result["running_batch"]
    rate = closed_loop_tokens_per_s(sc.concurrency, sc.output_tokens, row.ttft_s, row.tpot_s)
    measured = {
        "ttft_s": row.ttft_s,
        "tpot_s": row.tpot_s,
        # the run's own closed loop: no estimated running batch in a measured number
        "output_tokens_per_s_per_gpu": rate / sc.gpus,
        "tokens_per_s_per_user": 1.0 / row.tpot_s,
    }
    fitted = fitted_rates(result, queue_steps(sc, running), fit, sc.output_tokens) if fit is not None else None
    est = result["estimate"]
    return MeasuredPoint(
        run,
        measured,
        result["bound"],
        est,
        fitted,
        est["tpot_s"] / row.tpot_s - 1.0,
        est["ttft_s"] / row.ttft_s - 1.0,
        None if fitted is None else fitted["tpot_s"] / row.tpot_s - 1.0,
    )


def _point(r: dict, sc: ServingScenario, fit) -> dict:
    point = {k: r[k] for k in ("running_batch", "queued", "bound", "estimate")} | {"concurrency": sc.concurrency}
    if fit is not None:
        point["fitted"] = fitted_rates(r, queue_steps(sc, r["running_batch"]), fit, sc.output_tokens)
    return point


@lru_cache(maxsize=64)
def _curve(a: ServingArgs, spec: str, fit: UserFit | None) -> AcceleratorServing:
    """What does not move with the concurrency (`a.concurrency` is 1 here): the sweep and the
    measured runs, so a concurrency change costs one estimate per accelerator."""
    try:
        hw = accelerator_of(spec)
    except EngineInputError as exc:
        return AcceleratorServing(spec.split(":", 1)[0], spec, error=exc.with_traceback(None))
    try:
        model = get_model(a.model)
        sc = scenario_of(a)
        hw.check_tensor_parallel(a.tensor_parallel)
        first = serving_estimate(model, hw, sc)
    except EngineInputError as exc:
        fits_at = smallest_tp(a, hw) if exc.code == "serving_no_fit" else None
        return AcceleratorServing(
            hw.id, hw.name, exc.with_traceback(None), tensor_parallel=a.tensor_parallel, min_tp=fits_at
        )
    max_fits = first["breakdown"]["memory"]["max_running_batch"]
    points = []
    for c in sweep(max_fits, 1):
        sc_c = replace(sc, concurrency=c)
        points.append(_point(first if c == 1 else serving_estimate(model, hw, sc_c), sc_c, fit))
    runs = []
    for run in matching_runs(a.model, hw.id, sc, not model.is_moe):
        try:
            runs.append(_measured(model, hw, run, fit))
        except EngineInputError:  # a shipped run the engine cannot place on this card: not drawn
            continue
    nearby = [] if runs else nearby_runs(a.model, hw.id, sc, not model.is_moe)
    return AcceleratorServing(hw.id, hw.name, None, first, None, max_fits, points, runs, nearby=nearby)


# the tensor-parallel degrees a deployment uses (a power of two, or a whole NVL72 rack)
TP_DEGREES = (1, 2, 4, 8, 16, 32, 64, 72)


def smallest_tp(a: ServingArgs, hw) -> int | None:
    """The smallest tensor-parallel degree above the page's at which the scenario fits on `hw`
    (the engine answers at concurrency 1), None if none this card offers does."""
    model = get_model(a.model)
    for tp in (d for d in TP_DEGREES if d > a.tensor_parallel):
        try:
            hw.check_tensor_parallel(tp)
            serving_estimate(model, hw, scenario_of(replace(a, tensor_parallel=tp, concurrency=1)))
        except EngineInputError as exc:
            if exc.code in ("serving_no_fit", "expert_layout"):
                continue
            return None  # past what the card's NVLink domain or the model's heads allow
        return tp
    return None


def one_accelerator(a: ServingArgs, spec: str, applied: Applied | None) -> AcceleratorServing:
    """The curve (cached), with the chosen concurrency's estimate put on it, and the link's fit
    and the user's runs when they apply to this accelerator."""
    fit = applied.fit if applied is not None else None
    curve = _curve(replace(a, concurrency=1, runs=None), spec, fit)  # the fit is its own key
    if curve.error:
        return curve
    sc = scenario_of(a)
    try:
        chosen = serving_estimate(get_model(a.model), accelerator_of(spec), sc)
    except EngineInputError as exc:  # not expected: the same scenario answered at concurrency 1
        return AcceleratorServing(curve.id, curve.name, error=exc.with_traceback(None))
    point = _point(chosen, sc, fit)
    points = sorted([p for p in curve.points if p["concurrency"] != a.concurrency] + [point], key=_by_concurrency)
    if applied is None:
        return replace(curve, chosen=chosen, points=points)
    yours = tuple(sorted(applied.runs, key=lambda r: r.run.scenario.concurrency))
    return replace(curve, chosen=chosen, fitted=point["fitted"], points=points, fit_kind=applied.kind, yours=yours)


def _by_concurrency(point: dict) -> int:
    return point["concurrency"]


@lru_cache(maxsize=32)
def compute(a: ServingArgs) -> tuple[AcceleratorServing, ...]:
    """One AcceleratorServing per accelerator of the page, catalogue cards then what-ifs."""
    applied = applied_fit(a)
    return tuple(
        one_accelerator(a, spec, applied if applied is not None and applied.spec == spec else None)
        for spec in accelerator_specs(a)
    )


def nearest_run(acc: AcceleratorServing, concurrency: int) -> MeasuredPoint | None:
    """The measured run nearest the chosen concurrency (on a log scale: 48 is nearer 64 than 32)."""
    return nearest(acc.measured, lambda m: m.run.row.scenario.concurrency, concurrency)


def nearest(items, concurrency_of, concurrency: int):
    """The item whose concurrency is nearest on a log scale (None without items)."""
    if not items:
        return None
    return min(items, key=lambda m: abs(math.log(concurrency_of(m) / concurrency)))


def cost_per_million(price_per_gpu_hour: float | None, tokens_per_s_per_gpu: float) -> float | None:
    """USD per million output tokens: a GPU-hour's price over the tokens one GPU serves in it."""
    if price_per_gpu_hour is None or tokens_per_s_per_gpu <= 0:
        return None
    return price_per_gpu_hour / (tokens_per_s_per_gpu * 3600.0) * 1e6
