"""Serving bound and estimate: TPOT, TTFT and throughput of one instance at concurrency C.

Models (docs/serving-estimate.md):
- TPOT = one step: the running batch's decode at its mean context plus the steady-state
  prefill chunk (running x input / output prompt tokens, Sarathi-Serve's chunked prefill),
  plus tensor/expert-parallel communication and, in the estimate, a fixed step overhead.
- TTFT = the prompt's prefill plus its wait. Bound: one prompt's prefill at the roofs plus, when
  requests queue for memory, the time until enough running requests finish (Little's law:
  slots free at running / (output x TPOT) per second, so the queue of Q waits Q x output x
  TPOT / running). Estimate: the calibrated prefill x a fitted factor, plus a fitted number
  of mixed steps it waits and spans, plus, for a fitted share of requests that arrive in a
  wave, the wave's chunked prefill ahead of them (engine.serving.step.wave_chunks), plus the
  same queue wait at the estimated TPOT.
- Throughput: a closed loop of C clients, each sending its next request when the last one's
  output ends, gives C x output / (TTFT + (output - 1) x TPOT) output tokens per second, and
  never more than the steps' own rate, running / TPOT (the bound's steps carrying every running
  request's prompt: ServingSteps.instance); the estimate's never above the bound's; over the
  instance's GPUs. A user sees 1 / TPOT tokens per second while tokens stream.
The bound uses the roofs as they are (nothing can be faster); the estimate scales the bound's
parts with engine/calibration/serving.yaml (engine.serving.calibration).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..hardware import Accelerator
from ..model import ModelConfig
from .calibration import Calibration, load_calibration
from .capacity import Capacity, capacity
from .scenario import BACKEND_VENDORS, ServingScenario, shard_degree
from .step import ATTN_DECODE, ATTN_PREFILL, CATEGORIES, DENSE, DEQUANT, EXPERT, StepCost, serving_steps


def calibrated_step_s(
    category,
    weight,
    compute_s,
    memory_s,
    link_s,
    messages,
    exchanges,
    layers,
    p: dict,
    requests=0.0,
    scale_out=0.0,
    expert_factor=1.0,
    split_whole=False,
):
    """A step at the calibrated roofs. Arrays broadcast: ops on the last axis, parameters per
    row (the fit evaluates every measured row at once with this same function). A DEQUANT op
    holds one vector operation per weight element converted: dequant_ops_per_weight of them.
    Besides the GPU's work, the scheduler's CPU spends request_overhead_s on each request of
    the step (building its inputs, sampling, detokenising and streaming its token: the
    per-request CPU costs Vidur models as functions of the batch size, Agrawal et al., "Vidur",
    MLSys 2024, §4), plus fixed costs per step and per layer. Routed experts run as grouped
    GEMMs, one small matrix product per expert over the few rows routed to it, in one launch:
    they reach a smaller share of the tensor roof than a dense GEMM of the same FLOPs (Gale et
    al., "MegaBlocks", MLSys 2023, §3), so they get their own expert_compute_efficiency. Each of
    the `scale_out` all-reduces whose tensor-parallel group spans nodes also pays
    scale_out_latency_s, the network's hops (InfiniBand between DGX nodes) on top of
    collective_latency_s. Routed experts split whole over GPUs (expert parallelism) wait for
    the busiest GPU: expert_factor, its share under uniform routing over the mean
    (engine.serving.step.expert_parallel_imbalance), times moe_imbalance, the routing's skew
    beyond uniform (fitted); sliced experts (moe_tensor_parallel) give every GPU the mean."""
    codes = np.asarray(category).astype(np.intp, copy=False)  # the fit's padded blocks hold floats
    eta_c, eta_m = (_by_category(table, codes) for table in _category_efficiencies(p))
    skew = np.where(split_whole, p["moe_imbalance"], 1.0)
    mult = np.where(category == EXPERT, expert_factor * np.asarray(skew)[..., None], 1.0)
    ops = (weight * mult * np.maximum(compute_s / eta_c, memory_s / eta_m)).sum(axis=-1)
    return ops + link_time_s(link_s, messages, exchanges, scale_out, p) + fixed_time_s(layers, requests, p)


# The last parameter set's tables (_category_efficiencies): an answer evaluates four to seven
# steps with one set, the planner thousands. Held with the set and its values, compared by
# identity: a new dict or a replaced value is a new set.
_last_efficiencies: tuple = (None, (), None)


def _category_efficiencies(p: dict) -> tuple[np.ndarray, np.ndarray]:
    """(compute, memory) fraction of the roof each op category reaches, indexed by category code
    on the last axis (parameters per row broadcast in front): a gather per step instead of a
    comparison per category."""
    global _last_efficiencies
    held, values, tables = _last_efficiencies
    if held is p and len(values) == len(p) and all(a is b for a, b in zip(values, p.values(), strict=True)):
        return tables
    tables = _efficiency_tables(p)
    _last_efficiencies = (p, tuple(p.values()), tables)
    return tables


def _efficiency_tables(p: dict) -> tuple[np.ndarray, np.ndarray]:
    attention, bandwidth = p["attention_efficiency"], p["bandwidth_efficiency"]
    by_code_c = {
        DENSE: p["compute_efficiency"],
        EXPERT: p["expert_compute_efficiency"],
        ATTN_DECODE: attention,
        ATTN_PREFILL: attention,
        DEQUANT: 1.0 / p["dequant_ops_per_weight"],
    }
    by_code_m = dict.fromkeys((DENSE, EXPERT, DEQUANT), bandwidth)
    by_code_m |= dict.fromkeys((ATTN_DECODE, ATTN_PREFILL), attention)
    codes = range(len(CATEGORIES))
    values = [by_code_c[c] for c in codes] + [by_code_m[c] for c in codes]
    if all(np.ndim(v) == 0 for v in values):  # one set of parameters (an estimate, not the fit)
        stack = np.array(values, dtype=float)
    else:
        stack = np.stack(np.broadcast_arrays(*values), axis=-1)
    return stack[..., : len(codes)], stack[..., len(codes) :]


def _by_category(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Each op's entry of a per-category table: one table (K,) or one per row (R, K); codes
    per op (n,) or per row and op (R, n), as the fit pads them."""
    if table.ndim == 1:
        return table[codes]
    if codes.ndim == 1:
        return table[..., codes]
    if table.ndim == 2 and codes.ndim == 2:
        # the fit: one gather from the flat table takes half of take_along_axis's time
        flat = codes + table.shape[1] * np.arange(table.shape[0])[:, None]
        return np.take(table.ravel(), flat)
    return np.take_along_axis(table, codes, axis=-1)


