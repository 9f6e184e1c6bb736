"""The roofline model (Williams, Waterman, Patterson, CACM 52(4), 2009).

attainable = min(peak, intensity x bandwidth); ridge point = peak / bandwidth. An op's time
lower bound is max(flops / peak, bytes / bandwidth): compute and data movement fully
overlapped (Williams et al. 2009, §2).

A kernel also pays a fixed launch cost (a few µs; NVIDIA's CUDA Graphs guide):
with it, a kernel's bound is max(compute, memory, launch overhead) and a tiny op is bound by
`overhead`, the third regime, which the two roofs alone hide.
"""


def ridge_point(peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """Intensity (FLOP/byte) where the memory slope meets the compute roof."""
    return peak_flops_per_s / bandwidth_bytes_per_s


def attainable_flops_per_s(intensity: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """min(peak, I x B): the ceiling for an op of arithmetic intensity I (FLOP/byte)."""
    return min(peak_flops_per_s, intensity * bandwidth_bytes_per_s)


def op_time_s(flops: float, bytes_moved: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """Lower bound on an op's time: the slower of computing and moving its bytes."""
    return max(flops / peak_flops_per_s, bytes_moved / bandwidth_bytes_per_s)


def bound(flops: float, bytes_moved: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> str:
    """'compute' when the compute time is the larger one, else 'memory'."""
    return "compute" if flops / peak_flops_per_s > bytes_moved / bandwidth_bytes_per_s else "memory"


def kernel_time_s(
    flops: float, bytes_moved: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float, launch_overhead_s=0.0
) -> float:
    """One kernel's lower bound: max(compute, memory, launch overhead) (NVIDIA's CUDA Graphs guide)."""
    return max(flops / peak_flops_per_s, bytes_moved / bandwidth_bytes_per_s, launch_overhead_s)


def kernel_bound(
    flops: float, bytes_moved: float, peak_flops_per_s: float, bandwidth_bytes_per_s: float, launch_overhead_s=0.0
) -> str:
    """'overhead' when the launch cost exceeds both roofs' times, else bound() (so a zero
    overhead never reports 'overhead')."""
    if launch_overhead_s > max(flops / peak_flops_per_s, bytes_moved / bandwidth_bytes_per_s):
        return "overhead"
    return bound(flops, bytes_moved, peak_flops_per_s, bandwidth_bytes_per_s)
