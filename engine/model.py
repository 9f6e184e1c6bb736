"""The transformer a roofline is drawn for: a list of layers, each with its attention and MLP.

Layers are explicit so that models whose layers differ — sliding-window/global alternation
(Gemma-2, gpt-oss), dense first layers before MoE (DeepSeek-V3), MLA — are described exactly.
Math is done once per group of identical layers (`layer_groups`), which keeps a full
analysis in microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

from .errors import EngineInputError
from .hardware import TENSOR_PARALLEL_DEGREES

# DSA's indexer keys: FP8 values plus one fp32 scale per 128 (DeepSeek-V3.2-Exp inference code).
INDEX_KEY_BYTES = 1.0 + 4.0 / 128
# A linear-attention layer's convolution state is kept in the model's 16-bit dtype.
CONV_STATE_BYTES = 2.0


@dataclass(frozen=True, slots=True)
class AttentionSpec:
    """Self-attention of one layer.

    kind: 'full'; 'sliding' (attends to, and keeps, at most `window` recent tokens);
    'mla' (DeepSeek-V2/V3 multi-head latent attention: the cache holds one latent of
    kv_lora_rank + qk_rope_head_dim values per token, shared by all heads);
    'linear' (Gated DeltaNet, Yang, Kautz & Hatamizadeh 2024, "Gated Delta Networks: Improving
    Mamba2 with Delta Rule", arXiv:2412.06464, as in Qwen3-Next and Qwen3.5): no KV cache; each
    value head keeps a fixed key_head_dim x head_dim state per sequence, plus a short causal
    convolution's last conv_kernel - 1 inputs. num_heads counts value heads, num_kv_heads key
    heads, head_dim is the value head width.

    An MLA layer with `index_topk` uses DeepSeek Sparse Attention (DeepSeek-V3.2-Exp technical
    report, 2025, §2.1): a lightning indexer of `index_heads` heads of `index_head_dim` scores
    every cached token against one cached indexer key per token, and the attention proper reads
    only the `index_topk` best; the indexer keys are cached beside the latent.
    """

    num_heads: int
    num_kv_heads: int
    head_dim: int
    kind: str = "full"
    window: int | None = None
    qkv_bias: bool = False
    o_bias: bool = False
    sinks: bool = False  # gpt-oss: one learned logit per head
    qk_norm: bool = False  # Qwen3: RMSNorm on q and k per head
    qk_norm_full_width: bool = False  # MiniMax-M2: that norm spans all of q_proj's and k_proj's outputs
    # MLA only
    q_lora_rank: int = 0  # 0: q projected directly from the hidden state
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    output_gate: bool = False  # Qwen3-Next/3.5 gated attention: q_proj also yields a per-channel sigmoid gate
    # Gated DeltaNet only
    key_head_dim: int = 0
    conv_kernel: int = 0
    state_bytes: float = 0.0  # bytes per recurrent-state value (the config's mamba_ssm_dtype)
    # DeepSeek Sparse Attention only (an MLA layer)
    index_topk: int = 0
    index_heads: int = 0
    index_head_dim: int = 0

    @property
    def is_mla(self) -> bool:
        return self.kind == "mla"

    @property
    def is_linear(self) -> bool:
        return self.kind == "linear"

    @property
    def is_sparse(self) -> bool:
        return self.index_topk > 0

    @property
    def attended_tokens_cap(self) -> int | None:
        """Most cached tokens one query attends to: the window, DSA's top-k, or None (all)."""
        return self.window if self.window is not None else (self.index_topk or None)

    @property
    def key_dim(self) -> int:
        """Gated DeltaNet: width of the queries and of the keys (key heads x key_head_dim)."""
        return self.num_kv_heads * self.key_head_dim

    @property
    def conv_dim(self) -> int:
        """Gated DeltaNet: channels of the short convolution (queries, keys and values)."""
        return 2 * self.key_dim + self.num_heads * self.head_dim

    @property
    def q_dim(self) -> int:
        """Width of the query projection's output (its gate half, if any, apart)."""
        if self.is_mla:
            return self.num_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim)
        if self.is_linear:
            return self.key_dim
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of one of K or V over the KV heads (per-head attention); a DeltaNet's keys."""
        if self.is_linear:
            return self.key_dim
        return self.num_kv_heads * self.head_dim

    @property
    def out_dim(self) -> int:
        """Width of the attention output that o_proj reads."""
        return self.num_heads * (self.v_head_dim if self.is_mla else self.head_dim)

    def kv_values_per_token(self) -> int:
        """Values cached per token in this layer at the KV dtype: K and V of every KV head, or
        the MLA latent; none for a linear-attention layer (DSA's indexer keys: `cache_bytes_per_token`)."""
        if self.is_mla:
            return self.kv_lora_rank + self.qk_rope_head_dim
        if self.is_linear:
            return 0
        return 2 * self.kv_dim

    def cache_bytes_per_token(self, kv_bytes: float) -> float:
        """Bytes one token adds to this layer's cache: its KV values at `kv_bytes` each, plus a
        DSA layer's indexer key in FP8 with one fp32 scale per 128 values (DeepSeek-V3.2-Exp's
        inference code quantises the indexer keys so, blocks of 128)."""
        indexer = self.index_head_dim * INDEX_KEY_BYTES if self.is_sparse else 0.0
        return self.kv_values_per_token() * kv_bytes + indexer

    def state_bytes_per_sequence(self) -> float:
        """Fixed bytes a linear-attention layer keeps per sequence, whatever its length: the
        recurrent state (value heads x key_head_dim x head_dim at `state_bytes`) and the short
        convolution's last conv_kernel - 1 inputs in 16-bit (vLLM's and SGLang's "mamba" cache)."""
        if not self.is_linear:
            return 0.0
        recurrent = self.num_heads * self.key_head_dim * self.head_dim * self.state_bytes
        return recurrent + self.conv_dim * (self.conv_kernel - 1) * CONV_STATE_BYTES

    def per_head_kv_values_per_token(self) -> int:
        """What an MLA layer would cache per token with per-head K and V (MHA), for comparison."""
        if self.is_mla:
            return self.num_heads * (self.qk_nope_head_dim + self.qk_rope_head_dim + self.v_head_dim)
        return self.kv_values_per_token()

    def _linear_params(self, h: int) -> int:
        """Gated DeltaNet (Qwen3-Next/Qwen3.5 layout): in_proj for q, k, v and the output gate z;
        beta and decay projections (one per value head each); depthwise conv without bias; A_log
        and dt_bias per value head; the gated RMSNorm's weight (one head's width); out_proj."""
        value_dim = self.num_heads * self.head_dim
        return (
            h * (2 * self.key_dim + 2 * value_dim)
            + h * 2 * self.num_heads
            + self.conv_dim * self.conv_kernel
            + 2 * self.num_heads
            + self.head_dim
            + value_dim * h
        )

    def _indexer_params(self, h: int) -> int:
        """DSA's lightning indexer (DeepSeek-V3.2-Exp inference/model.py, class Indexer): wq_b from
        the query latent, wk and weights_proj from the hidden state, a LayerNorm on the key."""
        if not self.is_sparse:
            return 0
        q_in = self.q_lora_rank or h
        d = self.index_head_dim
        return q_in * self.index_heads * d + h * d + 2 * d + h * self.index_heads

    def params(self, hidden_size: int) -> int:
        h = hidden_size
        if self.is_linear:
            return self._linear_params(h)
        if self.is_mla:
            qk = self.qk_nope_head_dim + self.qk_rope_head_dim
            if self.q_lora_rank:
                q = h * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * self.num_heads * qk
            else:
                q = h * self.num_heads * qk
            kv = (
                h * (self.kv_lora_rank + self.qk_rope_head_dim)
                + self.kv_lora_rank
                + self.kv_lora_rank * self.num_heads * (self.qk_nope_head_dim + self.v_head_dim)
            )
            return q + kv + self.out_dim * h + self._indexer_params(h)
        q_out = self.q_dim * (2 if self.output_gate else 1)
        weights = h * q_out + 2 * h * self.kv_dim + self.q_dim * h
        extra = (q_out + 2 * self.kv_dim) if self.qkv_bias else 0
        extra += h if self.o_bias else 0
        extra += self.num_heads if self.sinks else 0
        if self.qk_norm:
            extra += (self.q_dim + self.kv_dim) if self.qk_norm_full_width else 2 * self.head_dim
        return weights + extra


