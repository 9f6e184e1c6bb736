"""What the Planner page says is the engine's answer: a candidate opened on the serving page
(its link read by the serving page itself) gives the same estimate; the verdict and the reason
format the answer's fields in both languages; the CSV carries every series and its provenance."""

from dataclasses import replace

import pytest

from app.dashboard.pages.plan.compute import answered
from app.dashboard.pages.plan.exports import plan_csv
from app.dashboard.pages.plan.measured import measured_runs
from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.plan.provenance import accelerator_names, provenance
from app.dashboard.pages.plan.serving_link import serving_link
from app.dashboard.pages.plan.table import commands_text
from app.dashboard.pages.plan.words import deployment as deployment_text
from app.dashboard.pages.plan.words import missing_text, verdict
from app.dashboard.pages.roofline.state import view_from_search
from app.dashboard.pages.serving.compute import compute
from app.dashboard.pages.serving.deployment import deployment
from app.dashboard.pages.serving.state import parse_args as serving_args
from app.units import plain

SMALL = PlanArgs(model="llama-3.1-8b", hardware=("h100-sxm5", "h200-sxm"), gpus=2, precisions=("fp8",), tpot_ms=20.0)


@pytest.mark.parametrize("backend", ["trtllm", "vllm", "sglang"])
def test_a_candidate_opened_on_the_serving_page_has_the_same_estimate(backend):
    """SGLang's default memory fraction depends on the card and layout: the link writes it."""
    answer = answered(replace(SMALL, backends=(backend,), modes=("aggregated",))).answer
    for c in answer["top"][:3]:
        link = serving_link(c, None, "en", "light")
        a, notices = serving_args(view_from_search(link))
        assert not notices, notices
        served = compute(a)[0].chosen["estimate"]
        for key in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu"):
            assert served[key] == pytest.approx(c["estimate"][key], rel=1e-12), (key, link)
        assert served["tpot_s_range"] == pytest.approx(c["estimate"]["tpot_s_range"], rel=1e-12)


def test_a_disaggregated_candidate_opened_on_the_serving_page_has_the_same_estimate():
    """The serving page's disaggregated mode reads each side, its workers and the concurrency
    from the link, and its deployment answers what the planner said."""
    answer = answered(replace(SMALL, modes=("disaggregated",))).answer
    for c in answer["top"][:3]:
        link = serving_link(c, 3.5, "zh", "dark")
        a, notices = serving_args(view_from_search(link))
        assert not notices, notices
        conc = c["serving_request"]["concurrency"]
        for part in ("mode=disagg", f"conc={conc}&", "price=3.5", "lang=zh&theme=dark"):
            assert part in link, (part, link)
        disagg = c["serving_request"]["disaggregated"]
        for side in ("prefill", "decode"):
            assert getattr(a, f"{side}_workers") == disagg[side]["workers"]
            assert getattr(a, f"{side}_tp") == disagg[side]["tensor_parallel"]
        served = deployment(a, a.hardware[0]).chosen["estimate"]
        for key in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu"):
            assert served[key] == pytest.approx(c["estimate"][key], rel=1e-12), (key, link)


def test_a_replicated_disaggregated_unit_is_shown_as_replicas_and_opened_as_one_unit():
    """On 16 H100 the planner serves Llama-3.1-8B as two 8-GPU xPyD units (one per HGX board, the
    KV cache over NVLink): the page says so, launches a router per unit, and the serving page
    opens one unit, whose tokens/s/GPU are the deployment's."""
    args = replace(SMALL, hardware=("h100-sxm5",), gpus=16, modes=("disaggregated",), tpot_ms=50.0)
    c = next(c for c in answered(args).answer["top"] if c["replicas"] > 1)
    units = c["replicas"]
    assert deployment_text(c, "en") == f"{units} × ({c['layout_words']})"
    assert f"# {units} × router, each joining one unit's prefill and decode workers" in commands_text(c, "en")
    assert f"# {units} × 路由" in commands_text(c, "zh")
    a, _ = serving_args(view_from_search(serving_link(c, None, "en", "light")))
    assert a.concurrency * units == c["concurrency"]
    served = deployment(a, a.hardware[0]).chosen["estimate"]
    rate = "output_tokens_per_s_per_gpu"
    assert served[rate] == pytest.approx(c["estimate"][rate], rel=1e-12)
    # the row's link says it opens one of them, and which (the serving page showed another
    # concurrency and GPU count than the row, unexplained)
    from app.dashboard.pages.plan.table import row

    words = row(c, {"h100-sxm5": "H100"}, {}, "en", "light")
    assert words["open"] == f"Open one of the {units} on the serving page"
    assert words["open_title"].startswith(f"The serving page answers one of the {units}: {c['gpus'] // units} GPUs at ")
    assert f"concurrency {a.concurrency:,};" in words["open_title"]


