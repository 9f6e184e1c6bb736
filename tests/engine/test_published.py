"""Published measurements (published/*.yaml) against the engine's bounds (engine/published.py)."""

import pytest

from engine.errors import EngineInputError
from engine.published import (
    PUBLISHED_DIR,
    load_file,
    place,
    published_entries,
    published_measurements,
)

ITEMS = published_measurements()


def test_dataset_is_large_and_varied_enough():
    """At least 12 entries on at least 4 accelerators of the catalogue."""
    assert len(ITEMS) >= 12
    assert len({i["accelerator"] for i in ITEMS}) >= 4
    assert len({i["id"] for i in ITEMS}) == len(ITEMS)


@pytest.mark.parametrize("item", ITEMS, ids=[i["id"] for i in ITEMS])
def test_every_entry_is_below_its_bound_with_mbu_in_range(item):
    """MBU in (5%, 100%]: a measurement above the bound means the entry or the engine is wrong
    (and the file must say which, in `verdict`); below 5% the entry does not measure what the
    roofline bounds. Every scenario must fit the accelerator's memory."""
    assert 0.05 < item["mbu"] <= 1.0
    assert 0 < item["fraction_of_bound"] <= 1.0 or item["verdict"]
    assert 0 < item["mfu"] <= 1.0
    assert item["fits"]


@pytest.mark.parametrize("item", ITEMS, ids=[i["id"] for i in ITEMS])
def test_every_entry_cites_its_number_verbatim(item):
    """The quoted row holds the measured figure as printed (thousands separators included) and
    the scenario's batch, input and output lengths."""
    quote = item["source"]["quote"]
    value = item["value"]
    printed = f"{value:,.0f}" if value == int(value) else f"{value:,}"
    assert printed in quote
    cells = quote.split(" | ")
    assert str(item["batch_size"]) in cells and str(item["input_tokens"]) in cells
    assert str(item["output_tokens"]) in cells and str(item["tensor_parallel"]) in cells


def test_bound_is_the_request_block_by_hand():
    """Llama-2-7B on A100 80GB, FP16, batch 60, 128 in / 2,048 out (static): the bound is
    batch x output / e2e of the request block; measured 1,928 tok/s. Recomputed here from the
    request block's own e2e, and MBU from the decode bytes summed step by step."""
    import numpy as np

    from engine.analysis import Scenario, analyze_one
    from engine.hardware import get_accelerator
    from engine.model_catalog import get_model
    from engine.request import request_block
    from engine.sweep import decode_sweep

    item = next(i for i in ITEMS if i["id"] == "trtllm-a100-llama-2-7b-tp1-b60-128-2048")
    model, hw = get_model("llama-2-7b"), get_accelerator("a100-80gb-sxm")
    scenario = Scenario(batch_size=60, context_length=128, weight_dtype="fp16", kv_dtype="fp16", compute_dtype="fp16")
    block = request_block(model, hw, scenario, 2048)
    assert item["bound"] == pytest.approx(60 * 2048 / block["e2e_s"], rel=1e-12)
    assert item["fraction_of_bound"] == pytest.approx(1928 / item["bound"], rel=1e-12)
    steps = decode_sweep(model, hw, scenario, context_lengths=np.arange(128, 128 + 2048))
    byts = analyze_one(model, hw, scenario)["prefill"]["bytes"] + steps["bytes"].sum()
    assert item["mbu"] == pytest.approx(byts / (60 * 2048 / 1928) / 2.039e12, rel=1e-9)
    # decode-dominated: nearly all of the time is the bandwidth bound, so MBU ~ fraction of bound
    assert item["mbu"] == pytest.approx(item["fraction_of_bound"], rel=0.02)


