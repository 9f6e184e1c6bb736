"""The engine's view of every measured run, and the estimate's formulas over them (the fit's
model): scripts/fit_serving.py fits the calibration with these.

A row is aggregated (one server instance: engine.serving.estimate) or disaggregated (prefill
and decode workers: engine.serving.disagg). For each, the steps the estimate needs are built
once at the ideal roofs (engine.serving.step); the calibrated parameters then scale them with
the engine's own formulas (calibrated_step_s, ttft_estimate_s, closed_loop), one set of
parameters per row (global x backend x accelerator family), so a fit evaluates every row at
once. A disaggregated row's decode batch follows the loop (Little's law); the features hold
its decode step at the batch the previous fit gave (`decode_running`), and the fit iterates.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.serving.calibration import PARAMETER_NAMES, PARAMETERS
from engine.serving.capacity import capacity
from engine.serving.disagg import busy_forward_s, closed_loop, deployment_loop, sides
from engine.serving.estimate import bound_ttft_s, calibrated_step_s, queue_steps, slots_ahead, ttft_estimate_s
from engine.serving.mapping import read_rows, resolve_model, row_scenario
from engine.serving.step import decode_steps, serving_steps

BACKENDS = ("trtllm", "vllm", "sglang")
FAMILIES = {"hopper": ["h100-sxm5", "h100-pcie", "h200-sxm"], "blackwell": ["b200", "b300", "gb200", "gb300"]}
MODEL_FAMILIES = ("llama", "qwen", "gpt-oss", "deepseek", "kimi", "minimax", "glm")
# The parameters that shape the first token from the steps (ttft_estimate_s, closed_loop's
# prefill and link); calibrated_step_s reads only the others, STEP_PARAMETERS.
TTFT_PARAMETERS = (
    "ttft_prefill_factor",
    "ttft_wait_steps",
    "ttft_burst_share",
    "disagg_prefill_factor",
    "prefill_busy_factor",
    "kv_link_efficiency",
    "kv_transfer_latency_s",
    "prefill_queue_factor",
    "disagg_burst_share",
)
STEP_PARAMETERS = tuple(n for n in PARAMETER_NAMES if n not in TTFT_PARAMETERS)


def model_family(model_path: str) -> str:
    """A model's family (what a new model differs in): the first known family name in its id."""
    low = model_path.lower()
    return next((name for name in MODEL_FAMILIES if name in low), low)


def _family_index(hardware: str) -> int:
    for i, ids in enumerate(FAMILIES.values()):
        if hardware in ids:
            return i
    return -1


def _pad(steps: list, n: int) -> dict:
    """StepCost rows (R = 1 each, different op counts) as one zero-padded block."""
    out = {k: np.zeros((len(steps), n)) for k in ("weight", "compute_s", "memory_s", "expert_factor")}
    out["category"] = np.zeros((len(steps), n), dtype=np.intp)  # codes index the efficiency tables
    for i, s in enumerate(steps):
        m = len(s.category)
        out["category"][i, :m] = s.category
        for k in ("weight", "compute_s", "memory_s", "expert_factor"):
            out[k][i, :m] = getattr(s, k)[0]
    out["split_whole"] = np.array([s.experts_split_whole for s in steps])
    out["link_s"] = np.array([s.link_est_s[0] for s in steps])
    for key, attr in (("messages", "messages"), ("exchanges", "exchanges"), ("layers", "layers")):
        out[key] = np.array([getattr(s, attr) for s in steps], dtype=float)
    out["requests"] = np.array([s.requests[0] for s in steps], dtype=float)
    out["scale_out"] = np.array([s.scale_out_messages for s in steps], dtype=float)
    return out


def _block(named: dict[str, list]) -> dict:
    width = max((len(s.category) for steps in named.values() for s in steps), default=1)
    return {name: _pad(steps, width) for name, steps in named.items()}


def _aggregated(m, model, hw) -> dict:
    m.scenario.check_layout(model.is_moe, max(layer.mlp.num_experts for layer, _ in model.layer_groups))
    cap = capacity(model, hw, m.scenario)
    steps = serving_steps(model, hw, m.scenario, cap.running_batch)
    queue, bound_tpot = queue_steps(m.scenario, cap.running_batch), float(steps.tpot.at_roofs_s()[0])
    ahead = slots_ahead(m.scenario.concurrency, cap.running_batch)
    return {
        "steps": {"tpot": steps.tpot, "decode": steps.decode, "prefill": steps.prefill, "chunk": steps.chunk},
        "queue": queue,
        "running": float(cap.running_batch),
        "wave_steps": float(steps.wave_steps[0]),
        "steps_per_token": float(steps.steps_per_token[0]),
        "prompts_per_step": float(steps.prompts_per_step[0]),
        "output_tokens": float(m.scenario.output_tokens),
        "bound_tpot": bound_tpot,
        "slots_ahead": ahead,
        "bound_ttft": bound_ttft_s(steps.prefill, queue, ahead, bound_tpot),
    }


