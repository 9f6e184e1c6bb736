"""The Serving page in disaggregated mode (issue 31 §3): the planner's link (`mode=disagg`,
`pworkers` ... `dep`, `pbatch`, `kvlink`) read whole and written back the same; the sides'
boxes refused in their own words; the deployment's numbers are the engine's (the same answer
as POST /api/v1/serving with `disaggregated`), drawn beside the aggregated curve of as many
instances as its GPUs hold, with its shipped measured runs, TTFT's and TPOT's parts, the
limiting side, capacities and the balanced ratio in words (en, zh), and carried by the exports."""

import csv
import io
import json
import re
from dataclasses import replace

import pytest

from app.api.serving_schemas import ServingRequest
from app.dashboard.lib.params import shown, write_link
from app.dashboard.pages.serving.callbacks import figures, outputs
from app.dashboard.pages.serving.controls import disagg_controls
from app.dashboard.pages.serving.deployment import compared, drawn
from app.dashboard.pages.serving.disagg_words import balance_sentence, deployment_unfit_sentence
from app.dashboard.pages.serving.exports import serving_csv, serving_json
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.provenance import provenance
from app.dashboard.pages.serving.state import (
    aggregated_args,
    args_from_controls,
    disagg_of,
    export_name,
    link_of,
    parse_args,
    replicas,
)
from app.dashboard.pages.serving.table import deployment_rows
from app.dashboard.pages.serving.words import w
from app.units import plain
from engine.hardware import get_accelerator
from engine.model_catalog import get_model
from engine.serving.calibration import load_calibration
from engine.serving.disagg import disaggregated_estimate
from engine.serving.validate import answer_mapped
from tests.dashboard.components import walk
from tests.dashboard.pages.serving.test_serving_state import view_of

# DeepSeek-R1 NVFP4 on GB200 under TensorRT-LLM: one DP4/EP4 prefill worker, one DP32/EP4 decode
# worker, 1,024 in and 8,192 out: a deployment with 13 shipped measured runs (their rows leave the
# worker counts empty; InferenceX's published recipe gives them, and the prefill's attention DP)
GB200 = (
    "model=deepseek-ai/DeepSeek-R1&hw=gb200&backend=trtllm&prec=fp4&tp=4&ep=4&isl=1024&osl=8192&conc=256"
    "&mode=disagg&pworkers=1&ptp=1&pdp=4&pmtp=1&pep=4&dworkers=1&dtp=1&ddp=32&dmtp=8&dep=4"
)
# DeepSeek-R1 FP8 on H200 under TensorRT-LLM, TP8/EP8 a side: 37 runs whose counts no one recipe gives
H200_ASSUMED = (
    "model=deepseek-ai/DeepSeek-R1&hw=h200-sxm&backend=trtllm&prec=fp8&tp=8&ep=8&isl=8192&osl=1024&conc=64"
    "&mode=disagg&pworkers=1&ptp=8&pdp=1&pmtp=1&pep=8&dworkers=1&dtp=8&ddp=1&dmtp=1&dep=8"
)
CSS_SAFE = re.compile(r"^[a-z0-9_-]+$")


def args(query: str = GB200, lang: str = "en") -> ServingArgs:
    a, notices = parse_args(view_of(query, lang))
    assert notices == [], notices
    return a


def body(a: ServingArgs) -> dict:
    """The POST /api/v1/serving body of the page's deployment, as the planner writes it."""
    return {
        "model": a.model,
        "hardware": a.hardware[0],
        "backend": a.backend,
        "input_tokens": a.input_tokens,
        "output_tokens": a.output_tokens,
        "weight_dtype": "fp4",
        "compute_dtype": "fp4",
        "kv_dtype": "fp8",
        "memory_utilization": a.memory_utilization,
        "concurrency": a.concurrency,
        "disaggregated": {
            "prefill": {"workers": 1, "tensor_parallel": 1, "attention_data_parallel": 4, "moe_tensor_parallel": 1,
                        "expert_parallel": 4, "batch": 1},
            "decode": {"workers": 1, "tensor_parallel": 1, "attention_data_parallel": 32, "moe_tensor_parallel": 8,
                       "expert_parallel": 4},
            "kv_link": "auto",
        },
    }  # fmt: skip


