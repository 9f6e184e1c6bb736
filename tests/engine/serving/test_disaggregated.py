"""Disaggregated serving checked by hand: the KV transfer of one DeepSeek-R1 deployment on
GB200, the balance of the two sides, and each backend's memory rule against its documented
default."""

import math
from dataclasses import replace

import pytest

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving import ServingScenario
from engine.serving.capacity import capacity, sglang_mem_fraction_static
from engine.serving.disagg import disaggregated_estimate, sides
from engine.serving.scenario import DisaggScenario, KvLink, WorkerLayout
from engine.serving.speculative import Speculative
from engine.serving.step import decode_steps

FP8 = {"weight_dtype": "fp8", "compute_dtype": "fp8", "kv_dtype": "fp8"}


def r1_on_gb200(concurrency=256, link=None):
    base = ServingScenario(concurrency=concurrency, input_tokens=1024, output_tokens=1024, backend="trtllm", **FP8)
    prefill = WorkerLayout(workers=2, tensor_parallel=1, attention_data_parallel=4, expert_parallel=4)
    decode = WorkerLayout(workers=1, tensor_parallel=1, attention_data_parallel=16, expert_parallel=16)
    ds = DisaggScenario(base, prefill, decode, link or KvLink())
    return disaggregated_estimate(get_model("deepseek-r1"), get_accelerator("gb200"), ds), ds


def test_kv_transfer_of_deepseek_r1_on_gb200_by_hand():
    r, ds = r1_on_gb200()
    # MLA caches one latent per token and layer: (512 + 64) values x 1 byte (fp8) x 61 layers =
    # 35,136 B per token, 35,979,264 B for the 1,024-token prompt. The prefill rank (TP 1) sends it
    # whole; the decode rank (TP 1) receives it whole. 2 x 4 + 16 = 24 GPUs sit in one NVL72
    # domain, so it crosses NVLink 5 at 900 GB/s per direction (hardware/gb200.yaml).
    per_request = 61 * (512 + 64) * 1024
    transfer = r["breakdown"]["kv_transfer"]
    assert transfer["bytes_per_request"] == per_request == 35_979_264
    assert transfer["bytes_per_link"] == per_request
    assert transfer["link_bytes_per_s"] == 900e9
    assert r["breakdown"]["ttft"]["bound"]["kv_transfer_s"] == pytest.approx(per_request / 900e9, rel=1e-12)
    # the estimate: the calibrated link efficiency, shared by concurrent transfers, plus a latency
    p = r["calibration"]["parameters"]
    floor = per_request / (900e9 * p["kv_link_efficiency"])
    assert r["breakdown"]["ttft"]["estimate"]["kv_transfer_s"] >= floor * (1 - 1e-12)
    # the first token's fixed cost (handshake, routing) is its own part, not the transfer's
    assert r["breakdown"]["ttft"]["estimate"]["fixed_s"] == pytest.approx(p["kv_transfer_latency_s"])
    assert r["breakdown"]["ttft"]["bound"]["fixed_s"] == 0.0
    # TTFT's parts add up: prefill, its queue, the benchmark's first wave, the transfer, the fixed cost
    for kind in ("bound", "estimate"):
        parts = r["breakdown"]["ttft"][kind]
        total = sum(parts[k] for k in ("prefill_s", "prefill_queue_s", "first_wave_s", "kv_transfer_s", "fixed_s"))
        assert r[kind]["ttft_s"] == pytest.approx(total, rel=1e-12)


