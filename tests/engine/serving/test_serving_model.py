"""The serving scenario's rules: running batch and queue, estimate against bound, ranges,
finite numbers, named errors, and the bound against every measured training run."""

import math
import re

import numpy as np
import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario, serving_estimate
from engine.serving.calibration import load_calibration
from engine.serving.curve import serving_curve
from engine.serving.disagg import sides
from engine.serving.estimate import ensure_finite, ttft_estimate_s
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV, read_rows, row_scenario
from engine.serving.validate import ID_CHARS, answer_row, validate_rows

LLAMA_70B_FP8 = dict(tensor_parallel=4, weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8", backend="trtllm")


def answer(model_id="llama-3.1-70b", hw="h200-sxm", **kw):
    return serving_estimate(get_model(model_id), get_accelerator(hw), ServingScenario(**kw))


def _finite(node):
    if isinstance(node, dict):
        return all(_finite(v) for v in node.values())
    if isinstance(node, list):
        return all(_finite(v) for v in node)
    return not isinstance(node, float) or math.isfinite(node)


def test_estimate_is_never_below_the_bound_and_its_range_holds_it():
    for c in (1, 8, 64, 512):
        r = answer(concurrency=c, **LLAMA_70B_FP8)
        assert r["estimate"]["tpot_s"] >= r["bound"]["tpot_s"]
        assert r["estimate"]["ttft_s"] >= r["bound"]["ttft_s"]
        lo, hi = r["estimate"]["tpot_s_range"]
        assert r["bound"]["tpot_s"] <= lo <= r["estimate"]["tpot_s"] <= hi
        assert _finite(r)


def test_running_batch_is_what_fits_under_memory_utilization_and_the_rest_queue():
    # Llama-3.1-8B bf16 on one H100 at 0.9: 72 GiB less 16 GB of weights; 8k + 8k/2 tokens of
    # 128 KiB KV each = 1.5 GiB per request: about 36 requests fit, the rest of 256 queue.
    r = answer("llama-3.1-8b", "h100-sxm5", concurrency=256, input_tokens=8192, output_tokens=8192)
    mem = r["breakdown"]["memory"]
    per_request = mem["kv_bytes_per_request_per_gpu"] + mem["workspace_bytes_per_request"]
    fits = int((80 * 2**30 * 0.9 - mem["weights_bytes_per_gpu"]) // per_request)
    assert r["running_batch"] == fits < 256
    assert r["queued"] == 256 - fits
    assert str(256 - fits) in r["queue_reason"] and "0.9" in r["queue_reason"]
    assert any("queue" in w for w in r["warnings"])
    # a larger share of memory admits more
    more = answer("llama-3.1-8b", "h100-sxm5", concurrency=256, input_tokens=8192, output_tokens=8192,
                  memory_utilization=0.95)  # fmt: skip
    assert more["running_batch"] > r["running_batch"]
    # queued requests wait for slots: TTFT grows with the queue
    assert r["breakdown"]["ttft"]["bound"]["wait_s"] > 0


def test_prefill_share_grows_with_the_prompt_and_vanishes_at_concurrency_one():
    one = answer(concurrency=1, **LLAMA_70B_FP8)
    assert one["breakdown"]["tpot"]["bound"]["prefill_share_s"] == pytest.approx(0.0, abs=1e-12)
    short = answer(concurrency=32, input_tokens=512, output_tokens=512, **LLAMA_70B_FP8)
    long = answer(concurrency=32, input_tokens=8192, output_tokens=512, **LLAMA_70B_FP8)
    assert (
        long["breakdown"]["tpot"]["bound"]["prefill_share_s"]
        > 4 * short["breakdown"]["tpot"]["bound"]["prefill_share_s"]
    )


def test_throughput_rises_and_interactivity_falls_along_the_curve():
    curve = serving_curve(get_model("llama-3.1-70b"), get_accelerator("h200-sxm"),
                          ServingScenario(**LLAMA_70B_FP8), [1, 4, 16, 64, 256])  # fmt: skip
    per_gpu = [p["estimate"]["output_tokens_per_s_per_gpu"] for p in curve["points"]]
    per_user = [p["estimate"]["tokens_per_s_per_user"] for p in curve["points"]]
    assert per_gpu == sorted(per_gpu) and per_user == sorted(per_user, reverse=True)


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"input_tokens": -1}, "input_tokens"),
        ({"memory_utilization": 1.5}, "memory_utilization"),
        ({"memory_utilization": float("nan")}, "memory_utilization"),
        ({"backend": "tgi"}, "backend"),
        ({"weight_dtype": "fp7"}, "weight_dtype"),
        ({"tensor_parallel": True}, "tensor_parallel"),
    ],
)
def test_bad_scenario_names_its_field(kw, field):
    with pytest.raises(EngineInputError) as err:
        ServingScenario(**kw)
    assert err.value.field == field