def link_time_s(link_s, messages, exchanges, scale_out, p: dict):
    """The step's communication at the calibrated link: its bytes at link_efficiency plus a
    latency per all-reduce, per expert dispatch or combine and per cross-node all-reduce."""
    latency = messages * p["collective_latency_s"] + exchanges * p["alltoall_latency_s"]
    return link_s / p["link_efficiency"] + latency + scale_out * p["scale_out_latency_s"]


def fixed_time_s(layers, requests, p: dict):
    """The step's fixed costs: per step, per layer and per scheduled request."""
    return p["step_overhead_s"] + layers * p["layer_overhead_s"] + requests * p["request_overhead_s"]


def ttft_estimate_s(
    prefill_s, tpot_s, queue_steps, wave_s, p: dict, running=2.0, model_factor=1.0, steps_per_token=1.0,
    queued_prefill_s=0.0, *, decode_s, prompts_per_step, output_tokens,
):  # fmt: skip
    """TTFT estimate: the prompt's calibrated prefill x ttft_prefill_factor; plus
    ttft_wait_steps steps of the running batch (the step in flight when it arrives and the mixed
    steps its chunks share), when other requests run beside it (a lone request, running 1,
    finds the server idle: a closed-loop client sends its next request after the last one
    ended), a step being TPOT / steps_per_token (engine.serving.step.ServingSteps: with long
    prompts and short outputs one output token spans several budget-capped iterations); plus,
    for the share ttft_burst_share of requests that arrive in a wave (a closed-loop benchmark
    starts its C clients together and equal output lengths keep them in step), the wave's
    prefill ahead of them: wave_s = the mean number of full-budget prefill steps a request of
    the wave waits x one such step (engine.serving.step.wave_chunks); all of that x the model's
    factor (Calibration.ttft_model_factor); plus the queue's wait (queue_steps x TPOT plus
    queued_prefill_s: the prompts ahead, see slots_ahead), which Little's law sets for every model
    alike.

    The wait's steps carry the other requests' prompts (TPOT - decode_s a step, the decode step
    alone being decode_s, at prompts_per_step prompts a step) and their decode steps. Only the
    requests already in flight when it arrives run before its first token (one that arrives
    after it is prefilled after it: first come, first served), and each has one prompt and at
    most output - 1 decode steps left: the wait carries no more than running - 1 prompts and
    output - 1 decode steps. Only an output of a few tokens reaches either (under
    ttft_wait_steps): at 8,192 tokens in and 1 out, two clients each waited nine whole prompts;
    at 128 in and 1 out, nine decode steps of a batch that does not decode.

    Never under (1 + queue_steps) x TPOT beside other requests: their steps carry the prompts
    at running / (output x TPOT) requests/s, so C clients in a closed loop each wait that long
    for a first token (Little's law); only a prompt far longer than its output gets near it."""
    running = np.asarray(running, dtype=float)
    mixed = np.minimum(running - 1.0, 1.0)
    steps = p["ttft_wait_steps"] * mixed / steps_per_token
    prompt_share_s = np.maximum(tpot_s - decode_s, 0.0)
    prompts_waited = np.minimum(steps * prompts_per_step, running - 1.0)
    per_prompt_s = prompt_share_s / np.maximum(prompts_per_step, 1e-12)
    shaped = (
        p["ttft_prefill_factor"] * prefill_s
        + p["ttft_burst_share"] * wave_s
        + np.minimum(steps, output_tokens - 1.0) * decode_s
        + prompts_waited * per_prompt_s
    )
    queue = queue_steps * tpot_s + queued_prefill_s
    return np.maximum(model_factor * shaped + queue, mixed * (1.0 + queue_steps) * tpot_s)