def test_over_the_scale_out_network_past_the_domain():
    # DeepSeek-R1 on H200 (8-GPU boards): 2 x 8 + 16 GPUs span boards, so each GPU's
    # 400 Gb/s ConnectX-7 NIC carries it (hardware/h200-sxm.yaml: 50 GB/s)
    base = ServingScenario(concurrency=64, backend="sglang", **FP8)
    ds = DisaggScenario(base, WorkerLayout(2, 1, 8, 1, 8), WorkerLayout(1, 1, 16, 1, 16))
    r = disaggregated_estimate(get_model("deepseek-r1"), get_accelerator("h200-sxm"), ds)
    assert r["breakdown"]["kv_transfer"]["link_bytes_per_s"] == 50e9
    # a link the user gives wins
    ds = DisaggScenario(base, ds.prefill, ds.decode, KvLink(25e9, 2e-5))
    r = disaggregated_estimate(get_model("deepseek-r1"), get_accelerator("h200-sxm"), ds)
    assert r["breakdown"]["kv_transfer"]["link_bytes_per_s"] == 25e9


def test_a_links_latency_the_user_gives_is_the_transfers_and_the_fixed_cost_stays():
    # The calibrated fixed cost (handshake, routing: 0.16 s) is not the link's latency. A latency
    # of 100 ms once replaced it, so typing one made the first token faster and left the transfer
    # row as it was.
    auto, _ = r1_on_gb200(concurrency=8, link=KvLink(50e9))
    slow, _ = r1_on_gb200(concurrency=8, link=KvLink(50e9, 0.1))
    before, after = auto["breakdown"]["ttft"]["estimate"], slow["breakdown"]["ttft"]["estimate"]
    assert after["fixed_s"] == before["fixed_s"] == auto["calibration"]["parameters"]["kv_transfer_latency_s"]
    assert after["kv_transfer_s"] == pytest.approx(before["kv_transfer_s"] + 0.1, rel=0.01)
    assert slow["estimate"]["ttft_s"] > auto["estimate"]["ttft_s"] + 0.09
    # the bound: the bytes at the link's peak, no latency
    assert slow["breakdown"]["ttft"]["bound"] == auto["breakdown"]["ttft"]["bound"]


def test_the_balance_names_the_side_that_limits():
    r, ds = r1_on_gb200(concurrency=4096)
    d = r["disaggregated"]
    capacities = {"prefill": d["prefill_capacity_rps"], "decode": d["decode_capacity_at_memory_cap_rps"]}
    capacities["kv_link"] = d["kv_link_capacity_rps"]
    assert d["limited_by"] == min(capacities, key=capacities.get)
    # served at most what the limiting side can serve; the other side idles the rest
    assert d["requests_per_s"] <= capacities[d["limited_by"]] * (1 + 1e-12)
    # and no more than Little's law allows over the round trip the estimate gives
    est = r["estimate"]
    assert d["requests_per_s"] <= 4096 / (est["ttft_s"] + 1024 * est["tpot_s"]) * (1 + 1e-12)
    assert d["prefill_idle"] == pytest.approx(max(0.0, 1 - d["requests_per_s"] / d["prefill_capacity_rps"]))
    # the ratio that balances: prefill workers per decode worker
    per_prefill = d["prefill_capacity_rps"] / ds.prefill.workers
    per_decode = d["decode_capacity_at_memory_cap_rps"] / ds.decode.workers
    assert d["balanced_ratio"] == pytest.approx(per_decode / per_prefill)
    # the decode step carries no prompt: disaggregation's point
    assert r["breakdown"]["tpot"]["estimate"]["prefill_share_s"] == 0.0
    # tokens/s/GPU over both sides' GPUs
    assert r["gpus"] == 2 * 4 + 16
    assert r["estimate"]["output_tokens_per_s_per_gpu"] == pytest.approx(d["requests_per_s"] * 1024 / 24)


