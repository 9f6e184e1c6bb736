"""Speculative decoding's tokens per step and TPOT at acceptance 0, 0.7 and 1, and MoE tensor
parallel against expert parallel, on one case each, with hand numbers."""

import math

import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate
from engine.serving.speculative import Speculative, accepted_tokens
from engine.serving.step import expert_parallel_imbalance, serving_steps

FP8 = {"weight_dtype": "fp8", "compute_dtype": "fp8", "kv_dtype": "fp8"}


@pytest.mark.parametrize("a, k, tokens", [(0.0, 1, 1.0), (0.7, 1, 1.7), (1.0, 1, 2.0), (0.7, 3, 2.533)])
def test_tokens_per_step(a, k, tokens):
    # E(a) = 1 + a + ... + a^k (Leviathan et al. 2023, §3.1)
    assert float(accepted_tokens(a, k)) == pytest.approx(tokens, abs=1e-12)


def mtp(a: float, concurrency: int = 1) -> dict:
    sc = ServingScenario(
        concurrency=concurrency, tensor_parallel=8, moe_tensor_parallel=8, backend="trtllm",
        speculative=Speculative("mtp", 1, a, a), **FP8,
    )  # fmt: skip
    return serving_estimate(get_model("deepseek-r1"), get_accelerator("b200"), sc)


def test_mtp_tpot_at_acceptance_0_07_and_1():
    plain = serving_estimate(
        get_model("deepseek-r1"), get_accelerator("b200"),
        ServingScenario(concurrency=1, tensor_parallel=8, moe_tensor_parallel=8, backend="trtllm", **FP8),
    )  # fmt: skip
    r0, r7, r1 = mtp(0.0), mtp(0.7), mtp(1.0)
    # one request (no other prompt in its steps): a step verifies 2 tokens and runs the one-block
    # draft once, whatever a: TPOT = step / E(a), so TPOT(0) / TPOT(0.7) = 1.7, TPOT(0) / TPOT(1) = 2
    assert r0["estimate"]["tpot_s"] / r7["estimate"]["tpot_s"] == pytest.approx(1.7, rel=1e-9)
    assert r0["estimate"]["tpot_s"] / r1["estimate"]["tpot_s"] == pytest.approx(2.0, rel=1e-9)
    # at acceptance 0 speculation only costs: the verify step and the draft, one token out
    assert r0["estimate"]["tpot_s"] > plain["estimate"]["tpot_s"]
    assert r7["estimate"]["tpot_s"] < plain["estimate"]["tpot_s"]
    # throughput follows TPOT: 16 clients in a closed loop, 16 x 1024 tokens per TTFT + 1023 TPOT,
    # a little under running / TPOT; each step also carries E(a) x as many other prompts (a
    # request's prompt comes once per its output tokens)
    r16 = mtp(0.7, 16)
    e16 = r16["estimate"]
    closed_loop = 16 * 1024 / (e16["ttft_s"] + 1023 * e16["tpot_s"]) / 8
    assert e16["output_tokens_per_s_per_gpu"] == pytest.approx(closed_loop, rel=1e-12)
    assert closed_loop < 16 / e16["tpot_s"] / 8
    assert r16["breakdown"]["prompts_per_step"] == pytest.approx(15 / 1024 * 1.7)
    # the bound without speculation stays the reference measured runs are checked against
    assert r7["speculative"]["bound_tpot_s_without_speculation"] == pytest.approx(plain["bound"]["tpot_s"])
    assert r7["speculative"]["tokens_per_step"] == {"low": 1.7, "estimate": 1.7, "high": 1.7}
    # the draft's block and its KV cache take memory
    assert r7["breakdown"]["memory"]["weights_bytes_per_gpu"] > plain["breakdown"]["memory"]["weights_bytes_per_gpu"]


def test_an_acceptance_range_spans_the_tpot_range():
    sc = ServingScenario(concurrency=16, tensor_parallel=8, moe_tensor_parallel=8, backend="trtllm",
                         speculative=Speculative("mtp", 2, 0.5, 0.9), **FP8)  # fmt: skip
    r = serving_estimate(get_model("deepseek-r1"), get_accelerator("b200"), sc)
    low, high = r["estimate"]["tpot_s_range"]
    assert low < r["estimate"]["tpot_s"] < high
    e = r["speculative"]["tokens_per_step"]
    assert e["low"] == pytest.approx(1 + 0.5 + 0.25) and e["high"] == pytest.approx(1 + 0.9 + 0.81)
    # the bound is at the best acceptance: nothing with this draft runs faster
    assert r["bound"]["tpot_s"] <= low


@pytest.mark.parametrize(
    "spec",
    [
        {"method": "medusa", "draft_tokens": 1, "acceptance_low": 0.5, "acceptance_high": 0.5},
        {"method": "mtp", "draft_tokens": 0, "acceptance_low": 0.5, "acceptance_high": 0.5},
        {"method": "mtp", "draft_tokens": 1, "acceptance_low": 0.9, "acceptance_high": 0.5},
        {"method": "mtp", "draft_tokens": 1, "acceptance_low": -0.1, "acceptance_high": 0.5},
        {"method": "draft_model", "draft_tokens": 1, "acceptance_low": 0.5, "acceptance_high": 0.5},
    ],
)
def test_a_bad_speculation_names_its_field(spec):
    with pytest.raises(EngineInputError) as err:
        Speculative(**spec)
    assert err.value.field.startswith("speculative.")


