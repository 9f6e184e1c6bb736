"""Read a Hugging Face `config.json` mapping into a ModelConfig.

Only parses JSON data: never downloads, never imports or executes model code
(`auto_map`/`trust_remote_code` entries are ignored). Families: Llama, Qwen2, Qwen3,
Mistral (sliding window), Gemma-2 (alternating local/global), Mixtral and Qwen3-MoE (MoE),
DeepSeek-V2/V3 (MLA + MoE with shared experts and dense first layers; Kimi-K2 and Kimi-K2.5 are this
architecture), gpt-oss (MoE with alternating sliding/full attention), MiniMax-M2 (MoE, GQA,
query/key norms over the whole projection). A multimodal release whose language model sits
under `text_config` (Kimi-K2.5, Qwen3.5) is read from that block. Anything else is refused
with the field named.
"""

from __future__ import annotations

from .errors import EngineInputError
from .model import AttentionSpec, LayerSpec, MlpSpec, ModelConfig

SUPPORTED_TYPES = (
    "llama",
    "qwen2",
    "qwen3",
    "mistral",
    "gemma2",
    "mixtral",
    "qwen3_moe",
    "deepseek_v2",
    "deepseek_v3",
    "gpt_oss",
    "minimax_m2",
    "qwen3_next",
    "qwen3_5",
    "qwen3_5_moe",
    "glm_moe_dsa",
    "deepseek_v32",
)
MLA_TYPES = ("deepseek_v2", "deepseek_v3", "glm_moe_dsa", "deepseek_v32")
# DeepSeek Sparse Attention on MLA: GLM-5 (GlmMoeDsaForCausalLM), DeepSeek-V3.2
DSA_TYPES = ("glm_moe_dsa", "deepseek_v32")
# Gated DeltaNet linear attention with gated full attention every few layers
HYBRID_TYPES = ("qwen3_next", "qwen3_5", "qwen3_5_moe")
QWEN_MOE_TYPES = ("qwen3_moe", "qwen3_next", "qwen3_5_moe")
# Bytes per recurrent-state value by `mamba_ssm_dtype` (absent: the model's 16-bit dtype, as
# vLLM's mamba_ssm_cache_dtype "auto" keeps it)
STATE_DTYPE_BYTES = {"float32": 4.0, "bfloat16": 2.0, "float16": 2.0}
# model_type values of the same architecture as a supported one (the config.json fields read
# are the same): Kimi-K2/K2.5's language model is DeepSeek-V3's (MoonshotAI/Kimi-K2 README,
# "Model Summary": MLA, 61 layers, 1 dense; its config.json names DeepseekV3ForCausalLM).
MODEL_TYPE_ALIASES = {"kimi_k2": "deepseek_v3", "qwen3_5_moe_text": "qwen3_5_moe", "qwen3_5_text": "qwen3_5"}
ACTIVATIONS = {"silu": "silu", "swish": "silu", "gelu": "gelu", "gelu_pytorch_tanh": "gelu", "gelu_new": "gelu"}
TIED_BY_DEFAULT = {"gemma2"}
MAX_DIM = 1 << 20  # hidden size, heads, ... sanity bound
MAX_LAYERS = 1024
MAX_VOCAB = 1 << 22
# The keys this parser reads: only these are kept on the ModelConfig (`kept_value`), so a config
# padded with unknown keys or long strings costs its size once, while parsing, not for as long
# as the model is cached.
READ_KEYS = (
    "_name_or_path",
    "attention_bias",
    "attn_output_gate",
    "decoder_sparse_step",
    "experts_per_token",
    "first_k_dense_replace",
    "full_attention_interval",
    "head_dim",
    "hidden_act",
    "hidden_activation",
    "hidden_size",
    "index_head_dim",
    "index_n_heads",
    "index_topk",
    "intermediate_size",
    "kv_lora_rank",
    "layer_types",
    "linear_conv_kernel_dim",
    "linear_key_head_dim",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_value_head_dim",
    "mamba_ssm_dtype",
    "max_position_embeddings",
    "max_window_layers",
    "mlp_bias",
    "mlp_only_layers",
    "model_type",
    "moe_intermediate_size",
    "moe_layer_freq",
    "n_routed_experts",
    "n_shared_experts",
    "num_attention_heads",
    "num_experts",
    "num_experts_per_tok",
    "num_hidden_layers",
    "num_key_value_heads",
    "num_local_experts",
    "qk_norm_type",
    "q_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "shared_expert_intermediate_size",
    "sliding_window",
    "tie_word_embeddings",
    "topk_method",
    "use_qk_norm",
    "use_routing_bias",
    "use_sliding_window",
    "v_head_dim",
    "vocab_size",
)


