"""One layer's parts: its attention (full, sliding, MLA with or without DeepSeek Sparse
Attention, Gated DeltaNet linear attention) and its MLP (dense or MoE), with their parameter
counts and what each caches per token or per sequence. engine/model.py assembles them."""

from __future__ import annotations

from dataclasses import dataclass

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