def test_the_planners_link_reads_whole_and_writes_back_the_same():
    a = args()
    assert a.mode == "disagg" and (a.prefill_workers, a.prefill_tp, a.prefill_adp, a.prefill_ep) == (1, 1, 4, 4)
    assert (a.decode_tp, a.decode_adp, a.decode_moe_tp, a.decode_ep) == (1, 32, 8, 4)
    own = dict(p.split("=") for p in GB200.split("&") if not p.startswith("hw="))  # hw= is the chrome's
    assert dict(write_link(PARAMS, a)) == own
    assert "mode=disagg" in link_of(view_of(GB200), a)["template"]


def test_the_page_builds_the_deployment_the_api_builds_from_the_same_body():
    a = args()
    assert disagg_of(a) == ServingRequest(**body(a)).disagg_scenario()


def test_a_link_with_a_bandwidth_and_a_latency_round_trips_and_auto_is_left_out():
    a = args(GB200 + "&pbatch=4&kvlink=50:20")
    assert (a.prefill_batch, a.kv_link_gb_s, a.kv_link_latency_us) == (4, 50.0, 20.0)
    link = dict(write_link(PARAMS, a))
    assert link["kvlink"] == "50:20" and link["pbatch"] == "4"
    ds = disagg_of(a)
    assert ds.kv_link.bandwidth_bytes_per_s == 50e9 and ds.kv_link.latency_s == pytest.approx(20e-6)
    assert ds.prefill.batch == 4
    assert "kvlink" not in dict(write_link(PARAMS, args(GB200 + "&kvlink=auto")))


def test_an_aggregated_link_carries_none_of_the_deployment():
    a, _ = parse_args(view_of(GB200.replace("&mode=disagg", "")))
    assert a.mode == "agg" and a.decode_adp == 32  # read, kept for the controls, not written
    written = dict(write_link(PARAMS, a))
    assert not {"mode", "pworkers", "ptp", "dtp", "ddp", "dep", "kvlink"} & set(written)


@pytest.mark.parametrize(
    "extra,name",
    [("&pworkers=0", "pworkers"), ("&dworkers=abc", "dworkers"), ("&kvlink=0", "kvlink"), ("&kvlink=50:x", "kvlink"),
     ("&mode=both", "mode"), ("&pbatch=2000", "pbatch")],
)  # fmt: skip
def test_a_bad_side_value_is_named_and_the_default_kept(extra, name):
    a, notices = parse_args(view_of(GB200 + extra))
    assert len(notices) == 1 and f"{name}=" in notices[0], notices
    assert getattr(
        a, {"pworkers": "prefill_workers", "dworkers": "decode_workers", "pbatch": "prefill_batch"}.get(name, "mode")
    )


def test_the_sides_must_hold_their_experts_and_a_deployment_its_gpus():
    # MoE TP x EP must be the worker's GPUs: named, and worked out instead
    a, notices = parse_args(view_of(GB200.replace("dmtp=8", "dmtp=4")))
    assert a.decode_moe_tp is None and any("dmtp=4" in n and "32 GPUs" in n for n in notices)
    assert disagg_of(a).decode.moe_tensor_parallel == 8
    # EP must divide the worker's GPUs
    a, notices = parse_args(view_of(GB200.replace("pep=4", "pep=3").replace("&pmtp=1", "")))
    assert a.prefill_ep == 1 and any("pep=3" in n for n in notices)
    # a deployment past the engine's 1,024 GPUs
    a, notices = parse_args(view_of(GB200.replace("dworkers=1", "dworkers=40")))
    assert (a.prefill_workers, a.decode_workers) == (1, 1) and any("1,284 GPUs" in n for n in notices)
    # a dense model splits no experts
    a = args("model=llama-3.1-70b&tp=4&mode=disagg&pep=4&dtp=8")
    assert disagg_of(a).prefill.expert_parallel == 1 and disagg_of(a).decode.moe_tensor_parallel == 1