def test_layout_and_fit_errors_name_their_field():
    with pytest.raises(EngineInputError) as err:  # 8 GPUs but experts over 4
        answer("deepseek-r1", "b200", tensor_parallel=8, expert_parallel=4, weight_dtype="fp8")
    assert err.value.field == "expert_parallel"
    with pytest.raises(EngineInputError) as err:  # 140 GB of bf16 weights on one 80 GB card
        answer("llama-3.1-70b", "h100-sxm5")
    assert err.value.field == "tensor_parallel"
    with pytest.raises(EngineInputError) as err:  # 3 does not divide 64 heads
        answer(tensor_parallel=3)
    assert err.value.field == "tensor_parallel"


def test_every_training_row_maps_and_the_bound_is_below_it_or_flagged():
    rows = read_rows(TRAINING_CSV)
    report = validate_rows(rows)
    assert report["answered"] == len(rows) == 1862
    flagged = {f["id"] for f in report["bound_above_measured_tpot"]}
    above = 0
    for row in rows:
        m = row_scenario(row)
        r = serving_estimate(get_model(m.model), get_accelerator(m.hardware), m.scenario)
        if r["bound"]["tpot_s"] > m.tpot_s:
            above += 1
            assert m.id in flagged
    assert above == len(flagged)
    assert above <= 0.01 * len(rows)  # the measured runs that beat the roofs are few
    assert report["overall"]["tpot_median_abs_error"] < report["overall"]["bound"]["tpot_median_abs_error"]


@pytest.fixture(scope="module")
def disagg_report() -> tuple[list[dict], dict]:
    rows = read_rows(DISAGG_CSV)
    return rows, validate_rows(rows)


def test_the_disaggregated_ttft_bound_is_one_prompts_forward_and_no_run_beats_it(disagg_report):
    """The closed loop's wait at the roofs is no bound: clients that decode at the roofs come back
    sooner than real ones and queue longer (with it, 108 of the split's runs measured below their
    "bound", a B300 run at concurrency 2,048 at 5.07 s against 146 s). The bound is the prompt's
    forward alone on its prefill rank at the roofs plus its transfer at the link's peak: no run of
    the split beats it, and a run recorded faster is named with the likely reasons."""
    rows, report = disagg_report
    assert report["bound_above_measured_ttft_count"] == 0 == report["disaggregated"]["bound"]["ttft_above_measured"]
    b300 = next(
        r
        for r in rows
        if r["id"] == "2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c2048_tp2_0_ep2_0_1201"
    )
    m, result = answer_row(b300, load_calibration())
    parts = result["breakdown"]["ttft"]["bound"]
    hw = get_accelerator(m.hardware)
    forwards = sides(get_model(m.model), hw, hw, m.disagg)["prefill_steps"]  # rows: one prompt, a full batch
    assert parts["prefill_s"] == pytest.approx(float(forwards.row(0).at_roofs_s()[0]), rel=1e-12)
    assert parts["prefill_queue_s"] == 0.0 == parts["fixed_s"] == parts["first_wave_s"]
    assert result["bound"]["ttft_s"] == pytest.approx(parts["prefill_s"] + parts["kv_transfer_s"], rel=1e-12)
    assert result["bound"]["ttft_s"] < m.ttft_s < result["estimate"]["ttft_s"]  # 5.07 s measured
    fast = validate_rows([b300 | {"silicon_ttft_ms": "1"}])  # a run recorded faster than its prompt's forward
    (flag,) = fast["bound_above_measured_ttft"]
    assert flag["id"] == b300["id"][:ID_CHARS]  # the report echoes an id's first ID_CHARS characters
    assert (
        flag["warning"].startswith("measured TTFT 1 ms is below the bound ")
        and "served from a cache" in flag["warning"]
    )


