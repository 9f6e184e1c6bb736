"""Score every candidate with the serving estimate, vectorised with numpy.

Aggregated: one engine.serving.estimate.serving_arrays call per (layout, backend, precision)
answers its whole concurrency grid at once. Disaggregated: per (decode layout, backend,
precision), every prefill layout x worker pair x concurrency is one row of arrays, and
engine.serving.disagg.bound_and_estimate runs the closed loop over all of them at once (the decode
steps are built for every row's batch in one call). Both are the same functions POST
/api/v1/serving answers with, so a candidate's `serving_request` reproduces its numbers.

Each scorer returns columns (a dict of equal-length arrays plus per-row Python objects where a
column is not a number) and the count of candidates dropped because they do not fit in memory
under the backend's rule.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..model import ModelConfig
from ..serving.calibration import Calibration
from ..serving.capacity import capacity
from ..serving.disagg import (
    _experts,
    _step_s,
    bound_and_estimate,
    busy_forward_s,
    decode_side,
    decode_times,
    decoding_requests,
    kv_bytes_held,
    kv_link_for,
    prefill_side,
)
from ..serving.estimate import output_tokens_per_s, serving_arrays
from ..serving.scenario import ServingScenario
from .space import (
    CONCURRENCY_POINTS,
    DISAGG_CONCURRENCY_POINTS,
    PRECISIONS,
    PREFILL_SHORTLIST,
    Layout,
    balanced_pairs,
    concurrency_grid,
    disagg_units,
)


def base_scenario(precision: str, backend: str, isl: int, osl: int, memory_utilization: float | None):
    weight, compute, kv = PRECISIONS[precision]
    return ServingScenario(
        concurrency=1,
        input_tokens=isl,
        output_tokens=osl,
        weight_dtype=weight,
        compute_dtype=compute,
        kv_dtype=kv,
        backend=backend,
        memory_utilization=memory_utilization,
    )


def _range(est, bound, q) -> tuple[np.ndarray, np.ndarray]:
    """The estimate's p10-p90 range, never below the bound (engine.serving.estimate._range)."""
    return np.maximum(est * q[0], bound), np.maximum(est * q[1], bound)


def score_aggregated(model, hw, layouts, budget, base: ServingScenario, cal: Calibration) -> tuple[dict, int]:
    cols: dict[str, list] = {}
    dropped = 0
    for block, lay in enumerate(layouts):
        sc = lay.worker().instance(base, 1)
        try:
            sc.check_layout(model.is_moe, _experts(model))
            room = capacity(model, hw, sc)
        except EngineInputError:
            dropped += CONCURRENCY_POINTS
            continue
        grid = concurrency_grid(room.max_running_batch)
        a = serving_arrays(model, hw, sc, grid, cal, room)
        replicas = budget // lay.gpus
        n = len(grid)
        est_tpot, est_ttft = a["estimate_tpot_s"], a["estimate_ttft_s"]
        bound_tpot, bound_ttft = a["bound_tpot_s"], a["bound_ttft_s"]
        tpot_lo, tpot_hi = _range(est_tpot, bound_tpot, a["ranges"]["tpot"])
        ttft_lo, ttft_hi = _range(est_ttft, bound_ttft, a["ranges"]["ttft"])
        running = a["running_batch"]
        osl, gpus = base.output_tokens, lay.gpus
        # the bound's rate, which no estimate passes (engine.serving.estimate.answer_at)
        most = output_tokens_per_s(grid, running, osl, bound_ttft, bound_tpot, a["bound_rate_step_s"])
        rate, rate_low, rate_high = (
            np.minimum(output_tokens_per_s(grid, running, osl, ttft, tpot), most) / gpus
            for ttft, tpot in ((est_ttft, est_tpot), (ttft_hi, tpot_hi), (ttft_lo, tpot_lo))
        )
        usable = room.usable_bytes_per_gpu
        used = room.weights_bytes_per_gpu + running / lay.attention_data_parallel * (
            room.kv_bytes_per_request + room.workspace_bytes_per_request
        )
        _extend(
            cols,
            n,
            mode="aggregated",
            hardware=hw.id,
            hardware_name=hw.name,
            backend=base.backend,
            precision=_precision_name(base),
            layout=lay,
            block=block,  # one deployment: this layout's replicas at every concurrency
            prefill_layout=None,
            decode_layout=None,
            replicas=replicas,
            prefill_workers=0,
            decode_workers=0,
            gpus=replicas * lay.gpus,
            concurrency=grid * replicas,
            instance_concurrency=grid,
            running_batch=running * replicas,
            tpot_s=est_tpot,
            ttft_s=est_ttft,
            tpot_low_s=tpot_lo,
            tpot_high_s=tpot_hi,
            ttft_low_s=ttft_lo,
            ttft_high_s=ttft_hi,
            bound_tpot_s=bound_tpot,
            bound_ttft_s=bound_ttft,
            tokens_per_s_per_gpu=rate,
            tokens_per_s_per_gpu_low=rate_low,
            tokens_per_s_per_gpu_high=rate_high,
            memory_headroom=1.0 - used / usable,
            # an instance's request spends more time before its first token than streaming the
            # rest: its prompts, not its decode steps, set the pace
            limited_by=np.where(
                a["queued"] > 0, "memory", np.where(est_ttft > (osl - 1) * est_tpot, "prefill", "decode")
            ),
            queued=a["queued"] * replicas,
        )
    return _arrays(cols), dropped


