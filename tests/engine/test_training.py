"""Training lab (engine/training.py) against seed 000's 7B example and hand computations."""

import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.training import (
    TrainingSetup,
    activation_bytes_per_layer,
    from_config,
    memory_bill,
    teaching_model,
    training_lab,
    zero_communication_factor,
)

SEVEN_B = {"num_params": 7e9, "num_layers": 32, "num_heads": 32, "head_dim": 128}
H100 = get_accelerator("h100-sxm5")
GiB = 1024**3


def seed_setup(**kw) -> TrainingSetup:
    base = dict(gpus=8, sequence_length=4096, tokens_per_step=262_144, step_time_s=3.64)
    return TrainingSetup(**(base | kw))


def lab(**kw) -> dict:
    return training_lab(teaching_model(SEVEN_B), H100, seed_setup(**kw))


def test_seed_000_four_numbers():
    # seed 000: 262,144 tokens / 3.64 s = 72,018 tokens/s; 8 x 989.4 TFLOP/s dense BF16
    r = lab(recompute="full")
    assert r["tokens_per_s"] == pytest.approx(72_018, abs=1)
    # hand: 72017.58 x 4.2e10 / (8 x 989.4e12) = 0.38214
    assert r["mfu"] == pytest.approx(0.382, abs=5e-4)
    # hand: x (4.2e10 + 12*32*32*128*4096 = 6.442e9) / 4.2e10 = 0.44076
    assert r["mfu_with_attention"] == pytest.approx(0.441, abs=5e-4)
    # hand: full recompute executes 8N: 0.38214 x 8/6 = 0.50952
    assert r["hfu"] == pytest.approx(0.510, abs=5e-4)
    # hand: over the 2:4 sparse peak 1978.8 TFLOP/s: 0.38214 / 2
    assert r["mfu_sparse_peak"] == pytest.approx(0.191, abs=5e-4)
    assert r["mfu_sparse_peak"] * 2 == pytest.approx(r["mfu"], rel=1e-12)
    assert set(r["counted"]) == {"mfu", "mfu_with_attention", "hfu", "hfu_with_attention", "mfu_sparse_peak"}
    assert "8N" in r["counted"]["hfu"] and "2:4" in r["counted"]["mfu_sparse_peak"]


def test_hfu_follows_recompute():
    none, selective, full = (lab(recompute=r) for r in ("none", "selective", "full"))
    assert none["hfu"] == none["mfu"] and none["hfu_with_attention"] == none["mfu_with_attention"]
    # selective recomputes the attention core's forward only: 4·L·H·Q·T = 2.147e9 FLOP/token
    assert selective["hfu"] == selective["mfu"]
    extra = selective["hfu_with_attention"] - selective["mfu_with_attention"]
    assert extra == pytest.approx(72017.58 * 4 * 32 * 32 * 128 * 4096 / (8 * 989.4e12), rel=1e-5)
    assert full["hfu_with_attention"] == pytest.approx(0.44076 * 4 / 3, rel=1e-4)


def test_tokens_per_s_gives_the_same_numbers():
    a = lab()
    b = training_lab(teaching_model(SEVEN_B), H100, seed_setup(step_time_s=None, tokens_per_s=262_144 / 3.64))
    assert b["mfu"] == pytest.approx(a["mfu"], rel=1e-12)
    assert b["step_time_s"] == pytest.approx(3.64, rel=1e-12)


def test_no_sparse_peak_for_a_tpu():
    r = training_lab(teaching_model(SEVEN_B), get_accelerator("tpu-v5p"), seed_setup(gpus=8))
    assert r["mfu_sparse_peak"] is None and r["sparse_peak_flops_per_s"] is None


def test_seed_000_gradient_allreduce():
    r = lab()
    assert r["gradient_bytes"] == 14e9  # 7e9 x 2 bytes of bf16 gradients
    # ring: 14e9 / 450e9 x 2 x 7/8 = 54.44 ms on NVLink (450 GB/s one way)
    assert r["allreduce_time_s"] == pytest.approx(54.44e-3, rel=1e-3)
    assert r["allreduce_share_of_step"] == pytest.approx(54.44e-3 / 3.64, rel=1e-3)
    # a measured busbw of 50 GB/s: 0.49 s, 13.5% of the step (no-overlap upper bound)
    m = lab(bus_bandwidth_bytes_per_s=50e9)
    assert m["allreduce_time_s"] == pytest.approx(0.49, rel=1e-3)
    assert m["allreduce_share_of_step"] == pytest.approx(0.1346, abs=1e-4)


def test_no_sync_divides_the_allreduce():
    # 8 sequences per GPU in micro-batches of 2: 4 accumulation steps; no_sync syncs once
    r = lab(micro_batch_size=2)
    assert r["accumulation_steps"] == 4
    assert r["allreduce_time_without_no_sync_s"] == pytest.approx(4 * r["allreduce_time_s"])
    assert r["allreduce_time_s"] == pytest.approx(lab()["allreduce_time_s"])


