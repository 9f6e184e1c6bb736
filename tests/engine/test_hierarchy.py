"""Memory-hierarchy roofs (engine/hierarchy.py, Accelerator.cache_roofs): sourced or absent."""

import pytest

from engine.errors import EngineInputError
from engine.hardware import catalogue, get_accelerator, parse_accelerator
from engine.hierarchy import hierarchy_roofs, place_in_hierarchy

H200 = get_accelerator("h200-sxm")


def test_every_cache_roof_is_sourced_and_above_hbm():
    found = {}
    for acc in catalogue().values():
        for c in acc.cache_roofs:
            assert len(c.source) > 40 and c.kind in ("peak", "measured")
            assert c.bandwidth_bytes_per_s > acc.memory_bandwidth_bytes_per_s  # the cliff goes down to HBM
            assert c.capacity_bytes <= acc.memory_bytes
            found.setdefault(acc.id, []).append(c.level)
    assert found == {"h200-sxm": ["l2"], "h100-pcie": ["l2"], "gb200": ["l2"], "mi300x": ["l2", "infinity_cache"]}


def test_no_source_no_l2_roof():
    assert get_accelerator("b200").l2_bandwidth_bytes_per_s is None
    assert get_accelerator("h100-sxm5").l2_bandwidth_bytes_per_s is None
    assert [r["level"] for r in hierarchy_roofs(get_accelerator("b200"))] == ["hbm"]


def test_h200_hierarchy_rows():
    rows = hierarchy_roofs(H200)
    assert [r["uid"] for r in rows] == ["roof--h200-sxm--hbm", "roof--h200-sxm--l2"]
    l2 = rows[1]
    assert l2["bandwidth_bytes_per_s"] == 9.77e12  # gpu-benches h200.txt plateau median
    assert l2["ridge_point"] == pytest.approx(989.4e12 / 9.77e12)
    assert l2["times_hbm"] == pytest.approx(9.77 / 4.8)


def test_gemv_that_fits_in_l2_is_placed_against_it():
    # y = W x, W 4096 x 4096 bf16: 2 x 4096² FLOP; bytes: W (33.55 MB) + x + y
    n = 4096
    flops, byts = 2.0 * n * n, 2.0 * (n * n + 2 * n)
    placed = {p["level"]: p for p in place_in_hierarchy(flops, byts, byts, 989.4e12, H200)}
    assert set(placed) == {"hbm", "l2"}  # 33.6 MB <= the 40 MB plateau
    assert placed["hbm"]["time_s"] == pytest.approx(byts / 4.8e12)
    assert placed["l2"]["time_s"] == pytest.approx(byts / 9.77e12)
    assert placed["l2"]["bound"] == "memory"
    # 8192²: 134 MB does not fit: HBM only
    big = 2.0 * (8192 * 8192 + 2 * 8192)
    assert [p["level"] for p in place_in_hierarchy(2.0 * 8192**2, big, big, 989.4e12, H200)] == ["hbm"]


def test_bad_cache_roofs_are_refused():
    data = H200.model_dump()
    data["cache_roofs"] = [{"level": "l3", "bandwidth_bytes_per_s": 1e13, "capacity_bytes": 1e7, "kind": "peak",
                            "source": "a document that says so"}]  # fmt: skip
    with pytest.raises(EngineInputError, match="level"):
        parse_accelerator(data, "card")
    data["cache_roofs"] = [{"level": "l2", "bandwidth_bytes_per_s": 1e13, "capacity_bytes": 1e7, "kind": "guess",
                            "source": "a document that says so"}]  # fmt: skip
    with pytest.raises(EngineInputError, match="kind"):
        parse_accelerator(data, "card")
    with pytest.raises(EngineInputError):
        place_in_hierarchy(0.0, 1.0, 1.0, 1e15, H200)