def test_expert_parallel_imbalance_by_hand():
    # DeepSeek-R1: 256 experts, 8 per token, over EP 8 (32 whole experts a GPU), 8 tokens:
    # a token's pairs on one GPU are hypergeometric, variance 8 x 1/8 x 7/8 x 248/255 = 0.85098;
    # over 8 tokens the mean is 8 pairs and the sd sqrt(6.8078) = 2.6092; the largest of 8 is about
    # mean + sd x sqrt(2 ln 8) = 8 + 2.6092 x 2.0393 = 13.321: 1.665 x the mean
    assert float(expert_parallel_imbalance(256, 8, 8, 8.0)) == pytest.approx(1.6651, abs=1e-4)
    assert float(expert_parallel_imbalance(256, 8, 1, 8.0)) == 1.0  # sliced experts: every GPU the mean
    assert float(expert_parallel_imbalance(256, 8, 8, 4096.0)) < 1.05  # large batches even out
    assert not math.isnan(float(expert_parallel_imbalance(256, 8, 8, 0.0)))


def test_moe_tensor_parallel_and_expert_parallel_differ_in_the_estimate_not_the_bound():
    # DeepSeek-R1 on 8 x H200, TP 8, at 8 requests: the same FLOPs and bytes per GPU on average,
    # but with whole experts per GPU the busiest one waits for ~1.7 x its share of routed work
    def at(moe_tp: int, ep: int) -> dict:
        sc = ServingScenario(concurrency=8, tensor_parallel=8, moe_tensor_parallel=moe_tp, expert_parallel=ep,
                             backend="sglang", **FP8)  # fmt: skip
        return serving_estimate(get_model("deepseek-r1"), get_accelerator("h200-sxm"), sc)

    tp, ep = at(8, 1), at(1, 8)
    assert tp["bound"]["tpot_s"] == pytest.approx(ep["bound"]["tpot_s"], rel=1e-12)
    assert ep["estimate"]["tpot_s"] > tp["estimate"]["tpot_s"] * 1.05


def test_under_attention_dp_moe_tensor_parallel_gathers_every_token_and_expert_parallel_a_few_copies():
    """DeepSeek-R1 on 8 H200 as 8 attention-DP ranks, 64 requests (8 decode tokens a rank), each
    MoE layer's dispatch and combine by hand. A token is 7,168 values, sent in fp8 (1 B) and
    returned in bf16 (2 B): 21,504 B. Expert parallel 8 (32 whole experts a GPU): a token's 8
    experts sit on 7 x (1 - (7/8)^8) = 4.5947 of the 7 other GPUs on average. MoE tensor parallel
    8 (a slice of every expert on each GPU): on all 7. Over 58 MoE layers on NVLink at 450 GB/s,
    the bound's step carries 58 x 8 x 21,504 B x copies / 450e9 of exchange: 0.10188 ms under
    expert parallel, 0.15521 ms under MoE tensor parallel."""
    model, h200 = get_model("deepseek-r1"), get_accelerator("h200-sxm")

    def link_s(moe_tp: int, ep: int) -> float:
        sc = ServingScenario(concurrency=64, attention_data_parallel=8, moe_tensor_parallel=moe_tp, expert_parallel=ep,
                             backend="sglang", **FP8)  # fmt: skip
        return serving_steps(model, h200, sc, [64.0]).decode.link_s[0]

    per_copy = 58 * 8 * 21_504 / 450e9
    assert link_s(1, 8) == pytest.approx(7 * (1 - (7 / 8) ** 8) * per_copy, rel=1e-9)
    assert link_s(1, 8) == pytest.approx(0.10188e-3, rel=1e-4)
    assert link_s(8, 1) == pytest.approx(7 * per_copy, rel=1e-9)
    assert link_s(8, 1) == pytest.approx(0.15521e-3, rel=1e-4)
    # between the two: 2 groups of 4 GPUs, each holding slices of 128 experts
    assert link_s(4, 2) == pytest.approx(7 * (1 - (1 / 2) ** 8) * per_copy, rel=1e-9)


def test_speculation_gives_no_more_tokens_a_step_than_the_output_has_left():
    # 2 tokens out: the prompt's forward gives the first, one verify step the second, however
    # many drafts it accepts; the step costs its draft too, so the bound is no faster than
    # without speculation (it was 1.46x faster, crediting E(0.8) = 2.95 tokens to the step)
    model, hw = get_model("llama-3.1-70b"), get_accelerator("h200-sxm")
    kw = dict(concurrency=1, tensor_parallel=8, input_tokens=1, output_tokens=2)
    spec = serving_estimate(model, hw, ServingScenario(**kw, speculative=Speculative("eagle", 3, 0.8, 0.8)))
    plain = serving_estimate(model, hw, ServingScenario(**kw))
    assert spec["speculative"]["tokens_per_step"] == {"low": 1.0, "estimate": 1.0, "high": 1.0}
    assert spec["bound"]["tpot_s"] >= plain["bound"]["tpot_s"]
    assert spec["bound"]["output_tokens_per_s_per_gpu"] <= plain["bound"]["output_tokens_per_s_per_gpu"]
    # 4 out leaves 3 to the steps: E(0.8) = 2.952 fits under them, uncapped
    four = serving_estimate(
        model, hw, ServingScenario(**(kw | {"output_tokens": 4}), speculative=Speculative("eagle", 3, 0.8, 0.8))
    )
    assert four["speculative"]["tokens_per_step"]["estimate"] == pytest.approx(2.952)
