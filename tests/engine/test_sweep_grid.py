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
            for go, ro in zip(g["ops"], r["ops"], strict=True):
                assert go["name"] == ro["name"] and go["time_s"][i] == pytest.approx(ro["time_s"], rel=1e-12)
                assert bool(go["compute_bound"][i]) == (ro["bound"] == "compute")


def test_grid_arrays_must_pair_up():
    with pytest.raises(EngineInputError, match="same length"):
        phase_grid(get_model("llama-3-8b"), get_accelerator("h100-sxm5"), Scenario(), [1, 2], [128])