def fits_any(model, hw, layouts, base: ServingScenario) -> bool:
    """Whether one instance of any of `layouts` holds the model under base's memory rule (the
    test score_aggregated drops a layout by): what a budget or precision not searched would
    change, for a search where nothing fits."""
    for lay in layouts:
        sc = lay.worker().instance(base, 1)
        try:
            sc.check_layout(model.is_moe, _experts(model))
            capacity(model, hw, sc)
        except EngineInputError:
            continue
        return True
    return False


def _precision_name(sc: ServingScenario) -> str:
    for name, dtypes in PRECISIONS.items():
        if dtypes == (sc.weight_dtype, sc.compute_dtype, sc.kv_dtype):
            return name
    return sc.weight_dtype


def score_disaggregated(model, hw, layouts, budget, base: ServingScenario, cal: Calibration) -> tuple[dict, int]:
    p_dict = cal.parameters(base.backend, hw.id)[0]
    p = {k: np.asarray(v, dtype=float) for k, v in p_dict.items()}
    kind = cal.range_kind(model.id, hw.id, "disaggregated")
    q = cal.ranges(kind, "disaggregated")
    halves = [lay for lay in layouts if 2 * lay.gpus <= budget]  # room for the other side
    prefill, decode = {}, {}
    for lay in halves:
        for side, build, into in ((prefill_side, lay.worker(), prefill), (decode_side, lay.worker(), decode)):
            with contextlib.suppress(EngineInputError):  # does not fit: dropped, counted below
                into[lay] = side(model, hw, base, build)
    for pre in prefill.values():  # each prefill layout's forward at the calibrated roofs, both batches
        pre["est"] = busy_forward_s(_step_s(pre["steps"], p), p["prefill_busy_factor"], pre["steps"].at_roofs_s())
    prefill = _shortlist(prefill)
    table = _prefill_table(prefill)
    cols: dict[str, list] = {}
    blocks = 0  # deployments numbered across the decode layouts
    for ld, dec in decode.items():
        dec["times"] = decode_times(model, hw, dec["sc"])  # its steps are built once for every pairing
        dec["tpot_cap"] = dec["times"](float(dec["cap"].max_running_batch), p)[0]
        held = kv_bytes_held(model, base, ld.tensor_parallel)
        rows = _disagg_rows(hw, base, budget, prefill, held, ld, dec, float(p["kv_link_efficiency"]))
        if rows is not None:
            rows["block"] = np.array(rows["block"]) + blocks
            blocks = int(rows["block"][-1]) + 1
            _score_rows(cols, hw, base, rows, table, dec, ld, p, q)
    skipped = (len(halves) - len(prefill)) + (len(halves) - len(decode))
    return _arrays(cols), max(skipped, 0) * DISAGG_CONCURRENCY_POINTS


def _prefill_table(prefill: dict) -> dict:
    """The shortlisted prefill layouts' numbers as arrays in the dict's order, built once for
    every decode layout they pair with: each one's forward of one prompt and of a full batch at
    the roofs and at the estimate, its ranks and its full batch."""
    return {
        "layouts": _objects(list(prefill)),
        "bound": np.array([pre["steps"].at_roofs_s() for pre in prefill.values()]),
        "est": np.array([pre["est"] for pre in prefill.values()]),
        "adp": np.array([lp.attention_data_parallel for lp in prefill], dtype=float),
        "full": np.array([pre["full"] for pre in prefill.values()]),
        "gpus": np.array([lp.gpus for lp in prefill]),
    }


