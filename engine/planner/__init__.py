"""Deployment planner: the best way to serve a model on N GPUs under a latency target.

`plan` enumerates the candidate space (engine.planner.space), scores every candidate with the
serving estimate, vectorised (engine.planner.score), keeps those whose estimate (or the
pessimistic end of its range) meets TTFT <= ttft_s and TPOT <= tpot_s, and returns the Pareto
frontier of output tokens/s/GPU against tokens/s/user per mode and accelerator, the best
candidate (most tokens/s/GPU, or least $/Mtok when every accelerator has a price), the top N
deployments (each at its best concurrency) with their launch commands (engine.planner.launch),
and a verdict. Pure: no web imports.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..model import ModelConfig
from ..model_catalog import hf_repo, native_precision
from ..request import check_price
from ..serving.calibration import Calibration, load_calibration
from ..serving.estimate import context_window_warnings, length_warnings, roof_warnings
from ..serving.scenario import BACKEND_VENDORS, BACKENDS, MAX_TOKENS
from . import frontier as fr
from .launch import aggregated_commands, disaggregated_commands
from .score import base_scenario, fits_any, score_aggregated, score_disaggregated
from .space import MAX_BUDGET, PRECISIONS, instance_layouts, precisions_for

MODES = ("aggregated", "disaggregated")
TARGETS = ("estimate", "pessimistic")
MAX_TOP = 100
MAX_HARDWARE = 8


@dataclass(frozen=True)
class PlanRequest:
    gpus: int
    input_tokens: int = 1024
    output_tokens: int = 1024
    ttft_s: float | None = None
    tpot_s: float | None = None
    backends: tuple[str, ...] = BACKENDS
    modes: tuple[str, ...] = MODES
    precisions: tuple[str, ...] | None = None
    gpu_hour_price: dict = field(default_factory=dict)
    target: str = "estimate"
    top: int = 10
    memory_utilization: float | None = None

    def check(self) -> None:
        _int("gpus", self.gpus, 1, MAX_BUDGET)
        _int("input_tokens", self.input_tokens, 1, MAX_TOKENS)
        _int("output_tokens", self.output_tokens, 1, MAX_TOKENS)
        _int("top", self.top, 1, MAX_TOP)
        for name in ("ttft_s", "tpot_s"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 3600):
                raise EngineInputError(
                    name, f"{v!r} is not a time in (0, 3600] s", code="number_range",
                    params={"value": repr(v)[:40], "low": 0, "high": 3600},
                )  # fmt: skip
        _choices("backends", self.backends, BACKENDS)
        _choices("modes", self.modes, MODES)
        if self.target not in TARGETS:
            raise EngineInputError(
                "target", f"{self.target!r} is not a target", ", ".join(TARGETS), code="plan_target",
                params={"value": repr(self.target)[:40], "allowed": ", ".join(TARGETS)},
            )  # fmt: skip


def _int(name: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            name, f"{value!r} is not an integer in [{low}, {high}]", code="int_range",
            params={"value": repr(value)[:40], "low": low, "high": high},
        )  # fmt: skip


def _choices(name: str, values, allowed) -> None:
    if not values or any(v not in allowed for v in values):
        bad = next((v for v in values if v not in allowed), "")
        raise EngineInputError(
            name, f"{bad!r} is not one of them" if values else "none given", ", ".join(allowed),
            code="plan_choice", params={"value": repr(bad)[:40], "allowed": ", ".join(allowed)},
        )  # fmt: skip


def plan(model: ModelConfig, hardware: list[Accelerator], req: PlanRequest, calibration: Calibration | None = None):
    """Search every candidate (module docstring); returns the answer's dict (the API's shape)."""
    return answer(search(model, hardware, req, calibration), req)


@dataclass(frozen=True)
class Search:
    """Every candidate scored, before any target: the columns `answer` filters. Only the
    request's search fields (SEARCH_FIELDS) shape it; the targets, the target mode, the prices
    and `top` are the answer's, so one search answers any of them (the planner page keeps one
    per search and re-filters it as a target slider moves)."""

    model: ModelConfig
    hardware: tuple[Accelerator, ...]
    request: PlanRequest
    calibration: Calibration
    cols: dict = field(repr=False)
    dropped: int
    seconds: float
    warnings: tuple[str, ...] = ()
    # every candidate in rank order, by ranking (tokens/s/GPU, or $/Mtok at given prices): an
    # answer keeps those meeting its target, in that order, with no sort of its own
    orders: dict = field(default_factory=dict, repr=False, compare=False)

    def order(self, cols: dict, by_cost: bool, prices: dict) -> np.ndarray:
        key = tuple(sorted(prices.items())) if by_cost else None
        if key not in self.orders:
            self.orders[key] = fr.ranking(cols, np.ones(len(cols["tpot_s"]), dtype=bool), by_cost)
        return self.orders[key]


# What a search depends on; the rest of a PlanRequest only filters and ranks its candidates.
SEARCH_FIELDS = ("gpus", "input_tokens", "output_tokens", "backends", "modes", "precisions", "memory_utilization")


def search(model: ModelConfig, hardware: list[Accelerator], req: PlanRequest, calibration: Calibration | None = None):
    """Check the request and score every candidate (the slow part of `plan`)."""
    started = time.perf_counter()
    _check(hardware, req)
    _check_size(model, hardware, req)
    cal = calibration or load_calibration()
    cols, dropped = _score_all(model, hardware, req, cal)
    if len(cols.get("tpot_s", [])):
        cols["tokens_per_s_per_user"] = 1.0 / cols["tpot_s"]
    said = tuple(search_warnings(model, hardware, req, cal))
    return Search(model, tuple(hardware), req, cal, cols, dropped, time.perf_counter() - started, said)


def search_warnings(model: ModelConfig, hardware: list[Accelerator], req: PlanRequest, cal: Calibration) -> list:
    """What every candidate's numbers assume that the request did not say, as `/serving` warns
    of it: a request longer than the model's window, lengths outside the fitted runs, and each
    precision searched on a card without its tensor roof (fp4 on Hopper, asked for)."""
    out = context_window_warnings(model, req.input_tokens, req.output_tokens)
    out += length_warnings(cal, req.input_tokens, req.output_tokens)
    for hw in hardware:
        for precision in precisions_for(hw, list(req.precisions or []), native_precision(model.id)):
            weight, compute, _ = PRECISIONS[precision]
            out += roof_warnings(hw, compute, weight)
    return list(dict.fromkeys(out))


def _check(hardware: list[Accelerator], req: PlanRequest) -> None:
    req.check()
    if not 1 <= len(hardware) <= MAX_HARDWARE:
        raise EngineInputError(
            "hardware", f"{len(hardware)} accelerators", f"1 to {MAX_HARDWARE}", code="list_length",
            params={"n": MAX_HARDWARE},
        )  # fmt: skip
    ids = {hw.id for hw in hardware}
    for hw_id, price in req.gpu_hour_price.items():
        if hw_id not in ids:
            raise EngineInputError(
                "gpu_hour_price", f"{hw_id!r} is not one of the accelerators searched", ", ".join(sorted(ids)),
                code="plan_price_hardware", params={"value": repr(hw_id)[:64], "allowed": ", ".join(sorted(ids))},
            )  # fmt: skip
        check_price(price)


# The most (accelerator, precision, backend, instance layout) combinations one search scores: each
# costs about 5 ms of one core with its concurrency grid and its disaggregated pairings
# (scripts/bench_engine.py: DeepSeek-R1 on 72 GB200 is 294 of them, 0.7 s). 1,024 GPUs of six
# accelerators would be 2,096 (15 s), and a few of those at once would hold every engine slot.
MAX_LAYOUT_COMBINATIONS = 800


def _check_size(model, hardware: list[Accelerator], req: PlanRequest) -> None:
    """Refuse a search whose cost it has not earned, before any is spent; and one that cannot
    find anything because no asked backend runs on an asked accelerator or a disaggregated-only
    search has one GPU."""
    if req.modes == ("disaggregated",) and req.gpus < 2:
        raise EngineInputError(
            "gpus", f"{req.gpus} GPU for a disaggregated deployment", "2 or more, one per side, or the aggregated mode",
            code="plan_disagg_gpus", params={"n": req.gpus},
        )  # fmt: skip
    total = 0
    for hw in hardware:
        backends = backends_for(hw, req.backends)
        if not backends:
            runs = ", ".join(backends_for(hw, BACKENDS))
            raise EngineInputError(
                "backends", f"none of {', '.join(req.backends)} runs on {hw.id} ({hw.vendor})", runs,
                code="plan_backend_vendor", params={"hardware": hw.id, "allowed": runs},
            )  # fmt: skip
        precisions = precisions_for(hw, list(req.precisions or []), native_precision(model.id))
        total += len(instance_layouts(model, hw, req.gpus)) * len(precisions) * len(backends)
    if total > MAX_LAYOUT_COMBINATIONS:
        raise EngineInputError(
            "hardware", f"the search would score {total:,} layouts (accelerators x precisions x backends x instance "
            f"layouts on {req.gpus} GPUs)", f"at most {MAX_LAYOUT_COMBINATIONS}: fewer accelerators, backends, "
            "precisions or GPUs", code="plan_too_large", params={"n": total, "high": MAX_LAYOUT_COMBINATIONS},
        )  # fmt: skip


def answer(found: Search, req: PlanRequest, frontier: bool = True) -> dict:
    """A search's answer for `req`'s targets, target mode, prices and top N (pure numpy over
    the search's columns: milliseconds). `req` must ask for the same search (SEARCH_FIELDS).
    Without `frontier`, the answer's `frontier` is left empty: it does not depend on the
    targets, and a caller that re-filters for a new target already has it."""
    started = time.perf_counter()
    if any(getattr(req, f) != getattr(found.request, f) for f in SEARCH_FIELDS):
        raise ValueError("answer(): the request asks for another search than the one given")
    _check(list(found.hardware), req)
    model, hardware = found.model, found.hardware
    cols = dict(found.cols)  # the search's columns stay as scored: prices are this answer's
    n = len(cols.get("tpot_s", []))
    if n:
        cols["usd_per_million_tokens"] = fr.usd_per_million_tokens(cols, req.gpu_hour_price)
    pessimistic = req.target == "pessimistic"
    tpot_s = applied_tpot_target(req)
    ok = fr.meets(cols, req.ttft_s, tpot_s, pessimistic) if n else np.zeros(0, dtype=bool)
    ok_est = fr.meets(cols, req.ttft_s, tpot_s, False) if n else ok
    ok_pes = fr.meets(cols, req.ttft_s, tpot_s, True) if n else ok
    by_cost = bool(req.gpu_hour_price) and all(hw.id in req.gpu_hour_price for hw in hardware)
    # the search's ranking of every candidate, kept to those meeting the target: what
    # fr.ranking(cols, ok, by_cost) gives (a stable sort keeps ties in row order either way)
    ranked = found.order(cols, by_cost, req.gpu_hour_price) if n else np.zeros(0, dtype=int)
    ranked = ranked[ok[ranked]]
    summary = _Summarise(model, cols, ok_est, ok_pes, req)
    wanted = MODES if frontier else ()
    front = {mode: _frontier(cols, mode, hardware, summary) for mode in wanted if n and mode in req.modes}
    # the top N deployments, each at its best-ranked concurrency: N rows of one layout at
    # neighbouring concurrencies would tell a user nothing the best does not
    distinct = fr.first_of_each(cols["deployment"], ranked, req.top) if n else ranked
    top = [summary(i, launch=True) for i in distinct]
    best = top[0] if top else None
    out = {
        "model": model.id,
        "hardware": [hw.id for hw in hardware],
        "gpus": req.gpus,
        "target": req.target,
        "targets": {"ttft_s": req.ttft_s, "tpot_s": req.tpot_s},
        # with one output token no token follows the first: there is no TPOT to hold to a target
        "tpot_target_applied": req.tpot_s is not None and tpot_s is not None,
        "ranked_by": "usd_per_million_tokens" if by_cost else "output_tokens_per_s_per_gpu",
        # prices given for some accelerators only: no $/Mtok ranking across them, and the answer says so
        "unpriced": [hw.id for hw in hardware if hw.id not in req.gpu_hour_price] if req.gpu_hour_price else [],
        "candidates": {"evaluated": int(n), "dropped_memory": int(found.dropped), "meeting_target": int(ok.sum())},
        "frontier": front,
        "best": best,
        "top": top,
        "best_by_mode": _best_by(cols, ranked, "mode", MODES, summary),
        "best_by_hardware": _best_by(cols, ranked, "hardware", [hw.id for hw in hardware], summary),
        "calibration": found.calibration.id,
        "modes_searched": searched_modes(req),
        "warnings": list(found.warnings),
    }
    out["reason"] = None if best else _reason(cols, req, pessimistic, n, found)
    out["verdict"] = verdict(out)
    out["seconds"] = found.seconds + (time.perf_counter() - started)
    return out


def searched_modes(req: PlanRequest) -> list[str]:
    """The modes asked that the budget allows: a disaggregated deployment takes two GPUs at
    least, one a side (a 1-GPU search asked for both is aggregated only, and says nothing of
    the other mode)."""
    return [m for m in req.modes if m != "disaggregated" or req.gpus >= 2]


def applied_tpot_target(req: PlanRequest) -> float | None:
    """The TPOT target the candidates are held to: none with one output token, where no
    token follows the first (a candidate's TPOT is then its decode step spread over nothing a
    user waits for: seconds for an aggregated instance whose step carries the prompts)."""
    return req.tpot_s if req.output_tokens > 1 else None


def backends_for(hw, backends) -> list[str]:
    """The backends among `backends` that run on hw's maker (BACKEND_VENDORS), each once."""
    return [b for b in dict.fromkeys(backends) if hw.vendor in BACKEND_VENDORS.get(b, ())]


def _score_all(model, hardware, req: PlanRequest, cal) -> tuple[dict, int]:
    parts, dropped = [], 0
    for hw in hardware:
        layouts = instance_layouts(model, hw, req.gpus)
        for precision in precisions_for(hw, list(req.precisions or []), native_precision(model.id)):
            for backend in backends_for(hw, req.backends):
                base = base_scenario(precision, backend, req.input_tokens, req.output_tokens, req.memory_utilization)
                if "aggregated" in req.modes:
                    cols, d = score_aggregated(model, hw, layouts, req.gpus, base, cal)
                    parts.append(cols)
                    dropped += d
                if "disaggregated" in req.modes and req.gpus >= 2:
                    cols, d = score_disaggregated(model, hw, layouts, req.gpus, base, cal)
                    parts.append(cols)
                    dropped += d
    parts = [p for p in parts if p and len(p["tpot_s"])]
    if not parts:
        return {}, dropped
    cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    part = np.concatenate([np.full(len(p["tpot_s"]), k) for k, p in enumerate(parts)])
    cols["deployment"] = _deployments(part, cols.pop("block"))
    return cols, dropped


def _deployments(part: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Each row's deployment, numbered over the search: a part (accelerator, precision,
    backend, mode) numbers its deployments (a layout and its replicas, or an xPyD unit), whose
    rows, one per concurrency, are contiguous."""
    start = np.ones(len(block), dtype=bool)
    start[1:] = (block[1:] != block[:-1]) | (part[1:] != part[:-1])
    return np.cumsum(start) - 1


def _frontier(cols, mode: str, hardware, summary) -> list[dict]:
    out = []
    for hw in hardware:
        rows = np.flatnonzero((cols["mode"] == mode) & (cols["hardware"] == hw.id))
        for i in fr.pareto(cols["tokens_per_s_per_gpu"], cols["tokens_per_s_per_user"], rows):
            out.append(summary(i))
    return out


def _best_by(cols, ranked, key: str, names, summary) -> dict:
    """The first-ranked row of each value of `key` (mode, accelerator) among `names`, in rank
    order: a mask per name (a few names, and the ranking can hold every candidate: no sort of
    its strings on a target's move)."""
    if not len(ranked):
        return {}
    keys = cols[key][ranked]
    firsts = []
    for name in names:
        hits = np.flatnonzero(keys == name)
        if len(hits):
            firsts.append((hits[0], name))
    return {name: summary(ranked[j]) for j, name in sorted(firsts)}


class _Summarise:
    """Row i of the columns as the answer's candidate summary (with its serving request)."""

    def __init__(self, model, cols, ok_est, ok_pes, req: PlanRequest):
        self.model, self.cols, self.ok_est, self.ok_pes, self.req = model, cols, ok_est, ok_pes, req

    def __call__(self, i: int, launch: bool = False) -> dict:
        c = self.cols
        mode = str(c["mode"][i])
        out = {
            "mode": mode,
            "hardware": str(c["hardware"][i]),
            "hardware_name": str(c["hardware_name"][i]),
            "backend": str(c["backend"][i]),
            "precision": str(c["precision"][i]),
            "gpus": int(c["gpus"][i]),
            "concurrency": int(c["concurrency"][i]),
            "running_batch": int(c["running_batch"][i]),
            "estimate": {
                "ttft_s": float(c["ttft_s"][i]),
                "tpot_s": float(c["tpot_s"][i]),
                "ttft_s_range": [float(c["ttft_low_s"][i]), float(c["ttft_high_s"][i])],
                "tpot_s_range": [float(c["tpot_low_s"][i]), float(c["tpot_high_s"][i])],
                "output_tokens_per_s_per_gpu": float(c["tokens_per_s_per_gpu"][i]),
                "output_tokens_per_s_per_gpu_range": [
                    float(c["tokens_per_s_per_gpu_low"][i]),
                    float(c["tokens_per_s_per_gpu_high"][i]),
                ],
                "tokens_per_s_per_user": float(c["tokens_per_s_per_user"][i]),
            },
            "bound": {"ttft_s": float(c["bound_ttft_s"][i]), "tpot_s": float(c["bound_tpot_s"][i])},
            "usd_per_million_tokens": _finite(c["usd_per_million_tokens"][i]),
            "memory_headroom": float(c["memory_headroom"][i]),
            "limited_by": str(c["limited_by"][i]),
            "meets_target": {"estimate": bool(self.ok_est[i]), "pessimistic": bool(self.ok_pes[i])},
        }
        out |= self._layout(i, mode)
        out["serving_request"] = self._request(i, mode)
        if launch:
            out["launch"] = self._launch(i, mode)
        return out

    def _layout(self, i: int, mode: str) -> dict:
        c = self.cols
        if mode == "aggregated":
            lay = c["layout"][i]
            return {
                "layout": _layout_dict(lay),
                "layout_words": lay.words(),
                "replicas": int(c["replicas"][i]),
                "instance_concurrency": int(c["instance_concurrency"][i]),
            }
        pre, dec = c["prefill_layout"][i], c["decode_layout"][i]
        x, y = int(c["prefill_workers"][i]), int(c["decode_workers"][i])
        return {
            "prefill": _layout_dict(pre) | {"workers": x},
            "decode": _layout_dict(dec) | {"workers": y},
            "layout_words": f"{x}P ({pre.words()}) + {y}D ({dec.words()})",
            "xpyd": f"{x}P{y}D",
            # replicas of that unit, each with its own router and clients (space.disagg_units)
            "replicas": int(c["replicas"][i]),
            "instance_concurrency": int(c["instance_concurrency"][i]),
        }

    def _request(self, i: int, mode: str) -> dict:
        """The POST /api/v1/serving body that reproduces this candidate's numbers."""
        c, req = self.cols, self.req
        weight, compute, kv = PRECISIONS[str(c["precision"][i])]
        body = {
            "model": self.model.id,
            "hardware": str(c["hardware"][i]),
            "backend": str(c["backend"][i]),
            "input_tokens": req.input_tokens,
            "output_tokens": req.output_tokens,
            "weight_dtype": weight,
            "compute_dtype": compute,
            "kv_dtype": kv,
            "memory_utilization": req.memory_utilization,
        }
        if mode == "aggregated":
            return body | _layout_dict(c["layout"][i]) | {"concurrency": int(c["instance_concurrency"][i])}
        pre, dec = c["prefill_layout"][i], c["decode_layout"][i]
        return body | {
            "concurrency": int(c["instance_concurrency"][i]),
            "disaggregated": {
                "prefill": _layout_dict(pre) | {"workers": int(c["prefill_workers"][i]), "batch": 1},
                "decode": _layout_dict(dec) | {"workers": int(c["decode_workers"][i])},
                "kv_link": "auto",
            },
        }

    def _launch(self, i: int, mode: str) -> list[dict]:
        c, req = self.cols, self.req
        backend = str(c["backend"][i])
        kv = PRECISIONS[str(c["precision"][i])][2]
        repo = hf_repo(self.model.id)
        weights = (str(c["precision"][i]), native_precision(self.model.id))
        if mode == "aggregated":
            lay = c["layout"][i]
            per_instance = int(c["instance_concurrency"][i])
            return aggregated_commands(
                backend, repo, lay, int(c["replicas"][i]), per_instance, kv, req.memory_utilization, 8192, weights
            )
        y = int(c["decode_workers"][i])
        per_decode = max(1, -(-int(c["instance_concurrency"][i]) // y))
        return disaggregated_commands(
            backend, repo, c["prefill_layout"][i], int(c["prefill_workers"][i]), c["decode_layout"][i], y,
            per_decode, kv, req.memory_utilization, req.input_tokens + 1500, weights, int(c["replicas"][i]),
        )  # fmt: skip


def _layout_dict(lay) -> dict:
    return {
        "tensor_parallel": lay.tensor_parallel,
        "attention_data_parallel": lay.attention_data_parallel,
        "moe_tensor_parallel": lay.moe_tensor_parallel,
        "expert_parallel": lay.expert_parallel,
    }


def _finite(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def _reason(cols, req: PlanRequest, pessimistic: bool, n: int, found: Search) -> dict:
    """Why there is no best, and what would have to change: the nearest targets met."""
    if not n:
        return _nothing_fits(req, found)
    tpot_s = applied_tpot_target(req)
    near = fr.nearest_target(cols, req.ttft_s, tpot_s, pessimistic)
    words = []
    both = tpot_s is not None and req.ttft_s is not None
    if tpot_s is not None and near["tpot_s_at_asked_ttft"] is not None:
        at = " at the asked TTFT" if both else ""
        words.append(f"a TPOT target of {ms_words(near['tpot_s_at_asked_ttft'])} ms or more{at}")
    if req.ttft_s is not None and near["ttft_s_at_asked_tpot"] is not None:
        at = " at the asked TPOT" if both else ""
        words.append(f"a TTFT target of {ms_words(near['ttft_s_at_asked_tpot'])} ms or more{at}")
    if not words:  # as the page says it (plan_reason_neither)
        words.append(
            f"more or faster GPUs, or another precision (neither target is met alone: the fastest TPOT is "
            f"{ms_words(near['tpot_s_best'])} ms and the fastest TTFT {ms_words(near['ttft_s_best'])} ms on "
            f"{_gpus_words(req.gpus)})"
        )
    return {"code": "plan_no_candidate", "nearest": near, "words": "Nothing meets the target; it would take " + (
        " or ".join(words))}  # fmt: skip


LOWEST = ("fp4", "int4")  # the 4-bit weights the planner searches, the least memory it knows


def would_fit(req: PlanRequest, found: Search) -> dict[str, bool]:
    """When nothing fits: whether any instance would at the largest budget (more GPUs), at 4-bit
    weights (a lower precision), or only with both, on any accelerator and backend searched."""

    def fits(gpus: int, precisions) -> bool:
        return any(
            fits_any(found.model, hw, instance_layouts(found.model, hw, gpus),
                     base_scenario(p, backend, req.input_tokens, req.output_tokens, req.memory_utilization))
            for hw in found.hardware
            for p in precisions
            for backend in backends_for(hw, req.backends)
        )  # fmt: skip

    asked = [p for hw in found.hardware for p in precisions_for(hw, list(req.precisions or []),
                                                                 native_precision(found.model.id))]  # fmt: skip
    lower = [p for p in LOWEST if p not in asked]
    more = req.gpus < MAX_BUDGET and fits(MAX_BUDGET, dict.fromkeys(asked))
    smaller = bool(lower) and fits(req.gpus, lower)
    both = not (more or smaller) and bool(lower) and req.gpus < MAX_BUDGET and fits(MAX_BUDGET, lower)
    return {"more_gpus": more, "lower_precision": smaller, "both": both}


def _nothing_fits(req: PlanRequest, found: Search) -> dict:
    fit = would_fit(req, found)
    ways = [w for w, ok in (("more GPUs", fit["more_gpus"]), ("a lower precision", fit["lower_precision"]),
                            ("more GPUs and a lower precision", fit["both"])) if ok]  # fmt: skip
    if req.memory_utilization is not None:  # the rule the user tightened may be all it takes
        ways.append(f"a memory_utilization above {req.memory_utilization:g}")
    words = f"No candidate fits in memory on {_gpus_words(req.gpus)}"
    if ways:
        words += f": it would take {', or '.join(ways)}"
    else:
        words += (
            ", nor would one at any budget or precision the planner searches: no instance of these cards holds "
            f"{found.model.id}'s weights and a request's KV cache (pipeline parallelism, which would, is not "
            "searched)"
        )
    return {"code": "plan_nothing_fits", "nearest": None, "would_fit": fit, "words": words}


def _gpus_words(gpus: int) -> str:
    return f"{gpus:,} GPU" + ("s" if gpus > 1 else "")


def ms_words(seconds: float) -> str:
    """A time in ms as the verdict writes it: whole ms from 100 up (4,997), else 3 significant
    digits (28.5), never 5e+03."""
    return rate_words(seconds * 1e3)


def rate_words(tokens_per_s: float) -> str:
    """A rate as the verdict writes it: whole tokens from 100 up (4,318), else 3 significant
    digits (0.973), so a slow deployment does not read as 1 or 0."""
    return f"{tokens_per_s:,.0f}" if tokens_per_s >= 100 else f"{tokens_per_s:.3g}"


def usd_words(usd: float) -> str:
    """A price as the verdict writes it: cents from $0.10 up (0.37), else 3 significant digits
    (0.00412), so a tiny price does not read as $0.00."""
    return f"{usd:,.2f}" if usd >= 0.1 else f"{usd:.3g}"


def deployment_words(candidate: dict) -> str:
    """The candidate's layout, with how many replicas of it spend the GPUs when more than one."""
    n = candidate["replicas"]
    return candidate["layout_words"] if n == 1 else f"{n:,} x ({candidate['layout_words']})"


def verdict(answer: dict) -> dict:
    """One line from the answer's fields: the best, and how the other mode compares."""
    best = answer["best"]
    if best is None:
        return {"text": answer["reason"]["words"], "ratio_other_mode": None, "other_mode_within_range": None}
    modes = answer["best_by_mode"]
    other = "disaggregated" if best["mode"] == "aggregated" else "aggregated"
    # compared on what the answer is ranked by; a price so small its $/Mtok is 0 compares nothing
    by_cost = answer["ranked_by"] == "usd_per_million_tokens" and best["usd_per_million_tokens"] > 0.0
    key = "usd_per_million_tokens" if by_cost else None
    rate = best["estimate"]["output_tokens_per_s_per_gpu"]
    low, high = best["estimate"]["output_tokens_per_s_per_gpu_range"]
    ratio, tie = _other_mode(best, modes.get(other), key)
    text = (
        f"On {answer['gpus']:,} x {best['hardware_name']}, the best is {best['mode']}, {deployment_words(best)} at "
        f"concurrency {best['concurrency']:,}: {rate_words(rate)} tok/s/GPU "
        f"(range {rate_words(low)}-{rate_words(high)})"
    )
    if best["usd_per_million_tokens"] is not None:
        text += f", ${usd_words(best['usd_per_million_tokens'])}/Mtok"
    text += "."
    if ratio is not None:
        compared = f"costs {ratio:.2f}x as much per Mtok" if key else f"reaches {ratio:.2f}x of that"
        text += f" The best {other} deployment {compared}"
        text += ", inside its range: within the estimate's error the two modes tie." if tie else "."
    elif other in answer.get("modes_searched", MODES):
        targets = answer["targets"]
        asked = targets["ttft_s"] is not None or targets["tpot_s"] is not None
        text += f" No {other} deployment {'meets the target' if asked else 'fits'}."
    if answer["targets"]["tpot_s"] is not None and not answer["tpot_target_applied"]:
        text += " With one output token no token follows the first: the TPOT target is not applied."
    if answer.get("unpriced"):
        text += f" No price for {', '.join(answer['unpriced'])}: ranked by tok/s/GPU, not $/Mtok."
    return {
        "text": text,
        "ratio_other_mode": ratio,
        "other_mode_within_range": tie,
        "ranked_by": key or "output_tokens_per_s_per_gpu",
    }


def _other_mode(best: dict, other: dict | None, key: str | None) -> tuple[float | None, bool | None]:
    """(the other mode's best as a ratio of the best, on what the answer is ranked by: tokens/s
    per GPU, or $/Mtok when ranked by cost; whether it lies inside the best's own range there:
    the estimate cannot tell them apart)."""
    if other is None:
        return None, None
    rate = best["estimate"]["output_tokens_per_s_per_gpu"]
    low, high = best["estimate"]["output_tokens_per_s_per_gpu_range"]
    if key:  # $/Mtok scales as 1 / tokens/s on the best's own GPU: its range is cost x rate / [high, low]
        cost, other_cost = best[key], other[key]
        return other_cost / cost, cost * rate / high <= other_cost <= cost * rate / low
    other_rate = other["estimate"]["output_tokens_per_s_per_gpu"]
    return other_rate / rate, low <= other_rate <= high