def test_no_disaggregated_run_beats_its_tpot_bound(disagg_report):
    """585 of the split's 677 disaggregated rows leave prefill_num_workers and decode_workers empty:
    369 take their published recipe's (engine.serving.recipes), 157 may have been any of several
    recipes and are answered for each (the bound the least of theirs), 39 that no recipe lists
    are answered as one worker per side. Each kind is scored apart, and no answered run is
    faster than its TPOT bound (an MTP recipe's with its drafts, the bound at every draft
    accepted). Answered as one worker per side, 36 were."""
    rows, report = disagg_report
    by = report["disaggregated"]["by_workers"]
    assert by["worker counts recorded"]["rows"] == 92
    assert sum(k["rows"] for k in by.values()) == report["disaggregated"]["answered"] == 657
    assert report["disaggregated"]["bound"]["tpot_above_measured"] == 0 == len(report["bound_above_measured_tpot"])


@pytest.mark.parametrize(
    "row_id, words",
    [
        ("_8192x1024_c48_tp8_0_ep8_0_357", "the bound is the least of the published recipes it may have been"),
        ("_1024x1024_c144_tp36_ep1_1074", "one decode worker is assumed: more decode workers, each with a smaller"),
    ],
)
def test_a_run_faster_than_its_tpot_bound_says_what_its_workers_were(disagg_report, row_id, words):
    """A run recorded faster than its bound is named with why its deployment may not be the one
    answered: several candidate recipes, or none and one worker per side assumed."""
    rows, _ = disagg_report
    raw = next(r for r in rows if r["id"].endswith(row_id))
    fast = validate_rows([raw | {"silicon_tpot_ms": "0.001"}])
    (flag,) = fast["bound_above_measured_tpot"]
    assert flag["warning"].startswith("measured TPOT 0.001 ms is below the bound ") and words in flag["warning"]


def test_tp_past_a_board_that_does_not_divide_the_heads_is_answered_with_a_warning():
    # TP 72 on an NVL72 system with DeepSeek-R1's 128 heads: the busiest GPU holds 2 heads,
    # as under TP 64; the all-reduces still run over 72 GPUs.
    kw = dict(concurrency=64, moe_tensor_parallel=8, expert_parallel=9, weight_dtype="fp8", compute_dtype="fp8",
              kv_dtype="fp8")  # fmt: skip
    r72 = answer("deepseek-r1", "gb300", tensor_parallel=72, **kw)
    assert r72["gpus"] == 72 and r72["bound"]["tpot_s"] > 0
    assert any("does not divide the 128 attention heads" in w and "64" in w for w in r72["warnings"])