def test_the_verdict_formats_the_engine_s_fields():
    a = SMALL
    answer = answered(a).answer
    names = accelerator_names(a)
    best = answer["best"]
    en = verdict(answer, names, a.modes, "en")
    est = best["estimate"]
    assert en.startswith(f"On 2 × {names[best['hardware']]} with TPOT ≤ 20 ms and TTFT ≤ 2,000 ms met at the estimate")
    for number in (est["output_tokens_per_s_per_gpu"], *est["output_tokens_per_s_per_gpu_range"]):
        assert plain(number) in en
    assert f"concurrency {best['concurrency']:,}" in en
    ratio = answer["verdict"]["ratio_other_mode"]
    assert (f"reaches {ratio:.2f}× of that" in en) if ratio is not None else ("meets the target" in en)
    if ratio is not None:  # the page says a tie exactly when the engine finds one
        assert ("the two modes tie" in en) == answer["verdict"]["other_mode_within_range"]
    zh = verdict(answer, names, a.modes, "zh")
    assert plain(est["output_tokens_per_s_per_gpu"]) in zh and "最佳" in zh


def test_with_nothing_meeting_the_target_the_verdict_says_what_would():
    a = replace(SMALL, tpot_ms=1.0)
    answer = answered(a).answer
    near = answer["reason"]["nearest"]
    said = verdict(answer, accelerator_names(a), a.modes, "en")
    assert said.startswith("Nothing on 2 × H100 SXM5")
    assert f"a TPOT target of {plain(near['tpot_s_at_asked_ttft'] * 1e3)} ms or more at this TTFT" in said
    assert "需要" in verdict(answer, accelerator_names(a), a.modes, "zh")


def test_a_mode_with_no_deployment_is_said():
    a = PlanArgs(model="deepseek-r1", hardware=("h200-sxm",), gpus=8, precisions=("fp8",), backends=("sglang",))
    planned = answered(a)
    assert not planned.answer["frontier"]["disaggregated"] and planned.answer["frontier"]["aggregated"]
    assert missing_text(planned.search.cols, a, accelerator_names(a), "en") == (
        " No disaggregated deployment fits in memory on 8 × H200 SXM 141GB."
    )


def test_the_csv_holds_every_series_and_says_where_it_comes_from():
    a = replace(SMALL, hardware=("h200-sxm",), model="meta-llama/Llama-3.1-70B", gpus=4)
    answer = answered(a).answer
    runs = {h: measured_runs(a, h) for h in a.hardware}
    assert runs["h200-sxm"]  # the shipped runs of Llama-3.1-70B FP8 at 1,024 in and out
    text = plan_csv(answer, runs, provenance(a, "en"), "the verdict")
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines[:5]] == [
        "# scenario", "# targets", "# calibration", "# measured_source", "# verdict",
    ]  # fmt: skip
    rows = lines[6:]
    assert sum(r.startswith("top,estimate,1,") for r in rows) == 1
    assert sum(r.startswith("measured,measured,") for r in rows) == sum(len(v) for v in runs.values())
    assert all("aiconfigurator" in r for r in rows if r.startswith("measured,"))
    frontier = [r for r in rows if r.startswith("frontier_")]
    assert len(frontier) == sum(len(v) for v in answer["frontier"].values())


def test_a_measured_run_sits_where_its_own_times_put_it_on_the_estimate_s_axes():
    # the closed loop of its measured times, as the estimate counts its own: C clients, each
    # request TTFT + (output - 1) x TPOT, C x output tokens per that, over the run's GPUs
    a = replace(SMALL, hardware=("h200-sxm",), model="meta-llama/Llama-3.1-70B", gpus=4)
    runs = measured_runs(a, "h200-sxm")
    assert runs
    for run in runs:
        sc, row = run.row.scenario, run.row
        by_hand = sc.concurrency * sc.output_tokens / (row.ttft_s + (sc.output_tokens - 1) * row.tpot_s) / run.gpus
        assert run.tokens_per_s_per_gpu == pytest.approx(by_hand, rel=1e-12)
        assert run.tokens_per_s_per_gpu < sc.concurrency / row.tpot_s / run.gpus  # the prompt's wait counts


