"""Fit engine/calibration/serving.yaml to the measured serving runs in published/serving/.

    python scripts/fit_serving.py            # writes engine/calibration/serving.yaml
    python scripts/fit_serving.py --check    # exit 1 if the file differs from a fresh fit
    python scripts/fit_serving.py --out F    # write elsewhere
    python scripts/fit_serving.py --held-out # print the grouped cross-validation table, write nothing
    python scripts/fit_serving.py --nested   # the same with the ridge chosen inside each fold (slow)
    python scripts/fit_serving.py --campaign-partitions  # the campaign fold split as the held-out goals are

Both shipped splits are fitted at once: the aggregated runs (measured-serving-train.csv) and
the disaggregated ones (measured-disagg-train.csv). Every row is mapped to a scenario as
published/serving/README.md says and turned into the bound's parts by the engine
(scripts/fit_features.py), and the calibration parameters p are fitted so that the engine's own
estimate formulas come close to the measured TPOT and TTFT. Each parameter is
log p = global + backend + family, with a ridge penalty on the backend and family terms (an
effect has to be seen in several groups of runs to move them). The loss is a soft-L1 of the log
ratio estimate / measured (a Cauchy loss for the disaggregated TTFT, whose runs split in two),
minimised by Levenberg-Marquardt (numpy only, deterministic).

Cross-validation holds out what new runs differ in, whole groups at a time: a model family, a
GPU, a measuring campaign, a (model, GPU, backend) pairing. Their held-out residuals give the
honest error and each kind of scenario's range (a pairing of a known model and GPU, a new GPU,
a new model).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_features import (  # noqa: E402
    BACKENDS,
    FAMILIES,
    N_THETA,
    NP,
    STEP_PARAMETERS,
    TTFT_PARAMETERS,
    decode_batches,
    features,
    mapped_rows,
    model_family,
    predict,
)

from engine.errors import EngineInputError  # noqa: E402
from engine.serving.calibration import CALIBRATION_PATH, PARAMETER_NAMES, PARAMETERS, Calibration  # noqa: E402
from engine.serving.disagg import disaggregated_estimate  # noqa: E402
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV, resolve_model  # noqa: E402
from engine.serving.validate import measured_deployment  # noqa: E402

VERSION = 2
START = {
    "bandwidth_efficiency": 0.7,
    "compute_efficiency": 0.5,
    "expert_compute_efficiency": 0.3,
    "attention_efficiency": 0.5,
    "moe_imbalance": 1.3,
    "link_efficiency": 0.5,
    "collective_latency_s": 1e-5,
    "alltoall_latency_s": 2e-5,
    "scale_out_latency_s": 2e-5,
    "step_overhead_s": 1e-3,
    "layer_overhead_s": 1e-5,
    "request_overhead_s": 1e-5,
    # Only Kimi-K2.5's int4 runs convert weights; from a start of 4 the first step overshoots
    # the limit and, clipped, has no gradient to come back: start at the order they need.
    "dequant_ops_per_weight": 16.0,
    "ttft_prefill_factor": 1.5,
    "ttft_wait_steps": 3.0,
    "ttft_burst_share": 0.05,
    "disagg_prefill_factor": 1.5,
    "prefill_busy_factor": 1.0,
    "kv_link_efficiency": 0.3,
    "kv_transfer_latency_s": 0.2,
    "prefill_queue_factor": 1.0,
    "disagg_burst_share": 0.1,
    "disagg_decode_factor": 1.1,
}
# Penalty weights on each backend / family log-factor, chosen by the grouped held-out error
# (README "Error on runs it never saw"): kept apart for TPOT and TTFT parameters.
RIDGE = 1000.0
RIDGE_TTFT = 1000.0
SOFT_L1_SCALE = 0.1  # residuals (log ratio) beyond ~10% count linearly, not squared
# The disaggregated TTFT's residuals are two populations, not one with tails: runs whose first
# token comes after the prefill and the transfer, and runs that record seconds more for the same
# prompt and layout (README: measured / estimate p10 0.25, p90 7.4). Soft-L1 settles between
# them and fits neither; a Cauchy loss (redescending: a row's pull fades as its miss grows) lets
# the first set the fixed cost. Scale chosen by the grouped folds among 0.1, 0.25 and 0.5.
DISAGG_TTFT_CAUCHY_SCALE = 0.25
DISAGG_ITERATIONS = 2  # refits with each disaggregated row's decode batch from the last fit


def _ridge(name: str, ridge: tuple[float, float]) -> float:
    return ridge[1] if name in TTFT_PARAMETERS else ridge[0]


def initial_theta() -> np.ndarray:
    theta = np.zeros(N_THETA)
    theta[:NP] = np.log([START[n] for n in PARAMETER_NAMES])
    return theta


def _pseudo(est: np.ndarray, meas: np.ndarray) -> np.ndarray:
    """Signed square root of the soft-L1 loss of log(est / meas): its squares sum to the loss."""
    r = np.log(est / meas) / SOFT_L1_SCALE
    return np.sign(r) * np.sqrt(2.0 * (np.sqrt(1.0 + r * r) - 1.0))


def _cauchy(est: np.ndarray, meas: np.ndarray) -> np.ndarray:
    """Signed square root of the Cauchy loss log(1 + r^2) of r = log(est / meas) / scale."""
    r = np.log(est / meas) / DISAGG_TTFT_CAUCHY_SCALE
    return np.sign(r) * np.sqrt(np.log1p(r * r))


def _row_residuals(theta, f, idx, target: str) -> np.ndarray:
    tpot, ttft = predict(theta, f, idx, ttft=target == "ttft")
    if target == "tpot":  # a run whose decode batch per worker is unknown weighs nothing here
        return np.where(f["tpot_fitted"][idx], _pseudo(tpot, f["measured_tpot"][idx]), 0.0)
    meas = f["measured_ttft"][idx]
    return np.where(f["kind"][idx] == 1, _cauchy(ttft, meas), _pseudo(ttft, meas))


def _weights(ridge) -> np.ndarray:
    return np.tile([np.sqrt(_ridge(n, ridge)) for n in PARAMETER_NAMES], len(BACKENDS) + len(FAMILIES))


def _residuals(theta, f, idx, target: str, ridge) -> np.ndarray:
    return np.concatenate([_row_residuals(theta, f, idx, target), _weights(ridge) * theta[NP:]])


def _jacobian(theta, f, idx, target, names, base, ridge) -> tuple[np.ndarray, np.ndarray]:
    """d residual / d theta for the parameters in `names`. A row's log p is global + its
    backend's + its family's term, so one perturbation of the global term gives every row's
    derivative and the backend and family columns are that column masked to their rows."""
    cols, which = [], []
    n_rows = len(idx)
    groups = [("global", None)] + [("backend", b) for b in range(len(BACKENDS))]
    groups += [("family", k) for k in range(len(FAMILIES))]
    for name in names:
        j = PARAMETER_NAMES.index(name)
        step = theta.copy()
        step[j] += 1e-5
        d = (_row_residuals(step, f, idx, target) - base) / 1e-5
        for g, (kind, k) in enumerate(groups):
            col = d if kind == "global" else d * (f[kind][idx] == k)
            full = np.zeros(n_rows + N_THETA - NP)
            full[:n_rows] = col
            if g:
                full[n_rows + (g - 1) * NP + j] = np.sqrt(_ridge(name, ridge))
            cols.append(full)
            which.append(g * NP + j)
    return np.array(cols).T, np.array(which)


def levenberg_marquardt(theta, f, idx, target: str, ridge, iterations: int = 80) -> np.ndarray:
    names = STEP_PARAMETERS if target == "tpot" else TTFT_PARAMETERS
    lam = 1e-2
    res = _residuals(theta, f, idx, target, ridge)
    cost = float(res @ res)
    for _ in range(iterations):
        previous = cost
        jac, free = _jacobian(theta, f, idx, target, names, res[: len(idx)], ridge)
        jtj, jtr = jac.T @ jac, jac.T @ res
        improved = False
        while lam < 1e8:
            delta = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-9), -jtr)
            trial = _within_bounds(theta.copy(), free, delta)
            trial_res = _residuals(trial, f, idx, target, ridge)
            trial_cost = float(trial_res @ trial_res)
            if trial_cost < cost:
                theta, res, cost, lam, improved = trial, trial_res, trial_cost, max(lam / 3, 1e-7), True
                break
            lam *= 4
        if not improved or previous - cost < 1e-7 * previous:
            break
    return theta


LIMITS = [[PARAMETERS[n][1] for n in PARAMETER_NAMES], [PARAMETERS[n][2] for n in PARAMETER_NAMES]]
LOG_BOUNDS = np.log(np.maximum(LIMITS, 1e-300))  # a lower limit of 0 is no limit


def _within_bounds(theta: np.ndarray, free: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """theta after the step, its global terms kept inside each parameter's physical limits: a
    step past a limit would land where the clipped parameter has no gradient, and the fit would
    stay there (as a first TTFT step once left kv_link_efficiency at 5e-6)."""
    theta[free] += delta
    theta[:NP] = np.clip(theta[:NP], LOG_BOUNDS[0], LOG_BOUNDS[1])
    return theta


def fit(f: dict, idx: np.ndarray, ridge=(RIDGE, RIDGE_TTFT), theta: np.ndarray | None = None) -> np.ndarray:
    theta = _informed(initial_theta() if theta is None else theta, f, idx)
    theta = levenberg_marquardt(theta, f, idx, "tpot", ridge)
    return levenberg_marquardt(theta, f, idx, "ttft", ridge)


_DECODE_FACTOR = PARAMETER_NAMES.index("disagg_decode_factor")

# Each fitted model's aggregated TTFT factor is its runs' median log(measured / estimated)
# first token, shrunk toward 0 by n / (n + TTFT_MODEL_SHRINK): a model with few runs keeps
# little of its own. Compared on 0, 20, 50 and 200 (2026-12-04, a whole-TTFT factor applied to
# each fold's predictions): 20 was best by pairing (24.3% against 24.4% unshrunk) and 0.15 and
# 0.3 points behind no shrinkage by GPU and by campaign; kept for the models with few runs.
TTFT_MODEL_SHRINK = 20.0


def model_factors(theta: np.ndarray, f: dict, idx: np.ndarray) -> dict[str, float]:
    """model id -> factor on its aggregated TTFT estimate (Calibration.ttft_model_factor), from
    the aggregated runs among idx that queue for no memory (the factor leaves the queue's wait
    alone), predicted at theta; 4 significant digits, as the calibration file holds them."""
    agg = idx[f["kind"][idx] == 0]
    agg = agg[f["agg"]["queue"][f["local"][agg]] == 0] if len(agg) else agg
    if not len(agg):
        return {}
    _, ttft = predict(theta, f, agg)
    residual = np.log(f["measured_ttft"][agg] / ttft)
    ids = f["model_id"][agg]
    out = {}
    for model_id in sorted(set(ids)):
        own = residual[ids == model_id]
        out[str(model_id)] = _r(np.exp(np.median(own) * len(own) / (len(own) + TTFT_MODEL_SHRINK)))
    return out


def _informed(theta: np.ndarray, f: dict, idx: np.ndarray) -> np.ndarray:
    """The start of a fit on rows idx. A parameter none of its runs informs keeps its start:
    without a disaggregated run whose TPOT is fitted, disagg_decode_factor (global, each backend's
    and each family's term) starts, and stays, at 1, an aggregated step, not at START's guess."""
    if ((f["kind"][idx] == 1) & f["tpot_fitted"][idx]).any():
        return theta
    theta = theta.copy()
    theta[_DECODE_FACTOR::NP] = 0.0
    return theta


def fit_with_batches(mapped: list) -> tuple[np.ndarray, dict]:
    """Fit, then refit with each disaggregated row's decode batch from the fit before (the
    loop's n depends on the calibrated rates), DISAGG_ITERATIONS times."""
    f = features(mapped)
    theta = fit(f, np.arange(len(f["rows"])))
    for _ in range(DISAGG_ITERATIONS):
        f = features(mapped, decode_batches(theta, f))
        theta = fit(f, np.arange(len(f["rows"])), theta=theta)
    return theta, f


def _errors(est: np.ndarray, meas: np.ndarray) -> dict:
    e = np.abs(est / meas - 1.0)
    if not len(e):
        return {"median_abs_error": 0.0, "p90_abs_error": 0.0, "rows": 0}
    return {"median_abs_error": _r(np.median(e)), "p90_abs_error": _r(np.percentile(e, 90)), "rows": len(e)}


def _r(x: float, digits: int = 4) -> float:
    return float(f"{float(x):.{digits}g}")


# The folds: what a new run differs in from the split (README "Error on runs it never saw").
FOLDS = {
    "model family": lambda r: model_family(r.model),
    "GPU": lambda r: r.hardware,
    "campaign": lambda r: r.campaign,
    "(model, GPU, backend) pairing": lambda r: (r.model, r.hardware, r.backend),
}
# Each kind of scenario the estimate answers takes its range from the fold that imitates it.
RANGE_FOLDS = {"pairing": "(model, GPU, backend) pairing", "new_gpu": "GPU", "new_model": "model family"}


def held_out(f: dict, key, ridge=(RIDGE, RIDGE_TTFT)) -> tuple:
    """Refit without each group and predict it: the error on groups never seen. Each refit starts
    from the initial parameters, as the whole fit does: started from the whole fit's optimum, a
    refit kept part of what the held-out group taught it (the GPU fold's disaggregated TTFT read
    44.2% warm, 48.6% cold). The disaggregated runs' decode batches are the whole fit's
    (fit_with_batches); scripts/validate_held_out.py refits those too."""
    labels = np.array([str(key(r)) for r in f["rows"]])
    tpot, ttft = np.empty(len(labels)), np.empty(len(labels))
    for label in sorted(set(labels)):
        test, train = np.flatnonzero(labels == label), np.flatnonzero(labels != label)
        theta = fit(f, train, ridge)
        tpot[test], ttft[test] = predict(theta, f, test, factors=model_factors(theta, f, train))
    return _report(f, tpot, ttft), tpot, ttft


# Nested folds choose the ridge among these (the shipped RIDGE and a decade either side) by the
# other groups' grouped score alone. The pairing fold is not nested: its 30 groups would cost
# 30 x 3 x 29 refits.
RIDGE_GRID = (100.0, 1000.0, 10000.0)
NESTED_FOLDS = ("GPU", "model family", "campaign")


def _score(f: dict, idx: np.ndarray, tpot: np.ndarray, ttft: np.ndarray) -> float:
    """An inner fold's score: the TPOT (on the runs it is fitted on) and the TTFT median absolute
    error, averaged."""
    fitted = f["tpot_fitted"][idx]
    e_tpot = np.median(np.abs(tpot[fitted] / f["measured_tpot"][idx][fitted] - 1.0))
    return float(e_tpot + np.median(np.abs(ttft / f["measured_ttft"][idx] - 1.0))) / 2.0


def inner_score(f: dict, labels: np.ndarray, train: np.ndarray, ridge: float) -> float:
    """The grouped held-out score of one ridge on the rows `train` (a mask): each of their groups
    refitted without and predicted in turn."""
    idx = np.flatnonzero(train)
    tpot, ttft = np.empty(len(labels)), np.empty(len(labels))
    for label in sorted(set(labels[idx])):
        test, inner = np.flatnonzero(train & (labels == label)), np.flatnonzero(train & (labels != label))
        theta = fit(f, inner, (ridge, ridge))
        tpot[test], ttft[test] = predict(theta, f, test, factors=model_factors(theta, f, inner))
    return _score(f, idx, tpot[idx], ttft[idx])


def nested_held_out(f: dict, key, grid=RIDGE_GRID) -> tuple[dict, dict]:
    """held_out with the ridge chosen inside: for each group, the ridge of `grid` with the best
    inner_score over the other groups, then a refit at it predicts the group. The group held out
    never takes part in choosing the ridge that predicts it. (report, ridge chosen per group)"""
    labels = np.array([str(key(r)) for r in f["rows"]])
    tpot, ttft = np.empty(len(labels)), np.empty(len(labels))
    chosen = {}
    for label in sorted(set(labels)):
        train, test = labels != label, np.flatnonzero(labels == label)
        scores = [inner_score(f, labels, train, ridge) for ridge in grid]
        chosen[label] = grid[int(np.argmin(scores))]
        theta = fit(f, np.flatnonzero(train), (chosen[label], chosen[label]))
        tpot[test], ttft[test] = predict(theta, f, test, factors=model_factors(theta, f, np.flatnonzero(train)))
    return _report(f, tpot, ttft), chosen


def _error_cells(e: dict) -> str:
    """A report's table cells: aggregated TPOT median and p90, TTFT median; disaggregated TPOT
    and TTFT medians."""
    agg, dis = e["aggregated"], e["disaggregated"]
    cells = (
        agg["tpot"]["median_abs_error"], agg["tpot"]["p90_abs_error"], agg["ttft"]["median_abs_error"],
        dis["tpot"]["median_abs_error"], dis["ttft"]["median_abs_error"],
    )  # fmt: skip
    return " | ".join(f"{c:.1%}" for c in cells)


def nested_table(paths: list[Path]) -> str:
    """The nested folds' errors and chosen ridges (README "Error on runs it never saw")."""
    mapped, _ = mapped_rows(paths)
    _, f = fit_with_batches(mapped)
    lines = [
        "| held out, ridge chosen inside | groups | ridges chosen | agg TPOT median | agg TPOT p90 "
        "| agg TTFT median | disagg TPOT median | disagg TTFT median |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name in NESTED_FOLDS:
        e, chosen = nested_held_out(f, FOLDS[name])
        ridges = ", ".join(f"{r:g}" for r in chosen.values())
        lines.append(f"| each {name} | {len(chosen)} | {ridges} | {_error_cells(e)} |")
    return "\n".join(lines)


def _report(f: dict, tpot: np.ndarray, ttft: np.ndarray) -> dict:
    """Errors by mode. TPOT is scored on the runs it is fitted on (a disaggregated run without its
    worker counts answers for one decode worker, not its own deployment), and apart on those
    without, "disaggregated_workers_not_recorded"."""
    fitted, kind = f["tpot_fitted"], f["kind"]
    modes = {
        "all": (fitted, kind >= 0),
        "aggregated": (fitted & (kind == 0), kind == 0),
        "disaggregated": (fitted & (kind == 1), kind == 1),
        "disaggregated_workers_not_recorded": (~fitted, ~fitted),
    }
    return {
        name: {"tpot": _errors(tpot[on], f["measured_tpot"][on]), "ttft": _errors(ttft[sel], f["measured_ttft"][sel])}
        for name, (on, sel) in modes.items()
    }


# A mode's range measured on fewer held-out groups than this says too little of how a new group
# strays: held out by model family, the disaggregated runs are two families, and without DeepSeek
# the 41 runs of gpt-oss-120b set a disaggregated TPOT range of 0.65-0.81x that held 14% of
# DeepSeek's runs (2026-12-06, the folds then started at the whole fit). Such a range is widened
# to cover the same kind's aggregated one, measured on every family and GPU (a disaggregated
# decode step is an aggregated one without the prefill chunk).
MIN_RANGE_GROUPS = 3
# A new GPU or model family strays as a whole: its runs share one offset from the estimate. The
# pooled p10-p90 of a fold's runs weighs its few groups (aggregated runs are on 3 GPUs,
# disaggregated on 5; 8 families) by their runs, and held out it holds too few of a new group's
# runs: set by the other GPUs' runs, it held 59% of a GPU's disaggregated TPOTs (76% aggregated;
# 2026-12-06, fit_serving's folds). The ranges of these kinds span the groups' offsets instead
# (`_group_spread`); the pairing fold's groups are many (16 a mode), and its pooled range held
# 74-78%.
GROUP_SPREAD_KINDS = ("new_gpu", "new_model")


def _group_spread(ratio: np.ndarray, groups: np.ndarray) -> list[float]:
    """From the lowest group's median plus the within-group p10 to the highest group's median
    plus the within-group p90 (log measured / estimate), never inside the pooled p10-p90."""
    log = np.log(ratio)
    medians = {g: np.median(log[groups == g]) for g in set(groups)}
    within = log - np.array([medians[g] for g in groups])
    low = min(medians.values()) + np.percentile(within, 10)
    high = max(medians.values()) + np.percentile(within, 90)
    return _hull([_r(np.exp(low)), _r(np.exp(high))], _pooled(ratio))


def _pooled(ratio: np.ndarray) -> list[float]:
    return [_r(np.percentile(ratio, q)) for q in (10, 90)]


def _band(ratio: np.ndarray, groups: np.ndarray, kind: str) -> list[float]:
    return _group_spread(ratio, groups) if kind in GROUP_SPREAD_KINDS else _pooled(ratio)


def ranges(f: dict, held: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict:
    """p10-p90 of measured / estimate, per kind of scenario (from the held-out residuals of the
    fold that imitates it) and per mode (aggregated, disaggregated); a new GPU's or model's
    spanning its fold's groups (GROUP_SPREAD_KINDS), and a mode whose rows lie in fewer than
    MIN_RANGE_GROUPS of the fold's groups widened to its aggregated range."""
    out = {}
    for kind, (tpot, ttft) in held.items():
        groups = np.array([str(FOLDS[RANGE_FOLDS[kind]](r)) for r in f["rows"]])
        for mode, sel in (("aggregated", f["kind"] == 0), ("disaggregated", f["kind"] == 1)):
            if not sel.any():
                continue
            on = sel & f["tpot_fitted"]  # a user states the deployment: its TPOT range from runs that did
            on = on if on.any() else sel
            band = {
                "tpot": _band(f["measured_tpot"][on] / tpot[on], groups[on], kind),
                "ttft": _band(f["measured_ttft"][sel] / ttft[sel], groups[sel], kind),
                "spans_groups": kind in GROUP_SPREAD_KINDS,
                "rows": int(sel.sum()),
                "tpot_rows": int(on.sum()),
                "groups": len(set(groups[sel])),
            }
            aggregated = out.get(f"{kind}/aggregated")
            band["widened_to_aggregated"] = aggregated is not None and band["groups"] < MIN_RANGE_GROUPS
            if band["widened_to_aggregated"]:
                band.update({metric: _hull(band[metric], aggregated[metric]) for metric in ("tpot", "ttft")})
            out[f"{kind}/{mode}"] = band
    return out


def _hull(a: list[float], b: list[float]) -> list[float]:
    return [min(a[0], b[0]), max(a[1], b[1])]


def _factors(theta: np.ndarray, start: int, names: tuple[str, ...]) -> dict:
    return {
        name: {p: _r(np.exp(theta[start + k * NP + j]), 6) for j, p in enumerate(PARAMETER_NAMES)}
        for k, name in enumerate(names)
    }


def _span(values) -> list[int]:
    values = list(values)
    return [min(values), max(values)] if values else [0, 0]


def _fitted_on(paths: list[Path], f: dict, skipped: list) -> dict:
    return {
        "files": [
            {"file": "published/serving/" + p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in paths
        ],
        "rows": len(f["rows"]),
        "rows_not_mapped": len(skipped) + len(f["skipped"]),
        "rows_faster_than_bound": len(f["faster_than_bound"]),
        "models": sorted({resolve_model(r.model).id for r in f["rows"]}),
        "model_families": sorted({model_family(r.model) for r in f["rows"]}),
        "hardware": sorted({r.hardware for r in f["rows"]}),
        # the prompt and output lengths the fitted runs span: an answer outside them says so
        "input_tokens": _span(r.scenario.input_tokens for r in f["rows"]),
        "output_tokens": _span(r.scenario.output_tokens for r in f["rows"]),
        # what each mode's runs hold: an estimate's range kind is read among its own mode's
        "by_mode": {
            mode: {
                "models": sorted({resolve_model(r.model).id for r in f["rows"] if (r.disagg is None) == aggregated}),
                "hardware": sorted({r.hardware for r in f["rows"] if (r.disagg is None) == aggregated}),
            }
            for mode, aggregated in (("aggregated", True), ("disaggregated", False))
        },
    }


def calibration(paths: list[Path]) -> dict:
    mapped, skipped = mapped_rows(paths)
    return calibration_of(mapped, skipped, paths)


def calibration_of(mapped: list, skipped: list, paths: list[Path]) -> dict:
    """The calibration fitted on these mapped runs (scripts/validate_held_out.py fits it on all
    but a group); `paths` and `skipped` are what it records as fitted on."""
    theta, f = fit_with_batches(mapped)
    idx = np.arange(len(f["rows"]))
    factors = model_factors(theta, f, idx)
    tpot, ttft = predict(theta, f, idx, factors=factors)
    held, reports = {}, {}
    for kind, fold in RANGE_FOLDS.items():
        reports[fold], t, q = held_out(f, FOLDS[fold])
        held[kind] = (t, q)
    fitted = {
        "global": {p: _r(np.exp(theta[j]), 6) for j, p in enumerate(PARAMETER_NAMES)},
        "backend_factors": _factors(theta, NP, BACKENDS),
        "family_factors": _factors(theta, NP * (1 + len(BACKENDS)), tuple(FAMILIES)),
        "ttft_model_factors": factors,
    }
    fitted_on, fitted_ranges = _fitted_on(paths, f, skipped), ranges(f, held)
    answered_with = {**fitted, "families": FAMILIES, "fitted_on": fitted_on, "ranges": fitted_ranges}
    fitted["measured_mtp_acceptance"] = mtp_acceptance(mapped, answered_with)
    # The ranges are in the digest too: a file whose ranges differ answers differently.
    digest = hashlib.sha256(repr(sorted({**fitted, "ranges": fitted_ranges}.items())).encode()).hexdigest()[:10]
    return {
        "version": VERSION,
        "id": f"serving-v{VERSION}-{digest}",  # changes whenever a fitted value does
        "fitted_on": fitted_on,
        "method": "scripts/fit_serving.py: log p = global + backend + family, ridge "
        f"{RIDGE} (TPOT parameters) and {RIDGE_TTFT} (TTFT ones) on the last two, "
        f"soft-L1 (scale {SOFT_L1_SCALE}) of log(estimate / measured), Cauchy (scale "
        f"{DISAGG_TTFT_CAUCHY_SCALE}) on the disaggregated TTFT, the TPOT of disaggregated runs without "
        "worker counts not fitted, "
        "Levenberg-Marquardt; TPOT parameters first, then the TTFT ones; aggregated and disaggregated "
        f"runs together, the disaggregated decode batches refitted {DISAGG_ITERATIONS} times; then each "
        f"model's aggregated TTFT factor, its median residual shrunk by n / (n + {TTFT_MODEL_SHRINK:g}); then the "
        "acceptance of the MTP recipes' draft tokens, the median TPOT miss of their runs least on a 0.01 grid",
        "families": FAMILIES,
        **fitted,
        "ranges": fitted_ranges,
        "fit_statistics": {
            "in_sample": _report(f, tpot, ttft),
            **{f"held_out_{fold}": report for fold, report in reports.items()},
            "bound_above_measured_tpot_rows": len(f["faster_than_bound"]),
        },
    }


MTP_ACCEPTANCE_GRID = np.round(np.arange(0.30, 0.951, 0.01), 2)


def mtp_acceptance(mapped: list, fitted: dict) -> float | None:
    """The acceptance rate of a measured run's MTP draft tokens (each accepted independently:
    engine.serving.speculative), fitted on the disaggregated runs whose published recipe names
    its draft length, after every other parameter: the rate on MTP_ACCEPTANCE_GRID whose
    estimates' median |log(estimate / measured)| TPOT is least, with the rest of the calibration
    as fitted. The runs record no acceptance, and the benchmark's prompts are random tokens, not
    text: DeepSeek-V3's 85-90% on its own text (technical report, 2024, 5.4.3) would not hold."""
    runs = [(m, model, hw) for m, model, hw in mapped if m.mtp_draft_tokens is not None]
    if not runs:
        return None

    def miss(a: float) -> float:
        cal = Calibration(f"fit-{a}", {**fitted, "measured_mtp_acceptance": float(a)})
        errors = []
        for m, model, hw in runs:
            try:
                answer = disaggregated_estimate(model, hw, measured_deployment(m, cal), cal)
            except EngineInputError:
                continue
            errors.append(abs(np.log(answer["estimate"]["tpot_s"] / m.tpot_s)))
        return float(np.median(errors))

    return float(min(MTP_ACCEPTANCE_GRID, key=miss))


# How close a fresh fit's parameters must come to the file's. The fit's linear algebra runs on
# the CPU's BLAS kernels (OpenBLAS picks them per processor), whose sums round differently in the
# last bits, and Levenberg-Marquardt's path carries that: on two x86 CPUs the parameters agree to
# 0.8% (prefill_queue_factor, near its lower limit), most to 0.1%.
CHECK_RELATIVE = 0.02
# Written from the data and the code, equal on every CPU
CHECK_EXACT = ("version", "fitted_on", "method", "families")


def check(shipped: dict, fresh: dict) -> list[str]:
    """What keeps the shipped calibration from being the fresh fit's: an exact field that differs,
    a parameter off by more than CHECK_RELATIVE, or a range or fit statistic that one holds and
    the other does not. The held-out figures' values are not compared: each fold refits on part
    of the data, and the model-family fold's disaggregated TTFT (DeepSeek held out, 39 runs of
    gpt-oss-120b left to inform it) lands on different minima on different CPUs."""
    out = [f"{key}: differs" for key in CHECK_EXACT if shipped.get(key) != fresh.get(key)]
    for section in ("global", "backend_factors", "family_factors", "ttft_model_factors"):
        for path, a, b in _leaves(shipped.get(section), fresh.get(section), section):
            if a is None or b is None or abs(a - b) > CHECK_RELATIVE * abs(b):
                out.append(f"{path}: {a} in the file, {b} fitted")
    a, b = shipped.get("measured_mtp_acceptance"), fresh.get("measured_mtp_acceptance")
    if (a is None) != (b is None) or (a is not None and abs(a - b) > 0.015):  # a grid step, and its rounding
        out.append(f"measured_mtp_acceptance: {a} in the file, {b} fitted")
    for section in ("ranges", "fit_statistics"):
        shape = [path for path, a, b in _leaves(shipped.get(section), fresh.get(section), section) if None in (a, b)]
        out += [f"{path}: in one of the two only" for path in shape]
    return out


def _leaves(a, b, path: str):
    """(path, a's value, b's value) of every leaf of a and b (None where one lacks it)."""
    if isinstance(a, dict) or isinstance(b, dict):
        a, b = a if isinstance(a, dict) else {}, b if isinstance(b, dict) else {}
        for key in sorted(set(a) | set(b), key=str):
            yield from _leaves(a.get(key), b.get(key), f"{path}/{key}")
    elif isinstance(a, list) or isinstance(b, list):
        a, b = a if isinstance(a, list) else [], b if isinstance(b, list) else []
        for i in range(max(len(a), len(b))):
            yield from _leaves(a[i] if i < len(a) else None, b[i] if i < len(b) else None, f"{path}[{i}]")
    else:
        yield path, a, b


def held_out_table(paths: list[Path]) -> str:
    """Median and p90 TPOT and median TTFT error, in sample and under each grouped fold, for
    the aggregated and the disaggregated runs (the README's table)."""
    mapped, _ = mapped_rows(paths)
    theta, f = fit_with_batches(mapped)
    idx = np.arange(len(f["rows"]))
    rows = [("in sample", "-", _report(f, *predict(theta, f, idx, factors=model_factors(theta, f, idx))))]
    for name, key in FOLDS.items():
        report, _, _ = held_out(f, key)
        groups = len({str(key(r)) for r in f["rows"]})
        rows.append((f"each {name} held out", str(groups), report))
    lines = [
        "| held out | groups | agg TPOT median | agg TPOT p90 | agg TTFT median | disagg TPOT median "
        "| disagg TTFT median |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, groups, e in rows:
        lines.append(f"| {name} | {groups} | {_error_cells(e)} |")
    return "\n".join(lines)


def _seen_elsewhere(rows, group: np.ndarray, *keys) -> np.ndarray:
    """Whether another group holds a run with the same values of `keys` as each row."""
    values = [np.array([str(getattr(r, k)) for r in rows]) for k in keys]
    return np.array(
        [
            bool((np.logical_and.reduce([v == v[i] for v in values]) & (group != group[i])).any())
            for i in range(len(rows))
        ]
    )


def campaign_partitions(paths: list[Path]) -> str:
    """The campaign fold's aggregated runs split as the held-out goals are: those whose model and
    GPU another campaign fitted (a known pairing measured anew) and those whose model none did (a
    new model to the fit: no model factor, no family data from that campaign). Each with its TPOT
    and TTFT error and how often the measurement falls inside the shipped range of its kind,
    which the campaign fold did not set (the ranges come from the pairing, GPU and family folds)."""
    mapped, _ = mapped_rows(paths)
    _, f = fit_with_batches(mapped)
    _, tpot, ttft = held_out(f, FOLDS["campaign"])
    rows = f["rows"]
    campaign = np.array([str(r.campaign) for r in rows])
    shipped = yaml.safe_load(CALIBRATION_PATH.read_text(encoding="utf-8"))["ranges"]
    aggregated = (f["kind"] == 0) & f["tpot_fitted"]
    parts = {
        "model and GPU fitted by another campaign": ("pairing", _seen_elsewhere(rows, campaign, "model", "hardware")),
        "model fitted by no other campaign": ("new_model", ~_seen_elsewhere(rows, campaign, "model")),
    }
    lines = [
        "| campaign fold, aggregated | runs | TPOT median | TPOT p90 | TTFT median | TPOT in range | TTFT in range |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (kind, part) in parts.items():
        on = aggregated & part
        e_tpot, e_ttft = _errors(tpot[on], f["measured_tpot"][on]), _errors(ttft[on], f["measured_ttft"][on])
        band = shipped[f"{kind}/aggregated"]
        inside = [
            np.mean((ratio >= lo) & (ratio <= hi))
            for ratio, (lo, hi) in (
                (f["measured_tpot"][on] / tpot[on], band["tpot"]),
                (f["measured_ttft"][on] / ttft[on], band["ttft"]),
            )
        ]
        lines.append(
            f"| {name} ({kind} range) | {int(on.sum())} | {100 * e_tpot['median_abs_error']:.1f}% "
            f"| {100 * e_tpot['p90_abs_error']:.1f}% | {100 * e_ttft['median_abs_error']:.1f}% "
            f"| {100 * inside[0]:.1f}% | {100 * inside[1]:.1f}% |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data", nargs="+", default=[str(TRAINING_CSV), str(DISAGG_CSV)], help="measured runs (aiconfigurator CSV)"
    )
    ap.add_argument("--out", default=str(CALIBRATION_PATH), help="calibration file to write")
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    ap.add_argument("--held-out", action="store_true", help="print the grouped held-out table; write nothing")
    ap.add_argument("--nested", action="store_true", help="print the nested folds' table (ridge chosen inside)")
    ap.add_argument(
        "--campaign-partitions", action="store_true", help="print the campaign fold split by what another fitted"
    )
    args = ap.parse_args(argv)
    paths = [Path(p) for p in args.data]
    if args.campaign_partitions:
        print(campaign_partitions(paths))
        return 0
    if args.held_out or args.nested:
        print(held_out_table(paths) if args.held_out else nested_table(paths))
        return 0
    fresh = calibration(paths)
    text = "# Written by scripts/fit_serving.py; do not edit by hand (rerun the script).\n" + yaml.safe_dump(
        fresh, sort_keys=False, width=110
    )
    if args.check:
        differences = check(yaml.safe_load(Path(args.out).read_text(encoding="utf-8")), fresh)
        for line in differences:
            print(line)
        print(f"{args.out} differs from a fresh fit" if differences else "calibration file reproduced")
        return 1 if differences else 0
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
