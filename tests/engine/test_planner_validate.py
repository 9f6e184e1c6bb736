"""Would the planner's pick have met the target? The score on the shipped aggregated split,
pinned (the README's planner table), and the rule on a group made by hand."""

import pytest

from engine.errors import EngineInputError
from engine.planner.validate import validate_plan
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV, stream_rows


def test_the_shipped_split_scores_as_the_readme_says():
    report = validate_plan(stream_rows(TRAINING_CSV))
    assert report["groups"] == 80 and report["rows_not_described"] == 0
    # README "Planner: checked against reality" (in sample: the calibration was fitted on these runs)
    assert report["by_estimate"]["success_rate"] == pytest.approx(0.6875, abs=0.005)
    assert report["by_estimate"]["median_regret"] == pytest.approx(0.298, abs=0.005)
    assert report["by_pessimistic"]["success_rate"] == pytest.approx(0.875, abs=0.005)
    assert report["by_pessimistic"]["median_regret"] == pytest.approx(0.405, abs=0.005)
    # the pessimistic end of the range is the safer pick
    assert report["by_pessimistic"]["success_rate"] > report["by_estimate"]["success_rate"]


def test_the_disaggregated_split_scores_only_the_runs_the_estimate_describes():
    """A run whose worker counts are assumed (its GPUs unknown) or whose recipe leaves its decoding
    unknown is left out and counted: 216 assumed and 125 such rows, 20 of them among the rows that
    do not fit their GPUs. An MTP recipe's run of a named draft length is scored with its drafts."""
    report = validate_plan(stream_rows(DISAGG_CSV))
    assert report["rows_not_described"] == 321 and report["rows_skipped"] == 20
    assert report["groups"] == 24
    assert report["by_estimate"]["success_rate"] == pytest.approx(0.792, abs=0.005)
    assert report["by_estimate"]["median_regret"] == pytest.approx(0.141, abs=0.005)
    assert report["by_pessimistic"]["success_rate"] == pytest.approx(0.958, abs=0.005)


def _row(tp: str, concurrency: str, tpot_ms: str) -> dict:
    return {
        "id": f"tp{tp}-c{concurrency}", "model_path": "meta-llama/Llama-3.1-8B-Instruct", "system": "h100_sxm",
        "backend": "vllm", "mode": "agg", "isl": "1024", "osl": "1024", "gemm_quant_mode": "fp8",
        "batch_size": concurrency, "tp_size": tp, "silicon_ttft_ms": "50", "silicon_tpot_ms": tpot_ms,
        "silicon_data_source": "",
    }  # fmt: skip


def test_a_group_needs_two_layouts():
    with pytest.raises(EngineInputError) as err:
        validate_plan([_row("1", "8", "6"), _row("1", "16", "7")])
    assert err.value.code == "plan_no_groups"


def test_a_pick_that_misses_is_full_regret():
    # the target is the median measured TPOT (8 ms): every pick the estimate makes is a run it
    # believes meets 8 ms; these runs are measured far slower than any estimate, so only the
    # slowest-concurrency runs meet it, and whatever else is picked misses
    rows = [_row("1", "1", "5"), _row("1", "256", "900"), _row("2", "1", "8"), _row("2", "256", "900")]
    report = validate_plan(rows)
    assert report["groups"] == 1
    by = report["by_estimate"]
    assert by["success_rate"] in (0.0, 1.0) and (by["median_regret"] == 1.0) == (by["success_rate"] == 0.0)
