"""The work of one GPU in one serving step, split into the parts the estimate calibrates.

A step of an aggregated server (continuous batching, Yu et al., "Orca", OSDI 2022) decodes one
token for each of the rank's running requests (b = running / attention_data_parallel), each
attending to its whole context (mean context = input + output / 2). Besides, prompts of newly
admitted requests are prefilled in the same steps (chunked prefill: Agrawal et al.,
"Sarathi-Serve", OSDI 2024; vLLM and TensorRT-LLM schedule this way). While one request
decodes its `output` tokens, the other running - 1 requests each bring one prompt, so a step
carries w = (running - 1) / output prompts on average (the request's own prompt is in its TTFT,
not in its TPOT; at concurrency 1 nothing interleaves).

A prompt merged into a decode step shares the step's weight read and adds its tokens to the
linear layers, the experts it routes to and its causal attention. So the step's work is
(1 - w) x D + w x M, op by op, with D the decode-only step and M the step with one whole prompt
merged in; each op's time is monotone in its FLOPs and bytes, so M - D >= 0 term by term.

Op counts come from engine.transformer on the tensor-parallel shard; routed experts are counted
over the whole instance's tokens and split moe_tensor_parallel x expert_parallel ways. Each op
is kept as (compute s, memory s) at the ideal roofs with a category and a weight, so the bound
(roofs as they are) and the estimate (calibrated roofs) come from one count.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..analysis import Roofs
from ..hardware import Accelerator
from ..model import ModelConfig
from ..ops import Op, linear
from ..transformer import STREAM_BYTES, Widths, _mlp_block, decode_ops, prefill_ops
from .scenario import ServingScenario

# Op categories: the estimate scales each one with its own achieved fraction.
DENSE, EXPERT, ATTN_DECODE, ATTN_PREFILL = 0, 1, 2, 3
CATEGORIES = ("dense", "expert", "attention_decode", "attention_prefill")
_EXPERT_OPS = ("expert_gate_proj", "expert_up_proj", "expert_down_proj")
_LOGIT_OPS = ("lm_head", "logits_softmax")


@dataclass(frozen=True)
class StepCost:
    """One GPU's step at the ideal roofs: per-op compute and memory seconds with category and
    weight, and the step's communication over the scale-up link."""

    category: np.ndarray  # int codes, see CATEGORIES
    weight: np.ndarray  # how many times the op counts in the step (see the module docstring)
    compute_s: np.ndarray
    memory_s: np.ndarray
    link_s: float  # TP all-reduces and EP dispatch/combine, bandwidth term
    messages: int  # collectives in the step (each pays a latency in the estimate)

    def at_roofs_s(self) -> float:
        """The bound: ops back to back, each at its roof, plus the link time."""
        return float((self.weight * np.maximum(self.compute_s, self.memory_s)).sum()) + self.link_s


@dataclass(frozen=True)
class _Part:
    rows: list  # (category, compute s, memory s)
    link_s: float
    messages: int


@lru_cache(maxsize=256)
def _prompt_attention(shard: ModelConfig, prompt: int, w: Widths) -> tuple[Op, ...]:
    """Causal attention of one whole prompt (a chunk attends to the chunks before it, so the
    chunks of a prompt add up to this)."""
    return tuple(op for op in prefill_ops(shard, 1, prompt, w) if op.name.startswith("attention"))


def _dense_ops(shard: ModelConfig, w: Widths, decode_b: float, prompt: int) -> list[Op]:
    """Linear, norm and dense-MLP ops of a rank over decode_b + prompt tokens (weights read
    once); routed experts and attention cores are counted apart. Logits for each decode token
    and the prompt's last token only."""
    tokens = decode_b + prompt
    ops = decode_ops(shard, tokens, 1, w)
    keep = [op for op in ops if op.name not in _EXPERT_OPS + _LOGIT_OPS and not op.name.startswith("attention")]
    rows = decode_b + (1 if prompt else 0)
    keep.append(linear("lm_head", rows, shard.vocab_size, shard.hidden_size, w.weight, w.gemm_in, STREAM_BYTES))
    return keep


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