def _as_arrays(p: dict) -> dict:
    """The parameters as 0-d arrays, the form calibrated_step_s broadcasts (made once per answer:
    a curve asks for four steps at each of its points)."""
    return {k: np.asarray(v, dtype=float) for k, v in p.items()}


def _estimate_step_s(step: StepCost, arrays: dict) -> np.ndarray:
    return calibrated_step_s(
        step.category,
        step.weight,
        step.compute_s,
        step.memory_s,
        step.link_est_s,
        step.messages,
        step.exchanges,
        step.layers,
        arrays,
        step.requests,
        step.scale_out_messages,
        1.0 if step.expert_factor is None else step.expert_factor,
        step.experts_split_whole,
    )


def closed_loop_tokens_per_s(concurrency, output_tokens: int, ttft_s, tpot_s):
    """Output tokens/s of C clients in a closed loop (the benchmarks' fixed concurrency): each
    request takes TTFT + (output - 1) x TPOT, so C x output tokens per that time (Little's law).
    A measured run's own rate, from its measured times."""
    return concurrency * output_tokens / (ttft_s + (output_tokens - 1) * tpot_s)


def output_tokens_per_s(concurrency, running, output_tokens: int, ttft_s, tpot_s, rate_step_s=None):
    """The closed loop's rate (closed_loop_tokens_per_s), never more than the steps give, running
    per `rate_step_s` (the step with every running request's prompt in it,
    ServingSteps.instance; TPOT where it is not known). Without the closed loop a long prompt
    with a short output would count its decode steps as the whole cost."""
    step = tpot_s if rate_step_s is None else rate_step_s
    return np.minimum(running / step, closed_loop_tokens_per_s(concurrency, output_tokens, ttft_s, tpot_s))


def bound_ttft_s(prefill: StepCost, queued_steps, queued_prompts, bound_tpot_s):
    """The bound's first token: one prompt's forward at the roofs, plus the queue for memory:
    queued_steps output steps at the bound's TPOT (queue_steps) and queued_prompts prompts at
    their FLOPs alone (slots_ahead; batched, they share their weight reads)."""
    prompt_flops_s = float(prefill.compute_only_s()[0])
    return float(prefill.at_roofs_s()[0]) + queued_steps * bound_tpot_s + queued_prompts * prompt_flops_s