# Characters of a text field kept (the model id is cut to 64 as well: model_catalog._model_id)
KEPT_TEXT = 64


def kept_value(value: object) -> object:
    """A read key's value as the ModelConfig keeps it: text cut to KEPT_TEXT characters, a list
    to MAX_LAYERS plain entries (no layer list is longer), a number only if it fits 64 bits;
    anything else (an object, a huge integer) is not kept. A 250 KB `_name_or_path` was kept
    whole on every cached model."""
    if isinstance(value, str):
        return value[:KEPT_TEXT]
    if isinstance(value, list):
        return [kept_value(v) for v in value[:MAX_LAYERS] if not isinstance(v, list | dict)]
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return None
    return value if value is None or isinstance(value, bool | int | float) else None


def _int(cfg: dict, key: str, low: int = 1, high: int = MAX_DIM, default: object = ...) -> int:
    if key not in cfg or cfg[key] is None:
        if default is ...:
            raise EngineInputError(f"config.{key}", "missing required field", code="config_missing")
        return default  # type: ignore[return-value]
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngineInputError(
            f"config.{key}",
            f"{value!r} is not an integer in [{low}, {high}]",
            code="int_range",
            params={"value": repr(value)[:40], "low": low, "high": high},
        )
    return value


def _bool(cfg: dict, key: str, default: bool) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise EngineInputError(
            f"config.{key}", f"{value!r} is not true/false", code="config_bool", params={"value": repr(value)[:40]}
        )
    return value


def _layer_kinds(cfg: dict, model_type: str, n: int) -> tuple[list[str], int | None]:
    """Per-layer 'full'/'sliding'/'linear' and the window, from `layer_types` or the family's
    rule (Qwen3-Next: full attention every `full_attention_interval`-th layer, default 4)."""
    window = cfg.get("sliding_window")
    if window is not None:
        window = _int(cfg, "sliding_window", high=1 << 26)
    types = cfg.get("layer_types")
    if types is None and model_type in HYBRID_TYPES:
        every = _int(cfg, "full_attention_interval", high=n, default=4)
        types = ["full_attention" if (i + 1) % every == 0 else "linear_attention" for i in range(n)]
    if types is not None:
        if not isinstance(types, list) or len(types) != n:
            raise EngineInputError(
                "config.layer_types", f"must be a list of {n} entries", code="config_layers", params={"n": n}
            )
        allowed = {"full_attention": "full", "sliding_attention": "sliding"}
        if model_type in HYBRID_TYPES:
            allowed["linear_attention"] = "linear"
        kinds = []
        for t in types:
            if not isinstance(t, str) or t not in allowed:
                raise EngineInputError(
                    "config.layer_types",
                    f"unsupported layer type {str(t)[:40]!r}",
                    ", ".join(allowed),
                    code="config_layer_type",
                    params={"value": repr(str(t)[:40]), "allowed": ", ".join(allowed)},
                )
            kinds.append(allowed[t])
        if "sliding" in kinds and window is None:
            raise EngineInputError("config.sliding_window", "sliding layers need a window size", code="config_window")
        return kinds, window
    if window is None:
        return ["full"] * n, None
    if model_type == "gemma2":  # HF Gemma2: layer_idx % 2 == 0 is local (sliding)
        return ["sliding" if i % 2 == 0 else "full" for i in range(n)], window
    if model_type in ("qwen2", "qwen3", "qwen3_moe"):  # a window only when use_sliding_window is on
        if not _bool(cfg, "use_sliding_window", False):
            return ["full"] * n, None
        first = _int(cfg, "max_window_layers", low=0, high=n, default=0)
        return ["sliding" if i >= first else "full" for i in range(n)], window
    if model_type in ("mistral", "mixtral", "gpt_oss"):
        return ["sliding"] * n, window
    raise EngineInputError(
        "config.sliding_window",
        f"{model_type} models have no sliding-window attention",
        "null, or model_type mistral / gemma2 / gpt_oss",
        code="config_no_window",
        params={"model_type": model_type},
    )