def test_a_wave_of_prompts_is_prefilled_in_steps_of_the_backends_token_budget():
    from engine.serving.step import step_token_budget, wave_chunks

    # 16 prompts of 1024 tokens in 8192-token steps: the k-th waits k/8 steps, at least one
    assert wave_chunks(ServingScenario(concurrency=16, input_tokens=1024), 16) == (8192.0, pytest.approx(17 / 16))
    # one request alone: its own prompt, one step of its own length
    assert wave_chunks(ServingScenario(concurrency=1, input_tokens=1024), 1) == (1024.0, 1.0)
    # 256 prompts of 8192 tokens: one a step, 128.5 steps on average
    assert wave_chunks(ServingScenario(concurrency=256, input_tokens=8192), 256) == (8192.0, 128.5)
    # under attention DP each rank prefills its own prompts
    dp = ServingScenario(concurrency=64, input_tokens=1024, tensor_parallel=1, attention_data_parallel=8)
    assert wave_chunks(dp, 64) == (8192.0, 1.0)
    # SGLang doubles its chunk on GPUs of 160 GiB and more (B200), not on an H200
    assert step_token_budget("sglang", get_accelerator("b200").memory_bytes) == 16384
    assert step_token_budget("sglang", get_accelerator("h200-sxm").memory_bytes) == 8192
    assert step_token_budget("vllm", get_accelerator("b200").memory_bytes) == 8192
    # a longer wave waits longer: the estimate's TTFT grows with the prompts ahead
    short, long = (answer(concurrency=64, input_tokens=n, **LLAMA_70B_FP8) for n in (1024, 8192))
    assert long["estimate"]["ttft_s"] > 4 * short["estimate"]["ttft_s"]


