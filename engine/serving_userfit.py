"""Fit one deployment's calibration to a few of its own measured runs (pure; no web imports).

The shipped calibration (engine/calibration/serving.yaml) is fitted on many runs of many
deployments; a user's own server differs from it by a few things: how close its kernels come
to the roofs, its fixed cost per step, how its scheduler admits a prompt. Four numbers cover
those, each a correction of the shipped estimate's own parts (engine.serving.estimate
`breakdown`), so the fit is linear and needs no optimiser:

    TPOT = tpot_scale x (decode + prefill share) + communication + step_overhead_s
    TTFT = ttft_scale x shipped TTFT before any queue + wait_steps x shipped TPOT
           + queue steps x TPOT

- `tpot_scale` scales the time of the operators at the calibrated roofs: the achieved
  fractions of bandwidth and compute divided by it (a scale of 2 means half the shipped
  fractions). Scaling every achieved fraction by one factor scales max(compute / eta_c,
  memory / eta_m) by that factor, which is why the operators' part scales exactly.
- `step_overhead_s` replaces the shipped fixed cost per step (scheduler, sampling, launches:
  the term Vidur and BLIS fit per deployment; Agrawal et al., "Vidur", MLSys 2024, §4).
- `ttft_scale` and `wait_steps` correct the shipped TTFT (the prompt's prefill and the decode
  steps it waits and spans, Sarathi-Serve's chunked prefill: Agrawal et al., OSDI 2024): a
  scale on it, and extra steps of wait counted in the shipped estimate's steps. (1, 0) is the
  shipped TTFT itself, one of the candidates, so a fit never reports a larger median TTFT error
  than the shipped estimate on runs that do not queue; a queue's wait (Little's law) runs at
  the fitted TPOT.

Each pair is a least-squares fit of the relative error (every run weighs the same whatever
its scale) with both numbers kept within their physical limits (LIMITS). A pair whose fit
leaves a larger median error on the runs than the shipped values keeps the shipped values (so
a fit never makes the page's reported median worse).

Physics first:
- a run faster than the bound (its TPOT or TTFT below the bound's for its own scenario) is
  not fitted: it is named (`Breach`) and left out, and a fit left with too few runs is refused
  (`FitRefused`);
- a fit needs MIN_RUNS runs: each pair is two numbers, and two runs fit two numbers exactly,
  an "error 0%" that says nothing about the next run;
- a fitted TPOT or TTFT never crosses the bound: where the fitted numbers would be faster,
  they are held at the bound, and `at_bound` says so (fitted_rates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .serving.estimate import output_tokens_per_s

# name -> (lower, upper): what the fit accepts (physical, generous).
LIMITS: dict[str, tuple[float, float]] = {
    "tpot_scale": (0.05, 20.0),
    "step_overhead_s": (0.0, 0.05),
    "ttft_scale": (0.05, 50.0),
    "wait_steps": (0.0, 500.0),
}
NUMBERS_PER_PAIR = 2  # (tpot_scale, step_overhead_s) and (ttft_scale, wait_steps)
MIN_RUNS = NUMBERS_PER_PAIR + 1  # one run more than a pair's numbers: an error the fit did not zero


@dataclass(frozen=True)
class RunParts:
    """One measured run beside the shipped estimate's parts of its scenario (seconds)."""

    measured_tpot_s: float
    measured_ttft_s: float
    operators_s: float  # estimate's decode + prefill share (the parts at the calibrated roofs)
    communication_s: float
    overhead_s: float  # the shipped step overhead
    prefill_s: float  # the estimate's TTFT prefill (after the shipped prefill factor)
    queue_steps: float  # steps a queued prompt waits for memory (Little's law)
    estimate_tpot_s: float
    estimate_ttft_s: float
    bound_tpot_s: float  # the bound of the run's own scenario: no run can be faster
    bound_ttft_s: float


@dataclass(frozen=True)
class UserFit:
    tpot_scale: float
    step_overhead_s: float
    ttft_scale: float
    wait_steps: float

    def tpot_s(self, operators_s: float, communication_s: float) -> float:
        return self.tpot_scale * operators_s + communication_s + self.step_overhead_s

    def ttft_s(self, before_queue_s: float, queue_steps: float, tpot_s: float, estimate_tpot_s: float) -> float:
        """`before_queue_s`: the shipped TTFT estimate less its queue's wait."""
        return self.ttft_scale * before_queue_s + self.wait_steps * estimate_tpot_s + queue_steps * tpot_s