def test_each_backend_applies_its_own_memory_rule():
    model, hw = get_model("llama-3.1-70b"), get_accelerator("h200-sxm")
    total = hw.memory_bytes  # 143,771 MiB (hardware/h200-sxm.yaml)
    sc = ServingScenario(concurrency=1, tensor_parallel=8, **FP8)
    # vLLM: weights, activations and KV within gpu_memory_utilization (0.9) of the card
    vllm = capacity(model, hw, ServingScenario(**{**sc.__dict__, "backend": "vllm"}))
    assert vllm.usable_bytes_per_gpu == pytest.approx(0.9 * total)
    # SGLang: mem_fraction_static = (card - reserved) / card; reserved (MiB) = 512 + 1.5 x 8192
    # (chunked prefill below 160 GB) + 2 x 512 (CUDA-graph batch at TP >= 4) + 8 / 8 x 1024 = 14,848
    sglang_sc = ServingScenario(**{**sc.__dict__, "backend": "sglang"})
    assert sglang_mem_fraction_static(hw, sglang_sc) == round((143_771 - 14_848) / 143_771, 3) == 0.897
    sglang = capacity(model, hw, sglang_sc)
    assert sglang.usable_bytes_per_gpu == pytest.approx(0.897 * total)
    assert sglang.workspace_bytes_per_request == 0.0  # activations live in the reserved part
    # TensorRT-LLM: the KV cache takes free_gpu_memory_fraction (0.9) of what weights and a step's
    # activations leave
    trt = capacity(model, hw, ServingScenario(**{**sc.__dict__, "backend": "trtllm"}))
    room = trt.usable_bytes_per_gpu - trt.weights_bytes_per_gpu
    assert room < 0.9 * (total - trt.weights_bytes_per_gpu)
    assert "free_gpu_memory_fraction 0.9" in trt.rule and "mem_fraction_static 0.897" in sglang.rule
    # a value the user gives is that backend's own knob
    mine = capacity(model, hw, ServingScenario(**{**sc.__dict__, "backend": "sglang", "memory_utilization": 0.8}))
    assert mine.usable_bytes_per_gpu == pytest.approx(0.8 * total)


def test_a_decode_side_that_cannot_hold_its_share_queues_and_says_so():
    r, _ = r1_on_gb200(concurrency=65536)
    d = r["disaggregated"]
    assert d["decode_running_per_worker"] <= r["breakdown"]["memory"]["decode"]["max_running_batch"]
    assert r["breakdown"]["ttft"]["estimate"]["prefill_queue_s"] > 1.0  # the excess waits
    assert math.isfinite(r["estimate"]["ttft_s"])


def test_a_deployment_shape_is_built_once_and_answers_as_built_afresh():
    """sides() keeps what a deployment's concurrency does not change; a second concurrency
    reuses it, and its answer is the one a cold build gives, to the bit."""
    from engine.serving.disagg import SIDES_CACHE_BYTES, _sides_cache

    _sides_cache.clear()
    r1_on_gb200(concurrency=64)
    hits = _sides_cache.hits
    warm, _ = r1_on_gb200(concurrency=300)
    assert _sides_cache.hits == hits + 1 and len(_sides_cache) == 1
    _sides_cache.clear()
    cold, _ = r1_on_gb200(concurrency=300)
    assert warm["estimate"] == cold["estimate"] and warm["bound"] == cold["bound"]
    assert warm["breakdown"] == cold["breakdown"] and warm["disaggregated"] == cold["disaggregated"]
    assert 0 < _sides_cache.bytes <= SIDES_CACHE_BYTES
    # another prompt length is another shape: its own entry, not the first one's answer
    base = ServingScenario(concurrency=300, input_tokens=4096, output_tokens=1024, backend="trtllm", **FP8)
    _, ds = r1_on_gb200()
    longer = disaggregated_estimate(
        get_model("deepseek-r1"), get_accelerator("gb200"), DisaggScenario(base, ds.prefill, ds.decode)
    )
    assert len(_sides_cache) == 2
    assert (
        longer["breakdown"]["kv_transfer"]["bytes_per_request"]
        == 4 * cold["breakdown"]["kv_transfer"]["bytes_per_request"]
    )