def _rates(
    sc: ServingScenario, concurrency: int, running: int, tpot_s: float, ttft_s: float, step_s=None, most=np.inf
) -> dict:
    """The answer's rates; `step_s` the bound's rate step, `most` the bound's rate for the estimate."""
    rate = min(float(output_tokens_per_s(concurrency, running, sc.output_tokens, ttft_s, tpot_s, step_s)), most)
    return {
        "ttft_s": ttft_s,
        "tpot_s": tpot_s,
        "output_tokens_per_s_per_gpu": rate / sc.gpus,
        "tokens_per_s_per_user": 1.0 / tpot_s,
    }


def queue_steps(sc: ServingScenario, running):
    """Little's law wait of a queued request in steps: the C - running ahead of it leave at
    running / output per step."""
    return (sc.concurrency - running) * sc.output_tokens / running


def slots_ahead(concurrency, running):
    """Requests queued for memory per running slot, (C - running) / running: each freed slot's
    next request spends its prompt's forward there before its first decode step. The TPOT's
    mixed steps carry the prompts of the other running requests, (running - 1) / output per step,
    not the one that takes the slot next: a queued request waits that many prompts' forwards
    more (at running 1, the whole of each; Little's law over the slot's cycle, output x TPOT plus
    a prompt)."""
    return (concurrency - running) / running


def serving_arrays(
    model: ModelConfig,
    hw: Accelerator,
    sc: ServingScenario,
    concurrency,
    calibration: Calibration | None = None,
    room: Capacity | None = None,
) -> dict:
    """Bound and estimate of the scenario at every concurrency in `concurrency` (an array; the
    scenario's own concurrency is ignored): the same formulas as serving_estimate, one numpy row
    per concurrency. Keys hold arrays (rates, parts, memory) or, for what does not depend on the
    concurrency, scalars. `room` is capacity(model, hw, sc) when the caller has it already (the
    planner checks it before it scores a layout)."""
    sc.check_layout(model.is_moe, max((layer.mlp.num_experts for layer, _ in model.layer_groups), default=0))
    cal = calibration or load_calibration()
    conc = np.atleast_1d(np.asarray(concurrency, dtype=float))
    cap = room if room is not None else capacity(model, hw, sc)
    b = np.minimum(conc, cap.max_running_batch)
    p, backend_used, family = cal.parameters(sc.backend, hw.id)
    steps = serving_steps(model, hw, sc, b)
    step, decode_only, prefill = steps.tpot, steps.decode, steps.prefill
    # tokens per sequence per step: 1, or E(a) under speculative decoding (the bound at the best
    # acceptance of the range, the estimate at its middle)
    spec = sc.speculative
    e_bound, e_est = (1.0, 1.0) if spec is None else (
        float(spec.tokens_per_step(spec.acceptance_high, sc.output_tokens)),
        float(spec.tokens_per_step(spec.acceptance, sc.output_tokens)),
    )  # fmt: skip
    bound_tpot = step.at_roofs_s() / e_bound
    arrays = _as_arrays(p)
    est_step = _estimate_step_s(step, arrays)
    # never below the bound: with more prompts a step than outputs (running - 1 > output) the
    # decode part's weight in the TPOT step goes negative, and its experts' imbalance, larger
    # than the merged step's, can then take the calibrated sum under the roofs' (DeepSeek-R1 on
    # 8 B200 ranks, 128 tokens in and 1 out, 64 clients: 198 against 211 ms); no shipped run
    est_tpot = np.maximum(est_step / e_est, bound_tpot)
    link_est = link_time_s(step.link_est_s, step.messages, step.exchanges, step.scale_out_messages, p) / e_est
    # the decode step's operators alone: its link and fixed costs are their own parts
    d = decode_only
    est_decode_step = _estimate_step_s(d, arrays)
    est_decode = (
        est_decode_step
        - link_time_s(d.link_est_s, d.messages, d.exchanges, d.scale_out_messages, p)
        - fixed_time_s(d.layers, d.requests, p)
    ) / e_est
    overhead = fixed_time_s(step.layers, step.requests, p) / e_est
    bound_prefill = float(prefill.at_roofs_s()[0])
    queue, ahead = (conc - b) * sc.output_tokens / b, slots_ahead(conc, b)
    est_prefill_step = float(_estimate_step_s(prefill, arrays)[0])
    est_wave = steps.wave_steps * _estimate_step_s(steps.chunk, arrays)
    model_factor = cal.ttft_model_factor(model.id)
    bound_ttft = bound_ttft_s(prefill, queue, ahead, bound_tpot)
    # never below the bound: a model's factor under 1 speaks for its kernels, not past its roofs
    queued_prefill = ahead * est_prefill_step
    est_ttft = ttft_estimate_s(
        est_prefill_step, est_tpot, queue, est_wave, p, b, model_factor, steps.steps_per_token, queued_prefill,
        decode_s=est_decode_step / e_est, prompts_per_step=steps.prompts_per_step, output_tokens=sc.output_tokens,
    )  # fmt: skip
    est_ttft = np.maximum(est_ttft, bound_ttft)
    plain = bound_tpot if spec is None else serving_steps(model, hw, replace(sc, speculative=None), b).tpot.at_roofs_s()
    range_kind = cal.range_kind(model.id, hw.id)
    return {
        "concurrency": conc,
        "capacity": cap,
        "running_batch": b,
        "queued": conc - b,
        "queue_steps": queue,
        "prompts_per_step": steps.prompts_per_step,
        "bound_tpot_s": bound_tpot,
        # per output token with every running request's prompt counted (ServingSteps.instance)
        "bound_rate_step_s": steps.instance.at_roofs_s() / e_bound,
        "bound_ttft_s": bound_ttft,
        "bound_prefill_s": bound_prefill,
        "bound_decode_s": (decode_only.at_roofs_s() - decode_only.link_s) / e_bound,
        "bound_link_s": step.link_s / e_bound,
        "bound_tpot_s_without_speculation": plain,
        "estimate_step_s": est_step,
        "estimate_tpot_s": est_tpot,
        "estimate_ttft_s": est_ttft,
        "estimate_prefill_s": model_factor * p["ttft_prefill_factor"] * est_prefill_step,
        "ttft_model_factor": model_factor,
        "estimate_decode_s": est_decode,
        "estimate_link_s": link_est,
        "estimate_overhead_s": overhead,
        "ranges": cal.ranges(range_kind),
        "range_kind": range_kind,
        "parameters": p,
        "backend_used": backend_used,
        "family": family,
        "calibration": cal,
    }