@dataclass(frozen=True, slots=True)
class MlpSpec:
    """Feed-forward of one layer. Gated (SwiGLU/GeGLU) experts and MLPs have 3 matrices.

    kind 'dense': one MLP of `intermediate_size`. kind 'moe': `num_experts` routed experts of
    `intermediate_size` each, `experts_per_token` chosen per token by a router, plus
    always-active shared experts of total width `shared_intermediate_size`.
    """

    intermediate_size: int
    gated: bool = True
    kind: str = "dense"
    bias: bool = False
    num_experts: int = 0
    experts_per_token: int = 0
    shared_intermediate_size: int = 0
    router_bias: bool = False
    expert_bias: bool = False
    shared_gate: bool = False  # Qwen3-Next/3.5: a sigmoid gate (hidden -> 1) scales the shared expert

    @property
    def is_moe(self) -> bool:
        return self.kind == "moe"

    @property
    def matrices(self) -> int:
        return 3 if self.gated else 2

    def expert_params(self, hidden_size: int) -> int:
        """One routed expert (or the dense MLP)."""
        i, h = self.intermediate_size, hidden_size
        bias = ((2 * i if self.gated else i) + h) if (self.expert_bias or self.bias) else 0
        return self.matrices * h * i + bias

    def router_params(self, hidden_size: int) -> int:
        if not self.is_moe:
            return 0
        return hidden_size * self.num_experts + (self.num_experts if self.router_bias else 0)

    def shared_params(self, hidden_size: int) -> int:
        gate = hidden_size if self.shared_gate else 0
        return self.matrices * hidden_size * self.shared_intermediate_size + gate

    def params(self, hidden_size: int) -> int:
        if not self.is_moe:
            return self.expert_params(hidden_size)
        return (
            self.router_params(hidden_size)
            + self.num_experts * self.expert_params(hidden_size)
            + self.shared_params(hidden_size)
        )

    def active_params(self, hidden_size: int) -> int:
        """Parameters one token uses: router, its k experts and the shared experts."""
        if not self.is_moe:
            return self.params(hidden_size)
        return (
            self.router_params(hidden_size)
            + self.experts_per_token * self.expert_params(hidden_size)
            + self.shared_params(hidden_size)
        )