def test_the_closed_loop_wait_between_its_limits():
    """closed_loop_wait solves W = k rho / (1 - rho) at the load rho = a / (D + W) the loop
    offers: W (D + W - a) = k a."""
    from engine.serving.disagg import closed_loop_wait

    for a, d, k in ((1.0, 100.0, 0.5), (40.0, 40.0, 0.5), (1000.0, 10.0, 0.5), (3.0, 7.0, 2.0)):
        w = float(closed_loop_wait(a, d, k))
        assert w * (d + w - a) == pytest.approx(k * a, rel=1e-9)
    # far below capacity: M/D/1's wait at rho = 1 / 100.005, about k rho / (1 - rho) = 0.00505 s
    assert float(closed_loop_wait(1.0, 100.0, 0.5)) == pytest.approx(0.5 * 0.01 / 0.99, rel=1e-3)
    # at the knee (a = D = 40 s) it stays finite: sqrt(k a) = sqrt(20) = 4.47 s
    assert float(closed_loop_wait(40.0, 40.0, 0.5)) == pytest.approx(math.sqrt(20.0), rel=1e-12)
    # far above: Little's law's backlog a - D = 990 s, plus k a / (a - D) = 0.505 s
    assert float(closed_loop_wait(1000.0, 10.0, 0.5)) == pytest.approx(990.505, abs=1e-3)
    # no queueing term: exactly the backlog, or nothing below capacity
    assert float(closed_loop_wait(1000.0, 10.0, 0.0)) == 990.0
    assert float(closed_loop_wait(5.0, 10.0, 0.0)) == 0.0


def _scaled_calibration(**factors):
    import copy

    from engine.serving.calibration import Calibration, load_calibration

    data = copy.deepcopy(load_calibration().data)
    for name, factor in factors.items():
        data["global"][name] *= factor
    return Calibration("scaled", data)


def test_the_client_sees_one_prefill_and_the_worker_is_busy_another():
    """disagg_prefill_factor scales the prefill a client waits for, not the worker's capacity;
    prefill_busy_factor scales the capacity (the worker's busy time), not a lone prompt's wait."""
    model, hw = get_model("deepseek-r1"), get_accelerator("gb200")
    _, ds = r1_on_gb200(concurrency=4)

    def answer(**factors):
        r = disaggregated_estimate(model, hw, ds, calibration=_scaled_calibration(**factors))
        return r["breakdown"]["ttft"]["estimate"]["prefill_s"], r["disaggregated"]["prefill_capacity_rps"]

    seen, capacity_rps = answer()
    seen_2, capacity_rps_2 = answer(disagg_prefill_factor=2.0)
    assert seen_2 == pytest.approx(2.0 * seen, rel=1e-12) and capacity_rps_2 == capacity_rps
    # a longer busy time (a shorter one could reach the roofs, below which no worker runs)
    seen_slow, capacity_rps_slow = answer(prefill_busy_factor=2.0)
    assert capacity_rps_slow == pytest.approx(0.5 * capacity_rps, rel=1e-12)
    assert seen_slow == pytest.approx(seen, rel=1e-12)  # one prompt at a time: the same forward seen


def test_a_prefill_worker_is_never_busy_for_less_than_its_forward_at_the_roofs():
    """prefill_busy_factor under 1 shortens the calibrated forward, down to the roofs and no
    further: the estimate's prefill capacity never passes the bound's (the prefill_busy_factor
    limit, 0.3, would otherwise put a worker at 3x its card on a compute-bound prompt)."""
    model, hw = get_model("deepseek-r1"), get_accelerator("gb200")
    _, ds = r1_on_gb200(concurrency=4)
    # every roof reached (each efficiency clipped at its limit, 1) and the busy factor at its lower
    # limit, 0.3: unclamped, the worker would prefill in a third of its time at the roofs
    full = dict.fromkeys(("compute_efficiency", "expert_compute_efficiency", "attention_efficiency"), 1e3)
    cal = _scaled_calibration(prefill_busy_factor=0.01, bandwidth_efficiency=1e3, **full)
    assert cal.parameters("trtllm", "gb200")[0]["prefill_busy_factor"] == 0.3
    r = disaggregated_estimate(model, hw, ds, calibration=cal)
    d = sides(model, hw, hw, ds)
    at_roofs_rps = d["prefill_slots"] * d["prefill_full"] / float(d["prefill_steps"].at_roofs_s()[1])
    assert r["disaggregated"]["prefill_capacity_rps"] == pytest.approx(at_roofs_rps, rel=1e-12)
    assert r["estimate"]["output_tokens_per_s_per_gpu"] <= r["bound"]["output_tokens_per_s_per_gpu"]
    assert r["estimate"]["ttft_s"] >= r["bound"]["ttft_s"]


