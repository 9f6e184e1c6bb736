"""`llm-roofline calibrate`: measure the roofs of the machine it runs on.

Memory bandwidth: a large copy and a STREAM triad (McCalpin) at several sizes past the
last-level cache; bytes = read + write; warm-up, then the median of repeats (STREAM, McCalpin 1995,
§4.3: measure a baseline, warm up, take the median). Matrix FLOP/s per dtype: large square
GEMMs, 2n^3 FLOP each. Vector FLOP/s: an elementwise multiply-add on a cache-resident array
(a lower bound of the vector units). CUDA uses PyTorch when it is installed (an optional
extra, never a hard dependency); CPU uses numpy.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.hardware import Accelerator, get_accelerator

SIZES = {  # bytes per array for bandwidth, GEMM n, vector elements
    "small": {"bandwidth": [16 << 20, 32 << 20], "gemm": 512, "vector": 1 << 15, "repeats": 5},
    "full": {"bandwidth": [256 << 20, 512 << 20, 1 << 30], "gemm": 4096, "vector": 1 << 16, "repeats": 9},
}
CUDA_SIZES = {
    "small": {"bandwidth": [256 << 20], "gemm": 4096, "vector": 1 << 24, "repeats": 10},
    "full": {"bandwidth": [512 << 20, 1 << 30, 2 << 30], "gemm": 8192, "vector": 1 << 24, "repeats": 20},
}


def _median_time(
    fn: Callable[[], None], repeats: int, sync: Callable[[], None] = lambda: None, warmup: int = 2
) -> tuple[float, float, float]:
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def _rate(work: float, timing: tuple[float, float, float]) -> dict:
    median, best, worst = timing
    return {"median": work / median, "best": work / best, "worst": work / worst}


def calibrate_cpu(size: str = "full") -> dict:
    cfg = SIZES[size]
    bandwidth = {}
    for nbytes in cfg["bandwidth"]:
        n = nbytes // 8
        a, b, c = np.ones(n), np.ones(n), np.empty(n)
        bandwidth[f"copy_{nbytes >> 20}MiB"] = _rate(
            2 * nbytes, _median_time(lambda a=a, c=c: np.copyto(c, a), cfg["repeats"])
        )

        def triad(a=a, b=b, c=c) -> None:  # c = a + s*b in two numpy passes: 5 arrays' worth of traffic
            np.multiply(b, 3.0, out=c)
            np.add(a, c, out=c)

        bandwidth[f"triad_{nbytes >> 20}MiB"] = _rate(5 * nbytes, _median_time(triad, cfg["repeats"]))
    gemm = {}
    n = cfg["gemm"]
    for dtype, np_dtype in (("fp32", np.float32),):
        x = np.random.default_rng(0).standard_normal((n, n)).astype(np_dtype)
        y = np.random.default_rng(1).standard_normal((n, n)).astype(np_dtype)
        out = np.empty((n, n), dtype=np_dtype)
        gemm[dtype] = _rate(2 * n**3, _median_time(lambda x=x, y=y, out=out: np.matmul(x, y, out=out), cfg["repeats"]))
    m = cfg["vector"]
    v = np.ones(m, dtype=np.float32)
    w = np.ones(m, dtype=np.float32)
    inner = 200

    def fma_loop() -> None:  # in-cache multiply and add: 2 FLOP per element per pass
        for _ in range(inner):
            np.multiply(v, 1.0000001, out=v)
            np.add(v, w, out=v)

    vector = {"fp32": _rate(2 * m * inner, _median_time(fma_loop, cfg["repeats"]))}
    return {
        "device": _cpu_name(),
        "tool": f"numpy {np.__version__}",
        "bandwidth": bandwidth,
        "gemm": gemm,
        "vector": vector,
        "sizes": cfg,
    }


def calibrate_cuda(size: str = "full") -> dict:
    import torch  # optional: installed only where a GPU is

    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA device visible to PyTorch")
    cfg = CUDA_SIZES[size]
    dev = torch.device("cuda")
    sync = torch.cuda.synchronize
    bandwidth = {}
    for nbytes in cfg["bandwidth"]:
        src = torch.empty(nbytes, dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        bandwidth[f"copy_{nbytes >> 20}MiB"] = _rate(
            2 * nbytes, _median_time(lambda dst=dst, src=src: dst.copy_(src), cfg["repeats"], sync)
        )
        del src, dst
        n = nbytes // 4
        a = torch.ones(n, device=dev)
        b = torch.ones(n, device=dev)
        c = torch.empty(n, device=dev)
        # c = a + 3 b in one kernel: reads a and b, writes c
        bandwidth[f"triad_{nbytes >> 20}MiB"] = _rate(
            3 * n * 4, _median_time(lambda a=a, b=b, c=c: torch.add(a, b, alpha=3.0, out=c), cfg["repeats"], sync)
        )
        del a, b, c
    gemm = {}
    n = cfg["gemm"]
    for dtype, torch_dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        x = torch.randn(n, n, device=dev, dtype=torch_dtype)
        y = torch.randn(n, n, device=dev, dtype=torch_dtype)
        gemm[dtype] = _rate(2 * n**3, _median_time(lambda x=x, y=y: torch.mm(x, y), cfg["repeats"], sync))
    if hasattr(torch, "float8_e4m3fn") and hasattr(torch, "_scaled_mm"):
        try:
            x8 = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
            y8 = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t().contiguous().t()
            one = torch.tensor(1.0, device=dev)
            gemm["fp8"] = _rate(
                2 * n**3,
                _median_time(
                    lambda: torch._scaled_mm(x8, y8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                    cfg["repeats"],
                    sync,
                ),
            )
        except (RuntimeError, TypeError):
            pass  # no fp8 tensor cores on this device
    m = cfg["vector"]
    v = torch.ones(m, device=dev, dtype=torch.bfloat16)
    w = torch.ones(m, device=dev, dtype=torch.bfloat16)
    inner = 50

    def fma_loop() -> None:  # L2-resident multiply-add, 2 FLOP per element: a lower bound
        for _ in range(inner):
            v.mul_(1.0).add_(w)

    vector = {"bf16": _rate(2 * m * inner, _median_time(fma_loop, cfg["repeats"], sync))}
    return {
        "device": torch.cuda.get_device_name(0),
        "tool": f"torch {torch.__version__}",
        "bandwidth": bandwidth,
        "gemm": gemm,
        "vector": vector,
        "sizes": cfg,
    }


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU"


def _memory_bytes() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def to_accelerator(result: dict, accelerator_id: str, base: str | None = None) -> Accelerator:
    """An accelerator entry whose `measured` block holds the calibration. With `base`, the
    datasheet roofs are that catalogue entry's; without (a CPU), the nominal roofs are the
    measured ones, and the notes say so."""
    best_bw = max(v["median"] for v in result["bandwidth"].values())
    measured = {
        "date": dt.date.today().isoformat(),
        "tool": f"llm-roofline calibrate ({result['tool']})",
        "device": result["device"],
        "memory_bandwidth_bytes_per_s": round(best_bw),
        "tensor_flops_per_s": {k: round(v["median"]) for k, v in result["gemm"].items()},
        "vector_flops_per_s": {k: round(v["median"]) for k, v in result["vector"].items()},
        "details": {
            "bandwidth": result["bandwidth"],
            "gemm": result["gemm"],
            "vector": result["vector"],
            "sizes": result["sizes"],
            "statistic": "median of repeats after 2 warm-up runs",
        },
    }
    if base:
        entry = get_accelerator(base).model_dump()
        entry.update(id=accelerator_id, name=f"{entry['name']} (calibrated)", measured=measured)
        entry["sources"] = entry["sources"] + [
            {"document": measured["tool"] + f", {measured['date']}", "supports": "the measured roofs"}
        ]
        return Accelerator.model_validate(entry)
    return Accelerator.model_validate(
        {
            "id": accelerator_id,
            "name": result["device"][:120],
            "vendor": result["device"].split()[0][:60],
            "memory_bytes": _memory_bytes(),
            "memory_bandwidth_bytes_per_s": round(best_bw),
            "tensor_flops_per_s": {
                "bf16": None,
                "fp16": None,
                "fp8": None,
                "int8": None,
                "fp4": None,
                "fp32": measured["tensor_flops_per_s"].get("fp32"),
            },
            "vector_flops_per_s": {"fp32": measured["vector_flops_per_s"].get("fp32"), "bf16": None, "fp16": None},
            "l2_bytes": None,
            "notes": "No datasheet: the nominal roofs are the measured ones.",
            "sources": [{"document": measured["tool"] + f", {measured['date']}", "supports": "all roofs"}],
            "measured": measured,
        }
    )


def report(result: dict, acc: Accelerator) -> str:
    lines = [f"{result['device']} — {result['tool']}", f"{'measurement':<22}{'median':>14}{'best':>14}{'worst':>14}"]
    for kind, unit, scale in (("bandwidth", "GB/s", 1e9), ("gemm", "TFLOP/s", 1e12), ("vector", "TFLOP/s", 1e12)):
        for name, r in result[kind].items():
            label = name if kind == "bandwidth" else f"{kind} {name}"
            lines.append(
                f"{label:<22}{r['median'] / scale:>10.3g} {unit:<4}{r['best'] / scale:>10.3g}"
                f" {unit:<4}{r['worst'] / scale:>9.3g} {unit}"
            )
    if acc.measured and acc.sources and len(acc.sources) > 1:  # has a datasheet to compare with
        nominal_bw = acc.memory_bandwidth_bytes_per_s
        lines.append(f"measured / nominal bandwidth: {acc.measured.memory_bandwidth_bytes_per_s / nominal_bw:.1%}")
        for dtype in ("bf16", "fp16", "fp8"):
            m, n = getattr(acc.measured.tensor_flops_per_s, dtype), getattr(acc.tensor_flops_per_s, dtype)
            if m and n:
                lines.append(f"measured / nominal {dtype} tensor: {m / n:.1%}")
    return "\n".join(lines)
