"""The benchmark's published recipes supply the worker counts a measured disaggregated row leaves
empty (engine.serving.recipes; published/serving/README.md says where the table comes from)."""

import csv
import math
from collections import Counter

import pytest

from engine.hardware import get_accelerator
from engine.serving.calibration import Calibration, load_calibration
from engine.serving.disagg import disaggregated_estimate
from engine.serving.mapping import DISAGG_CSV, read_rows, resolve_model, row_scenario
from engine.serving.recipes import RECIPES_CSV, _index, named_draft_lengths, published_candidates, published_recipe
from engine.serving.validate import answer_row, measured_deployment, measured_deployments, spanning, validate_rows


def _rows():
    """Every shipped disaggregated row, mapped (each maps; 20 fail later, on memory)."""
    return [(raw, row_scenario(raw)) for raw in read_rows(DISAGG_CSV)]


def test_every_recorded_row_a_recipe_matches_has_the_recipes_counts():
    """The check that the matching reads the right recipe: on the runs that do record their
    worker counts, a matching recipe must name the same ones."""
    agree = disagree = 0
    for raw, m in _rows():
        if not m.workers_recorded:
            continue
        ds = m.disagg
        found = published_recipe(
            raw["system"],
            raw["precision"],
            raw["backend"],
            (ds.base.input_tokens, ds.base.output_tokens),
            ds.base.concurrency,
            (ds.prefill.gpus, ds.decode.gpus),
            dict(p.strip().split("=", 1) for p in raw["silicon_data_source"].split(";") if "=" in p).get("image", ""),
        )
        if found is None:
            continue
        same = (found.prefill_workers, found.decode_workers) == (ds.prefill.workers, ds.decode.workers)
        agree, disagree = agree + same, disagree + (not same)
    assert disagree == 0
    assert agree == 59  # of the 92 recorded rows


def test_a_row_without_counts_takes_its_recipes():
    """GB200, fp4, TensorRT-LLM, 1024/8192 at concurrency 2048, prefill 4 GPUs and decode 32 a
    worker: nvidia-master.yaml (0004cf5f, dsr1-fp4-gb200-dynamo-trt) lists that deployment
    once, one prefill and one decode worker, no MTP."""
    raw, m = next(
        (raw, m)
        for raw, m in _rows()
        if raw["id"].startswith("2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c2048")
    )
    assert not m.workers_recorded and m.workers_from == "recipe"
    assert (m.disagg.prefill.workers, m.disagg.decode.workers) == (1, 1)
    assert (m.disagg.prefill.gpus, m.disagg.decode.gpus) == (4, 32)
    assert m.recipe.speculative == "none" and m.tpot_describable
    assert m.recipe.source == "SemiAnalysisAI/InferenceX@0004cf5f:dsr1-fp4-gb200-dynamo-trt"


def test_a_recipe_with_attention_dp_reads_the_recorded_tp_as_its_world_size():
    """B300, fp4, 8192/1024 at concurrency 1093: the row records decode tp 8, MoE TP 4 x EP 2 and
    no attention DP; its recipe (ctx6_gen1_dep8_batch128) runs decode with dp-attn on over 8
    GPUs. Read literally, attention TP 8 holds the whole MLA cache on each GPU, and the TPOT
    bound (39.8 ms) sat above the measured 29.8 ms."""
    raw, m = next((raw, m) for raw, m in _rows() if "b300_sxm_trtllm_fp4_disagg_8192x1024_c1093" in raw["id"])
    d = m.disagg.decode
    assert (m.disagg.prefill.workers, d.workers) == (6, 1)
    assert (d.tensor_parallel, d.attention_data_parallel, d.moe_tensor_parallel, d.expert_parallel) == (1, 8, 4, 2)
    assert raw["decode_tp_size"] == "8" and raw["decode_attention_dp_size"] in ("", "0", "1")


def test_how_the_shipped_rows_get_their_counts():
    kinds = Counter((m.workers_from, m.recipe.speculative if m.recipe else "") for _raw, m in _rows())
    assert kinds[("recorded", "")] == 92
    assert kinds[("recipe", "none")] == 168
    assert kinds[("recipe", "mtp")] + kinds[("recipe", "unknown")] == 201
    assert sum(m.mtp_draft_tokens is not None for _raw, m in _rows()) == 76  # TensorRT-LLM's mtp1/2/3
    assert kinds[("assumed", "")] == 216
    for _raw, m in _rows():
        if m.workers_from == "assumed":  # one worker a side, the mapping's rule for an empty count
            assert (m.disagg.prefill.workers, m.disagg.decode.workers) == (1, 1)
            assert not m.tpot_describable
        if m.workers_from == "recipe" and m.recipe.speculative != "none":
            # an MTP recipe of a named draft length is answered with its drafts; one that lists
            # MTP beside plain decoding, or names no length, leaves the decoding unknown
            assert m.tpot_describable == (m.recipe.speculative == "mtp" and m.mtp_draft_tokens is not None)