def serving_estimate(
    model: ModelConfig,
    hw: Accelerator,
    sc: ServingScenario,
    calibration: Calibration | None = None,
    check_finite: bool = True,
) -> dict:
    """Bound and estimate of one serving scenario (pure; SI units; every number finite; a
    caller that checks the numbers it keeps, the curve, may skip the whole-answer check)."""
    a = serving_arrays(model, hw, sc, [sc.concurrency], calibration)
    result = answer_at(a, 0, model, hw, sc)
    if check_finite:
        ensure_finite(result)
    return result


def answer_at(a: dict, i: int, model: ModelConfig, hw: Accelerator, sc: ServingScenario) -> dict:
    """The answer's dict for row i of serving_arrays (the API's shape)."""
    cap, cal, p = a["capacity"], a["calibration"], a["parameters"]
    b = int(a["running_batch"][i])
    c = int(a["concurrency"][i])
    bound_tpot, est_tpot = float(a["bound_tpot_s"][i]), float(a["estimate_tpot_s"][i])
    bound_ttft, est_ttft = float(a["bound_ttft_s"][i]), float(a["estimate_ttft_s"][i])
    est_prefill = float(a["estimate_prefill_s"])
    bound_parts = _breakdown(bound_tpot, float(a["bound_decode_s"][i]), float(a["bound_link_s"][i]), 0.0)
    est_parts = _breakdown(
        est_tpot, float(a["estimate_decode_s"][i]), float(a["estimate_link_s"][i]), float(a["estimate_overhead_s"][i])
    )
    ranges = a["ranges"]
    spec = sc.speculative
    tpot_range = _range(est_tpot, bound_tpot, ranges["tpot"])
    if spec is not None:  # the range spans the acceptance range too
        step = float(a["estimate_step_s"][i])
        fast, slow = (
            step / float(spec.tokens_per_step(spec.acceptance_high, sc.output_tokens)),
            step / float(spec.tokens_per_step(spec.acceptance_low, sc.output_tokens)),
        )
        tpot_range = [max(fast * ranges["tpot"][0], bound_tpot), max(slow * ranges["tpot"][1], bound_tpot)]
    bound_step = float(a["bound_rate_step_s"][i])
    bound = _rates(sc, c, b, bound_tpot, bound_ttft, bound_step)
    # never faster than the bound: a lone prompt's calibrated TTFT and a TPOT that carries the
    # other running requests' prompts need not add up to every prompt's work
    estimate = _rates(sc, c, b, est_tpot, est_ttft, most=bound["output_tokens_per_s_per_gpu"] * sc.gpus) | {
        "tpot_s_range": tpot_range,
        "ttft_s_range": _range(est_ttft, bound_ttft, ranges["ttft"]),
        "range_kind": a["range_kind"],
    }
    queued = c - b
    return {
        "model": model.id,
        "hardware": hw.id,
        "gpus": sc.gpus,
        "running_batch": b,
        "queued": queued,
        "queue_reason": cap.reason_at(c),
        "bound": bound,
        "estimate": estimate,
        "breakdown": {
            "tpot": {"bound": bound_parts, "estimate": est_parts},
            "ttft": {
                "bound": {"prefill_s": a["bound_prefill_s"], "wait_s": bound_ttft - a["bound_prefill_s"]},
                "estimate": {"prefill_s": est_prefill, "wait_s": est_ttft - est_prefill},
            },
            "memory": _memory(cap),
            "prompts_per_step": float(a["prompts_per_step"][i]),
            # the bound's step per output token with every running request's own prompt too:
            # what its rate divides (ServingSteps.instance)
            "rate_step_s": {"bound": bound_step},
            "mean_context_tokens": sc.mean_context,
        },
        "calibration": {
            "id": cal.id,
            "backend": a["backend_used"],
            "family": a["family"] or "any",
            "rows": cal.data["fitted_on"]["rows"],
            "parameters": p,
            "ttft_model_factor": a["ttft_model_factor"],
        },
        "warnings": _warnings(model, sc, hw, cal, a["family"], cap.reason_at(c) if queued else None),
        "speculative": None
        if spec is None
        else speculative_block(spec, float(a["bound_tpot_s_without_speculation"][i]), sc.output_tokens),
    }