def test_the_sides_controls_round_trip_and_a_refused_box_speaks_in_its_own_words():
    a = args(GB200 + "&kvlink=50")
    controls = shown(PARAMS, a) | {"srv-hw.value": list(a.hardware)}
    back, problems, refused = args_from_controls(controls)
    assert problems == [] and refused == [] and back == a
    back, problems, refused = args_from_controls(controls | {"srv-dworkers.value": 0, "srv-kvbw.value": -1})
    assert problems == [] and back.decode_workers == 1 and back.kv_link_gb_s is None
    assert refused == [
        "Decode workers must be 1–1,024 (you typed 0); still showing 1.",
        "KV link, GB/s per GPU must be 0.001–100,000 (you typed -1); still showing auto.",
    ]
    # a refused latency keeps the bandwidth; the boxes speak Chinese on the Chinese page
    back, _, refused = args_from_controls(controls | {"srv-kvlat.value": 0}, "zh")
    assert back.kv_link_gb_s == 50 and back.kv_link_latency_us is None
    assert len(refused) == 1 and "KV 链路延迟" in refused[0] and "不计链路延迟" in refused[0]
    # a latency typed beside an auto link is not used, and says so; one out of range says that
    auto = controls | {"srv-kvbw.value": None}
    back, problems, refused = args_from_controls(auto | {"srv-kvlat.value": 20})
    assert problems == [] and (back.kv_link_gb_s, back.kv_link_latency_us) == (None, None)
    assert refused == [
        "KV link latency (20 µs) is used only with a bandwidth you give; with the link on auto it is left out."
    ]
    _, _, refused = args_from_controls(auto | {"srv-kvlat.value": -5})
    assert refused == ["KV link latency, µs must be 0.001–1,000,000 (you typed -5); still showing no link latency."]
    assert args_from_controls(auto | {"srv-kvlat.value": None})[2] == []
    # an empty MoE TP box is worked out, not refused
    back, problems, refused = args_from_controls(controls | {"srv-dmtp.value": None})
    assert problems == refused == [] and back.decode_moe_tp is None
    # its box has no min, max or step: a browser would send 0 or 2.5 as no value, read as auto
    # without a word; sent, they are refused in the box's own words
    _, _, refused = args_from_controls(controls | {"srv-pmtp.value": 2.5})
    assert refused == ["Prefill MoE TP must be 1–1,024 (you typed 2.5); still showing auto."]
    boxes = {c.id: c for c in walk(disagg_controls(a, "en")) if getattr(c, "id", None) in ("srv-pmtp", "srv-dmtp")}
    assert len(boxes) == 2 and all(b.min is None and b.max is None and b.step == "any" for b in boxes.values())


@pytest.fixture(scope="module")
def gb200():
    a = args()
    return a, compared(a)


def test_the_deployment_is_the_engines_answer_at_the_chosen_concurrency(gb200):
    a, beside = gb200
    (dep,) = beside.deployments
    assert dep.error is None and dep.gpus == 36
    model, hw = get_model(a.model), get_accelerator("gb200")
    api = disaggregated_estimate(model, hw, ServingRequest(**body(a)).disagg_scenario())
    assert dep.chosen == api
    chosen = next(p for p in dep.points if p["concurrency"] == a.concurrency)
    assert chosen["estimate"] == api["estimate"] and chosen["bound"] == api["bound"]


def test_the_shipped_measured_runs_of_the_deployment_are_found_and_none_beats_the_bound(gb200):
    _, beside = gb200
    (dep,) = beside.deployments
    assert len(dep.measured) == 13 and dep.nearby == []
    for m in dep.measured:
        assert m.run.row.disagg.decode.attention_data_parallel == 32 and m.run.row.scenario.output_tokens == 8192
        assert m.bound["tpot_s"] <= m.measured["tpot_s"] and not m.faster_than_bound
        # tokens/s per GPU from the run's own times: C / (TTFT + output x TPOT) requests/s
        sc = m.run.row.scenario
        per_s = sc.concurrency / (m.run.row.ttft_s + sc.output_tokens * m.run.row.tpot_s)
        assert m.measured["output_tokens_per_s_per_gpu"] == pytest.approx(per_s * 8192 / 36)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_whose_worker_counts_come_from_its_recipe_says_so_in_its_hover_and_its_export(gb200, lang):
    """These 13 rows leave prefill_num_workers and decode_num_workers empty; their benchmark's
    published recipe gives one worker a side (engine.serving.recipes), and 7 of those recipes
    decode with MTP (or list it beside plain decoding). The hover and the CSV say which."""
    a, beside = gb200
    (dep,) = beside.deployments
    assert not any(m.run.row.workers_recorded for m in dep.measured)
    assert {m.run.row.workers_from for m in dep.measured} == {"recipe"}
    words = {"en": "published recipe (InferenceX)", "zh": "公开的配方（InferenceX）"}[lang]
    drafts, unknown = {"en": ("multi-token prediction of", "names no draft count"),
                       "zh": ("个草稿 token：按此估计", "未给出草稿 token 数")}[lang]  # fmt: skip
    (trace,) = [t for t in figures(a, lang, "light", False)[0]["data"] if t["uid"].endswith("disagg-measured")]
    bare = _unwrapped
    texts = [bare(text) for text in trace["text"]]
    assert len(texts) == 13 and all(bare(words) in text for text in texts)
    named = [m.run.row.mtp_draft_tokens is not None for m in dep.measured]
    assert [bare(drafts) in text for text in texts] == named
    mtp_runs = sum(m.run.row.may_run_mtp for m in dep.measured)
    assert sum(bare(unknown) in text for text in texts) + sum(named) == 7 == mtp_runs
    rows = list(csv.DictReader(line for line in serving_csv((), {}, beside).splitlines() if not line.startswith("#")))
    measured = [r for r in rows if r["series"] == "measured" and r["mode"] == "disaggregated"]
    assert len(measured) == 13 and {r["workers_recorded"] for r in measured} == {"False"}
    assert {r["workers_from"] for r in measured} == {"recipe"}


