"""Fit engine/calibration/serving.yaml to the measured serving runs in published/serving/.

    python scripts/fit_serving.py            # writes engine/calibration/serving.yaml
    python scripts/fit_serving.py --check    # exit 1 if the file differs from a fresh fit
    python scripts/fit_serving.py --out F    # write elsewhere
    python scripts/fit_serving.py --held-out # print the held-out error table, write nothing

Every row is mapped to a scenario as published/serving/README.md says, turned into the
bound's parts by the engine (engine.serving.step), and the calibration parameters p are fitted
so that the engine's own estimate formulas (engine.serving.estimate.calibrated_step_s and
ttft_estimate_s) come close to the measured TPOT and TTFT. Each parameter is
log p = global + backend + family, with a ridge penalty on the backend and family terms (an
effect has to be seen in several groups of runs to move them). The loss is a soft-L1 of the log
ratio estimate / measured, minimised by Levenberg-Marquardt (numpy only, deterministic).
Leave-one-model-out and leave-one-GPU-out refits give the honest error on unseen models and
GPUs; their held-out residuals also give each pair's p10-p90 range.
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

from engine.errors import EngineInputError  # noqa: E402
from engine.hardware import get_accelerator  # noqa: E402
from engine.serving.calibration import CALIBRATION_PATH, PARAMETER_NAMES, PARAMETERS  # noqa: E402
from engine.serving.capacity import capacity  # noqa: E402
from engine.serving.estimate import calibrated_step_s, queue_steps, ttft_estimate_s  # noqa: E402
from engine.serving.mapping import TRAINING_CSV, read_rows, resolve_model, row_scenario  # noqa: E402
from engine.serving.step import serving_steps  # noqa: E402

VERSION = 1
BACKENDS = ("trtllm", "vllm", "sglang")
FAMILIES = {"hopper": ["h100-sxm5", "h100-pcie", "h200-sxm"], "blackwell": ["b200", "b300", "gb200", "gb300"]}
TTFT_PARAMS = ("ttft_prefill_factor", "ttft_wait_steps", "ttft_burst_share")
TPOT_PARAMS = tuple(n for n in PARAMETER_NAMES if n not in TTFT_PARAMS)
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
}
# Penalty weights on each backend / family log-factor, chosen by the held-out (leave-one-model,
# -GPU, -group-out) error: 4 fitted the split better (TPOT 9%) but carried over worse (19%) than
# 1000 (10%, 13%). Kept apart for TPOT and TTFT parameters; a weaker TTFT penalty (30) also
# carried over worse.
RIDGE = 1000.0
RIDGE_TTFT = 1000.0


def _ridge(name: str) -> float:
    return RIDGE_TTFT if name in TTFT_PARAMS else RIDGE


SOFT_L1_SCALE = 0.1  # residuals (log ratio) beyond ~10% count linearly, not squared


def _family_index(hardware: str) -> int:
    for i, ids in enumerate(FAMILIES.values()):
        if hardware in ids:
            return i
    return -1


def _pad(steps: list, n: int) -> dict:
    out = {k: np.zeros((len(steps), n)) for k in ("category", "weight", "compute_s", "memory_s")}
    for i, s in enumerate(steps):
        m = len(s.category)
        out["category"][i, :m] = s.category
        for k in ("weight", "compute_s", "memory_s"):
            out[k][i, :m] = getattr(s, k)[0]
    out["link_s"] = np.array([s.link_est_s[0] for s in steps])
    out["messages"] = np.array([s.messages for s in steps], dtype=float)
    out["exchanges"] = np.array([s.exchanges for s in steps], dtype=float)
    out["layers"] = np.array([s.layers for s in steps], dtype=float)
    out["requests"] = np.array([s.requests[0] for s in steps], dtype=float)
    out["scale_out"] = np.array([s.scale_out_messages for s in steps], dtype=float)
    return out


def features(rows: list[dict]) -> dict:
    """The engine's view of each mappable row; rows it cannot map are counted, not fitted."""
    kept, tpot_steps, prefill_steps, chunk_steps, wave_steps, skipped = [], [], [], [], [], []
    for row in rows:
        try:
            m = row_scenario(row)
            model, hw = resolve_model(m.model), get_accelerator(m.hardware)
            m.scenario.check_layout(model.is_moe, max(layer.mlp.num_experts for layer, _ in model.layer_groups))
            cap = capacity(model, hw, m.scenario)
        except EngineInputError as exc:
            skipped.append((row.get("id", ""), str(exc)))
            continue
        steps = serving_steps(model, hw, m.scenario, cap.running_batch)
        kept.append((m, cap.running_batch, queue_steps(m.scenario, cap.running_batch), steps.tpot.at_roofs_s()[0]))
        tpot_steps.append(steps.tpot)
        prefill_steps.append(steps.prefill)
        chunk_steps.append(steps.chunk)
        wave_steps.append(steps.wave_steps[0])
    width = max(len(s.category) for s in tpot_steps + prefill_steps + chunk_steps)
    return {
        "rows": [k[0] for k in kept],
        "queue": np.array([k[2] for k in kept]),
        "running": np.array([k[1] for k in kept], dtype=float),
        "bound_tpot": np.array([k[3] for k in kept]),
        "tpot": _pad(tpot_steps, width),
        "prefill": _pad(prefill_steps, width),
        "chunk": _pad(chunk_steps, width),
        "wave_steps": np.array(wave_steps),
        "backend": np.array([BACKENDS.index(k[0].backend) if k[0].backend in BACKENDS else -1 for k in kept]),
        "family": np.array([_family_index(k[0].hardware) for k in kept]),
        "measured_tpot": np.array([k[0].tpot_s for k in kept]),
        "measured_ttft": np.array([k[0].ttft_s for k in kept]),
        "skipped": skipped,
    }