@dataclass(frozen=True)
class Breach:
    """A run faster than the bound of its own scenario in one field ("tpot" or "ttft")."""

    index: int  # the run's position in the list given to the fit
    field: str
    measured_s: float
    bound_s: float

    @property
    def faster(self) -> float:
        """How many times faster than the bound the run claims to be (> 1)."""
        return self.bound_s / self.measured_s


class FitRefused(ValueError):
    """Fewer than MIN_RUNS runs left once the runs faster than the bound are set aside."""

    def __init__(self, kept: int, breaches: tuple[Breach, ...]):
        super().__init__(f"{kept} runs to fit, {MIN_RUNS} needed ({len(breaches)} faster than the bound)")
        self.kept = kept
        self.breaches = breaches


@dataclass(frozen=True)
class FitReport:
    fit: UserFit
    runs: int  # the runs fitted (the breaches left out)
    tpot_error_before: float  # median |estimate / measured - 1| with the shipped calibration
    tpot_error_after: float
    ttft_error_before: float
    ttft_error_after: float
    excluded: tuple[Breach, ...] = ()


def _clamp(name: str, value: float) -> float:
    low, high = LIMITS[name]
    return min(max(value, low), high)


def _objective(s: float, o: float, u: np.ndarray, v: np.ndarray, r: np.ndarray) -> float:
    return float(np.sum((s * u + o * v - r) ** 2))


def _scale_and_offset(
    x: np.ndarray, w: np.ndarray, k: np.ndarray, y: np.ndarray, scale_low: float
) -> tuple[float, float]:
    """min sum((s x_i + o w_i + k_i - y_i) / y_i)^2 over s >= scale_low, o >= 0: relative least
    squares in closed form. The optimum is the free one when it is feasible, else on an edge
    (o = 0, or s = scale_low): each edge is a one-variable least squares, the best one wins."""
    u, v, r = x / y, w / y, (y - k) / y
    suu, svv, suv = float(u @ u), float(v @ v), float(u @ v)
    sur, svr = float(u @ r), float(v @ r)
    det = suu * svv - suv * suv
    if det > 1e-9 * suu * svv:
        s, o = (sur * svv - svr * suv) / det, (suu * svr - suv * sur) / det
        if o >= 0 and s >= scale_low:
            return s, o
    edges = [(max(sur / suu, scale_low), 0.0), (scale_low, max((svr - scale_low * suv) / svv, 0.0))]
    return min(edges, key=lambda so: _objective(*so, u, v, r))


def before_queue_s(r: RunParts) -> float:
    """The shipped TTFT estimate less its queue's wait (queue steps at the shipped TPOT)."""
    return max(r.estimate_ttft_s - r.queue_steps * r.estimate_tpot_s, 0.0)