def speculative_block(spec, plain_bound_s: float, output_tokens: int) -> dict:
    """An answer's `speculative`: the method, its acceptance range and tokens per step, and the
    bound's TPOT without speculation (aggregated and disaggregated answers alike)."""
    return {
        "method": spec.method,
        "draft_tokens": spec.draft_tokens,
        "acceptance_rate": [spec.acceptance_low, spec.acceptance_high],
        "tokens_per_step": {
            "low": float(spec.tokens_per_step(spec.acceptance_low, output_tokens)),
            "estimate": float(spec.tokens_per_step(spec.acceptance, output_tokens)),
            "high": float(spec.tokens_per_step(spec.acceptance_high, output_tokens)),
        },
        # measured runs are checked against this one: no run without speculation beats it
        "bound_tpot_s_without_speculation": plain_bound_s,
    }


def _breakdown(total_s: float, decode_s: float, communication_s: float, overhead_s: float) -> dict:
    """TPOT's parts: decode of the running batch, the prefill chunk's share, the link, the
    fixed overhead; the share is what the chunk adds to the step (they share a weight read)."""
    prefill = max(total_s - decode_s - communication_s - overhead_s, 0.0)
    return {
        "total_s": total_s,
        "decode_s": decode_s,
        "prefill_share_s": prefill,
        "communication_s": communication_s,
        "overhead_s": overhead_s,
    }


def _range(estimate_s: float, bound_s: float, quantiles: list[float]) -> list[float]:
    """estimate x (measured / estimate at the partition's p10, p90), never below the bound."""
    low, high = estimate_s * quantiles[0], estimate_s * quantiles[1]
    return [max(low, bound_s), max(high, bound_s)]


def _memory(cap) -> dict:
    return {
        "weights_bytes_per_gpu": cap.weights_bytes_per_gpu,
        "kv_bytes_per_request_per_gpu": cap.kv_bytes_per_request,
        "workspace_bytes_per_request": cap.workspace_bytes_per_request,
        "usable_bytes_per_gpu": cap.usable_bytes_per_gpu,
        "max_running_batch": cap.max_running_batch,
    }


def _warnings(
    model: ModelConfig, sc: ServingScenario, hw: Accelerator, cal: Calibration, family: str | None, queue: str | None
) -> list[str]:
    return ([queue] if queue else []) + scenario_warnings(model, sc, hw, cal, family)


