"""Hardware and model catalogues: every file valid, sourced, and consistent."""

import json
import re
from pathlib import Path

import pytest
import yaml

from engine.errors import EngineInputError, UnknownIdError
from engine.hardware import BUILTIN_DIR, _catalogue, catalogue, get_accelerator, load_file
from engine.hf_config import parse_hf_config
from engine.model_catalog import get_model, load_model, preset_records

REQUIRED_IDS = {
    "h100-sxm5",
    "h100-pcie",
    "h200-sxm",
    "b200",
    "b300",
    "gb200",
    "a100-40gb-sxm",
    "a100-80gb-sxm",
    "l4",
    "l40s",
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "mi300x",
    "mi325x",
    "mi355x",
    "tpu-v5e",
    "tpu-v5p",
    "tpu-v6e",
    "gaudi-3",
}
HW_FILES = sorted(BUILTIN_DIR.glob("*.yaml"))


def test_required_accelerators_present():
    assert set(catalogue()) >= REQUIRED_IDS


@pytest.mark.parametrize("path", HW_FILES, ids=[p.stem for p in HW_FILES])
def test_hardware_file_valid(path: Path):
    acc = load_file(path)  # schema (extra keys forbidden), positive values, id == file name
    assert acc.id == path.stem
    assert acc.memory_bytes > 1e9 and acc.memory_bandwidth_bytes_per_s > 1e11
    t = acc.tensor_flops_per_s
    if t.fp8 and t.bf16:
        assert t.fp8 >= t.bf16
    assert acc.sources and all(len(s.document) > 10 for s in acc.sources)
    assert "sparsity" not in path.read_text().split("sources:")[0].lower() or "dense" in path.read_text().lower()
    # A dense ridge point for 16-bit between 50 and 700 FLOP/byte: catches a sparse figure or a
    # GB-vs-GiB slip by an order of magnitude.
    assert 50 < acc.ridge_points_by_dtype()["bf16"] < 700


def test_geforce_uses_fp32_accumulate_rate():
    """GeForce bf16 roof = FP32-accumulate rate; the FP16-accumulate rate is only noted."""
    rtx = get_accelerator("rtx-4090")
    assert rtx.tensor_flops_per_s.bf16 == pytest.approx(165.2e12)
    assert "330.3" in rtx.notes


def test_ids_unique():
    ids = [yaml.safe_load(p.read_text())["id"] for p in HW_FILES]
    assert len(ids) == len(set(ids))


def test_unknown_hardware_id():
    with pytest.raises(UnknownIdError) as err:
        get_accelerator("h100-sxm6")
    assert "unknown hardware id 'h100-sxm6'" in str(err.value)
    assert "h100-sxm5" in err.value.known


def _user_dir(tmp_path, monkeypatch, name: str, data: dict | str) -> None:
    (tmp_path / f"{name}.yaml").write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    monkeypatch.setenv("LLM_ROOFLINE_HARDWARE_DIR", str(tmp_path))
    _catalogue.cache_clear()


def _my_card() -> dict:
    return yaml.safe_load((BUILTIN_DIR / "h100-sxm5.yaml").read_text()) | {"id": "my-card", "name": "My card"}


def test_user_hardware_dir(tmp_path, monkeypatch):
    _user_dir(tmp_path, monkeypatch, "my-card", _my_card())
    try:
        assert catalogue()["my-card"].name == "My card"
    finally:
        monkeypatch.delenv("LLM_ROOFLINE_HARDWARE_DIR")
        _catalogue.cache_clear()


@pytest.mark.parametrize(
    "change, field",
    [
        ({"memory_bandwidth_bytes_per_s": -1}, "memory_bandwidth_bytes_per_s"),
        ({"flops_with_sparsity": 1}, "flops_with_sparsity"),
        ({"sources": []}, "sources"),
        ({"tensor_flops_per_s": {"bf16": 1e15, "fp16": None, "fp8": 5e14, "int8": None, "fp4": None}}, "fp8"),
        ({"id": "other-name"}, "id"),
    ],
)
def test_bad_user_hardware_names_file_and_field(tmp_path, monkeypatch, change, field):
    _user_dir(tmp_path, monkeypatch, "my-card", _my_card() | change)
    try:
        with pytest.raises(EngineInputError) as err:
            catalogue()
        assert "my-card.yaml" in str(err.value) and field in str(err.value)
    finally:
        monkeypatch.delenv("LLM_ROOFLINE_HARDWARE_DIR")
        _catalogue.cache_clear()


def test_user_hardware_not_yaml(tmp_path, monkeypatch):
    _user_dir(tmp_path, monkeypatch, "broken", "id: [unclosed")
    try:
        with pytest.raises(EngineInputError, match="broken.yaml.*YAML"):
            catalogue()
    finally:
        monkeypatch.delenv("LLM_ROOFLINE_HARDWARE_DIR")
        _catalogue.cache_clear()


# ---- models -------------------------------------------------------------------------

PRESETS = sorted(preset_records())


@pytest.mark.parametrize("model_id", PRESETS)
def test_param_count_matches_published(model_id):
    """Config-derived parameter count vs the published exact count: within 2% (they match
    exactly); where no exact count is published, vs the model card's headline ("32.8B")."""
    record = preset_records()[model_id]
    expected = record["exact_param_count"] or _headline(record["published_params"])
    assert get_model(model_id).num_params == pytest.approx(expected, rel=0.02)
    assert record["sources"]


def _headline(published: str) -> float:
    number, unit = re.match(r"([0-9.]+)([BT])", published).groups()
    return float(number) * (1e9 if unit == "B" else 1e12)


def test_dense_presets_present():
    assert {"llama-2-7b", "llama-3-8b", "llama-3-70b", "llama-3.1-405b", "qwen2.5-7b-instruct"} <= set(PRESETS)


def test_qwen2_has_qkv_bias_and_disabled_window():
    m = get_model("qwen2.5-7b-instruct")
    assert m.layers[0].attention.qkv_bias
    assert m.layers[0].attention.window is None
    assert m.kv_values_per_token * 2 == 57344


def test_user_config_json_equals_preset():
    cfg = preset_records()["llama-3-8b"]["config"]
    assert load_model(json.loads(json.dumps(cfg))).num_params == get_model("llama-3-8b").num_params


@pytest.mark.parametrize(
    "patch, field",
    [
        ({"num_hidden_layers": None}, "config.num_hidden_layers"),
        ({"hidden_size": "4096"}, "config.hidden_size"),
        ({"num_key_value_heads": 5}, "config.num_key_value_heads"),
        ({"model_type": "gpt2"}, "config.model_type"),
        ({"num_local_experts": 8}, "config.num_local_experts"),
        ({"kv_lora_rank": 512}, "config.kv_lora_rank"),
        ({"sliding_window": 4096}, "config.sliding_window"),
        ({"hidden_act": "relu2"}, "config.hidden_act"),
        ({"vocab_size": -3}, "config.vocab_size"),
    ],
)
def test_bad_config_names_the_field(patch, field):
    cfg = dict(preset_records()["llama-3-8b"]["config"])
    for k, v in patch.items():
        if v is None:
            cfg.pop(k)
        else:
            cfg[k] = v
    with pytest.raises(EngineInputError) as err:
        parse_hf_config(cfg)
    assert str(err.value).startswith(field)


def test_config_never_executes_code():
    cfg = dict(preset_records()["llama-3-8b"]["config"])
    cfg["auto_map"] = {"AutoModelForCausalLM": "evil.Model"}
    cfg["trust_remote_code"] = True
    assert parse_hf_config(cfg).num_params == get_model("llama-3-8b").num_params