def _median_errors(estimates: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """Median |estimate / measured - 1| along the last axis (one per row of candidates)."""
    return np.median(np.abs(estimates / measured - 1.0), axis=-1)


def bound_breaches(runs: list[RunParts]) -> tuple[Breach, ...]:
    """Every field of every run that is faster than the bound of the run's own scenario."""
    out = []
    for i, r in enumerate(runs):
        for field, measured, bound in (
            ("tpot", r.measured_tpot_s, r.bound_tpot_s),
            ("ttft", r.measured_ttft_s, r.bound_ttft_s),
        ):
            if measured < bound:
                out.append(Breach(i, field, measured, bound))
    return tuple(out)


def fit_user_runs(runs: list[RunParts]) -> FitReport:
    """The four numbers that bring the shipped estimate onto these runs, and the median error
    before and after (the fitted numbers held at the bound, as the page shows them). Runs
    faster than the bound are left out and named; FitRefused with fewer than MIN_RUNS left.
    Each pair falls back to its shipped values when those fit the runs' median better."""
    breaches = bound_breaches(runs)
    bad = {b.index for b in breaches}
    kept = [r for i, r in enumerate(runs) if i not in bad]
    if len(kept) < MIN_RUNS:
        raise FitRefused(len(kept), breaches)

    def column(name: str) -> np.ndarray:
        return np.array([getattr(r, name) for r in kept], dtype=float)

    y, z = column("measured_tpot_s"), column("measured_ttft_s")
    ops, comm, est_tpot = column("operators_s"), column("communication_s"), column("estimate_tpot_s")
    bound_tpot, bound_ttft, queue = column("bound_tpot_s"), column("bound_ttft_s"), column("queue_steps")
    s, o = _scale_and_offset(ops, np.ones_like(y), comm, y, LIMITS["tpot_scale"][0])
    fitted = (_clamp("tpot_scale", s), _clamp("step_overhead_s", o))

    def tpots(pair: tuple) -> np.ndarray:
        return np.maximum(pair[0] * ops + comm + pair[1], bound_tpot)

    # least squares weighs the worst runs most; the page reports medians: the shipped pair
    # stays when its median error on the runs is smaller
    shipped = (1.0, kept[0].overhead_s)
    better = _median_errors(tpots(fitted), y) <= _median_errors(tpots(shipped), y)
    scale, overhead = fitted if better else shipped
    tpot = tpots((scale, overhead))
    # TTFT = ttft_scale x shipped TTFT before the queue + wait_steps x shipped TPOT + queue x TPOT
    base = np.array([before_queue_s(r) for r in kept])
    g, h = _scale_and_offset(base, est_tpot, queue * tpot, z, LIMITS["ttft_scale"][0])
    fitted = (_clamp("ttft_scale", g), _clamp("wait_steps", h))
    # a handful of runs: the shipped TTFT (1, 0) and the wait that makes each run exact (at the
    # fitted or the shipped scale) are candidates too, and the median decides
    candidates = [fitted, (1.0, 0.0)]
    for scale_g in (fitted[0], 1.0):
        exact = (z - scale_g * base - queue * tpot) / est_tpot
        candidates += [(scale_g, _clamp("wait_steps", float(wait))) for wait in exact]
    pairs = np.array(candidates)
    ttfts = np.maximum(pairs[:, :1] * base + pairs[:, 1:] * est_tpot + queue * tpot, bound_ttft)
    best = int(np.argmin(_median_errors(ttfts, z)))  # the first of equals: the least-squares fit
    g, h = (float(x) for x in pairs[best])
    return FitReport(
        fit=UserFit(float(scale), float(overhead), g, h),
        runs=len(kept),
        tpot_error_before=float(_median_errors(est_tpot, y)),
        tpot_error_after=float(_median_errors(tpot, y)),
        ttft_error_before=float(_median_errors(column("estimate_ttft_s"), z)),
        ttft_error_after=float(_median_errors(ttfts[best], z)),
        excluded=breaches,
    )


def estimate_parts(result: dict, queue_steps: float) -> dict:
    """The parts of a serving_estimate result the fit corrects (seconds), and its bound."""
    tpot = result["breakdown"]["tpot"]["estimate"]
    return {
        # the step less its link and fixed parts: decode and the prefill share at the roofs
        "operators_s": max(tpot["total_s"] - tpot["communication_s"] - tpot["overhead_s"], 0.0),
        "communication_s": tpot["communication_s"],
        "overhead_s": tpot["overhead_s"],
        "prefill_s": result["breakdown"]["ttft"]["estimate"]["prefill_s"],
        "queue_steps": queue_steps,
        "estimate_tpot_s": result["estimate"]["tpot_s"],
        "estimate_ttft_s": result["estimate"]["ttft_s"],
        "bound_tpot_s": result["bound"]["tpot_s"],
        "bound_ttft_s": result["bound"]["ttft_s"],
    }


def run_parts(result: dict, queue_steps: float, measured_tpot_s: float, measured_ttft_s: float) -> RunParts:
    return RunParts(measured_tpot_s, measured_ttft_s, **estimate_parts(result, queue_steps))


def fitted_rates(result: dict, queue_steps: float, fit: UserFit, output_tokens: int) -> dict:
    """The fitted estimate of a serving_estimate result: TTFT, TPOT and the two throughputs
    (the closed loop's output tokens/s over the instance's GPUs; 1 / TPOT per user), as
    engine.serving does.
    Never faster than the bound: a fitted TPOT or TTFT below it is held at it (`at_bound`)."""
    p = estimate_parts(result, queue_steps)
    free_tpot = fit.tpot_s(p["operators_s"], p["communication_s"])
    tpot = max(free_tpot, p["bound_tpot_s"])
    before = max(p["estimate_ttft_s"] - queue_steps * p["estimate_tpot_s"], 0.0)
    free_ttft = fit.ttft_s(before, queue_steps, tpot, p["estimate_tpot_s"])
    ttft, running = max(free_ttft, p["bound_ttft_s"]), result["running_batch"]
    rate = float(output_tokens_per_s(running + result["queued"], running, output_tokens, ttft, tpot))
    rate = min(rate, result["bound"]["output_tokens_per_s_per_gpu"] * result["gpus"])  # as the estimate's
    return {
        "ttft_s": ttft,
        "tpot_s": tpot,
        "output_tokens_per_s_per_gpu": rate / result["gpus"],
        "tokens_per_s_per_user": 1.0 / tpot,
        "at_bound": free_tpot < p["bound_tpot_s"] or free_ttft < p["bound_ttft_s"],
    }
