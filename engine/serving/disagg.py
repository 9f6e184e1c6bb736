"""Disaggregated serving: prefill workers, the KV cache's transfer, decode workers.

A request's prompt is prefilled on a prefill worker, its KV cache crosses a link to a decode
worker, and its output tokens are decoded there (Zhong et al., "DistServe", OSDI 2024; Patel et
al., "Splitwise", ISCA 2024; NVIDIA Dynamo, SGLang's PD disaggregation, Mooncake). C clients
keep one request each in flight (a closed loop, as the measured benchmarks run).

Per side, the work is the aggregated engine's (engine.serving.step):
- a decode worker's step decodes its running batch at the mean context with no prompt merged
  in (`decode_steps`): the point of disaggregation, and why its TPOT is flat in the input;
- a prefill worker's forward prefills `batch` prompts on each attention-DP rank at once
  (`prefill_batch_steps`), S seconds.

The deployment (docs/disaggregated-serving.md):
- prefill capacity mu_p = prefill workers x ranks x batch / S requests/s; decode capacity
  mu_d = decode workers x n / (output x TPOT(n)) at n requests per decode worker; link capacity
  mu_l = the busiest side's NICs over the bytes each request sends or receives.
- KV transfer: the prompt's KV bytes split over the prefill rank's tensor-parallel GPUs (each
  sends its shard), received whole by each decode GPU that keeps the whole cache (an MLA
  latent) or its KV heads' share; the slower end at the link's bandwidth, plus a latency per
  transfer, and concurrent transfers share the link (processor sharing: time / (1 - rho_l), at
  the load the loop offers when its clients wait for the link too, as for the prefill queue
  below; BLIS models the same with a base latency plus bytes over a shared link).
- The closed loop: with nobody queued the cycle is D = S + transfer + output x TPOT, and the
  deployment serves X = min(C / D, mu_p, mu_l, mu_d at the memory cap) requests/s. A prompt
  waits for the prefill in progress, the M/D/1 mean wait k rho / (1 - rho), k = the fitted
  prefill_queue_factor x S / 2, at the load rho the loop offers when its clients wait too
  (closed_loop_wait: finite at any load, Little's law's backlog far above capacity); another
  side at capacity holds the excess clients (C / X - D). The benchmarks start their C clients
  together, and the fitted disagg_burst_share of the requests waits behind that first wave,
  C / (2 mu_p). The bound waits for nothing.
- Decoding requests per decode worker n = X x output x TPOT / decode workers (Little's law),
  at most the worker's memory cap: the decode batch follows the loop, one correction step from
  n0 = min(C / decode workers, cap).
- TTFT = the prefill a client sees + its queue + the transfer (+ a fixed cost); TPOT = the
  decode step at n. In the estimate the worker is busy prefill_busy_factor x the calibrated
  forward (that sets mu_p) and its client sees disagg_prefill_factor x it: the client also waits
  for its KV cache to leave the worker, the GPU does not.

Bound: the roofs and the link's peak, no latency, no queue; its TTFT is one prompt's forward
alone and its transfer (loop_answer says why the loop's wait bounds nothing). Its requests/s
is the loop's at the roofs, the most any run of the deployment can serve. Estimate: the calibrated parts
(engine.serving.calibration: the steps' fractions, kv_link_efficiency, kv_transfer_latency_s,
prefill_queue_factor, disagg_burst_share, prefill_busy_factor and disagg_prefill_factor on the
prefill, and disagg_decode_factor on the
decode step: the disaggregated runs that record their deployment decode 1.1-1.4x slower than the
aggregated model's step of the same batch, on every GPU and backend, as a step that also checks
for and receives KV transfers would). Pure; SI units.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from ..cache import ByteLRU, approx_size
from ..errors import EngineInputError
from ..hardware import Accelerator, get_accelerator
from ..memory import kv_bytes_per_sequence
from ..model import ModelConfig
from .calibration import Calibration, family_of, load_calibration
from .capacity import GIB, capacity
from .estimate import (
    calibrated_step_s,
    ensure_finite,
    fixed_time_s,
    link_time_s,
    scenario_warnings,
    speculative_block,
)
from .scenario import DisaggScenario, KvLink, ServingScenario, shard_degree
from .step import (
    SCALE_OUT_BYTES_PER_S,
    StepCost,
    decode_steps,
    prefill_batch_steps,
    scale_out_bytes_per_s,
    step_token_budget,
)

# TTFT's parts, in the order they are shown (they add up to it)
TTFT_PART_KEYS = ("prefill_s", "prefill_queue_s", "first_wave_s", "kv_transfer_s", "fixed_s")
# The estimate's parameters of the prefill side: a deployment whose decode runs on another
# accelerator takes these from the prefill accelerator's calibration.
PREFILL_SIDE_PARAMETERS = ("prefill_busy_factor", "disagg_prefill_factor", "prefill_queue_factor", "disagg_burst_share")


def kv_link(prefill_hw: Accelerator, decode_hw: Accelerator, ds: DisaggScenario) -> tuple[float, str]:
    """(bytes/s per GPU per direction, what it is) the KV cache crosses (kv_link_for)."""
    return kv_link_for(prefill_hw, decode_hw, ds.gpus, ds.kv_link.bandwidth_bytes_per_s)


def kv_link_for(prefill_hw: Accelerator, decode_hw: Accelerator, gpus: int, given: float | None = None):
    """The scale-up link when both sides are one accelerator kind whose scale-up domain holds
    the whole deployment of `gpus` (an NVL72 rack), else each GPU's scale-out NIC
    (hardware/*.yaml); a bandwidth the user gives wins."""
    if given:
        return float(given), "given"
    domain = getattr(prefill_hw, "scale_up_domain_size", None) or 0
    link = prefill_hw.link_bandwidth()
    if prefill_hw.id == decode_hw.id and link is not None and gpus <= domain:
        return float(link[1]), f"{link[0]}: both sides in one {domain}-GPU scale-up domain"
    nic = min(scale_out_bytes_per_s(prefill_hw), scale_out_bytes_per_s(decode_hw))
    return nic, "scale-out network (each GPU's NIC)"


def transfer_bytes(model: ModelConfig, ds: DisaggScenario) -> tuple[float, float, float]:
    """(bytes one request's KV cache holds, bytes each prefill GPU sends, bytes each decode GPU
    receives). A prefill rank's tensor-parallel GPUs split the sending; a decode GPU receives
    what it keeps: its KV heads' share, or the whole latent of an MLA model (every
    tensor-parallel GPU keeps it: engine.model.ModelConfig.shard)."""
    whole, received = kv_bytes_held(model, ds.base, ds.decode.tensor_parallel)
    return whole, whole / ds.prefill.tensor_parallel, received


def kv_bytes_held(model: ModelConfig, base: ServingScenario, decode_tp: int) -> tuple[float, float]:
    """(bytes one request's KV cache holds, bytes a decode GPU of tensor-parallel degree
    `decode_tp` keeps of it) at the scenario's prompt length: transfer_bytes' two sizes, which
    the prefill layout does not change (the planner pairs many prefill layouts with one decode)."""
    kv = base.widths.kv
    whole = float(kv_bytes_per_sequence(model, base.input_tokens, kv))
    decode_shard = model.shard(shard_degree(model.num_heads, decode_tp))
    return whole, float(kv_bytes_per_sequence(decode_shard, base.input_tokens, kv))


def _step_s(step: StepCost, p: dict | None) -> np.ndarray:
    """A step at the roofs (p None) or at the calibrated parameters p."""
    if p is None:
        return step.at_roofs_s()
    return calibrated_step_s(
        step.category, step.weight, step.compute_s, step.memory_s, step.link_est_s, step.messages,
        step.exchanges, step.layers, p, step.requests, step.scale_out_messages, step.expert_factor,
        step.experts_split_whole,
    )  # fmt: skip


def prefill_batch(x, slots, s1, s_max, b_max):
    """Prompts per prefill forward at x requests/s over `slots` ranks: those that arrive during
    one forward (a bulk-service queue), between 1 and b_max. A forward of B prompts takes
    S(B) = s1 + (B - 1) s, affine between one prompt and a full batch (each op is affine in its
    tokens; engine.serving.step)."""
    per = np.where(b_max > 1, (s_max - s1) / np.maximum(b_max - 1, 1e-12), 0.0)
    room = slots - x * per
    b = np.where(room > 0, x * (s1 - per) / np.where(room > 0, room, 1.0), b_max)
    b = np.clip(b, 1.0, b_max)
    return b, s1 + (b - 1.0) * per


def closed_loop(c, osl, decode_workers, cap, prefill, link_s, link_rps, tpot0, tpot_cap, tpot_at, p):
    """The closed loop of C clients over the two sides (module docstring); every argument an
    array over rows or a number; `prefill` = (ranks, forward of one prompt s, forward of a
    full batch s, full batch). p None: the bound (no latency, no queue, the link unshared);
    else the calibrated kv_transfer_latency_s and prefill_queue_factor (arrays broadcast, as the
    fit passes one set per row). `tpot_at(n)` gives the decode step at n requests per worker
    (the engine evaluates it; the fit, at its previous n)."""
    flow = loop_flow(c, osl, decode_workers, cap, prefill, link_s, link_rps, tpot0, tpot_cap)
    return loop_answer(flow, tpot_at(flow["n"]), p)


def loop_flow(c, osl, decode_workers, cap, prefill, link_s, link_rps, tpot0, tpot_cap, link_latency_s=0.0) -> dict:
    """The loop up to its decode step (closed_loop's arguments): the requests/s it serves, the
    prefill's batch and forward, and the decoding requests per worker n, the batch the decode
    step is then built at (apart, so one build serves the bound's loop and the estimate's).
    `link_latency_s`: the link's own latency a transfer pays (the user's), besides its bytes."""
    slots, s1, s_max, b_max = prefill
    mu_p = slots * b_max / s_max
    mu_d_cap = decode_workers * cap / (osl * tpot_cap)
    free = c / (s1 + link_s + link_latency_s + osl * tpot0)  # what the loop asks with nobody queued
    limit = np.minimum(np.minimum(mu_p, link_rps), mu_d_cap)
    x = np.minimum(free, limit)
    batch, prefill_s = prefill_batch(x, slots, s1, s_max, b_max)
    n = np.clip(x * osl * tpot0 / decode_workers, 1.0, cap)
    return {
        "c": c, "osl": osl, "decode_workers": decode_workers, "link_s": link_s, "link_rps": link_rps,
        "link_latency_s": link_latency_s,
        "mu_p": mu_p, "mu_d_cap": mu_d_cap, "saturated": free >= limit, "x": x, "batch": batch,
        "prefill_s": prefill_s, "prefill_one_s": s1, "n": n,
    }  # fmt: skip


def closed_loop_wait(demand_s, cycle_s, k_s):
    """The prefill queue's mean wait W in a closed loop: the M/D/1 wait W = k rho / (1 - rho)
    (k = prefill_queue_factor x S / 2) at the load rho = demand / (cycle + W) that the loop
    offers when its clients also wait W (demand = C / mu_p, cycle = the rest of a request's
    round trip). Solved for W: ((a - D) + sqrt((D - a)^2 + 4 k a)) / 2, a = demand, D = cycle.
    It stays finite at any load, unlike M/D/1 at the load the loop would offer with nobody
    waiting: about k rho / (1 - rho) far below capacity, the backlog a - D (Little's law)
    far above it."""
    return 0.5 * (demand_s - cycle_s + np.sqrt((cycle_s - demand_s) ** 2 + 4.0 * k_s * demand_s))


def loop_answer(flow: dict, tpot, p) -> dict:
    """The loop's answer from its flow (loop_flow) and the decode step at its n (closed_loop's p)."""
    c, osl, x, prefill_s, link_s = flow["c"], flow["osl"], flow["x"], flow["prefill_s"], flow["link_s"]
    mu_p, link_rps, n = flow["mu_p"], flow["link_rps"], flow["n"]
    if p is None:
        # The bound: the prompt's forward alone on its rank at the roofs and its transfer at the
        # link's peak, no queue. The loop's wait is C / X less the rest of the cycle, output x
        # the real TPOT among it; with the roofs' TPOT there, clients come back sooner than real
        # ones and the wait comes out longer than a run with a slower decode has: no bound.
        prefill_s = flow["prefill_one_s"] + 0.0 * c
        transfer, fixed, queue, first_wave = link_s + 0.0 * c, 0.0 * c, 0.0 * c, 0.0 * c
    else:
        fixed = p["kv_transfer_latency_s"] + 0.0 * c
        busy_s = prefill_s  # the worker's forward: what its capacity mu_p counts
        prefill_s = busy_s / p["prefill_busy_factor"] * p["disagg_prefill_factor"]  # what the client sees
        # concurrent transfers share the link: time / (1 - rho), a wait of link_s x rho / (1 - rho),
        # rho the other C - 1 clients' load (a transfer shares the link with theirs, never its
        # own) as the loop offers it when they wait for the link too (closed_loop_wait with k =
        # link_s): at the offered load alone, 2 clients on a slow link read as saturated
        others = np.maximum(c - 1.0, 0.0) / link_rps
        # the link's own latency (the user's) delays a transfer without taking the link's bandwidth
        latency = flow["link_latency_s"]
        transfer = (
            link_s + latency + closed_loop_wait(others, prefill_s + link_s + latency + fixed + osl * tpot, link_s)
        )
        cycle = prefill_s + transfer + fixed + osl * tpot
        queue = closed_loop_wait(c / mu_p, cycle, p["prefill_queue_factor"] * busy_s / 2.0)
        # another side at capacity (the link, decode at its memory cap) holds the excess clients
        backlog = np.where(flow["saturated"], np.maximum(c / x - cycle, 0.0), 0.0)
        queue = np.maximum(queue, backlog)
        # the benchmarks start their C clients together: that first wave of C prompts waits
        # C / (2 mu_p) on average behind itself, and its share of a run's requests (one over the
        # run's waves, which the runs do not record) is fitted. Its own part: a server under
        # steady load has no first wave
        first_wave = p["disagg_burst_share"] * c / (2.0 * mu_p)
        # Little's law over the round trip the estimate gives: its waits slow the loop too
        x = np.minimum(x, c / (prefill_s + queue + first_wave + transfer + fixed + osl * tpot))
    return {
        "tpot_s": tpot,
        "ttft_s": prefill_s + queue + first_wave + transfer + fixed,
        "prefill_s": prefill_s,
        "prefill_batch": flow["batch"],
        "prefill_queue_s": queue,
        "first_wave_s": first_wave,
        "kv_transfer_s": transfer,
        "fixed_s": fixed,
        "requests_per_s": x,
        "saturated": flow["saturated"],
        "decode_running": n,
        "prefill_capacity_rps": mu_p + 0.0 * c,
        "decode_capacity_rps": flow["decode_workers"] * n / (osl * tpot),
        "decode_capacity_at_cap_rps": flow["mu_d_cap"] + 0.0 * c,
        "link_capacity_rps": link_rps + 0.0 * c,
    }


def deployment_loop(c, d: dict, p: dict | None) -> dict:
    """The loop of one deployment at the roofs (p None) or at the calibrated parameters p, its
    prefill forwards d["prefill_one_s"] and d["prefill_full_s"]."""
    d["tpot"].prime(d["n0"], d["cap"])
    flow = _deployment_flow(c, d, (d["prefill_one_s"], d["prefill_full_s"]), p)
    return loop_answer(flow, d["tpot"](flow["n"], p), p)


def bound_and_estimate(c, d: dict, bound_prefill: tuple, estimate_prefill: tuple, p: dict) -> tuple[dict, dict]:
    """deployment_loop at the roofs and at p, each with its prefill forwards (one prompt s, a full
    batch s), the decode steps at both loops' batches built in one pass: the same numbers as two
    deployment_loop calls, one decode build fewer."""
    d["tpot"].prime(d["n0"], d["cap"])
    runs = ((bound_prefill, None), (estimate_prefill, p))
    flows = [_deployment_flow(c, d, forwards, params) for forwards, params in runs]
    # The bound decodes at the smaller of the two loops' batches. At the roofs the prompts come
    # back sooner, so more of the C requests decode at once than in a run whose prefill is slower;
    # a decode step at that larger batch is slower than such a run's. It would then be above
    # the estimate (Mixtral 8x7B on H200, 32k prompts at 42 clients: 28.5 against 26.8 ms).
    flows[0]["n"] = np.minimum(flows[0]["n"], flows[1]["n"])
    d["tpot"].prime(*(flow["n"] for flow in flows))
    bound, estimate = (
        loop_answer(flow, d["tpot"](flow["n"], params), params) for flow, (_, params) in zip(flows, runs, strict=True)
    )
    return bound, estimate


def _deployment_flow(c, d: dict, forwards: tuple, p: dict | None) -> dict:
    eff = 1.0 if p is None else p["kv_link_efficiency"]
    bw = d["bandwidth"] * eff
    prefill = (d["prefill_slots"], forwards[0], forwards[1], d["prefill_full"])
    latency = 0.0 if p is None else d["link_latency_s"]  # the bound: bytes at the link's peak, no latency
    return loop_flow(
        c, d["output_tokens"], d["decode_workers"], d["cap"], prefill, d["link_bytes"] / bw,
        d["link_rps_per_bw"] * bw, d["tpot"](d["n0"], p), d["tpot"](d["cap"], p), latency,
    )  # fmt: skip


def prefill_side(model, hw, base: ServingScenario, layout) -> dict:
    """_prefill_side with each error's field named on the prefill side (the API's body names it
    so; a top-level layout field is one a disaggregated request may not set)."""
    try:
        return _prefill_side(model, hw, base, layout)
    except EngineInputError as exc:
        raise exc.under("disaggregated.prefill") from None


def decode_side(model, hw, base: ServingScenario, layout) -> dict:
    """_decode_side with each error's field named on the decode side."""
    try:
        return _decode_side(model, hw, base, layout)
    except EngineInputError as exc:
        raise exc.under("disaggregated.decode") from None


def _prefill_side(model, hw, base: ServingScenario, layout) -> dict:
    """A prefill worker of `layout` (any worker count): its forward of one prompt and of a full
    batch per rank (rows of `steps`), and how many prompts a full batch holds. A forward takes
    the worker's batch, or as many whole prompts as the backend's step token budget holds when
    more wait (engine.serving.step.step_token_budget); raises when they do not fit."""
    full = max(layout.batch, step_token_budget(base.backend, hw.memory_bytes) // base.input_tokens, 1)
    # speculative decoding is the decode workers': a prefill worker drafts nothing (an MTP head's
    # pass over the prompt, one more layer of the model's, is left out)
    sc_p = layout.instance(replace(base, speculative=None), layout.attention_data_parallel * full)
    sc_p.check_layout(model.is_moe, _experts(model))
    cap_p = capacity(model, hw, sc_p)  # raises when weights and one prompt do not fit
    fits = cap_p.max_running_batch // layout.attention_data_parallel
    if fits < layout.batch:
        raise EngineInputError(
            "disaggregated.prefill.batch",
            f"{layout.batch} prompts per rank do not fit a prefill worker's memory ({fits} per rank would)",
            code="prefill_batch_fit",
            params={"n": layout.batch, "fits": fits},
        )
    full = min(full, fits)
    return {"sc": sc_p, "cap": cap_p, "full": float(full), "steps": prefill_batch_steps(model, hw, sc_p, [1.0, full])}


def _decode_side(model, hw, base: ServingScenario, layout) -> dict:
    """A decode worker of `layout`: its scenario and its memory cap (requests it holds)."""
    sc_d = layout.instance(base, 1)
    sc_d.check_layout(model.is_moe, _experts(model))
    cap_d = capacity(model, hw, sc_d)
    return {"sc": sc_d, "cap": cap_d}


def _experts(model) -> int:
    return max((layer.mlp.num_experts for layer, _ in model.layer_groups), default=0)


# The sides of the deployments asked for lately: what a deployment's loop needs that its
# concurrency does not change (each side's memory, the prefill's forwards, the link, the decode
# step at the memory cap), so the serving page's slider and a curve build them once.
SIDES_CACHE_BYTES = 16 * 1024 * 1024
_sides_cache = ByteLRU(SIDES_CACHE_BYTES, shared=lambda key: key[0], key_sizeof=lambda key: approx_size(key[3:]))


def sides(model, prefill_hw, decode_hw, ds: DisaggScenario) -> dict:
    """What the loop needs of each side, built once per deployment shape (the scenario without
    its concurrency); `tpot` is a fresh decode_times, its memory cap's step already built."""
    base = ds.base
    load_free = tuple(getattr(base, f.name) for f in fields(base) if f.name != "concurrency")
    key = (model, id(prefill_hw), id(decode_hw), load_free, ds.prefill, ds.decode, ds.kv_link)
    shape = _sides_cache.get_or_compute(key, lambda: _shape_sides(model, prefill_hw, decode_hw, ds))
    if shape["hardware"][0] is not prefill_hw or shape["hardware"][1] is not decode_hw:  # an id reused
        shape = _shape_sides(model, prefill_hw, decode_hw, ds)
    d = dict(shape["sides"])
    d["tpot"] = decode_times(model, decode_hw, d["sc_d"], known=shape["cap_step"])
    d["prefill_forwards"] = shape["prefill_forwards"]
    return d


def _shape_sides(model, prefill_hw, decode_hw, ds: DisaggScenario) -> dict:
    """sides() without its decode_times; the entry holds both accelerators, so the ids in its
    key stay theirs while it lives."""
    base = ds.base
    pre = prefill_side(model, prefill_hw, base, ds.prefill)
    dec = decode_side(model, decode_hw, base, ds.decode)
    bandwidth, link_words = kv_link(prefill_hw, decode_hw, ds)
    whole, sent, received = transfer_bytes(model, ds)
    p_gpus = ds.prefill.workers * ds.prefill.gpus
    d_gpus = ds.decode.workers * ds.decode.gpus
    # requests/s the link carries per byte/s of bandwidth: the busier end's NICs
    per_request = max(whole / p_gpus, received * ds.decode.tensor_parallel / d_gpus)
    sc_d = dec["sc"]
    cap = float(dec["cap"].max_running_batch)
    sides_ = {
        "sc_p": pre["sc"],
        "sc_d": sc_d,
        "cap_p": pre["cap"],
        "cap_d": dec["cap"],
        "cap": cap,
        "decode_workers": float(ds.decode.workers),
        "prefill_slots": float(ds.prefill.workers * ds.prefill.attention_data_parallel),
        "prefill_full": pre["full"],
        "prefill_steps": pre["steps"],  # rows: one prompt, a full batch
        "output_tokens": float(base.output_tokens),
        "bandwidth": bandwidth,
        "link_words": link_words,
        "link_bytes": max(sent, received),
        # the link's own latency a transfer pays where the user gives one (none on `auto`); the
        # calibrated first-token fixed cost, kv_transfer_latency_s, is TTFT's own part beside it
        "link_latency_s": float(ds.kv_link.latency_s or 0.0),
        "link_rps_per_bw": 1.0 / per_request,
        "kv_bytes_per_request": whole,
    }
    cap_step = ((cap, decode_steps(model, decode_hw, sc_d, cap)),)
    forwards = prefill_forwards(pre["steps"])
    return {"hardware": (prefill_hw, decode_hw), "sides": sides_, "cap_step": cap_step, "prefill_forwards": forwards}


def prefill_forwards(steps: StepCost):
    """The prefill's forwards (one prompt s, a full batch s) at the roofs and at a parameter set:
    `forwards(p)` -> (at the roofs, calibrated x prefill_busy_factor), the prefill on its own
    accelerator's parameters p. The last set's answer is kept (a slider step or a curve asks with
    the same values again), compared by value; held as one tuple, read once, so a thread never
    pairs one set with another's answer."""
    at_roofs = tuple(float(t) for t in steps.at_roofs_s())
    last: list = [({}, ())]

    def forwards(p: dict) -> tuple[tuple, tuple]:
        held = last[0]
        if held[0] != p:
            arrays = {k: np.asarray(v, dtype=float) for k, v in p.items()}
            calibrated = busy_forward_s(_step_s(steps, arrays), arrays["prefill_busy_factor"], at_roofs)
            held = (dict(p), tuple(float(t) for t in calibrated))
            last[0] = held
        return at_roofs, held[1]

    return forwards


def busy_forward_s(calibrated_s, busy_factor, at_roofs_s):
    """A prefill worker's busy time per forward: prefill_busy_factor of the calibrated forward
    (module docstring), never below the forward at the roofs (a factor under 1 stands for large
    batches beating the aggregated fit's chunked prefill, not for a worker faster than its card)."""
    return np.maximum(calibrated_s * busy_factor, at_roofs_s)


def _batch_key(n) -> bytes:
    """A batch's key among built steps: its values' bytes (a number and a one-row array alike)."""
    return np.asarray(n, dtype=float).tobytes()


def decode_times(model, hw, sc_d: ServingScenario, known: tuple = ()):
    """The loop's decode step at n requests per worker, at the roofs (params None) or the
    calibrated parameters; the steps at the same batches are built once for both (the bound's
    and the estimate's loops ask for n0 and the cap alike). `.steps(n)` gives the StepCost.
    `known` holds (batch, step) pairs already built (sides' memory cap)."""
    built: dict = {_batch_key(n): step for n, step in known}

    def steps(n) -> StepCost:
        key = _batch_key(n)
        if key not in built:
            built[key] = decode_steps(model, hw, sc_d, n)
        return built[key]

    def prime(*batches) -> None:
        """Build the steps at several batches (each an array or a number) in one pass: one
        decode_steps over their rows stacked, the same numbers as one build each."""
        todo = {}
        for n in batches:
            n = np.atleast_1d(np.asarray(n, dtype=float))
            todo.setdefault(_batch_key(n), n)
        todo = {key: n for key, n in todo.items() if key not in built}
        if len(todo) < 2:
            return  # nothing to share: steps() builds the one left when asked
        stacked = decode_steps(model, hw, sc_d, np.concatenate(list(todo.values())))
        start = 0
        for key, n in todo.items():
            built[key] = stacked.rows(start, start + len(n))
            start += len(n)

    evaluated: dict = {}
    # tokens per sequence per step: 1, or E(a) under speculative decoding, the bound's at the best
    # acceptance of the range and the estimate's at its middle (engine.serving.estimate's rule)
    spec = sc_d.speculative
    per_step = (1.0, 1.0) if spec is None else (
        float(spec.tokens_per_step(spec.acceptance_high, sc_d.output_tokens)),
        float(spec.tokens_per_step(spec.acceptance, sc_d.output_tokens)),
    )  # fmt: skip

    def tpot(n, params: dict | None) -> np.ndarray:
        """Seconds per output token at n: the step's over its tokens per sequence, evaluated
        once per step and parameter set (the planner asks for the memory cap's step at the
        estimate twice); the entry holds `params`, so its id is not reused while it lives."""
        step = steps(n)
        key = (id(step), id(params))
        if key not in evaluated:  # a disaggregated step over the aggregated model's: the estimate's
            factor = 1.0 if params is None else params["disagg_decode_factor"]
            tokens = per_step[0] if params is None else per_step[1]
            evaluated[key] = (params, _step_s(step, params) * factor / tokens)
        return evaluated[key][1]

    tpot.steps = steps
    tpot.prime = prime
    tpot.per_step = per_step  # (the bound's, the estimate's) tokens per sequence per step
    return tpot


def disagg_arrays(
    model: ModelConfig,
    prefill_hw: Accelerator,
    decode_hw: Accelerator,
    ds: DisaggScenario,
    concurrency,
    calibration: Calibration | None = None,
) -> dict:
    """Bound and estimate of the deployment at each concurrency in `concurrency`."""
    cal = calibration or load_calibration()
    p, backend_used, family = cal.parameters(ds.base.backend, decode_hw.id)
    p_prefill = cal.parameters(ds.base.backend, prefill_hw.id)[0]
    p |= {k: p_prefill[k] for k in PREFILL_SIDE_PARAMETERS}
    arrays = {k: np.asarray(v, dtype=float) for k, v in p.items()}
    d = sides(model, prefill_hw, decode_hw, ds)
    c = np.atleast_1d(np.asarray(concurrency, dtype=float))
    d["n0"] = np.minimum(c / d["decode_workers"], d["cap"])
    at_roofs, calibrated = d["prefill_forwards"](p_prefill)
    bound, estimate = bound_and_estimate(c, d, at_roofs, calibrated, arrays)
    d["prefill_one_s"], d["prefill_full_s"] = calibrated
    return {
        "concurrency": c,
        "sides": d,
        "bound": bound,
        "estimate": estimate,
        "parameters": p,
        "arrays": arrays,
        "backend_used": backend_used,
        "family": family,
        "calibration": cal,
        "ranges": cal.ranges(cal.range_kind(model.id, decode_hw.id, "disaggregated"), "disaggregated"),
        "range_kind": cal.range_kind(model.id, decode_hw.id, "disaggregated"),
    }


def _decode_parts(d: dict, n, p: dict) -> dict:
    """The decode step's parts at the calibrated parameters p (the arrays the loop was evaluated
    with, so its step is not evaluated again): the disaggregated step's excess over the
    aggregated one (disagg_decode_factor) counts as overhead."""
    step, tokens = d["tpot"].steps(n), d["tpot"].per_step[1]  # per output token: a step over its tokens
    link = float(link_time_s(step.link_est_s, step.messages, step.exchanges, step.scale_out_messages, p)[0]) / tokens
    fixed = float(fixed_time_s(step.layers, step.requests, p)[0]) / tokens
    total = float(d["tpot"](n, p)[0])
    aggregated = total / float(p["disagg_decode_factor"])
    return {
        "total_s": total,
        "decode_s": aggregated - link - fixed,
        "communication_s": link,
        "overhead_s": fixed + total - aggregated,
    }


def disaggregated_estimate(
    model: ModelConfig,
    hw: Accelerator,
    ds: DisaggScenario,
    calibration: Calibration | None = None,
) -> dict:
    """The answer's dict (the API's shape, as serving_estimate's) of one deployment: `hw` runs
    prefill, and decode too unless ds.decode.hardware names another accelerator."""
    decode_hw = get_accelerator(ds.decode.hardware) if ds.decode.hardware else hw
    a = disagg_arrays(model, hw, decode_hw, ds, [ds.base.concurrency], calibration)
    result = disagg_answer_at(a, 0, model, hw, decode_hw, ds)
    ensure_finite(result)
    return result


def disaggregated_estimates(
    model: ModelConfig,
    hw: Accelerator,
    deployments: list[DisaggScenario],
    calibration: Calibration | None = None,
) -> list[dict | EngineInputError]:
    """disaggregated_estimate of each deployment, or the error that refused it. Those that differ
    only in their concurrency are one disagg_arrays pass, which answers each concurrency apart:
    the serving page answers a deployment's shipped runs at once, each run 1-4 deployments it may
    have been (engine.serving.validate), and 121 one at a time took 0.2 s."""
    shapes: dict[DisaggScenario, list[int]] = {}
    for k, ds in enumerate(deployments):
        shapes.setdefault(replace(ds, base=replace(ds.base, concurrency=1)), []).append(k)
    out: list = [None] * len(deployments)
    for shape, members in shapes.items():
        decode_hw = get_accelerator(shape.decode.hardware) if shape.decode.hardware else hw
        concurrencies = [deployments[k].base.concurrency for k in members]
        try:
            a = disagg_arrays(model, hw, decode_hw, shape, concurrencies, calibration)
        except EngineInputError as exc:
            for k in members:
                out[k] = exc
            continue
        for i, k in enumerate(members):
            try:
                out[k] = disagg_answer_at(a, i, model, hw, decode_hw, deployments[k])
                ensure_finite(out[k])
            except EngineInputError as exc:
                out[k] = exc
    return out


def _rates(gpus: int, osl: int, loop: dict, i: int) -> dict:
    tpot = float(loop["tpot_s"][i])
    return {
        "ttft_s": float(loop["ttft_s"][i]),
        "tpot_s": tpot,
        "output_tokens_per_s_per_gpu": float(loop["requests_per_s"][i]) * osl / gpus,
        "tokens_per_s_per_user": 1.0 / tpot,
    }


def _range(estimate_s: float, bound_s: float, quantiles: list[float]) -> list[float]:
    return [max(estimate_s * quantiles[0], bound_s), max(estimate_s * quantiles[1], bound_s)]


def _side_memory(cap, rule_side: str) -> dict:
    return {
        "weights_bytes_per_gpu": cap.weights_bytes_per_gpu,
        "kv_bytes_per_request_per_gpu": cap.kv_bytes_per_request,
        "usable_bytes_per_gpu": cap.usable_bytes_per_gpu,
        "max_running_batch": cap.max_running_batch,
        "rule": cap.rule,
        "side": rule_side,
    }


def disagg_answer_at(a: dict, i: int, model, prefill_hw, decode_hw, ds: DisaggScenario) -> dict:
    d, est, bnd, p, cal = a["sides"], a["estimate"], a["bound"], a["parameters"], a["calibration"]
    osl, gpus = ds.base.output_tokens, ds.gpus
    n = float(est["decode_running"][i])
    decoding = int(decoding_requests(n, ds.decode.workers, ds.base.concurrency))
    waiting = _waiting(d, est, i, ds.base.concurrency, decoding)
    bound_rates = _rates(gpus, osl, bnd, i)
    est_rates = _rates(gpus, osl, est, i)
    ranges = a["ranges"]
    est_rates |= {
        "tpot_s_range": _range(est_rates["tpot_s"], bound_rates["tpot_s"], ranges["tpot"]),
        "ttft_s_range": _range(est_rates["ttft_s"], bound_rates["ttft_s"], ranges["ttft"]),
        "range_kind": a["range_kind"],
    }
    mu_p, mu_d = float(est["prefill_capacity_rps"][i]), float(est["decode_capacity_rps"][i])
    mu_l, x = float(est["link_capacity_rps"][i]), float(est["requests_per_s"][i])
    mu_d_cap = float(est["decode_capacity_at_cap_rps"][i])
    limited = min((mu_p, "prefill"), (mu_d_cap, "decode"), (mu_l, "kv_link"))[1]
    per_prefill, per_decode = mu_p / ds.prefill.workers, mu_d_cap / ds.decode.workers
    decode_parts = _decode_parts(d, est["decode_running"][i : i + 1], a["arrays"])
    bound_step, bound_tokens = d["tpot"].steps(bnd["decode_running"][i : i + 1]), d["tpot"].per_step[0]
    bound_link = float(bound_step.link_s[0]) / bound_tokens
    bound_decode = float(bound_step.at_roofs_s()[0]) / bound_tokens - bound_link
    return {
        "model": model.id,
        "hardware": prefill_hw.id,
        "gpus": gpus,
        "running_batch": decoding,
        "queued": waiting,
        "queue_reason": _queue_words(est, i, limited, decoding / ds.decode.workers, waiting),
        "bound": bound_rates,
        "estimate": est_rates,
        "breakdown": {
            "tpot": {
                "bound": {
                    "total_s": bound_rates["tpot_s"],
                    "decode_s": bound_decode,
                    "prefill_share_s": 0.0,
                    "communication_s": bound_link,
                    "overhead_s": 0.0,
                },  # fmt: skip
                "estimate": decode_parts | {"prefill_share_s": 0.0},
            },
            "ttft": {
                "bound": _ttft_parts(bnd, i),
                "estimate": _ttft_parts(est, i),
            },
            "memory": {"prefill": _side_memory(d["cap_p"], "prefill"), "decode": _side_memory(d["cap_d"], "decode")},
            "prompts_per_step": 0.0,
            "mean_context_tokens": ds.base.mean_context,
            "kv_transfer": {
                "bytes_per_request": d["kv_bytes_per_request"],
                "bytes_per_link": d["link_bytes"],
                "link_bytes_per_s": d["bandwidth"],
                "link": d["link_words"],
            },
        },
        "disaggregated": {
            "figures": "estimate",  # its rates, shares and ratio: the calibrated loop's, never a bound
            "prefill": _side(ds.prefill, prefill_hw),
            "decode": _side(ds.decode, decode_hw),
            "limited_by": limited,
            "saturated": bool(est["saturated"][i]),  # the loop asks the limiting side's capacity or more
            "requests_per_s": x,
            "prefill_capacity_rps": mu_p,
            "decode_capacity_rps": mu_d,
            "decode_capacity_at_memory_cap_rps": mu_d_cap,
            "kv_link_capacity_rps": mu_l,
            "prefill_idle": max(0.0, 1.0 - x / mu_p),
            "decode_idle": max(0.0, 1.0 - x / mu_d_cap),
            "balanced_ratio": per_decode / per_prefill,  # prefill workers per decode worker
            "decode_running_per_worker": decoding / ds.decode.workers,
            "memory_rule": {"prefill": d["cap_p"].rule, "decode": d["cap_d"].rule},
        },
        "calibration": {
            "id": cal.id,
            "backend": a["backend_used"],
            "family": a["family"] or "any",
            "rows": cal.data["fitted_on"]["rows"],
            "parameters": p,
        },
        "warnings": _side_warnings(model, prefill_hw, decode_hw, d, cal)
        + _disagg_warnings(prefill_hw, decode_hw, d, limited, ds),
        "speculative": _speculative_answer(model, decode_hw, d, ds, bnd["decode_running"][i : i + 1]),
    }


def _speculative_answer(model, decode_hw, d: dict, ds: DisaggScenario, bound_running) -> dict | None:
    """The decode workers' speculative decoding as the aggregated answer gives it, with the
    bound's TPOT at the same batch without a draft (no run without speculation beats it)."""
    spec = ds.base.speculative
    if spec is None:
        return None
    plain = decode_steps(model, decode_hw, replace(d["sc_d"], speculative=None), bound_running)
    return speculative_block(spec, float(plain.at_roofs_s()[0]), ds.base.output_tokens)


def _ttft_parts(loop: dict, i: int) -> dict:
    """TTFT's parts (TTFT_PART_KEYS): the prefill, its queue, the benchmark's first wave, the KV
    cache's transfer over the link, and the first token's fixed cost (the transfer's handshake,
    routing: kv_transfer_latency_s)."""
    parts = {k: float(loop[k][i]) for k in TTFT_PART_KEYS}
    return parts | {"wait_s": parts["prefill_queue_s"] + parts["first_wave_s"]}


def _side(side, hw) -> dict:
    return {
        "workers": side.workers,
        "tensor_parallel": side.tensor_parallel,
        "attention_data_parallel": side.attention_data_parallel,
        "moe_tensor_parallel": side.moe_tensor_parallel,
        "expert_parallel": side.expert_parallel,
        "batch": side.batch,
        "hardware": hw.id,
        "gpus": side.workers * side.gpus,
    }


def _waiting(d: dict, est: dict, i: int, concurrency: int, decoding: int) -> int:
    """Requests waiting for decode memory, as the aggregated answer's `queued`: with every decode
    worker at its memory cap and the loop asking more than it serves, the C in flight less those
    decoding and those in service before decode (the prefill's forward, the transfer and its fixed
    cost: Little's law at the rate served). They wait in front of the prefill (loop_answer's
    backlog); a prefill queue of a deployment whose decode has room is TTFT's part, not this."""
    if not (bool(est["saturated"][i]) and float(est["decode_running"][i]) >= float(d["cap"])):
        return 0
    in_service = sum(float(est[k][i]) for k in ("prefill_s", "kv_transfer_s", "fixed_s"))
    return max(0, int(concurrency - decoding - round(float(est["requests_per_s"][i]) * in_service)))


def _side_warnings(model: ModelConfig, prefill_hw, decode_hw, d: dict, cal: Calibration) -> list[str]:
    """Each side's instance warnings (estimate.scenario_warnings: a backend that does not run on
    the accelerator, experts split on a dense model, a roof the precision lacks), said once when
    both sides have it and named by side otherwise."""
    said = {
        side: scenario_warnings(model, d[key], hw, cal, family_of(hw.id, cal.families))
        for side, key, hw in (("prefill", "sc_p", prefill_hw), ("decode", "sc_d", decode_hw))
    }
    both = [w for w in said["prefill"] if w in said["decode"]]
    named = [f"{side} workers: {w}" for side, words in said.items() for w in words if w not in both]
    return both + named


def _disagg_warnings(prefill_hw, decode_hw, d: dict, limited: str, ds: DisaggScenario) -> list[str]:
    """What the answer assumed that the request did not say, and what limits it beyond the model."""
    out = []
    no_nic = [hw.id for hw in (prefill_hw, decode_hw) if not getattr(hw, "scale_out_bytes_per_s", None)]
    no_nic = list(dict.fromkeys(no_nic))
    if d["link_words"].startswith("scale-out") and no_nic:
        out.append(
            f"{', '.join(no_nic)} has no scale-out NIC on file: the KV cache's link assumes "
            f"{SCALE_OUT_BYTES_PER_S / 1e9:.0f} GB/s per GPU (one 400 Gb/s NIC), in the bound too; give "
            "kv_link's bandwidth_gb_s for your network"
        )
    if limited == "kv_link":
        out.append(
            f"the KV cache's link ({d['bandwidth'] / 1e9:.3g} GB/s per GPU, {d['link_words']}) limits the "
            "deployment, not its GPUs"
        )
    return out


def decoding_requests(n, workers, concurrency):
    """Requests decoding across the decode workers: n per worker (the batch each step is built
    at, one or more), never more than the C in flight (C below the worker count leaves some idle)."""
    return np.minimum(np.round(np.asarray(n) * workers), concurrency).astype(int)


def _queue_words(est: dict, i: int, limited: str, per_worker: float, waiting: int) -> str:
    per = f"{per_worker:,.0f}" if per_worker >= 1 else f"{per_worker:.2g}"
    words = (
        f"{per} requests decode on each decode worker; {limited.replace('_', ' ')} limits the "
        f"deployment at {float(est['requests_per_s'][i]):.3g} requests/s"
    )
    return words + (f"; {waiting:,} wait for a decode slot (its KV memory is full)" if waiting else "")


__all__ = ["DisaggScenario", "KvLink", "ServingScenario", "disagg_arrays", "disaggregated_estimate", "GIB"]
