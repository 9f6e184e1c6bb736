"""The transformer a roofline is drawn for: a list of layers, each with its attention and MLP.

Layers are explicit so that models whose layers differ (sliding-window/global alternation,
dense first layers before MoE, MLA) fit without a rewrite. Math is done once per group of
identical layers (`layer_groups`), which keeps a full analysis in microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from .errors import EngineInputError


@dataclass(frozen=True, slots=True)
class AttentionSpec:
    """Self-attention of one layer. kind: 'full' or 'sliding' (attends to at most `window`
    most recent tokens and keeps at most `window` tokens of KV)."""

    num_heads: int
    num_kv_heads: int
    head_dim: int
    kind: str = "full"
    window: int | None = None
    qkv_bias: bool = False

    @property
    def q_dim(self) -> int:
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.num_kv_heads * self.head_dim

    def kv_values_per_token(self) -> int:
        """Values cached per token in this layer: K and V for every KV head."""
        return 2 * self.kv_dim

    def params(self, hidden_size: int) -> int:
        h = hidden_size
        weights = h * self.q_dim + 2 * h * self.kv_dim + self.q_dim * h
        bias = (self.q_dim + 2 * self.kv_dim) if self.qkv_bias else 0
        return weights + bias


@dataclass(frozen=True, slots=True)
class MlpSpec:
    """Feed-forward of one layer. Gated (SwiGLU/GeGLU): gate, up, down = 3 matrices."""

    intermediate_size: int
    gated: bool = True
    kind: str = "dense"

    def params(self, hidden_size: int) -> int:
        return (3 if self.gated else 2) * hidden_size * self.intermediate_size


@dataclass(frozen=True, slots=True)
class LayerSpec:
    attention: AttentionSpec
    mlp: MlpSpec
    norms: int = 2  # RMSNorm before attention and before the MLP

    def params(self, hidden_size: int) -> int:
        return self.attention.params(hidden_size) + self.mlp.params(hidden_size) + self.norms * hidden_size


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
    hf_config: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    # ---- shape summaries (first layer stands for the model in tables) ---------------
    @property
    def num_layers(self) -> int:
        return len(self.layers)

    @property
    def num_heads(self) -> int:
        return self.layers[0].attention.num_heads

    @property
    def num_kv_heads(self) -> int:
        return self.layers[0].attention.num_kv_heads

    @property
    def head_dim(self) -> int:
        return self.layers[0].attention.head_dim

    @cached_property
    def layer_groups(self) -> tuple[tuple[LayerSpec, int], ...]:
        """Identical layers grouped with their count, in order of first appearance."""
        counts: dict[LayerSpec, int] = {}
        for layer in self.layers:
            counts[layer] = counts.get(layer, 0) + 1
        return tuple(counts.items())

    # ---- parameters --------------------------------------------------------------
    @cached_property
    def embedding_params(self) -> int:
        return self.vocab_size * self.hidden_size

    @cached_property
    def num_params(self) -> int:
        """Embedding + every layer + final norm + LM head when untied (models.yaml convention)."""
        h = self.hidden_size
        layers = sum(layer.params(h) * n for layer, n in self.layer_groups)
        lm_head = 0 if self.tie_word_embeddings else self.embedding_params
        return self.embedding_params + layers + h + lm_head

    @cached_property
    def kv_values_per_token(self) -> int:
        """Cached values per token over all layers (before any window cap)."""
        return sum(layer.attention.kv_values_per_token() * n for layer, n in self.layer_groups)

    # ---- what-if ------------------------------------------------------------------
    def allowed_kv_heads(self) -> list[int]:
        """Divisors of the query heads: MQA (1) ... MHA (num_heads)."""
        q = self.num_heads
        return [d for d in range(1, q + 1) if q % d == 0]

    def with_kv_heads(self, num_kv_heads: int) -> "ModelConfig":
        """The same model with `num_kv_heads` KV heads in every layer ("what if GQA-n?")."""
        if num_kv_heads == self.num_kv_heads and all(
                layer.attention.num_kv_heads == num_kv_heads for layer in self.layers):
            return self
        for layer, _ in self.layer_groups:
            q = layer.attention.num_heads
            if not isinstance(num_kv_heads, int) or num_kv_heads < 1 or q % num_kv_heads:
                raise EngineInputError("num_kv_heads", f"{num_kv_heads!r} must divide the {q} query heads",
                                       self.allowed_kv_heads())
        layers = tuple(replace(layer, attention=replace(layer.attention, num_kv_heads=num_kv_heads))
                       for layer in self.layers)
        return replace(self, layers=layers, id=f"{self.id}@kv{num_kv_heads}")

    def summary(self) -> dict:
        return {
            "id": self.id, "family": self.family, "num_params": self.num_params,
            "num_layers": self.num_layers, "hidden_size": self.hidden_size,
            "num_heads": self.num_heads, "num_kv_heads": self.num_kv_heads, "head_dim": self.head_dim,
            "vocab_size": self.vocab_size, "published_params": self.published_params,
        }
