"""Training lab: utilisation under each counting choice, the DDP gradient all-reduce, and the
training memory bill per GPU with OOM attribution and the smallest change that fits.

Sources, formula by formula:
- MFU (PaLM, Chowdhery et al. 2022, §4.1 and appendix B; Narayanan et al. 2021 for HFU):
  tokens/s x (6N [+ 12·L·H·Q·T]) / (GPUs x dense peak). HFU counts what was executed: full
  recomputation adds a forward, 8N (Korthikanti et al. 2022, §5 / Table 4, who also separate
  MFU and HFU); selective recomputation re-runs the attention core's forward, 4·L·H·Q·T
  (one third of PaLM's 12·L·H·Q·T). The "sparse" figure divides by the 2:4 structured-sparsity
  peak that spec sheets print, twice the dense one (H100 whitepaper V1.04 Table 3; AMD
  MI300X peak table), the misleading one (dense is what PaLM's MFU means).
- Ring all-reduce (Patarasuk & Yuan, JPDC 2009; nccl-tests bus bandwidth):
  t = S / B_bus x 2(n-1)/n, S = N x gradient bytes. With gradient accumulation under
  DDP `no_sync()`, one all-reduce per optimizer step instead of one per micro-batch.
  ZeRO communication (Rajbhandari et al. 2020, §7.2): stages 1-2 move the same volume as
  DDP (2Ψ), stage 3 1.5x (3Ψ) (Rajbhandari et al. 2020, ZeRO §7).
- Model states (Rajbhandari et al. 2020, §3.1 and Figure 1): mixed precision keeps 2 bytes of
  fp16/bf16 weights, 2 of gradients and K bytes of optimizer state per parameter; K = 12 for
  AdamW (fp32 master weights, momentum and variance: 16 B/param in all, Rajbhandari et al. 2020, ZeRO),
  K = 8 for SGD with momentum (fp32 master weights and momentum). ZeRO-1 shards the optimizer
  state over the data-parallel GPUs, ZeRO-2 also the gradients, ZeRO-3 also the weights.
- Activations per transformer layer (Korthikanti et al. 2022, "Reducing Activation
  Recomputation in Large Transformer Models", §4.1 Eq. 1 and Table 2, no tensor or sequence
  parallelism, 16-bit activations): s·b·h·(34 + 5·a·s/h) bytes without recomputation;
  34·s·b·h with selective recomputation (the attention core's 5·a·s²·b is recomputed);
  2·s·b·h with full recomputation (only each layer's input is kept). s: sequence length,
  b: micro-batch, h: hidden size, a: attention heads. The equation is for a GPT layer (4h MLP,
  dropout masks); embeddings, the output layer and the loss are not counted. During the
  backward pass of a recomputed layer its rematerialised activations exist once more: the
  peak adds one layer's (full - stored) activations.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from .errors import EngineInputError
from .hardware import Accelerator
from .metrics import ring_allreduce_time_s

OPTIMIZERS = ("adamw", "sgd_momentum")
RECOMPUTE = ("none", "selective", "full")
TRAINING_DTYPES = ("bf16", "fp16")
ZERO_STAGES = (0, 1, 2, 3)
# Optimizer-state bytes per parameter under mixed precision (ZeRO §3.1: K = 12 for Adam).
OPTIMIZER_BYTES_PER_PARAM = {"adamw": 12.0, "sgd_momentum": 8.0}
WEIGHT_BYTES_PER_PARAM = 2.0  # bf16/fp16 working copy
GRADIENT_BYTES_PER_PARAM = 2.0  # bf16/fp16 gradients (what DDP all-reduces: 14 GB for 7B)
# Vendors whose spec sheets print a 2:4 structured-sparsity tensor peak at twice the dense
# one: NVIDIA since Ampere (every NVIDIA card in the catalogue), AMD since CDNA 3.
SPARSE_PEAK_VENDORS = ("NVIDIA", "AMD")
SPARSE_SPEEDUP = 2.0
DEFAULT_GPUS_PER_NODE = 8
MAX_GPUS = 1 << 20
MAX_SEQUENCE = 16 * 1024 * 1024
# Sequences per GPU per optimizer step: far past any real run (a 4M-token batch of 4K sequences
# on one GPU is 1,024); it bounds the search for a change that fits (smallest_fix).
MAX_SEQUENCES_PER_GPU = 1 << 20
# The measured rates' floors and ceilings. A step shorter than a microsecond is below one CUDA
# kernel launch (a few microseconds, CUDA C++ Best Practices Guide, "Kernel launch overhead"), and
# one longer than 1e7 s (16 weeks) is no step; the ceilings keep every derived figure finite
# (tokens/s x 6N stays far below the largest double, 1.8e308), so no answer carries inf or NaN.
MIN_STEP_TIME_S = 1e-6
MAX_STEP_TIME_S = 1e7
MIN_TOKENS_PER_S = 1e-3
MAX_TOKENS_PER_S = 1e15
# A bus bandwidth under 1 MB/s is slower than any link GPUs are joined by (1 GbE is 125 MB/s).
MIN_BUS_BANDWIDTH_BYTES_PER_S = 1e6
MAX_BUS_BANDWIDTH_BYTES_PER_S = 1e15
# The teaching form's and the step's bounds: far past any model or batch trained (PaLM: 540B
# parameters in 118 layers, Chowdhery et al. 2022, Table 1), small enough that every figure
# derived from them stays finite.
MAX_PARAMS = 1e16
MAX_LAYERS = 100_000
MAX_HEADS = 1 << 16
MAX_HEAD_DIM = 1 << 16
MAX_HIDDEN = 1 << 24
MAX_TOKENS_PER_STEP = 1 << 50
TEACHING_KEYS = ("num_params", "num_layers", "num_heads", "head_dim")


@dataclass(frozen=True)
class TrainingModel:
    """What the training formulas need: N, L, H (query heads), Q (head dim), h (hidden)."""

    id: str
    num_params: float
    num_layers: int
    num_heads: int
    head_dim: int
    hidden_size: int
    # parameters one token uses (MoE: routed + shared experts); the FLOP counts use these,
    # the memory bill and the gradient all-reduce use every parameter
    num_active_params: float | None = None

    @property
    def active_params(self) -> float:
        return self.num_params if self.num_active_params is None else self.num_active_params


def _int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            name,
            f"{value!r} is not an integer in [{low}, {high}]",
            code="int_range",
            params={"value": repr(value), "low": low, "high": high},
        )
    return value


def _pos(name: str, value: object, high: float = 1e30, low: float = 0.0) -> float:
    """A finite number in (0, high], or in [low, high] when a floor is given."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise EngineInputError(name, f"{value!r} is not a finite number", code="finite", params={"value": repr(value)})
    if low > 0 and not low <= value <= high:
        raise EngineInputError(
            name,
            f"{value!r} must be >= {low:g} and <= {high:g}",
            code="number_range",
            params={"value": repr(value), "low": f"{low:g}", "high": f"{high:g}"},
        )
    if not 0 < value <= high:
        raise EngineInputError(
            name,
            f"{value!r} must be > 0 and <= {high:g}",
            code="positive",
            params={"value": repr(value), "high": f"{high:g}"},
        )
    return float(value)


