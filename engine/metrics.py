"""Utilisation metrics and collective-communication time.

MFU (PaLM, Chowdhery et al. 2022, §4.1 and appendix B; Narayanan et al. 2021 for HFU): observed
tokens/s x model FLOPs per token / (GPUs x peak matmul FLOP/s). Model FLOPs per token are
6N (+ 12·L·H·Q·T with attention) for training and 2N per generated token for inference
(Databricks 2023, LLM Inference Performance Engineering). MBU (same): bytes a decode step
must move / step time / peak bandwidth.
Ring all-reduce (Patarasuk & Yuan, JPDC 2009; nccl-tests bus bandwidth):
t = S / B_bus x 2(n-1)/n.
"""

from __future__ import annotations

from .errors import EngineInputError


def _positive(name: str, value: float) -> float:
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not value > 0
        or value != value
        or value == float("inf")
    ):
        raise EngineInputError(
            name,
            f"{value!r} must be a positive finite number",
            code="positive_finite",
            params={"value": repr(value)[:40]},
        )
    return float(value)


def training_flops_per_token(
    num_params: float,
    num_layers: int = 0,
    num_heads: int = 0,
    head_dim: int = 0,
    seq_len: int = 0,
    include_attention: bool = False,
) -> float:
    """6N, plus 12·L·H·Q·T when the attention matmuls are counted (PaLM appendix B)."""
    flops = 6.0 * num_params
    if include_attention:
        flops += 12.0 * num_layers * num_heads * head_dim * seq_len
    return flops


def mfu(tokens_per_s: float, flops_per_token: float, peak_flops_per_s: float, num_gpus: int = 1) -> float:
    """Model FLOPs utilisation: achieved model FLOP/s over the GPUs' peak (a fraction)."""
    return (
        _positive("tokens_per_s", tokens_per_s)
        * _positive("flops_per_token", flops_per_token)
        / (_positive("num_gpus", num_gpus) * _positive("peak_flops_per_s", peak_flops_per_s))
    )


def inference_mfu(tokens_per_s: float, num_params: float, peak_flops_per_s: float, num_gpus: int = 1) -> float:
    """MFU of generation with 2N FLOP per generated token (Kaplan et al. 2020, the 2N forward count)."""
    return mfu(tokens_per_s, 2.0 * num_params, peak_flops_per_s, num_gpus)


def mbu(bytes_per_step: float, step_time_s: float, bandwidth_bytes_per_s: float) -> float:
    """Model bandwidth utilisation: bytes the step must move / time / peak bandwidth."""
    return _positive("bytes_per_step", bytes_per_step) / (
        _positive("step_time_s", step_time_s) * _positive("bandwidth_bytes_per_s", bandwidth_bytes_per_s)
    )


def ring_allreduce_time_s(
    size_bytes: float, bus_bandwidth_bytes_per_s: float, num_ranks: int, latency_s: float = 0.0
) -> float:
    """Time of a ring all-reduce of `size_bytes` on each of `num_ranks` ranks."""
    if num_ranks < 1:
        raise EngineInputError(
            "num_ranks",
            f"{num_ranks!r} must be >= 1",
            code="at_least",
            params={"value": repr(num_ranks)[:40], "low": 1},
        )
    if num_ranks == 1:
        return 0.0
    return (
        size_bytes / _positive("bus_bandwidth_bytes_per_s", bus_bandwidth_bytes_per_s) * 2 * (num_ranks - 1) / num_ranks
        + latency_s
    )