def _linear_attention(cfg: dict) -> AttentionSpec:
    """A Gated DeltaNet layer (Qwen3-Next / Qwen3.5 config keys)."""
    key_heads = _int(cfg, "linear_num_key_heads")
    value_heads = _int(cfg, "linear_num_value_heads")
    if value_heads % key_heads:
        raise EngineInputError(
            "config.linear_num_value_heads",
            f"{value_heads} must be a multiple of linear_num_key_heads ({key_heads})",
            code="config_linear_heads",
            params={"n": value_heads, "heads": key_heads},
        )
    dtype = cfg.get("mamba_ssm_dtype") or "bfloat16"
    if not isinstance(dtype, str) or dtype not in STATE_DTYPE_BYTES:
        raise EngineInputError(
            "config.mamba_ssm_dtype",
            f"unsupported {str(dtype)[:40]!r}",
            ", ".join(STATE_DTYPE_BYTES),
            code="unknown_dtype",
            params={"value": repr(str(dtype)[:40]), "allowed": ", ".join(STATE_DTYPE_BYTES)},
        )
    return AttentionSpec(
        num_heads=value_heads,
        num_kv_heads=key_heads,
        head_dim=_int(cfg, "linear_value_head_dim"),
        kind="linear",
        key_head_dim=_int(cfg, "linear_key_head_dim"),
        conv_kernel=_int(cfg, "linear_conv_kernel_dim", high=64, default=4),
        state_bytes=STATE_DTYPE_BYTES[dtype],
    )


def _mla_attention(cfg: dict, model_type: str, heads: int) -> AttentionSpec:
    sparse = model_type in DSA_TYPES
    return AttentionSpec(
        num_heads=heads,
        num_kv_heads=heads,
        head_dim=_int(cfg, "v_head_dim"),
        kind="mla",
        q_lora_rank=_int(cfg, "q_lora_rank", low=0, default=0),
        kv_lora_rank=_int(cfg, "kv_lora_rank"),
        qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"),
        qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
        v_head_dim=_int(cfg, "v_head_dim"),
        index_topk=_int(cfg, "index_topk", high=1 << 26) if sparse else 0,
        index_heads=_int(cfg, "index_n_heads") if sparse else 0,
        index_head_dim=_int(cfg, "index_head_dim") if sparse else 0,
    )


def _attention(cfg: dict, model_type: str, hidden: int, heads: int, kind: str, window: int | None) -> AttentionSpec:
    if model_type in MLA_TYPES:
        return _mla_attention(cfg, model_type, heads)
    if kind == "linear":
        return _linear_attention(cfg)
    kv_heads = _int(cfg, "num_key_value_heads", default=heads)
    if heads % kv_heads:
        raise EngineInputError(
            "config.num_key_value_heads",
            f"{kv_heads} must divide num_attention_heads ({heads})",
            code="config_kv_divides",
            params={"kv": kv_heads, "heads": heads},
        )
    if cfg.get("head_dim") is not None:
        head_dim = _int(cfg, "head_dim")
    elif hidden % heads == 0:
        head_dim = hidden // heads
    else:
        raise EngineInputError(
            "config.head_dim",
            f"missing and hidden_size {hidden} is not a multiple of {heads} heads",
            code="config_head_dim",
            params={"hidden": hidden, "heads": heads},
        )
    # Qwen2's q/k/v always carry a bias (no config key); Llama's/gpt-oss's attention_bias covers q, k, v and o.
    attention_bias = _bool(cfg, "attention_bias", model_type == "gpt_oss")
    return AttentionSpec(
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        kind=kind,
        window=window if kind == "sliding" else None,
        qkv_bias=model_type == "qwen2" or attention_bias,
        o_bias=attention_bias and model_type != "qwen2",
        sinks=model_type == "gpt_oss",
        qk_norm=model_type in ("qwen3", "qwen3_moe", *HYBRID_TYPES) or _minimax_qk_norm(cfg, model_type),
        qk_norm_full_width=model_type == "minimax_m2" and cfg.get("qk_norm_type") == "per_layer",
        output_gate=model_type in HYBRID_TYPES and _bool(cfg, "attn_output_gate", True),
    )


