"""A concurrency sweep: throughput per GPU against tokens per user, bound and estimate per point
(the throughput-vs-interactivity chart of serving benchmarks)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..model import ModelConfig
from .calibration import Calibration, load_calibration
from .estimate import answer_at, ensure_finite, serving_arrays
from .scenario import MAX_CONCURRENCY, ServingScenario

MAX_CURVE_POINTS = 256
DEFAULT_CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def serving_curve(
    model: ModelConfig,
    hw: Accelerator,
    sc: ServingScenario,
    concurrencies: tuple[int, ...] | list[int] = DEFAULT_CONCURRENCIES,
    calibration: Calibration | None = None,
) -> dict:
    """One point per concurrency, in the order asked, a repeated concurrency answered again
    where it was asked (and computed once); the scenario's own concurrency is ignored."""
    if not 1 <= len(concurrencies) <= MAX_CURVE_POINTS:
        raise EngineInputError(
            "concurrencies",
            f"{len(concurrencies)} points",
            f"1 to {MAX_CURVE_POINTS}",
            code="list_length",
            params={"n": MAX_CURVE_POINTS},
        )
    cal = calibration or load_calibration()
    for c in concurrencies:
        if isinstance(c, bool) or not isinstance(c, int) or not 1 <= c <= MAX_CONCURRENCY:
            raise EngineInputError(
                "concurrencies",
                f"{c!r} is not an integer in [1, {MAX_CONCURRENCY}]",
                code="int_range",
                params={"value": repr(c)[:40], "low": 1, "high": MAX_CONCURRENCY},
            )
    distinct = sorted(set(concurrencies))
    a = serving_arrays(model, hw, sc, distinct, cal)  # every distinct point in one numpy pass
    answered: dict[int, dict] = {}
    for i, c in enumerate(distinct):
        r = answer_at(a, i, model, hw, replace(sc, concurrency=c))
        ensure_finite([r["bound"], r["estimate"]])
        answered[c] = {
            "concurrency": c,
            "running_batch": r["running_batch"],
            "queued": r["queued"],
            "bound": r["bound"],
            "estimate": r["estimate"],
        }
    points = [answered[c] for c in concurrencies]  # in the order asked, a repeat answered again
    return {"model": model.id, "hardware": hw.id, "gpus": sc.gpus, "calibration": cal.id, "points": points}