def test_other_metrics_place_the_right_interval():
    """A per-token time covers the decode steps only, a TTFT the prefill only: at exactly the
    bound each gives fraction 1."""
    from engine.analysis import Scenario
    from engine.hardware import get_accelerator
    from engine.model_catalog import get_model
    from engine.request import request_block

    base = published_entries()[0]
    scenario = Scenario(
        batch_size=base.batch_size,
        context_length=base.input_tokens,
        weight_dtype=base.weight_dtype,
        kv_dtype=base.kv_dtype,
        compute_dtype=base.compute_dtype,
        tensor_parallel=base.tensor_parallel,
    )
    block = request_block(get_model(base.model), get_accelerator(base.accelerator), scenario, base.output_tokens)
    for metric, value in (
        ("ms_per_output_token", block["tpot_s"] * 1e3),
        ("ttft_ms", block["ttft_s"] * 1e3),
        ("output_tokens_per_s_per_sequence", block["output_tokens_per_s_per_sequence"]),
    ):
        placed = place(base.model_copy(update={"metric": metric, "value": value}))
        assert placed["fraction_of_bound"] == pytest.approx(1.0, rel=1e-12), metric
        assert placed["bound"] == pytest.approx(value, rel=1e-12)
    faster = place(base.model_copy(update={"value": base.value * 10}))
    assert faster["fraction_of_bound"] > 1  # what the MBU test would catch


def test_bad_files_are_refused_with_the_field(tmp_path):
    good = (PUBLISHED_DIR / "measurements.yaml").read_text()
    (tmp_path / "x.yaml").write_text(good.replace("\n  batching: static", "\n  batching: continuous", 1))
    with pytest.raises(EngineInputError, match="batching"):
        load_file(tmp_path / "x.yaml")
    (tmp_path / "x.yaml").write_text(good.replace("  notes:", "  surprise: 1\n  notes:", 1))
    with pytest.raises(EngineInputError, match="surprise"):
        load_file(tmp_path / "x.yaml")


def test_cli_published_table_and_json(capsys):
    import json

    from app.cli import main

    assert main(["published"]) == 0
    out = capsys.readouterr().out
    assert f"{len(ITEMS)} published runs match." in out and "19,694" in out and "a100-80gb-sxm" in out
    assert main(["published", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == json.loads(json.dumps(ITEMS))


# ---- only the runs of the chosen model and precision -------------------------------------


def test_published_for_keeps_only_the_chosen_model_and_precision():
    """A Llama-3-8B bf16 chart gets none of the Llama-2 fp8 runs, and says how many it left
    out; Llama-2-7B fp8 on the H100 gets exactly its four runs."""
    from engine.published import published_for

    none = published_for("llama-3-8b", "bf16", "bf16")
    assert none["items"] == [] and none["left_out"]["other_model"] == len(ITEMS) == none["left_out_count"]
    assert none["note"] == f"0 published runs match; {len(ITEMS)} left out: {len(ITEMS)} of another model."
    mine = published_for("llama-2-7b", "fp8", "fp8", ["h100-sxm5"])
    assert {(i["model"], i["weight_dtype"], i["compute_dtype"], i["accelerator"]) for i in mine["items"]} == {
        ("llama-2-7b", "fp8", "fp8", "h100-sxm5")
    }
    assert len(mine["items"]) == 4
    # every entry is either shown or counted under exactly one reason
    assert len(mine["items"]) + mine["left_out_count"] == len(ITEMS)
    fp16 = sum(1 for i in ITEMS if i["model"] == "llama-2-7b" and i["weight_dtype"] != "fp8")
    assert mine["left_out"]["other_precision"] == fp16 > 0
    assert "in another precision" in mine["note"] and "on another accelerator" in mine["note"]


def test_published_for_without_filters_is_every_entry():
    from engine.published import published_for

    everything = published_for()
    assert everything["items"] == ITEMS and everything["left_out_count"] == 0
    assert everything["note"] == f"{len(ITEMS)} published runs match."


def test_published_runs_fit_the_whole_card_they_ran_on():
    """A published run happened, so `fits` asks the whole card (memory_utilization 1.0): the
    A100 fp16 run of 60 x 2,176 tokens needs ~77 GiB, more than a serving engine's 0.9 x 80."""
    item = next(i for i in ITEMS if i["id"] == "trtllm-a100-llama-2-7b-tp1-b60-128-2048")
    assert item["fits"]