def _disaggregated(m, model, hw, n_prev: float | None) -> dict:
    d = sides(model, hw, hw, m.disagg)
    c = np.array([float(m.scenario.concurrency)])
    d["n0"] = np.minimum(c / d["decode_workers"], d["cap"])
    d["prefill_one_s"], d["prefill_full_s"] = (float(t) for t in d["prefill_steps"].at_roofs_s())
    bound = deployment_loop(c, d, None)
    n = float(d["n0"][0]) if n_prev is None else n_prev
    sc_d = d["sc_d"]
    served = c[0] / (m.ttft_s + (m.scenario.output_tokens - 1) * m.tpot_s)  # the measured requests/s
    capacity = min(bound[k][0] for k in ("prefill_capacity_rps", "decode_capacity_at_cap_rps", "link_capacity_rps"))
    return {
        "bound_rps": float(capacity),
        "measured_rps": float(served),
        "steps": {
            "tpot": decode_steps(model, hw, sc_d, n),
            "decode_n0": decode_steps(model, hw, sc_d, float(d["n0"][0])),
            "decode_cap": decode_steps(model, hw, sc_d, d["cap"]),
            "prefill_one": d["prefill_steps"].row(0),
            "prefill_full": d["prefill_steps"].row(1),
        },
        "scalars": {
            "concurrency": float(c[0]),
            "output_tokens": d["output_tokens"],
            "decode_workers": d["decode_workers"],
            "cap": d["cap"],
            "prefill_slots": d["prefill_slots"],
            "prefill_batch_full": d["prefill_full"],
            "prefill_one_roofs": d["prefill_one_s"],
            "prefill_full_roofs": d["prefill_full_s"],
            "bandwidth": d["bandwidth"],
            "link_bytes": d["link_bytes"],
            "link_rps_per_bw": d["link_rps_per_bw"],
        },
        "bound_tpot": float(bound["tpot_s"][0]),
    }


def mapped_rows(paths) -> tuple[list, list]:
    """(rows mapped with their model and accelerator, (id, why) of rows that are not)."""
    kept, skipped = [], []
    for path in paths:
        for row in read_rows(path):
            try:
                m = row_scenario(row)
                kept.append((m, resolve_model(m.model), get_accelerator(m.hardware)))
            except EngineInputError as exc:
                skipped.append((row.get("id", ""), str(exc)))
    return kept, skipped


def features(mapped: list, n_prev: dict[str, float] | None = None) -> dict:
    """The fit's arrays. Rows that do not fit in memory are skipped (counted); rows measured
    faster than the bound (speculative decoding, or a mis-recorded run: no serving of the
    scenario can beat the roofs) are kept apart, not fitted, and listed."""
    n_prev = n_prev or {}
    rows, bounds, agg, dis, skipped, faster, model_ids = [], [], [], [], [], [], []
    for m, model, hw in mapped:
        try:
            entry = _aggregated(m, model, hw) if m.disagg is None else _disaggregated(m, model, hw, n_prev.get(m.id))
        except EngineInputError as exc:
            skipped.append((m.id, str(exc)))
            continue
        if entry["bound_tpot"] > m.tpot_s:
            faster.append((m.id, "tpot", entry["bound_tpot"], m.tpot_s))
            continue
        if entry.get("measured_rps", 0.0) > entry.get("bound_rps", np.inf):
            faster.append((m.id, "requests_per_s", entry["bound_rps"], entry["measured_rps"]))
            continue
        rows.append(m)
        model_ids.append(model.id)
        bounds.append(entry["bound_tpot"])
        (agg if m.disagg is None else dis).append(entry)
    kind = np.array([0 if m.disagg is None else 1 for m in rows])
    local = np.zeros(len(rows), dtype=int)
    local[kind == 0] = np.arange(int((kind == 0).sum()))
    local[kind == 1] = np.arange(int((kind == 1).sum()))
    return {
        "rows": rows,
        "kind": kind,
        "local": local,
        "agg": _agg_block(agg),
        "dis": _dis_block(dis),
        "bound_tpot": np.array(bounds),
        "model_id": np.array(model_ids, dtype=object),
        "backend": np.array([BACKENDS.index(m.backend) if m.backend in BACKENDS else -1 for m in rows]),
        "family": np.array([_family_index(m.hardware) for m in rows]),
        "measured_tpot": np.array([m.tpot_s for m in rows]),
        "measured_ttft": np.array([m.ttft_s for m in rows]),
        # A disaggregated run whose worker counts are neither recorded nor its published recipe's
        # is answered as one worker per side, so its decode batch per worker, which sets its
        # TPOT, is not known; a recipe that may decode with MTP leaves its decoding unknown.
        # Neither TPOT is fitted (their first tokens are: at low load a first token does not hang
        # on the worker counts). An MTP recipe's runs fit the drafts' acceptance alone, after the
        # rest (fit_serving.mtp_acceptance).
        "tpot_fitted": np.array([m.one_token_a_step for m in rows], dtype=bool),
        "skipped": skipped,
        "faster_than_bound": faster,
    }


