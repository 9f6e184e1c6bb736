"""Engine speed figures (a benchmark, not a test: these machines are noisy).

Prints: one full analysis (one model, one accelerator, decode + prefill with per-op
breakdown and memory budget), cold (new scenario each call) and warm (cached op lists);
a 1,000-point batch sweep over 10 accelerators; one serving estimate (bound + estimate of
TTFT, TPOT and throughput, engine/serving), one disaggregated estimate and a 64-point serving
concurrency curve; the deployment planner's two reference searches (engine/planner), in wall
and CPU seconds, beside AIConfigurator's published figure (6.5 s in its README's example,
"under 30 s" in its paper, arXiv 2601.06288).
"""

import itertools
import statistics
import time

import numpy as np

from engine.analysis import Scenario, analyze_one, phase_ops_cache
from engine.hardware import catalogue
from engine.model_catalog import get_model
from engine.planner import PlanRequest, plan
from engine.serving import ServingScenario, serving_estimate
from engine.serving.curve import serving_curve
from engine.serving.disagg import disaggregated_estimate
from engine.serving.scenario import DisaggScenario, WorkerLayout
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
    prefill = WorkerLayout(workers=2, attention_data_parallel=4, expert_parallel=4)
    decode = WorkerLayout(workers=1, attention_data_parallel=16, expert_parallel=16)
    gb200 = catalogue()["gb200"]
    med, best = per_call_us(
        lambda: disaggregated_estimate(
            model, gb200, DisaggScenario(ServingScenario(**{**sc.__dict__, "concurrency": next(conc)}), prefill, decode)
        ),
        number=200,
    )
    print(f"disaggregated estimate (2P4 + 1D16)    : median {med / 1e3:6.3f} ms (best {best / 1e3:.3f} ms)")
    planner_bench()


def planner_bench() -> None:
    """The planner's two reference searches: both modes, every layout, 32 concurrencies an instance."""
    cases = [
        ("Llama-3.1-70B on 8 x H100 (target 0.2 s)", "llama-3.1-70b", "h100-sxm5", 8),
        ("DeepSeek-R1 on 72 x GB200 (target 1 s)", "deepseek-r1", "gb200", 72),
    ]
    for label, model_id, hw_id, gpus in cases:
        model, hw = get_model(model_id), [catalogue()[hw_id]]
        req = PlanRequest(gpus=gpus, tpot_s=0.05, ttft_s=2.0)
        plan(model, hw, req)  # templates and calibration loaded once, as a running server has them
        walls, cpus = [], []
        for _ in range(3):
            w, c = time.perf_counter(), time.process_time()
            answer = plan(model, hw, req)
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        n = answer["candidates"]["evaluated"]
        print(
            f"plan: {label:<42}: wall {min(walls):.2f} s, CPU {min(cpus):.2f} s, {n:,} candidates "
            f"({n / min(cpus):,.0f}/s of CPU); AIConfigurator: 6.5-30 s"
        )


if __name__ == "__main__":
    main()
