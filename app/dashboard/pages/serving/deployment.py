"""The disaggregated deployment's engine calls (mode=disagg): per accelerator, both sides on
it, the bound and the estimate over a concurrency sweep (engine.serving.disagg.disagg_arrays,
one numpy pass), the chosen concurrency's answer (`disaggregated_estimate`, the function
behind POST /api/v1/serving with `disaggregated`), and the shipped measured disaggregated runs
of the same deployment with the estimate's error on each, or the nearest ones when none
matches. The figures, tables and insight only format what `deployment` returns.

A measured run's throughput is derived from its own times by the closed loop the engine uses
(each of C clients keeps one request in flight: C / (TTFT + output x TPOT) requests/s).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from app.dashboard.pages.serving.compute import QUEUE_REACH, MeasuredPoint, sweep
from app.dashboard.pages.serving.measured import Nearby, Run, matching_disagg_runs, nearby_disagg_runs
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.state import (
    accelerator_of,
    accelerator_specs,
    aggregated_args,
    deployment_gpus,
    disagg_of,
    replicas,
)
from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.serving.calibration import load_calibration
from engine.serving.disagg import decode_side, disagg_answer_at, disagg_arrays, disaggregated_estimate
from engine.serving.scenario import DisaggScenario
from engine.serving.validate import answer_disaggregated_runs


@dataclass(frozen=True)
class Deployment:
    id: str
    name: str
    error: EngineInputError | None = None
    side: str | None = None  # with serving_no_fit: the side whose workers do not fit
    chosen: dict | None = None  # disaggregated_estimate at the page's concurrency
    points: list[dict] = field(default_factory=list)  # concurrency, running_batch, saturated, bound, estimate
    measured: list[MeasuredPoint] = field(default_factory=list)  # the shipped disaggregated runs, not fitted
    nearby: list[Nearby] = field(default_factory=list)

    @property
    def gpus(self) -> int:
        return self.chosen["gpus"] if self.chosen else 0


def measured_rates(run: Run, gpus: int) -> dict:
    """A measured run's rates: its times, and its throughput by the closed loop."""
    sc = run.row.scenario
    per_s = sc.concurrency / (run.row.ttft_s + sc.output_tokens * run.row.tpot_s)
    return {
        "ttft_s": run.row.ttft_s,
        "tpot_s": run.row.tpot_s,
        "output_tokens_per_s_per_gpu": per_s * sc.output_tokens / gpus,
        "tokens_per_s_per_user": 1.0 / run.row.tpot_s,
    }


def _measured_runs(model, hw, runs: list[Run]) -> list[MeasuredPoint]:
    """The shipped runs and the estimate's error on each, answered on the page's model and card
    as `llm-roofline validate serving` answers them (engine.serving.validate): with their recipe's
    MTP drafts, and a run that may have been several recipes or decodings spanned over them
    (`estimate.deployments`); all in one batch. A run the engine cannot place on this card is not
    drawn. Each is drawn at its own times over its row's GPUs."""
    answers = answer_disaggregated_runs([run.row for run in runs], load_calibration(), model, hw)
    return [_measured(run, answer) for run, answer in zip(runs, answers, strict=True) if isinstance(answer, dict)]


def _measured(run: Run, answer: dict) -> MeasuredPoint:
    est, row = answer["estimate"], run.row
    tpot_error, ttft_error = est["tpot_s"] / row.tpot_s - 1.0, est["ttft_s"] / row.ttft_s - 1.0
    rates = measured_rates(run, row.disagg.gpus)
    return MeasuredPoint(run, rates, answer["bound"], est, None, tpot_error, ttft_error, None)


def saturated(answer: dict) -> bool:
    """Whether the deployment's loop asks its smallest capacity (a side or the link) or more."""
    return answer["disaggregated"]["saturated"]


def _point(answer: dict, concurrency: int) -> dict:
    return {
        "concurrency": concurrency,
        "running_batch": answer["running_batch"],
        "queued": 0,
        "saturated": saturated(answer),
        "bound": answer["bound"],
        "estimate": answer["estimate"],
        "ttft_parts": answer["breakdown"]["ttft"],
    }


def _check(hw, ds: DisaggScenario) -> None:
    hw.check_tensor_parallel(ds.prefill.tensor_parallel, "disaggregated.prefill.tensor_parallel")
    hw.check_tensor_parallel(ds.decode.tensor_parallel, "disaggregated.decode.tensor_parallel")


