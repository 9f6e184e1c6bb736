"""The candidate space: every legal way to spend a GPU budget on a model.

An aggregated candidate is an instance layout (tensor parallel within the scale-up domain, then
attention data parallel; a MoE model's experts split moe_tensor_parallel x expert_parallel over
the same GPUs), as many replicas of it as the budget holds, and a concurrency per instance. A
disaggregated candidate is a prefill layout x its worker count, a decode layout x its worker
count, within the budget, and a concurrency across the deployment (engine.serving.disagg).

Layouts are the ones serving engines run (TensorRT-LLM, vLLM and SGLang: tensor parallel of a
power of two that divides the attention heads; attention data parallel only for MoE models,
where the experts then spread over the ranks; NVIDIA's and SGLang's wide-EP recipes), each
backend and precision on top.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import EngineInputError
from ..hardware import Accelerator
from ..model import ModelConfig
from ..serving.scenario import MAX_CONCURRENCY, WorkerLayout

# precision name -> (weights, compute, KV cache): a release's format and how a server runs it
PRECISIONS = {
    "bf16": ("bf16", "bf16", "bf16"),
    "fp8": ("fp8", "fp8", "fp8"),
    "fp4": ("fp4", "fp4", "fp8"),
    "int4": ("int4", "bf16", "fp8"),
}
POWERS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
CONCURRENCY_POINTS = 32
DISAGG_CONCURRENCY_POINTS = 16
PREFILL_SHORTLIST = 4  # prefill layouts kept per search: the most requests/s per GPU and the fastest
MAX_BUDGET = 1024


@dataclass(frozen=True)
class Layout:
    tensor_parallel: int
    attention_data_parallel: int = 1
    moe_tensor_parallel: int = 1
    expert_parallel: int = 1

    @property
    def gpus(self) -> int:
        return self.tensor_parallel * self.attention_data_parallel

    def worker(self, workers: int = 1, **extra) -> WorkerLayout:
        return WorkerLayout(
            workers, self.tensor_parallel, self.attention_data_parallel, self.moe_tensor_parallel,
            self.expert_parallel, **extra,
        )  # fmt: skip

    def words(self) -> str:
        """TP 8; TP 1 x DP 8, EP 8 (the names serving engines use)."""
        out = f"TP {self.tensor_parallel}"
        if self.attention_data_parallel > 1:
            out += f" x DP {self.attention_data_parallel}"
        if self.expert_parallel > 1:
            out += f", EP {self.expert_parallel}"
        if self.moe_tensor_parallel > 1 and (self.expert_parallel > 1 or self.attention_data_parallel > 1):
            out += f", MoE TP {self.moe_tensor_parallel}"
        return out


def instance_layouts(model: ModelConfig, hw: Accelerator, budget: int) -> list[Layout]:
    """Every instance layout of at most `budget` GPUs the model's shapes and the accelerator
    allow (deduplicated, smallest first)."""
    heads = model.num_heads
    domain = hw.max_tensor_parallel
    experts = max((layer.mlp.num_experts for layer, _ in model.layer_groups), default=0)
    out = []
    for tp in POWERS:
        if tp > min(domain, budget) or heads % tp:
            continue
        for adp in POWERS if model.is_moe else (1,):
            g = tp * adp
            if g > budget:
                break
            for moe_tp, ep in _expert_splits(model.is_moe, tp, adp, experts):
                out.append(Layout(tp, adp, moe_tp, ep))
    return sorted(set(out), key=lambda lay: (lay.gpus, lay.tensor_parallel, lay.expert_parallel))


def _expert_splits(is_moe: bool, tp: int, adp: int, experts: int) -> list[tuple[int, int]]:
    """(moe_tensor_parallel, expert_parallel) over an instance of tp x adp GPUs: without
    attention DP, the experts sliced with the attention (MoE TP) or spread whole (EP); with it,
    spread whole over every GPU (wide EP), or sliced within each rank's tensor-parallel group and
    spread across ranks. Slicing every expert across data-parallel ranks is no engine's layout."""
    if not is_moe:
        return [(1, 1)]
    g = tp * adp
    splits = {(tp, 1), (1, tp)} if adp == 1 else {(1, g), (tp, adp)}
    return [(m, e) for m, e in sorted(splits) if e <= experts]


