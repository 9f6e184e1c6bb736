"""Profiling triage: which measured kernels are worth a deep look, in order.

The profiling order NVIDIA's Nsight tools suggest: find the kernels that cost the most time
(Nsight Systems), compute how far each is from its roof, and only take the ones far from it to
Nsight Compute. Ranking by the gap alone is wrong: a 10 µs kernel 50x from its roof can save
at most 10 µs, a 10 ms GEMM 1.5x from its roof 3.3 ms. So rows are ranked by **recoverable
time**, the time the kernel would save on its roof:

    recoverable = measured time - roof time = time x (1 - 1/gap)
    share of the profile = time share x (1 - 1/gap)

(gap = roof / achieved = measured time / roof time, engine/measurement.py `place`).

Each row names its regime and the first thing to check, from three signals of a profile
(time, distance from the roof, launch count; Nsight Compute's speed-of-light sections):
- memory-bound: achieved vs peak DRAM bandwidth (ncu dram__throughput.avg.pct_of_peak_sustained_
  elapsed; above 80% the kernel is at the bandwidth wall: move fewer bytes), coalescing
  (NVIDIA matmul guide), and the L2 hit rate (Nsight Compute's memory workload analysis);
- compute-bound: tensor-core use and the dtype (a GEMM off the tensor cores, or in fp32, sits
  far under the dense bf16 roof);
- overhead-bound: the roof time is below one kernel launch (a few µs, NVIDIA's CUDA Graphs guide), so the
  launch, not the work, sets the time: count launches per step, fuse, capture CUDA graphs.
"""

from __future__ import annotations

# A kernel launch costs a few microseconds (NVIDIA's CUDA Graphs guide);
# a kernel whose roof time is below this is overhead-bound whatever its intensity.
LAUNCH_OVERHEAD_S = 5e-6
# Real kernels reach 75-90% of nominal bandwidth (NVIDIA matmul guide; STREAM-style copies): a gap within 1/0.75 of the
# roof is as close as a kernel gets; beyond it the kernel is "far from its roof".
FAR_FROM_ROOF_GAP = 1 / 0.75

ADVICE = {
    "memory": "achieved vs peak DRAM bandwidth (ncu dram__throughput.avg.pct_of_peak_sustained_elapsed; "
    "over 80%: at the wall, move fewer bytes), then coalescing (sectors per request) and the L2 hit rate "
    "(lts__t_sector_hit_rate.pct)",
    "compute": "tensor-core use and dtype: is it on the tensor cores (sm__pipe_tensor_op_hmma_cycles_active) "
    "in bf16/fp8, not fp32, with dimensions multiples of 8/16",
    "overhead": "launches per step (nsys CUDA trace): fuse small kernels, capture the step with CUDA graphs "
    "(torch.compile mode='reduce-overhead')",
}


def regime(point: dict, unit_peaks: dict[str, float], bandwidth_bytes_per_s: float) -> str:
    """'overhead' when the roof time is below a launch, else the roof that binds the point."""
    if point["predicted_time_s"] < LAUNCH_OVERHEAD_S:
        return "overhead"
    compute_s = point["flops"] / unit_peaks[point["unit"]]
    memory_s = point["bytes"] / bandwidth_bytes_per_s
    return "compute" if compute_s > memory_s else "memory"


def triage(points: list[dict], unit_peaks: dict[str, float], bandwidth_bytes_per_s: float) -> list[dict]:
    """Measured points ranked by recoverable time, largest first, each with its first check."""
    total = sum(p["time_s"] for p in points)
    rows = []
    for p in points:
        recoverable = max(p["time_s"] - p["predicted_time_s"], 0.0)
        share = p["time_s"] / total if total else 0.0
        kind = regime(p, unit_peaks, bandwidth_bytes_per_s)
        rows.append(
            {
                "name": p["name"],
                "unit": p["unit"],
                "time_s": p["time_s"],
                "roof_time_s": p["predicted_time_s"],
                "gap": p["gap"],
                "time_share": share,
                "recoverable_time_s": recoverable,
                "recoverable_share": share * (1.0 - 1.0 / p["gap"]) if p["gap"] > 1 else 0.0,
                "achieved_bandwidth_fraction": p["achieved_bytes_per_s"] / bandwidth_bytes_per_s,
                "regime": kind,
                "far_from_roof": p["gap"] > FAR_FROM_ROOF_GAP,
                "first_check": ADVICE[kind],
            }
        )
    rows.sort(key=lambda r: r["recoverable_time_s"], reverse=True)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def triage_for(points: list[dict], hw, scenario) -> list[dict]:  # noqa: ANN001  (Accelerator, Scenario)
    """`triage` under the roofs the points were placed against (engine.analysis.Roofs)."""
    from .analysis import Roofs

    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    return triage(points, roofs.by_unit, roofs.bandwidth_bytes_per_s)