def test_weight_only_int4_converts_its_weights_in_the_estimate_not_in_the_bound():
    import numpy as np

    from engine.serving.calibration import load_calibration
    from engine.serving.estimate import calibrated_step_s
    from engine.serving.step import DEQUANT, serving_steps

    model, hw = get_model("llama-3.1-8b"), get_accelerator("h100-sxm5")
    int4 = ServingScenario(concurrency=1, input_tokens=1000, output_tokens=2000, weight_dtype="int4",
                           compute_dtype="bf16", kv_dtype="bf16")  # fmt: skip
    tpot = serving_steps(model, hw, int4, 1).tpot
    # one token: one pass over every weight but the embedding table (a gather), each element
    # one vector operation at the bf16 CUDA-core roof, 133.8 TFLOP/s (hardware/h100-sxm5.yaml)
    elements = 8_030_261_248 - 128_256 * 4096
    converted = (tpot.weight[0] * tpot.compute_s[0])[tpot.category == DEQUANT].sum()
    assert converted == pytest.approx(elements / 133.8e12, rel=0.01)
    # the bound reads the 4-bit weights at the datasheet bandwidth and converts nothing
    r = serving_estimate(model, hw, int4)
    assert r["bound"]["tpot_s"] == pytest.approx((elements * 0.5 + 131_072 * 2000) / 3.352e12, rel=0.01)
    # the estimate pays dequant_ops_per_weight operations per element: doubling it adds that once more
    p = {k: np.asarray(v, dtype=float) for k, v in load_calibration().parameters(None, hw.id)[0].items()}
    args = (tpot.category, tpot.weight, tpot.compute_s, tpot.memory_s, tpot.link_est_s, tpot.messages,
            tpot.exchanges, tpot.layers)  # fmt: skip
    twice = dict(p, dequant_ops_per_weight=2 * p["dequant_ops_per_weight"])
    added = float((calibrated_step_s(*args, twice) - calibrated_step_s(*args, p))[0])
    assert added == pytest.approx(float(p["dequant_ops_per_weight"]) * elements / 133.8e12, rel=0.01)
    # weights as wide as the GEMM's input (fp8 x fp8) convert nothing
    fp8 = ServingScenario(concurrency=1, weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")
    assert not (serving_steps(model, hw, fp8, 1).tpot.category == DEQUANT).any()


def test_a_lone_request_waits_for_no_other_step():
    # At concurrency 1 the server is idle when the request comes (its client sent it after the
    # last one ended): TTFT is its prefill x ttft_prefill_factor and the wave term (one prompt,
    # its own prefill step), no ttft_wait_steps; both x the model's TTFT factor.
    r = answer(concurrency=1, **LLAMA_70B_FP8)
    p, model_factor = r["calibration"]["parameters"], r["calibration"]["ttft_model_factor"]
    ttft = r["breakdown"]["ttft"]["estimate"]
    step = ttft["prefill_s"] / (model_factor * p["ttft_prefill_factor"])
    assert ttft["wait_s"] == pytest.approx(model_factor * p["ttft_burst_share"] * step, rel=1e-9)
    two = answer(concurrency=2, **LLAMA_70B_FP8)
    waits = model_factor * p["ttft_wait_steps"] * two["estimate"]["tpot_s"]
    assert two["breakdown"]["ttft"]["estimate"]["wait_s"] > waits


def test_a_fitted_model_carries_its_ttft_factor_and_a_new_one_none():
    """The aggregated TTFT estimate x the model's factor (Calibration.ttft_model_factor): the
    factor the calibration holds for a fitted model, 1 for a model it never saw; the estimate's
    prefill and wait both scaled, the bound not."""
    import copy

    from engine.serving.calibration import Calibration

    shipped = load_calibration()
    fitted = shipped.data["ttft_model_factors"]
    assert set(fitted) == set(shipped.data["fitted_on"]["models"]) - {"deepseek-v3"}  # V3: disaggregated runs only
    assert all(0.5 < f < 2.0 for f in fitted.values())
    r = answer(concurrency=8, **LLAMA_70B_FP8)
    assert r["calibration"]["ttft_model_factor"] == fitted["llama-3.1-70b"]
    assert answer("qwen3-30b-a3b", concurrency=8, tensor_parallel=1)["calibration"]["ttft_model_factor"] == 1.0
    data = copy.deepcopy(shipped.data)
    data["ttft_model_factors"]["llama-3.1-70b"] = 1.0
    plain = serving_estimate(
        get_model("llama-3.1-70b"), get_accelerator("h200-sxm"), ServingScenario(concurrency=8, **LLAMA_70B_FP8),
        Calibration("plain", data),
    )  # fmt: skip
    factor = fitted["llama-3.1-70b"]
    scaled, unscaled = r["breakdown"]["ttft"]["estimate"], plain["breakdown"]["ttft"]["estimate"]
    for part in ("prefill_s", "wait_s"):
        assert scaled[part] == pytest.approx(factor * unscaled[part])
    assert r["bound"] == plain["bound"]


def test_a_scheduler_pays_for_each_running_request():
    # Under attention DP the busiest rank's scheduler handles ceil(running / ranks) requests:
    # 100 requests on 8 ranks -> 13 each; the estimate's fixed part is per step, per layer
    # and per request (its inputs, sampling, output).
    from engine.serving.step import serving_steps

    kw = dict(concurrency=100, tensor_parallel=1, attention_data_parallel=8, moe_tensor_parallel=1,
              expert_parallel=8, weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8")  # fmt: skip
    r = answer("deepseek-r1", "b200", **kw)
    steps = serving_steps(get_model("deepseek-r1"), get_accelerator("b200"), ServingScenario(**kw), r["running_batch"])
    assert r["running_batch"] == 100 and steps.tpot.requests == 13
    p = r["calibration"]["parameters"]
    fixed = p["step_overhead_s"] + 61 * p["layer_overhead_s"] + 13 * p["request_overhead_s"]
    assert r["breakdown"]["tpot"]["estimate"]["overhead_s"] == pytest.approx(fixed, rel=1e-12)
    assert r["breakdown"]["tpot"]["bound"]["overhead_s"] == 0.0  # the bound has no CPU


@pytest.mark.parametrize(
    "quant, weights, compute, kv",
    [("bfloat16", "bf16", "bf16", "bf16"), ("fp8_static", "fp8", "fp8", "fp8"), ("int8_wo", "int8", "bf16", "fp8"),
     ("sq", "int8", "int8", "fp8"), ("nvfp4", "fp4", "fp4", "fp8")],
)  # fmt: skip
def test_every_gemm_quant_mode_of_the_measuring_tool_maps(quant, weights, compute, kv):
    """aiconfigurator's GEMMQuantMode names beyond the split's map to a precision; an unknown one
    is refused naming the column."""
    row = read_rows(TRAINING_CSV)[0] | {"gemm_quant_mode": quant}
    sc = row_scenario(row).scenario
    assert (sc.weight_dtype, sc.compute_dtype, sc.kv_dtype) == (weights, compute, kv)
    with pytest.raises(EngineInputError) as refused:
        row_scenario(row | {"gemm_quant_mode": "fp3"})
    assert refused.value.field == "gemm_quant_mode" and refused.value.code == "map_quant"


def test_a_disaggregated_row_without_worker_counts_is_one_worker_per_side_and_says_so():
    row = next(r for r in read_rows(DISAGG_CSV) if r["prefill_num_workers"] and r["decode_num_workers"])
    recorded = row_scenario(row)
    assert recorded.workers_recorded and recorded.disagg.prefill.workers == int(row["prefill_num_workers"])
    for empty in ({"prefill_num_workers": ""}, {"decode_num_workers": " "}, {"decode_num_workers": "0"}):
        m = row_scenario(row | empty)
        assert not m.workers_recorded
        assert 1 in (m.disagg.prefill.workers, m.disagg.decode.workers)
    assert row_scenario(read_rows(TRAINING_CSV)[0]).workers_recorded  # an aggregated row has no workers to record


def test_a_row_is_read_as_the_mode_and_concurrency_it_states_or_refused():
    row = next(r for r in read_rows(DISAGG_CSV) if r["prefill_num_workers"])
    assert row_scenario(row | {"mode": "DISAGG"}).disagg is not None  # the mode's case does not matter
    for mode in ("both", "disaggregated"):
        with pytest.raises(EngineInputError) as refused:
            row_scenario(row | {"mode": mode})
        assert refused.value.field == "mode" and refused.value.code == "map_mode"
    source = row["silicon_data_source"]
    for stated in ("0", "999999999"):
        changed = re.sub(r"silicon_concurrency=\d+", f"silicon_concurrency={stated}", source)
        with pytest.raises(EngineInputError) as refused:  # not read from another column instead
            row_scenario(row | {"silicon_data_source": changed})
        assert refused.value.field == "silicon_data_source" and f"silicon_concurrency={stated}" in str(refused.value)


@pytest.mark.parametrize(
    "bad",
    [
        {"a": [1, "x", {"b": float("nan")}]},
        {"a": (0.5, float("inf"))},
        [{"deep": [[np.float64("-inf")]]}],
        {"flag": True, "n": None, "v": np.float64("nan")},
    ],
)
def test_a_number_that_is_not_finite_anywhere_in_an_answer_is_caught(bad):
    """ensure_finite guards every answer: a NaN or infinity at any depth, in a dict, list or
    tuple, as a float or a numpy float, raises; finite answers of the same shapes pass."""
    with pytest.raises(ValueError, match="not finite"):
        ensure_finite(bad)
    ensure_finite({"a": [1, "x", {"b": 0.5}], "t": (1.0, np.float64(2.0)), "flag": True, "n": None})


def test_a_scenario_is_new_or_known_among_its_own_modes_runs():
    """GB200 and B300 runs are fitted disaggregated only: an aggregated GB200 scenario takes the
    new-GPU range, a disaggregated DeepSeek-R1 one on GB200 the pairing range, and a model fitted
    aggregated only is new to the disaggregated estimate."""
    cal = load_calibration()
    assert cal.range_kind("llama-3.1-70b", "gb200") == "new_gpu"
    assert cal.range_kind("deepseek-r1", "gb200", "disaggregated") == "pairing"
    assert cal.range_kind("llama-3.1-70b", "h200-sxm", "disaggregated") == "new_model"
    assert answer(hw="gb200", concurrency=8, **LLAMA_70B_FP8)["estimate"]["range_kind"] == "new_gpu"


def test_expert_degrees_on_a_dense_model_are_named_as_changing_nothing():
    dense = answer(concurrency=8, expert_parallel=4, moe_tensor_parallel=1, **{**LLAMA_70B_FP8, "tensor_parallel": 4})
    assert any("llama-3.1-70b has none, so they change nothing here" in w for w in dense["warnings"])
    plain = answer(concurrency=8, **LLAMA_70B_FP8)
    assert dense["estimate"] == plain["estimate"] and not any("has none" in w for w in plain["warnings"])


def test_a_second_client_of_one_token_outputs_waits_for_one_prompt_not_nine():
    """Qwen3-32B on B200 TP 2, 8,192 tokens in and 1 out: every step beside another request is a
    whole prompt, and the fitted wait of ttft_wait_steps steps had the second client wait nine
    of them (TTFT 0.27 s alone, 1.91 s with two: the rate fell from 1.88 to 0.52 tok/s/GPU).
    The requests ahead of it have one prompt and output - 1 decode steps left each."""
    qwen = dict(model_id="qwen3-32b", hw="b200", input_tokens=8192, output_tokens=1, tensor_parallel=2, backend="vllm")
    one, two = answer(concurrency=1, **qwen)["estimate"], answer(concurrency=2, **qwen)["estimate"]
    assert two["ttft_s"] < 2.5 * one["ttft_s"]  # its own prompt and the other's
    assert two["output_tokens_per_s_per_gpu"] > one["output_tokens_per_s_per_gpu"]
    # by hand: 9 wait steps of 10 ms decode + 2 ms of prompt (w = 0.01 prompts a step, so one
    # prompt is 200 ms); with 1,000 tokens out the wait carries 0.09 prompts, as before 9 x 12 ms
    p = {"ttft_prefill_factor": 1.0, "ttft_burst_share": 0.0, "ttft_wait_steps": 9.0}
    kw = dict(running=2.0, decode_s=0.010)
    long = ttft_estimate_s(0.1, 0.012, 0.0, 0.0, p, prompts_per_step=0.01, output_tokens=1000, **kw)
    assert long == pytest.approx(0.1 + 9 * 0.012)
    # with 1 token out each step is the other's whole prompt (w = 1) and nothing decodes: the
    # wait carries that prompt once; with 2 out (w = 0.5), the prompt and one decode step
    one_out = ttft_estimate_s(0.1, 0.210, 0.0, 0.0, p, prompts_per_step=1.0, output_tokens=1, **kw)
    assert one_out == pytest.approx(0.1 + 1 * 0.200)
    two_out = ttft_estimate_s(0.1, 0.110, 0.0, 0.0, p, prompts_per_step=0.5, output_tokens=2, **kw)
    assert two_out == pytest.approx(0.1 + 1 * 0.010 + 1 * 0.200)


def test_more_prompts_a_step_than_outputs_never_take_the_estimate_under_the_bound():
    """DeepSeek-R1 fp8 on 8 B200 attention-DP ranks, 128 tokens in and 1 out, 64 clients: a TPOT
    step carries 63 prompts, its decode part weighs -62, and the decode step's larger expert
    imbalance took the calibrated step under the roofs' (198 against 211 ms)."""
    wide = dict(tensor_parallel=1, attention_data_parallel=8, expert_parallel=8, backend="trtllm",
                weight_dtype="fp8", compute_dtype="fp8", kv_dtype="fp8", input_tokens=128, output_tokens=1)  # fmt: skip
    for c in (32, 64, 128, 512):
        r = answer("deepseek-r1", "b200", concurrency=c, **wide)
        assert r["estimate"]["tpot_s"] >= r["bound"]["tpot_s"]
        assert r["estimate"]["tpot_s_range"][0] >= r["bound"]["tpot_s"]
        assert r["estimate"]["output_tokens_per_s_per_gpu"] <= r["bound"]["output_tokens_per_s_per_gpu"]