def test_a_disaggregated_run_is_drawn_only_with_its_gpu_count_known():
    """Most shipped DeepSeek-R1 GB200 runs record no worker counts. Those whose published recipe
    gives them are drawn on the recipe's deployment; those no recipe settles are not: drawn as
    one worker a side, "1P (TP 1) + 1D (TP 1) on 2 GPUs" at 15,000 clients read 20x the best
    estimate per GPU. Nor are runs whose recipe decodes with MTP, which the planner does not
    model. The DeepSeek-V3 ones record theirs, and are drawn."""

    def disaggregated(model):
        a = replace(SMALL, hardware=("gb200",), model=model, gpus=8, precisions=())
        return [run for run in measured_runs(a, "gb200") if run.mode == "disaggregated"]

    r1 = disaggregated("deepseek-ai/DeepSeek-R1")
    assert r1 and {run.row.workers_from for run in r1} == {"recipe"}
    assert all(run.row.tpot_describable for run in r1)
    assert all(run.gpus == run.row.disagg.gpus >= 5 for run in r1)  # the recipe's workers, not 1P1D
    v3 = disaggregated("deepseek-ai/DeepSeek-V3")
    assert v3 and all(run.row.workers_recorded for run in v3)
    assert all(run.gpus >= 8 for run in v3)  # no deployment of the model fits fewer GB200s


def test_a_search_too_large_says_why_once_in_the_verdict_s_line():
    """It read 'hardware: the search would score 1020 layouts (allowed: at most 800: ...)' under an
    empty verdict, which the table points to."""
    from app.dashboard.pages.plan.view import shown

    a = PlanArgs(model="deepseek-ai/DeepSeek-R1", hardware=("h200-sxm", "b200", "gb200"), gpus=1024)
    out = shown(a, [], [], "en", "light", False)
    assert out["view"]["verdict"].startswith("The search would score 1,020 layouts, more than the 800 one search may")
    assert out["error"] == [] and out["view"]["rows"] == []


def test_a_candidate_s_hover_gives_a_cost_only_where_a_price_was_given():
    """It read '$—/Mtok' without a price."""
    from app.dashboard.pages.plan.figures import candidate_hover
    from app.dashboard.pages.plan.state import plan_request
    from engine.hardware import get_accelerator as accelerator
    from engine.model_catalog import get_model as model_of
    from engine.planner import plan

    for prices, cost in (((), False), ((("h100-sxm5", 2.0),), True)):
        a = replace(SMALL, hardware=("h100-sxm5",), prices=prices)
        best = plan(model_of("llama-3.1-8b"), [accelerator("h100-sxm5")], plan_request(a))["best"]
        hover = candidate_hover(best, "H100", "en").replace("<br>", " ")  # its words, wrapped to a phone's chart
        assert ("/Mtok" in hover) == cost and "$—" not in hover
        assert "memory headroom " in hover and "left free at this concurrency" in hover
        # an aggregated instance's headroom is of its usable memory, never "the decode KV cache"
        assert best["mode"] == "aggregated" and "the usable memory left free" in hover and "decode" not in hover
    disagg = {**best, "mode": "disaggregated"}
    assert "the decode workers' KV cache left free" in candidate_hover(disagg, "H100", "en").replace("<br>", " ")


def test_the_comparison_says_estimate_and_says_so_when_nothing_meets_the_target():
    from app.dashboard.pages.plan.figures import compare_figure
    from app.dashboard.pages.plan.state import plan_request
    from engine.hardware import get_accelerator as accelerator
    from engine.model_catalog import get_model as model_of
    from engine.planner import plan

    names = {"h100-sxm5": "H100", "h200-sxm": "H200"}
    for tpot_ms, bars in ((20.0, True), (1.0, False)):
        a = replace(SMALL, tpot_ms=tpot_ms)
        answer = plan(model_of("llama-3.1-8b"), [accelerator(h) for h in a.hardware], plan_request(a))
        fig = compare_figure(answer, names, "en", "light", False)
        texts = [n["text"] for n in fig["layout"]["annotations"]]
        assert texts[0] == "best output tok/s per GPU (p10–p90)"  # under "Accelerators at the same target: estimates"
        assert ("nothing meets the target" in texts) != bars
        assert fig["layout"]["xaxis"].get("showticklabels", True) == bars


