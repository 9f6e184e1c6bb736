"""Memory-hierarchy roofs: the HBM roof plus each sourced on-chip cache roof (L2, Infinity Cache).

The bandwidth cliff of the cache-aware roofline (Ilic et al. 2014): a working set that fits in
a cache is served at that cache's bandwidth, several times HBM's; past the cache's capacity it
falls back to HBM, and the L2 hit rate moves an op's real intensity (NVIDIA matmul guide: L2
reuse of the A and B panels). Each extra roof is a
slanted line B_level x I under the same compute ceilings; an op can be placed against a level
only when its working set (the bytes it touches) fits in that level's capacity.

Roofs come only from `Accelerator.cache_roofs`, each with its source (vendor document or a
published microbenchmark): a card without a source has no cache roof. Measured cache roofs are
achieved bandwidths, while the HBM roof is the nominal one; each roof says which it is.
"""

from __future__ import annotations

from .errors import EngineInputError
from .hardware import Accelerator


def roof_uid(hardware_id: str, level: str) -> str:
    """The dashboard's trace uid for a roof: CSS-safe `roof--<hw>--<level>` (STACK.md)."""
    return f"roof--{hardware_id}--{level}"


def hierarchy_roofs(hw: Accelerator, compute_dtype: str = "bf16") -> list[dict]:
    """HBM first, then each sourced cache roof, with its ridge points under the tensor and vector
    peaks (FLOP/byte) and its bandwidth relative to HBM."""
    tensor_dtype, tensor = hw.tensor_roof(compute_dtype)
    _, vector = hw.vector_roof()
    hbm = hw.memory_bandwidth_bytes_per_s
    rows = [
        {
            "level": "hbm",
            "uid": roof_uid(hw.id, "hbm"),
            "bandwidth_bytes_per_s": hbm,
            "capacity_bytes": hw.memory_bytes,
            "kind": "peak",
            "source": "the accelerator's nominal memory bandwidth (its sources)",
        }
    ]
    for c in hw.cache_roofs:
        rows.append(
            {
                "level": c.level,
                "uid": roof_uid(hw.id, c.level),
                "bandwidth_bytes_per_s": c.bandwidth_bytes_per_s,
                "capacity_bytes": c.capacity_bytes,
                "kind": c.kind,
                "source": c.source,
            }
        )
    for r in rows:
        r["tensor_dtype"] = tensor_dtype
        r["ridge_point"] = tensor / r["bandwidth_bytes_per_s"]
        r["vector_ridge_point"] = vector / r["bandwidth_bytes_per_s"]
        r["times_hbm"] = r["bandwidth_bytes_per_s"] / hbm
    return rows


def place_in_hierarchy(
    flops: float, bytes_moved: float, working_set_bytes: float, peak_flops_per_s: float, hw: Accelerator
) -> list[dict]:
    """The op's bound under every level whose capacity holds its working set (HBM always):
    time = max(FLOPs / peak, bytes / B_level), attainable = min(peak, I x B_level)."""
    for name, value in (("flops", flops), ("bytes", bytes_moved), ("working_set_bytes", working_set_bytes)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 1e30:
            raise EngineInputError(
                name,
                f"{value!r} must be a positive finite number",
                code="positive_finite",
                params={"value": repr(value)[:40]},
            )
    intensity = flops / bytes_moved
    out = []
    for roof in hierarchy_roofs(hw):
        if working_set_bytes > roof["capacity_bytes"]:
            continue
        bw = roof["bandwidth_bytes_per_s"]
        out.append(
            {
                "level": roof["level"],
                "uid": roof["uid"],
                "bandwidth_bytes_per_s": bw,
                "intensity": intensity,
                "attainable_flops_per_s": min(peak_flops_per_s, intensity * bw),
                "time_s": max(flops / peak_flops_per_s, bytes_moved / bw),
                "bound": "compute" if flops / peak_flops_per_s > bytes_moved / bw else "memory",
            }
        )
    return out