def _minimax_qk_norm(cfg: dict, model_type: str) -> bool:
    """MiniMax-M2's `use_qk_norm`; `qk_norm_type: per_layer` normalises the whole query and key
    projections (one weight per channel of q_proj's and k_proj's outputs), not each head."""
    return model_type == "minimax_m2" and _bool(cfg, "use_qk_norm", False)


def _mlps(cfg: dict, model_type: str, n: int) -> list[MlpSpec]:
    dense_bias = _bool(cfg, "mlp_bias", False)
    if model_type in ("mixtral", "gpt_oss", "minimax_m2"):
        experts = _int(cfg, "num_local_experts", high=4096)
        # HF Mixtral names it num_experts_per_tok, gpt-oss experts_per_token; both are checked
        # (a positive integer <= the experts), never passed through as a default unchecked
        k_key = "num_experts_per_tok" if cfg.get("num_experts_per_tok") is not None else "experts_per_token"
        k = _int(cfg, k_key, high=experts, default=2 if experts >= 2 else 1)
        is_oss = model_type == "gpt_oss"
        # MiniMax-M2: `use_routing_bias` is the router's e_score_correction_bias (one per expert)
        routing_bias = model_type == "minimax_m2" and _bool(cfg, "use_routing_bias", False)
        moe = MlpSpec(
            intermediate_size=_int(cfg, "intermediate_size"),
            kind="moe",
            num_experts=experts,
            experts_per_token=k,
            router_bias=is_oss or routing_bias,
            expert_bias=is_oss,
        )
        return [moe] * n
    if model_type in QWEN_MOE_TYPES:
        experts = _int(cfg, "num_experts", high=4096)
        shared = _int(cfg, "shared_expert_intermediate_size", low=0, default=0)
        moe = MlpSpec(
            intermediate_size=_int(cfg, "moe_intermediate_size"),
            kind="moe",
            num_experts=experts,
            experts_per_token=_int(cfg, "num_experts_per_tok", high=experts),
            shared_intermediate_size=shared,
            shared_gate=shared > 0,  # Qwen3-Next's shared_expert_gate
        )
        step = _int(cfg, "decoder_sparse_step", default=1)
        only_dense = cfg.get("mlp_only_layers") or []
        if not isinstance(only_dense, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in only_dense
        ):
            raise EngineInputError(
                "config.mlp_only_layers",
                f"{str(only_dense)[:60]} is not a list of layer indices",
                f"a list of integers in [0, {n - 1}]",
                code="config_dense_layers",
                params={"value": str(only_dense)[:60], "high": n - 1},
            )
        only_dense = set(only_dense)
        routed = [i not in only_dense and (i + 1) % step == 0 for i in range(n)]
        if all(routed):  # every layer MoE: the dense width is not needed (Qwen3.5 has none)
            return [moe] * n
        dense = MlpSpec(intermediate_size=_int(cfg, "intermediate_size"))
        return [moe if r else dense for r in routed]
    if model_type in MLA_TYPES:
        experts = _int(cfg, "n_routed_experts", high=4096)
        expert_width = _int(cfg, "moe_intermediate_size")
        moe = MlpSpec(
            intermediate_size=expert_width,
            kind="moe",
            num_experts=experts,
            experts_per_token=_int(cfg, "num_experts_per_tok", high=experts),
            shared_intermediate_size=_int(cfg, "n_shared_experts", low=0, default=0) * expert_width,
            router_bias=cfg.get("topk_method") == "noaux_tc",
        )  # e_score_correction_bias
        dense = MlpSpec(intermediate_size=_int(cfg, "intermediate_size"))
        first_dense = _int(cfg, "first_k_dense_replace", low=0, high=n, default=0)
        freq = _int(cfg, "moe_layer_freq", default=1)
        return [moe if (i >= first_dense and i % freq == 0) else dense for i in range(n)]
    return [MlpSpec(intermediate_size=_int(cfg, "intermediate_size"), bias=dense_bias)] * n


