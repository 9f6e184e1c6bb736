"""Caches are bounded in bytes (issue 11, item 5): distinct custom configs padded with ~190 KB of
unknown keys leave only their normalised model in the cache, never the padding."""

from engine.analysis import PHASE_OPS_CACHE_BYTES, phase_ops_cache
from engine.cache import ByteLRU, approx_size
from engine.model_catalog import MODEL_CACHE_BYTES, model_cache, preset_records

LLAMA = preset_records()["llama-3-8b"]["config"]


def padded(i: int) -> dict:
    """A distinct config of ~190 KB: the real keys plus 190 junk keys of 1,000 characters."""
    return LLAMA | {f"junk_{i}_{k}": "x" * 1000 for k in range(190)}


def test_200_padded_configs_stay_within_the_cache_budget(client):
    model_cache.clear()
    for i in range(200):
        r = client.post("/api/v1/analyze", json={"model": padded(i), "hardware": ["h100-sxm5"], "batch_size": 1 + i})
        assert r.status_code == 200
    assert len(model_cache) == 200  # every config fits: the normalised model is small
    assert model_cache.bytes <= MODEL_CACHE_BYTES and phase_ops_cache.bytes <= PHASE_OPS_CACHE_BYTES
    # 200 x 190 KB of raw config would be 38 MB; what is kept is the model, not the padding
    assert model_cache.bytes < 10 * 1024 * 1024


def test_the_cached_model_keeps_no_padding(client):
    from engine.model_catalog import load_model

    model = load_model(padded(999))
    assert not any(k.startswith("junk_") for k in model.hf_config)
    assert approx_size(model) < 50 * 1024


def test_byte_lru_evicts_oldest_past_its_budget():
    cache = ByteLRU(max_bytes=10_000, sizeof=lambda value: len(value) if isinstance(value, str) else 0)
    for i in range(30):
        cache.get_or_compute(i, lambda: "x" * 1000)
    assert cache.bytes <= 10_000 and len(cache) < 30
    assert cache.get_or_compute(29, lambda: "new") == "x" * 1000  # the newest is still there
    assert cache.get_or_compute(0, lambda: "new") == "new"  # the oldest was evicted
    assert cache.get_or_compute("huge", lambda: "y" * 20_000) == "y" * 20_000  # larger than the budget
    assert "huge" not in cache._entries


def deep_llama(layers: int = 1024) -> dict:
    return LLAMA | {"num_hidden_layers": layers, "_name_or_path": f"deep-{layers}"}


def test_a_kv_heads_override_is_derived_once_and_its_model_counted(client):
    """A 1,024-layer config with num_kv_heads 1 rebuilt its model on every call, and every copy
    sat in an op-list key counted as 1 KB (6,000 batch sizes: +800 MB). Now one derived model,
    measured, whatever the batch size."""
    from engine.analysis import Scenario, kv_model_cache, resolve_model
    from engine.model_catalog import load_model

    model = load_model(deep_llama())
    first = resolve_model(model, Scenario(batch_size=1, num_kv_heads=1))
    assert resolve_model(model, Scenario(batch_size=2, num_kv_heads=1)) is first
    assert first.layers[0].attention.num_kv_heads == 1 and kv_model_cache.bytes >= approx_size(first)
    phase_ops_cache.clear()
    for batch in range(1, 41):
        body = {"model": deep_llama(), "hardware": ["h100-sxm5"], "batch_size": batch, "num_kv_heads": 1}
        assert client.post("/api/v1/analyze", json=body).status_code == 200
    # the derived model is in the op-list cache's total once, not forty times, and not as 1 KB
    assert approx_size(first) <= phase_ops_cache.bytes < 2 * approx_size(first) + 40 * 64 * 1024


def test_byte_lru_counts_a_shared_object_once():
    shared = ("x" * 10_000,)
    cache = ByteLRU(max_bytes=100_000, sizeof=lambda value: 100, shared=lambda key: key[0])
    for i in range(5):
        cache.get_or_compute((shared, i), lambda: "v")
    held = approx_size(shared)
    assert cache.bytes == 5 * 200 + held  # five entries (key + value), the list once
    small = ByteLRU(max_bytes=held + 2 * 200, sizeof=lambda value: 100, shared=lambda key: key[0])
    for i in range(5):
        small.get_or_compute((shared, i), lambda: "v")
    assert len(small) == 2 and small.bytes == 2 * 200 + held  # evicted to fit, the list still once
    small.clear()
    assert small.bytes == 0


def test_the_dashboard_caches_are_bounded_in_measured_bytes():
    """The view and grid caches were bounded by entry counts (RSS levelled near 940 MB after four
    large imports): now by the bytes of what they hold, numpy buffers included."""
    import numpy as np

    from app.service import _SingleFlight

    cache = _SingleFlight(3_000_000)
    for i in range(10):
        cache.get(("grid", i), lambda: {"arrays": [np.zeros(100_000)]})  # 800 kB each
    assert cache.bytes <= 3_000_000 and len(cache) == 3
    assert cache.get(("huge",), lambda: np.zeros(1_000_000)).nbytes == 8_000_000  # answered, not kept
    assert ("huge",) not in cache._entries and cache.bytes <= 3_000_000


def long_named(i: int, chars: int = 250_000) -> dict:
    """Issue 34's repro: a 4-layer Llama whose `_name_or_path` is 250 KB, distinct per i."""
    return LLAMA | {"hidden_size": 1024, "num_hidden_layers": 4, "_name_or_path": f"{i:06d}" + "n" * chars}


def test_a_parsed_config_keeps_no_long_string():
    from engine.model_catalog import load_model

    model = load_model(long_named(0))
    assert model.id == long_named(0)["_name_or_path"][:64]
    assert approx_size(model) < 50 * 1024  # the 250 KB name was kept whole in model.hf_config
    # keys the parser reads but does not check keep no padding either
    model = load_model(long_named(1, 100) | {"qk_norm_type": {"pad": "x" * 100_000}, "topk_method": "t" * 100_000})
    assert all(len(str(v)) <= 64 for k, v in model.hf_config.items() if k != "layer_types")


def test_byte_lru_cache_bounds_the_models_its_keys_pin():
    """An entry-counted cache (functools.lru_cache(512)) kept 512 custom models alive whatever
    their size; byte_lru_cache counts each model in its key and lets the oldest go."""
    import weakref
    from dataclasses import dataclass

    from engine.cache import byte_lru_cache

    @dataclass(frozen=True)
    class Big:
        name: str
        payload: str

    @byte_lru_cache(300_000)
    def work(model: Big, n: int) -> int:
        return len(model.payload) + n

    refs = []
    for i in range(40):
        model = Big(str(i), "x" * 100_000)
        refs.append(weakref.ref(model))
        assert work(model, 1) == work(model, 1) == 100_001  # the second call is a hit
        del model
    assert work.cache.bytes <= 300_000 and len(work.cache) <= 2
    assert sum(r() is not None for r in refs) <= 2  # the others are freed, not pinned by the cache