def _text(name: str, value: object, max_chars: int = 64) -> str:
    """A name shown back to the user: a string of at most `max_chars` characters that encodes
    as UTF-8 (a lone surrogate such as "\\ud800" parses from JSON but cannot be sent back)."""
    if not isinstance(value, str) or len(value) > max_chars:
        raise EngineInputError(
            name, f"must be a string of at most {max_chars} characters", code="text_length", params={"n": max_chars}
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise EngineInputError(
            name,
            "must be valid Unicode text (no lone surrogate code points)",
            code="text_unicode",
            params={"n": max_chars},
        ) from None
    return value


def teaching_model(spec: dict) -> TrainingModel:
    """The teaching form {num_params, num_layers, num_heads, head_dim} (a 7B teaching model:
    7e9, 32, 32, 128); hidden size = heads x head dim."""
    extra = sorted(set(spec) - set(TEACHING_KEYS) - {"hidden_size", "id"})
    if extra:
        raise EngineInputError(
            f"model.{extra[0]}",
            "is not a field of the teaching form",
            ", ".join(TEACHING_KEYS),
            code="teaching_extra",
            params={"allowed": ", ".join(TEACHING_KEYS)},
        )
    missing = [k for k in TEACHING_KEYS if k not in spec]
    if missing:
        raise EngineInputError(
            f"model.{missing[0]}",
            "is required in the teaching form",
            ", ".join(TEACHING_KEYS),
            code="teaching_missing",
            params={"allowed": ", ".join(TEACHING_KEYS)},
        )
    n = _pos("model.num_params", spec["num_params"], MAX_PARAMS)
    layers = _int("model.num_layers", spec["num_layers"], 1, MAX_LAYERS)
    heads = _int("model.num_heads", spec["num_heads"], 1, MAX_HEADS)
    head_dim = _int("model.head_dim", spec["head_dim"], 1, MAX_HEAD_DIM)
    hidden = spec.get("hidden_size", heads * head_dim)
    hidden = _int("model.hidden_size", hidden, 1, MAX_HIDDEN)
    name = _text("model.id", spec.get("id", "teaching"))
    return TrainingModel(name, n, layers, heads, head_dim, hidden)


def from_config(model) -> TrainingModel:  # noqa: ANN001  (engine.model.ModelConfig)
    """A preset or config.json model (engine.model.ModelConfig): its totals and layer 0's shape."""
    return TrainingModel(
        model.id,
        float(model.num_params),
        model.num_layers,
        model.num_heads,
        model.head_dim,
        model.hidden_size,
        float(model.num_active_params),
    )


@dataclass(frozen=True)
class TrainingSetup:
    gpus: int
    sequence_length: int
    tokens_per_step: int
    step_time_s: float | None = None
    tokens_per_s: float | None = None
    optimizer: str = "adamw"
    zero_stage: int = 0
    recompute: str = "none"
    dtype: str = "bf16"
    micro_batch_size: int | None = None  # sequences per GPU per micro-step; default all of them
    bus_bandwidth_bytes_per_s: float | None = None  # measured (nccl-tests busbw); else the link
    gpus_per_node: int = DEFAULT_GPUS_PER_NODE

    def __post_init__(self) -> None:
        _int("gpus", self.gpus, 1, MAX_GPUS)
        _int("sequence_length", self.sequence_length, 1, MAX_SEQUENCE)
        _int("tokens_per_step", self.tokens_per_step, 1, MAX_TOKENS_PER_STEP)
        if (self.step_time_s is None) == (self.tokens_per_s is None):
            raise EngineInputError(
                "step_time_s",
                "give exactly one of step_time_s or tokens_per_s",
                code="step_or_rate",
                params={"step": repr(self.step_time_s), "rate": repr(self.tokens_per_s)},
            )
        if self.step_time_s is not None:
            _pos("step_time_s", self.step_time_s, MAX_STEP_TIME_S, MIN_STEP_TIME_S)
        if self.tokens_per_s is not None:
            _pos("tokens_per_s", self.tokens_per_s, MAX_TOKENS_PER_S, MIN_TOKENS_PER_S)
        if self.optimizer not in OPTIMIZERS:
            raise EngineInputError(
                "optimizer",
                f"{self.optimizer!r} is not supported",
                ", ".join(OPTIMIZERS),
                code="not_supported",
                params={"value": repr(self.optimizer), "allowed": ", ".join(OPTIMIZERS)},
            )
        if isinstance(self.zero_stage, bool) or self.zero_stage not in ZERO_STAGES:
            raise EngineInputError(
                "zero_stage",
                f"{self.zero_stage!r} is not a ZeRO stage",
                ZERO_STAGES,
                code="zero_stage",
                params={"value": repr(self.zero_stage), "allowed": ", ".join(map(str, ZERO_STAGES))},
            )
        if self.recompute not in RECOMPUTE:
            raise EngineInputError(
                "recompute",
                f"{self.recompute!r} is not supported",
                ", ".join(RECOMPUTE),
                code="not_supported",
                params={"value": repr(self.recompute), "allowed": ", ".join(RECOMPUTE)},
            )
        if self.dtype not in TRAINING_DTYPES:
            raise EngineInputError(
                "dtype",
                f"{self.dtype!r} is not a mixed-precision training dtype",
                TRAINING_DTYPES,
                code="train_dtype",
                params={"value": repr(self.dtype), "allowed": ", ".join(map(str, TRAINING_DTYPES))},
            )
        per_step = self.gpus * self.sequence_length
        if self.tokens_per_step % per_step:
            raise EngineInputError(
                "tokens_per_step",
                f"{self.tokens_per_step} is not a whole number of {self.sequence_length}-token sequences "
                f"on each of {self.gpus} GPUs",
                f"a multiple of gpus x sequence_length = {per_step}",
                code="train_tokens_whole",
                params={
                    "tokens": self.tokens_per_step,
                    "seq": self.sequence_length,
                    "gpus": self.gpus,
                    "per_step": per_step,
                },
            )
        if self.sequences_per_gpu > MAX_SEQUENCES_PER_GPU:
            raise EngineInputError(
                "tokens_per_step",
                f"{self.tokens_per_step:,} tokens is {self.sequences_per_gpu:,} sequences per GPU per step",
                f"at most {MAX_SEQUENCES_PER_GPU:,} sequences per GPU per step",
                code="train_max_sequences",
                params={
                    "tokens": f"{self.tokens_per_step:,}",
                    "sequences": f"{self.sequences_per_gpu:,}",
                    "max": f"{MAX_SEQUENCES_PER_GPU:,}",
                },
            )
        if self.micro_batch_size is not None:
            _int("micro_batch_size", self.micro_batch_size, 1, self.sequences_per_gpu)
            if self.sequences_per_gpu % self.micro_batch_size:
                raise EngineInputError(
                    "micro_batch_size",
                    f"{self.micro_batch_size} does not divide the {self.sequences_per_gpu} sequences per GPU",
                    code="train_micro_batch",
                    params={"micro": self.micro_batch_size, "sequences": self.sequences_per_gpu},
                )
        if self.bus_bandwidth_bytes_per_s is not None:
            _pos(
                "bus_bandwidth_bytes_per_s",
                self.bus_bandwidth_bytes_per_s,
                MAX_BUS_BANDWIDTH_BYTES_PER_S,
                MIN_BUS_BANDWIDTH_BYTES_PER_S,
            )
        _int("gpus_per_node", self.gpus_per_node, 1, MAX_GPUS)
        if self.tokens_per_s is not None and not MIN_STEP_TIME_S <= self.measured_step_time_s <= MAX_STEP_TIME_S:
            raise EngineInputError(
                "tokens_per_s",
                f"{self.tokens_per_s:g} tokens/s makes a step of {self.measured_step_time_s:g} s for "
                f"{self.tokens_per_step:,} tokens",
                f"a step between {MIN_STEP_TIME_S:g} and {MAX_STEP_TIME_S:g} s",
                code="train_rate_step",
                params={
                    "rate": f"{self.tokens_per_s:g}",
                    "step": f"{self.measured_step_time_s:g}",
                    "tokens": f"{self.tokens_per_step:,}",
                    "low": f"{MIN_STEP_TIME_S:g}",
                    "high": f"{MAX_STEP_TIME_S:g}",
                },
            )

    @property
    def sequences_per_gpu(self) -> int:
        return self.tokens_per_step // (self.gpus * self.sequence_length)

    @property
    def micro_batch(self) -> int:
        return self.micro_batch_size or self.sequences_per_gpu

    @property
    def accumulation_steps(self) -> int:
        return self.sequences_per_gpu // self.micro_batch

    @property
    def measured_step_time_s(self) -> float:
        return self.step_time_s if self.step_time_s is not None else self.tokens_per_step / self.tokens_per_s


# ---- FLOPs per token ---------------------------------------------------------------------
def dense_flops_per_token(m: TrainingModel) -> float:
    """6N: forward 2N, backward 4N (PaLM appendix B); N = active parameters for MoE."""
    return 6.0 * m.active_params


def attention_flops_per_token(m: TrainingModel, seq_len: int) -> float:
    """12·L·H·Q·T: the attention matmuls, forward and backward (PaLM appendix B)."""
    return 12.0 * m.num_layers * m.num_heads * m.head_dim * seq_len


def recompute_flops_per_token(m: TrainingModel, seq_len: int, recompute: str) -> tuple[float, float]:
    """(dense, attention) FLOPs per token that recomputation executes again: full re-runs the
    forward (2N + 4·L·H·Q·T); selective only the attention core's forward (4·L·H·Q·T)."""
    attention_forward = attention_flops_per_token(m, seq_len) / 3.0
    if recompute == "full":
        return 2.0 * m.active_params, attention_forward
    if recompute == "selective":
        return 0.0, attention_forward
    return 0.0, 0.0


def utilisation(m: TrainingModel, hw: Accelerator, s: TrainingSetup) -> dict:
    """MFU, MFU with attention, HFU (with and without attention) and MFU over the sparse peak,
    each with one line on what it counted (an MFU is only comparable with its counting stated; PaLM app. B)."""
    tokens_per_s = s.tokens_per_step / s.measured_step_time_s
    dtype, peak = hw.tensor_roof(s.dtype)
    denom = s.gpus * peak
    dense = dense_flops_per_token(m)
    attn = attention_flops_per_token(m, s.sequence_length)
    re_dense, re_attn = recompute_flops_per_token(m, s.sequence_length, s.recompute)
    sparse = hw.vendor in SPARSE_PEAK_VENDORS
    peak_words = f"{s.gpus} x {peak / 1e12:.1f} TFLOP/s dense {dtype}"
    hfu_words = {
        "none": "6N (nothing recomputed: HFU = MFU)",
        "selective": "6N; selective recomputation re-runs only the attention core, not counted here",
        "full": "8N: full recomputation runs the forward twice (6N + 2N)",
    }[s.recompute]
    out = {
        "tokens_per_s": tokens_per_s,
        "step_time_s": s.measured_step_time_s,
        "peak_dtype": dtype,
        "peak_flops_per_s": peak,
        "sparse_peak_flops_per_s": peak * SPARSE_SPEEDUP if sparse else None,
        "model_flops_per_token": dense,
        "attention_flops_per_token": attn,
        "recompute_flops_per_token": re_dense + re_attn,
        "mfu": tokens_per_s * dense / denom,
        "mfu_with_attention": tokens_per_s * (dense + attn) / denom,
        "hfu": tokens_per_s * (dense + re_dense) / denom,
        "hfu_with_attention": tokens_per_s * (dense + attn + re_dense + re_attn) / denom,
        "mfu_sparse_peak": tokens_per_s * dense / (denom * SPARSE_SPEEDUP) if sparse else None,
        "dtype_note": dtype_note(hw, s.dtype),
    }
    out["counted"] = {
        "mfu": f"6N per token (PaLM), attention and recomputation not counted, over {peak_words}",
        "mfu_with_attention": f"6N + 12·L·H·Q·T per token (PaLM appendix B, T = {s.sequence_length}), "
        f"over {peak_words}",
        "hfu": f"FLOPs executed: {hfu_words}; attention not counted, over {peak_words}",
        "hfu_with_attention": "FLOPs executed including attention and its recomputation "
        f"({(dense + attn + re_dense + re_attn) / 1e9:.4g} GFLOP per token), over {peak_words}",
        "mfu_sparse_peak": (
            f"6N per token over the 2:4 structured-sparsity peak the spec sheet prints "
            f"({s.gpus} x {peak * SPARSE_SPEEDUP / 1e12:.1f} TFLOP/s, 2x dense): misleading, dense models "
            "never run there"
            if sparse
            else f"{hw.vendor} prints no 2:4 sparse tensor peak for {hw.name}"
        ),
    }
    return out


def dtype_note(hw: Accelerator, dtype: str) -> str:
    """Why switching bf16 <-> fp16 does or does not move a number: both store 2 bytes per value
    (the memory bill is the same), so only the dense peak can differ, and on most tensor-core
    chips it does not (H100 SXM datasheet: 1,979 TFLOP/s with sparsity for both, 989 dense)."""
    other = "fp16" if dtype == "bf16" else "bf16"
    mine, peak = hw.tensor_roof(dtype)
    theirs, other_peak = hw.tensor_roof(other)
    numerics = "only numerics differ (fp16 needs loss scaling; bf16 keeps fp32's exponent range)"
    if mine != dtype:
        return f"{hw.name} has no {dtype} tensor roof: {dtype} is counted at its {mine} peak; {numerics}"
    if peak == other_peak:
        return (
            f"{dtype} and {other} share one dense peak on {hw.name} ({peak / 1e12:,.0f} TFLOP/s) and both store "
            f"2 bytes per value: switching changes no number here; {numerics}"
        )
    return (
        f"{dtype} peaks at {peak / 1e12:,.0f} TFLOP/s dense on {hw.name}, {other} at {other_peak / 1e12:,.0f} "
        f"({theirs}): the MFU denominators differ; the memory bill does not"
    )


# ---- communication -------------------------------------------------------------------------
def bus_bandwidth(hw: Accelerator, s: TrainingSetup) -> tuple[float | None, str]:
    """(busbw bytes/s, where it came from): the measured busbw when given; inside one node the
    scale-up link per direction (NVIDIA H100 datasheet: NVLink 450 GB/s one way is the in-node ceiling);
    across nodes nothing (the NIC is not in the catalogue): measure it with nccl-tests."""
    if s.gpus == 1:
        return None, "one GPU: no all-reduce"
    if s.bus_bandwidth_bytes_per_s is not None:
        return s.bus_bandwidth_bytes_per_s, "measured bus bandwidth (given)"
    if s.gpus > s.gpus_per_node:
        raise EngineInputError(
            "bus_bandwidth_bytes_per_s",
            f"{s.gpus} GPUs span more than one {s.gpus_per_node}-GPU node: the inter-node busbw depends on the "
            "NICs and topology; give the busbw nccl-tests measures (all_reduce_perf)",
            code="train_multi_node",
            params={"gpus": s.gpus, "node": s.gpus_per_node},
        )
    link = hw.link_bandwidth()
    if link is None:
        raise EngineInputError(
            "bus_bandwidth_bytes_per_s",
            f"{hw.id} lists no GPU-to-GPU link: give a measured busbw",
            code="train_no_link",
            params={"hardware": hw.id},
        )
    return link[1], f"{link[0]}, bytes/s per direction (upper bound of the in-node busbw)"


def zero_communication_factor(zero_stage: int, accumulation_steps: int) -> float:
    """Data moved per optimizer step relative to one DDP all-reduce of the gradients (2Ψ).
    ZeRO §7.2 with one micro-batch: stages 0-2 move 2Ψ, stage 3 3Ψ (1.5x). With k micro-batches
    (our extension of the same count): DDP under no_sync() and ZeRO-1 (full local gradients)
    still reduce once; ZeRO-2 reduce-scatters each micro-batch's gradients (kΨ) and all-gathers
    the weights once (Ψ); ZeRO-3 also all-gathers the weights for each forward and backward
    (3kΨ)."""
    k = accumulation_steps
    return {0: 1.0, 1: 1.0, 2: (k + 1) / 2.0, 3: 1.5 * k}[zero_stage]


def allreduce(m: TrainingModel, hw: Accelerator, s: TrainingSetup) -> dict:
    step = s.measured_step_time_s
    size = m.num_params * GRADIENT_BYTES_PER_PARAM
    busbw, source = bus_bandwidth(hw, s)
    t = 0.0 if busbw is None else ring_allreduce_time_s(size, busbw, s.gpus)
    k = s.accumulation_steps
    zero_t = t * zero_communication_factor(s.zero_stage, k)
    return {
        "gradient_bytes": size,
        "bus_bandwidth_bytes_per_s": busbw,
        "bus_bandwidth_source": source,
        "accumulation_steps": k,
        "allreduce_time_s": t,
        "allreduce_share_of_step": t / step,
        "allreduce_time_without_no_sync_s": t * k,
        "zero_communication_time_s": zero_t,
        "zero_communication_share_of_step": zero_t / step,
        "compute_time_lower_bound_s": max(step - zero_t, 0.0),
    }


# ---- memory --------------------------------------------------------------------------------
def activation_bytes_per_layer(m: TrainingModel, seq_len: int, micro_batch: int, recompute: str) -> float:
    """Korthikanti et al. 2022 Eq. 1 / Table 2 (no tensor or sequence parallelism)."""
    sbh = float(seq_len) * micro_batch * m.hidden_size
    if recompute == "full":
        return 2.0 * sbh
    if recompute == "selective":
        return 34.0 * sbh
    return sbh * (34.0 + 5.0 * m.num_heads * seq_len / m.hidden_size)


def model_state_bytes(m: TrainingModel, gpus: int, optimizer: str, zero_stage: int) -> dict:
    """Per GPU: weights, gradients, optimizer state, sharded by the ZeRO stage (ZeRO Figure 1)."""
    n = m.num_params
    weights = n * WEIGHT_BYTES_PER_PARAM / (gpus if zero_stage >= 3 else 1)
    grads = n * GRADIENT_BYTES_PER_PARAM / (gpus if zero_stage >= 2 else 1)
    opt = n * OPTIMIZER_BYTES_PER_PARAM[optimizer] / (gpus if zero_stage >= 1 else 1)
    return {
        "weights_bytes": weights,
        "gradients_bytes": grads,
        "optimizer_bytes": opt,
        "model_state_bytes": weights + grads + opt,
    }


def memory_bill(m: TrainingModel, hw: Accelerator, gpus: int, seq_len: int, micro_batch: int,
                optimizer: str, zero_stage: int, recompute: str) -> dict:  # fmt: skip
    states = model_state_bytes(m, gpus, optimizer, zero_stage)
    per_layer = activation_bytes_per_layer(m, seq_len, micro_batch, recompute)
    full_layer = activation_bytes_per_layer(m, seq_len, micro_batch, "none")
    workspace = full_layer - per_layer  # one layer rematerialised during its backward
    activations = m.num_layers * per_layer + workspace
    total = states["model_state_bytes"] + activations
    capacity = hw.memory_bytes
    fits = total <= capacity
    overflow = None
    if not fits:
        if states["model_state_bytes"] > capacity:
            biggest = max(("weights", "gradients", "optimizer"), key=lambda k: states[f"{k}_bytes"])
            overflow = f"model_states ({biggest} largest)"
        else:
            overflow = "activations"
    return states | {
        "activation_bytes_per_layer": per_layer,
        "recompute_workspace_bytes": workspace,
        "activation_bytes": activations,
        "total_bytes": total,
        "capacity_bytes": capacity,
        "fits": fits,
        "overflow": overflow,
    }


def _divisors(n: int) -> list[int]:
    """Every divisor of n, by trial division up to sqrt(n) (n <= MAX_SEQUENCES_PER_GPU)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def smallest_fix(m: TrainingModel, hw: Accelerator, s: TrainingSetup, allreduce_time_s: float,
                 limit: int = 5) -> dict | None:  # fmt: skip
    """When the bill does not fit: the cheapest changes that do, among a higher ZeRO stage, more
    recomputation and a smaller micro-batch (more accumulation steps, same tokens per step).
    Cost = estimated extra seconds per step: recomputed FLOPs at the measured rate (step time x
    extra FLOPs / executed FLOPs) plus extra ZeRO communication, counted as not overlapped.
    A smaller micro-batch adds no FLOPs here (its cost, lower kernel efficiency, is not
    modelled); ties go to fewer changed knobs and then the larger micro-batch. None if it fits."""
    current = memory_bill(m, hw, s.gpus, s.sequence_length, s.micro_batch, s.optimizer, s.zero_stage, s.recompute)
    if current["fits"]:
        return None
    step = s.measured_step_time_s
    executed = dense_flops_per_token(m) + attention_flops_per_token(m, s.sequence_length)
    base_re = sum(recompute_flops_per_token(m, s.sequence_length, s.recompute))
    base_comm = zero_communication_factor(s.zero_stage, s.accumulation_steps)
    options = []
    recomputes = RECOMPUTE[RECOMPUTE.index(s.recompute) :]
    stages = [z for z in ZERO_STAGES if z >= s.zero_stage]
    for zero, rec, mb in itertools.product(stages, recomputes, _divisors(s.micro_batch)):
        bill = memory_bill(m, hw, s.gpus, s.sequence_length, mb, s.optimizer, zero, rec)
        if not bill["fits"]:
            continue
        k = s.sequences_per_gpu // mb
        extra_flops = sum(recompute_flops_per_token(m, s.sequence_length, rec)) - base_re
        extra_s = step * extra_flops / (executed + base_re)
        extra_s += max(zero_communication_factor(zero, k) - base_comm, 0.0) * allreduce_time_s
        changes = []
        if zero != s.zero_stage:
            changes.append(f"ZeRO-{zero}")
        if rec != s.recompute:
            changes.append(f"{rec} recomputation")
        if mb != s.micro_batch:
            changes.append(f"micro-batch {mb} ({k} accumulation steps)")
        options.append(
            {
                "zero_stage": zero,
                "recompute": rec,
                "micro_batch_size": mb,
                "accumulation_steps": k,
                "change": ", ".join(changes),
                "estimated_extra_time_s": extra_s,
                "total_bytes": bill["total_bytes"],
                "_key": (round(extra_s, 9), len(changes), -mb),
            }
        )
    if not options:
        return {"found": False, "options": [], "reason": "no ZeRO stage, recomputation or micro-batch fits: "
                "add GPUs, tensor/pipeline parallelism or a smaller model"}  # fmt: skip
    options.sort(key=lambda o: o["_key"])
    for o in options:
        del o["_key"]
    return {"found": True, "options": options[:limit]}


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def training_lab(m: TrainingModel, hw: Accelerator, s: TrainingSetup) -> dict:
    """Everything the training lab shows for one run on one accelerator type. The bounds on
    the inputs keep every figure finite; should a combination still overflow, the answer is an
    input error naming the measured rate, never an inf in JSON or on the page."""
    out = _training_lab(m, hw, s)
    if not _finite(out):
        field = "step_time_s" if s.step_time_s is not None else "tokens_per_s"
        raise EngineInputError(
            field,
            "with this model and setup a figure overflows a double: give a realistic rate",
            code="overflow",
            params={"value": repr(s.step_time_s if s.step_time_s is not None else s.tokens_per_s)},
        )
    return out


def _training_lab(m: TrainingModel, hw: Accelerator, s: TrainingSetup) -> dict:
    util = utilisation(m, hw, s)
    comm = allreduce(m, hw, s)
    bill = memory_bill(m, hw, s.gpus, s.sequence_length, s.micro_batch, s.optimizer, s.zero_stage, s.recompute)
    fix = smallest_fix(m, hw, s, comm["allreduce_time_s"])
    return {
        "model": {
            "id": m.id,
            "num_params": m.num_params,
            "num_layers": m.num_layers,
            "num_heads": m.num_heads,
            "head_dim": m.head_dim,
            "hidden_size": m.hidden_size,
            "num_active_params": m.active_params,
        },
        "hardware_id": hw.id,
        "setup": {
            "gpus": s.gpus,
            "sequence_length": s.sequence_length,
            "tokens_per_step": s.tokens_per_step,
            "sequences_per_gpu": s.sequences_per_gpu,
            "micro_batch_size": s.micro_batch,
            "accumulation_steps": s.accumulation_steps,
            "optimizer": s.optimizer,
            "zero_stage": s.zero_stage,
            "recompute": s.recompute,
            "dtype": s.dtype,
        },
        **util,
        **comm,
        "memory": bill,
        "model_state_bytes": bill["model_state_bytes"],
        "activation_bytes": bill["activation_bytes"],
        "fits": bill["fits"],
        "overflow": bill["overflow"],
        "smallest_fix": None if fix is None else (fix["options"][0] if fix["found"] else None),
        "fixes": None if fix is None else fix["options"],
        "fix_note": None if fix is None or fix["found"] else fix["reason"],
    }


def training_model(spec: object) -> TrainingModel:
    """A model for the lab: the teaching form (a mapping with num_params), else a preset id or
    a config.json mapping (engine.model_catalog.load_model)."""
    from .model_catalog import load_model

    if isinstance(spec, dict) and "num_params" in spec:
        return teaching_model(spec)
    return from_config(load_model(spec))


def run_training(model_spec: object, hw: Accelerator, **setup: object) -> dict:
    """The lab for a model spec and setup fields (TrainingSetup's names)."""
    return training_lab(training_model(model_spec), hw, TrainingSetup(**setup))