def language_model_config(cfg: dict) -> dict:
    """The language model's block of a multimodal config.json: `text_config` when the top level
    has no `hidden_size` of its own (Kimi-K2.5, Qwen3.5), else the config itself. Top-level
    `tie_word_embeddings` applies when the block does not say."""
    text = cfg.get("text_config")
    if "hidden_size" in cfg or text is None:
        return cfg
    if not isinstance(text, dict):
        raise EngineInputError(
            "config.text_config", "must be a JSON object (the language model's config)", code="config_text"
        )
    if "tie_word_embeddings" in cfg and "tie_word_embeddings" not in text:
        text = text | {"tie_word_embeddings": cfg["tie_word_embeddings"]}
    return text


def parse_hf_config(cfg: object, model_id: str = "custom", published_params: str | None = None) -> ModelConfig:
    if not isinstance(cfg, dict):
        raise EngineInputError("config", "a config.json must be a JSON object", code="config_object")
    cfg = language_model_config(cfg)
    model_type = cfg.get("model_type")
    if isinstance(model_type, str):
        model_type = MODEL_TYPE_ALIASES.get(model_type, model_type)
    if model_type not in SUPPORTED_TYPES:
        raise EngineInputError(
            "config.model_type",
            f"unsupported model_type {model_type!r}",
            ", ".join(SUPPORTED_TYPES),
            code="config_model_type",
            params={"value": repr(model_type)[:60], "allowed": ", ".join(SUPPORTED_TYPES)},
        )
    for key in ("num_local_experts", "num_experts", "n_routed_experts", "kv_lora_rank"):
        if cfg.get(key) and model_type in ("llama", "qwen2", "qwen3", "mistral", "gemma2"):
            raise EngineInputError(
                f"config.{key}",
                f"not part of a {model_type} model; check model_type",
                code="config_not_part",
                params={"model_type": model_type},
            )

    hidden = _int(cfg, "hidden_size")
    n = _int(cfg, "num_hidden_layers", high=MAX_LAYERS)
    heads = _int(cfg, "num_attention_heads")
    vocab = _int(cfg, "vocab_size", high=MAX_VOCAB)
    act = cfg.get("hidden_activation") or cfg.get("hidden_act") or "silu"
    if not isinstance(act, str) or act not in ACTIVATIONS:  # a list or dict is not hashable: check the type first
        raise EngineInputError(
            "config.hidden_act",
            f"unsupported activation {str(act)[:60]!r}",
            ", ".join(ACTIVATIONS),
            code="config_activation",
            params={"value": repr(str(act)[:60]), "allowed": ", ".join(ACTIVATIONS)},
        )
    max_pos = cfg.get("max_position_embeddings")
    if max_pos is not None:
        max_pos = _int(cfg, "max_position_embeddings", high=1 << 26)

    kinds, window = _layer_kinds(cfg, model_type, n)
    mlps = _mlps(cfg, model_type, n)
    norms = 4 if model_type == "gemma2" else 2
    attention_by_kind = {kind: _attention(cfg, model_type, hidden, heads, kind, window) for kind in set(kinds)}
    layers = tuple(LayerSpec(attention=attention_by_kind[kinds[i]], mlp=mlps[i], norms=norms) for i in range(n))
    return ModelConfig(
        id=model_id,
        family=model_type,
        hidden_size=hidden,
        vocab_size=vocab,
        layers=layers,
        tie_word_embeddings=_bool(cfg, "tie_word_embeddings", model_type in TIED_BY_DEFAULT),
        max_position_embeddings=max_pos,
        activation=ACTIVATIONS[act],
        published_params=published_params,
        hf_config={k: kept_value(cfg[k]) for k in READ_KEYS if k in cfg},
    )
