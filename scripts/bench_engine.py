"""Engine speed figures (a benchmark, not a test: these machines are noisy).

Prints: one full analysis (one model, one accelerator, decode + prefill with per-op
breakdown and memory budget), cold (new scenario each call) and warm (cached op lists);
a 1,000-point batch sweep over 10 accelerators; one serving estimate (bound + estimate of
TTFT, TPOT and throughput, engine/serving) and a 64-point serving concurrency curve.
"""

import itertools
import statistics
import time

import numpy as np

from engine.analysis import Scenario, analyze_one, phase_ops_cache
from engine.hardware import catalogue
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate
from engine.serving.curve import serving_curve
from engine.sweep import decode_sweep


def per_call_us(fn, repeats: int = 7, number: int = 2000) -> tuple[float, float]:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(runs), min(runs)


def main() -> None:
    model, hw = get_model("llama-3-8b"), catalogue()["h100-sxm5"]
    warm = Scenario(batch_size=32, context_length=4096)
    batches = itertools.cycle(range(1, 60001))
    phase_ops_cache.clear()
    med, best = per_call_us(lambda: analyze_one(model, hw, Scenario(batch_size=next(batches), context_length=4096)))
    print(f"full analysis, new scenario each call : median {med:6.1f} us  (best {best:.1f} us)")
    med, best = per_call_us(lambda: analyze_one(model, hw, warm))
    print(f"full analysis, cached op lists        : median {med:6.1f} us  (best {best:.1f} us)")
    hws = list(catalogue().values())[:10]
    b = np.arange(1, 1001)
    med, best = per_call_us(lambda: [decode_sweep(model, h, warm, batch_sizes=b) for h in hws], repeats=7, number=20)
    print(f"1,000-point batch sweep x 10 GPUs      : median {med / 1e3:6.2f} ms (best {best / 1e3:.2f} ms)")
    serving_bench()


def serving_bench() -> None:
    """DeepSeek-R1 on 8 B200 (MLA, MoE, expert parallel): a new concurrency each call, so the
    running batch, the steps and the estimate are recomputed (the per-shape template is cached)."""
    model, hw = get_model("deepseek-r1"), catalogue()["b200"]
    sc = ServingScenario(
        tensor_parallel=8, expert_parallel=8, weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8", backend="trtllm"
    )
    conc = itertools.cycle(range(1, 1025))
    med, best = per_call_us(
        lambda: serving_estimate(model, hw, ServingScenario(**{**sc.__dict__, "concurrency": next(conc)})), number=500
    )
    print(f"serving estimate (bound + estimate)    : median {med / 1e3:6.3f} ms (best {best / 1e3:.3f} ms)")
    points = list(range(1, 65))
    med, best = per_call_us(lambda: serving_curve(model, hw, sc, points), repeats=7, number=10)
    print(f"serving curve, 64 concurrencies        : median {med / 1e3:6.2f} ms (best {best / 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
