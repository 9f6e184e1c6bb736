"""One-off importer: ../shared/reference/models.yaml -> engine/presets/<id>.json.

Each preset keeps the Hugging Face config.json fields verbatim under "config" (the same
shape a user uploads), with the published parameter count and the sources beside it.
Kept for provenance; nothing reads the reference at run time.
Usage: python scripts/import_reference_models.py ../shared/reference/models.yaml engine/presets id [id ...]
"""
import json
import sys
from pathlib import Path

import yaml

ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM"}
HF_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
           "head_dim", "intermediate_size", "vocab_size", "tie_word_embeddings", "hidden_act",
           "max_position_embeddings", "rms_norm_eps")


def hf_config(entry):
    src = entry["config"]
    cfg = {"architectures": [ARCHITECTURES[entry["model_type"]]], "model_type": entry["model_type"]}
    cfg.update({k: src[k] for k in HF_KEYS if k in src})
    rope = src.get("rope") or {}
    cfg["rope_theta"] = rope.get("rope_theta")
    if rope.get("rope_scaling"):
        cfg["rope_scaling"] = rope["rope_scaling"]
    if entry["model_type"] == "llama":
        cfg["attention_bias"] = bool(src.get("attention_bias"))
    sw = src.get("sliding_window")
    if isinstance(sw, dict):  # Qwen2 ships a window but disables it
        cfg["sliding_window"] = sw["value_in_config"]
        cfg["use_sliding_window"] = sw["use_sliding_window"]
    return cfg


def main(ref, out, *ids):
    entries = {m["id"]: m for m in yaml.safe_load(Path(ref).read_text())["models"]}
    for mid in ids:
        e = entries[mid]
        preset = {
            "id": mid,
            "hf_repo": e["hf_repo"],
            "published_params": e["published_params"]["total"],
            "exact_param_count": e["params_check"].get("independent_exact_count")
            or e["params_check"]["config_derived_total"],
            "param_count_source": e["published_params"].get("exact_count_source") or e["published_params"]["source"],
            "sources": e["sources"],
            "config": hf_config(e),
        }
        Path(out, f"{mid}.json").write_text(json.dumps(preset, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