def _side_that_does_not_fit(model, hw, ds: DisaggScenario) -> str:
    try:
        decode_side(model, hw, ds.base, ds.decode)
    except EngineInputError:
        return "decode"
    return "prefill"


@lru_cache(maxsize=64)
def _curve(a: ServingArgs, spec: str) -> Deployment:
    """What does not move with the concurrency (`a.concurrency` is 1 here): the sweep and the
    measured runs, so a concurrency change costs one estimate per accelerator."""
    try:
        hw = accelerator_of(spec)
    except EngineInputError as exc:
        return Deployment(spec.split(":", 1)[0], spec, exc.with_traceback(None))
    try:
        model, ds = get_model(a.model), disagg_of(a, 1)
        _check(hw, ds)
    except EngineInputError as exc:
        return Deployment(hw.id, hw.name, exc.with_traceback(None))
    try:
        first = disagg_arrays(model, hw, hw, ds, [1])
    except EngineInputError as exc:
        side = _side_that_does_not_fit(model, hw, ds) if exc.code == "serving_no_fit" else None
        return Deployment(hw.id, hw.name, exc.with_traceback(None), side)
    held = int(first["sides"]["cap"] * first["sides"]["decode_workers"])  # requests the decode side holds
    concurrencies = sweep(held, 1)
    arrays = disagg_arrays(model, hw, hw, ds, concurrencies)
    points = []
    for i, c in enumerate(concurrencies):
        points.append(_point(disagg_answer_at(arrays, i, model, hw, hw, ds), c))
    # past QUEUE_REACH x the concurrency that saturates it, only the queue grows (as the
    # aggregated sweep stops at that many times its memory cap)
    full = next((p["concurrency"] for p in points if p["saturated"]), None)
    if full is not None:
        points = [p for p in points if p["concurrency"] <= QUEUE_REACH * full]
    runs = _measured_runs(model, hw, matching_disagg_runs(a.model, hw.id, ds, not model.is_moe))
    nearby = [] if runs else nearby_disagg_runs(a.model, hw.id, ds, not model.is_moe)
    return Deployment(hw.id, hw.name, None, None, None, points, runs, nearby)


def deployment(a: ServingArgs, spec: str) -> Deployment:
    """The curve (cached), with the chosen concurrency's answer put on it."""
    curve = _curve(replace(a, concurrency=1, runs=None), spec)
    if curve.error:
        return curve
    try:
        chosen = disaggregated_estimate(get_model(a.model), accelerator_of(spec), disagg_of(a))
    except EngineInputError as exc:  # not expected: the same deployment answered at concurrency 1
        return Deployment(curve.id, curve.name, exc.with_traceback(None))
    point = _point(chosen, a.concurrency)
    points = sorted([p for p in curve.points if p["concurrency"] != a.concurrency] + [point], key=_by_concurrency)
    return replace(curve, chosen=chosen, points=points)


def _by_concurrency(point: dict) -> int:
    return point["concurrency"]


def drawn(dep: Deployment) -> list[dict]:
    """The throughput chart's points: up to the first where the loop is saturated (past it the
    deployment serves its capacity, and more clients only wait longer: TTFT)."""
    out = []
    for p in dep.points:
        out.append(p)
        if p["saturated"]:
            break
    return out


@dataclass(frozen=True)
class Compared:
    """The page in disaggregated mode: one Deployment per accelerator (compute()'s order), and
    the aggregated instances it is compared with: as many as its GPUs hold, sharing its
    concurrency."""

    deployments: tuple[Deployment, ...]
    gpus: int  # the deployment's, both sides
    replicas: int  # aggregated instances of the page's layout on those GPUs (state.replicas)
    instance_gpus: int
    instance_concurrency: int  # each instance's share of the concurrency

    @property
    def aggregated_gpus(self) -> int:
        return self.replicas * self.instance_gpus


@lru_cache(maxsize=32)
def compared(a: ServingArgs) -> Compared | None:
    """The deployments and their aggregated comparison; None outside disaggregated mode."""
    if a.mode != "disagg":
        return None
    deps = tuple(deployment(a, spec) for spec in accelerator_specs(a))
    per = aggregated_args(a)
    return Compared(
        deps, deployment_gpus(a), replicas(a), a.tensor_parallel * a.attention_data_parallel, per.concurrency
    )