def test_more_decode_workers_than_requests_count_only_the_requests():
    model, hw = get_model("llama-3.1-8b"), get_accelerator("h100-sxm5")
    ds = DisaggScenario(ServingScenario(concurrency=1), WorkerLayout(), WorkerLayout(workers=8))
    r = disaggregated_estimate(model, hw, ds)
    assert r["running_batch"] == 1 and r["disaggregated"]["decode_running_per_worker"] == 0.125
    assert r["queue_reason"].startswith("0.12 requests decode on each decode worker")


def test_requests_beyond_the_decode_memory_wait_and_the_answer_says_so():
    """C far past the decode workers' KV memory: `queued` counts those waiting for a decode slot
    (C less those decoding and those in service before decode), as the aggregated answer does."""
    r, ds = r1_on_gb200(concurrency=60_000)
    cap = r["breakdown"]["memory"]["decode"]["max_running_batch"]
    assert r["running_batch"] == cap * ds.decode.workers
    ttft = r["breakdown"]["ttft"]["estimate"]
    in_service = r["disaggregated"]["requests_per_s"] * (ttft["prefill_s"] + ttft["kv_transfer_s"] + ttft["fixed_s"])
    assert r["queued"] == 60_000 - r["running_batch"] - round(in_service) > 0
    assert r["queue_reason"].endswith(f"{r['queued']:,} wait for a decode slot (its KV memory is full)")
    assert r1_on_gb200(concurrency=256)[0]["queued"] == 0


def test_a_link_that_limits_the_deployment_or_a_nic_assumed_is_named():
    r, _ = r1_on_gb200(link=KvLink(bandwidth_bytes_per_s=1e6))
    assert r["disaggregated"]["limited_by"] == "kv_link"
    assert any("limits the deployment, not its GPUs" in w for w in r["warnings"])
    model, l40s = get_model("llama-3.1-8b"), get_accelerator("l40s")
    tp8 = WorkerLayout(tensor_parallel=8)
    ds = DisaggScenario(ServingScenario(concurrency=8), tp8, tp8)
    family, warning = disaggregated_estimate(model, l40s, ds)["warnings"]
    assert warning.startswith("l40s has no scale-out NIC on file: the KV cache's link assumes 50 GB/s per GPU")
    assert family.startswith("l40s is in no calibrated accelerator family")  # both sides' own, said once
    assert r1_on_gb200()[0]["warnings"] == []


def test_deployments_answered_at_once_answer_as_each_alone():
    """disaggregated_estimates answers the deployments that differ only in concurrency in one
    pass (the serving page's shipped runs, each 1-4 deployments it may have been): each answer is
    the one disaggregated_estimate gives it alone, to the bit, and a deployment that cannot be
    is its own error in its own place."""
    from engine.serving.disagg import disaggregated_estimates

    model, hw = get_model("deepseek-r1"), get_accelerator("gb200")
    _, ds = r1_on_gb200()
    wider = replace(ds, decode=replace(ds.decode, workers=2))
    unfit = replace(ds, prefill=replace(ds.prefill, attention_data_parallel=1, expert_parallel=1))
    asked = [replace(d, base=replace(d.base, concurrency=c)) for d, c in ((ds, 64), (wider, 8), (ds, 300), (unfit, 4))]
    answers = disaggregated_estimates(model, hw, asked)
    for deployment, answer in zip(asked[:3], answers[:3], strict=True):
        alone = disaggregated_estimate(model, hw, deployment)
        assert answer["estimate"] == alone["estimate"] and answer["bound"] == alone["bound"]
        assert answer["breakdown"] == alone["breakdown"] and answer["disaggregated"] == alone["disaggregated"]
    with pytest.raises(EngineInputError) as info:
        disaggregated_estimate(model, hw, asked[3])
    assert isinstance(answers[3], EngineInputError) and str(answers[3]) == str(info.value)


