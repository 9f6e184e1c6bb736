"""Read a Hugging Face `config.json` mapping into a ModelConfig.

Only parses JSON data: never downloads, never imports or executes model code
(`auto_map`/`trust_remote_code` entries are ignored). Families understood: Llama and Qwen2
dense decoders. Fields this version cannot model (MoE experts, MLA latents, active sliding
windows) are refused by name rather than silently ignored.
"""

from __future__ import annotations

from .errors import EngineInputError
from .model import AttentionSpec, LayerSpec, MlpSpec, ModelConfig

SUPPORTED_TYPES = ("llama", "qwen2")
GATED_ACTIVATIONS = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu_pytorch_tanh": "gelu",
                     "gelu_new": "gelu"}
# field -> why it is refused for now (MoE / MLA / sliding windows come with their own issue)
UNSUPPORTED_FIELDS = {
    "num_local_experts": "mixture-of-experts layers",
    "num_experts": "mixture-of-experts layers",
    "n_routed_experts": "mixture-of-experts layers",
    "kv_lora_rank": "multi-head latent attention (MLA)",
    "q_lora_rank": "multi-head latent attention (MLA)",
    "layer_types": "per-layer attention types",
}
MAX_DIM = 1 << 20       # hidden size, heads, ... sanity bound
MAX_LAYERS = 1024
MAX_VOCAB = 1 << 22


def _int(cfg: dict, key: str, low: int = 1, high: int = MAX_DIM, default: object = ...) -> int:
    if key not in cfg or cfg[key] is None:
        if default is ...:
            raise EngineInputError(f"config.{key}", "missing required field")
        return default  # type: ignore[return-value]
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(f"config.{key}", f"{value!r} is not an integer in [{low}, {high}]")
    return value


def _bool(cfg: dict, key: str, default: bool) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EngineInputError(f"config.{key}", f"{value!r} is not true/false")
    return value


def parse_hf_config(cfg: object, model_id: str = "custom", published_params: str | None = None) -> ModelConfig:
    if not isinstance(cfg, dict):
        raise EngineInputError("config", "a config.json must be a JSON object")
    model_type = cfg.get("model_type")
    if model_type not in SUPPORTED_TYPES:
        raise EngineInputError("config.model_type", f"unsupported model_type {model_type!r}",
                               ", ".join(SUPPORTED_TYPES))
    for key, what in UNSUPPORTED_FIELDS.items():
        if cfg.get(key):
            raise EngineInputError(f"config.{key}", f"{what} are not supported yet")
    window = cfg.get("sliding_window")
    sliding_on = cfg.get("use_sliding_window", model_type != "qwen2")  # Qwen2 ships a window, disabled
    if window and sliding_on:
        raise EngineInputError("config.sliding_window", "sliding-window attention is not supported yet")

    hidden = _int(cfg, "hidden_size")
    layers_n = _int(cfg, "num_hidden_layers", high=MAX_LAYERS)
    heads = _int(cfg, "num_attention_heads")
    kv_heads = _int(cfg, "num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise EngineInputError("config.num_key_value_heads",
                               f"{kv_heads} must divide num_attention_heads ({heads})")
    if "head_dim" in cfg and cfg["head_dim"] is not None:
        head_dim = _int(cfg, "head_dim")
    elif hidden % heads == 0:
        head_dim = hidden // heads
    else:
        raise EngineInputError("config.head_dim", f"missing and hidden_size {hidden} is not a multiple of {heads} heads")
    intermediate = _int(cfg, "intermediate_size")
    vocab = _int(cfg, "vocab_size", high=MAX_VOCAB)
    act = cfg.get("hidden_act", "silu")
    if act not in GATED_ACTIVATIONS:
        raise EngineInputError("config.hidden_act", f"unsupported activation {act!r}", ", ".join(GATED_ACTIVATIONS))
    # Qwen2's q/k/v projections always carry a bias (no config key); Llama's is optional.
    qkv_bias = True if model_type == "qwen2" else _bool(cfg, "attention_bias", False)
    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _int(cfg, "max_position_embeddings", high=1 << 26)

    layer = LayerSpec(
        attention=AttentionSpec(num_heads=heads, num_kv_heads=kv_heads, head_dim=head_dim, qkv_bias=qkv_bias),
        mlp=MlpSpec(intermediate_size=intermediate, gated=True),
    )
    return ModelConfig(
        id=model_id, family=model_type, hidden_size=hidden, vocab_size=vocab,
        layers=(layer,) * layers_n, tie_word_embeddings=_bool(cfg, "tie_word_embeddings", False),
        max_position_embeddings=max_pos, activation=GATED_ACTIVATIONS[act],
        published_params=published_params, hf_config=dict(cfg),
    )
