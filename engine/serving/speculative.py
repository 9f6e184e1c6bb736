"""Speculative decoding: a draft proposes k tokens, the model verifies k + 1 in one step.

Methods (the draft's cost per proposed token):
- `mtp`: multi-token prediction, one more of the model's own blocks with the shared embedding
  and output head (DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, §2.2);
- `eagle`: a one-decoder-layer draft head over the model's features, with its output head (Li et
  al., "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty", ICML 2024);
- `draft_model`: a separate small model's whole decode step (Leviathan et al., "Fast Inference
  from Transformers via Speculative Decoding", ICML 2023).

With each draft token accepted with probability a (independently, as Leviathan et al. §3.1), a
step emits E(a) = 1 + a + a^2 + ... + a^k = (1 - a^(k+1)) / (1 - a) tokens per sequence. The
step verifies k + 1 tokens per sequence (the GEMMs see k + 1 rows each, the attention reads
each sequence's cache once for its k + 1 queries) and runs the draft k times. So
TPOT = (verify + k x draft) / E(a). The draft's weights and its KV cache take memory too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import EngineInputError

METHODS = ("mtp", "eagle", "draft_model")
MAX_DRAFT_TOKENS = 16


@dataclass(frozen=True)
class Speculative:
    method: str
    draft_tokens: int
    acceptance_low: float
    acceptance_high: float
    draft_model: str | None = None  # draft_model only: the catalogue id of the draft

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise EngineInputError(
                "speculative.method",
                f"{self.method!r} is not a method",
                ", ".join(METHODS),
                code="spec_method",
                params={"value": repr(self.method)[:40], "allowed": ", ".join(METHODS)},
            )
        k = self.draft_tokens
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_DRAFT_TOKENS:
            raise EngineInputError(
                "speculative.draft_tokens",
                f"{k!r} is not an integer in [1, {MAX_DRAFT_TOKENS}]",
                code="int_range",
                params={"value": repr(k)[:40], "low": 1, "high": MAX_DRAFT_TOKENS},
            )
        for a in (self.acceptance_low, self.acceptance_high):
            if isinstance(a, bool) or not isinstance(a, (int, float)) or not 0.0 <= a <= 1.0:
                raise EngineInputError(
                    "speculative.acceptance_rate",
                    f"{a!r} is not a probability in [0, 1]",
                    code="number_range",
                    params={"value": repr(a)[:40], "low": 0, "high": 1},
                )
        if self.acceptance_low > self.acceptance_high:
            raise EngineInputError(
                "speculative.acceptance_rate",
                f"[{self.acceptance_low}, {self.acceptance_high}] runs backwards",
                "[low, high] with low <= high",
                code="spec_range",
                params={"low": self.acceptance_low, "high": self.acceptance_high},
            )
        if (self.method == "draft_model") != (self.draft_model is not None):
            raise EngineInputError(
                "speculative.draft_model",
                "a draft model is named for draft_model and only for it",
                "a catalogue id with method draft_model; null otherwise",
                code="spec_draft_model",
            )

    @property
    def acceptance(self) -> float:
        """The middle of the acceptance range: the estimate's own."""
        return (self.acceptance_low + self.acceptance_high) / 2.0

    def tokens_per_step(self, a, output_tokens: int | None = None) -> np.ndarray:
        """E(a) = sum_{i=0..k} a^i tokens per sequence per step; with `output_tokens`, at most
        output - 1 (at least 1): a request's decode steps give its tokens after the first, which
        its prompt's forward gives, so 2 tokens out take one verify step however many drafts
        are accepted."""
        tokens = accepted_tokens(a, self.draft_tokens)
        return tokens if output_tokens is None else np.minimum(tokens, max(output_tokens - 1, 1))


def accepted_tokens(a, k: int) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    return np.sum([a**i for i in range(k + 1)], axis=0)


def draft_of(model, spec: Speculative):
    """The model whose decode step is one draft forward: the model's own last block with its
    embedding and head (mtp, eagle), or the named draft model."""
    if spec.method == "draft_model":
        from ..errors import EngineInputError
        from ..model_catalog import get_model

        try:
            return get_model(spec.draft_model)
        except EngineInputError as exc:  # the request's field, not the model's
            raise exc.named("speculative.draft_model") from None
    return replace(model, layers=model.layers[-1:], id=f"{model.id}@{spec.method}")


def draft_memory(model, sc) -> tuple[float, float]:
    """(weight bytes per GPU, KV bytes per request per GPU) the draft adds: its block and cache
    (mtp, eagle: the output head and embedding are the model's own), or the whole draft model."""
    from ..memory import kv_bytes_per_sequence
    from .capacity import weights_bytes_per_gpu
    from .scenario import shard_degree

    spec = sc.speculative
    draft = draft_of(model, spec)
    layout = sc if draft.is_moe else replace(sc, moe_tensor_parallel=1, expert_parallel=1)
    weights = weights_bytes_per_gpu(draft, layout)
    shard = draft.shard(shard_degree(draft.num_heads, sc.tensor_parallel))
    if spec.method != "draft_model":
        shared = shard.embedding_params * (1 if draft.tie_word_embeddings else 2)
        weights -= shared * sc.widths.weight
    kv = float(kv_bytes_per_sequence(shard, sc.mean_context, sc.widths.kv))
    return weights, kv