# ---- parameters: theta = [global(NP), backend(3 x NP), family(2 x NP)] in log space ---------
NP = len(PARAMETER_NAMES)
N_THETA = NP * (1 + len(BACKENDS) + len(FAMILIES))


def initial_theta() -> np.ndarray:
    theta = np.zeros(N_THETA)
    theta[:NP] = np.log([START[n] for n in PARAMETER_NAMES])
    return theta


def row_parameters(theta: np.ndarray, f: dict, idx: np.ndarray) -> dict:
    g = theta[:NP]
    b = theta[NP : NP * (1 + len(BACKENDS))].reshape(len(BACKENDS), NP)
    fam = theta[NP * (1 + len(BACKENDS)) :].reshape(len(FAMILIES), NP)
    log_p = np.tile(g, (len(idx), 1))
    bk, fm = f["backend"][idx], f["family"][idx]
    log_p[bk >= 0] += b[bk[bk >= 0]]
    log_p[fm >= 0] += fam[fm[fm >= 0]]
    out = {}
    for j, name in enumerate(PARAMETER_NAMES):
        _, low, high = PARAMETERS[name]
        out[name] = np.clip(np.exp(log_p[:, j]), low, high)
    return out


def predict(theta: np.ndarray, f: dict, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = row_parameters(theta, f, idx)

    def step(which: str) -> np.ndarray:
        a = f[which]
        return calibrated_step_s(
            a["category"][idx], a["weight"][idx], a["compute_s"][idx], a["memory_s"][idx],
            a["link_s"][idx], a["messages"][idx], a["exchanges"][idx], a["layers"][idx], p,
            a["requests"][idx], a["scale_out"][idx],
        )  # fmt: skip

    tpot = step("tpot")
    wave = f["wave_steps"][idx] * step("chunk")
    return tpot, ttft_estimate_s(step("prefill"), tpot, f["queue"][idx], wave, p, f["running"][idx])


def _pseudo(est: np.ndarray, meas: np.ndarray) -> np.ndarray:
    """Signed square root of the soft-L1 loss of log(est / meas): its squares sum to the loss."""
    r = np.log(est / meas) / SOFT_L1_SCALE
    return np.sign(r) * np.sqrt(2.0 * (np.sqrt(1.0 + r * r) - 1.0))


def _row_residuals(theta, f, idx, target: str) -> np.ndarray:
    tpot, ttft = predict(theta, f, idx)
    if target == "tpot":
        return _pseudo(tpot, f["measured_tpot"][idx])
    return _pseudo(ttft, f["measured_ttft"][idx])


def _residuals(theta, f, idx, target: str) -> np.ndarray:
    weights = np.tile([np.sqrt(_ridge(n)) for n in PARAMETER_NAMES], len(BACKENDS) + len(FAMILIES))
    return np.concatenate([_row_residuals(theta, f, idx, target), weights * theta[NP:]])


def _jacobian(theta, f, idx, target: str, names: tuple[str, ...], base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
                full[n_rows + (g - 1) * NP + j] = np.sqrt(_ridge(name))
            cols.append(full)
            which.append(g * NP + j)
    return np.array(cols).T, np.array(which)


def levenberg_marquardt(theta, f, idx, target: str, iterations: int = 80) -> np.ndarray:
    names = TPOT_PARAMS if target == "tpot" else TTFT_PARAMS
    lam = 1e-2
    res = _residuals(theta, f, idx, target)
    cost = float(res @ res)
    for _ in range(iterations):
        previous = cost
        jac, free = _jacobian(theta, f, idx, target, names, res[: len(idx)])
        jtj, jtr = jac.T @ jac, jac.T @ res
        improved = False
        while lam < 1e8:
            delta = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-9), -jtr)
            trial = theta.copy()
            trial[free] += delta
            trial_res = _residuals(trial, f, idx, target)
            trial_cost = float(trial_res @ trial_res)
            if trial_cost < cost:
                theta, res, cost, lam, improved = trial, trial_res, trial_cost, max(lam / 3, 1e-7), True
                break
            lam *= 4
        if not improved or previous - cost < 1e-7 * previous:
            break
    return theta


