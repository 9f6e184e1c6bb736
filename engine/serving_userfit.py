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
its scale) with both numbers kept within their physical limits (LIMITS); with one run the
offset keeps its shipped value and only the scale is fitted. A pair whose fit leaves a larger
median error on the runs than the shipped values keeps the shipped values (so a fit never
makes the page's reported median worse).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

# name -> (lower, upper): what the link and the fit accept (physical, generous).
LIMITS: dict[str, tuple[float, float]] = {
    "tpot_scale": (0.05, 20.0),
    "step_overhead_s": (0.0, 0.05),
    "ttft_scale": (0.05, 50.0),
    "wait_steps": (0.0, 500.0),
}


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
class FitReport:
    fit: UserFit
    runs: int
    tpot_error_before: float  # median |estimate / measured - 1| with the shipped calibration
    tpot_error_after: float
    ttft_error_before: float
    ttft_error_after: float


def _clamp(name: str, value: float) -> float:
    low, high = LIMITS[name]
    return min(max(value, low), high)


def _objective(s: float, o: float, u: list[float], v: list[float], r: list[float]) -> float:
    return sum((s * ui + o * vi - ri) ** 2 for ui, vi, ri in zip(u, v, r, strict=True))


def _scale_and_offset(
    x: list[float], w: list[float], k: list[float], y: list[float], offset0: float, scale_low: float
) -> tuple[float, float]:
    """min sum((s x_i + o w_i + k_i - y_i) / y_i)^2 over s >= scale_low, o >= 0: relative least
    squares in closed form. The optimum is the free one when it is feasible, else on an edge
    (o = 0, or s = scale_low): each edge is a one-variable least squares, the best one wins.
    With one run the offset is held at offset0 and only the scale is fitted."""
    u = [xi / yi for xi, yi in zip(x, y, strict=True)]
    v = [wi / yi for wi, yi in zip(w, y, strict=True)]
    r = [(yi - ki) / yi for ki, yi in zip(k, y, strict=True)]
    suu, svv = sum(a * a for a in u), sum(b * b for b in v)
    suv = sum(a * b for a, b in zip(u, v, strict=True))
    sur, svr = sum(a * b for a, b in zip(u, r, strict=True)), sum(a * b for a, b in zip(v, r, strict=True))
    if len(y) == 1:
        return max((sur - offset0 * suv) / suu, scale_low), offset0
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


def _median_error(estimates: list[float], measured: list[float]) -> float:
    return statistics.median(abs(e / m - 1.0) for e, m in zip(estimates, measured, strict=True))


def _better(fitted: tuple, shipped: tuple, errors) -> tuple:
    """The fitted pair unless it leaves a larger median error on the runs than the shipped one
    (least squares weighs the worst runs most; the page reports medians)."""
    return fitted if errors(fitted) <= errors(shipped) else shipped


def fit_user_runs(runs: list[RunParts]) -> FitReport:
    """The four numbers that bring the shipped estimate onto these runs, and the median error
    before and after. Each pair falls back to its shipped values when those fit the runs'
    median better. Raises ValueError without a run (the caller names what is missing)."""
    if not runs:
        raise ValueError("no runs to fit")
    y, z = [r.measured_tpot_s for r in runs], [r.measured_ttft_s for r in runs]
    fitted = _scale_and_offset(
        [r.operators_s for r in runs],
        [1.0] * len(runs),
        [r.communication_s for r in runs],
        y,
        runs[0].overhead_s,
        LIMITS["tpot_scale"][0],
    )
    fitted = (_clamp("tpot_scale", fitted[0]), _clamp("step_overhead_s", fitted[1]))

    def tpots(pair: tuple) -> list[float]:
        return [pair[0] * r.operators_s + r.communication_s + pair[1] for r in runs]

    scale, overhead = _better(fitted, (1.0, runs[0].overhead_s), lambda pair: _median_error(tpots(pair), y))
    tpot = tpots((scale, overhead))
    # TTFT = ttft_scale x shipped TTFT before the queue + wait_steps x shipped TPOT + queue x TPOT
    base = [before_queue_s(r) for r in runs]
    g, h = _scale_and_offset(
        base,
        [r.estimate_tpot_s for r in runs],
        [r.queue_steps * t for r, t in zip(runs, tpot, strict=True)],
        z,
        0.0,
        LIMITS["ttft_scale"][0],
    )

    def ttfts(pair: tuple) -> list[float]:
        g, h = pair
        return [g * b + h * r.estimate_tpot_s + r.queue_steps * t for b, r, t in zip(base, runs, tpot, strict=True)]

    fitted = (_clamp("ttft_scale", g), _clamp("wait_steps", h))
    # a handful of runs: the shipped TTFT (1, 0) and the wait that makes each run exact (at the
    # fitted or the shipped scale) are candidates too, and the median decides
    candidates = [(1.0, 0.0)]
    for scale_g in (fitted[0], 1.0):
        candidates += [
            (scale_g, _clamp("wait_steps", (r.measured_ttft_s - scale_g * b - r.queue_steps * t) / r.estimate_tpot_s))
            for b, r, t in zip(base, runs, tpot, strict=True)
        ]
    g, h = min([fitted, *candidates], key=lambda pair: _median_error(ttfts(pair), z))
    fit = UserFit(scale, overhead, g, h)
    return FitReport(
        fit=fit,
        runs=len(runs),
        tpot_error_before=_median_error([r.estimate_tpot_s for r in runs], y),
        tpot_error_after=_median_error(tpot, y),
        ttft_error_before=_median_error([r.estimate_ttft_s for r in runs], z),
        ttft_error_after=_median_error(ttfts((g, h)), z),
    )


def estimate_parts(result: dict, queue_steps: float) -> dict:
    """The parts of a serving_estimate result the fit corrects (seconds)."""
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
    }


def run_parts(result: dict, queue_steps: float, measured_tpot_s: float, measured_ttft_s: float) -> RunParts:
    return RunParts(measured_tpot_s, measured_ttft_s, **estimate_parts(result, queue_steps))


def fitted_rates(result: dict, queue_steps: float, fit: UserFit) -> dict:
    """The fitted estimate of a serving_estimate result: TTFT, TPOT and the two throughputs
    (running / TPOT over the instance's GPUs; 1 / TPOT per user), as engine.serving does."""
    p = estimate_parts(result, queue_steps)
    tpot = fit.tpot_s(p["operators_s"], p["communication_s"])
    return {
        "ttft_s": fit.ttft_s(
            max(p["estimate_ttft_s"] - queue_steps * p["estimate_tpot_s"], 0.0), queue_steps, tpot, p["estimate_tpot_s"]
        ),
        "tpot_s": tpot,
        "output_tokens_per_s_per_gpu": result["running_batch"] / tpot / result["gpus"],
        "tokens_per_s_per_user": 1.0 / tpot,
    }
