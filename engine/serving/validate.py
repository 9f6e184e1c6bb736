"""Score the serving estimate (and the bound) against measured runs: median and p90 absolute
error of TPOT and TTFT, overall and by backend, GPU and model; the share of runs inside the
estimate's range; every run the bound is above, with a warning."""

from __future__ import annotations

import numpy as np

from ..errors import EngineInputError
from ..hardware import get_accelerator
from .calibration import Calibration, load_calibration
from .estimate import serving_estimate
from .mapping import resolve_model, row_scenario


def _stats(rows: list[dict]) -> dict:
    def err(kind: str, key: str) -> np.ndarray:
        return np.array([abs(r[kind][key] / r["measured"][key] - 1.0) for r in rows])

    def inside(key: str) -> float:
        hits = [
            r["estimate"][f"{key}_range"][0] <= r["measured"][key] <= r["estimate"][f"{key}_range"][1] for r in rows
        ]
        return float(np.mean(hits))

    out = {"rows": len(rows)}
    for key in ("tpot", "ttft"):
        e = err("estimate", f"{key}_s")
        out[f"{key}_median_abs_error"] = float(np.median(e))
        out[f"{key}_p90_abs_error"] = float(np.percentile(e, 90))
        out[f"{key}_in_range"] = inside(f"{key}_s")
    bound = {}
    for key in ("tpot", "ttft"):
        e = err("bound", f"{key}_s")
        bound[f"{key}_median_abs_error"] = float(np.median(e))
        bound[f"{key}_p90_abs_error"] = float(np.percentile(e, 90))
        bound[f"{key}_above_measured"] = sum(r["bound"][f"{key}_s"] > r["measured"][f"{key}_s"] for r in rows)
    out["bound"] = bound
    return out


def _group(rows: list[dict], key: str) -> dict:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r[key], []).append(r)
    return {name: _stats(members) for name, members in sorted(groups.items())}


def bound_warning(measured_tpot_s: float, bound_tpot_s: float) -> str:
    return (
        f"measured TPOT {measured_tpot_s * 1e3:.3g} ms is below the bound {bound_tpot_s * 1e3:.3g} ms: no run "
        "can beat the roofs, so the run used something the scenario does not (speculative decoding, a smaller "
        "running batch than its concurrency, prefix caching) or was mis-recorded"
    )


def validate_rows(rows: list[dict], calibration: Calibration | None = None) -> dict:
    """Map each row (engine.serving.mapping), answer it, and score bound and estimate."""
    cal = calibration or load_calibration()
    answered, unanswered, flagged = [], [], []
    for row in rows:
        try:
            m = row_scenario(row)
            result = serving_estimate(resolve_model(m.model), get_accelerator(m.hardware), m.scenario, cal)
        except EngineInputError as exc:
            unanswered.append({"id": row.get("id", ""), "reason": str(exc)})
            continue
        entry = {
            "id": m.id,
            "backend": m.backend or "any",
            "gpu": m.hardware,
            "model": m.model,
            "measured": {"tpot_s": m.tpot_s, "ttft_s": m.ttft_s},
            "bound": result["bound"],
            "estimate": result["estimate"],
        }
        if result["bound"]["tpot_s"] > m.tpot_s:
            flagged.append({"id": m.id, "warning": bound_warning(m.tpot_s, result["bound"]["tpot_s"])})
        answered.append(entry)
    if not answered:
        raise EngineInputError(
            "data", "no row could be mapped onto a scenario", "aiconfigurator silicon CSV columns", code="map_no_rows"
        )
    return {
        "calibration": cal.id,
        "rows": len(rows),
        "answered": len(answered),
        "overall": _stats(answered),
        "by_backend": _group(answered, "backend"),
        "by_gpu": _group(answered, "gpu"),
        "by_model": _group(answered, "model"),
        "bound_above_measured_tpot": flagged,
        "unanswered": unanswered,
    }
