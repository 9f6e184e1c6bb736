"""Small things a reader trusts or not at first sight: an op's layer count never exceeds the
model's layers, gpt-oss ships in MXFP4 (named so), the bf16/fp16 training toggle says why it
changes nothing on an H100."""

import pytest

from engine.analysis import Scenario, analyze_one
from engine.hardware import get_accelerator
from engine.model_catalog import get_model, model_ids, native_format, native_precision
from engine.training import run_training

H100 = get_accelerator("h100-sxm5")


@pytest.mark.parametrize("model_id", model_ids())
def test_no_op_sums_more_layers_than_the_model_has(model_id):
    """An op name that occurs twice in one layer (routed and shared-expert activations, MLA's two
    latent norms) covers that layer once."""
    model = get_model(model_id)
    r = analyze_one(model, H100, Scenario(context_length=256))
    for phase in ("decode", "prefill"):
        for op in r[phase]["ops"]:
            assert 0 <= op["layers"] <= model.num_layers, (phase, op["name"], op["layers"])


def test_deepseek_v3_activation_covers_its_61_layers_not_119():
    """DeepSeek-V3: 3 dense layers + 58 MoE layers, each MoE layer with a routed and a shared
    activation. The row sums all of them (FLOPs and bytes unchanged) over 61 layers."""
    model = get_model("deepseek-v3")
    ops = {o["name"]: o for o in analyze_one(model, H100, Scenario(tensor_parallel=8))["decode"]["ops"]}
    assert model.num_layers == 61
    assert ops["activation"]["layers"] == 61 and ops["latent_norm"]["layers"] == 61
    assert ops["gate_proj"]["layers"] == 3 and ops["expert_up_proj"]["layers"] == 58


def test_gpt_oss_ships_in_mxfp4_modelled_as_int4():
    for model_id in ("gpt-oss-20b", "gpt-oss-120b"):
        assert native_format(model_id) == "MXFP4" and native_precision(model_id) == "int4"
    assert native_format("deepseek-v3") == "fp8" and native_format("llama-3-8b") is None


def _train(dtype: str) -> dict:
    return run_training(
        "llama-2-7b", H100, gpus=8, sequence_length=4096, tokens_per_step=262144, step_time_s=10.0, dtype=dtype
    )


def test_fp16_and_bf16_change_no_number_on_h100_and_say_why():
    bf16, fp16 = _train("bf16"), _train("fp16")
    for key in ("mfu", "hfu", "mfu_with_attention", "peak_flops_per_s", "fits"):
        assert bf16[key] == fp16[key]
    assert bf16["memory"]["total_bytes"] == fp16["memory"]["total_bytes"]
    assert "share one dense peak" in fp16["dtype_note"] and "989 TFLOP/s" in fp16["dtype_note"]
    assert "2 bytes per value" in bf16["dtype_note"] and "loss scaling" in bf16["dtype_note"]


def test_fp16_on_a_chip_without_it_says_which_peak_it_is_counted_at():
    note = run_training(
        "llama-2-7b", get_accelerator("tpu-v5e"), gpus=1, sequence_length=4096, tokens_per_step=4096,
        step_time_s=10.0, dtype="fp16",
    )["dtype_note"]  # fmt: skip
    assert note.startswith("TPU v5e has no fp16 tensor roof: fp16 is counted at its bf16 peak")