def test_a_side_that_cannot_be_names_its_own_field():
    model, hw = get_model("deepseek-r1"), get_accelerator("h100-sxm5")
    base = ServingScenario(concurrency=8, **FP8)
    with pytest.raises(EngineInputError) as info:
        disaggregated_estimate(model, hw, DisaggScenario(base, WorkerLayout(), WorkerLayout(tensor_parallel=8)))
    assert info.value.field == "disaggregated.prefill.tensor_parallel"
    assert str(info.value).startswith("disaggregated.prefill.tensor_parallel: ") and "do not fit" in str(info.value)


def test_speculative_decoding_runs_on_the_decode_workers_each_token_its_step_over_e_a():
    """DeepSeek-R1 on GB200 with MTP, 3 draft tokens accepted at 0.4-1.0: the decode worker's step
    verifies 4 tokens a sequence and runs the MTP block 3 times, and a token costs that step over
    E(a) = 1 + a + a^2 + a^3 (the bound at a = 1, 4 tokens; the estimate at 0.7, 2.533). The
    prefill side drafts nothing: its forward, and so the first token's prefill, is unchanged."""
    plain, ds = r1_on_gb200()
    spec = Speculative("mtp", 3, 0.4, 1.0)
    mtp = disaggregated_estimate(
        get_model("deepseek-r1"), get_accelerator("gb200"), replace(ds, base=replace(ds.base, speculative=spec))
    )
    assert mtp["speculative"]["tokens_per_step"] == pytest.approx({"low": 1.624, "estimate": 2.533, "high": 4.0})
    assert mtp["breakdown"]["ttft"]["estimate"]["prefill_s"] == plain["breakdown"]["ttft"]["estimate"]["prefill_s"]
    # by hand, one client (a batch of 1): the decode step with its verification of 4 tokens and 3
    # MTP-block forwards at the roofs, over E(1) = 4 tokens
    model, hw = get_model("deepseek-r1"), get_accelerator("gb200")
    one, ds1 = r1_on_gb200(concurrency=1)
    alone = disaggregated_estimate(model, hw, replace(ds1, base=replace(ds1.base, speculative=spec)))
    step = decode_steps(model, hw, ds1.decode.instance(replace(ds1.base, speculative=spec), 1), [1.0])
    assert alone["bound"]["tpot_s"] == pytest.approx(float(step.at_roofs_s()[0]) / 4.0, rel=1e-12)
    plain_step = decode_steps(model, hw, ds1.decode.instance(ds1.base, 1), [1.0])
    assert one["bound"]["tpot_s"] == pytest.approx(float(plain_step.at_roofs_s()[0]), rel=1e-12)
    # a token is cheaper than without drafts, the step dearer; the bound stays under the estimate
    assert mtp["estimate"]["tpot_s"] < plain["estimate"]["tpot_s"]
    assert mtp["bound"]["tpot_s"] < mtp["estimate"]["tpot_s"]
    assert mtp["speculative"]["bound_tpot_s_without_speculation"] > mtp["bound"]["tpot_s"]
    parts = mtp["breakdown"]["tpot"]["estimate"]
    assert parts["decode_s"] + parts["communication_s"] + parts["overhead_s"] == pytest.approx(parts["total_s"])