def _objects(values: list) -> np.ndarray:
    """A list as a 1-d object array, one element per item (np.array would make a list of
    sequences 2-d)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _per_worker_rps(pre: dict) -> float:
    """A prefill worker's requests/s at a full batch (estimate), per rank."""
    return pre["full"] / float(pre["est"][1])


def _shortlist(prefill: dict) -> dict:
    """The prefill layouts worth pairing: the PREFILL_SHORTLIST with the most requests/s per GPU
    (a prefill worker is compute-bound; these serve the most prompts for their GPUs) and the one
    with the fastest single prompt (the lowest TTFT)."""
    if len(prefill) <= PREFILL_SHORTLIST:
        return prefill
    per_gpu = {lay: _per_worker_rps(pre) * lay.attention_data_parallel / lay.gpus for lay, pre in prefill.items()}
    keep = sorted(prefill, key=lambda lay: -per_gpu[lay])[:PREFILL_SHORTLIST]
    keep.append(min(prefill, key=lambda lay: float(prefill[lay]["est"][0])))
    return {lay: prefill[lay] for lay in dict.fromkeys(keep)}


def _disagg_rows(hw, base, budget, prefill, held: tuple, ld: Layout, dec, link_efficiency: float) -> dict | None:
    """Every (prefill layout, unit, worker pair, concurrency) with this decode layout, as arrays:
    the link and transfer terms engine.serving.disagg.sides computes for one deployment, for all.
    A row describes one xPyD unit and how many replicas of it spend the budget (`r`,
    engine.planner.space.disagg_units). A row names its prefill layout by its place in `prefill`
    (`which`); `held` is engine.serving.disagg.kv_bytes_held at this decode layout."""
    cap = dec["cap"].max_running_batch
    whole, received = held
    keys = ("which", "x", "y", "r", "c", "bandwidth", "link_bytes", "per_request", "block")
    out: dict[str, list] = {k: [] for k in keys}
    grids: dict[int, np.ndarray] = {}
    domain = getattr(hw, "scale_up_domain_size", None) or 0
    decode_cap_rps = cap / (base.output_tokens * float(dec["tpot_cap"]))  # one decode worker at its memory cap
    for j, (lp, pre) in enumerate(prefill.items()):
        sent = whole / lp.tensor_parallel  # engine.serving.disagg.transfer_bytes: the prefill TP splits it
        whole_budget_ratio = _balance(hw, budget, lp, ld, pre, held, decode_cap_rps, link_efficiency)
        held_by_one_unit = budget / (whole_budget_ratio * lp.gpus + ld.gpus) * cap
        seen = set()  # two unit sizes may balance to the same pair: one deployment, scored once
        for unit in disagg_units(budget, domain, lp.gpus + ld.gpus, held_by_one_unit):
            ratio = _balance(hw, unit, lp, ld, pre, held, decode_cap_rps, link_efficiency)
            for x, y in balanced_pairs(unit, lp.gpus, ld.gpus, ratio):
                if (x, y) in seen:
                    continue
                seen.add((x, y))
                units = budget // (x * lp.gpus + y * ld.gpus)  # replicas of the unit its workers make
                bandwidth = kv_link_for(hw, hw, x * lp.gpus + y * ld.gpus)[0]
                per_request = max(whole / (x * lp.gpus), received * ld.tensor_parallel / (y * ld.gpus))
                grid = grids.setdefault(y, concurrency_grid(y * cap, DISAGG_CONCURRENCY_POINTS))
                n = len(grid)
                out["block"] += [len(out["c"])] * n  # one deployment per grid
                out["which"] += [j] * n
                out["x"] += [x] * n
                out["y"] += [y] * n
                out["r"] += [units] * n
                out["c"].append(grid)
                out["bandwidth"] += [bandwidth] * n
                out["link_bytes"] += [max(sent, received)] * n
                out["per_request"] += [per_request] * n
    if not out["c"]:
        return None
    out["c"] = np.concatenate(out["c"])
    return out


def _balance(hw, unit: int, lp: Layout, ld: Layout, pre: dict, held: tuple, decode_cap_rps, efficiency) -> float:
    """Prefill workers per decode worker that balance the two sides' requests/s in a unit of
    `unit` GPUs. Each side's rate per worker is the lesser of its compute and what its GPUs'
    links move of the KV cache (the unit's link at the calibrated efficiency): a decode worker
    whose NICs cannot take what it could decode needs its prefill share cut to them, or the
    pairs would leave the link the limit."""
    whole, received = held
    link = kv_link_for(hw, hw, unit)[0] * efficiency
    decode_rps = min(decode_cap_rps, link * ld.gpus / (received * ld.tensor_parallel))
    prefill_rps = min(_per_worker_rps(pre) * lp.attention_data_parallel, link * lp.gpus / whole)
    return decode_rps / prefill_rps


