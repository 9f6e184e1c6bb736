"""Would the planner's pick have met the target? Scored on measured runs (docs/planner.md,
"Checked against reality").

Runs that share a model, GPU, backend, mode and input/output lengths form a group when they
hold at least two layouts. The target is the group's median measured TPOT. The pick is the run
the estimate ranks first (most output tokens/s/GPU) among those it predicts to meet the target:
at the estimate, or at the pessimistic end of its range. The pick succeeds when its measured
TPOT meets the target; its regret is 1 - its measured tokens/s/GPU / the best measured
tokens/s/GPU among runs that met the target (a run's measured tokens/s/GPU: concurrency /
measured TPOT / GPUs). A pick that misses, or no pick, is regret 100%.

A disaggregated run the estimate does not describe is left out and counted: one whose worker
counts are neither recorded nor its published recipe's (its GPUs, and so its tokens/s/GPU, are
not known), or whose recipe leaves its decoding unknown (MTP listed beside plain decoding, or
no draft length named). An MTP recipe's run of a named draft length is scored with its drafts
(engine.serving.validate.measured_deployment), as it ran.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np

from ..errors import EngineInputError
from ..serving.calibration import Calibration, load_calibration
from ..serving.mapping import CsvRow
from ..serving.validate import answer_row

MIN_LAYOUTS = 2


def _layout(m) -> tuple:
    if m.disagg is not None:
        d = m.disagg
        return ("disagg", d.prefill, d.decode)
    sc = m.scenario
    return (sc.tensor_parallel, sc.attention_data_parallel, sc.moe_tensor_parallel, sc.expert_parallel)


def _run(m, result) -> dict:
    gpus = m.disagg.gpus if m.disagg is not None else m.scenario.gpus
    c = m.scenario.concurrency
    return {
        "layout": _layout(m),
        "measured_tpot_s": m.tpot_s,
        "measured_per_gpu": c / m.tpot_s / gpus,
        "estimate_tpot_s": result["estimate"]["tpot_s"],
        "pessimistic_tpot_s": result["estimate"]["tpot_s_range"][1],
        "estimate_per_gpu": result["estimate"]["output_tokens_per_s_per_gpu"],
    }


def pick_outcomes(runs: list[dict]) -> dict[str, tuple[bool, float]]:
    """One group's picks (module docstring), by the estimate and by the pessimistic end: each
    (success, regret). A run: `measured_tpot_s`, `measured_per_gpu`, `estimate_tpot_s`,
    `pessimistic_tpot_s`, `estimate_per_gpu` (_run)."""
    target = float(np.median([r["measured_tpot_s"] for r in runs]))
    best = max(r["measured_per_gpu"] for r in runs if r["measured_tpot_s"] <= target)
    out = {}
    for name in ("estimate", "pessimistic"):
        predicted = [r for r in runs if r[f"{name}_tpot_s"] <= target]
        pick = max(predicted, key=lambda r: r["estimate_per_gpu"], default=None)
        success = pick is not None and pick["measured_tpot_s"] <= target
        out[name] = (success, 1.0 - pick["measured_per_gpu"] / best if success else 1.0)
    return out


def validate_plan(
    rows: Iterable[dict | CsvRow], calibration: Calibration | None = None, on_skip: Callable | None = None
) -> dict:
    cal = calibration or load_calibration()
    groups: dict[tuple, list[dict]] = defaultdict(list)
    skipped = undescribed = 0
    for index, item in enumerate(rows):
        row = item if isinstance(item, CsvRow) else CsvRow(index + 2, item)
        try:
            if row.problem is not None:
                raise row.problem
            m, result = answer_row(row.fields, cal)
        except EngineInputError as exc:
            skipped += 1
            if on_skip is not None:
                on_skip({"line": row.line, "id": str(row.fields.get("id") or "")[:80], "reason": str(exc)})
            continue
        if not m.tpot_describable:
            undescribed += 1
            continue
        mode = "aggregated" if m.disagg is None else "disaggregated"
        key = (m.model, m.hardware, m.backend, mode, m.scenario.input_tokens, m.scenario.output_tokens)
        groups[key].append(_run(m, result))
    scored = {name: [] for name in ("estimate", "pessimistic")}
    kept = 0
    for runs in groups.values():
        if len({str(r["layout"]) for r in runs}) < MIN_LAYOUTS:
            continue
        kept += 1
        for name, outcome in pick_outcomes(runs).items():
            scored[name].append(outcome)
    if not kept:
        raise EngineInputError(
            "data", "no group of runs shares a model, GPU, backend and lengths across two layouts",
            "several layouts of one scenario", code="plan_no_groups",
        )  # fmt: skip
    out = {"calibration": cal.id, "groups": kept, "rows_skipped": skipped, "rows_not_described": undescribed}
    for name, results in scored.items():
        success = np.array([s for s, _ in results])
        regret = np.array([r for _, r in results])
        out[f"by_{name}"] = {
            "success_rate": float(success.mean()),
            "median_regret": float(np.median(regret)),
            "groups": len(results),
        }
    return out