def concurrency_grid(cap: int, points: int = CONCURRENCY_POINTS) -> np.ndarray:
    """`points` concurrencies, log-spaced from 1 to the memory cap (unique integers)."""
    return _grid(max(1, min(int(cap), MAX_CONCURRENCY)), points).copy()


@lru_cache(maxsize=4096)
def _grid(top: int, points: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, top, points)).astype(int))


def precisions_for(hw: Accelerator, asked: list[str] | None, native: str | None) -> list[str]:
    """The precisions to search: those asked, else the model's own release format, fp8, and fp4
    where the accelerator has a 4-bit tensor roof."""
    if asked:
        bad = [p for p in asked if p not in PRECISIONS]
        if bad:
            raise EngineInputError(
                "precisions",
                f"{bad[0]!r} is not a precision",
                ", ".join(PRECISIONS),
                code="plan_precision",
                params={"value": repr(bad[0])[:40], "allowed": ", ".join(PRECISIONS)},
            )
        return list(dict.fromkeys(asked))
    out = [native if native in PRECISIONS else "bf16", "fp8"]
    if getattr(hw.tensor_flops_per_s, "fp4", None):
        out.append("fp4")
    return list(dict.fromkeys(out))


def balanced_pairs(budget: int, prefill_gpus: int, decode_gpus: int, ratio: float) -> list[tuple[int, int]]:
    """(prefill workers, decode workers) that spend the budget near the ratio that balances the
    two sides (`ratio` prefill workers per decode worker, from their capacities): a side with
    more workers than the other can keep busy only idles GPUs (DistServe §4's placement, and
    AIConfigurator's rate matching). The two worker counts on each side of the balance, for the
    two decode counts on each side of the budget's share."""
    out = set()
    per_decode = ratio * prefill_gpus + decode_gpus  # GPUs one decode worker and its prefill share take
    y_star = budget / per_decode
    for y in {max(1, int(y_star)), max(1, int(y_star) + 1)}:
        room = (budget - y * decode_gpus) // prefill_gpus
        for x in {int(ratio * y), int(ratio * y) + 1, room}:
            if 1 <= x <= room:
                out.add((x, y))
    return sorted(out)


# A scale-up domain this large (an NVL72 rack) balances a unit's two sides as finely as a larger
# unit would, and keeps its KV cache on NVLink: no unit spanning more than one is searched unless
# one worker a side needs more (gpt-oss-120b on 256 GB300, DeepSeek-R1 on 144 GB200 + GB300,
# Qwen3-235B on 1,024 GB200: better bests than one unit of the whole budget, in no more time).
RACK_DOMAIN = 32


def disagg_units(budget: int, domain: int, smallest: int, concurrency: float) -> list[int]:
    """The GPUs one xPyD unit may spend; the unit is replicated as often as the budget holds
    the GPUs its workers take, each replica behind its own router with its own clients, so its
    tokens/s/GPU is the unit's.

    One unit of the whole budget, and one of a scale-up domain when the budget is larger (its
    KV cache crosses NVLink, not the NICs), the whole budget dropped when that domain is a rack
    (RACK_DOMAIN); each of them also split into the fewest units that need no more clients than
    a benchmark's concurrency allows (engine.serving.scenario.MAX_CONCURRENCY) to fill their
    decode workers. `smallest` is the fewest GPUs a unit needs (one worker a side);
    `concurrency` what one unit of the whole budget would hold."""
    spans = {budget}
    if smallest <= domain < budget:
        spans = {domain} if domain >= RACK_DOMAIN else {budget, domain}
    out = set()
    for span in spans:
        pieces = max(1, -(-int(concurrency * span / budget) // MAX_CONCURRENCY))
        out |= {size for size in (span, span // pieces) if size >= smallest}
    return sorted(out, reverse=True)


def worker_pairs(budget: int, prefill_gpus: int, decode_gpus: int) -> list[tuple[int, int]]:
    """(prefill workers, decode workers) that spend the budget: at least one of each, and no
    room left for another worker of the smaller side (a smaller budget is another question)."""
    out = []
    for y in range(1, budget // decode_gpus + 1):
        left = budget - y * decode_gpus
        for x in range(1, left // prefill_gpus + 1):
            unused = budget - x * prefill_gpus - y * decode_gpus
            if unused < min(prefill_gpus, decode_gpus):
                out.append((x, y))
    return out