def test_recipes_of_different_counts_leave_a_run_unknown():
    """A key two recipes list with different worker counts (and no image to prefer one) answers
    None: the counts are used only where they are one answer."""
    key = next(k for k, found in _index().items() if len({(r.prefill_workers, r.decode_workers) for r in found}) > 1)
    system, precision, backend, isl, osl, concurrency, prefill_gpus, decode_gpus = key
    assert published_recipe(system, precision, backend, (isl, osl), concurrency, (prefill_gpus, decode_gpus)) is None
    # the same key asked with one of its images answers where that image's recipes agree
    found = _index()[key]
    for image in {r.image for r in found}:
        counts = {(r.prefill_workers, r.decode_workers) for r in found if r.image == image}
        answer = published_recipe(
            system, precision, backend, (isl, osl), concurrency, (prefill_gpus, decode_gpus), image
        )
        if len(counts) == 1:
            assert (answer.prefill_workers, answer.decode_workers) == counts.pop()
        else:
            assert answer is None


def test_a_deployment_no_recipe_lists_is_none():
    assert published_recipe("gb200", "fp4", "trtllm", (1024, 8192), 2049, (4, 32)) is None
    assert published_recipe("gb200", "fp4", "vllm", (1024, 8192), 2048, (4, 32)) is None


H200_TRT = ("h200_sxm", "fp8", "trtllm", (8192, 1024))  # DeepSeek-R1's 8k/1k recipes, 8 GPUs a worker each side


def _deployments(recipes) -> set[tuple]:
    return {(r.prefill_workers, r.decode_workers, r.speculative, r.draft_tokens) for r in recipes}


def test_a_run_no_recipe_settles_has_the_recipes_it_may_have_been():
    """The table lists MTP and plain decoding at concurrency 256 with different counts
    (ctx3_gen1 ... mtp2, ctx5_gen3 ... mtp0): the counts are not one answer, and both are
    candidates. Concurrency 48 is not listed: the deployments at 32 and 64 are."""
    assert published_recipe(*H200_TRT, 256, (8, 8)) is None
    assert _deployments(published_candidates(*H200_TRT, 256, (8, 8))) == {(3, 1, "mtp", 2), (5, 3, "none", None)}
    assert published_recipe(*H200_TRT, 48, (8, 8)) is None
    at_48 = {(3, 5, "mtp", 3), (2, 5, "none", None), (1, 1, "mtp", 2), (2, 3, "none", None)}
    assert _deployments(published_candidates(*H200_TRT, 48, (8, 8))) == at_48
    # past the last concurrency listed (512), only the one below it
    assert _deployments(published_candidates(*H200_TRT, 1024, (8, 8))) == {(3, 1, "mtp", 1), (3, 1, "none", None)}
    # a deployment the table does not list at any concurrency has none
    assert published_candidates(*H200_TRT, 48, (4, 8)) == ()
    assert published_candidates("gb200", "fp4", "vllm", (1024, 8192), 2048, (4, 32)) == ()
    # an MTP recipe that names no draft length may have run any the table's recipes name
    assert named_draft_lengths() == (1, 2, 3)


def test_a_run_of_several_deployments_is_answered_for_each_and_spanned():
    """An H200 run at concurrency 48 records no worker counts and no recipe lists it: it is
    answered for each of the four deployments either side (the MTP ones with their drafts at
    the fitted acceptance); its bound is the least of theirs, its range spans theirs and its
    estimate is the middle, in ratio, of their extremes."""
    raw = next(r for r in read_rows(DISAGG_CSV) if r["id"].endswith("_8192x1024_c48_tp8_0_ep8_0_357"))
    cal = load_calibration()
    m = row_scenario(raw)
    assert m.workers_from == "assumed" and len(m.candidates) == 4
    deployments = measured_deployments(m, cal)
    shapes = {(d.prefill.workers, d.decode.workers, d.base.speculative and d.base.speculative.draft_tokens)
              for d in deployments}  # fmt: skip
    assert shapes == {(3, 5, 3), (2, 5, None), (1, 1, 2), (2, 3, None)}
    for d in deployments:
        if d.base.speculative is not None:
            acceptance = cal.measured_mtp_acceptance()
            assert (d.base.speculative.acceptance_low, d.base.speculative.acceptance_high) == acceptance
    model, hw = resolve_model(m.model), get_accelerator(m.hardware)
    answers = [disaggregated_estimate(model, hw, d, cal) for d in deployments]
    _, result = answer_row(raw, cal)
    for key in ("tpot_s", "ttft_s"):
        estimates = [a["estimate"][key] for a in answers]
        assert result["bound"][key] == min(a["bound"][key] for a in answers)
        assert result["estimate"][key] == pytest.approx(math.sqrt(min(estimates) * max(estimates)), rel=1e-12)
        low, high = result["estimate"][f"{key}_range"]
        assert low == min(a["estimate"][f"{key}_range"][0] for a in answers)
        assert high == max(a["estimate"][f"{key}_range"][1] for a in answers)
        assert result["bound"][key] <= low <= result["estimate"][key] <= high
    assert result["estimate"]["deployments"] == 4
    # the candidates are apart: the span is wider than any one deployment's range
    widest = max(a["estimate"]["tpot_s_range"][1] / a["estimate"]["tpot_s_range"][0] for a in answers)
    assert high / low > widest