def fit(f: dict, idx: np.ndarray) -> np.ndarray:
    theta = levenberg_marquardt(initial_theta(), f, idx, "tpot")
    return levenberg_marquardt(theta, f, idx, "ttft")


def _errors(est: np.ndarray, meas: np.ndarray) -> dict:
    e = np.abs(est / meas - 1.0)
    return {"median_abs_error": _r(np.median(e)), "p90_abs_error": _r(np.percentile(e, 90)), "rows": len(e)}


def _r(x: float, digits: int = 4) -> float:
    return float(f"{float(x):.{digits}g}")


def held_out(f: dict, key) -> tuple[dict, np.ndarray, np.ndarray]:
    """Refit without each group (a model, a GPU) and predict it: the error on unseen ones."""
    labels = np.array([str(key(r)) for r in f["rows"]])
    tpot, ttft = np.empty(len(labels)), np.empty(len(labels))
    table = {}
    for label in sorted(set(labels)):
        test = np.flatnonzero(labels == label)
        theta = fit(f, np.flatnonzero(labels != label))
        tpot[test], ttft[test] = predict(theta, f, test)
        table[str(label)] = {
            "tpot": _errors(tpot[test], f["measured_tpot"][test]),
            "ttft": _errors(ttft[test], f["measured_ttft"][test]),
        }
    overall = {"tpot": _errors(tpot, f["measured_tpot"]), "ttft": _errors(ttft, f["measured_ttft"])}
    return {"overall": overall, "by_held_out": table}, tpot, ttft


def ranges(f: dict, tpot: np.ndarray, ttft: np.ndarray) -> dict:
    """p10-p90 of measured / estimate from held-out predictions, per backend/family pair, per
    family for any backend, and overall: what share of runs the range should hold."""
    fam_names, out = list(FAMILIES), {}
    keys = [
        (f"{r.backend or 'any'}/{fam_names[f['family'][i]] if f['family'][i] >= 0 else 'any'}", i)
        for i, r in enumerate(f["rows"])
    ]
    groups: dict[str, list[int]] = {"any/any": list(range(len(keys)))}
    for key, i in keys:
        groups.setdefault(key, []).append(i)
        groups.setdefault("any/" + key.split("/")[1], []).append(i)
    for key in sorted(groups):
        rows = np.array(groups[key])
        out[key] = {
            "tpot": [_r(np.percentile(f["measured_tpot"][rows] / tpot[rows], q)) for q in (10, 90)],
            "ttft": [_r(np.percentile(f["measured_ttft"][rows] / ttft[rows], q)) for q in (10, 90)],
            "rows": len(rows),
        }
    return out


def _factors(theta: np.ndarray, start: int, names: tuple[str, ...]) -> dict:
    return {
        name: {p: _r(np.exp(theta[start + k * NP + j]), 6) for j, p in enumerate(PARAMETER_NAMES)}
        for k, name in enumerate(names)
    }