def _unwrapped(text: str) -> str:
    """A hover's words without its line breaks and spaces (a line is cut at a space, or anywhere
    in Chinese): the same words, wherever the lines were cut."""
    return re.sub(r"<br>|\s", "", text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_without_its_worker_counts_says_so_in_its_hover(lang):
    """DeepSeek-R1 FP8 on H200 under TensorRT-LLM, TP8/EP8 a side at 8,192 in and 1,024 out: 37
    rows leave their worker counts empty and no one recipe settles them, so they are read as one
    worker a side, the deployment on screen, and the hover says so, naming the published recipes
    each may have been (the ones `validate serving` answers it for): 8 of them sit among recipes of
    1P1D, 2P1D and 3P1D with two MTP drafts, and 5P3D; 3 between 3P1D with one draft and without."""
    a = args(H200_ASSUMED)
    (dep,) = compared(a).deployments
    assert len(dep.measured) == 37 and {m.run.row.workers_from for m in dep.measured} == {"assumed"}
    words = {"en": "worker counts not recorded", "zh": "未记录 worker 数"}[lang]
    (trace,) = [t for t in figures(a, lang, "light", False)[0]["data"] if t["uid"].endswith("disagg-measured")]
    assert len(trace["text"]) == 37 and all(words in text for text in trace["text"])
    may_have_been = {"en": "published recipes it may have been: ", "zh": "公开的以下配方之一："}[lang]
    texts = [_unwrapped(text) for text in trace["text"]]  # a hover's lines are wrapped at spaces
    assert all(_unwrapped(may_have_been) in text for text in texts)
    assert sum(_unwrapped(f"{may_have_been}1P1D, 2P1D MTP 2, 3P1D MTP 2, 5P3D") in text for text in texts) == 8
    assert sum(_unwrapped(f"{may_have_been}3P1D MTP 1, 3P1D") in text for text in texts) == 3
    rows = list(csv.DictReader(line for line in serving_csv((), {}, compared(a)).splitlines() if line[0] != "#"))
    named = [r["candidate_recipes"] for r in rows if r["series"] == "measured" and r["mode"] == "disaggregated"]
    assert len(named) == 37 and named.count("1P1D; 2P1D MTP 2; 3P1D MTP 2; 5P3D") == 8


@pytest.mark.parametrize("query", [H200_ASSUMED, GB200], ids=["candidates", "mtp"])
def test_a_measured_runs_error_is_the_one_validate_serving_gives(query):
    """The page answers each shipped run as `llm-roofline validate serving` does
    (engine.serving.validate.answer_mapped): a run of an MTP recipe with its drafts, a run that
    may have been several recipes spanned over them, and its hover's error is against that
    answer. The H200 runs with candidate recipes span them; the GB200 runs whose recipe leaves
    the decoding unknown span its decodings; the rest are one deployment each."""
    a = args(query)
    (dep,) = compared(a).deployments
    cal = load_calibration()
    for m in dep.measured:
        want = answer_mapped(m.run.row, cal)["estimate"]
        assert m.estimate["tpot_s"] == want["tpot_s"] and m.estimate["ttft_s"] == want["ttft_s"]
        assert m.tpot_error == pytest.approx(want["tpot_s"] / m.run.row.tpot_s - 1.0, rel=1e-12)
    spanned = [m.estimate.get("deployments", 1) for m in dep.measured]
    unsettled = [not m.run.row.tpot_describable and bool(m.run.row.candidates) for m in dep.measured]
    assert [n > 1 for n in spanned] == unsettled and any(unsettled)
    (trace,) = [t for t in figures(a, "en", "light", False)[0]["data"] if t["uid"].endswith("disagg-measured")]
    for text, n in zip(trace["text"], spanned, strict=True):
        middle = f"against the middle of the {n} deployments it may have been"
        assert (_unwrapped(middle) in _unwrapped(text)) == (n > 1)


@pytest.mark.parametrize(
    ("query", "key"), [(GB200, "srv_nearest_mtp"), (H200_ASSUMED, "srv_nearest_candidates")], ids=["mtp", "assumed"]
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_nearest_runs_sentence_says_what_its_deployment_leaves_unsaid(query, key, lang):
    """Beside the nearest measured run's times: at the GB200 example's concurrency 256 the nearest
    run (128) is a recipe's of 3 MTP draft tokens, answered with them (the page's deployment
    decodes a token a step, and answered so the run was 2.1x faster than the estimate); the H200
    run's counts are not recorded, and it may have been 2 published deployments, whose middle is
    its estimate. Without the caveat the comparison reads as the estimate's miss."""
    a = args(query, lang)
    words = " ".join(p.children for p in outputs(a, [], lang, "light", False)[4] if isinstance(p.children, str))
    assert w(key, lang, n=2) in words
    others = {"srv_nearest_mtp", "srv_nearest_candidates", "srv_nearest_assumed"} - {key}
    assert not any(w(other, lang, n=2) in words for other in others)


def test_without_a_matching_run_the_nearest_deployments_are_named_by_their_sides():
    a = args(GB200.replace("dworkers=1", "dworkers=2"))
    (dep,) = compared(a).deployments
    assert dep.measured == [] and dep.nearby
    assert ("decode", (1, 1, 32, 4, 1)) in dep.nearby[0].differences
    words = " ".join(p.children for p in outputs(a, [], "en", "light", False)[4] if isinstance(p.children, str))
    assert "No shipped measured disaggregated run matches this deployment" in words
    assert "decode 1 × TP1 × DP32 · EP4" in words
    # a group's differences are joined in the page's language (the default page's nearest groups
    # differ on both sides: "prefill 侧：… , decode 侧：…" read with an English comma)
    a = args("tab=serving&model=deepseek-ai/DeepSeek-R1&hw=gb200&mode=disagg")
    zh = " ".join(p.children for p in outputs(a, [], "zh", "light", False)[4] if isinstance(p.children, str))
    assert "、decode 侧" in zh and ", decode 侧" not in zh
    assert "纵向扩展域，以每 GPU" in zh  # the link's words end in Chinese: no stray space after them


def test_a_group_of_runs_at_one_concurrency_says_it_once():
    # docs/dashboard.md's example: the aggregated sentence's nearest B200 group is one run at 8
    a = args(GB200)
    for lang in ("en", "zh"):
        words = " ".join(p.children for p in outputs(a, [], lang, "light", False)[4] if isinstance(p.children, str))
        assert not re.search(r"(?:concurrency|并发) ([0-9,]+)–\1\b", words)
        assert re.search(r"(?:1 run, concurrency|1 次实测，并发) 8[)）]", words)


def test_the_aggregated_curve_beside_it_is_as_many_instances_as_its_gpus_hold(gb200):
    a, beside = gb200
    assert (beside.gpus, beside.replicas, beside.aggregated_gpus) == (36, 9, 36) and replicas(a) == 9
    assert beside.instance_concurrency == round(256 / 9) == aggregated_args(a).concurrency
    # the aggregated instance is computed without the deployment's fields: one curve for all
    assert aggregated_args(a) == aggregated_args(replace(a, prefill_batch=2, decode_moe_tp=None, kv_link_gb_s=50.0))
    fewer = compared(args(GB200.replace("tp=4&ep=4", "tp=8&ep=8")))
    assert (fewer.replicas, fewer.aggregated_gpus) == (4, 32)


def test_the_throughput_chart_draws_the_deployment_beside_the_aggregated_curve(gb200):
    a, _ = gb200
    top, bottom, _ = figures(a, "en", "light", False)
    by_uid = {t["uid"]: t for t in top["data"]}
    for kind in ("bound", "estimate", "band", "chosen"):
        assert f"serving--gb200--{kind}" in by_uid and f"serving--gb200--disagg-{kind}" in by_uid
    assert all(CSS_SAFE.match(u) for u in by_uid)
    measured = by_uid["serving--gb200--disagg-measured"]
    assert len(measured["x"]) == 13 and "disaggregated measured" in measured["name"]
    # a card's name once, as its legend group's title; each entry says what it is
    assert by_uid["serving--gb200--bound"]["name"] == "aggregated bound"
    assert by_uid["serving--gb200--band"]["legendgrouptitle"]["text"] == "GB200 (per Blackwell GPU, NVL72)"
    # the aggregated points stand for 9 instances: their concurrency is the deployment's
    assert by_uid["serving--gb200--bound"]["customdata"][0] == 9
    # the deployment's bound is above its estimate and its measured runs in tokens/s per user
    bound = by_uid["serving--gb200--disagg-bound"]
    assert max(bound["x"]) >= max(measured["x"])
    est = by_uid["serving--gb200--disagg-estimate"]
    for xb, xe in zip(bound["x"], est["x"], strict=True):
        assert xb >= xe
    latency = {t["uid"] for t in bottom["data"]}
    for uid in ("disagg-tpot-bound", "disagg-ttft-estimate", "disagg-tpot-measured", "disagg-running-batch"):
        assert f"latency--gb200--{uid}" in latency


def test_the_throughput_curve_stops_where_the_deployment_saturates(gb200):
    (dep,) = gb200[1].deployments
    shown_points = drawn(dep)
    assert shown_points[-1]["saturated"] and not any(p["saturated"] for p in shown_points[:-1])
    assert len(shown_points) < len(dep.points)


def test_the_table_gives_ttft_and_tpot_parts_and_says_what_each_column_is(gb200):
    a, beside = gb200
    (dep,) = beside.deployments
    spec = deployment_rows(dep, a.concurrency, None)
    assert [k for k, _ in spec["columns"]] == ["bound", "estimate", "measured"]
    rows = dict(spec["rows"])
    assert list(rows)[:10] == ["ttft", "ttft_prefill", "ttft_queue", "ttft_first_wave", "ttft_transfer", "ttft_fixed",
                               "tpot", "tpot_decode", "tpot_communication", "tpot_overhead"]  # fmt: skip
    ttft = dep.chosen["breakdown"]["ttft"]["estimate"]
    assert rows["ttft_transfer"][1] == plain(ttft["kv_transfer_s"] * 1e3) and rows["ttft_prefill"][2] == "—"
    parts = ("prefill_s", "prefill_queue_s", "first_wave_s", "kv_transfer_s", "fixed_s")
    assert sum(ttft[k] for k in parts) == pytest.approx(dep.chosen["estimate"]["ttft_s"])
    tables = outputs(a, [], "en", "light", False)[3]
    text = str(tables)
    # each column says bound, estimate or measured; each caption says which deployment
    assert "disaggregated 1P1D on 36 GPUs" in text and "measured (concurrency 128, TensorRT-LLM)" in text
    assert "aggregated: 9 instances at concurrency 28 each" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_insight_says_the_limiting_side_the_capacities_and_the_balance(gb200, lang):
    a, beside = gb200
    (dep,) = beside.deployments
    d = dep.chosen["disaggregated"]
    text = balance_sentence(dep, lang)
    for value in (d["prefill_capacity_rps"], d["decode_capacity_at_memory_cap_rps"], d["balanced_ratio"]):
        assert plain(value) in text
    assert f"{d['prefill_idle'] * 100:.0f}%" in text
    side = {"en": f"limited by its {d['limited_by']} side", "zh": f"受 {d['limited_by']} 侧限制"}[lang]
    assert side in text and "1P1D" in text
    words = str(outputs(a, [], lang, "light", False)[4])
    assert {"en": "KV cache is 0.036 GB", "zh": "KV cache 为 0.036 GB"}[lang] in words


def test_a_side_that_does_not_fit_is_named():
    a = args(GB200.replace("ddp=32", "ddp=1").replace("dmtp=8", "dmtp=1").replace("dep=4", "dep=1"))
    (dep,) = compared(a).deployments
    assert dep.error.code == "serving_no_fit" and dep.side == "decode"
    assert "a decode worker's" in deployment_unfit_sentence(dep, "en")
    top = figures(a, "en", "light", False)[0]
    assert any("a decode worker's" in n["text"] for n in top["layout"]["annotations"])


def test_exports_carry_the_deployment_and_say_which_mode_each_row_is(gb200):
    a, beside = gb200
    prov = provenance(a, "en")
    assert prov["deployment"].startswith("Disaggregated 1P1D on 36 GPUs: prefill 1 × TP1 × DP4 · EP4")
    from app.dashboard.pages.serving.compute import compute

    accs = compute(aggregated_args(a))
    rows = list(
        csv.DictReader(line for line in io.StringIO(serving_csv(accs, prov, beside)) if not line.startswith("#"))
    )
    disagg = [r for r in rows if r["mode"] == "disaggregated"]
    assert {r["series"] for r in disagg} == {"bound", "estimate", "measured"}
    assert sum(r["series"] == "measured" for r in disagg) == 13
    assert {r["deployment"] for r in disagg} == {"1P(TP1 × DP4 · EP4)+1D(TP1 × DP32 · EP4)"}
    assert all(r["ttft_kv_transfer_ms"] for r in disagg if r["series"] != "measured")
    assert {r["instances"] for r in rows if r["mode"] == "aggregated"} == {"9"}
    points = json.loads(serving_json(accs, prov, beside))["points"]
    assert len(points) == len(rows)
    assert export_name(a) == "serving-deepseek-r1-gb200-disagg-1p1d-c256"


@pytest.mark.parametrize(
    "extra",
    [
        "&ptp=72&pdp=1&pmtp=18",  # a prefill worker as wide as the NVL72 rack
        "&hw=h200-sxm&dtp=16&ddp=1&dmtp=4",  # past an HGX board's 8-GPU NVLink domain
        "&pbatch=1024",  # prompts that do not fit a prefill worker
        "&kvlink=0.001:1000000",  # a 1 MB/s link and a second per transfer
        "&kvlink=100000",
        "&pworkers=512&dworkers=15",  # 1,016 GPUs
        "&conc=65536",
    ],
)
def test_a_hostile_deployment_answers_or_says_why_and_the_page_draws(extra):
    query = GB200.replace("&hw=gb200", "") + extra if "hw=" in extra else GB200 + extra
    a, _ = parse_args(view_of(query))
    for dep in compared(a).deployments:
        assert (dep.error is None) == (dep.chosen is not None)
        assert dep.error is None or deployment_unfit_sentence(dep, "zh")
    error, top, bottom, tables, words, caption, _ = outputs(a, [], "en", "light", False)
    assert top["data"] or top["layout"]["annotations"]
    assert tables and words


def test_one_aggregated_instance_beside_the_deployment_is_one_in_the_words():
    """'Compared with 1 aggregated instances ...' on the default disaggregated page."""
    from app.dashboard.pages.serving.disagg_words import compared_text

    a = args("mode=disagg&tp=8")
    beside = compared(a)
    assert beside.replicas == 1
    text = compared_text(beside, a, "en")
    assert text.startswith("Compared with one aggregated instance of ") and "instances" not in text
    assert compared_text(compared(args()), args(), "en").startswith("Compared with 9 aggregated instances of ")


@pytest.mark.parametrize("extra,named", [("&dworkers=1024", "dworkers=1024"), ("&pworkers=1024", "pworkers=1024")])
def test_a_deployment_past_the_gpu_limit_names_the_side_that_took_it_there(extra, named):
    """dworkers=1024 was refused as 'pworkers=1'."""
    a, notices = parse_args(view_of(GB200.replace("&pworkers=1", "").replace("&dworkers=1", "") + extra))
    (notice,) = notices
    assert named in notice and "GPUs, more than the 1,024 one deployment may have" in notice
    assert (a.prefill_workers, a.decode_workers) == (1, 1)


def test_no_disaggregated_run_of_a_model_is_not_no_run_at_all():
    """The default disaggregated page said 'The shipped data has no run of this model' above the
    nearest measured (aggregated) run of it."""
    words = " ".join(
        p.children for p in outputs(args("mode=disagg"), [], "en", "light", False)[4] if isinstance(p.children, str)
    )
    assert "no disaggregated run of this model" in words and "has no run of this model" not in words