def test_spanning_one_answer_is_that_answer():
    one = {"estimate": {"tpot_s": 0.02, "ttft_s": 0.5, "tpot_s_range": [0.015, 0.03], "ttft_s_range": [0.3, 0.9]},
           "bound": {"tpot_s": 0.01, "ttft_s": 0.2}}  # fmt: skip
    span = spanning([one])
    assert span["bound"] == one["bound"] and span["estimate"]["deployments"] == 1
    assert {k: span["estimate"][k] for k in one["estimate"]} == one["estimate"]


def test_a_recipe_listing_mtp_beside_plain_is_answered_in_both_decodings():
    """At concurrency 512 the table lists one deployment (ctx3_gen1) with MTP of one draft token and
    without: the run is answered both ways."""
    raw = next(r for r in read_rows(DISAGG_CSV) if r["id"].endswith("_8192x1024_c512_tp8_0_ep8_0_370"))
    m = row_scenario(raw)
    assert m.workers_from == "recipe" and not m.tpot_describable
    deployments = measured_deployments(m, load_calibration())
    assert {(d.prefill.workers, d.decode.workers) for d in deployments} == {(3, 1)}
    assert sorted(d.base.speculative.draft_tokens if d.base.speculative else 0 for d in deployments) == [0, 1]


def test_the_table_names_its_source_on_every_row():
    with open(RECIPES_CSV, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 514
    repos = {"SemiAnalysisAI/InferenceX", "InferenceMAX/InferenceMAX", "benenzhu/InferenceMAX", "dukebw/InferenceMAX"}
    for r in rows:
        repo, _, rest = r["source"].partition("@")
        assert repo in repos and ":" in rest
        assert r["speculative"] in ("mtp", "none")
        assert all(c.isdigit() for c in r["concurrency"].split())


def test_validate_scores_each_kind_of_count_apart():
    report = validate_rows(read_rows(DISAGG_CSV))
    by = report["disaggregated"]["by_workers"]
    assert {name: s["rows"] for name, s in by.items()} == {
        "worker counts recorded": 92,
        "worker counts from the recipe": 168,
        "worker counts from an MTP recipe": 76,
        "recipe counts, decoding unknown": 125,
        "one of several recipes": 157,
        "worker counts not recorded": 39,
    }
    # the recipe's counts describe their runs about as well as recorded ones do, MTP's with their
    # drafts at the fitted acceptance too
    assert by["worker counts from the recipe"]["tpot_median_abs_error"] < 0.15
    assert by["worker counts from an MTP recipe"]["tpot_median_abs_error"] < 0.15
    # a run of several candidate deployments is inside its span more often than one answered as
    # one worker per side, and no run of either beats its bound
    assert by["one of several recipes"]["tpot_in_range"] > by["worker counts not recorded"]["tpot_in_range"]
    widths = {name: s["tpot_range_ratio_median"] for name, s in by.items()}
    assert widths["one of several recipes"] > widths["worker counts recorded"]
    assert all(s["bound"]["tpot_above_measured"] == 0 for s in by.values())


def test_a_calibration_fitted_on_no_mtp_run_answers_the_drafts_over_every_acceptance():
    """A held-out fold without MTP runs fits no acceptance. Its MTP candidates are still answered,
    over the whole range: the estimate at half, the bound at every draft accepted, so the span's
    bound stays the least of its deployments' (answered as plain decoding alone, three runs of
    the split beat their bound under such a fold)."""
    shipped = load_calibration()
    unfitted = Calibration("no-mtp", {k: v for k, v in shipped.data.items() if k != "measured_mtp_acceptance"})
    assert unfitted.measured_mtp_acceptance() is None
    raw = next(r for r in read_rows(DISAGG_CSV) if r["id"].endswith("_8192x1024_c48_tp8_0_ep8_0_357"))
    m = row_scenario(raw)
    drafted = [d.base.speculative for d in measured_deployments(m, unfitted) if d.base.speculative is not None]
    assert {(s.draft_tokens, s.acceptance_low, s.acceptance_high) for s in drafted} == {(2, 0.0, 1.0), (3, 0.0, 1.0)}
    # the bound needs no fitted acceptance: the same as the shipped calibration's
    assert answer_row(raw, unfitted)[1]["bound"]["tpot_s"] == answer_row(raw, shipped)[1]["bound"]["tpot_s"]
    named = next(row for _raw, row in _rows() if row.mtp_draft_tokens is not None)
    spec = measured_deployment(named, unfitted).base.speculative
    assert (spec.draft_tokens, spec.acceptance_low, spec.acceptance_high) == (named.mtp_draft_tokens, 0.0, 1.0)
