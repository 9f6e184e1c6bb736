"""The work of one GPU in one serving step, split into the parts the estimate calibrates.

A step of an aggregated server (continuous batching, Yu et al., "Orca", OSDI 2022) decodes one
token for each of the rank's running requests (b = ceil(running / attention_data_parallel) on
the busiest rank), each
attending to its whole context (mean context = input + output / 2). Besides, prompts of newly
admitted requests are prefilled in the same steps (chunked prefill: Agrawal et al.,
"Sarathi-Serve", OSDI 2024; vLLM and TensorRT-LLM schedule this way). While one request
decodes its `output` tokens, the other running - 1 requests each bring one prompt, so a step
carries w = (running - 1) / output prompts on average (the request's own prompt is in its TTFT,
not in its TPOT; at concurrency 1 nothing interleaves). The server as a whole, though, takes
every running request's prompt once per its output: running / output a step, and a decode step
for all but the first of a request's tokens, which its prompt's forward gives. That is the
`instance` step its output rate counts (the difference is one prompt per output, which for
outputs of a token or two is most of the step).

A prompt merged into a decode step shares the step's weight read and adds its tokens to the
linear layers, the experts it routes to and its causal attention. So the step's work is
(1 - w) x D + w x M, op by op, with D the decode-only step and M the step with one whole prompt
merged in; each op's time is monotone in its FLOPs and bytes, so M - D >= 0 term by term.

Op counts come from engine.transformer on the tensor-parallel shard; routed experts are counted
over the whole instance's tokens and split moe_tensor_parallel x expert_parallel ways. Each op
is kept as (compute s, memory s) at the ideal roofs with a category and a weight, so the bound
(roofs as they are) and the estimate (calibrated roofs) come from one count. Weight-only
quantised GEMMs add a DEQUANT op (the conversion of their weights, estimate only), and each
step records how many requests its busiest rank schedules (a CPU cost each, estimate only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..analysis import Roofs
from ..cache import byte_lru_cache
from ..hardware import Accelerator
from ..model import ModelConfig
from ..ops import Op, linear
from ..transformer import STREAM_BYTES, Widths, _mlp_block, decode_ops, experts_touched, prefill_ops
from .scenario import ServingScenario, shard_degree
from .speculative import draft_of

# Op categories: the estimate scales each one with its own achieved fraction.
DENSE, EXPERT, ATTN_DECODE, ATTN_PREFILL, DEQUANT = 0, 1, 2, 3, 4
CATEGORIES = ("dense", "expert", "attention_decode", "attention_prefill", "dequant")
_EXPERT_OPS = ("expert_gate_proj", "expert_up_proj", "expert_down_proj")
_LOGIT_OPS = ("lm_head", "logits_softmax")


@dataclass(frozen=True)
class StepCost:
    """One GPU's step at the ideal roofs, for R running batches at once (one row each): per-op
    compute and memory seconds with category and weight, and the step's communication over the
    scale-up link. Ops lie on the last axis, rows on the first; a single scenario is R = 1."""

    category: np.ndarray  # (K,) int codes, see CATEGORIES
    weight: np.ndarray  # (R, K) how many times the op counts in the step (module docstring)
    compute_s: np.ndarray  # (R, K)
    memory_s: np.ndarray  # (R, K)
    link_s: np.ndarray  # (R,) TP all-reduces and EP dispatch/combine at the scale-up link (the bound's)
    link_est_s: np.ndarray  # (R,) the same with the part past the scale-up domain on the scale-out NIC
    messages: int  # all-reduces in the step (each pays a latency in the estimate)
    exchanges: int  # expert-parallel dispatches and combines (each pays a latency in the estimate)
    layers: int  # transformer layers (each pays a fixed cost in the estimate)
    requests: np.ndarray  # (R,) requests the busiest rank's scheduler handles (estimate: a cost each)
    scale_out_messages: int = 0  # all-reduces whose group spans scale-up domains (estimate: a latency each)
    expert_factor: np.ndarray | None = None  # (R, K) busiest GPU's routed-expert share over the mean (estimate)
    experts_split_whole: bool = False  # experts spread whole over GPUs (expert_parallel > 1): routing skew shows

    def at_roofs_s(self) -> np.ndarray:
        """The bound: ops back to back, each at its roof, plus the link time. A weight-only
        GEMM's conversion of its weights (DEQUANT) is left out: an ideal kernel could hide it."""
        counted = self.weight * (self.category != DEQUANT)
        return (counted * np.maximum(self.compute_s, self.memory_s)).sum(axis=-1) + self.link_s

    def compute_only_s(self) -> np.ndarray:
        """The ops' FLOPs alone at their roofs (no memory, no link): what a prompt adds to any
        batch it joins, however the batch shares its weight reads (a bound on its marginal cost)."""
        counted = self.weight * (self.category != DEQUANT)
        return (counted * self.compute_s).sum(axis=-1)

    def row(self, i: int) -> StepCost:
        """Row i alone (R = 1): what the fit stacks scenario by scenario."""
        return self.rows(i, i + 1)

    def rows(self, start: int, stop: int) -> StepCost:
        """Rows start to stop - 1: one block of a step built over stacked batches."""
        r = slice(start, stop)
        return StepCost(
            self.category,
            self.weight[r],
            self.compute_s[r],
            self.memory_s[r],
            self.link_s[r],
            self.link_est_s[r],
            self.messages,
            self.exchanges,
            self.layers,
            self.requests[r],
            self.scale_out_messages,
            None if self.expert_factor is None else self.expert_factor[r],
            self.experts_split_whole,
        )