def _score_rows(cols, hw, base, rows, table: dict, dec, ld: Layout, p, q) -> None:
    which = np.array(rows["which"])
    c = rows["c"].astype(float)
    x = np.array(rows["x"], dtype=float)
    y = np.array(rows["y"], dtype=float)
    units = np.array(rows["r"], dtype=int)  # replicas of the xPyD unit the other columns describe
    cap = float(dec["cap"].max_running_batch)
    bound_steps, est_steps = table["bound"], table["est"]
    adp, full = table["adp"][which], table["full"][which]
    d = {
        "output_tokens": float(base.output_tokens),
        "decode_workers": y,
        "cap": cap,
        "prefill_slots": x * adp,
        "prefill_full": full,
        "bandwidth": np.array(rows["bandwidth"]),
        "link_bytes": np.array(rows["link_bytes"]),
        "link_latency_s": 0.0,  # the planner's links are `auto`: no latency but the calibrated fixed cost
        "link_rps_per_bw": 1.0 / np.array(rows["per_request"]),
        "n0": np.minimum(c / y, cap),
        "tpot": dec["times"],
    }
    at_roofs, calibrated = (bound_steps[which, 0], bound_steps[which, 1]), (est_steps[which, 0], est_steps[which, 1])
    bound, e = bound_and_estimate(c, d, at_roofs, calibrated, p)
    gpus = x * table["gpus"][which] + y * ld.gpus  # one unit's
    tpot_lo, tpot_hi = _range(e["tpot_s"], bound["tpot_s"], q["tpot"])
    ttft_lo, ttft_hi = _range(e["ttft_s"], bound["ttft_s"], q["ttft"])
    rate = e["requests_per_s"] * base.output_tokens / gpus
    mu_p, mu_d, mu_l = e["prefill_capacity_rps"], e["decode_capacity_at_cap_rps"], e["link_capacity_rps"]
    limited = np.where(mu_p <= np.minimum(mu_d, mu_l), "prefill", np.where(mu_d <= mu_l, "decode", "kv_link"))
    headroom = 1.0 - e["decode_running"] / cap  # the decode workers' KV cache still free
    _extend(
        cols,
        len(c),
        mode="disaggregated",
        hardware=hw.id,
        hardware_name=hw.name,
        backend=base.backend,
        precision=_precision_name(base),
        layout=None,
        prefill_layout=table["layouts"][which],
        decode_layout=ld,
        replicas=units,
        block=np.asarray(rows["block"], dtype=int),
        prefill_workers=x.astype(int),
        decode_workers=y.astype(int),
        gpus=units * gpus.astype(int),
        concurrency=units * c.astype(int),
        instance_concurrency=c.astype(int),
        running_batch=units * decoding_requests(e["decode_running"], y, c),
        tpot_s=e["tpot_s"],
        ttft_s=e["ttft_s"],
        tpot_low_s=tpot_lo,
        tpot_high_s=tpot_hi,
        ttft_low_s=ttft_lo,
        ttft_high_s=ttft_hi,
        bound_tpot_s=bound["tpot_s"],
        bound_ttft_s=bound["ttft_s"],
        tokens_per_s_per_gpu=rate,
        tokens_per_s_per_gpu_low=rate * e["tpot_s"] / tpot_hi,
        tokens_per_s_per_gpu_high=rate * e["tpot_s"] / tpot_lo,
        memory_headroom=headroom,
        limited_by=limited,
        queued=np.zeros(len(c), dtype=int),
    )


def _extend(cols: dict, n: int, **values) -> None:
    """Append n rows: an array or list per column, or one value for all n."""
    for key, value in values.items():
        if isinstance(value, np.ndarray):
            block = value
        elif isinstance(value, list):
            block = _objects(value)
        else:
            block = np.full(n, value, dtype=object if not isinstance(value, (int, float)) else type(value))
        cols.setdefault(key, []).append(block)


def _arrays(cols: dict) -> dict:
    """Each column's blocks as one array (numbers stay numeric; layouts and names objects)."""
    out = {}
    for key, blocks in cols.items():
        numeric = all(b.dtype != object for b in blocks)
        out[key] = np.concatenate(blocks) if numeric else np.concatenate([b.astype(object) for b in blocks])
    return out


__all__ = ["Accelerator", "ModelConfig", "base_scenario", "fits_any", "score_aggregated", "score_disaggregated"]