def _agg_block(entries: list) -> dict:
    if not entries:
        return {}
    block = _block({name: [e["steps"][name] for e in entries] for name in ("tpot", "decode", "prefill", "chunk")})
    keys = ("queue", "running", "wave_steps", "steps_per_token", "prompts_per_step", "output_tokens", "slots_ahead")
    for key in (*keys, "bound_tpot", "bound_ttft"):
        block[key] = np.array([e[key] for e in entries])
    return block


def _dis_block(entries: list) -> dict:
    if not entries:
        return {}
    names = ("tpot", "decode_n0", "decode_cap", "prefill_one", "prefill_full")
    block = _block({name: [e["steps"][name] for e in entries] for name in names})
    for key in entries[0]["scalars"]:
        block[key] = np.array([e["scalars"][key] for e in entries])
    return block


# ---- parameters: theta = [global(NP), backend(3 x NP), family(2 x NP)] in log space ---------
NP = len(PARAMETER_NAMES)
N_THETA = NP * (1 + len(BACKENDS) + len(FAMILIES))


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


# A block's arrays at the rows a fit evaluates: the same rows at every trial of a fit, so each
# (block, rows) is gathered once; 16 entries of at most ~4 MB (every aggregated row's padded ops).
_GATHERED: OrderedDict = OrderedDict()
_GATHERED_ENTRIES = 16


def _remembered(cache: OrderedDict, key: tuple, owner, build, entries: int):
    """cache[key], built on a miss. The key starts with id(owner) and the entry holds owner, so
    that id cannot be reused by another object while the entry lives; the oldest entry goes."""
    entry = cache.get(key)
    if entry is not None:
        cache.move_to_end(key)
        return entry[1]
    cache[key] = (owner, build())
    if len(cache) > entries:
        cache.popitem(last=False)
    return cache[key][1]


def _gathered(a: dict, rows: np.ndarray) -> dict:
    def gather() -> dict:
        return {k: v[rows] for k, v in a.items()}

    return _remembered(_GATHERED, (id(a), rows.tobytes()), a, gather, _GATHERED_ENTRIES)


def _step(block: dict, which: str, rows: np.ndarray, p: dict) -> np.ndarray:
    a = _gathered(block[which], rows)
    return calibrated_step_s(
        a["category"], a["weight"], a["compute_s"], a["memory_s"], a["link_s"], a["messages"], a["exchanges"],
        a["layers"], p, a["requests"], a["scale_out"], a["expert_factor"], a["split_whole"],
    )  # fmt: skip


# Calibrated steps of the last few (features, rows, step parameters): a fit moving only the
# TTFT parameters asks for the same steps at every trial. Keyed by the bytes of theta's step
# columns, so a hit is the very numbers a fresh evaluation gives.
_STEP_MEMO: OrderedDict = OrderedDict()
_STEP_MEMO_ENTRIES = 8
_STEP_COLUMNS = np.array([PARAMETER_NAMES.index(n) for n in STEP_PARAMETERS])


def _step_memo(theta: np.ndarray, f: dict, idx: np.ndarray) -> dict:
    key = (id(f), idx.tobytes(), theta.reshape(-1, NP)[:, _STEP_COLUMNS].tobytes())
    return _remembered(_STEP_MEMO, key, f, dict, _STEP_MEMO_ENTRIES)


