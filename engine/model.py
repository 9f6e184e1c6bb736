"""The transformer a roofline is drawn for: a list of layers, each with its attention and MLP.

Layers are explicit so that models whose layers differ — sliding-window/global alternation
(Gemma-2, gpt-oss), dense first layers before MoE (DeepSeek-V3), MLA, Gated DeltaNet layers among
full-attention ones (Qwen3.5) — are described exactly (layer parts: engine/layer_specs.py).
Math is done once per group of identical layers (`layer_groups`), which keeps a full
analysis in microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

from .errors import EngineInputError
from .hardware import TENSOR_PARALLEL_DEGREES

# The layer specs live in engine/layer_specs.py; imported here for the modules that take them from here.
from .layer_specs import CONV_STATE_BYTES, INDEX_KEY_BYTES, AttentionSpec, LayerSpec, MlpSpec  # noqa: F401


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
                "num_kv_heads",
                "MLA caches one latent per token; KV heads do not apply",
                self.allowed_kv_heads(),
                code="kv_mla",
            )
        for layer, _ in self.layer_groups:
            if layer.attention.is_linear:  # a DeltaNet's key heads are not KV heads: left as they are
                continue
            q = layer.attention.num_heads
            if not isinstance(num_kv_heads, int) or num_kv_heads < 1 or q % num_kv_heads:
                raise EngineInputError(
                    "num_kv_heads",
                    f"{num_kv_heads!r} must divide the {q} query heads",
                    self.allowed_kv_heads(),
                    code="kv_divides",
                    params={
                        "value": repr(num_kv_heads)[:40],
                        "heads": q,
                        "allowed": ", ".join(map(str, self.allowed_kv_heads())),
                    },
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
                    code="tp_divides",
                    params={
                        "n": n,
                        "heads": att.num_heads,
                        "allowed": ", ".join(str(d) for d in TENSOR_PARALLEL_DEGREES if att.num_heads % d == 0),
                    },
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
            # the context window its config states (None for a config without one)
            "max_position_embeddings": self.max_position_embeddings,
        }
