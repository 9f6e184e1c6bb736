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