def test_zero_communication():
    assert zero_communication_factor(0, 1) == zero_communication_factor(2, 1) == 1.0
    assert zero_communication_factor(3, 1) == 1.5  # ZeRO §7.2 / seed 000: 1.5x DDP
    r = lab(zero_stage=3)
    assert r["zero_communication_time_s"] == pytest.approx(1.5 * r["allreduce_time_s"])


def test_multi_node_needs_a_measured_busbw():
    with pytest.raises(EngineInputError) as e:
        training_lab(teaching_model(SEVEN_B), H100, seed_setup(gpus=16, tokens_per_step=16 * 4096))
    assert e.value.field == "bus_bandwidth_bytes_per_s"


def test_one_gpu_has_no_allreduce():
    r = training_lab(teaching_model(SEVEN_B), H100, seed_setup(gpus=1, tokens_per_step=4096))
    assert r["allreduce_time_s"] == 0.0 and r["bus_bandwidth_bytes_per_s"] is None


def test_activation_bytes_korthikanti_eq1():
    m = teaching_model(SEVEN_B)
    s, b, h, a = 4096, 1, 4096, 32
    assert activation_bytes_per_layer(m, s, b, "none") == s * b * h * (34 + 5 * a * s / h)  # 3.26e9 B
    assert activation_bytes_per_layer(m, s, b, "selective") == 34 * s * b * h
    assert activation_bytes_per_layer(m, s, b, "full") == 2 * s * b * h
    assert activation_bytes_per_layer(m, s, 8, "none") == pytest.approx(26_038_239_232)


def test_memory_bill_by_hand_zero0():
    # 16 B/param: 7e9 x (2 + 2 + 12) = 112 GB of model states > 80 GiB: the states overflow
    r = lab(recompute="full")
    mem = r["memory"]
    assert (mem["weights_bytes"], mem["gradients_bytes"], mem["optimizer_bytes"]) == (14e9, 14e9, 84e9)
    assert r["model_state_bytes"] == 112e9
    # full recompute, micro-batch 8: 32 layers x 2sbh = 32 x 2 x 4096 x 8 x 4096 = 8.59e9,
    # plus one layer rematerialised: sbh(34 + 160) - 2sbh = 4096*8*4096*192 = 25.77e9
    assert mem["activation_bytes_per_layer"] == 2 * 4096 * 8 * 4096
    assert mem["recompute_workspace_bytes"] == 4096 * 8 * 4096 * 192
    assert r["activation_bytes"] == 32 * 2 * 4096 * 8 * 4096 + 4096 * 8 * 4096 * 192
    assert mem["capacity_bytes"] == 80 * GiB
    assert not r["fits"] and r["overflow"].startswith("model_states")


def test_memory_bill_by_hand_zero1_selective():
    # ZeRO-1 over 8: 14e9 + 14e9 + 84e9/8 = 38.5e9; selective, micro-batch 2:
    # 32 x 34sbh + 5as²b = 32 x 1,140,850,688 + 5,368,709,120 = 41,875,931,136
    m = teaching_model(SEVEN_B)
    bill = memory_bill(m, H100, 8, 4096, 2, "adamw", 1, "selective")
    assert bill["model_state_bytes"] == 38.5e9
    assert bill["activation_bytes"] == 41_875_931_136
    assert bill["total_bytes"] == 38.5e9 + 41_875_931_136
    assert bill["fits"]  # 80.4e9 <= 85.9e9


def test_activations_overflow_when_the_states_fit():
    r = lab(zero_stage=3, recompute="none")  # states 14e9 + 1.75 + 10.5; activations 833e9
    assert r["model_state_bytes"] == pytest.approx(14e9 / 8 + 14e9 / 8 + 84e9 / 8)
    assert r["overflow"] == "activations"


def test_sgd_momentum_state():
    bill = memory_bill(teaching_model(SEVEN_B), H100, 8, 4096, 1, "sgd_momentum", 0, "full")
    assert bill["optimizer_bytes"] == 7e9 * 8  # fp32 master + momentum