def _op_times(ops, roofs: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(compute s, memory s) of each op under (tensor FLOP/s, vector FLOP/s, bytes/s), ops on the
    last axis (an op's FLOPs and bytes may be arrays over rows: they broadcast)."""
    units, bw = {"tensor": roofs[0], "vector": roofs[1]}, roofs[2]
    compute = [np.asarray(op.flops / units[op.unit], dtype=float) for op in ops]
    memory = [np.asarray(op.bytes / bw, dtype=float) for op in ops]
    shape = np.broadcast_shapes(*(c.shape for c in compute), *(m.shape for m in memory))
    return (
        np.stack([np.broadcast_to(c, shape) for c in compute], axis=-1),
        np.stack([np.broadcast_to(m, shape) for m in memory], axis=-1),
    )


def _dense_ops(shard: ModelConfig, w: Widths, tokens: float) -> list[Op]:
    """Linear, norm and dense-MLP ops of a rank over `tokens` tokens (weights read once); routed
    experts, attention cores and the logits are counted apart."""
    ops = decode_ops(shard, tokens, 1, w)
    return [op for op in ops if op.name not in _EXPERT_OPS + _LOGIT_OPS and not op.name.startswith("attention")]


def _lm_head(shard: ModelConfig, w: Widths, rows: float) -> list[Op]:
    return [linear("lm_head", rows, shard.vocab_size, shard.hidden_size, w.weight, w.gemm_in, STREAM_BYTES)]


def _affine(build, roofs: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every dense op's FLOPs and bytes are affine in its token count (weights once, activations
    per token: engine.ops.linear and elementwise), so two counts give every other one."""
    c1, m1 = _op_times(build(1.0), roofs)
    c2, m2 = _op_times(build(2.0), roofs)
    return 2 * c1 - c2, 2 * m1 - m2, c2 - c1, m2 - m1


@dataclass(frozen=True)
class _Template:
    """What a step costs per token, per decode request and per prompt: built once per model,
    accelerator and scenario shape, then any running batch is arithmetic."""

    dense: tuple  # (compute at 0 tokens, memory at 0, compute per token, memory per token)
    lm_head: tuple  # the same per logit row
    attention_per_request: tuple[np.ndarray, np.ndarray]  # decode attention of one request
    prompt_attention: tuple[np.ndarray, np.ndarray]  # causal attention of one whole prompt
    link_s_per_token: float
    link_est_s_per_token: float
    messages: int
    exchanges: int
    scale_out_messages: int
    weight_elements: float  # dense and LM-head weights a weight-only GEMM converts (0: none)
    vector_flops_per_s: float
    experts_split_whole: bool = False
    experts: tuple | None = None  # _expert_template: each routed-expert op's seconds per token and per expert hit
    alone: StepCost | None = None  # one prompt prefilled alone (TTFT): built with the template


# The step cache's budget: an entry is a few KB (a template's arrays and its lone prompt's
# step), a model is counted once however many entries hold it, so thousands of scenarios fit and
# no user's model outlives its share of the budget (engine/cache.py).
STEP_CACHE_BYTES = 16 * 1024 * 1024


@byte_lru_cache(STEP_CACHE_BYTES)
def _template(
    model: ModelConfig, roofs: tuple, link: tuple[float, int, float] | None, shape: ServingScenario
) -> _Template:
    shard = model.shard(shard_degree(model.num_heads, shape.tensor_parallel))
    w = shape.widths
    decode_att = [op for op in decode_ops(shard, 1, shape.mean_context, w) if op.name.startswith("attention")]
    prompt_att = [op for op in prefill_ops(shard, 1, shape.input_tokens, w) if op.name.startswith("attention")]
    link_s, messages, exchanges = _communication(model, shape, link, 1.0, scale_out=False)
    link_est_s = _communication(model, shape, link, 1.0, scale_out=True)[0]
    # The bound's ideal fabric puts every GPU on the scale-up link. Where the scale-out NIC is the
    # faster of the two (a PCIe card: 32 GB/s of PCIe against a 50 GB/s NIC), the real topology
    # at its peaks, the part past the domain on the NIC alongside, is quicker: the bound takes it,
    # or it would exceed the estimate (Qwen3-30B-A3B decoding on 32 L40S, MoE TP 32: 82 ms
    # bound, 54 ms estimate).
    link_s = min(link_s, link_est_s)
    # A tensor-parallel group wider than the scale-up domain all-reduces across nodes: each of
    # its all-reduces also pays the network's latency (the estimate's scale_out_latency_s).
    domain = link[1] if link else shape.gpus
    scale_out_messages = messages if shape.tensor_parallel > domain else 0
    dense, lm_head = _affine(lambda t: _dense_ops(shard, w, t), roofs), _affine(lambda r: _lm_head(shard, w, r), roofs)
    # Weights read at zero tokens (memory s x bytes/s), in elements, when they need converting.
    elements = (dense[1].sum() + lm_head[1].sum()) * roofs[2] / w.weight if weight_only(w) else 0.0
    t = _Template(
        dense,
        lm_head,
        _op_times(decode_att, roofs),
        _op_times(prompt_att, roofs),
        link_s,
        link_est_s,
        messages,
        exchanges,
        scale_out_messages,
        float(elements),
        roofs[1],
        shape.expert_parallel > 1,
        _expert_template(model, shape, roofs),
    )
    alone = _part(model, roofs, shape, t, 0.0, 0.0, float(shape.input_tokens))
    return replace(t, alone=_combine([alone], [1.0], t, model.num_layers, 1.0))


# Weight-only quantisation (W4A16: int4 or fp4 weights, 16-bit activations) converts every
# weight to the activations' type inside the GEMM's main loop, on the CUDA cores, before the
# tensor cores multiply it (Frantar et al., "MARLIN: Mixed-Precision Auto-Regressive Parallel
# Inference on Large Language Models", 2024, §3; Lin et al., "QServe", MLSys 2025, §3: the
# conversion's CUDA-core work is the W4A16 kernels' main overhead on Ampere and Hopper). A
# kernel converts a weight tile once per block of rows it multiplies: Marlin takes at most
# 4 x 16 = 64 rows per pass over the weights (its thread_m_blocks <= 4) and makes more passes
# for more rows. The estimate charges dequant_ops_per_weight vector operations per element per
# pass (engine.serving.calibration); the bound charges none.
DEQUANT_ROWS_PER_PASS = 64


def weight_only(w: Widths) -> bool:
    """Weights stored narrower than the GEMM's input (int4/fp4 weights, bf16 activations)."""
    return w.weight < w.gemm_in


def dequant_passes(rows):
    return np.maximum(1.0, np.asarray(rows, dtype=float) / DEQUANT_ROWS_PER_PASS)


def _expert_ops(model: ModelConfig, sc: ServingScenario, instance_tokens: float) -> list[Op]:
    """Routed experts of the instance's tokens (engine.transformer's MoE count: the experts
    touched by uniform routing), one GPU's share of moe_tensor_parallel x expert_parallel."""
    split = sc.moe_tensor_parallel * sc.expert_parallel
    out = []
    for layer, count in model.layer_groups:
        if not layer.mlp.is_moe:
            continue
        for op in _mlp_block(layer.mlp, model.hidden_size, instance_tokens, model.activation, sc.widths):
            if op.name in _EXPERT_OPS:
                out.append(Op(op.name, op.unit, op.flops * count / split, op.bytes * count / split))
    return out


def _expert_template(model: ModelConfig, sc: ServingScenario, roofs: tuple) -> tuple | None:
    """Each routed-expert op of _expert_ops as (experts, k, compute s per token, memory s per
    expert hit, memory s per token): its FLOPs grow with the token-expert pairs and its bytes
    with the experts hit (weights) and the pairs (activations), engine.transformer._mlp_block.
    Read off _expert_ops at one and two tokens, so the counts stay written once; any token
    count is then arithmetic (no op objects per step)."""
    one, two = _expert_ops(model, sc, 1.0), _expert_ops(model, sc, 2.0)
    if not one:
        return None
    moe = [layer.mlp for layer, _ in model.layer_groups if layer.mlp.is_moe]
    routing = [(mlp.num_experts, mlp.experts_per_token) for mlp in moe]
    per_op = [pair for pair, n in zip(routing, _expert_op_counts(model), strict=True) for _ in range(n)]
    e = np.array([p[0] for p in per_op], dtype=float)
    k = np.array([p[1] for p in per_op], dtype=float)
    c1, m1 = _op_times(one, roofs)
    _, m2 = _op_times(two, roofs)
    h1, h2 = experts_touched(e, k, 1.0), experts_touched(e, k, 2.0)
    # m(T) = hit(T) x per_hit + T x per_token, from T = 1 and 2
    per_token = (m1 * h2 - m2 * h1) / (h2 - 2.0 * h1)  # h2 - 2 h1 = -k^2 / E: never zero
    per_hit = (m1 - per_token) / h1
    return e, k, c1, per_hit, per_token


def _expert_op_counts(model: ModelConfig) -> list[int]:
    """Routed-expert ops per MoE layer group: gate (when gated), up and down projections."""
    return [3 if layer.mlp.gated else 2 for layer, _ in model.layer_groups if layer.mlp.is_moe]


def _expert_times(t: _Template, sc: ServingScenario, tokens: np.ndarray):
    """(compute s, memory s, busiest-GPU factor) of every routed-expert op at each row's
    instance tokens, from the template (see _expert_template)."""
    e, k, c, per_hit, per_token = t.experts
    col = tokens[:, None]
    if (e == e[0]).all() and (k == k[0]).all():  # one routing for every MoE layer (the usual case): once
        hit = experts_touched(e[0], k[0], col)
        factor = expert_parallel_imbalance(e[0], k[0], sc.expert_parallel, col)
    else:
        hit = experts_touched(e, k, col)
        factor = expert_parallel_imbalance(e, k, sc.expert_parallel, col)
    return col * c, hit * per_hit + col * per_token, factor


def expert_parallel_imbalance(num_experts, k, ep: int, tokens) -> np.ndarray:
    """The busiest of `ep` GPUs' routed token-expert pairs over the mean, each GPU holding
    num_experts / ep whole experts and `tokens` tokens each routed to k of them uniformly.

    A token's pairs on one GPU are hypergeometric (k draws from num_experts, num_experts / ep of
    them there): variance k (1/ep)(1 - 1/ep)(E - k)/(E - 1) per token, so over T tokens the mean
    is T k / ep and the standard deviation sqrt(T x that); the expected largest of ep near-normal
    counts is about mean + sd x sqrt(2 ln ep) (the Gaussian maximum's leading term; David &
    Nagaraja, "Order Statistics", 3rd ed., §10.5). Under moe_tensor_parallel every GPU holds a
    slice of every expert and gets exactly the mean: 1. Used by the estimate only: the bound
    keeps the mean (a router that balances perfectly, as redundant experts can, meets it)."""
    tokens = np.asarray(tokens, dtype=float)
    if ep <= 1:
        return np.ones_like(tokens)
    per_token = k * (1.0 / ep) * (1.0 - 1.0 / ep) * (num_experts - k) / np.maximum(num_experts - 1, 1)
    mean = np.maximum(tokens * k / ep, 1e-12)
    return 1.0 + np.sqrt(np.maximum(tokens, 0.0) * per_token) * np.sqrt(2.0 * np.log(ep)) / mean


def _expert_elements(model: ModelConfig, sc: ServingScenario, instance_tokens) -> np.ndarray:
    """Routed-expert weight elements one GPU converts in a step: each expert touched (uniform
    routing, as _expert_ops) once per pass over its share of the token-expert pairs."""
    split = sc.moe_tensor_parallel * sc.expert_parallel
    tokens = np.asarray(instance_tokens, dtype=float)
    total = np.zeros_like(tokens)
    for layer, count in model.layer_groups:
        mlp = layer.mlp
        if not mlp.is_moe:
            continue
        hit = experts_touched(mlp.num_experts, mlp.experts_per_token, tokens)
        per_expert = (3 if mlp.gated else 2) * mlp.intermediate_size * model.hidden_size
        rows = tokens * mlp.experts_per_token / np.where(hit > 0, hit, 1.0)
        total = total + np.where(tokens > 0, hit * per_expert * dequant_passes(rows) * count / split, 0.0)
    return total


# Past the scale-up domain (an 8-GPU HGX board), GPUs meet over the scale-out network: one
# NIC per GPU, the card's scale_out_bytes_per_s (hardware/*.yaml, sourced). The estimate counts
# that; the bound does not (an ideal fabric: a system may join more GPUs in one domain, NVL72,
# than its card's file says), so it stays a bound. A card with no sourced NIC gets one
# 400 Gb/s ConnectX-7 per GPU (NVIDIA DGX H100 and DGX B200 datasheets) = 50 GB/s.
SCALE_OUT_BYTES_PER_S = 50e9


def scale_out_bytes_per_s(hw: Accelerator) -> float:
    return getattr(hw, "scale_out_bytes_per_s", None) or SCALE_OUT_BYTES_PER_S


def _allreduce_s(size_bytes: float, n: int, domain: int, link: float, nic: float = SCALE_OUT_BYTES_PER_S) -> float:
    """Ring all-reduce of size_bytes on n GPUs (Patarasuk & Yuan 2009: 2 (n-1)/n x size / link);
    past the scale-up domain the hierarchical form (NCCL's): reduce-scatter and all-gather inside
    each domain of d GPUs over the scale-up link, the all-reduce of each GPU's 1/d part across
    the m = n / d domains over the scale-out network."""
    if n <= domain:
        return size_bytes * 2 * (n - 1) / n / link
    m = n / domain
    return size_bytes * 2 * (domain - 1) / domain / link + size_bytes / domain * 2 * (m - 1) / m / nic


def _alltoall_s(
    token_bytes: float,
    tokens: float,
    k: int,
    g: int,
    domain: int,
    link: float,
    nic: float = SCALE_OUT_BYTES_PER_S,
    groups: int | None = None,
) -> float:
    """Dispatch and combine of `tokens` tokens, each routed to k of the experts spread over g GPUs
    in `groups` expert-parallel groups (default g: one GPU a group), each group's GPUs holding
    slices of the same experts (MoE tensor parallelism inside the group). A token goes once to
    each GPU whose group holds any of its experts (DeepEP's dispatch layout, is_token_in_rank),
    and across nodes once to each other node holding any (DeepEP's internode kernels send it over
    RDMA to one GPU there, which forwards it over NVLink; deepseek-ai/DeepEP README). With
    uniform routing that is (d-1)(1 - (1 - 1/groups)^k) copies over the scale-up link to the other
    d-1 GPUs of the sender's domain and (m-1)(1 - (1 - 1/min(m, groups))^k) over the scale-out
    network to the other m = g / d domains; both directions at once. Expert parallelism alone
    (groups = g) sends a token to the few GPUs of its experts; MoE tensor parallelism alone
    (groups = 1) to every GPU, an all-gather of the tokens and a reduce-scatter of the outputs."""
    groups = g if groups is None else groups
    d = min(domain, g)
    m = g / d
    inside = (d - 1) * (1.0 - (1.0 - 1.0 / groups) ** k) * tokens * token_bytes / link
    outside = (m - 1) * (1.0 - (1.0 - 1.0 / min(m, groups)) ** k) * tokens * token_bytes / nic
    return max(inside, outside)


def _communication(
    model: ModelConfig, sc: ServingScenario, link: tuple[float, int, float] | None, rank_tokens: float, scale_out: bool
):
    """(link s, all-reduces, all-to-alls) of one step; `link` is (scale-up bytes/s per direction, domain
    size, scale-out NIC bytes/s per GPU).

    - Tensor parallelism: all-reduces of the rank's tokens' hidden states in 16-bit, two per
      layer (Megatron-LM §3; one per layer under attention DP, where the MoE output returns by
      the combine).
    - Expert parallelism with attention DP: each MoE layer sends every token to the GPUs
      holding its k experts and back (dispatch in the compute dtype, combine in 16-bit), once
      per GPU and once per other node (DeepSeek-V3 technical report §3.2.2; DeepEP's
      dispatch/combine kernels; see _alltoall_s).
    """
    if sc.gpus == 1 or link is None:
        return 0.0, 0, 0
    bandwidth, domain, nic = link
    if not scale_out:  # the bound: an ideal fabric, every GPU on the scale-up link
        domain = max(domain, sc.gpus)
    h, layers, n = model.hidden_size, model.num_layers, sc.tensor_parallel
    moe_layers = sum(c for layer, c in model.layer_groups if layer.mlp.is_moe)
    total = 0.0
    messages = exchanges = 0
    if n > 1:
        count = 2 * layers if sc.attention_data_parallel == 1 else layers
        total += count * _allreduce_s(rank_tokens * h * STREAM_BYTES, n, domain, bandwidth, nic)
        messages += count
    if moe_layers and sc.attention_data_parallel > 1:
        g = sc.moe_tensor_parallel * sc.expert_parallel
        k = max(layer.mlp.experts_per_token for layer, _ in model.layer_groups)
        token_bytes = h * (min(sc.widths.gemm_in, STREAM_BYTES) + STREAM_BYTES)
        total += moe_layers * _alltoall_s(token_bytes, rank_tokens, k, g, domain, bandwidth, nic, sc.expert_parallel)
        exchanges += 2 * moe_layers
    return total, messages, exchanges


def _part(
    model: ModelConfig,
    roofs: tuple,
    sc: ServingScenario,
    t: _Template,
    running,
    decode_b,
    prompt,
    prompts=1.0,
    queries=1.0,
):
    """The busiest rank's step with decode_b decode tokens and `prompt` prompt tokens merged in
    (0: none), carrying `prompts` whole prompts' causal attention (a chunk of the prompts'
    tokens carries that share of their attention). Under attention DP the ranks meet at every
    MoE layer, so a prompt on any rank holds up the step for all: the experts see all `running`
    tokens of the other ranks plus this rank's. Arguments are arrays over rows (or scalars);
    every op is present in every row, at zero where a row has none of it, so rows share one op
    layout. Under speculative decoding each decoding request brings `queries` tokens to verify:
    the GEMMs see them all, its attention reads its cache once for all of them."""
    running, decode_b, prompt = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (running, decode_b, prompt))
    rows = max(len(running), len(decode_b), len(prompt))
    prompts = np.where(prompt > 0, np.asarray(prompts, dtype=float), 0.0)
    decode_tokens = decode_b * queries
    tokens = decode_tokens + prompt
    layout = _op_layout(t)
    compute, memory = np.empty((rows, len(layout.category))), np.empty((rows, len(layout.category)))
    factor = np.ones((rows, len(layout.category)))
    col = tokens[:, None]
    c0, m0, dc, dm = t.dense
    span = layout.spans
    compute[:, span["dense"]], memory[:, span["dense"]] = c0 + col * dc, m0 + col * dm
    c0, m0, dc, dm = t.lm_head
    logit_rows = (decode_tokens + (prompt > 0))[:, None]
    compute[:, span["lm_head"]], memory[:, span["lm_head"]] = c0 + logit_rows * dc, m0 + logit_rows * dm
    routed = running * queries + prompt
    if t.experts is not None:
        compute[:, span["expert"]], memory[:, span["expert"]], factor[:, span["expert"]] = _expert_times(t, sc, routed)
    if t.weight_elements:
        elements = t.weight_elements * dequant_passes(tokens) + _expert_elements(model, sc, routed)
        compute[:, span["dequant"]], memory[:, span["dequant"]] = (elements / t.vector_flops_per_s)[:, None], 0.0
    compute[:, span["attention_decode"]] = (decode_b * queries)[:, None] * t.attention_per_request[0]
    memory[:, span["attention_decode"]] = decode_b[:, None] * t.attention_per_request[1]
    compute[:, span["attention_prefill"]] = prompts[:, None] * t.prompt_attention[0]
    memory[:, span["attention_prefill"]] = prompts[:, None] * t.prompt_attention[1]
    link = (t.link_s_per_token * tokens, t.link_est_s_per_token * tokens)
    return layout.category, compute, memory, link, factor


@dataclass(frozen=True)
class _OpLayout:
    """Where each category's ops sit in a part's op axis (the same in every row and part)."""

    category: np.ndarray
    spans: dict


def _op_layout(t: _Template) -> _OpLayout:
    cached = t.__dict__.get("_layout")
    if cached is not None:
        return cached
    counts = [
        ("dense", DENSE, len(t.dense[0])),
        ("lm_head", DENSE, len(t.lm_head[0])),
        ("expert", EXPERT, 0 if t.experts is None else len(t.experts[0])),
        ("dequant", DEQUANT, 1 if t.weight_elements else 0),
        ("attention_decode", ATTN_DECODE, len(t.attention_per_request[0])),
        ("attention_prefill", ATTN_PREFILL, len(t.prompt_attention[0])),
    ]
    spans, cats, start = {}, [], 0
    for name, code, n in counts:
        spans[name] = slice(start, start + n)
        cats += [code] * n
        start += n
    layout = _OpLayout(np.array(cats, dtype=np.int8), spans)
    object.__setattr__(t, "_layout", layout)  # the template is frozen; its layout is derived once
    return layout


def _split_rows(part: tuple, count: int) -> list[tuple]:
    """A _part over `count` stacked blocks of rows, as `count` parts (the op layout is shared)."""
    category, compute, memory, link, factor = part
    rows = len(compute) // count

    def block(a, i):
        return a[i * rows : (i + 1) * rows]

    return [
        (category, block(compute, i), block(memory, i), (block(link[0], i), block(link[1], i)), block(factor, i))
        for i in range(count)
    ]


def _per_row(value, rows: int) -> np.ndarray:
    """A weight or count (a number or an array over rows) as an array of `rows`."""
    value = np.asarray(value, dtype=float)
    return value if value.shape == (rows,) else np.full(rows, value)


def _joined(arrays: list, axis: int = 0) -> np.ndarray:
    """np.concatenate, without the copy when there is one array (most steps have one part)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=axis)


def _op_weights(ws: list, widths: list) -> np.ndarray:
    """Each op's weight (rows x ops): its part's weight over the row. A lone part of weight 1
    (a decode or prefill step alone) is all ones, without the stack and repeat."""
    if len(ws) == 1 and (ws[0] == 1.0).all():
        return np.ones((len(ws[0]), widths[0]))
    return np.repeat(np.stack(ws, axis=1), widths, axis=1)


def _combine(parts: list, weights: list, t: _Template, layers: int, requests) -> StepCost:
    """Parts side by side (ops concatenated), each counted `weight` times (an array over rows or
    a scalar): the step's time is linear in the weights, never in the merged ops."""
    rows = len(parts[0][1])
    ws = [_per_row(w, rows) for w in weights]
    return StepCost(
        _joined([p[0] for p in parts]),
        _op_weights(ws, [len(p[0]) for p in parts]),
        _joined([p[1] for p in parts], axis=1),
        _joined([p[2] for p in parts], axis=1),
        sum(p[3][0] * w for p, w in zip(parts, ws, strict=True)),
        sum(p[3][1] * w for p, w in zip(parts, ws, strict=True)),
        t.messages,
        t.exchanges,
        layers,
        _per_row(requests, rows),
        t.scale_out_messages,
        _joined([p[4] for p in parts], axis=1),
        t.experts_split_whole,
    )


@dataclass(frozen=True)
class ServingSteps:
    """The steps the serving answer needs, at the ideal roofs, one row per running batch."""

    tpot: StepCost  # a steady-state decode step with its share of others' prompts
    decode: StepCost  # the same step without prompts (breakdown)
    prefill: StepCost  # one prompt alone (TTFT)
    prompts_per_step: np.ndarray
    chunk: StepCost  # one step of a wave's prefill: a full token budget of prompts (TTFT)
    wave_steps: np.ndarray  # mean number of such steps a request of the wave waits (TTFT)
    instance: StepCost  # the step with every running request's prompt, running / output a step (the rate)
    # scheduler iterations per output token: one, or more when a rank's share of the prompts per
    # output token passes its token budget (long prompts, short outputs), the TPOT then being
    # that many budget-capped iterations (TTFT's wait counts iterations, not TPOTs)
    steps_per_token: np.ndarray


def _roofs_and_link(hw: Accelerator, compute_dtype: str) -> tuple[tuple, tuple | None]:
    r = Roofs.of(hw, compute_dtype)
    roofs = (r.tensor_flops_per_s, r.vector_flops_per_s, r.bandwidth_bytes_per_s)
    link = hw.link_bandwidth()
    domain = getattr(hw, "scale_up_domain_size", None) or 8
    return roofs, None if link is None else (link[1], domain, scale_out_bytes_per_s(hw))


@lru_cache(maxsize=256)  # a scenario is a few hundred bytes and holds no model: entries bound it
def step_shape(sc: ServingScenario) -> ServingScenario:
    """What a step's ops depend on: the scenario without its load, backend and memory rule (the
    template's key; dataclasses.replace re-validates, a tenth of an estimate's time)."""
    return replace(sc, concurrency=1, backend=None, memory_utilization=1.0, speculative=None)


def serving_steps(model: ModelConfig, hw: Accelerator, sc: ServingScenario, running) -> ServingSteps:
    """The steps of the scenario at each running batch in `running` (an int or an array)."""
    roofs, link_key = _roofs_and_link(hw, sc.compute_dtype)
    shape = step_shape(sc)
    t = _template(model, roofs, link_key, shape)
    running = np.atleast_1d(np.asarray(running, dtype=float))
    # The busiest attention-DP rank sets the pace: ceil(running / ranks) requests.
    b = np.ceil(running / sc.attention_data_parallel)
    spec = sc.speculative
    q = 1.0 if spec is None else spec.draft_tokens + 1.0
    # prompts per step: a request's prompt arrives once per its output tokens, E(a) per step
    per_step = 1.0 if spec is None else float(spec.tokens_per_step(spec.acceptance, sc.output_tokens))
    w = (running - 1) / sc.output_tokens * per_step
    budget = step_token_budget(sc.backend, hw.memory_bytes)
    chunk_tokens, wave_steps = wave_chunks(sc, running, budget)
    steps_per_token = np.maximum(1.0, w * sc.input_tokens / (sc.attention_data_parallel * budget))
    others = (shape.attention_data_parallel - 1) * chunk_tokens
    # three parts, each a row per running batch: decode alone, decode with a whole prompt merged
    # in, and a wave's prefill chunk (no decode: its `running` are the other ranks' prompt
    # tokens, routed once each, so its queries are 1, never the draft's q). One _part call over
    # the stacked rows: the same elementwise numbers as three calls, a third of numpy's per-call
    # cost (one estimate is under 1 ms).
    zero, one = np.zeros_like(running), np.ones_like(running)
    decode, merged, chunk_part = _split_rows(
        _part(
            model,
            roofs,
            sc,
            t,
            np.concatenate([running, running, others]),
            np.concatenate([b, b, zero]),
            np.concatenate([zero, one * float(sc.input_tokens), chunk_tokens]),
            np.concatenate([one, one, chunk_tokens / shape.input_tokens]),
            np.concatenate([one * q, one * q, one]),
        ),
        3,
    )
    n = model.num_layers
    tpot = _combine([decode, merged], [1.0 - w, w], t, n, b)
    decode_only = _combine([decode], [1.0], t, n, b)
    # per output token: every running request's prompt, and a decode step for all but the first
    # token, which the prompt's own forward gives
    w_all = running / sc.output_tokens * per_step
    instance = _combine([decode, merged], [1.0 - 1.0 / sc.output_tokens - w_all, w_all], t, n, b)
    if spec is not None:
        tpot, decode_only, instance = (_with_draft(x, model, hw, sc, running) for x in (tpot, decode_only, instance))
    chunk = _combine([chunk_part], [1.0], t, n, chunk_tokens / shape.input_tokens)
    return ServingSteps(tpot, decode_only, t.alone, w, chunk, wave_steps, instance, steps_per_token)


def _with_draft(step: StepCost, model: ModelConfig, hw: Accelerator, sc: ServingScenario, running) -> StepCost:
    """A verification step plus its draft's k forwards (engine.serving.speculative), each at the
    running batch, one token per sequence, on the same layout."""
    spec = sc.speculative
    draft = draft_of(model, spec)
    draft_sc = replace(sc, speculative=None)
    d = decode_steps(draft, hw, draft_sc, running)
    k = float(spec.draft_tokens)
    return StepCost(
        np.concatenate([step.category, d.category]),
        np.concatenate([step.weight, k * d.weight], axis=1),
        np.concatenate([step.compute_s, d.compute_s], axis=1),
        np.concatenate([step.memory_s, d.memory_s], axis=1),
        step.link_s + k * d.link_s,
        step.link_est_s + k * d.link_est_s,
        step.messages + spec.draft_tokens * d.messages,
        step.exchanges + spec.draft_tokens * d.exchanges,
        step.layers + spec.draft_tokens * d.layers,
        step.requests,
        step.scale_out_messages + spec.draft_tokens * d.scale_out_messages,
        np.concatenate([step.expert_factor, d.expert_factor], axis=1),
        step.experts_split_whole,
    )


def _side_template(model: ModelConfig, hw: Accelerator, sc: ServingScenario):
    roofs, link_key = _roofs_and_link(hw, sc.compute_dtype)
    shape = step_shape(sc)
    return roofs, shape, _template(model, roofs, link_key, shape)


def decode_steps(model: ModelConfig, hw: Accelerator, sc: ServingScenario, running) -> StepCost:
    """A decode-only step (no prompt merged in: a disaggregated decode worker's) at each
    running batch of one worker in `running`; the busiest attention-DP rank holds
    ceil(running / ranks) of them. Under speculative decoding, a verification of k + 1 tokens
    per sequence and the draft's k forwards (serving_steps' rule)."""
    roofs, _, t = _side_template(model, hw, sc)
    running = np.atleast_1d(np.asarray(running, dtype=float))
    b = np.ceil(running / sc.attention_data_parallel)
    spec = sc.speculative
    q = 1.0 if spec is None else spec.draft_tokens + 1.0
    step = _combine([_part(model, roofs, sc, t, running, b, 0.0, 1.0, q)], [1.0], t, model.num_layers, b)
    return step if spec is None else _with_draft(step, model, hw, sc, running)


def prefill_batch_steps(model: ModelConfig, hw: Accelerator, sc: ServingScenario, batch) -> StepCost:
    """One forward of a disaggregated prefill worker: each attention-DP rank prefills `batch`
    whole prompts (an array or a number) at once, and the routed experts see every rank's
    tokens (the ranks meet at each MoE layer)."""
    roofs, shape, t = _side_template(model, hw, sc)
    batch = np.atleast_1d(np.asarray(batch, dtype=float))
    tokens = batch * sc.input_tokens
    others = (sc.attention_data_parallel - 1) * tokens
    part = _part(model, roofs, shape, t, others, 0.0, tokens, batch)
    return _combine([part], [1.0], t, model.num_layers, batch)


# Tokens one scheduler step may carry (prompt chunks plus decodes), each backend's default on
# GPUs of 70 GiB and more:
# - vLLM max_num_batched_tokens 8192 for the OpenAI server (vllm/engine/arg_utils.py,
#   EngineArgs.get_batch_defaults: 8192 on GPUs of >= 70 GiB other than A100, else 2048);
# - TensorRT-LLM max_num_tokens 8192 (trtllm-serve --max_num_tokens, LLM API default);
# - SGLang chunked_prefill_size 8192 below 160 GB of GPU memory (H100, H200), 16384 from 160 GB
#   (B200) (sglang/srt/server_args.py, the chunked-prefill default by GPU memory).
# A request with no backend gets 8192, the common value.
STEP_TOKEN_BUDGET = 8192
SGLANG_LARGE_GPU_BYTES, SGLANG_LARGE_BUDGET = 160 * 2**30, 16384


def step_token_budget(backend: str | None, memory_bytes: float) -> int:
    if backend == "sglang" and memory_bytes >= SGLANG_LARGE_GPU_BYTES:
        return SGLANG_LARGE_BUDGET
    return STEP_TOKEN_BUDGET


def wave_chunks(sc: ServingScenario, running, budget: int = STEP_TOKEN_BUDGET) -> tuple[np.ndarray, np.ndarray]:
    """(tokens per prefill step, mean steps a request of a wave waits for its first token).

    A closed-loop benchmark starts its C clients together, and with every request of equal
    output length they stay in waves: the n = ceil(running / ranks) prompts of a rank arrive at
    once and are prefilled first come, first served, `budget` tokens a step (chunked prefill:
    Agrawal et al., "Sarathi-Serve", OSDI 2024). The k-th prompt (k = 1..n) gets its first
    token after k x input / budget steps, at least one, so the wave's mean is
    max(1, (n + 1) / 2 x input / budget) steps of min(budget, n x input) tokens each."""
    n = np.ceil(np.asarray(running, dtype=float) / sc.attention_data_parallel)
    tokens = np.minimum(float(budget), n * sc.input_tokens)
    return tokens, np.maximum(1.0, (n + 1) / 2.0 * sc.input_tokens / tokens)