def calibration(csv_path: Path) -> dict:
    f = features(read_rows(csv_path))
    idx = np.arange(len(f["rows"]))
    theta = fit(f, idx)
    tpot, ttft = predict(theta, f, idx)
    lomo, lomo_tpot, lomo_ttft = held_out(f, lambda r: r.model)
    logo, _, _ = held_out(f, lambda r: r.hardware)
    above = int(np.sum(f["bound_tpot"] > f["measured_tpot"]))
    fitted = {
        "global": {p: _r(np.exp(theta[j]), 6) for j, p in enumerate(PARAMETER_NAMES)},
        "backend_factors": _factors(theta, NP, BACKENDS),
        "family_factors": _factors(theta, NP * (1 + len(BACKENDS)), tuple(FAMILIES)),
    }
    digest = hashlib.sha256(repr(sorted(fitted.items())).encode()).hexdigest()[:10]
    return {
        "version": VERSION,
        "id": f"serving-v{VERSION}-{digest}",  # changes whenever a fitted value does
        "fitted_on": {
            "file": "published/serving/" + csv_path.name,
            "sha256": hashlib.sha256(csv_path.read_bytes()).hexdigest(),
            "rows": len(idx),
            "rows_not_mapped": len(f["skipped"]),
        },
        "method": "scripts/fit_serving.py: log p = global + backend + family, ridge "
        f"{RIDGE} (TPOT parameters) and {RIDGE_TTFT} (TTFT ones) on the last two, "
        f"soft-L1 (scale {SOFT_L1_SCALE}) of log(estimate / measured), "
        "Levenberg-Marquardt; TPOT parameters first, then the TTFT ones",
        "families": FAMILIES,
        **fitted,
        "ranges": ranges(f, lomo_tpot, lomo_ttft),
        "fit_statistics": {
            "in_sample": {"tpot": _errors(tpot, f["measured_tpot"]), "ttft": _errors(ttft, f["measured_ttft"])},
            "leave_one_model_out": lomo,
            "leave_one_gpu_out": logo,
            "bound_above_measured_tpot_rows": above,
        },
    }


# The held-out splits the README reports: the file keeps the first two (they also give the ranges).
HELD_OUT = {
    "each model": lambda r: r.model,
    "each GPU": lambda r: r.hardware,
    "each (model, GPU, backend) group": lambda r: (r.model, r.hardware, r.backend),
    "each (backend, GPU) pair": lambda r: (r.backend, r.hardware),
}


def held_out_table(csv_path: Path) -> str:
    """Median and p90 TPOT and median TTFT error, in sample and under each held-out split, as a
    Markdown table (the README's)."""
    f = features(read_rows(csv_path))
    idx = np.arange(len(f["rows"]))
    tpot, ttft = predict(fit(f, idx), f, idx)
    rows = [("in sample", {"tpot": _errors(tpot, f["measured_tpot"]), "ttft": _errors(ttft, f["measured_ttft"])})]
    for name, key in HELD_OUT.items():
        report, _, _ = held_out(f, key)
        rows.append((f"{name} ({len(report['by_held_out'])} refits)", report["overall"]))
    lines = ["| held out | TPOT median | TPOT p90 | TTFT median |", "|---|---:|---:|---:|"]
    for name, e in rows:
        tpot_e, ttft_e = e["tpot"], e["ttft"]
        cells = (tpot_e["median_abs_error"], tpot_e["p90_abs_error"], ttft_e["median_abs_error"])
        lines.append(f"| {name} | " + " | ".join(f"{c:.1%}" for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(TRAINING_CSV), help="measured runs (CSV, aiconfigurator columns)")
    ap.add_argument("--out", default=str(CALIBRATION_PATH), help="calibration file to write")
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    ap.add_argument("--held-out", action="store_true", help="print the held-out error table; write nothing")
    args = ap.parse_args(argv)
    if args.held_out:
        print(held_out_table(Path(args.data)))
        return 0
    text = "# Written by scripts/fit_serving.py; do not edit by hand (rerun the script).\n" + yaml.safe_dump(
        calibration(Path(args.data)), sort_keys=False, width=110
    )
    if args.check:
        same = Path(args.out).read_text(encoding="utf-8") == text
        print("calibration file reproduced" if same else f"{args.out} differs from a fresh fit")
        return 0 if same else 1
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
