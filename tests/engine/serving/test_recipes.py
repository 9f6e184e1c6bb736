"""The benchmark's published recipes supply the worker counts a measured disaggregated row leaves
empty (engine.serving.recipes; published/serving/README.md says where the table comes from)."""

import csv
from collections import Counter

from engine.serving.mapping import DISAGG_CSV, read_rows, row_scenario
from engine.serving.recipes import RECIPES_CSV, _index, published_recipe
from engine.serving.validate import validate_rows


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
        "worker counts not recorded": 196,
    }
    # the recipe's counts describe their runs about as well as recorded ones do, MTP's with their
    # drafts at the fitted acceptance too
    assert by["worker counts from the recipe"]["tpot_median_abs_error"] < 0.15
    assert by["worker counts from an MTP recipe"]["tpot_median_abs_error"] < 0.15
    assert by["worker counts not recorded"]["tpot_median_abs_error"] > 0.3