def scenario_warnings(
    model: ModelConfig, sc: ServingScenario, hw: Accelerator, cal: Calibration, family: str | None
) -> list[str]:
    """What an instance of `sc` on `hw` assumed or cannot be: the aggregated answer's warnings,
    and each side's of a disaggregated one."""
    out = roof_warnings(hw, sc.compute_dtype, sc.weight_dtype)
    if not model.is_moe and (sc.expert_parallel > 1 or sc.moe_tensor_parallel > 1):
        out.append(
            f"expert_parallel {sc.expert_parallel} and moe_tensor_parallel {sc.moe_tensor_parallel} split a MoE "
            f"model's experts; {model.id} has none, so they change nothing here"
        )
    if family is None:
        out.append(
            f"{hw.id} is in no calibrated accelerator family ({', '.join(cal.families)}): the estimate uses "
            "the global parameters; expect a larger error than the README's held-out table"
        )
    heads = model.num_heads
    if heads % sc.tensor_parallel:
        n = shard_degree(heads, sc.tensor_parallel)
        out.append(
            f"tensor_parallel {sc.tensor_parallel} does not divide the {heads} attention heads: the busiest GPU "
            f"holds {heads // n} of them, counted as tensor parallel {n} for attention and the dense layers"
        )
    vendors = BACKEND_VENDORS.get(sc.backend or "", (hw.vendor,))
    if hw.vendor not in vendors:
        out.append(
            f"{sc.backend} runs on {', '.join(vendors)} accelerators, not on {hw.id} ({hw.vendor}): the "
            "numbers are its calibration's on this accelerator's roofs, for a deployment nobody can launch"
        )
    out += context_window_warnings(model, sc.input_tokens, sc.output_tokens)
    out += length_warnings(cal, sc.input_tokens, sc.output_tokens)
    domain = getattr(hw, "scale_up_domain_size", None)
    if isinstance(domain, int) and sc.gpus > domain:
        out.append(
            f"{sc.gpus} GPUs exceed {hw.id}'s {domain}-GPU scale-up domain: the link time uses the scale-up "
            "bandwidth, so the bound stays a bound but the estimate is optimistic"
        )
    return out


def roof_warnings(hw: Accelerator, compute_dtype: str, weight_dtype: str) -> list[str]:
    """A precision whose tensor roof the card lacks (fp4 on Hopper): counted at the next one."""
    roof, _ = hw.tensor_roof(compute_dtype)
    if roof == compute_dtype:
        return []
    return [
        f"{hw.id} has no {compute_dtype} tensor roof: {compute_dtype} matrix multiplies are counted at "
        f"its {roof} peak, as a kernel that converts the {weight_dtype} weights would run them"
    ]


def length_warnings(cal: Calibration, input_tokens: int, output_tokens: int) -> list[str]:
    """Lengths outside those of the runs the calibration was fitted on."""
    outside = cal.lengths_outside(input_tokens, output_tokens)
    if not outside:
        return []
    return [
        f"{' and '.join(outside)}: outside the lengths the estimate was fitted on, its fitted waits and "
        "overheads extrapolate (with a handful of output tokens a step carries whole prompts); the bound holds"
    ]


def context_window_warnings(model: ModelConfig, input_tokens: int, output_tokens: int) -> list[str]:
    """A request longer than the model's context window (its config's max_position_embeddings):
    a server refuses it (vLLM's max_model_len defaults to the window) unless the window is
    extended, and the answer is for a model that would take it."""
    window, total = model.max_position_embeddings, input_tokens + output_tokens
    if not window or total <= window:
        return []
    return [
        f"input + output tokens ({total:,}) exceed {model.id}'s context window of {window:,} tokens "
        "(max_position_embeddings): a server refuses such requests unless it extends the window (RoPE "
        "scaling such as YaRN); the numbers are those of a model that takes them"
    ]


_LEAF_TYPES = frozenset((str, int, bool, type(None)))


def ensure_finite(node) -> None:
    """Raise if any float in a nested answer (dicts and lists) is not finite."""
    # A loop, not recursion. An answer's ~140 nodes are dicts, lists, floats, ints and strings:
    # their exact types are checked first (a third of the time of isinstance), subclasses after.
    pending = [node]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                raise ValueError("a serving number is not finite")  # a bug, never bad input
        elif kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind in _LEAF_TYPES:
            continue
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ValueError("a serving number is not finite")