def _communication(model: ModelConfig, sc: ServingScenario, link_bytes_per_s: float | None, rank_tokens: float):
    """(link s, messages) of one step.

    - Tensor parallelism: all-reduces of the rank's tokens' hidden states in 16-bit, two per
      layer (Megatron-LM §3; one per layer under attention DP, where the MoE output returns by
      the combine), ring time 2 (n-1)/n x bytes / link (Patarasuk & Yuan 2009).
    - Expert parallelism with attention DP: each MoE layer sends every token to its k experts
      and back (dispatch in the compute dtype, combine in 16-bit), (G-1)/G of them to other GPUs
      (DeepSeek-V3 technical report §3.2.2; DeepEP's dispatch/combine kernels).
    """
    if sc.gpus == 1 or link_bytes_per_s is None:
        return 0.0, 0
    h, layers, n = model.hidden_size, model.num_layers, sc.tensor_parallel
    moe_layers = sum(c for layer, c in model.layer_groups if layer.mlp.is_moe)
    link = 0.0
    messages = 0
    if n > 1:
        count = 2 * layers if sc.attention_data_parallel == 1 else layers
        link += count * rank_tokens * h * STREAM_BYTES * 2 * (n - 1) / n / link_bytes_per_s
        messages += count
    if moe_layers and sc.attention_data_parallel > 1:
        g = sc.moe_tensor_parallel * sc.expert_parallel
        k = max(layer.mlp.experts_per_token for layer, _ in model.layer_groups)
        per_token = k * h * (min(sc.widths.gemm_in, STREAM_BYTES) + STREAM_BYTES)
        link += moe_layers * rank_tokens * per_token * (g - 1) / g / link_bytes_per_s
        messages += 2 * moe_layers
    return link, messages


def _part(model: ModelConfig, hw: Accelerator, sc: ServingScenario, decode_b: float, prompt: int) -> _Part:
    """One rank's step with decode_b decode tokens and (prompt > 0) one whole prompt merged in.
    Under attention DP the ranks meet at every MoE layer, so a prompt on any rank holds up the
    step for all: the experts see every rank's decode tokens plus the one prompt."""
    shard = model.shard(sc.tensor_parallel)
    roofs = Roofs.of(hw, sc.compute_dtype)
    w = sc.widths
    bw, units = roofs.bandwidth_bytes_per_s, roofs.by_unit
    rows = [(DENSE, op.flops / units[op.unit], op.bytes / bw) for op in _dense_ops(shard, w, decode_b, prompt)]
    instance = sc.attention_data_parallel * decode_b + prompt
    rows += [(EXPERT, op.flops / units[op.unit], op.bytes / bw) for op in _expert_ops(model, sc, instance)]
    if decode_b > 0:
        att = [op for op in decode_ops(shard, decode_b, sc.mean_context, w) if op.name.startswith("attention")]
        rows += [(ATTN_DECODE, op.flops / units[op.unit], op.bytes / bw) for op in att]
    if prompt:
        rows += [(ATTN_PREFILL, op.flops / units[op.unit], op.bytes / bw) for op in _prompt_attention(shard, prompt, w)]
    link = hw.link_bandwidth()
    link_s, messages = _communication(model, sc, None if link is None else link[1], decode_b + prompt)
    return _Part(rows, link_s, messages)


def _combine(parts: list[tuple[_Part, float]]) -> StepCost:
    cat, weight, comp, mem = [], [], [], []
    for part, wt in parts:
        for c, ct, mt in part.rows:
            cat.append(c)
            weight.append(wt)
            comp.append(ct)
            mem.append(mt)
    return StepCost(
        np.asarray(cat, dtype=np.int8),
        np.asarray(weight, dtype=float),
        np.asarray(comp, dtype=float),
        np.asarray(mem, dtype=float),
        sum(p.link_s * wt for p, wt in parts),
        parts[0][0].messages,
    )


@dataclass(frozen=True)
class ServingSteps:
    """The three steps the serving answer needs, at the ideal roofs."""

    tpot: StepCost  # a steady-state decode step with its share of others' prompts
    decode: StepCost  # the same step without prompts (breakdown)
    prefill: StepCost  # one prompt alone (TTFT)
    prompts_per_step: float


def serving_steps(model: ModelConfig, hw: Accelerator, sc: ServingScenario, running: int) -> ServingSteps:
    b = running / sc.attention_data_parallel
    w = (running - 1) / sc.output_tokens
    decode = _part(model, hw, sc, b, 0)
    merged = _part(model, hw, sc, b, sc.input_tokens)
    alone = _part(model, hw, sc, 0.0, sc.input_tokens)
    tpot = _combine([(decode, 1.0 - w), (merged, w)]) if w > 0 else _combine([(decode, 1.0)])
    return ServingSteps(tpot, _combine([(decode, 1.0)]), _combine([(alone, 1.0)]), w)