def test_smallest_fix_fits_and_is_cheapest():
    r = lab()  # ZeRO-0, no recompute, micro-batch 8: 112e9 + 833e9
    fix = r["smallest_fix"]
    assert fix is not None and r["fixes"][0] == fix
    bill = memory_bill(teaching_model(SEVEN_B), H100, 8, 4096, fix["micro_batch_size"], "adamw",
                       fix["zero_stage"], fix["recompute"])  # fmt: skip
    assert bill["fits"]
    # no recomputation never fits (one sequence's activations alone are 104 GB), so the fix
    # needs selective recomputation; ZeRO-1 costs nothing extra and micro-batch 2 is the
    # largest that fits with it (38.5e9 + 41.9e9; micro-batch 4 would need 38.5e9 + 78.4e9)
    assert (fix["zero_stage"], fix["recompute"], fix["micro_batch_size"]) == (1, "selective", 2)
    extras = [o["estimated_extra_time_s"] for o in r["fixes"]]
    assert extras == sorted(extras)
    # selective recompute costs the attention core's forward at the measured rate
    assert fix["estimated_extra_time_s"] == pytest.approx(3.64 * 2.147e9 / 4.8442e10, rel=1e-3)


def test_no_fix_when_it_fits():
    r = lab(zero_stage=1, recompute="selective", micro_batch_size=2)
    assert r["fits"] and r["overflow"] is None and r["smallest_fix"] is None


def test_preset_model():
    m = from_config(get_model("deepseek-v2-lite"))
    assert m.active_params < m.num_params  # MoE: FLOPs count the active parameters
    r = training_lab(m, H100, seed_setup())
    assert r["model_flops_per_token"] == 6 * m.active_params
    assert r["gradient_bytes"] == 2 * m.num_params


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"step_time_s": -1.0}, "step_time_s"),
        ({"gpus": 0}, "gpus"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"recompute": "some"}, "recompute"),
        ({"optimizer": "adam8bit"}, "optimizer"),
        ({"tokens_per_step": 1000}, "tokens_per_step"),
        ({"micro_batch_size": 3}, "micro_batch_size"),
        ({"tokens_per_s": 5.0}, "step_time_s"),  # both given
        ({"dtype": "fp8"}, "dtype"),
    ],
)
def test_bad_input_names_the_field(kw, field):
    with pytest.raises(EngineInputError) as e:
        seed_setup(**kw)
    assert e.value.field == field


def test_teaching_form_errors():
    with pytest.raises(EngineInputError) as e:
        teaching_model({"num_params": 7e9, "num_layers": 32, "num_heads": 32})
    assert e.value.field == "model.head_dim"
    with pytest.raises(EngineInputError) as e:
        teaching_model(SEVEN_B | {"num_params": -1})
    assert e.value.field == "model.num_params"


def test_a_huge_step_is_refused_and_the_fix_search_stays_fast():
    """A request that once made smallest_fix loop over 10^9 micro-batch candidates (about 50 s,
    and forever at tokens_per_step = 2^50) is refused with the limit, or answered at once."""
    from engine.training import MAX_SEQUENCES_PER_GPU, TrainingSetup, _divisors, run_training

    with pytest.raises(EngineInputError, match="sequences per GPU per step"):
        TrainingSetup(gpus=1, sequence_length=1, tokens_per_step=1 << 50, step_time_s=1.0)
    assert _divisors(12) == [1, 2, 3, 4, 6, 12]
    assert _divisors(MAX_SEQUENCES_PER_GPU)[-1] == MAX_SEQUENCES_PER_GPU
    model = {"num_params": 70e9, "num_layers": 80, "num_heads": 64, "head_dim": 128}
    out = run_training(model, get_accelerator("h100-sxm5"), gpus=1, sequence_length=1,
                       tokens_per_step=MAX_SEQUENCES_PER_GPU, step_time_s=1.0)  # fmt: skip
    assert out["fits"] is False
    assert all(o["micro_batch_size"] in _divisors(MAX_SEQUENCES_PER_GPU) for o in out["fixes"] or [])


def test_the_cli_never_prints_a_non_finite_number():
    """`training --step-time-s 1e-320 --json` once printed Infinity (not JSON): now exit 2 naming the field."""
    import subprocess
    import sys

    args = ["training", "--num-params", "7e9", "--num-layers", "32", "--num-heads", "32", "--head-dim", "128",
            "--hardware", "h100-sxm5", "--gpus", "8", "--sequence-length", "4096", "--tokens-per-step", "262144",
            "--step-time-s", "1e-320", "--json"]  # fmt: skip
    out = subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "step_time_s" in out.stderr and "Infinity" not in out.stdout


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"step_time_s": 1e-320}, "step_time_s"),
        ({"step_time_s": None, "tokens_per_s": 5e-324}, "tokens_per_s"),
        ({"bus_bandwidth_bytes_per_s": 5e-324}, "bus_bandwidth_bytes_per_s"),
    ],
)
def test_subnormal_rates_name_their_field(kw, field):
    with pytest.raises(EngineInputError) as e:
        seed_setup(**kw)
    assert e.value.field == field


def test_a_lone_surrogate_in_the_teaching_id_is_refused():
    with pytest.raises(EngineInputError) as e:
        teaching_model(SEVEN_B | {"id": "\ud800"})
    assert e.value.field == "model.id"