def _steps(block: dict, rows: np.ndarray, p: dict, memo: dict | None = None):
    """which -> that step of `rows` at p, each evaluated once per memo."""
    memo = {} if memo is None else memo

    def step(which: str) -> np.ndarray:
        if which not in memo:
            memo[which] = _step(block, which, rows, p)
        return memo[which]

    return step


def _predict_agg(block: dict, step, rows: np.ndarray, p: dict, ttft: bool = True, model_factor=1.0) -> tuple:
    tpot = np.maximum(step("tpot"), block["bound_tpot"][rows])  # as the engine: never under the bound
    if not ttft:
        return tpot, np.full(len(rows), np.nan)
    wave = block["wave_steps"][rows] * step("chunk")
    running = block["running"][rows]
    per_token, prefill = block["steps_per_token"][rows], step("prefill")
    queued = block["slots_ahead"][rows] * prefill
    est = ttft_estimate_s(
        prefill, tpot, block["queue"][rows], wave, p, running, model_factor, per_token, queued,
        decode_s=step("decode"), prompts_per_step=block["prompts_per_step"][rows],
        output_tokens=block["output_tokens"][rows],
    )  # fmt: skip
    return tpot, np.maximum(est, block["bound_ttft"][rows])  # the engine never answers below the bound


def predict_disagg(block: dict, rows: np.ndarray, p: dict, step=None) -> dict:
    """engine.serving.disagg's loop with each row's parameters (its decode step at the batch the
    previous fit gave)."""
    step = step or _steps(block, rows, p)
    k = p["disagg_decode_factor"]
    tpot_n = step("tpot") * k
    bw = block["bandwidth"][rows] * p["kv_link_efficiency"]
    factor = p["prefill_busy_factor"]  # loop_answer makes the client's prefill of it
    prefill = (
        block["prefill_slots"][rows],
        busy_forward_s(step("prefill_one"), factor, block["prefill_one_roofs"][rows]),
        busy_forward_s(step("prefill_full"), factor, block["prefill_full_roofs"][rows]),
        block["prefill_batch_full"][rows],
    )
    return closed_loop(
        block["concurrency"][rows], block["output_tokens"][rows], block["decode_workers"][rows], block["cap"][rows],
        prefill, block["link_bytes"][rows] / bw, block["link_rps_per_bw"][rows] * bw,
        step("decode_n0") * k, step("decode_cap") * k, lambda n: tpot_n, p,
    )  # fmt: skip


def predict(
    theta: np.ndarray, f: dict, idx: np.ndarray, ttft: bool = True, factors: dict | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Estimated TPOT and TTFT of rows idx (both kinds) under theta and the models' aggregated
    TTFT factors (model id -> factor, fit_serving.model_factors; none: 1); without `ttft`, the
    aggregated rows' TTFT is left NaN (a TPOT fit never reads it)."""
    tpot, ttft_s = np.empty(len(idx)), np.empty(len(idx))
    p_all = row_parameters(theta, f, idx)
    memo = _step_memo(theta, f, idx)
    kinds = f["kind"][idx]
    for kind in (0, 1):
        sel = np.flatnonzero(kinds == kind)
        if not len(sel):
            continue
        p = {k: v[sel] for k, v in p_all.items()}
        rows = f["local"][idx[sel]]
        block = f["agg"] if kind == 0 else f["dis"]
        step = _steps(block, rows, p, memo.setdefault(kind, {}))
        if kind == 0:
            model_factor = np.array([(factors or {}).get(m, 1.0) for m in f["model_id"][idx[sel]]])
            tpot[sel], ttft_s[sel] = _predict_agg(block, step, rows, p, ttft, model_factor)
        else:
            loop = predict_disagg(block, rows, p, step)
            tpot[sel], ttft_s[sel] = loop["tpot_s"], loop["ttft_s"]
    return tpot, ttft_s


def decode_batches(theta: np.ndarray, f: dict) -> dict[str, float]:
    """Each disaggregated row's decode batch under theta (the next features' n_prev)."""
    idx = np.flatnonzero(f["kind"] == 1)
    if not len(idx):
        return {}
    p = row_parameters(theta, f, idx)
    loop = predict_disagg(f["dis"], f["local"][idx], p)
    return {f["rows"][i].id: float(n) for i, n in zip(idx, loop["decode_running"], strict=True)}