def test_the_legend_names_each_card_once_and_says_what_a_hollow_marker_is():
    """'GB200 (per Blackwell GPU, NVL72) · aggregated (estima' ran past a phone's chart; the hollow
    markers (runs on more GPUs than the budget) were explained in their hover alone."""
    from app.dashboard.pages.plan.view import shown

    a = PlanArgs(model="deepseek-ai/DeepSeek-V3", hardware=("h200-sxm", "gb200"), gpus=8)
    fig = shown(a, [], [], "en", "light", False)["figure"]
    entries = [t for t in fig["data"] if t.get("legendgroup") in a.hardware]
    titles = [t["legendgrouptitle"]["text"] for t in entries if "legendgrouptitle" in t]
    assert titles == ["H200 SXM 141GB", "GB200 (per Blackwell GPU, NVL72)"]
    assert {t["name"] for t in entries} >= {"aggregated (estimate)", "measured (hollow: on more than 8 GPUs)"}
    assert fig["layout"]["legend"]["groupclick"] == "toggleitem"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_one_output_token_the_verdict_says_the_tpot_target_is_not_applied(lang):
    """With one output token an aggregated candidate's TPOT is its step, seconds long: held to a
    20 ms target, every aggregated candidate failed it, for a token nobody waits for."""
    a = replace(SMALL, output_tokens=1)
    answer = answered(a).answer
    assert answer["tpot_target_applied"] is False and answer["best"]["mode"] == "aggregated"
    text = verdict(answer, accelerator_names(a), a.modes, lang)
    assert text.endswith({"en": "the TPOT target is not applied.", "zh": "不应用 TPOT 目标。"}[lang]), text
    two = answered(replace(SMALL, output_tokens=2)).answer
    assert two["tpot_target_applied"] is True and "TPOT target is not applied" not in two["verdict"]["text"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_gpu_the_page_says_nothing_of_a_disaggregated_mode_it_could_not_search(lang):
    a = replace(SMALL, gpus=1, hardware=("h100-sxm5",))
    answer = answered(a).answer
    text = verdict(answer, accelerator_names(a), a.modes, lang)
    assert answer["best"] and {"en": "disaggregated", "zh": "分离式"}[lang] not in text, text


def test_the_counts_line_carries_what_every_candidate_assumes():
    a = replace(SMALL, input_tokens=200_000)  # Llama-3.1-8B's window is 131,072 tokens
    from app.dashboard.pages.plan.view import shown

    counts = shown(a, [], [], "en", "light", False)["view"]["counts"]
    total = f"{a.input_tokens + a.output_tokens:,}"
    assert f"⚠ input + output tokens ({total}) exceed llama-3.1-8b's context window of 131,072 tokens" in counts


@pytest.mark.parametrize(
    "lang,said", [("en", "nor would one at any budget or precision"), ("zh", "规划器搜索的任何预算或精度也放不下")]
)
def test_nothing_fits_the_page_names_only_what_would(lang, said):
    """It said "it would take more GPUs" whatever would, here nothing the planner searches."""
    a = replace(SMALL, model="llama-3.1-405b", hardware=("l4",), gpus=1024, precisions=())
    answer = answered(a).answer
    assert answer["best"] is None and said in verdict(answer, accelerator_names(a), a.modes, lang)


def test_with_one_output_token_the_target_region_holds_the_best():
    """The region right of 1 / TPOT target was drawn though no TPOT target applied: the star sat
    outside "meets the TPOT target"."""
    from app.dashboard.pages.plan.figures import region_trace

    answer = answered(replace(SMALL, output_tokens=1)).answer
    x0 = region_trace(answer, "light", "en")["x"][0]
    assert x0 <= answer["best"]["estimate"]["tokens_per_s_per_user"] < 1 / answer["targets"]["tpot_s"]
    applied = answered(SMALL).answer
    assert region_trace(applied, "light", "en")["x"][0] == 1 / applied["targets"]["tpot_s"]
