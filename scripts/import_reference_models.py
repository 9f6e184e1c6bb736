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

ARCHITECTURES = {
    "llama": "LlamaForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "mistral": "MistralForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
    "mixtral": "MixtralForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM",
    "gpt_oss": "GptOssForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "deepseek_v2": "DeepseekV2ForCausalLM",
}
HF_KEYS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_word_embeddings",
    "hidden_act",
    "max_position_embeddings",
    "rms_norm_eps",
)


def hf_config(entry):
    if entry["model_type"].startswith("kimi_k2"):  # the reference notes its architecture: DeepSeek-V3's
        entry = {**entry, "model_type": "deepseek_v3"}
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
    if isinstance(sw, dict):
        cfg["sliding_window"] = sw.get("value_in_config")
        if "use_sliding_window" in sw:  # Qwen2/Qwen3 ship a window but disable it
            cfg["use_sliding_window"] = sw["use_sliding_window"]
    mt = entry["model_type"]
    if mt == "gemma2":
        cfg["hidden_activation"] = src["hidden_act"]
        cfg.update({k: v for k, v in (src.get("extra") or {}).items()})
    moe = src.get("moe") or {}
    if mt in ("mixtral", "gpt_oss"):
        cfg["num_local_experts"] = moe["num_experts"]
        cfg["num_experts_per_tok"] = moe["top_k"]
    if mt == "gpt_oss":
        cfg["attention_bias"] = True
        cfg["layer_types"] = [
            "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(src["num_hidden_layers"])
        ]
    if mt == "qwen3_moe":
        cfg.update(
            num_experts=moe["num_experts"],
            num_experts_per_tok=moe["top_k"],
            moe_intermediate_size=moe["expert_intermediate_size"],
            decoder_sparse_step=moe["decoder_sparse_step"],
            mlp_only_layers=moe["mlp_only_layers"],
            norm_topk_prob=moe["norm_topk_prob"],
        )
    if mt in ("deepseek_v2", "deepseek_v3"):
        cfg.pop("head_dim", None)
        cfg.update(
            n_routed_experts=moe["num_experts"],
            num_experts_per_tok=moe["top_k"],
            moe_intermediate_size=moe["expert_intermediate_size"],
            n_shared_experts=moe["n_shared_experts"],
            first_k_dense_replace=moe["first_k_dense"],
            moe_layer_freq=moe.get("moe_layer_freq", 1),
        )
        cfg.update(
            {
                k: moe[k]
                for k in (
                    "topk_method",
                    "n_group",
                    "topk_group",
                    "scoring_func",
                    "routed_scaling_factor",
                    "norm_topk_prob",
                    "num_nextn_predict_layers",
                )
                if k in moe
            }
        )
        cfg.update(src["mla"])
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
            "published_active_params": e["published_params"].get("active"),
            "exact_active_param_count": e["params_check"].get("config_derived_active_incl_embedding"),
            "param_count_source": e["published_params"].get("exact_count_source") or e["published_params"]["source"],
            "sources": e["sources"],
            "config": hf_config(e),
        }
        Path(out, f"{mid}.json").write_text(json.dumps(preset, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