def test_a_slow_link_is_shared_by_the_other_clients_transfers_not_its_own():
    """Llama-3.1-70B, 32,768 tokens in and 256 out, one TP 4 worker a side, a 1 GB/s link: one
    client's transfer has nobody to share the link with, so it takes the bytes over the link at
    its calibrated efficiency and no more; more clients share it, and the deployment's rate
    climbs toward the link's capacity. Counted at the load the loop would offer with nobody
    waiting, 2 clients read as a saturated link and served 7x fewer requests than 1."""
    base = ServingScenario(concurrency=1, input_tokens=32_768, output_tokens=256)
    side = WorkerLayout(workers=1, tensor_parallel=4)
    model, hw = get_model("llama-3.1-70b"), get_accelerator("h100-sxm5")

    def at(c: int) -> dict:
        ds = DisaggScenario(replace(base, concurrency=c), side, side, KvLink(bandwidth_bytes_per_s=1e9))
        return disaggregated_estimate(model, hw, ds)

    one = at(1)
    efficiency = one["calibration"]["parameters"]["kv_link_efficiency"]
    alone = one["breakdown"]["ttft"]["bound"]["kv_transfer_s"] / efficiency
    assert one["breakdown"]["ttft"]["estimate"]["kv_transfer_s"] == pytest.approx(alone, rel=1e-9)
    rates = [at(c)["disaggregated"]["requests_per_s"] for c in (1, 2, 4, 16)]
    assert rates == sorted(rates) and rates[-1] <= one["disaggregated"]["kv_link_capacity_rps"]


@pytest.mark.parametrize("model_id", ["mixtral-8x7b", "qwen3-32b", "deepseek-r1", "llama-3.1-8b"])
def test_the_estimate_never_decodes_faster_than_its_bound(model_id):
    """A prefill slower than the roofs leaves fewer of the C requests decoding than the bound's
    loop has, so the bound decodes at the smaller batch of the two: Mixtral 8x7B on H200 with
    32k prompts at 42 clients, 1P1D, answered 26.8 ms against a 28.5 ms bound before. Swept over
    prompt lengths, clients and worker counts on two accelerators; the estimate also stays
    inside its own range."""
    model = get_model(model_id)
    for hw_id in ("h200-sxm", "b200"):
        hw = get_accelerator(hw_id)
        for isl, c, (p_workers, d_workers) in (
            (32_768, 42, (1, 1)), (32_768, 2048, (3, 1)), (8192, 8, (1, 2)), (1024, 512, (1, 1)),
        ):  # fmt: skip
            base = ServingScenario(concurrency=c, input_tokens=isl, output_tokens=1024, backend="vllm", **FP8)
            layout = {"tensor_parallel": 8, "expert_parallel": 8} if model_id == "deepseek-r1" else {}
            ds = DisaggScenario(base, WorkerLayout(workers=p_workers, **layout),
                                WorkerLayout(workers=d_workers, **layout))  # fmt: skip
            r = disaggregated_estimate(model, hw, ds)
            est, bound = r["estimate"], r["bound"]
            where = f"{hw_id} isl {isl} C {c}"
            assert est["tpot_s"] >= bound["tpot_s"], where
            low, high = est["tpot_s_range"]
            assert low <= est["tpot_s"] <= high, where
            assert est["output_tokens_per_s_per_gpu"] <= bound["output_tokens_per_s_per_gpu"], where


