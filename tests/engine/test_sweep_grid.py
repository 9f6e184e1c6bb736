"""The slider grid (engine.sweep.phase_grid) equals the single analysis at every stop it holds."""

import numpy as np
import pytest

from engine.analysis import Scenario, analyze_one
from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.sweep import phase_grid

STOPS = [(1, 128), (7, 4096), (64, 32768), (1024, 1 << 20)]


@pytest.mark.parametrize("model_id", ["llama-3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-27b", "gpt-oss-20b"])
@pytest.mark.parametrize("hw_id,tp,fa", [("h100-sxm5", 1, True), ("rtx-4090", 1, False), ("b200", 8, True)])
def test_every_stop_equals_the_analysis(model_id, hw_id, tp, fa):
    model, hw = get_model(model_id), get_accelerator(hw_id)
    if model.num_heads % tp:
        pytest.skip("TP degree does not divide the heads")
    base = Scenario(tensor_parallel=tp, flash_attention=fa, weight_dtype="fp8", compute_dtype="fp8")
    batch, context = np.array([b for b, _ in STOPS]), np.array([c for _, c in STOPS])
    grid = phase_grid(model, hw, base, batch, context)
    for i, (b, c) in enumerate(STOPS):
        one = analyze_one(
            model,
            hw,
            Scenario(
                batch_size=b,
                context_length=c,
                tensor_parallel=tp,
                flash_attention=fa,
                weight_dtype="fp8",
                compute_dtype="fp8",
            ),
        )
        assert bool(grid["fits"][i]) == one["memory"]["fits"]
        for phase in ("decode", "prefill"):
            g, r = grid[phase], one[phase]
            assert g["flops"][i] == pytest.approx(r["flops"], rel=1e-12)
            assert g["bytes"][i] == pytest.approx(r["bytes"], rel=1e-12)
            assert g["time_s"][i] == pytest.approx(r["time_s"], rel=1e-12)
            assert bool(g["compute_bound"][i]) == (r["bound"] == "compute")
            assert g["fraction_of_roof"][i] == pytest.approx(r["fraction_of_roof"], rel=1e-12)
            for go, ro in zip(g["ops"], r["ops"], strict=True):
                assert go["name"] == ro["name"] and go["time_s"][i] == pytest.approx(ro["time_s"], rel=1e-12)
                assert bool(go["compute_bound"][i]) == (ro["bound"] == "compute")
                assert go["layers"] == ro["layers"]
                assert go["share_of_step"][i] == pytest.approx(ro["share_of_step"], rel=1e-12)


def test_grid_arrays_must_pair_up():
    with pytest.raises(EngineInputError, match="same length"):
        phase_grid(get_model("llama-3-8b"), get_accelerator("h100-sxm5"), Scenario(), [1, 2], [128])


def test_what_the_tooltips_say_comes_from_the_engine():
    """Each op says how many layers it sums (0: once per step) and its share of the step; a
    phase says how close it comes to the roof at its own intensity."""
    model, hw = get_model("llama-3-8b"), get_accelerator("h100-sxm5")
    r = analyze_one(model, hw, Scenario(batch_size=32, context_length=4096))
    ops = {o["name"]: o for o in r["decode"]["ops"]}
    assert ops["q_proj"]["layers"] == ops["attn_norm"]["layers"] == model.num_layers == 32
    assert ops["lm_head"]["layers"] == ops["embedding"]["layers"] == ops["final_norm"]["layers"] == 0
    assert sum(o["share_of_step"] for o in ops.values()) == pytest.approx(1.0, rel=1e-12)  # no TP: no comm
    d = r["decode"]
    roof = min(r["tensor_flops_per_s"], d["intensity"] * r["memory_bandwidth_bytes_per_s"])
    assert d["fraction_of_roof"] == pytest.approx(d["attainable_flops_per_s"] / roof, rel=1e-12)
    # every op memory-bound: the step moves all its bytes at B, exactly on the roof
    assert all(o["bound"] == "memory" for o in ops.values())
    assert d["fraction_of_roof"] == pytest.approx(1.0, rel=1e-12)
    # mixed regimes (batch 1024, short context): compute-bound GEMMs and memory-bound attention
    # and norms run back to back, so the step as a whole sits below the roof at its intensity
    mixed = analyze_one(model, hw, Scenario(batch_size=1024, context_length=128))["decode"]
    assert {o["bound"] for o in mixed["ops"]} == {"memory", "compute"}
    assert 0.5 < mixed["fraction_of_roof"] < 0.99
    # Gemma-2 (alternating local/global layers): every layer is counted once
    gemma = get_model("gemma-2-27b")
    g_ops = {o["name"]: o for o in analyze_one(gemma, hw, Scenario())["decode"]["ops"]}
    assert g_ops["attn_norm"]["layers"] == gemma.num_layers
