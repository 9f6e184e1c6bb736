"""Properties that must hold for every preset on every accelerator."""

import itertools

import numpy as np
import pytest

from engine.analysis import Scenario, analyze_one
from engine.errors import EngineInputError
from engine.hardware import catalogue
from engine.memory import kv_bytes_per_sequence, max_batch_size, max_context_length, memory_budget
from engine.model_catalog import get_model, model_ids
from engine.sweep import decode_sweep

HARDWARE = list(catalogue().values())
PAIRS = list(itertools.product(model_ids(), HARDWARE))


@pytest.mark.parametrize("model_id, hw", PAIRS, ids=[f"{m}-{h.id}" for m, h in PAIRS])
def test_preset_on_accelerator(model_id, hw):
    model = get_model(model_id)
    r1 = analyze_one(model, hw, Scenario(batch_size=1, context_length=1024))
    # decode at B = 1 is memory-bound
    assert r1["decode"]["bound"] == "memory"
    assert r1["decode"]["intensity"] < r1["ridge_point"]
    # the phase sums its ops
    assert r1["decode"]["time_s"] == pytest.approx(sum(o["time_s"] for o in r1["decode"]["ops"]))
    # step time never decreases as context grows
    sweep = decode_sweep(model, hw, Scenario(batch_size=8), context_lengths=[1, 128, 1024, 4096, 32768, 131072])
    assert np.all(np.diff(sweep["time_s"]) >= 0)
    # weights + KV at the reported max batch fit, one more sequence does not
    for context in (1024, 8192):
        b = max_batch_size(model, context, hw.memory_bytes, 2.0, 2.0)
        if b >= 1:
            assert memory_budget(model, b, context, hw.memory_bytes, 2.0, 2.0)["fits"]
        assert not memory_budget(model, b + 1, context, hw.memory_bytes, 2.0, 2.0)["fits"]


@pytest.mark.parametrize("model_id", model_ids())
def test_more_kv_heads_never_shrink_kv(model_id):
    model = get_model(model_id)
    sizes = [kv_bytes_per_sequence(model.with_kv_heads(k), 4096, 2.0) for k in model.allowed_kv_heads()]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize("model_id", model_ids())
def test_sweep_equals_single_analysis(model_id):
    model, hw = get_model(model_id), catalogue()["h100-sxm5"]
    sweep = decode_sweep(model, hw, Scenario(context_length=2048), batch_sizes=[1, 7, 64])
    for i, b in enumerate((1, 7, 64)):
        single = analyze_one(model, hw, Scenario(batch_size=b, context_length=2048))
        assert sweep["time_s"][i] == pytest.approx(single["decode"]["time_s"], rel=1e-12)
        assert sweep["intensity"][i] == pytest.approx(single["decode"]["intensity"], rel=1e-12)
        assert bool(sweep["fits"][i]) == single["memory"]["fits"]


@pytest.mark.parametrize(
    "model_id, block",
    [("llama-3-8b", 1), ("llama-3-8b", 16), ("gemma-2-9b", 16), ("mistral-7b-v0.1", 1), ("deepseek-v3", 16)],
)
def test_max_context_length_is_tight(model_id, block):
    model, hw = get_model(model_id), catalogue()["b200"]
    t = max_context_length(model, 16, hw.memory_bytes, 1.0, 1.0, block_size=block)
    if t == 0:
        assert not memory_budget(model, 16, 1, hw.memory_bytes, 1.0, 1.0, block)["fits"]
        return
    assert memory_budget(model, 16, t, hw.memory_bytes, 1.0, 1.0, block)["fits"]
    if t < 1 << 30:
        assert not memory_budget(model, 16, t + block, hw.memory_bytes, 1.0, 1.0, block)["fits"]


def test_analysis_reports_max_context():
    r = analyze_one(get_model("llama-3-8b"), catalogue()["h100-sxm5"], Scenario(batch_size=16, memory_utilization=1.0))
    t = r["memory"]["max_context_length"]
    capacity = catalogue()["h100-sxm5"].memory_bytes  # 80 GiB (README "Memory capacity")
    assert memory_budget(get_model("llama-3-8b"), 16, t, capacity, 2.0, 2.0, 16)["fits"]
    assert not memory_budget(get_model("llama-3-8b"), 16, t + 16, capacity, 2.0, 2.0, 16)["fits"]


def test_weight_only_quantisation_keeps_the_roof():
    """int4 weights with bf16 compute: fewer bytes, same tensor roof (issue #2 'Precision')."""
    model, hw = get_model("llama-3-8b"), catalogue()["h100-sxm5"]
    bf16 = analyze_one(model, hw, Scenario())
    w4 = analyze_one(model, hw, Scenario(weight_dtype="int4"))
    assert w4["ridge_point"] == bf16["ridge_point"]
    assert w4["decode"]["bytes"] < 0.3 * bf16["decode"]["bytes"] + 0.05 * bf16["decode"]["bytes"]
    assert w4["decode"]["flops"] == bf16["decode"]["flops"]


def test_compute_dtype_fallback_is_reported():
    """fp8 on an A100 (no fp8 tensor cores) runs at the bf16 roof, and says so."""
    r = analyze_one(get_model("llama-3-8b"), catalogue()["a100-80gb-sxm"], Scenario(compute_dtype="fp8"))
    assert r["tensor_dtype"] == "bf16"


def test_flash_attention_off_moves_scores_through_memory():
    model, hw = get_model("llama-3-8b"), catalogue()["h100-sxm5"]
    on = analyze_one(model, hw, Scenario(context_length=8192))["prefill"]
    off = analyze_one(model, hw, Scenario(context_length=8192, flash_attention=False))["prefill"]
    assert off["bytes"] > on["bytes"] + 32 * 32 * 8192 * 8192 * 2
    assert {o["name"] for o in off["ops"]} >= {"attention_scores", "attention_softmax", "attention_values"}


def test_causal_halves_prefill_attention():
    model, hw = get_model("llama-3-8b"), catalogue()["h100-sxm5"]
    causal = {o["name"]: o for o in analyze_one(model, hw, Scenario(context_length=4096))["prefill"]["ops"]}
    square = {
        o["name"]: o for o in analyze_one(model, hw, Scenario(context_length=4096, causal=False))["prefill"]["ops"]
    }
    assert causal["attention"]["flops"] / square["attention"]["flops"] == pytest.approx(4097 / 2 / 4096)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 1.5}, "batch_size"),
        ({"context_length": -1}, "context_length"),
        ({"weight_dtype": "fp12"}, "weight_dtype"),
        ({"kv_dtype": None}, "kv_dtype"),
        ({"compute_dtype": "int3"}, "compute_dtype"),
        ({"tensor_parallel": 3}, "tensor_parallel"),
        ({"batch_size": True}, "batch_size"),
    ],
)
def test_bad_scenario_names_the_field(kwargs, field):
    with pytest.raises(EngineInputError) as err:
        Scenario(**kwargs)
    assert str(err.value).startswith(field)


def test_kv_heads_must_divide():
    with pytest.raises(EngineInputError, match="num_kv_heads.*divide the 32 query heads"):
        analyze_one(get_model("llama-3-8b"), HARDWARE[0], Scenario(num_kv_heads=3))