def test_each_side_warns_as_an_aggregated_instance_of_it_would():
    """A side's own warnings (a backend that does not run on its accelerator, experts split on a
    dense model, a precision its card has no roof for) are the aggregated answer's, named by side
    when only one side has them."""
    model = get_model("llama-3.1-70b")
    base = ServingScenario(concurrency=64, backend="trtllm", **FP8)
    split = DisaggScenario(base, WorkerLayout(), WorkerLayout(hardware="h100-sxm5"))
    words = disaggregated_estimate(model, get_accelerator("mi300x"), split)["warnings"]
    assert any(w.startswith("prefill workers: trtllm runs on NVIDIA accelerators, not on mi300x") for w in words)
    assert not any(w.startswith("decode workers: trtllm") for w in words)
    experts = DisaggScenario(base, WorkerLayout(tensor_parallel=4, expert_parallel=4), WorkerLayout())
    words = disaggregated_estimate(model, get_accelerator("h100-sxm5"), experts)["warnings"]
    assert words == [
        "prefill workers: expert_parallel 4 and moe_tensor_parallel 1 split a MoE model's experts; llama-3.1-70b "
        "has none, so they change nothing here"
    ]
    fp4 = replace(base, backend="vllm", weight_dtype="fp4", compute_dtype="fp4")
    (roof,) = disaggregated_estimate(
        model, get_accelerator("h100-sxm5"), DisaggScenario(fp4, WorkerLayout(), WorkerLayout())
    )["warnings"]
    assert roof.startswith("h100-sxm5 has no fp4 tensor roof: fp4 matrix multiplies are counted at its fp8 peak")


def test_the_tpot_parts_add_up_to_it_in_the_bound_and_the_estimate():
    """The bound's communication was shown as 0 while its decode part left the link time out of
    a total that held it."""
    r, _ = r1_on_gb200()
    for kind in ("bound", "estimate"):
        parts = r["breakdown"]["tpot"][kind]
        total = sum(parts[k] for k in ("decode_s", "prefill_share_s", "communication_s", "overhead_s"))
        assert total == pytest.approx(r[kind]["tpot_s"], rel=1e-9), kind
    assert r["breakdown"]["tpot"]["bound"]["communication_s"] > 0


def test_a_request_past_the_models_context_window_is_warned_of_once_in_either_mode():
    """max_position_embeddings was read from every config and used nowhere: a 1M-token prompt
    to Llama-3.1-70B (131,072) was answered without a word."""
    from engine.serving import serving_estimate

    model, hw = get_model("llama-3.1-70b"), get_accelerator("h200-sxm")
    base = ServingScenario(concurrency=4, input_tokens=140_000, output_tokens=1000, tensor_parallel=8)
    said = "input + output tokens (141,000) exceed llama-3.1-70b's context window of 131,072 tokens"
    assert sum(said in w for w in serving_estimate(model, hw, base)["warnings"]) == 1
    layout = WorkerLayout(workers=1, tensor_parallel=8)
    answer = disaggregated_estimate(model, hw, DisaggScenario(base, layout, layout, KvLink()))
    assert sum(said in w for w in answer["warnings"]) == 1
    within = replace(base, input_tokens=130_000)
    assert not any("context window" in w for w in serving_estimate(model, hw, within)["warnings"])


@pytest.mark.parametrize("decode_hw", ["l40s", "rtx-4090", "l4"])
def test_a_pcie_cards_bound_never_exceeds_its_estimate(decode_hw):
    """On a PCIe card the scale-out NIC (50 GB/s) outruns the PCIe link the bound's ideal fabric
    put every GPU on: Qwen3-30B-A3B decoding on 32 L40S with MoE TP 32 across 4 attention-DP
    ranks read an 82 ms bound against a 54 ms estimate, its range [82, 82] ms outside it. The
    aggregated instance of the same split was clamped to that bound (330 ms)."""
    model = get_model("qwen3-30b-a3b")
    base = ServingScenario(concurrency=716)
    decode = WorkerLayout(tensor_parallel=8, attention_data_parallel=4, moe_tensor_parallel=32, hardware=decode_hw)
    r = disaggregated_estimate(model, get_accelerator("h200-sxm"), DisaggScenario(base, WorkerLayout(), decode))
    est, bound = r["estimate"], r["bound"]
    assert bound["tpot_s"] < est["tpot_s"] and est["tpot_s_range"][0] <= est["tpot_s"] <= est["tpot_s_range"][1]
    parts = r["breakdown"]["tpot"]
    assert parts["bound"]["communication_s"] <= parts["estimate"]["communication_s"]
