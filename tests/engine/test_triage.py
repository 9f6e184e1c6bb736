"""Profiling triage (engine/triage.py): ranked by recoverable time, not by gap."""

import pytest

from engine.analysis import Roofs, Scenario
from engine.hardware import get_accelerator
from engine.measurement import parse_measurements, place
from engine.triage import LAUNCH_OVERHEAD_S, triage

H100 = get_accelerator("h100-sxm5")
BW = 3.352e12
# A profile where "biggest gap first" is wrong (H100 SXM5, bf16):
# - an 8192³ GEMM: 1.0995e12 FLOP, 4.027e8 B; roof 1.111 ms; measured 1.667 ms (gap 1.5)
# - an add over 2e7 bf16 values: 2e7 FLOP, 1.2e8 B; roof 35.8 µs; measured 358 µs (gap 10)
# - an add over 1e5 values: roof 0.18 µs, under one launch; measured 8 µs (gap 44)
GEMM_FLOPS, GEMM_BYTES = 2 * 8192**3, 3 * 8192**2 * 2
PROFILE = (
    "name,flops,bytes,time_s,unit\n"
    f"gemm_8192,{GEMM_FLOPS},{GEMM_BYTES},{1.5 * GEMM_FLOPS / 989.4e12},tensor\n"
    f"big_add,2e7,1.2e8,{10 * 1.2e8 / BW},vector\n"
    "tiny_add,1e5,6e5,8e-6,vector\n"
)


def rows():
    roofs = Roofs.of(H100, "bf16", Scenario())
    points, _ = place(parse_measurements("csv", PROFILE), roofs.by_unit, roofs.bandwidth_bytes_per_s)
    return points, triage(points, roofs.by_unit, roofs.bandwidth_bytes_per_s)


def test_recoverable_time_beats_biggest_gap():
    points, ranked = rows()
    by_gap = [p["name"] for p in sorted(points, key=lambda p: p["gap"], reverse=True)]
    assert by_gap == ["tiny_add", "big_add", "gemm_8192"]  # the naive order
    assert [r["name"] for r in ranked] == ["gemm_8192", "big_add", "tiny_add"]
    gemm, big, tiny = ranked
    # hand: 1.6670 ms - 1.1113 ms = 0.5556 ms; 358.0 µs - 35.80 µs = 322.2 µs; 8 - 0.179 µs
    assert gemm["recoverable_time_s"] == pytest.approx(GEMM_FLOPS / 989.4e12 * 0.5, rel=1e-9)
    assert big["recoverable_time_s"] == pytest.approx(9 * 1.2e8 / BW, rel=1e-9)
    assert tiny["recoverable_time_s"] == pytest.approx(8e-6 - 6e5 / BW, rel=1e-9)
    assert [r["rank"] for r in ranked] == [1, 2, 3]


def test_share_formula_and_regimes():
    _, ranked = rows()
    total = sum(r["time_s"] for r in ranked)
    for r in ranked:
        assert r["recoverable_share"] == pytest.approx(r["time_s"] / total * (1 - 1 / r["gap"]), rel=1e-9)
        assert r["recoverable_share"] * total == pytest.approx(r["recoverable_time_s"], rel=1e-9)
    gemm, big, tiny = ranked
    assert (gemm["regime"], big["regime"], tiny["regime"]) == ("compute", "memory", "overhead")
    assert "tensor-core" in gemm["first_check"]
    assert "DRAM bandwidth" in big["first_check"] and "L2 hit rate" in big["first_check"]
    assert "CUDA graphs" in tiny["first_check"]
    assert tiny["roof_time_s"] < LAUNCH_OVERHEAD_S
    assert big["achieved_bandwidth_fraction"] == pytest.approx(0.1, rel=1e-9)
    assert gemm["far_from_roof"] and big["far_from_roof"]