@dataclass(frozen=True, slots=True)
class LayerSpec:
    attention: AttentionSpec
    mlp: MlpSpec
    norms: int = 2  # RMSNorms per layer: 2 (pre-attention, pre-MLP); Gemma-2 has 4

    def params(self, hidden_size: int) -> int:
        return self.attention.params(hidden_size) + self.mlp.params(hidden_size) + self.norms * hidden_size

    def active_params(self, hidden_size: int) -> int:
        return self.attention.params(hidden_size) + self.mlp.active_params(hidden_size) + self.norms * hidden_size


@dataclass(frozen=True)
class ModelConfig:
    id: str
    family: str
    hidden_size: int
    vocab_size: int
    layers: tuple[LayerSpec, ...]
    tie_word_embeddings: bool = False
    max_position_embeddings: int | None = None
    activation: str = "silu"
    published_params: str | None = None
    tensor_parallel: int = 1  # >1: this config is one GPU's shard (see `shard`)
    hf_config: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __hash__(self) -> int:
        # Computed once: the op-list cache hashes the model on every analysis, and hashing
        # every layer's specs each time cost more than the analysis itself.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(
                (
                    self.id,
                    self.family,
                    self.hidden_size,
                    self.vocab_size,
                    self.layers,
                    self.tie_word_embeddings,
                    self.activation,
                    self.tensor_parallel,
                )
            )
            self.__dict__["_hash"] = cached
        return cached

    @cached_property
    def _shards(self) -> dict[int, ModelConfig]:
        return {1: self}

    # ---- shape summaries (first layer stands for the model in tables) ---------------
    @property
    def num_layers(self) -> int:
        return len(self.layers)

    @cached_property
    def _reference_attention(self) -> AttentionSpec:
        """The first softmax-attention layer (a hybrid's linear-attention layers have no KV
        heads to speak of): it stands for the model's heads in tables and TP checks."""
        return next(
            (layer.attention for layer in self.layers if not layer.attention.is_linear), self.layers[0].attention
        )

    @property
    def num_heads(self) -> int:
        return self._reference_attention.num_heads

    @property
    def num_kv_heads(self) -> int:
        return self._reference_attention.num_kv_heads

    @property
    def head_dim(self) -> int:
        return self._reference_attention.head_dim

    @cached_property
    def layer_groups(self) -> tuple[tuple[LayerSpec, int], ...]:
        """Identical layers grouped with their count, in order of first appearance."""
        counts: dict[LayerSpec, int] = {}
        for layer in self.layers:
            counts[layer] = counts.get(layer, 0) + 1
        return tuple(counts.items())

    @cached_property
    def is_moe(self) -> bool:
        return any(layer.mlp.is_moe for layer, _ in self.layer_groups)

    @cached_property
    def is_mla(self) -> bool:
        return any(layer.attention.is_mla for layer, _ in self.layer_groups)

    @cached_property
    def has_linear_attention(self) -> bool:
        return any(layer.attention.is_linear for layer, _ in self.layer_groups)

    @cached_property
    def has_sparse_attention(self) -> bool:
        return any(layer.attention.is_sparse for layer, _ in self.layer_groups)

    # ---- parameters --------------------------------------------------------------
    @cached_property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    def _total(self, per_layer) -> int:
        h = self.hidden_size
        layers = sum(per_layer(layer) * n for layer, n in self.layer_groups)
        lm_head = 0 if self.tie_word_embeddings else self.embedding_params
        return self.embedding_params + layers + h + lm_head

    @cached_property
    def num_params(self) -> int:
        """Embedding + every layer + final norm + LM head when untied (models.yaml convention)."""
        return self._total(lambda layer: layer.params(self.hidden_size))

    @cached_property
    def num_active_params(self) -> int:
        """Parameters one token touches (MoE: k routed + shared experts), embedding included."""
        return self._total(lambda layer: layer.active_params(self.hidden_size))

    @cached_property
    def kv_values_per_token(self) -> int:
        """Cached values per token over all layers (before any window cap)."""
        return sum(layer.attention.kv_values_per_token() * n for layer, n in self.layer_groups)

    @cached_property
    def state_bytes_per_sequence(self) -> float:
        """Fixed per-sequence bytes of the linear-attention layers (recurrent and conv state)."""
        return sum(layer.attention.state_bytes_per_sequence() * n for layer, n in self.layer_groups)

    # ---- what-if ------------------------------------------------------------------
    def allowed_kv_heads(self) -> list[int]:
        """Divisors of the query heads: MQA (1) ... MHA (num_heads). An MLA model caches a
        latent, not KV heads: only its own head count is offered."""
        q = self.num_heads
        if self.is_mla:
            return [self.num_kv_heads]
        return [d for d in range(1, q + 1) if q % d == 0]

    def with_kv_heads(self, num_kv_heads: int) -> ModelConfig:
        """The same model with `num_kv_heads` KV heads in every layer ("what if GQA-n?")."""
        softmax_layers = [layer for layer in self.layers if not layer.attention.is_linear]
        if all(layer.attention.num_kv_heads == num_kv_heads for layer in softmax_layers):
            return self
        if self.is_mla:
            raise EngineInputError(
                "num_kv_heads", "MLA caches one latent per token; KV heads do not apply", self.allowed_kv_heads()
            )
        for layer, _ in self.layer_groups:
            if layer.attention.is_linear:  # a DeltaNet's key heads are not KV heads: left as they are
                continue
            q = layer.attention.num_heads
            if not isinstance(num_kv_heads, int) or num_kv_heads < 1 or q % num_kv_heads:
                raise EngineInputError(
                    "num_kv_heads", f"{num_kv_heads!r} must divide the {q} query heads", self.allowed_kv_heads()
                )
        layers = tuple(
            layer
            if layer.attention.is_linear
            else replace(layer, attention=replace(layer.attention, num_kv_heads=num_kv_heads))
            for layer in self.layers
        )
        return replace(self, layers=layers, id=f"{self.id}@kv{num_kv_heads}")

    def shard(self, n: int) -> ModelConfig:
        """One GPU's part under tensor parallelism of degree n (Megatron-LM, Shoeybi et al. 2019):
        query heads, MLP and expert widths and the vocabulary split n ways; KV heads split too,
        and when there are fewer KV heads than GPUs each GPU keeps one (replicated). An MLA
        latent is shared by all heads, so every GPU keeps the whole latent cache. Norms and
        routers are replicated."""
        if n in self._shards:
            return self._shards[n]
        layers = []
        sharded: dict[LayerSpec, LayerSpec] = {}  # identical layers share one shard (memory, hashing)
        for layer in self.layers:
            if layer in sharded:
                layers.append(sharded[layer])
                continue
            att, mlp = layer.attention, layer.mlp
            if att.num_heads % n:
                raise EngineInputError(
                    "tensor_parallel",
                    f"{n} does not divide the {att.num_heads} attention heads",
                    [d for d in TENSOR_PARALLEL_DEGREES if att.num_heads % d == 0],
                )
            kv_heads = att.num_kv_heads if att.is_mla else max(1, math.ceil(att.num_kv_heads / n))
            att = replace(att, num_heads=att.num_heads // n, num_kv_heads=kv_heads)
            mlp = replace(
                mlp,
                intermediate_size=math.ceil(mlp.intermediate_size / n),
                shared_intermediate_size=math.ceil(mlp.shared_intermediate_size / n),
            )
            sharded[layer] = replace(layer, attention=att, mlp=mlp)
            layers.append(sharded[layer])
        shard = replace(
            self,
            layers=tuple(layers),
            vocab_size=math.ceil(self.vocab_size / n),
            tensor_parallel=n,
            id=f"{self.id}/tp{n}",
        )
        self._shards[n] = shard
        return shard

    def layer_breakdown(self) -> list[dict]:
        """One row per run of identical consecutive layers: which are windowed, MLA, MoE."""
        rows: list[dict] = []
        for i, layer in enumerate(self.layers):
            if rows and rows[-1]["_spec"] == layer:
                rows[-1]["last"] = i
                rows[-1]["count"] += 1
                continue
            att, mlp = layer.attention, layer.mlp
            rows.append(
                {
                    "_spec": layer,
                    "first": i,
                    "last": i,
                    "count": 1,
                    "attention": att.kind,
                    "window": att.window,
                    "num_heads": att.num_heads,
                    "num_kv_heads": att.num_kv_heads,
                    "kv_values_per_token": att.kv_values_per_token(),
                    "mlp": mlp.kind,
                    "num_experts": mlp.num_experts,
                    "experts_per_token": mlp.experts_per_token,
                    "params_per_layer": layer.params(self.hidden_size),
                }
            )
        for row in rows:
            del row["_spec"]
        return rows

    def summary(self) -> dict:
        return {
            "id": self.id,
            "family": self.family,
            "num_params": self.num_params,
            "num_active_params": self.num_active_params,
            "num_layers": self.num_layers,
            "hidden_size": self.hidden_size,
            "num_heads": self.num_heads,
            "num_kv_heads": self.num_kv_heads,
            "head_dim": self.head_dim,
            "vocab_size": self.vocab_size,
            "published_params": self.published_params,
            "moe": self.is_moe,
            "mla": self.is_mla,
            "sliding_window_layers": sum(1 for layer in self.layers if layer.attention.kind == "sliding"),
        }
